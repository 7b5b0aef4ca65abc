// ptxray VM test kernels: prefix sums in shared memory (u32, exact).
//   scanHillisSteele  inclusive scan of each block's blockDim.x elements (at most 512), double-
//                     buffered static shared memory, one __syncthreads per step
//   scanBlelloch      exclusive work-efficient scan (up-sweep, down-sweep) of each block's
//                     2 * blockDim.x elements in DYNAMIC shared memory (2 * blockDim.x * 4 bytes);
//                     writes each block's total to blockSums
//   addBlockOffsets   adds offsets[blockIdx.x] to each block's 2 * blockDim.x elements
// specs/scan_blelloch.json chains them into an exclusive scan of the whole array: scan the blocks,
// scan the block totals (one block), add the scanned totals back.
// References: Reference.h. Specs: specs/scan_hillis_steele.json, specs/scan_blelloch.json.
#define HS_MAX_THREADS 512

extern "C" __global__ void scanHillisSteele(const unsigned *in, unsigned *out) {
  __shared__ unsigned buf[2][HS_MAX_THREADS];
  int t = threadIdx.x;
  int gid = blockIdx.x * blockDim.x + t;
  int src = 0;
  buf[0][t] = in[gid];
  __syncthreads();
  for (int off = 1; off < (int)blockDim.x; off <<= 1) {
    unsigned v = buf[src][t];
    if (t >= off)
      v += buf[src][t - off];
    buf[src ^ 1][t] = v;
    src ^= 1;
    __syncthreads();
  }
  out[gid] = buf[src][t];
}

extern "C" __global__ void scanBlelloch(const unsigned *in, unsigned *out, unsigned *blockSums) {
  extern __shared__ unsigned temp[];
  int t = threadIdx.x;
  int n = 2 * blockDim.x;
  int base = blockIdx.x * n;
  temp[2 * t] = in[base + 2 * t];
  temp[2 * t + 1] = in[base + 2 * t + 1];
  int offset = 1;
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1;
      int bi = offset * (2 * t + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset <<= 1;
  }
  if (t == 0) {
    blockSums[blockIdx.x] = temp[n - 1];
    temp[n - 1] = 0;
  }
  for (int d = 1; d < n; d <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1;
      int bi = offset * (2 * t + 2) - 1;
      unsigned x = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += x;
    }
  }
  __syncthreads();
  out[base + 2 * t] = temp[2 * t];
  out[base + 2 * t + 1] = temp[2 * t + 1];
}

extern "C" __global__ void addBlockOffsets(unsigned *data, const unsigned *offsets) {
  int base = blockIdx.x * 2 * blockDim.x;
  unsigned add = offsets[blockIdx.x];
  data[base + threadIdx.x] += add;
  data[base + blockDim.x + threadIdx.x] += add;
}
