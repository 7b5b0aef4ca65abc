// ptxray test corpus: conversions (rounding, saturation, widths) and
// comparisons / predicate logic / select.
#include <cstdint>

__global__ void float_to_int(const float *f, const double *d, int *oi, unsigned *ou,
                             long long *ol, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = f[i];
  double y = d[i];
  oi[i * 8 + 0] = __float2int_rn(x);
  oi[i * 8 + 1] = __float2int_rz(x);
  oi[i * 8 + 2] = __float2int_ru(x);
  oi[i * 8 + 3] = __float2int_rd(x);
  oi[i * 8 + 4] = __double2int_rn(y) + __double2int_rz(y);
  oi[i * 8 + 5] = __double2int_ru(y) - __double2int_rd(y);
  oi[i * 8 + 6] = (int)x;        // C cast: cvt.rzi.s32.f32
  oi[i * 8 + 7] = (short)(int)y; // narrowing chain
  ou[i * 4 + 0] = __float2uint_rn(x);
  ou[i * 4 + 1] = __float2uint_rz(x) + __float2uint_ru(x) + __float2uint_rd(x);
  ou[i * 4 + 2] = __double2uint_rz(y);
  ou[i * 4 + 3] = (unsigned char)x;
  ol[i * 4 + 0] = __float2ll_rn(x) + __float2ll_rz(x);
  ol[i * 4 + 1] = __double2ll_ru(y) + __double2ll_rd(y);
  ol[i * 4 + 2] = (long long)__float2ull_rz(x) + (long long)__double2ull_rn(y);
  ol[i * 4 + 3] = (long long)y;
}

__global__ void int_to_float(const int *iv, const long long *lv, float *of, double *od,
                             int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int a = iv[i];
  unsigned ua = (unsigned)a;
  long long b = lv[i];
  of[i * 8 + 0] = __int2float_rn(a);
  of[i * 8 + 1] = __int2float_rz(a) + __int2float_ru(a) + __int2float_rd(a);
  of[i * 8 + 2] = __uint2float_rn(ua) + __uint2float_rz(ua);
  of[i * 8 + 3] = __ll2float_rn(b) + __ll2float_rd(b);
  of[i * 8 + 4] = __ull2float_ru((unsigned long long)b);
  of[i * 8 + 5] = __double2float_rn(od[i]) + __double2float_rz(od[i]);
  of[i * 8 + 6] = __double2float_ru(od[i]) - __double2float_rd(od[i]);
  of[i * 8 + 7] = (float)(signed char)a + (float)(unsigned short)a;
  od[i * 3 + 0] = __int2double_rn(a) + __uint2double_rn(ua);
  od[i * 3 + 1] = __ll2double_rn(b) + __ll2double_rz(b) + __ull2double_ru((unsigned long long)b);
  od[i * 3 + 2] = (double)of[i];
}

__global__ void int_widths(const signed char *s8, const unsigned short *u16, const int *s32,
                           long long *out, signed char *o8, short *o16, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  signed char c = s8[i];
  unsigned short h = u16[i];
  int w = s32[i];
  out[i] = (long long)c * h + (unsigned)w;
  o8[i] = (signed char)(w >> 3);
  o16[i] = (short)(c * (short)h);
  // saturating narrowing conversions
  int sat8, sat16;
  asm("cvt.sat.s8.s32 %0, %1;" : "=r"(sat8) : "r"(w));
  asm("cvt.sat.u16.s32 %0, %1;" : "=r"(sat16) : "r"(w));
  float f = __int_as_float(w);
  float fsat;
  asm("cvt.rni.sat.f32.f32 %0, %1;" : "=f"(fsat) : "f"(f));
  out[n + i] = sat8 + sat16 + (long long)fsat;
}

__global__ void compare_select(const float *a, const float *b, const int *ia, const int *ib,
                               float *out, int *iout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i];
  int p = ia[i], q = ib[i];
  unsigned up = (unsigned)p, uq = (unsigned)q;
  out[i * 4 + 0] = x < y ? x : y;
  out[i * 4 + 1] = (x != x || y != y) ? 0.0f : (x >= y ? 1.0f : -1.0f);
  out[i * 4 + 2] = (x == y) | (x <= y) ? x * y : x + y;
  out[i * 4 + 3] = !(x > y) ? 2.0f : 3.0f;  // unordered compare: setp.leu
  int r = 0;
  r |= (p < q) << 0;
  r |= (up < uq) << 1;
  r |= (p >= q && up != 7u) << 2;
  r |= (p == q || (p ^ q) > 9) << 3;
  r |= ((long long)p * q > 100000ll) << 4;
  iout[i * 3 + 0] = r;
  iout[i * 3 + 1] = (p > 0) != (q > 0) ? p : -q;  // xor.pred
  bool odd = p & 1;
  iout[i * 3 + 2] = odd ? (up > uq ? 11 : 22) : 33;
}

// set (not setp) and predicate-combining forms via inline asm.
__global__ void set_forms(const float *a, const float *b, unsigned *out) {
  int i = threadIdx.x;
  unsigned r1, r2;
  float f;
  asm("{\n\t.reg .pred p, q;\n\t"
      "setp.lt.and.f32 p|q, %3, %4, 1;\n\t"
      "set.gt.u32.f32 %0, %3, %4;\n\t"
      "@!q set.eq.or.u32.f32 %0, %3, %4, p;\n\t"
      "selp.u32 %1, 5, 9, q;\n\t"
      "slct.f32.f32 %2, %3, %4, %3;\n\t"
      "}"
      : "=r"(r1), "=r"(r2), "=f"(f)
      : "f"(a[i]), "f"(b[i]));
  out[i * 3] = r1;
  out[i * 3 + 1] = r2;
  out[i * 3 + 2] = __float_as_uint(f);
}
