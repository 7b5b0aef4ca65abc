// ptxray test corpus: half and bfloat16 arithmetic (cuda_fp16.h / cuda_bf16.h).
// On compute_75 the bf16 arithmetic is emulated through f32; on sm_80+ it is
// native (fma.rn.bf16x2, cvt.rn.bf16x2.f32, ...). Also f16 / bf16 conversions.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__global__ void half_arith(const __half2 *a, const __half2 *b, __half2 *out, __half *hs,
                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half2 x = a[i], y = b[i];
  __half2 *o = out + i * 10;
  o[0] = __hadd2(x, y);
  o[1] = __hsub2(x, y);
  o[2] = __hmul2(x, y);
  o[3] = __hfma2(x, y, o[9]);
  o[4] = __hadd2_sat(x, y);
  o[5] = __h2div(x, y);
  o[6] = __hmax2(x, y);
  o[7] = h2sqrt(x);
  o[8] = __hneg2(__habs2(x));
  o[9] = __hfma2_relu(x, y, x);
  __half lo = __low2half(x), hi = __high2half(y);
  hs[i * 6 + 0] = __hadd(lo, hi);
  hs[i * 6 + 1] = __hfma(lo, hi, __float2half(1.5f));
  hs[i * 6 + 2] = __hdiv(lo, hi);
  hs[i * 6 + 3] = hexp(lo);
  hs[i * 6 + 4] = __hlt(lo, hi) ? lo : hi;
  hs[i * 6 + 5] = __hisnan(lo) ? __float2half(0.0f) : hrsqrt(hi);
}

__global__ void half_compare(const __half2 *a, const __half2 *b, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half2 x = a[i], y = b[i];
  unsigned r = 0;
  r |= __hbeq2(x, y) ? 1u : 0u;
  r |= __hblt2(x, y) ? 2u : 0u;
  r |= __hbgeu2(x, y) ? 4u : 0u;
  __half2 m = __hle2(x, y);
  out[i * 2] = r;
  out[i * 2 + 1] = __half_as_ushort(__low2half(m)) | (__hgt2_mask(x, y) & 0xffff0000u);
}

__global__ void bf16_arith(const __nv_bfloat162 *a, const __nv_bfloat162 *b,
                           __nv_bfloat162 *out, float *fout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat162 x = a[i], y = b[i];
  out[i * 5 + 0] = __hadd2(x, y);
  out[i * 5 + 1] = __hmul2(x, y);
#if __CUDA_ARCH__ >= 800
  out[i * 5 + 2] = __hfma2(x, y, x);
#else
  out[i * 5 + 2] = __hadd2(__hmul2(x, y), x);
#endif
  out[i * 5 + 3] = __hmin2(x, y);
  out[i * 5 + 4] = __floats2bfloat162_rn(fout[i], -fout[i]);
#if __CUDA_ARCH__ >= 800
  __nv_bfloat16 s = __hfma(__low2bfloat16(x), __high2bfloat16(y), __float2bfloat16(2.0f));
#else
  __nv_bfloat16 s = __low2bfloat16(x) * __high2bfloat16(y) + __float2bfloat16(2.0f);
#endif
  fout[i * 3 + 0] = __bfloat162float(s);
  float2 f2 = __bfloat1622float2(x);
  fout[i * 3 + 1] = f2.x + f2.y;
  fout[i * 3 + 2] = __bfloat162float(hsqrt(s));
}

__global__ void half_conversions(const float *f, const double *d, __half *h,
                                 __nv_bfloat16 *bf, short *si, float *fo, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = f[i];
  h[i * 6 + 0] = __float2half_rn(x);
  h[i * 6 + 1] = __float2half_rz(x);
  h[i * 6 + 2] = __float2half_ru(x);
  h[i * 6 + 3] = __float2half_rd(x);
  h[i * 6 + 4] = __double2half(d[i]);
  h[i * 6 + 5] = __int2half_rn(i) + __ushort2half_rz((unsigned short)i);
  bf[i * 4 + 0] = __float2bfloat16_rn(x);
  bf[i * 4 + 1] = __float2bfloat16_rz(x);
  bf[i * 4 + 2] = __double2bfloat16(d[i]);
  bf[i * 4 + 3] = __int2bfloat16_rn(i);
  si[i * 3 + 0] = __half2short_rz(h[i * 6]);
  si[i * 3 + 1] = (short)__half2int_rd(h[i * 6 + 1]);
  si[i * 3 + 2] = (short)__bfloat162int_rz(bf[i * 4]);
  fo[i * 2 + 0] = __half2float(h[i * 6 + 2]);
  fo[i * 2 + 1] = __half2float(__ushort_as_half((unsigned short)0x7c00));
}
