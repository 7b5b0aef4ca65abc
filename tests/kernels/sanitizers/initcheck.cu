// initcheck's planted bugs, each with a clean twin (the same kernel with everything written first,
// or its fixed form). tests/sanitizers/InitcheckTest.cpp pins the lines below: add code at the end.

// Global memory: out[i] = in[i]. The buggy spec allocates `in` with "init": "none" (a bare
// cudaMalloc); the clean twins initialize it from the host, or with fillGlobal in an earlier launch.
__global__ void copyGlobal(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}

__global__ void fillGlobal(int *data, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    data[i] = i;
}

// Shared memory: only the first warp fills the tile, every thread reads its own element.
__global__ void sharedHalfFilled(int *out) {
  __shared__ int tile[64];
  int t = threadIdx.x;
  if (t < 32)
    tile[t] = t;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = tile[t];
}

__global__ void sharedFilled(int *out) {
  __shared__ int tile[64];
  int t = threadIdx.x;
  tile[t] = t;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = tile[63 - t];
}

// Shared memory is per block: block 0 fills the tile, the other blocks read what is in it without
// writing it themselves.
__global__ void sharedFilledByBlockZero(int *out) {
  __shared__ int tile[64];
  int t = threadIdx.x;
  if (blockIdx.x == 0)
    tile[t] = t;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = tile[t];
}

// Local memory: a per-thread array filled up to `filled` and summed up to `summed`; with
// filled < summed the sum reads elements nobody wrote. The loops stay loops (one load, one store).
__global__ void localArray(const int *in, int *out, int filled, int summed) {
  int a[16];
#pragma unroll 1
  for (int k = 0; k < filled; ++k)
    a[k] = in[k] + threadIdx.x;
  int s = 0;
#pragma unroll 1
  for (int k = 0; k < summed; ++k)
    s += a[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
