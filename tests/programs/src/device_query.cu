// device_query: device count, properties, attributes, occupancy and function attributes, printed
// as key=value lines. The values depend on the GPU (compare with ptxray run as --arch h100).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t err_ = (call);                                             \
    if (err_ != cudaSuccess) {                                             \
      printf("CUDA error %s at %s\n", cudaGetErrorName(err_), #call);      \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// 512 floats of static shared memory (2048 bytes) and a launch bound of 128 threads.
__global__ void __launch_bounds__(128) tile_kernel(float* out) {
  __shared__ float tile[512];
  for (int i = threadIdx.x; i < 512; i += blockDim.x) tile[i] = (float)i;
  __syncthreads();
  out[threadIdx.x] = tile[511 - threadIdx.x];
}

int main() {
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  printf("device_count=%d\n", count);
  int dev = 0;
  CHECK(cudaSetDevice(dev));
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, dev));
  printf("prop.name=%s\n", p.name);
  printf("prop.major=%d\nprop.minor=%d\n", p.major, p.minor);
  printf("prop.multiProcessorCount=%d\n", p.multiProcessorCount);
  printf("prop.maxThreadsPerBlock=%d\n", p.maxThreadsPerBlock);
  printf("prop.maxThreadsDim=%d,%d,%d\n", p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2]);
  printf("prop.maxGridSize=%d,%d,%d\n", p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2]);
  printf("prop.warpSize=%d\n", p.warpSize);
  printf("prop.sharedMemPerBlock=%zu\n", p.sharedMemPerBlock);
  printf("prop.sharedMemPerBlockOptin=%zu\n", p.sharedMemPerBlockOptin);
  printf("prop.sharedMemPerMultiprocessor=%zu\n", p.sharedMemPerMultiprocessor);
  printf("prop.regsPerBlock=%d\n", p.regsPerBlock);
  printf("prop.regsPerMultiprocessor=%d\n", p.regsPerMultiprocessor);
  printf("prop.maxThreadsPerMultiProcessor=%d\n", p.maxThreadsPerMultiProcessor);
  printf("prop.totalConstMem=%zu\n", p.totalConstMem);
  printf("prop.l2CacheSize=%d\n", p.l2CacheSize);
  printf("prop.managedMemory=%d\n", p.managedMemory);
  printf("prop.unifiedAddressing=%d\n", p.unifiedAddressing);
  printf("prop.concurrentKernels=%d\n", p.concurrentKernels);

  struct { cudaDeviceAttr attr; const char* name; } attrs[] = {
      {cudaDevAttrMultiProcessorCount, "MultiProcessorCount"},
      {cudaDevAttrMaxThreadsPerBlock, "MaxThreadsPerBlock"},
      {cudaDevAttrComputeCapabilityMajor, "ComputeCapabilityMajor"},
      {cudaDevAttrComputeCapabilityMinor, "ComputeCapabilityMinor"},
      {cudaDevAttrWarpSize, "WarpSize"},
      {cudaDevAttrMaxSharedMemoryPerBlock, "MaxSharedMemoryPerBlock"},
      {cudaDevAttrMaxRegistersPerBlock, "MaxRegistersPerBlock"},
      {cudaDevAttrMaxThreadsPerMultiProcessor, "MaxThreadsPerMultiProcessor"},
  };
  for (const auto& a : attrs) {
    int v = -1;
    CHECK(cudaDeviceGetAttribute(&v, a.attr, dev));
    printf("attr.%s=%d\n", a.name, v);
  }

  int blocks_per_sm = 0, min_grid = 0, best_block = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, saxpy, 256, 0));
  printf("occupancy.saxpy.block256.activeBlocksPerSM=%d\n", blocks_per_sm);
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, tile_kernel, 128, 0));
  printf("occupancy.tile_kernel.block128.activeBlocksPerSM=%d\n", blocks_per_sm);
  CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &best_block, saxpy, 0, 0));
  printf("occupancy.saxpy.potential.minGridSize=%d\n", min_grid);
  printf("occupancy.saxpy.potential.blockSize=%d\n", best_block);

  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, tile_kernel));
  printf("func.tile_kernel.maxThreadsPerBlock=%d\n", fa.maxThreadsPerBlock);
  printf("func.tile_kernel.sharedSizeBytes=%zu\n", fa.sharedSizeBytes);
  CHECK(cudaFuncGetAttributes(&fa, saxpy));
  printf("func.saxpy.maxThreadsPerBlock=%d\n", fa.maxThreadsPerBlock);
  printf("func.saxpy.sharedSizeBytes=%zu\n", fa.sharedSizeBytes);

  float* d;
  CHECK(cudaMalloc(&d, 128 * sizeof(float)));
  tile_kernel<<<1, 128>>>(d);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float h[128];
  CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d));
  printf("tile_kernel.out0=%.1f tile_kernel.out127=%.1f\n", h[0], h[127]);
  return 0;
}
