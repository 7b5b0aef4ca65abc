// ptxray test corpus: barriers, warp-synchronous primitives, cooperative groups.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__global__ void block_barriers(const int *in, int *out) {
  int t = threadIdx.x;
  int v = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  int cnt = __syncthreads_count(v > 0);
  int all = __syncthreads_and(v != 0);
  int any = __syncthreads_or(v < 0);
  // Named barriers: warps 0-1 sync on barrier 1 (64 threads), the rest on 2.
  if (t < 64) {
    asm volatile("bar.sync 1, 64;" ::: "memory");
  } else {
    asm volatile("barrier.sync.aligned 2;" ::: "memory");
  }
  if (t >= 128) asm volatile("bar.arrive 3, 64;" ::: "memory");
  else if (t >= 64) asm volatile("bar.sync 3, 128;" ::: "memory");
  int red;
  asm volatile("{\n\t.reg .pred p;\n\t"
               "setp.ne.s32 p, %1, 0;\n\t"
               "bar.red.popc.u32 %0, 0, p;\n\t}"
               : "=r"(red)
               : "r"(v));
  out[blockIdx.x * blockDim.x + t] = cnt + all + any + red;
}

__global__ void shuffles(const float *in, float *out, int *iout) {
  int t = threadIdx.x;
  float v = in[blockIdx.x * blockDim.x + t];
  unsigned full = 0xffffffffu;
  float s = v;
  for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(full, s, off);  // bfly
  float d = __shfl_down_sync(full, v, 1);
  float u = __shfl_up_sync(full, v, 2);
  float b = __shfl_sync(full, v, 0);            // idx broadcast
  float w8 = __shfl_sync(full, v, t + 1, 8);    // width 8 -> c = 0x181f
  float w16 = __shfl_xor_sync(full, v, 3, 16);
  float u4 = __shfl_up_sync(full, v, 1, 4);
  double dv = __shfl_down_sync(full, (double)v, 4);  // 64-bit split into 2 shfl
  long long lv = __shfl_sync(full, (long long)t << 33, 31 - (t & 31));
  out[blockIdx.x * blockDim.x + t] = s + d + u + b + w8 + w16 + u4 + (float)dv;
  iout[blockIdx.x * blockDim.x + t] = (int)(lv >> 33);
}

__global__ void votes_and_match(const int *in, unsigned *out) {
  int t = threadIdx.x;
  int v = in[blockIdx.x * blockDim.x + t];
  unsigned full = 0xffffffffu;
  unsigned r = 0;
  if (v & 1) {  // divergent region
    unsigned am = __activemask();
    r += am;
    r += __all_sync(am, v > 10);
    r += __any_sync(am, v < 0);
    r += __ballot_sync(am, v & 2);
    r += __uni_sync(am, v > 0);
  }
  __syncwarp();
  r += __match_any_sync(full, v & 7);
  int pred;
  r += __match_all_sync(full, v >> 4, &pred);
  r += pred;
  r += __match_any_sync(full, (unsigned long long)v * 3);
  __syncwarp(0x0000ffffu & __ballot_sync(full, 1));
#if __CUDA_ARCH__ >= 800
  r += __reduce_add_sync(full, (unsigned)v);
  r += __reduce_min_sync(full, v) + __reduce_max_sync(full, (unsigned)v);
  r += __reduce_and_sync(full, (unsigned)v) ^ __reduce_or_sync(full, (unsigned)v) ^
       __reduce_xor_sync(full, (unsigned)v);
#endif
  unsigned lanemask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lanemask));
  r += __popc(__ballot_sync(full, v > 0) & lanemask);
  out[blockIdx.x * blockDim.x + t] = r;
}

template <unsigned N>
__device__ int tile_sum(const cg::thread_block_tile<N> &tile, int v) {
  for (unsigned off = N / 2; off > 0; off /= 2) v += tile.shfl_down(v, off);
  return v;
}

__global__ void coop_groups(const int *in, int *out) {
  cg::thread_block block = cg::this_thread_block();
  int v = in[block.group_index().x * block.size() + block.thread_rank()];
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(warp);
  int s32 = tile_sum(warp, v);
  int s8 = tile_sum(tile8, v);
  int r = cg::reduce(warp, v, cg::plus<int>());
  r += cg::reduce(tile8, v, cg::greater<int>());
  cg::thread_group dyn = cg::tiled_partition(block, 4);  // run-time sized tile
  dyn.sync();
  r += (int)dyn.thread_rank();
  if (v & 1) {
    cg::coalesced_group active = cg::coalesced_threads();
    r += active.shfl(v, 0) + (int)active.size();
    r += active.ballot(v > 3);
    active.sync();
  }
  r += warp.any(v == 0) + warp.all(v != 0) + (int)warp.match_any(v);
  block.sync();
  out[block.group_index().x * block.size() + block.thread_rank()] = s32 + s8 + r;
}
