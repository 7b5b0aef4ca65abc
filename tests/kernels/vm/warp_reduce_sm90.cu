// vm-targets: 90
// ptxray VM test kernel: the warp reduction instructions (redux.sync, sm_80 and later; compiled only
// for compute_90). Per warp: __reduce_add/min/max/and/or/xor_sync over the full warp, and
// __reduce_add_sync over the lower half-warp only (a partial mask, called by those lanes alone).
// Exact integer results. References: Reference.h. Spec: specs/warp_reduce_sm90.json.

extern "C" __global__ void warpReduceSync(const unsigned *in, unsigned *out) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int warp = gid >> 5;
  unsigned v = in[gid];
  int sv = (int)v - 5000;
  unsigned add = __reduce_add_sync(0xffffffffu, v);
  int mn = __reduce_min_sync(0xffffffffu, sv);
  int mx = __reduce_max_sync(0xffffffffu, sv);
  unsigned umn = __reduce_min_sync(0xffffffffu, v);
  unsigned a = __reduce_and_sync(0xffffffffu, v | 0x80000000u);
  unsigned o = __reduce_or_sync(0xffffffffu, v);
  unsigned x = __reduce_xor_sync(0xffffffffu, v);
  unsigned half = 0;
  if (lane < 16)
    half = __reduce_add_sync(0x0000ffffu, v);
  if (lane == 0) {
    unsigned *w = out + warp * 8;
    w[0] = add;
    w[1] = (unsigned)mn;
    w[2] = (unsigned)mx;
    w[3] = umn;
    w[4] = a;
    w[5] = o;
    w[6] = x;
    w[7] = half;
  }
}
