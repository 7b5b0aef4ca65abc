// managed: cudaMallocManaged (host writes, kernel updates, host reads after cudaDeviceSynchronize),
// cudaMemset on device and managed memory, cudaMemGetInfo.
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

__global__ void update(int* data, const int* bytes_word, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = 3 * data[i] + 1 + (bytes_word[i % 4] == 0x01010101 ? 0 : 1000000);
}

int main() {
  const int n = 4096;
  int* data;
  CHECK(cudaMallocManaged(&data, n * sizeof(int)));
  for (int i = 0; i < n; ++i) data[i] = i - 100;  // host writes managed memory directly
  int* d_word;
  CHECK(cudaMalloc(&d_word, 4 * sizeof(int)));
  CHECK(cudaMemset(d_word, 0x01, 4 * sizeof(int)));  // each int becomes 0x01010101
  update<<<n / 128, 128>>>(data, d_word, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  long long sum = 0;
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    bad += data[i] != 3 * (i - 100) + 1;
    sum += data[i];
  }
  printf("managed: %s n=%d mismatches=%d\n", bad ? "FAIL" : "PASS", n, bad);
  printf("data[0]=%d data[100]=%d data[%d]=%d sum=%lld\n", data[0], data[100], n - 1, data[n - 1], sum);

  unsigned char* flags;
  CHECK(cudaMallocManaged(&flags, 64));
  CHECK(cudaMemset(flags, 0xab, 64));
  CHECK(cudaDeviceSynchronize());
  int ab = 0;
  for (int i = 0; i < 64; ++i) ab += flags[i] == 0xab;
  printf("memset managed: %d of 64 bytes are 0xab\n", ab);

  size_t free_b = 0, total_b = 0;
  CHECK(cudaMemGetInfo(&free_b, &total_b));
  printf("mem_info: free<=total %s total>0 %s\n", free_b <= total_b ? "yes" : "no", total_b > 0 ? "yes" : "no");
  CHECK(cudaFree(flags));
  CHECK(cudaFree(d_word));
  CHECK(cudaFree(data));
  return bad || ab != 64 ? 2 : 0;
}
