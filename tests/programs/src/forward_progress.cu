// forward_progress: threads that wait for each other (the kernels of tests/kernels/forward_progress.cu):
// cooperative-groups tiles of 64-256 threads, a producer/consumer flag between warps, a block waiting
// for a later block's flag, the last-block ticket reduction, a spin lock lanes of one warp contend for,
// a naive grid barrier, and grid.sync() in a cooperative launch (and one too large to be resident).
// Every result is checked against the host; on a GPU and on ptxray, with one worker or several.
#include "../../kernels/forward_progress.cu"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    cudaError_t err_ = (call);                                                                                         \
    if (err_ != cudaSuccess) {                                                                                         \
      printf("CUDA error %s at %s\n", cudaGetErrorName(err_), #call);                                                  \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

static int failures = 0;
static void report(const char *what, bool ok) {
  printf("%-34s %s\n", what, ok ? "ok" : "WRONG");
  failures += !ok;
}

template <class T> static T *deviceZeros(size_t count) {
  T *p;
  CHECK(cudaMalloc(&p, count * sizeof(T)));
  CHECK(cudaMemset(p, 0, count * sizeof(T)));
  return p;
}
template <class T> static std::vector<T> download(const T *p, size_t count) {
  std::vector<T> v(count);
  CHECK(cudaMemcpy(v.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

template <int Tile> static void tiles(const int *din, const std::vector<int> &in, int blocks, int threads) {
  int *dout = deviceZeros<int>(in.size() / Tile);
  tile_reduce<Tile><<<blocks, threads>>>(din, dout);
  CHECK(cudaDeviceSynchronize());
  std::vector<int> got = download(dout, in.size() / Tile);
  bool ok = true;
  for (size_t t = 0; t < got.size(); ++t)
    ok &= got[t] == std::accumulate(in.begin() + t * Tile, in.begin() + (t + 1) * Tile, 0);
  char what[64];
  snprintf(what, sizeof what, "tile_reduce<%d>", Tile);
  report(what, ok);
  tile_reduce_scratch<Tile><<<blocks, threads>>>(din, dout);
  CHECK(cudaDeviceSynchronize());
  got = download(dout, in.size() / Tile);
  ok = true;
  for (size_t t = 0; t < got.size(); ++t)
    ok &= got[t] == std::accumulate(in.begin() + t * Tile, in.begin() + (t + 1) * Tile, 0);
  snprintf(what, sizeof what, "tile_reduce_scratch<%d>", Tile);
  report(what, ok);
  CHECK(cudaFree(dout));
}

int main() {
  {
    const int blocks = 3, threads = 256;
    std::vector<int> in(blocks * threads);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = static_cast<int>(i * 7 % 101) - 50;
    int *din;
    CHECK(cudaMalloc(&din, in.size() * sizeof(int)));
    CHECK(cudaMemcpy(din, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice));
    tiles<64>(din, in, blocks, threads);
    tiles<128>(din, in, blocks, threads);
    tiles<256>(din, in, blocks, threads);
    CHECK(cudaFree(din));
  }
  {
    int *out = deviceZeros<int>(32 * 4);
    producer_consumer<<<4, 64>>>(out);
    CHECK(cudaDeviceSynchronize());
    std::vector<int> got = download(out, 32);
    bool ok = true;
    for (int i = 0; i < 32; ++i)
      ok &= got[i] == i * 3 + 1;
    report("producer_consumer", ok);
    CHECK(cudaFree(out));
  }
  {
    int *flag = deviceZeros<int>(1), *data = deviceZeros<int>(64), *out = deviceZeros<int>(64);
    inter_cta_flag<<<6, 64>>>(flag, data, out);
    CHECK(cudaDeviceSynchronize());
    std::vector<int> got = download(out, 64);
    bool ok = true;
    for (int i = 0; i < 64; ++i)
      ok &= got[i] == i * 5 + 1;
    report("inter_cta_flag", ok);
    CHECK(cudaFree(flag));
    CHECK(cudaFree(data));
    CHECK(cudaFree(out));
  }
  {
    const int blocks = 7, threads = 128;
    std::vector<int> in(blocks * threads);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = static_cast<int>(i % 13) - 4;
    int *din, *partial = deviceZeros<int>(blocks), *out = deviceZeros<int>(1);
    unsigned *ticket = deviceZeros<unsigned>(1);
    CHECK(cudaMalloc(&din, in.size() * sizeof(int)));
    CHECK(cudaMemcpy(din, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice));
    last_block_sum<<<blocks, threads>>>(din, partial, ticket, out);
    CHECK(cudaDeviceSynchronize());
    report("last_block_sum", download(out, 1)[0] == std::accumulate(in.begin(), in.end(), 0) &&
                                 download(ticket, 1)[0] == 0);
    CHECK(cudaFree(din));
    CHECK(cudaFree(partial));
    CHECK(cudaFree(out));
    CHECK(cudaFree(ticket));
  }
  {
    const int blocks = 3, threads = 96, n = blocks * threads;
    int *lock = deviceZeros<int>(1), *counter = deviceZeros<int>(1), *order = deviceZeros<int>(n);
    spin_lock_counter<<<blocks, threads>>>(lock, counter, order);
    CHECK(cudaDeviceSynchronize());
    std::vector<int> got = download(order, n);
    std::sort(got.begin(), got.end());
    bool ok = download(counter, 1)[0] == n && download(lock, 1)[0] == 0;
    for (int i = 0; i < n; ++i)
      ok &= got[i] == i;
    report("spin_lock_counter", ok);
    CHECK(cudaFree(lock));
    CHECK(cudaFree(counter));
    CHECK(cudaFree(order));
  }
  {
    const int blocks = 2, threads = 64, warps = blocks * threads / 32;
    int *lock = deviceZeros<int>(1), *counter = deviceZeros<int>(1), *out = deviceZeros<int>(warps);
    lock_then_warp_sum<<<blocks, threads>>>(lock, counter, out);
    CHECK(cudaDeviceSynchronize());
    std::vector<int> got = download(out, warps);
    bool ok = download(counter, 1)[0] == blocks * threads;
    for (int w = 0; w < warps; ++w)
      ok &= got[w] == (w % 2) * 32 * 32 + 496; // the lanes' threadIdx.x summed over a warp
    report("lock_then_warp_sum", ok);
    CHECK(cudaFree(lock));
    CHECK(cudaFree(counter));
    CHECK(cudaFree(out));
  }
  {
    const int blocks = 16, threads = 32;
    unsigned *arrived = deviceZeros<unsigned>(1);
    int *out = deviceZeros<int>(blocks * threads);
    naive_grid_barrier<<<blocks, threads>>>(arrived, out);
    CHECK(cudaDeviceSynchronize());
    std::vector<int> got = download(out, blocks * threads);
    bool ok = true;
    for (int i = 0; i < blocks * threads; ++i)
      ok &= got[i] == i / threads + 1;
    report("naive_grid_barrier", ok);
    CHECK(cudaFree(arrived));
    CHECK(cudaFree(out));
  }
  {
    int device = 0, supported = 0, sms = 0, perSm = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, grid_sync_mirror, 64, 0));
    printf("cooperative launch supported     %s\n", supported ? "yes" : "no");
    const int blocks = 2 * sms, threads = 64, n = blocks * threads;
    int *values = deviceZeros<int>(n), *out = deviceZeros<int>(n);
    void *args[] = {&values, &out};
    CHECK(cudaLaunchCooperativeKernel((void *)grid_sync_mirror, blocks, threads, args, 0, 0));
    CHECK(cudaDeviceSynchronize());
    std::vector<int> got = download(out, n), after = download(values, n);
    bool ok = true;
    for (int i = 0; i < n; ++i)
      ok &= got[i] == (n - 1 - i) * 3 + 1 && after[i] == 0;
    report("grid_sync_mirror (cooperative)", ok);
    // One block more than the GPU can hold at once: the driver refuses the launch.
    cudaError_t tooLarge =
        cudaLaunchCooperativeKernel((void *)grid_sync_mirror, perSm * sms + 1, threads, args, 0, 0);
    printf("cooperative launch of max+1      %s\n", cudaGetErrorName(tooLarge));
    (void)cudaGetLastError(); // a refused launch leaves no sticky error; clear the last one
    CHECK(cudaFree(values));
    CHECK(cudaFree(out));
  }
  printf("forward_progress: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
