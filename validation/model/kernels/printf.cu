// Device printf from one thread, from lane 0 of every warp, and from every thread.
#include <cstdio>

extern "C" __global__ void printfOneThread(int tag) {
  if (blockIdx.x == 0 && threadIdx.x == 0)
    printf("printfOneThread %d: block %d thread %d\n", tag, blockIdx.x, threadIdx.x);
}

extern "C" __global__ void printfPerWarp(int tag) {
  if ((threadIdx.x & 31) == 0)
    printf("printfPerWarp %d: block %d warp %d\n", tag, blockIdx.x, threadIdx.x >> 5);
}

extern "C" __global__ void printfEveryThread(int tag) {
  printf("printfEveryThread %d: block %d thread %d value %f\n", tag, blockIdx.x, threadIdx.x, threadIdx.x * 0.5f);
}
