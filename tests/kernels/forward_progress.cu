// Warps of one block that wait for each other (tests/vm/ForwardProgressTest.cpp): cooperative groups'
// multi-warp tiles, whose sync() spins on a word in the reserved shared memory until the tile's other
// warps arrive; a consumer warp polling a shared flag its producer warp sets; and a kernel whose
// warps wait for a flag nobody sets (a livelock ptxray must report, not run into its budget).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

// Each tile of `Tile` threads sums its inputs: sync() then cg::reduce across the tile's warps.
template <int Tile> __global__ void tile_reduce(const int *in, int *out) {
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<Tile>(block);
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  tile.sync();
  int sum = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0)
    out[(blockIdx.x * blockDim.x + threadIdx.x) / Tile] = sum;
}
template __global__ void tile_reduce<64>(const int *, int *);
template __global__ void tile_reduce<128>(const int *, int *);
template __global__ void tile_reduce<256>(const int *, int *);

// Warp 1 writes the data and raises the flag; warp 0 polls the flag (volatile), then reads the data.
__global__ void producer_consumer(int *out) {
  __shared__ int data[32];
  __shared__ volatile int flag;
  if (threadIdx.x == 0)
    flag = 0;
  __syncthreads();
  if (threadIdx.x >= 32) {
    data[threadIdx.x - 32] = (threadIdx.x - 32) * 3;
    __threadfence_block();
    if (threadIdx.x == 32)
      flag = 1;
  } else {
    while (flag == 0) {
    }
    out[threadIdx.x] = data[threadIdx.x] + 1;
  }
}

// Every warp waits for a flag nobody sets.
__global__ void livelock(volatile int *flag, int *out) {
  while (*flag == 0) {
  }
  out[threadIdx.x] = 1;
}
