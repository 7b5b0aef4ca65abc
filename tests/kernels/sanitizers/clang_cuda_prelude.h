// What the sanitizer kernels use of CUDA, for clang without a CUDA installation (-nocudainc
// -nocudalib): gen-ptx.sh includes it when it compiles them for sm_35 (a pre-Volta target, where
// warp-synchronous code is a lock-step warning, not an error).
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#include <__clang_cuda_builtin_vars.h>
typedef unsigned long size_t;
extern "C" __device__ void *malloc(size_t bytes);
extern "C" __device__ void free(void *block);
static __device__ inline void __syncwarp(unsigned mask = 0xffffffffu) {
  __nvvm_bar_warp_sync(mask);
}
// A macro, not a function: clang's line tables have no inlining chains, so the shuffle keeps the
// caller's line (nvcc's PTX names its header's line "inlined into" the caller's).
#define __shfl_xor_sync(mask, value, laneMask) __nvvm_shfl_sync_bfly_i32((mask), (value), (laneMask), 0x1f)
