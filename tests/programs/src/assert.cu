// assert: one thread of one block fails a device assert(); cudaDeviceSynchronize returns
// cudaErrorAssert (sticky: the context is unusable afterwards). Exit status 4 then.
#include <cassert>
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

__global__ void check_values(const int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(v[i] != 13);
}

int main() {
  const int n = 64;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i < 13 ? i : i + 1;
  h[45] = 13;  // exactly one thread fails: block 1, thread 13
  int* d;
  CHECK(cudaMalloc(&d, sizeof(h)));
  CHECK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
  printf("assert: launching\n");
  fflush(stdout);
  check_values<<<2, 32>>>(d, n);
  CHECK(cudaGetLastError());
  cudaError_t err = cudaDeviceSynchronize();
  printf("cudaDeviceSynchronize: %s\n", cudaGetErrorName(err));
  if (err != cudaSuccess) return 4;
  printf("assert: no assertion reported\n");
  return 0;
}
