// Reductions (unsigned sums, so every order gives the same bits), inclusive scans and bitonic sorts.

// Block sums, one per block, in shared memory: interleaved addressing with a divergent
// `tid % (2 * s)` test (CUDA reduction sample, kernel 1).
extern "C" __global__ void reduceInterleaved(const unsigned *in, unsigned *blockSums, int n) {
  extern __shared__ unsigned sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    blockSums[blockIdx.x] = sdata[0];
}

// Sequential addressing: contiguous active threads (kernel 3 of the sample).
extern "C" __global__ void reduceSequential(const unsigned *in, unsigned *blockSums, int n) {
  extern __shared__ unsigned sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    blockSums[blockIdx.x] = sdata[0];
}

__device__ unsigned warpSum(unsigned v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

// Grid-stride accumulation, warp shuffles, one shared word per warp.
extern "C" __global__ void reduceShuffle(const unsigned *in, unsigned *blockSums, int n) {
  __shared__ unsigned warpSums[32];
  unsigned v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    v += in[i];
  v = warpSum(v);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0)
    warpSums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x >> 5) ? warpSums[lane] : 0;
    v = warpSum(v);
    if (lane == 0)
      blockSums[blockIdx.x] = v;
  }
}

// Like reduceShuffle, then one atomicAdd per block into a single total.
extern "C" __global__ void reduceAtomic(const unsigned *in, unsigned *total, int n) {
  __shared__ unsigned warpSums[32];
  unsigned v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    v += in[i];
  v = warpSum(v);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0)
    warpSums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x >> 5) ? warpSums[lane] : 0;
    v = warpSum(v);
    if (lane == 0)
      atomicAdd(total, v);
  }
}

// Inclusive Hillis-Steele scan of blockDim.x elements in shared memory (double-buffered).
__device__ unsigned blockScan(unsigned v, unsigned *buf) {
  unsigned tid = threadIdx.x;
  int cur = 0;
  buf[tid] = v;
  __syncthreads();
  for (unsigned off = 1; off < blockDim.x; off *= 2) {
    unsigned x = buf[cur * blockDim.x + tid];
    if (tid >= off)
      x += buf[cur * blockDim.x + tid - off];
    cur ^= 1;
    buf[cur * blockDim.x + tid] = x;
    __syncthreads();
  }
  return buf[cur * blockDim.x + tid];
}

// One block scans all n elements, blockDim.x at a time, carrying the running total.
extern "C" __global__ void scanSingleBlock(const unsigned *in, unsigned *out, int n) {
  __shared__ unsigned buf[2 * 1024];
  __shared__ unsigned carry;
  if (threadIdx.x == 0)
    carry = 0;
  __syncthreads();
  for (int base = 0; base < n; base += blockDim.x) {
    int i = base + threadIdx.x;
    unsigned v = blockScan(i < n ? in[i] : 0, buf);
    unsigned c = carry;
    if (i < n)
      out[i] = v + c;
    __syncthreads();
    if (threadIdx.x == blockDim.x - 1)
      carry = c + v;
    __syncthreads();
  }
}

// Multi-block scan, step 1: each block scans its elements and writes its total.
extern "C" __global__ void scanBlocks(const unsigned *in, unsigned *out, unsigned *blockSums, int n) {
  __shared__ unsigned buf[2 * 1024];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = blockScan(i < n ? in[i] : 0, buf);
  if (i < n)
    out[i] = v;
  if (threadIdx.x == blockDim.x - 1)
    blockSums[blockIdx.x] = v;
}

// Step 3 (step 2 is scanSingleBlock over blockSums): add the scanned sums of the blocks before.
extern "C" __global__ void scanAddOffsets(unsigned *out, const unsigned *scannedSums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x > 0 && i < n)
    out[i] += scannedSums[blockIdx.x - 1];
}

// Bitonic sort. The direction of a pair comes from the global index i: ascending when (i & k) == 0,
// so chunks sorted by bitonicSortShared alternate direction and the global steps finish the sort.
__device__ void compareSwap(unsigned *s, unsigned i, unsigned j, bool up) {
  unsigned a = s[i], b = s[i + j];
  if ((a > b) == up) {
    s[i] = b;
    s[i + j] = a;
  }
}

// 1024 threads sort 2048 elements per block in shared memory (k = 2 .. 2048).
extern "C" __global__ void bitonicSortShared(unsigned *d) {
  __shared__ unsigned s[2048];
  unsigned base = blockIdx.x * 2048, t = threadIdx.x;
  s[t] = d[base + t];
  s[t + 1024] = d[base + t + 1024];
  __syncthreads();
  for (unsigned k = 2; k <= 2048; k *= 2)
    for (unsigned j = k / 2; j > 0; j /= 2) {
      unsigned i = 2 * t - (t & (j - 1));
      compareSwap(s, i, j, ((base + i) & k) == 0);
      __syncthreads();
    }
  d[base + t] = s[t];
  d[base + t + 1024] = s[t + 1024];
}

// The steps j = 1024 .. 1 of stage k (k > 2048) in shared memory, 2048 elements per block.
extern "C" __global__ void bitonicMergeShared(unsigned *d, unsigned k) {
  __shared__ unsigned s[2048];
  unsigned base = blockIdx.x * 2048, t = threadIdx.x;
  s[t] = d[base + t];
  s[t + 1024] = d[base + t + 1024];
  __syncthreads();
  for (unsigned j = 1024; j > 0; j /= 2) {
    unsigned i = 2 * t - (t & (j - 1));
    compareSwap(s, i, j, ((base + i) & k) == 0);
    __syncthreads();
  }
  d[base + t] = s[t];
  d[base + t + 1024] = s[t + 1024];
}

// One step (k, j) over global memory: one thread per pair (n / 2 threads).
extern "C" __global__ void bitonicStepGlobal(unsigned *d, unsigned j, unsigned k) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned i = 2 * t - (t & (j - 1));
  compareSwap(d, i, j, (i & k) == 0);
}
