// hazards: a program with three planted hazards for the tools a program runs under (`ptxray exec
// --tool ...`), each in a kernel of its own and each harmless to the output on a GPU:
//   - a shared-memory race (racecheck): every thread reads its neighbour's slot of a tile with no
//     barrier between the write and the read; the result is not used;
//   - a global-memory race inside a block (racecheck with --racecheck-global, compute-sanitizer's
//     --racecheck-memcheck-global... not reported by default): thread 0 writes a flag that thread 32
//     reads with no barrier between;
//   - a device-heap leak (leakcheck): 4 blocks' thread 0 each malloc 64 bytes and never free them.
// The output is deterministic ("hazards: done") and the exit status 0.
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

__global__ void sharedRace(int* sink) {
  __shared__ int tile[64];
  tile[threadIdx.x] = threadIdx.x;
  const int neighbour = tile[(threadIdx.x + 32) % 64];  // written by another warp, no barrier
  if (neighbour < 0) *sink = neighbour;                  // never true: keeps the read
}

__global__ void globalRace(int* flag, int* sink) {
  if (threadIdx.x == 0) *flag = 1;
  if (threadIdx.x == 32 && *flag < 0) *sink = 1;  // reads what thread 0 wrote, no barrier: never true
}

__global__ void heapLeak(int* sink) {
  if (threadIdx.x == 0) {
    int* block = static_cast<int*>(malloc(64));
    if (block) {
      block[0] = blockIdx.x;
      if (block[0] < 0) *sink = block[0];  // never true
    }  // never freed
  }
}

int main() {
  int* d;
  CHECK(cudaMalloc(&d, 2 * sizeof(int)));
  CHECK(cudaMemset(d, 0, 2 * sizeof(int)));
  sharedRace<<<1, 64>>>(d + 1);
  CHECK(cudaGetLastError());
  globalRace<<<1, 64>>>(d, d + 1);
  CHECK(cudaGetLastError());
  heapLeak<<<4, 32>>>(d + 1);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int host[2];
  CHECK(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d));
  printf("hazards: done (flag %d, sink %d)\n", host[0], host[1]);
  return 0;
}
