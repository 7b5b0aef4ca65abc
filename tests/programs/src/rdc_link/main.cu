// rdc_link: device code in two translation units, linked (nvcc -rdc=true main.cu lib.cu). The kernel
// in main.cu calls functions and reads variables lib.cu defines; the host writes a __constant__ array
// and reads a __device__ counter of the other unit by symbol; each unit keeps a private `counter`.
#include "common.h"

#include <cuda_runtime.h>

static __device__ int counter = 1000;

__global__ void combine(float *out, int *privates, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = blend(static_cast<float>(square(i % 8)), threadIdx.x);
  if (i == 0) {
    privates[0] = counter;      // this unit's
    privates[1] = libCounter(); // lib.cu's, plus square(2)
  }
}

#define CHECK(call)                                                                                            \
  do {                                                                                                         \
    cudaError_t e = (call);                                                                                    \
    if (e != cudaSuccess) {                                                                                    \
      std::printf("%s failed: %s\n", #call, cudaGetErrorString(e));                                          \
      return 1;                                                                                                \
    }                                                                                                          \
  } while (0)

int main() {
  const int n = 256;
  const float w[4] = {0.5f, 1.0f, 1.5f, 2.0f};
  CHECK(cudaMemcpyToSymbol(weights, w, sizeof w));
  float *out;
  int *privates;
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMalloc(&privates, 2 * sizeof(int)));
  combine<<<n / 128, 128>>>(out, privates, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float h[n];
  int p[2];
  unsigned calls = 0;
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(p, privates, sizeof p, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpyFromSymbol(&calls, hits, sizeof calls));
  double sum = 0;
  for (int i = 0; i < n; ++i)
    sum += h[i];
  std::printf("out[0..7] = %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f\n", h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]);
  std::printf("sum %.1f, blend called %u times\n", sum, calls);
  std::printf("private counters: main.cu %d, lib.cu %d\n", p[0], p[1]);
  int t[4];
  CHECK(cudaMemcpyFromSymbol(t, table, sizeof t));
  std::printf("table %d %d %d %d\n", t[0], t[1], t[2], t[3]);
  return 0;
}
