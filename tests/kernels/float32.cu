// ptxray test corpus: single-precision floating point.
// Every explicitly rounded intrinsic, approximate transcendental functions,
// precise libdevice math, min/max/copysign/saturate, classification and fma.

__global__ void rounding_f32(const float *a, const float *b, const float *c, float *out,
                             int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i], z = c[i];
  float *o = out + i * 24;
  o[0] = __fadd_rn(x, y);
  o[1] = __fadd_rz(x, y);
  o[2] = __fadd_ru(x, y);
  o[3] = __fadd_rd(x, y);
  o[4] = __fsub_rn(x, y);
  o[5] = __fsub_rz(x, y);
  o[6] = __fmul_rn(x, y);
  o[7] = __fmul_rz(x, y);
  o[8] = __fmul_ru(x, y);
  o[9] = __fmul_rd(x, y);
  o[10] = __fdiv_rn(x, y);
  o[11] = __fdiv_rz(x, y);
  o[12] = __fdiv_ru(x, y);
  o[13] = __fdiv_rd(x, y);
  o[14] = __fmaf_rn(x, y, z);
  o[15] = __fmaf_rz(x, y, z);
  o[16] = __fmaf_ru(x, y, z);
  o[17] = __fmaf_rd(x, y, z);
  o[18] = __frcp_rn(x) + __frcp_rz(y) + __frcp_ru(z) + __frcp_rd(x);
  o[19] = __fsqrt_rn(x) + __fsqrt_rz(y) + __fsqrt_ru(z) + __fsqrt_rd(x);
  o[20] = __fdividef(x, y);
  o[21] = __fmaf_ieee_rn(x, y, z);
  o[22] = __fadd_ru(__fmul_rd(x, y), z);
  o[23] = x / y + sqrtf(z);  // IEEE division / sqrt with full precision
}

__global__ void approx_f32(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i];
  float *o = out + i * 12;
  o[0] = __sinf(x);
  o[1] = __cosf(x);
  o[2] = __expf(x);
  o[3] = __exp10f(x);
  o[4] = __log2f(x);
  o[5] = __logf(x);
  o[6] = __log10f(x);
  o[7] = __tanf(x);
  o[8] = __powf(x, 1.5f);
  o[9] = rsqrtf(x);
  float s, c;
  __sincosf(x, &s, &c);
  o[10] = s * c;
  o[11] = __saturatef(x * 0.25f);
}

__global__ void precise_f32(const float *a, const float *b, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i];
  float *o = out + i * 20;
  o[0] = sinf(x);
  o[1] = expf(y);
  o[2] = logf(fabsf(x) + 1.0f);
  o[3] = powf(fabsf(x), y);
  o[4] = atan2f(y, x);
  o[5] = fminf(x, y);
  o[6] = fmaxf(x, y);
  o[7] = copysignf(x, y);
  o[8] = fabsf(x) + (-y);
  o[9] = floorf(x) + ceilf(y);
  o[10] = truncf(x) + roundf(y) + rintf(x) + nearbyintf(y);
  o[11] = fmaf(x, y, 1.0f);
  o[12] = fmodf(x, y);
  int e = 0;
  float m = frexpf(x, &e);
  o[13] = m + ldexpf(y, e);
  o[14] = (float)(isnan(x) + 2 * isinf(y) + 4 * isfinite(x) + 8 * signbit(y));
  o[15] = cbrtf(x) + hypotf(x, y);
  o[16] = erff(x) + tgammaf(y);
  o[17] = fdimf(x, y);
  o[18] = exp2f(x) + log2f(fabsf(y) + 2.0f);
  o[19] = x * 0x1p-126f + 3.4028235e38f - 1e-45f;  // subnormal / max literals
}

__global__ void fp_specials(float *out) {
  int i = threadIdx.x;
  float v = out[i];
  // NaN, infinities, negative zero and hex-float literals end up as 0fXXXXXXXX.
  out[i * 5 + 0] = v > 0.0f ? __int_as_float(0x7fc00000) : -0.0f;
  out[i * 5 + 1] = v < 1.0f ? __int_as_float(0x7f800000) : __int_as_float(0xff800000);
  out[i * 5 + 2] = __uint_as_float(__float_as_uint(v) ^ 0x80000000u);
  out[i * 5 + 3] = fminf(v, __int_as_float(0x7fffffff));
  out[i * 5 + 4] = v * 1.17549435e-38f;
}

// Sign-correct float min/max with NaN propagation (sm_80+: min.NaN).
__global__ void nan_minmax(const float *a, const float *b, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
#if __CUDA_ARCH__ >= 800
  float lo, hi;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(lo) : "f"(a[i]), "f"(b[i]));
  asm("max.xorsign.abs.f32 %0, %1, %2;" : "=f"(hi) : "f"(a[i]), "f"(b[i]));
  out[i * 2] = lo;
  out[i * 2 + 1] = hi;
#else
  out[i * 2] = fminf(a[i], b[i]);
  out[i * 2 + 1] = fmaxf(a[i], b[i]);
#endif
}
