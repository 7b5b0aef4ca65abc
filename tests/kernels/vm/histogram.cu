// ptxray VM test kernels: atomics. All results are independent of the order the atomics land in.
//   histGlobal   256-bin histogram of (in[i] & 255), atomicAdd on u32 in global memory
//                (grid-stride loop)
//   histShared   the same through a per-block shared-memory histogram (shared atomicAdd), then one
//                global atomicAdd per non-empty bin
//   fillFloat    p[i] = v for i < n (sets the running maximum to -inf, passed by bit pattern)
//   maxFloat     the maximum of the inputs by an atomicCAS loop on the float's bits, plus atomicMax
//                and atomicMin on s32 of the same values truncated toward zero
// References: Reference.h. Spec: specs/histogram.json.

extern "C" __global__ void histGlobal(const unsigned *in, unsigned *hist, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&hist[in[i] & 255u], 1u);
}

extern "C" __global__ void histShared(const unsigned *in, unsigned *hist, int n) {
  __shared__ unsigned bins[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    bins[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[in[i] & 255u], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (bins[b] != 0)
      atomicAdd(&hist[b], bins[b]);
}

__device__ float atomicMaxFloat(float *address, float val) {
  int *bits = (int *)address;
  int old = *bits;
  while (__int_as_float(old) < val) {
    int assumed = old;
    old = atomicCAS(bits, assumed, __float_as_int(val));
    if (old == assumed)
      break;
  }
  return __int_as_float(old);
}

extern "C" __global__ void fillFloat(float *p, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = v;
}

extern "C" __global__ void maxFloat(const float *in, float *result, int *intMinMax, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  atomicMaxFloat(result, v);
  atomicMin(&intMinMax[0], (int)v);
  atomicMax(&intMinMax[1], (int)v);
}
