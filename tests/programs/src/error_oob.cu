// error_oob: a kernel writes far out of bounds (2^38 ints, 1 TiB, past a 1 KiB allocation). The
// launch itself succeeds; cudaDeviceSynchronize reports the fault (cudaErrorIllegalAddress on a
// GPU). Exit status 3 when an error is reported, 0 if none is.
// Not 1 GiB past: on an H100 (driver 580) that faulted as cudaErrorInvalidAddressSpace in about a
// quarter of the runs; 64 GiB and 1 TiB past gave cudaErrorIllegalAddress every time.
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

__global__ void write_far(int* p, size_t offset) {
  p[threadIdx.x] = 1;                     // in bounds
  if (threadIdx.x == 7) p[offset] = 42;   // far out of bounds
}

int main() {
  int* d;
  CHECK(cudaMalloc(&d, 256 * sizeof(int)));
  CHECK(cudaMemset(d, 0, 256 * sizeof(int)));
  printf("error_oob: launching\n");
  write_far<<<1, 32>>>(d, (size_t)1 << 38);
  CHECK(cudaGetLastError());  // the launch is valid: the fault comes later
  cudaError_t err = cudaDeviceSynchronize();
  printf("cudaDeviceSynchronize: %s\n", cudaGetErrorName(err));
  if (err != cudaSuccess) {
    printf("error_oob: fault reported, exit 3\n");
    return 3;
  }
  printf("error_oob: no fault reported\n");
  return 0;
}
