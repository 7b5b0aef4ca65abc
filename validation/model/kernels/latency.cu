// Latency-bound kernels: dependent FMA chains (ILP 1, 2, 4), pointer chases whose footprint stays
// in L1, in L2 or in DRAM, and a single-block serial kernel (unblocked LU factorization).

extern "C" __global__ void fmaChain(float *out, int iters, float a, float b) {
  float x = threadIdx.x;
  for (int i = 0; i < iters; ++i)
    x = fmaf(x, a, b);
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

extern "C" __global__ void fmaIlp2(float *out, int iters, float a, float b) {
  float x = threadIdx.x, y = x + 1.0f;
  for (int i = 0; i < iters; ++i) {
    x = fmaf(x, a, b);
    y = fmaf(y, a, b);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x + y;
}

extern "C" __global__ void fmaIlp4(float *out, int iters, float a, float b) {
  float x = threadIdx.x, y = x + 1.0f, z = x + 2.0f, w = x + 3.0f;
  for (int i = 0; i < iters; ++i) {
    x = fmaf(x, a, b);
    y = fmaf(y, a, b);
    z = fmaf(z, a, b);
    w = fmaf(w, a, b);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = (x + y) + (z + w);
}

// Builds a cycle through `nodes` nodes spaced `spacing` words apart: the k-th node visited is
// node (k * step) mod nodes (nodes a power of two, step odd). One thread per node.
extern "C" __global__ void chaseInit(unsigned *next, unsigned nodes, unsigned step, unsigned spacing) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nodes) {
    unsigned cur = (k * step) & (nodes - 1);
    unsigned nxt = ((k + 1) * step) & (nodes - 1);
    next[cur * spacing] = nxt * spacing;
  }
}

// One thread follows `hops` links (each load depends on the previous one).
extern "C" __global__ void pointerChase(const unsigned *next, unsigned *out, int hops) {
  unsigned j = 0;
  for (int h = 0; h < hops; ++h)
    j = next[j];
  out[0] = j;
}

// The same with ld.global.cg (__ldcg: cached in L2 only, not in L1).
extern "C" __global__ void pointerChaseL2(const unsigned *next, unsigned *out, int hops) {
  unsigned j = 0;
  for (int h = 0; h < hops; ++h)
    j = __ldcg(&next[j]);
  out[0] = j;
}

// In-place LU factorization without pivoting of an n x n row-major matrix by one block of n
// threads; thread i owns row i. The diagonal is first raised by n (diagonal dominance).
extern "C" __global__ void luSingleBlock(float *A, int n) {
  int i = threadIdx.x;
  A[i * n + i] += n;
  __syncthreads();
  for (int k = 0; k < n - 1; ++k) {
    if (i > k) {
      float l = A[i * n + k] / A[k * n + k];
      A[i * n + k] = l;
      for (int j = k + 1; j < n; ++j)
        A[i * n + j] -= l * A[k * n + j];
    }
    __syncthreads();
  }
}
