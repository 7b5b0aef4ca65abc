// racecheck's planted bugs between warps, each with a clean twin: a block of 64 threads (two warps)
// shares a 64-int tile in shared memory. tests/sanitizers/RacecheckTest.cpp pins the lines below.

// Read-After-Write: each thread reads the element a thread of the other warp wrote, with no barrier
// between the write and the read.
__global__ void rawBetweenWarps(const int *in, int *out) {
  __shared__ int tile[64];
  int t = threadIdx.x;
  tile[t] = in[t];
  out[t] = tile[(t + 32) % 64];
}

__global__ void rawBetweenWarpsSynced(const int *in, int *out) {
  __shared__ int tile[64];
  int t = threadIdx.x;
  tile[t] = in[t];
  __syncthreads();
  out[t] = tile[(t + 32) % 64];
}

// Write-After-Read: the tile is read across warps, then overwritten without a barrier in between
// (the second __syncthreads() of a tiled loop, forgotten).
__global__ void warBetweenWarps(const int *in, int *out) {
  __shared__ int tile[64];
  int t = threadIdx.x;
  tile[t] = in[t];
  __syncthreads();
  int v = tile[(t + 32) % 64];
  tile[t] = v + 1;
  __syncthreads();
  out[t] = tile[t];
}

__global__ void warBetweenWarpsSynced(const int *in, int *out) {
  __shared__ int tile[64];
  int t = threadIdx.x;
  tile[t] = in[t];
  __syncthreads();
  int v = tile[(t + 32) % 64];
  __syncthreads();
  tile[t] = v + 1;
  __syncthreads();
  out[t] = tile[t];
}

// Write-After-Write: both warps write the same 32 slots with no barrier between them.
__global__ void wawBetweenWarps(int *out) {
  __shared__ int slot[32];
  int t = threadIdx.x;
  slot[t % 32] = t;
  __syncthreads();
  out[t] = slot[t % 32];
}

__global__ void wawBetweenWarpsSynced(int *out) {
  __shared__ int slot[32];
  int t = threadIdx.x;
  if (t < 32)
    slot[t] = t;
  __syncthreads();
  if (t >= 32)
    slot[t - 32] += t;
  __syncthreads();
  out[t] = slot[t % 32];
}
