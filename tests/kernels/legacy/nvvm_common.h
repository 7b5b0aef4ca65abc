// Minimal CUDA attribute macros for compiling with clang without the CUDA
// headers (-nocudainc -nocudalib): everything else goes through clang's
// __nvvm_* builtins.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __noinline__ __attribute__((noinline))

#define TID_X __nvvm_read_ptx_sreg_tid_x()
#define NTID_X __nvvm_read_ptx_sreg_ntid_x()
#define CTAID_X __nvvm_read_ptx_sreg_ctaid_x()
#define GLOBAL_ID (CTAID_X * NTID_X + TID_X)

// Vector types in the layout __nvvm_ldg_* builtins expect.
typedef float float4 __attribute__((ext_vector_type(4)));
typedef float float2 __attribute__((ext_vector_type(2)));
typedef int int2 __attribute__((ext_vector_type(2)));
typedef int int4 __attribute__((ext_vector_type(4)));
