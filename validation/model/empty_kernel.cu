// Launch overhead of an empty kernel on the GPU, two ways:
//   empty_kernel [LAUNCHES]
// times LAUNCHES (default 1000) back-to-back launches of a 1x1 empty kernel with CUDA events
// (after 100 warm-up launches) and prints the mean per launch; run under ncu
// (--metrics gpu__time_duration.sum) it gives the profiler's per-launch duration instead.
// Build: nvcc -O2 -arch=sm_90 empty_kernel.cu -o empty_kernel
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void emptyKernel() {}

#define CHECK(x)                                                                                                       \
  do {                                                                                                                 \
    cudaError_t e_ = (x);                                                                                              \
    if (e_ != cudaSuccess) {                                                                                           \
      std::fprintf(stderr, "empty_kernel: %s: %s\n", #x, cudaGetErrorString(e_));                                      \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

int main(int argc, char **argv) {
  int launches = argc > 1 ? std::atoi(argv[1]) : 1000;
  if (launches <= 0)
    launches = 1000;
  for (int i = 0; i < 100; i++)
    emptyKernel<<<1, 1>>>();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  // Three repetitions; each is LAUNCHES back-to-back launches between two events.
  for (int rep = 0; rep < 3; rep++) {
    CHECK(cudaEventRecord(start));
    for (int i = 0; i < launches; i++)
      emptyKernel<<<1, 1>>>();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaGetLastError());
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("empty_kernel: rep %d: %d launches in %.4f ms: %.3f us per launch\n", rep, launches, ms,
                1000.0 * ms / launches);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return 0;
}
