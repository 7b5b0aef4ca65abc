// vector_add: cudaMalloc, cudaMemcpy, a <<<>>> launch, cudaGetLastError, cudaDeviceSynchronize.
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

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 100000;  // not a multiple of the block size
  const size_t bytes = n * sizeof(float);
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = (float)i;            // integers below 2^24: every sum is exact
    b[i] = (float)(2 * i + 1);
  }
  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, bytes));
  CHECK(cudaMalloc(&db, bytes));
  CHECK(cudaMalloc(&dc, bytes));
  CHECK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));
  const int block = 256, grid = (n + block - 1) / block;
  vector_add<<<grid, block>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) ++bad;
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  if (bad) {
    printf("vector_add: FAIL mismatches=%d\n", bad);
    return 2;
  }
  printf("vector_add: PASS n=%d grid=%d block=%d\n", n, grid, block);
  printf("c[0]=%.1f c[12345]=%.1f c[%d]=%.1f\n", c[0], c[12345], n - 1, c[n - 1]);
  return 0;
}
