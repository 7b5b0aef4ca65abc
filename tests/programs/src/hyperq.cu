// Hyper-Q ([KTG] 1.4.2.2), as cuda-samples' simpleHyperQ shows it: 32 streams, each with two kernels
// that wait 10 ms on clock() (one thread each); the two kernels of a stream run one after the other,
// the streams side by side as far as the GPU's hardware queues (CUDA_DEVICE_MAX_CONNECTIONS, 8 by
// default) let them. Prints `timing NAME MS` (timing_check.py, timing_table.py) between two events on
// the legacy stream, and exits 1 if a kernel waited less than it was asked to.
#include <cstdio>
#include <cstdlib>

__global__ void clockBlock(clock_t *out, clock_t count) {
  unsigned int start = (unsigned int)clock();
  clock_t offset = 0;
  while (offset < count) {
    unsigned int now = (unsigned int)clock();
    offset = (clock_t)(now - start);
  }
  out[0] = offset;
}

int main() {
  const int streams = 32;
  const float kernelMs = 10;
  int clockKHz = 0;
  cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, 0);
  const clock_t cycles = (clock_t)(kernelMs * clockKHz);
  clock_t *waited = nullptr;
  if (cudaMalloc(&waited, 2 * streams * sizeof(clock_t)) != cudaSuccess)
    return 1;
  cudaStream_t s[streams];
  for (auto &st : s)
    cudaStreamCreate(&st);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, 0);
  for (int i = 0; i < streams; ++i) {
    clockBlock<<<1, 1, 0, s[i]>>>(&waited[2 * i], cycles);
    clockBlock<<<1, 1, 0, s[i]>>>(&waited[2 * i + 1], cycles);
  }
  cudaEventRecord(stop, 0);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  printf("timing hyperq_32_streams_2x10ms %.4f\n", ms);
  clock_t host[2 * streams];
  cudaMemcpy(host, waited, sizeof host, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 2 * streams; ++i)
    if (host[i] < cycles) {
      printf("kernel %d waited %ld of %ld cycles\n", i, (long)host[i], (long)cycles);
      return 1;
    }
  printf("done\n");
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
