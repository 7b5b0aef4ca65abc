// ptxray VM test kernels: warp shuffles.
//   blockReduceShfl  float sum of each block: a __shfl_down_sync tree in every warp (offsets 16, 8,
//                    4, 2, 1; v += shfl_down(v, off)), warp sums through shared memory, the same tree
//                    again in warp 0. Launched twice (per-block partial sums, then the partials). The
//                    reference replays the same additions in the same order: bit-exact.
//   warpOpsInt       per thread: the warp's u32 sum through a __shfl_xor_sync butterfly, an inclusive
//                    warp scan through __shfl_up_sync, a __shfl_sync read from a data-dependent lane,
//                    and __ballot_sync of the low bit (all exact integer results).
// blockDim.x must be a multiple of 32. References: Reference.h. Spec: specs/warp_shuffle.json.

__device__ float warpSumDown(float v) {
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

extern "C" __global__ void blockReduceShfl(const float *in, float *partial, int n) {
  __shared__ float warpSums[32];
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  float v = gid < n ? in[gid] : 0.0f;
  v = warpSumDown(v);
  if (lane == 0)
    warpSums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int warps = blockDim.x >> 5;
    v = lane < warps ? warpSums[lane] : 0.0f;
    v = warpSumDown(v);
    if (lane == 0)
      partial[blockIdx.x] = v;
  }
}

extern "C" __global__ void warpOpsInt(const unsigned *in, unsigned *sum, unsigned *scan, unsigned *gathered,
                                      unsigned *ballot) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  unsigned v = in[gid];

  unsigned s = v;
  for (int m = 1; m < 32; m <<= 1)
    s += __shfl_xor_sync(0xffffffffu, s, m);
  sum[gid] = s;

  unsigned p = v;
  for (int off = 1; off < 32; off <<= 1) {
    unsigned up = __shfl_up_sync(0xffffffffu, p, off);
    if (lane >= off)
      p += up;
  }
  scan[gid] = p;

  gathered[gid] = __shfl_sync(0xffffffffu, v, (int)(v >> 3) & 31);
  ballot[gid] = __ballot_sync(0xffffffffu, v & 1u);
}
