// ptxray model validation kernels: shared-memory bank conflicts. Each thread stores one element at
// index threadIdx.x * stride, the block synchronizes, and each thread reads back the element its
// neighbour (threadIdx.x ^ 1, same warp) stored, so loads and stores have the same pattern:
//   sharedStride   32-bit words; stride 1 is conflict-free, strides 2..32 give 2..32-way conflicts
//   sharedDouble   64-bit elements, linear (stride 1) and strided
//   sharedFloat4   128-bit elements, linear and strided
// The index is masked to the array, which no stride used by the specs reaches (256-thread blocks).
// The 32x32 tile transposes ([32][32] and padded [32][33]) and the tiled matrix products are reused
// from tests/kernels/vm/transpose.cu and matmul.cu. Spec: validation/model/specs/shared_*.json.
#define SHARED_WORDS 8192 // 32 KiB
#define SHARED_DOUBLES 4096
#define SHARED_FLOAT4S 2048

extern "C" __global__ void sharedStride(float *odata, int stride) {
  __shared__ float buf[SHARED_WORDS];
  unsigned t = threadIdx.x;
  buf[(t * stride) & (SHARED_WORDS - 1)] = __uint2float_rn(t);
  __syncthreads();
  odata[blockIdx.x * blockDim.x + t] = buf[((t ^ 1) * stride) & (SHARED_WORDS - 1)];
}

extern "C" __global__ void sharedDouble(double *odata, int stride) {
  __shared__ double buf[SHARED_DOUBLES];
  unsigned t = threadIdx.x;
  buf[(t * stride) & (SHARED_DOUBLES - 1)] = __uint2double_rn(t);
  __syncthreads();
  odata[blockIdx.x * blockDim.x + t] = buf[((t ^ 1) * stride) & (SHARED_DOUBLES - 1)];
}

extern "C" __global__ void sharedFloat4(float4 *odata, int stride) {
  __shared__ float4 buf[SHARED_FLOAT4S];
  unsigned t = threadIdx.x;
  float f = __uint2float_rn(t);
  buf[(t * stride) & (SHARED_FLOAT4S - 1)] = make_float4(f, f + 1.0f, f + 2.0f, f + 3.0f);
  __syncthreads();
  odata[blockIdx.x * blockDim.x + t] = buf[((t ^ 1) * stride) & (SHARED_FLOAT4S - 1)];
}
