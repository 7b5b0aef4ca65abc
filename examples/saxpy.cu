// ptxray quick-start example: SAXPY and a shared-memory sum reduction.
//
//   nvcc -ptx -arch=compute_90 -lineinfo saxpy.cu -o saxpy.ptx
//
// The reduction uses a templated __noinline__ helper so the PTX contains a
// mangled name (_Z10warp_totalILi32EEff -> float warp_total<32>(float)) that
// ptxray demangles in its output.

// y[i] = a * x[i] + y[i]
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Sum of the values held by the Width lanes of a warp (butterfly shuffles).
template <int Width>
__device__ __noinline__ float warp_total(float v) {
  for (int offset = Width / 2; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, offset, Width);
  return v;
}

// out[blockIdx.x] = sum of in[] over this block's elements (blockDim.x <= 1024).
__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float partial[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float v = warp_total<32>(i < n ? in[i] : 0.0f);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x + 31) / 32 ? partial[lane] : 0.0f;
    v = warp_total<32>(v);
    if (lane == 0) out[blockIdx.x] = v;
  }
}
