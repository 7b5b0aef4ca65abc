// The last-warp reduction of a 64-thread block (the Kepler tuning guide's §1.4.9 warp-synchronous
// programming): warp 0 folds 64 partial sums into s[0] without __syncthreads(). Without volatile and
// without __syncwarp() its lanes race on sm_70 and later; with __syncwarp() between the steps it is
// correct everywhere; with volatile it is correct only where a warp runs in lock-step (before sm_70).
// tests/sanitizers/RacecheckTest.cpp pins the lines below.

__global__ void reduceUnsynchronized(const int *in, int *out) {
  __shared__ int s[64];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  if (t < 32) {
    s[t] += s[t + 32];
    s[t] += s[t + 16];
    s[t] += s[t + 8];
    s[t] += s[t + 4];
    s[t] += s[t + 2];
    s[t] += s[t + 1];
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

__global__ void reduceSyncwarp(const int *in, int *out) {
  __shared__ int s[64];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  if (t < 32) {
    int v = s[t] + s[t + 32];
    s[t] = v;
    __syncwarp();
    for (int offset = 16; offset > 0; offset /= 2) {
      v += s[t + offset];
      __syncwarp();
      s[t] = v;
      __syncwarp();
    }
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

__global__ void reduceVolatile(const int *in, int *out) {
  __shared__ int s[64];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  if (t < 32) {
    volatile int *vs = s;
    vs[t] += vs[t + 32];
    vs[t] += vs[t + 16];
    vs[t] += vs[t + 8];
    vs[t] += vs[t + 4];
    vs[t] += vs[t + 2];
    vs[t] += vs[t + 1];
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}
