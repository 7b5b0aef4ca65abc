// error_launch: launches with 2048 threads per block fail (a launch error, not sticky);
// cudaGetLastError clears it and a correct launch then works. Older runtimes report
// cudaErrorInvalidConfiguration; CUDA 13.0 with driver 580 on an H100 reports cudaErrorInvalidValue
// ("invalid argument") for these and for every other bad launch configuration tried.
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

__global__ void fill(int* out, int v) { out[blockIdx.x * blockDim.x + threadIdx.x] = v + threadIdx.x; }

int main() {
  int* d;
  CHECK(cudaMalloc(&d, 2048 * sizeof(int)));
  CHECK(cudaMemset(d, 0, 2048 * sizeof(int)));
  fill<<<1, 2048>>>(d, 7);  // more than 1024 threads per block
  cudaError_t peek = cudaPeekAtLastError();
  cudaError_t err = cudaGetLastError();
  printf("bad launch: peek=%s get=%s\n", cudaGetErrorName(peek), cudaGetErrorName(err));
  printf("bad launch message: %s\n", cudaGetErrorString(err));
  printf("after clearing: %s\n", cudaGetErrorName(cudaGetLastError()));
  fill<<<1, dim3(32, 32, 2)>>>(d, 7);  // each dimension within limits, 2048 threads in all
  cudaError_t err3d = cudaGetLastError();
  printf("bad launch 32x32x2: %s\n", cudaGetErrorName(err3d));

  fill<<<2, 64>>>(d, 100);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int h[128];
  CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d));
  int bad = 0;
  for (int i = 0; i < 128; ++i) bad += h[i] != 100 + i % 64;
  printf("good launch: %s h[0]=%d h[63]=%d h[64]=%d h[127]=%d\n", bad ? "FAIL" : "PASS", h[0], h[63], h[64],
         h[127]);
  return (err != cudaSuccess && err3d != cudaSuccess && !bad) ? 0 : 2;
}
