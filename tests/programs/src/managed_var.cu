// __managed__ variables: one memory that host code and kernels both read and write, with its static
// initializer, an array of them, and a kernel that updates them atomically.
#include <cstdio>

__managed__ int counter = 5;
__managed__ float weights[4] = {0.5f, 1.5f, 2.5f, 3.5f};

__global__ void bump(int k) {
  atomicAdd(&counter, k);
  if (threadIdx.x < 4)
    weights[threadIdx.x] *= 2.0f;
}

int main() {
  printf("initial: counter=%d weights[3]=%.1f\n", counter, weights[3]);
  counter += 100; // host writes, the kernel sees them
  bump<<<1, 32>>>(2);
  cudaError_t e = cudaDeviceSynchronize();
  printf("after kernel (%s): counter=%d weights=%.1f %.1f %.1f %.1f\n", cudaGetErrorName(e), counter, weights[0],
         weights[1], weights[2], weights[3]);
  return e == cudaSuccess ? 0 : 1;
}
