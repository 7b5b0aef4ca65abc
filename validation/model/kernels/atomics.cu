// Atomic contention: global atomicAdd over 1 .. 1M distinct addresses, shared-memory histograms
// of 1, 32 and 256 bins, and a warp-aggregated counter. Integer atomics: the results do not depend
// on the order.

// Thread i adds 1 to counters[i & mask] (mask + 1 distinct addresses, consecutive words).
extern "C" __global__ void atomicAddGlobal(unsigned *counters, unsigned mask) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&counters[i & mask], 1u);
}

// Per-block histogram of in[i] & (bins - 1) in shared memory, then one global atomicAdd per bin.
extern "C" __global__ void histogramShared(const unsigned *in, unsigned *hist, int bins, int n) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < bins; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[in[i] & (bins - 1)], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += blockDim.x)
    atomicAdd(&hist[b], local[b]);
}

// Histogram straight into global memory, one atomic per element.
extern "C" __global__ void histogramGlobal(const unsigned *in, unsigned *hist, int bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&hist[in[i] & (bins - 1)], 1u);
}

// Threads whose in[i] is odd take a ticket; one atomicAdd per warp (the leader's), the others get
// their slot from the popcount of the lanes before them.
extern "C" __global__ void warpAggregatedCount(const unsigned *in, unsigned *counter, unsigned *slots, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool take = i < n && (in[i] & 1u);
  unsigned mask = __ballot_sync(0xffffffffu, take);
  int lane = threadIdx.x & 31;
  unsigned base = 0;
  if (mask) {
    int leader = __ffs(mask) - 1;
    if (lane == leader)
      base = atomicAdd(counter, __popc(mask));
    base = __shfl_sync(0xffffffffu, base, leader);
  }
  if (take)
    slots[i] = base + __popc(mask & ((1u << lane) - 1));
}

// The same count with one atomicAdd per taking thread.
extern "C" __global__ void perThreadCount(const unsigned *in, unsigned *counter, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && (in[i] & 1u))
    atomicAdd(counter, 1u);
}
