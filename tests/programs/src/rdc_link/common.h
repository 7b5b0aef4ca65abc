// Shared by the translation units of rdc_link: what each declares of the other (nvcc -rdc=true).
#pragma once
#include <cstdio>

// Defined in lib.cu; main.cu's kernels use them.
extern __device__ int table[4];
extern __constant__ float weights[4];
extern __device__ unsigned hits;
__device__ float blend(float x, int lane);
__device__ int libCounter();

// A template both units call and neither inlines: nvcc emits it as a .weak function in each, and the
// linker keeps one.
template <typename T> __device__ __noinline__ T square(T x) {
  return x * x;
}
