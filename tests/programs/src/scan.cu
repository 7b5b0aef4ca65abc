// scan: block-level inclusive Hillis-Steele scan in shared memory (double buffered), a scan of the
// block totals, then a pass adding each block's offset. Integers, checked against the host.
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

constexpr int BLOCK = 256;

// Inclusive scan of each BLOCK-sized chunk; block_sums (if not null) gets each chunk's total.
__global__ void block_scan(const int* in, int* out, int* block_sums, int n) {
  __shared__ int buf[2][BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  int cur = 0;
  buf[cur][threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int off = 1; off < BLOCK; off *= 2) {
    int v = buf[cur][threadIdx.x];
    if (threadIdx.x >= off) v += buf[cur][threadIdx.x - off];
    buf[1 - cur][threadIdx.x] = v;
    cur = 1 - cur;
    __syncthreads();
  }
  if (i < n) out[i] = buf[cur][threadIdx.x];
  if (block_sums && threadIdx.x == BLOCK - 1) block_sums[blockIdx.x] = buf[cur][threadIdx.x];
}

__global__ void add_offsets(int* data, const int* scanned_sums, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (blockIdx.x > 0 && i < n) data[i] += scanned_sums[blockIdx.x - 1];
}

int main() {
  const int n = 5000;  // 20 blocks, the last one partial
  const int blocks = (n + BLOCK - 1) / BLOCK;
  std::vector<int> in(n), out(n), ref(n);
  for (int i = 0; i < n; ++i) in[i] = (i % 7) + 1 - ((i % 5 == 0) ? 3 : 0);
  int run = 0;
  for (int i = 0; i < n; ++i) ref[i] = run += in[i];
  int *d_in, *d_out, *d_sums, *d_sums_scanned;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMalloc(&d_sums, blocks * sizeof(int)));
  CHECK(cudaMalloc(&d_sums_scanned, blocks * sizeof(int)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  block_scan<<<blocks, BLOCK>>>(d_in, d_out, d_sums, n);
  CHECK(cudaGetLastError());
  block_scan<<<1, BLOCK>>>(d_sums, d_sums_scanned, nullptr, blocks);  // blocks <= BLOCK
  CHECK(cudaGetLastError());
  add_offsets<<<blocks, BLOCK>>>(d_out, d_sums_scanned, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += out[i] != ref[i];
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_sums));
  CHECK(cudaFree(d_sums_scanned));
  printf("scan: %s n=%d blocks=%d mismatches=%d\n", bad ? "FAIL" : "PASS", n, blocks, bad);
  printf("out[0]=%d out[255]=%d out[256]=%d out[%d]=%d\n", out[0], out[255], out[256], n - 1, out[n - 1]);
  return bad ? 2 : 0;
}
