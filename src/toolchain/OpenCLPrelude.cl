// ptxray's definitions of the OpenCL C built-ins where NVIDIA's OpenCL differs from libclc's, linked
// before libclc (its own definitions of these are then not used):
//   - get_global_offset and get_global_id read the launch's global work offset, which ptxray's
//     runtime puts in %envreg3-5 (x, y, z) for clEnqueueNDRangeKernel's global_work_offset (libclc
//     has no offset on this target);
//   - the native_* functions are the GPU's approximate instructions (sin.approx, ex2.approx, ...), as
//     NVIDIA's OpenCL compiles them ([BPG] 5.1.4); libclc leaves most of them to instructions the
//     NVPTX back end cannot select without fast math.
// Compiled to LLVM bitcode by ptxray at run time and linked as a built-in library: internal, inlined.

#define OVL __attribute__((overloadable))

OVL size_t get_global_offset(uint dim) {
  uint v = 0;
  switch (dim) {
  case 0: __asm__("mov.u32 %0, %%envreg3;" : "=r"(v)); break;
  case 1: __asm__("mov.u32 %0, %%envreg4;" : "=r"(v)); break;
  case 2: __asm__("mov.u32 %0, %%envreg5;" : "=r"(v)); break;
  default: break;
  }
  return v;
}

OVL size_t get_global_id(uint dim) {
  return get_group_id(dim) * get_local_size(dim) + get_local_id(dim) + get_global_offset(dim);
}

// One float function, and its vector forms component by component.
#define NATIVE1(name, expr)                                                                                \
  OVL float name(float x) { return expr; }                                                                 \
  OVL float2 name(float2 x) { return (float2)(name(x.s0), name(x.s1)); }                                   \
  OVL float3 name(float3 x) { return (float3)(name(x.s0), name(x.s1), name(x.s2)); }                       \
  OVL float4 name(float4 x) { return (float4)(name(x.s0), name(x.s1), name(x.s2), name(x.s3)); }           \
  OVL float8 name(float8 x) { return (float8)(name(x.s0123), name(x.s4567)); }                             \
  OVL float16 name(float16 x) { return (float16)(name(x.s01234567), name(x.s89abcdef)); }

#define NATIVE2(name, expr)                                                                                \
  OVL float name(float x, float y) { return expr; }                                                        \
  OVL float2 name(float2 x, float2 y) { return (float2)(name(x.s0, y.s0), name(x.s1, y.s1)); }             \
  OVL float3 name(float3 x, float3 y) {                                                                    \
    return (float3)(name(x.s0, y.s0), name(x.s1, y.s1), name(x.s2, y.s2));                                 \
  }                                                                                                        \
  OVL float4 name(float4 x, float4 y) {                                                                    \
    return (float4)(name(x.s0, y.s0), name(x.s1, y.s1), name(x.s2, y.s2), name(x.s3, y.s3));               \
  }                                                                                                        \
  OVL float8 name(float8 x, float8 y) { return (float8)(name(x.s0123, y.s0123), name(x.s4567, y.s4567)); } \
  OVL float16 name(float16 x, float16 y) {                                                                 \
    return (float16)(name(x.s01234567, y.s01234567), name(x.s89abcdef, y.s89abcdef));                      \
  }

#define LOG2_E 1.4426950408889634f
#define LN_2 0.6931471805599453f
#define LOG10_2 0.3010299956639812f
#define LOG2_10 3.3219280948873622f

NATIVE1(native_sin, __nvvm_sin_approx_f(x))
NATIVE1(native_cos, __nvvm_cos_approx_f(x))
NATIVE1(native_tan, __nvvm_div_approx_f(__nvvm_sin_approx_f(x), __nvvm_cos_approx_f(x)))
NATIVE1(native_exp2, __nvvm_ex2_approx_f(x))
NATIVE1(native_exp, __nvvm_ex2_approx_f(x * LOG2_E))
NATIVE1(native_exp10, __nvvm_ex2_approx_f(x * LOG2_10))
NATIVE1(native_log2, __nvvm_lg2_approx_f(x))
NATIVE1(native_log, __nvvm_lg2_approx_f(x) * LN_2)
NATIVE1(native_log10, __nvvm_lg2_approx_f(x) * LOG10_2)
NATIVE1(native_sqrt, __nvvm_sqrt_approx_f(x))
NATIVE1(native_rsqrt, __nvvm_rsqrt_approx_f(x))
NATIVE1(native_recip, __nvvm_div_approx_f(1.0f, x))
NATIVE2(native_divide, __nvvm_div_approx_f(x, y))
NATIVE2(native_powr, __nvvm_ex2_approx_f(y * __nvvm_lg2_approx_f(x)))
