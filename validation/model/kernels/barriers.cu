// __syncthreads in every iteration of a loop.

// Each iteration writes one shared word per thread, waits, reads the neighbour's: double-buffered,
// so one barrier per iteration is enough.
extern "C" __global__ void barrierExchange(float *out, int iters) {
  __shared__ float s[2][1024];
  unsigned t = threadIdx.x, next = (t + 1) % blockDim.x;
  float v = t;
  for (int it = 0; it < iters; ++it) {
    s[it & 1][t] = v;
    __syncthreads();
    v = 0.5f * v + s[it & 1][next];
  }
  out[blockIdx.x * blockDim.x + t] = v;
}

// Nothing but barriers.
extern "C" __global__ void barrierOnly(int *out, int iters) {
  for (int it = 0; it < iters; ++it)
    __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = iters;
}
