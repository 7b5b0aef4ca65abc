// ptxray legacy corpus (clang 14, sm_30 / sm_35, PTX 3.2 - 5.0): arithmetic
// through NVVM builtins, shared memory, device-function calls, a struct
// parameter and a local array, as an old toolchain would emit them.
#include "nvvm_common.h"

struct Params {
  float scale;
  int stride;
  double bias;
  char tag[4];
};

__constant__ float c_poly[4] = {1.0f, 0.5f, 0.25f, 0.125f};

__device__ __noinline__ float horner(float x) {
  float r = c_poly[3];
  for (int k = 2; k >= 0; --k) r = __nvvm_fma_rn_f(r, x, c_poly[k]);
  return r;
}

extern "C" __global__ void float_ops(const float *in, float *out, Params p) {
  int i = GLOBAL_ID * p.stride;
  float x = in[i];
  float *o = out + GLOBAL_ID * 12;
  o[0] = __nvvm_add_rz_f(x, p.scale);
  o[1] = __nvvm_mul_rp_f(x, x);
  o[2] = __nvvm_div_approx_f(x, 3.0f);
  o[3] = __nvvm_sqrt_rn_f(x) + __nvvm_rsqrt_approx_f(x);
  o[4] = __nvvm_sin_approx_f(x) + __nvvm_cos_approx_f(x);
  o[5] = __nvvm_ex2_approx_f(x) + __nvvm_lg2_approx_f(x);
  o[6] = __nvvm_saturate_f(x) + __nvvm_fmin_f(x, 1.0f) + __nvvm_fmax_f(x, -1.0f);
  o[7] = __nvvm_rcp_rn_f(x);
  o[8] = (float)__nvvm_f2i_rz(x) + (float)__nvvm_f2ui_rm(x);
  o[9] = horner(x) + p.tag[GLOBAL_ID & 3];
  o[10] = (float)(__nvvm_fma_rn_d((double)x, p.bias, 1.0) + __nvvm_rcp_rn_d((double)x));
  o[11] = __nvvm_fabs_f(x) + __nvvm_floor_f(x) + __nvvm_ceil_f(x);
}

extern "C" __global__ void int_ops(const int *in, int *out) {
  int t = GLOBAL_ID;
  int v = in[t], w = in[t + 1];
  int *o = out + t * 10;
  o[0] = __builtin_popcount((unsigned)v);
  o[1] = __builtin_clz((unsigned)v | 1u);
  o[2] = (int)__builtin_bitreverse32((unsigned)v);
  o[3] = __nvvm_prmt(v, w, 0x3210u ^ (unsigned)t);
  o[4] = __nvvm_mul24_i(v, w);
  o[5] = __nvvm_mulhi_i(v, w);
  o[6] = (int)__nvvm_sad_ui((unsigned)v, (unsigned)w, 1u);
  o[7] = (v < w ? v : w) + (v > w ? v : w) + (v < 0 ? -v : v);
  o[8] = (int)(__nvvm_mulhi_ll((long long)v << 20, (long long)w << 20) >> 8);
  o[9] = v / (w | 1) + v % 7;
}

extern "C" __global__ void shared_local(const float *in, float *out, int n) {
  __shared__ float tile[256];
  float scratch[16];
  int t = TID_X;
  tile[t] = in[GLOBAL_ID];
  for (int k = 0; k < 16; ++k) scratch[k] = tile[(t + k) & 255];
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += scratch[(k * 7 + t) & 15];
  out[GLOBAL_ID] = acc + tile[255 - t];
}
