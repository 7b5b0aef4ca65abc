// histogram: 256 bins, shared-memory atomicAdd per block, then global atomicAdd; input from a fixed
// LCG, checked against the host.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t err_ = (call);                                             \
    if (err_ != cudaSuccess) {                                             \
      printf("CUDA error %s at %s\n", cudaGetErrorName(err_), #call);      \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

constexpr int BINS = 256;

__global__ void histogram(const unsigned char* data, int n, unsigned int* hist) {
  __shared__ unsigned int local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    if (local[b]) atomicAdd(&hist[b], local[b]);
}

int main() {
  const int n = 1 << 18;
  std::vector<unsigned char> data(n);
  unsigned int x = 12345u;
  for (int i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;  // Numerical Recipes LCG
    data[i] = (unsigned char)(x >> 24);
  }
  std::vector<unsigned int> ref(BINS, 0), hist(BINS, 0);
  for (int i = 0; i < n; ++i) ++ref[data[i]];
  unsigned char* d_data;
  unsigned int* d_hist;
  CHECK(cudaMalloc(&d_data, n));
  CHECK(cudaMalloc(&d_hist, BINS * sizeof(unsigned int)));
  CHECK(cudaMemcpy(d_data, data.data(), n, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_hist, 0, BINS * sizeof(unsigned int)));
  histogram<<<48, 192>>>(d_data, n, d_hist);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(hist.data(), d_hist, BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_data));
  CHECK(cudaFree(d_hist));
  int bad = 0;
  unsigned long long total = 0;
  for (int b = 0; b < BINS; ++b) {
    bad += hist[b] != ref[b];
    total += hist[b];
  }
  printf("histogram: %s n=%d bins=%d mismatched_bins=%d\n", bad ? "FAIL" : "PASS", n, BINS, bad);
  printf("bin[0]=%u bin[1]=%u bin[127]=%u bin[255]=%u total=%llu\n", hist[0], hist[1], hist[127], hist[255],
         total);
  return bad ? 2 : 0;
}
