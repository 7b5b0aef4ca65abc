// ptxray test corpus: double precision.
#include <cstdint>

__global__ void rounding_f64(const double *a, const double *b, const double *c,
                             double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = a[i], y = b[i], z = c[i];
  double *o = out + i * 16;
  o[0] = __dadd_rn(x, y);
  o[1] = __dadd_rz(x, y) + __dadd_ru(x, y) + __dadd_rd(x, y);
  o[2] = __dsub_rn(x, y) + __dsub_rz(x, y) + __dsub_ru(x, y) + __dsub_rd(x, y);
  o[3] = __dmul_rn(x, y) + __dmul_rz(x, y);
  o[4] = __dmul_ru(x, y) + __dmul_rd(x, y);
  o[5] = __ddiv_rn(x, y);
  o[6] = __ddiv_rz(x, y) + __ddiv_ru(x, y) + __ddiv_rd(x, y);
  o[7] = __fma_rn(x, y, z) + __fma_rz(x, y, z) + __fma_ru(x, y, z) + __fma_rd(x, y, z);
  o[8] = __drcp_rn(x) + __drcp_rz(y) + __drcp_ru(z) + __drcp_rd(x);
  o[9] = __dsqrt_rn(x) + __dsqrt_rz(y) + __dsqrt_ru(z) + __dsqrt_rd(x);
  o[10] = x / y;
  o[11] = sqrt(z);
  o[12] = rsqrt(x);
  o[13] = fmin(x, y) + fmax(y, z);
  o[14] = copysign(x, y) - fabs(z);
  o[15] = (x < y) ? -0.0 : 1e308;
}

__global__ void libm_f64(const double *a, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = a[i];
  double *o = out + i * 8;
  o[0] = sin(x) + cos(x);
  o[1] = exp(x);
  o[2] = log(fabs(x) + 1.0);
  o[3] = pow(fabs(x), 0.3);
  o[4] = floor(x) + ceil(x) + trunc(x) + round(x) + rint(x);
  o[5] = fma(x, x, 1.0);
  o[6] = atan(x) + tanh(x);
  o[7] = (double)(isnan(x) | isinf(x));
}

__global__ void bits_f64(const double *a, long long *out, double *dout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = a[i];
  out[i * 4 + 0] = __double_as_longlong(x);
  out[i * 4 + 1] = __double2hiint(x);
  out[i * 4 + 2] = __double2loint(x);
  out[i * 4 + 3] = (long long)__double2ll_rz(x);
  dout[i * 2 + 0] = __hiloint2double(__double2loint(x), __double2hiint(x));
  dout[i * 2 + 1] = __longlong_as_double(out[i * 4] ^ (1ll << 63)) +
                    __int_as_float(0x7f7fffff) + 0x1.fffffffffffffp+1023;
}
