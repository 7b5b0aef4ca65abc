// symbols: __device__ and __constant__ variables; cudaMemcpyToSymbol (with and without an offset),
// cudaMemcpyFromSymbol, cudaGetSymbolAddress, cudaGetSymbolSize; a kernel reading the constants.
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

__constant__ int c_coef[4];                         // set by cudaMemcpyToSymbol
__constant__ int c_bias = 1000;                     // static initializer, never written
__device__ int d_table[8] = {1, 2, 3, 4, 0, 0, 0, 0};  // second half set with an offset
__device__ unsigned int d_counter;                  // zeroed through its address
__device__ int d_last;

// out[i] = c0 + c1*i + c2*i^2 + c3*i^3 + bias + table[i % 8]
__global__ void eval(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = c_coef[0] + i * (c_coef[1] + i * (c_coef[2] + i * c_coef[3])) + c_bias + d_table[i % 8];
  atomicAdd(&d_counter, 1u);
  if (i == n - 1) d_last = out[i];
}

int main() {
  const int n = 100;
  const int coef[4] = {5, -3, 2, 1};
  const int upper[4] = {50, 60, 70, 80};
  CHECK(cudaMemcpyToSymbol(c_coef, coef, sizeof(coef)));
  CHECK(cudaMemcpyToSymbol(d_table, upper, sizeof(upper), 4 * sizeof(int)));
  size_t table_size = 0, coef_size = 0, counter_size = 0;
  CHECK(cudaGetSymbolSize(&table_size, d_table));
  CHECK(cudaGetSymbolSize(&coef_size, c_coef));
  CHECK(cudaGetSymbolSize(&counter_size, d_counter));
  void* counter_addr = nullptr;
  CHECK(cudaGetSymbolAddress(&counter_addr, d_counter));
  CHECK(cudaMemset(counter_addr, 0, sizeof(unsigned int)));

  int* d_out;
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  eval<<<(n + 31) / 32, 32>>>(d_out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int out[n];
  CHECK(cudaMemcpy(out, d_out, sizeof(out), cudaMemcpyDeviceToHost));
  unsigned int counter = 0, counter_via_addr = 0;
  int last = 0, table[8], bias = 0;
  CHECK(cudaMemcpyFromSymbol(&counter, d_counter, sizeof(counter)));
  CHECK(cudaMemcpy(&counter_via_addr, counter_addr, sizeof(unsigned int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpyFromSymbol(&last, d_last, sizeof(int)));
  CHECK(cudaMemcpyFromSymbol(table, d_table, sizeof(table)));
  CHECK(cudaMemcpyFromSymbol(&bias, c_bias, sizeof(int)));
  CHECK(cudaFree(d_out));

  const int full_table[8] = {1, 2, 3, 4, 50, 60, 70, 80};
  int bad = 0;
  for (int i = 0; i < n; ++i)
    bad += out[i] != coef[0] + i * (coef[1] + i * (coef[2] + i * coef[3])) + 1000 + full_table[i % 8];
  printf("symbols: %s mismatches=%d\n", bad ? "FAIL" : "PASS", bad);
  printf("size(d_table)=%zu size(c_coef)=%zu size(d_counter)=%zu\n", table_size, coef_size, counter_size);
  printf("counter=%u counter_via_address=%u last=%d bias=%d\n", counter, counter_via_addr, last, bias);
  printf("table=%d,%d,%d,%d,%d,%d,%d,%d\n", table[0], table[1], table[2], table[3], table[4], table[5],
         table[6], table[7]);
  printf("out[0]=%d out[1]=%d out[7]=%d out[99]=%d\n", out[0], out[1], out[7], out[99]);
  return bad ? 2 : 0;
}
