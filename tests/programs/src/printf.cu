// printf: device printf with ints, floats (%f, %.3f, %8.3f), strings (literals and a string in
// global memory), %x, %lld, %u, %c, a width. The order of lines is fixed: within a block, threads
// print one at a time between __syncthreads(); of several blocks only one prints; launches are
// separated by cudaDeviceSynchronize and host output is flushed before device output can follow.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t err_ = (call);                                             \
    if (err_ != cudaSuccess) {                                             \
      printf("CUDA error %s at %s\n", cudaGetErrorName(err_), #call);      \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

__global__ void talk(const char* word, long long big) {
  const char* names[4] = {"zero", "one", "two", "three"};
  if (threadIdx.x == 0) printf("header: grid=%d block=%d word=%s\n", gridDim.x, blockDim.x, word);
  __syncthreads();
  for (int t = 0; t < 4; ++t) {
    int who = t * 20;  // threads 0, 20, 40, 60: both warps of the block
    if (threadIdx.x == who)
      printf("thread %d: i=%d f=%f f3=%.3f hex=%x ll=%lld s=%s\n", who, t * t - 3, 0.5f + t,
             1.0f / (t + 3), 0xbeef00u + t, big * (t + 1), names[t]);
    __syncthreads();
  }
  if (threadIdx.x == blockDim.x - 1)
    printf("misc: c=%c u=%u w=[%5d] pi=%8.3f neg=%f pct=%%\n", 'A' + 2, 4000000000u, 42, 3.14159f, -1.25f);
}

__global__ void one_of_many() {
  if (blockIdx.x == 2 && threadIdx.x == 5)
    printf("block %d of %d, thread %d: goodbye %s\n", blockIdx.x, gridDim.x, threadIdx.x, "world");
}

int main() {
  const char host_word[] = "ptxray";
  char* d_word;
  CHECK(cudaMalloc(&d_word, sizeof(host_word)));
  CHECK(cudaMemcpy(d_word, host_word, sizeof(host_word), cudaMemcpyHostToDevice));
  printf("printf: first launch\n");
  fflush(stdout);
  talk<<<1, 64>>>(d_word, -9000000000LL);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  printf("printf: second launch\n");
  fflush(stdout);
  one_of_many<<<3, 32>>>();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(d_word));
  printf("printf: done\n");
  return 0;
}
