// reduction_streams: two streams, pinned memory (cudaMallocHost), cudaMemcpyAsync, a shared-memory
// block reduction, events (record, synchronize, elapsed time, cudaStreamWaitEvent). Integer sums.
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

constexpr int BLOCK = 256;

// Each block sums a grid-strided share of in[0..n) into out[blockIdx.x].
__global__ void block_reduce(const int* in, int* out, int n) {
  __shared__ int s[BLOCK];
  int sum = 0;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) sum += in[i];
  s[threadIdx.x] = sum;
  __syncthreads();
  for (int half = BLOCK / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

__global__ void combine(const int* a, const int* b, int* out) { *out = *a + *b; }

int main() {
  const int n = 1 << 20, half = n / 2, blocks = 64;
  int *h_in, *h_out;
  CHECK(cudaMallocHost(&h_in, n * sizeof(int)));
  CHECK(cudaMallocHost(&h_out, 3 * sizeof(int)));
  long long ref[2] = {0, 0};
  for (int i = 0; i < n; ++i) {
    h_in[i] = (i * 37) % 101;  // 0..100
    ref[i / half] += h_in[i];
  }
  int *d_in, *d_part, *d_sum;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_part, 2 * blocks * sizeof(int)));
  CHECK(cudaMalloc(&d_sum, 3 * sizeof(int)));
  cudaStream_t st[2];
  cudaEvent_t start, stop, done0;
  CHECK(cudaStreamCreate(&st[0]));
  CHECK(cudaStreamCreate(&st[1]));
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventCreate(&done0));

  CHECK(cudaEventRecord(start, st[0]));
  for (int s = 0; s < 2; ++s) {
    CHECK(cudaMemcpyAsync(d_in + s * half, h_in + s * half, half * sizeof(int), cudaMemcpyHostToDevice, st[s]));
    block_reduce<<<blocks, BLOCK, 0, st[s]>>>(d_in + s * half, d_part + s * blocks, half);
    CHECK(cudaGetLastError());
    block_reduce<<<1, BLOCK, 0, st[s]>>>(d_part + s * blocks, d_sum + s, blocks);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_out + s, d_sum + s, sizeof(int), cudaMemcpyDeviceToHost, st[s]));
  }
  CHECK(cudaEventRecord(done0, st[0]));
  CHECK(cudaStreamWaitEvent(st[1], done0, 0));  // stream 1 combines only after stream 0 is done
  combine<<<1, 1, 0, st[1]>>>(d_sum, d_sum + 1, d_sum + 2);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(h_out + 2, d_sum + 2, sizeof(int), cudaMemcpyDeviceToHost, st[1]));
  CHECK(cudaEventRecord(stop, st[1]));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaStreamSynchronize(st[0]));
  float ms = -1.0f;
  CHECK(cudaEventElapsedTime(&ms, start, stop));

  bool ok = h_out[0] == ref[0] && h_out[1] == ref[1] && h_out[2] == ref[0] + ref[1];
  printf("reduction_streams: %s n=%d\n", ok ? "PASS" : "FAIL", n);
  printf("half0=%d half1=%d total=%d expected=%lld\n", h_out[0], h_out[1], h_out[2], ref[0] + ref[1]);
  printf("elapsed_ms>=0: %s\n", ms >= 0.0f ? "yes" : "no");
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaEventDestroy(done0));
  CHECK(cudaStreamDestroy(st[0]));
  CHECK(cudaStreamDestroy(st[1]));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_part));
  CHECK(cudaFree(d_sum));
  CHECK(cudaFreeHost(h_in));
  CHECK(cudaFreeHost(h_out));
  return ok ? 0 : 2;
}
