// ptxray VM test kernel: module-scope variables set and read by the host (the spec's symbol
// buffers). c_poly and c_scale are __constant__; g_bias and g_counter are __device__ globals the host
// initializes; vmtest::g_sums (mangled _ZN6vmtest6g_sumsE) is a __device__ array the host reads back.
//   out[i]  = poly(in[i]) + g_bias, the polynomial sum c_poly[k] * x^k evaluated by Horner's rule in
//             wrapping u32 arithmetic
//   fout[i] = (float)in[i] * c_scale[i & 3] (one rounding, __fmul_rn)
//   g_counter += 1 per thread, g_sums[i & 15] += in[i] (atomics; order-independent)
// References: Reference.h. Spec: specs/symbols.json.

__constant__ int c_poly[8];
__constant__ float c_scale[4];
__device__ int g_bias;
__device__ unsigned g_counter;
namespace vmtest {
__device__ unsigned g_sums[16];
}

extern "C" __global__ void useSymbols(const int *in, int *out, float *fout, int n) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid >= n)
    return;
  int x = in[gid];
  unsigned acc = 0;
  for (int k = 7; k >= 0; --k)
    acc = acc * (unsigned)x + (unsigned)c_poly[k];
  out[gid] = (int)(acc + (unsigned)g_bias);
  fout[gid] = __fmul_rn((float)x, c_scale[gid & 3]);
  atomicAdd(&g_counter, 1u);
  atomicAdd(&vmtest::g_sums[gid & 15], (unsigned)x);
}
