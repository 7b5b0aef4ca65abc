// Records what the CUDA driver says about occupancy on the GPU it runs on, as JSON lines, so that
// ptxray's OccupancyCalculator can be checked against real hardware (tests read the committed output).
//
// Build once per register cap (the kernel wants more registers than any cap, so the cap is what
// ptxas allocates; the true count is read back with cudaFuncGetAttributes):
//   nvcc -O3 -arch=sm_90 -maxrregcount=R -DREG_CAP=R occupancy_probe.cu -o probe_R
#include <cstdio>
#include <cuda_runtime.h>

#ifndef REG_CAP
#define REG_CAP 0
#endif

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t err_ = (call);                                                                     \
    if (err_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));           \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

// Many values live at once: register demand well above 255 before the cap.
__global__ void pressure(float *out, const float *in, int n) {
  float acc[96];
#pragma unroll
  for (int i = 0; i < 96; ++i)
    acc[i] = in[(threadIdx.x + i * 37) % n];
  for (int r = 0; r < 8; ++r) {
#pragma unroll
    for (int i = 0; i < 96; ++i)
      acc[i] = acc[i] * acc[(i + r + 1) % 96] + 1.0f;
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < 96; ++i)
    s += acc[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Static shared memory variants: 0, 1 KiB + 4 B (not a multiple of the allocation unit), 12 KiB.
template <int Bytes> __global__ void withShared(float *out) {
  __shared__ float buf[Bytes / 4 > 0 ? Bytes / 4 : 1];
  buf[threadIdx.x % (Bytes / 4 > 0 ? Bytes / 4 : 1)] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = buf[(threadIdx.x + 1) % (Bytes / 4 > 0 ? Bytes / 4 : 1)];
}

template <typename Kernel> int sweep(Kernel kernel, const char *name, const cudaDeviceProp &prop) {
  cudaFuncAttributes attr;
  CHECK(cudaFuncGetAttributes(&attr, kernel));
  const int blocks[] = {1, 32, 33, 64, 96, 100, 128, 160, 192, 224, 256, 288, 320, 384, 448, 512, 576, 640, 768, 896, 1000, 1024};
  const int carveouts[] = {-1, 0, 25, 50, 100};
  const size_t dyn[] = {0, 1, 1024, 4096, 8192, 16384, 32768, 49152, 65536, 98304, 131072, 200704, 232448};
  for (int carveout : carveouts) {
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
    for (size_t d : dyn) {
      size_t maxDyn = prop.sharedMemPerBlockOptin - attr.sharedSizeBytes;
      if (d > maxDyn)
        continue;
      CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(d)));
      for (int b : blocks) {
        int active = -1;
        cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, kernel, b, d);
        std::printf("{\"kernel\":\"%s\",\"reg_cap\":%d,\"num_regs\":%d,\"static_smem\":%zu,\"block\":%d,"
                    "\"dyn_smem\":%zu,\"carveout\":%d,\"active_blocks\":%d,\"error\":\"%s\"}\n",
                    name, REG_CAP, attr.numRegs, attr.sharedSizeBytes, b, d, carveout, active,
                    e == cudaSuccess ? "" : cudaGetErrorName(e));
      }
    }
  }
  return 0;
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("{\"device\":\"%s\",\"cc\":\"%d.%d\",\"sms\":%d,\"regs_per_sm\":%d,\"regs_per_block\":%d,"
              "\"smem_per_sm\":%zu,\"smem_per_block\":%zu,\"smem_per_block_optin\":%zu,\"reserved_smem_per_block\":%zu,"
              "\"max_threads_per_sm\":%d,\"max_blocks_per_sm\":%d,\"max_threads_per_block\":%d,\"warp_size\":%d,"
              "\"l2_bytes\":%d,\"mem_bus_bits\":%d}\n",
              prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.regsPerMultiprocessor,
              prop.regsPerBlock, prop.sharedMemPerMultiprocessor, prop.sharedMemPerBlock,
              prop.sharedMemPerBlockOptin, prop.reservedSharedMemPerBlock, prop.maxThreadsPerMultiProcessor,
              prop.maxBlocksPerMultiProcessor, prop.maxThreadsPerBlock, prop.warpSize, prop.l2CacheSize,
              prop.memoryBusWidth);
  if (sweep(pressure, "pressure", prop))
    return 1;
#if REG_CAP == 32
  // Static shared memory only needs one register setting.
  if (sweep(withShared<0>, "shared0", prop) || sweep(withShared<1028>, "shared1028", prop) ||
      sweep(withShared<12288>, "shared12288", prop))
    return 1;
#endif
  return 0;
}
