// Kepler's configuration calls ([KTG] 1.4.3.1-1.4.3.2) reach ptxray's performance model: the same
// kernel, reading consecutive doubles from shared memory, launched in the default 4-byte bank mode
// and after cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte). On a Kepler GPU the first
// launch's warps need two shared wavefronts per access (32 doubles span 64 4-byte banks), the second
// one; GPUs of other generations ignore the setting. The output is the same on every GPU.
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    cudaError_t e_ = (call);                                                                                           \
    if (e_ != cudaSuccess) {                                                                                           \
      std::printf("CUDA error %s at %s\n", cudaGetErrorName(e_), #call);                                              \
      std::exit(1);                                                                                                    \
    }                                                                                                                  \
  } while (0)

__global__ void sharedDoubles(double *out) {
  __shared__ double tile[256];
  tile[threadIdx.x] = threadIdx.x * 0.5;
  __syncthreads();
  double sum = 0;
  for (int i = 0; i < 16; ++i)
    sum += tile[(threadIdx.x + i * 32) % 256];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

int main() {
  double *out = nullptr;
  CHECK(cudaMalloc(&out, 64 * 256 * sizeof(double)));
  sharedDoubles<<<64, 256>>>(out);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte));
  sharedDoubles<<<64, 256>>>(out);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFuncSetCacheConfig(sharedDoubles, cudaFuncCachePreferShared));
  sharedDoubles<<<64, 256>>>(out);
  CHECK(cudaDeviceSynchronize());
  double h = 0;
  CHECK(cudaMemcpy(&h, out + 1, sizeof h, cudaMemcpyDeviceToHost));
  std::printf("kepler_config: out[1] = %.1f\n", h);
  CHECK(cudaFree(out));
  return 0;
}
