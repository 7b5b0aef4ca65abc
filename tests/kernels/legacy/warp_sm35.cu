// ptxray legacy corpus (clang 14, sm_35, PTX 6.0): pre-Volta warp primitives.
// shfl.{bfly,up,down,idx}.b32 without .sync, vote.{all,any,uni,ballot} without
// .sync, ld.global.nc via __ldg-style builtins, bar.red (__syncthreads_count
// family), membar, non-scoped atomics.
#include "nvvm_common.h"

__device__ float warp_sum_bfly(float v) {
  for (int off = 16; off > 0; off >>= 1) v += __nvvm_shfl_bfly_f32(v, off, 0x1f);
  return v;
}

extern "C" __global__ void shuffles(const float *in, float *out, int *iout) {
  int t = GLOBAL_ID;
  float v = __nvvm_ldg_f(in + t);  // ld.global.nc.f32
  float s = warp_sum_bfly(v);
  float up = __nvvm_shfl_up_f32(v, 1, 0);          // c = 0 for up
  float down = __nvvm_shfl_down_f32(v, 2, 0x1f);
  float bcast = __nvvm_shfl_idx_f32(v, 0, 0x1f);
  int seg = __nvvm_shfl_idx_i32(t, 3, 0x181f);     // width-8 segments
  int x = __nvvm_shfl_bfly_i32(t, 4, 0x1f);
  out[t] = s + up + down + bcast;
  iout[t] = seg + x;
}

extern "C" __global__ void votes(const int *in, unsigned *out) {
  int t = GLOBAL_ID;
  int v = __nvvm_ldg_i(in + t);
  unsigned r = 0;
  r += __nvvm_vote_all(v > 0);     // vote.all.pred
  r += __nvvm_vote_any(v < 0) << 1;
  r += __nvvm_vote_uni(v == 3) << 2;
  r += __nvvm_vote_ballot(v & 1);  // vote.ballot.b32
  out[t] = r;
}

struct F4 {
  float x, y, z, w;
};

extern "C" __global__ void nc_loads(const float4 *v4, const double *d, const long long *ll,
                                    const unsigned char *uc, const short *s, double *out) {
  int t = GLOBAL_ID;
  float4 a = __nvvm_ldg_f4(v4 + t);  // ld.global.nc.v4.f32
  double b = __nvvm_ldg_d(d + t);
  long long c = __nvvm_ldg_ll(ll + t);
  unsigned char e = __nvvm_ldg_uc(uc + t);
  short f = __nvvm_ldg_s(s + t);
  int2 g = __nvvm_ldg_i2((const int2 *)(ll + t));
  out[t] = a.x + a.y + a.z + a.w + b + (double)c + e + f + g.x + g.y;
}

extern "C" __global__ void barriers_atomics(int *data, unsigned *counts, float *fsum) {
  __shared__ int s_buf[128];
  int t = TID_X;
  s_buf[t & 127] = data[GLOBAL_ID];
  __syncthreads();
  int cnt = __nvvm_bar0_popc(s_buf[(t + 1) & 127] > 0);  // bar.red.popc.u32
  int all = __nvvm_bar0_and(s_buf[t & 127] != 0);
  int any = __nvvm_bar0_or(s_buf[t & 127] < 0);
  __nvvm_membar_cta();
  __nvvm_atom_add_gen_i(&data[0], cnt);
  __nvvm_atom_add_gen_f(fsum, 1.0f);
  __nvvm_atom_inc_gen_ui(&counts[0], 100u);
  __nvvm_atom_max_gen_i(&data[1], all + any);
  __nvvm_atom_cas_gen_i(&data[2], 0, t);
  __nvvm_atom_xchg_gen_ll((long long *)&data[4], (long long)t);
  __nvvm_membar_gl();
  __nvvm_membar_sys();
  counts[GLOBAL_ID + 1] = __nvvm_read_ptx_sreg_laneid() + __nvvm_read_ptx_sreg_warpid() +
                          (unsigned)__nvvm_read_ptx_sreg_clock64() + __nvvm_read_ptx_sreg_smid();
}
