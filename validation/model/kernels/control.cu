// ptxray model validation kernels: branch divergence, local memory and constant memory.
//   divergentBranch   odd and even lanes take different paths (if (threadIdx.x % 2)): every warp
//                     runs both
//   uniformBranch     the same two paths chosen per block (blockIdx.x % 2): no warp diverges
//   localArray        a per-thread float[32] (a recurrence, so no closed form) written once more and
//                     read twice at indices taken from a loaded value, which nvcc and ptxas keep
//                     in local memory (128-byte stack frame: 8 st.local.v4, 1 dynamically indexed
//                     st.local, 2 dynamically indexed ld.local per thread)
//   constUniform      8 reads of __constant__ c_table per thread at a warp-uniform index
//   constDivergent    the same reads at an index that differs in every lane (32 addresses a warp)
// Spec: validation/model/specs/branch.json, local_memory.json, constant.json.

__device__ __forceinline__ unsigned pathA(unsigned x) {
#pragma unroll
  for (int k = 0; k < 8; k++)
    x = (x ^ (x >> 16)) * 0x45d9f3bu;
  return x;
}

__device__ __forceinline__ unsigned pathB(unsigned x) {
#pragma unroll
  for (int k = 0; k < 8; k++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
  }
  return x;
}

extern "C" __global__ void divergentBranch(unsigned *odata, const unsigned *idata) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = idata[i];
  if (threadIdx.x % 2)
    x = pathA(x);
  else
    x = pathB(x);
  odata[i] = x;
}

extern "C" __global__ void uniformBranch(unsigned *odata, const unsigned *idata) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = idata[i];
  if (blockIdx.x % 2)
    x = pathA(x);
  else
    x = pathB(x);
  odata[i] = x;
}

extern "C" __global__ void localArray(float *odata, const float *idata, const unsigned *index) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a[32];
  float x = idata[i];
#pragma unroll
  for (int k = 0; k < 32; k++) {
    a[k] = x;
    x = __fmaf_rn(x, 1.5f, 0.25f);
  }
  unsigned j = index[i];
  a[j & 31u] = 0.0f;
  odata[i] = __fadd_rn(a[(j >> 5) & 31u], a[(j >> 10) & 31u]);
}

__constant__ float c_table[1024];

extern "C" __global__ void constUniform(float *odata) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 8; k++)
    s = __fadd_rn(s, c_table[(blockIdx.x * 8u + k) & 1023u]);
  odata[i] = s;
}

extern "C" __global__ void constDivergent(float *odata) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 8; k++)
    s = __fadd_rn(s, c_table[(threadIdx.x * 8u + k) & 1023u]);
  odata[i] = s;
}
