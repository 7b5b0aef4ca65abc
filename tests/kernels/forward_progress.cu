// Threads that wait for each other (tests/vm/ForwardProgressTest.cpp, and on a GPU through
// tests/programs/src/forward_progress.cu): cooperative groups' multi-warp tiles, whose sync() spins
// on a word in the reserved shared memory until the tile's other warps arrive; a consumer warp
// polling a shared flag its producer warp sets; a block waiting for a flag a later block sets; the
// last-block (ticket) reduction; a per-thread spin lock that lanes of one warp contend for; a
// grid-wide barrier of a cooperative launch; and a kernel whose warps wait for a flag nobody sets (a
// livelock ptxray must report, not run into its budget).
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

// The same with the scratch memory the program provides (cg::block_tile_memory): how multi-warp tiles
// work before SM 8.0 (compute_75), where there is no reserved shared memory; from 8.0 on it is unused.
template <int Tile> __global__ void tile_reduce_scratch(const int *in, int *out) {
  __shared__ cg::block_tile_memory<256> scratch;
  cg::thread_block block = cg::this_thread_block(scratch);
  auto tile = cg::tiled_partition<Tile>(block);
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  tile.sync();
  int sum = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0)
    out[(blockIdx.x * blockDim.x + threadIdx.x) / Tile] = sum;
}
template __global__ void tile_reduce_scratch<64>(const int *, int *);
template __global__ void tile_reduce_scratch<128>(const int *, int *);
template __global__ void tile_reduce_scratch<256>(const int *, int *);

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
    __threadfence_block(); // acquire: the producer's data is visible after the flag
    out[threadIdx.x] = data[threadIdx.x] + 1;
  }
}

// Every warp waits for a flag nobody sets.
__global__ void livelock(volatile int *flag, int *out) {
  while (*flag == 0) {
  }
  out[threadIdx.x] = 1;
}

// Block 0 waits for a flag the grid's last block raises after writing `data`: it needs both blocks
// resident at once (true on a GPU for a small grid), whatever order the blocks start in.
__global__ void inter_cta_flag(volatile int *flag, int *data, int *out) {
  const unsigned last = gridDim.x - 1;
  if (blockIdx.x == last) {
    data[threadIdx.x] = threadIdx.x * 5;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
      *flag = 1;
  } else if (blockIdx.x == 0) {
    if (threadIdx.x == 0)
      while (*flag == 0) {
      }
    __syncthreads();
    __threadfence();
    out[threadIdx.x] = ((volatile int *)data)[threadIdx.x] + 1;
  }
}

// The last block to finish adds up every block's partial sum (a ticket taken with atomicInc after a
// fence, as in the CUDA samples' threadFenceReduction).
__global__ void last_block_sum(const int *in, int *partial, unsigned *ticket, int *out) {
  __shared__ int sum;
  __shared__ bool isLast;
  if (threadIdx.x == 0)
    sum = 0;
  __syncthreads();
  atomicAdd(&sum, in[blockIdx.x * blockDim.x + threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = sum;
    __threadfence();
    isLast = atomicInc(ticket, gridDim.x) == gridDim.x - 1;
  }
  __syncthreads();
  if (isLast && threadIdx.x == 0) {
    int total = 0;
    for (unsigned b = 0; b < gridDim.x; ++b)
      total += ((volatile int *)partial)[b];
    *out = total;
    *ticket = 0;
  }
}

// Every thread takes one lock in turn: lanes of one warp contend, so the lane that wins must go on
// while its warp's other lanes spin (independent thread scheduling, sm_70 and later).
__device__ void acquire(int *lock) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
}
__device__ void release(int *lock) {
  __threadfence();
  atomicExch(lock, 0);
}
__global__ void spin_lock_counter(int *lock, volatile int *counter, int *order) {
  acquire(lock);
  const int ticket = *counter;
  *counter = ticket + 1;
  order[ticket] = blockIdx.x * blockDim.x + threadIdx.x;
  release(lock);
}

// The same lock, then a warp-wide shuffle reduction: lanes that leave the lock early must wait at
// the shuffle for the lanes still spinning (a .sync warp instruction waits for its members).
__global__ void lock_then_warp_sum(int *lock, volatile int *counter, int *out) {
  acquire(lock);
  *counter = *counter + 1;
  release(lock);
  int v = threadIdx.x;
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0)
    out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}

// Every thread writes a value, the whole grid synchronizes, then each reads its mirror's value: a
// cooperative launch (cudaLaunchCooperativeKernel), which cooperative groups' grid barrier needs.
__global__ void grid_sync_mirror(int *values, int *out) {
  cg::grid_group grid = cg::this_grid();
  const unsigned long long i = grid.thread_rank(), n = grid.num_threads();
  values[i] = static_cast<int>(i * 3 + 1);
  grid.sync();
  out[i] = values[n - 1 - i];
  grid.sync();
  values[i] = 0;
}

// Each block arrives at a counter and waits until the whole grid has: correct only while every block
// of the grid can be resident at once (a grid larger than that hangs on a GPU).
__global__ void naive_grid_barrier(unsigned *arrived, int *out) {
  if (threadIdx.x == 0) {
    atomicAdd(arrived, 1u);
    while (*(volatile unsigned *)arrived < gridDim.x) {
    }
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x + 1;
}
