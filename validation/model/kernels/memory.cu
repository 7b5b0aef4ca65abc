// Global-memory streaming at several footprints (L2-resident and DRAM-resident): 32-bit and
// 128-bit copies, a grid-stride copy, a permuted-line gather, a store-only fill and SAXPY.

extern "C" __global__ void copyF32(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

extern "C" __global__ void copyF4(float4 *out, const float4 *in, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4)
    out[i] = in[i];
}

// A fixed grid walks the whole array (the common "grid-stride loop").
extern "C" __global__ void copyGridStride(float *out, const float *in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = in[i];
}

// Each warp reads whole 128-byte lines, the lines in a scattered order over the input
// ((line * lineStride) mod lines); the output is written linearly. lines is a power of two and
// lineStride odd, so every line is read once.
extern "C" __global__ void gatherLines(float *out, const float *in, int lines, int lineStride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int line = i >> 5;
  if (line < lines) {
    int src = ((line * lineStride) & (lines - 1)) * 32 + (i & 31);
    out[i] = in[src];
  }
}

extern "C" __global__ void fillF32(float *out, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = v;
}

extern "C" __global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
