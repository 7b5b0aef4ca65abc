// The library unit of rdc_link: device functions and variables other units link against.
#include "common.h"

__device__ int table[4] = {100, 200, 300, 400};
__constant__ float weights[4];
__device__ unsigned hits;

// Private to this unit: main.cu has a `counter` of its own.
static __device__ int counter = 7;

__device__ int libCounter() { return counter + square(2); }

__device__ float blend(float x, int lane) {
  atomicAdd(&hits, 1u);
  if (lane == 0)
    printf("blend in lib.cu: x=%.1f weight=%.2f table=%d\n", x, weights[lane % 4], table[lane % 4]);
  return x * weights[lane % 4] + static_cast<float>(table[lane % 4]);
}
