// clock64 spin, device malloc/free, and one FMA kernel for launch-configuration sweeps (grid size
// against the SM count, block size).

// Thread 0 of each block spins until clock64() has advanced `cycles`; the block then stores.
extern "C" __global__ void clockSpin(long long *out, long long cycles) {
  long long start = clock64(), now = start;
  if (threadIdx.x == 0)
    while (now - start < cycles)
      now = clock64();
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = now - start >= cycles;
}

// Every thread allocates `words` ints from the device heap, fills and sums them, frees them.
extern "C" __global__ void mallocFree(int *out, int words) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int *p = static_cast<int *>(malloc(words * sizeof(int)));
  int sum = -1;
  if (p) {
    for (int w = 0; w < words; ++w)
      p[w] = i + w;
    sum = 0;
    for (int w = 0; w < words; ++w)
      sum += p[w];
    free(p);
  }
  out[i] = sum;
}

// iters dependent FMAs per thread.
extern "C" __global__ void fmaLoop(float *out, int iters, float a, float b) {
  float x = threadIdx.x;
  for (int i = 0; i < iters; ++i)
    x = fmaf(x, a, b);
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
