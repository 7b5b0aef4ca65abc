// The real-kernel set of bench/RealKernelBench.cpp (issue #16): the shapes of code people run and
// analyze, written for this project. nvcc 13 turns it into real_kernels.ptx (-lineinfo, compute_90)
// through scripts/gen-corpus.sh; tests/vm/RealKernelsTest.cpp checks every result against a CPU
// reference, so that a speed-up never buys a wrong answer.
#include <cstdint>

// Tiled single-precision matrix multiply, C = A * B, all n x n row-major, n a multiple of TILE.
template <int TILE> __device__ void sgemmTiled(const float *a, const float *b, float *c, int n) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    as[ty][tx] = a[row * n + t + tx];
    bs[ty][tx] = b[(t + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k)
      sum += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = sum;
}
extern "C" __global__ void sgemm_tiled16(const float *a, const float *b, float *c, int n) {
  sgemmTiled<16>(a, b, c, n);
}
extern "C" __global__ void sgemm_tiled32(const float *a, const float *b, float *c, int n) {
  sgemmTiled<32>(a, b, c, n);
}

// out = in^T through a padded 32 x 33 shared tile; blocks of 32 x 8 threads, rows x cols a multiple of 32.
extern "C" __global__ void transpose_shared(float *out, const float *in, int rows, int cols) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Sorts each block's 2 * blockDim.x keys ascending in shared memory (bitonic network).
extern "C" __global__ void bitonic_sort_shared(unsigned *keys) {
  extern __shared__ unsigned s[];
  const unsigned n = 2 * blockDim.x, base = blockIdx.x * n, t = threadIdx.x;
  s[t] = keys[base + t];
  s[t + blockDim.x] = keys[base + t + blockDim.x];
  for (unsigned size = 2; size <= n; size <<= 1) {
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      const unsigned pos = 2 * t - (t & (stride - 1));
      const bool ascending = (pos & size) == 0 || size == n;
      unsigned x = s[pos], y = s[pos + stride];
      if ((x > y) == ascending) {
        s[pos] = y;
        s[pos + stride] = x;
      }
    }
  }
  __syncthreads();
  keys[base + t] = s[t];
  keys[base + t + blockDim.x] = s[t + blockDim.x];
}

// One compare-exchange step (size k, distance j) of a bitonic sort over a global array; one thread per key.
extern "C" __global__ void bitonic_step_global(unsigned *keys, unsigned j, unsigned k) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned partner = i ^ j;
  if (partner > i) {
    unsigned x = keys[i], y = keys[partner];
    const bool ascending = (i & k) == 0;
    if ((x > y) == ascending) {
      keys[i] = y;
      keys[partner] = x;
    }
  }
}

// 256-bin histogram of the bytes of `data` (n words): per-block bins in shared memory, then global atomics.
extern "C" __global__ void histogram256(const unsigned *data, int n, unsigned *bins) {
  __shared__ unsigned local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned v = data[i];
    atomicAdd(&local[v & 0xff], 1u);
    atomicAdd(&local[(v >> 8) & 0xff], 1u);
    atomicAdd(&local[(v >> 16) & 0xff], 1u);
    atomicAdd(&local[v >> 24], 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    atomicAdd(&bins[i], local[i]);
}

// 5-point stencil over an nx x ny grid; the border is copied.
extern "C" __global__ void stencil5(float *out, const float *in, int nx, int ny) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny)
    return;
  const int i = y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = 0.5f * in[i] + 0.125f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}

// Inclusive scan of each block's blockDim.x values (Hillis-Steele, double-buffered, barriers in the loop).
extern "C" __global__ void block_scan(int *out, const int *in) {
  extern __shared__ int buf[];
  const unsigned t = threadIdx.x, n = blockDim.x, g = blockIdx.x * n + t;
  int pin = 0;
  buf[t] = in[g];
  __syncthreads();
  for (unsigned offset = 1; offset < n; offset <<= 1) {
    const int pout = 1 - pin;
    buf[pout * n + t] = t >= offset ? buf[pin * n + t] + buf[pin * n + t - offset] : buf[pin * n + t];
    pin = pout;
    __syncthreads();
  }
  out[g] = buf[pin * n + t];
}

// Sum of n floats: a grid-stride loop per thread, a shuffle reduction per warp, one atomic per warp.
extern "C" __global__ void warp_reduce(const float *in, int n, float *sum) {
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    v += in[i];
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(sum, v);
}

// y = a * x + y over a large array with a grid-stride loop.
extern "C" __global__ void saxpy_grid_stride(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

// Collatz stopping times of first, first + 1, ...: neighbouring threads leave the loop after very
// different counts (and take the odd or even branch at random), so warps diverge heavily.
extern "C" __global__ void collatz_steps(unsigned *steps, unsigned long long first, int n, unsigned maxSteps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned long long v = first + i;
  unsigned count = 0;
  while (v != 1 && count < maxSteps) {
    if (v & 1)
      v = 3 * v + 1;
    else
      v >>= 1;
    ++count;
  }
  steps[i] = count;
}
