// synccheck's planted bugs, each with a clean twin. tests/sanitizers/SynccheckTest.cpp pins the
// lines below.

// A barrier only threads 0-63 of a 128-thread block reach: threads 64-127 leave the kernel instead.
__global__ void barrierInBranch(int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  if (t < 64) {
    s[t] = t;
    __syncthreads();
    out[t] = s[63 - t];
  }
}

__global__ void barrierForAll(int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  if (t < 64)
    s[t] = t;
  __syncthreads();
  if (t < 64)
    out[t] = s[63 - t];
}

// A shuffle in a branch only lanes 0-15 take, whose membermask names the whole warp: lanes 16-31
// never arrive.
__global__ void shflPartialMask(const int *in, int *out) {
  int t = threadIdx.x;
  int v = in[t];
  if (t % 32 < 16)
    v += __shfl_xor_sync(0xffffffffu, v, 8);
  out[t] = v;
}

__global__ void shflHalfWarpMask(const int *in, int *out) {
  int t = threadIdx.x;
  int v = in[t];
  if (t % 32 < 16)
    v += __shfl_xor_sync(0x0000ffffu, v, 8);
  out[t] = v;
}
