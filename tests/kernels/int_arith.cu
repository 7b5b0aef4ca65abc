// ptxray test corpus: integer arithmetic.
// Covers mul.hi / mul.wide / mad / mul24 / sad / bfe / bfi / brev / clz / popc /
// ffs (via bfind) / prmt / shf / lop3 / dp4a / dp2a / integer min/max/abs /
// div / rem and multi-word add/sub with carry (add.cc / addc / sub.cc / subc).
#include <cstdint>

struct U128 {
  unsigned long long lo, hi;
};

// 128-bit add written with explicit carry-chain inline PTX.
__device__ __forceinline__ U128 add128(U128 a, U128 b) {
  U128 r;
  asm("{\n\t"
      ".reg .u32 a0, a1, a2, a3, b0, b1, b2, b3, r0, r1, r2, r3;\n\t"
      "mov.b64 {a0, a1}, %2;\n\t"
      "mov.b64 {a2, a3}, %3;\n\t"
      "mov.b64 {b0, b1}, %4;\n\t"
      "mov.b64 {b2, b3}, %5;\n\t"
      "add.cc.u32 r0, a0, b0;\n\t"
      "addc.cc.u32 r1, a1, b1;\n\t"
      "addc.cc.u32 r2, a2, b2;\n\t"
      "addc.u32 r3, a3, b3;\n\t"
      "mov.b64 %0, {r0, r1};\n\t"
      "mov.b64 %1, {r2, r3};\n\t"
      "}"
      : "=l"(r.lo), "=l"(r.hi)
      : "l"(a.lo), "l"(a.hi), "l"(b.lo), "l"(b.hi));
  return r;
}

// 128-bit subtract with 64-bit borrow chain.
__device__ __forceinline__ U128 sub128(U128 a, U128 b) {
  U128 r;
  asm("sub.cc.u64 %0, %2, %4;\n\t"
      "subc.u64 %1, %3, %5;"
      : "=l"(r.lo), "=l"(r.hi)
      : "l"(a.lo), "l"(a.hi), "l"(b.lo), "l"(b.hi));
  return r;
}

// Multiply-accumulate with carry-out, "madc" form.
__device__ __forceinline__ unsigned mad_carry(unsigned a, unsigned b, unsigned c,
                                              unsigned &carry) {
  unsigned lo, cy;
  asm("mad.lo.cc.u32 %0, %2, %3, %4;\n\t"
      "madc.hi.u32 %1, %2, %3, 0;"
      : "=r"(lo), "=r"(cy)
      : "r"(a), "r"(b), "r"(c));
  carry = cy;
  return lo;
}

__global__ void mul_kernels(const int *a, const int *b, long long *out64, int *out32,
                            unsigned long long *outu, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  unsigned ux = (unsigned)x, uy = (unsigned)y;
  out64[i * 4 + 0] = (long long)x * (long long)y;               // mul.wide.s32
  out64[i * 4 + 1] = (long long)((unsigned long long)ux * uy);  // mul.wide.u32
  out32[i * 8 + 0] = __mulhi(x, y);                             // mul.hi.s32
  out32[i * 8 + 1] = (int)__umulhi(ux, uy);                     // mul.hi.u32
  out32[i * 8 + 2] = __mul24(x, y);                             // mul24.lo.s32
  out32[i * 8 + 3] = (int)__umul24(ux, uy);                     // mul24.lo.u32
  out32[i * 8 + 4] = x * y + out32[i * 8 + 7];                  // mad.lo.s32
  out32[i * 8 + 5] = (int)__sad(x, y, 7u);                      // sad.s32
  out32[i * 8 + 6] = (int)__usad(ux, uy, 3u);                   // sad.u32
  long long lx = out64[i * 4 + 2];
  long long ly = out64[i * 4 + 3];
  outu[i * 3 + 0] = __umul64hi((unsigned long long)lx, (unsigned long long)ly);
  outu[i * 3 + 1] = (unsigned long long)__mul64hi(lx, ly);
  unsigned carry;
  unsigned lo = mad_carry(ux, uy, (unsigned)i, carry);
  outu[i * 3 + 2] = ((unsigned long long)carry << 32) | lo;
}

__global__ void bit_kernels(const unsigned *in, unsigned *out, unsigned long long *out64,
                            int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = in[i];
  unsigned w = in[(i + 1) % n];
  unsigned long long v64 = ((unsigned long long)w << 32) | v;
  unsigned *o = out + i * 16;
  o[0] = __brev(v);
  o[1] = (unsigned)__clz((int)v);
  o[2] = (unsigned)__popc(v);
  o[3] = (unsigned)__ffs((int)v);
  o[4] = __byte_perm(v, w, 0x5140);
  o[5] = __funnelshift_l(v, w, i & 31);
  o[6] = __funnelshift_r(v, w, i & 31);
  o[7] = __funnelshift_lc(v, w, i);
  o[8] = __funnelshift_rc(v, w, i);
  // bit-field extract / insert patterns (bfe / bfi)
  o[9] = (v >> 7) & 0x3ffu;
  o[10] = (unsigned)(((int)v << 5) >> 20);
  o[11] = (v & ~(0xffu << 8)) | ((w & 0xffu) << 8);
  // three-input logic (lop3)
  o[12] = (v & w) ^ (~v | (w >> 3)) ^ (v & 0x0f0f0f0fu);
  o[13] = (v & w) | (~v & in[(i + 2) % n]);
  o[14] = (unsigned)__dp4a((int)v, (int)w, i);
  o[15] = __dp2a_lo(v, w, (unsigned)i) + __dp2a_hi((int)v, (int)w, 1);
  out64[i * 4 + 0] = __brevll(v64);
  out64[i * 4 + 1] = (unsigned long long)__clzll((long long)v64) +
                     (unsigned long long)__popcll(v64) + (unsigned long long)__ffsll((long long)v64);
  out64[i * 4 + 2] = (v64 >> 13) & 0x1fffffull;
  out64[i * 4 + 3] = v64 << (v & 63) | v64 >> (64 - (v & 63));
}

__global__ void divmod_minmax(const int *a, const int *b, int *out, const long long *la,
                              long long *lout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i] | 1;
  unsigned ux = (unsigned)a[i], uy = (unsigned)b[i] | 1u;
  out[i * 10 + 0] = x / y;
  out[i * 10 + 1] = x % y;
  out[i * 10 + 2] = (int)(ux / uy);
  out[i * 10 + 3] = (int)(ux % uy);
  out[i * 10 + 4] = x / 7;          // division by constant -> mul.hi + shifts
  out[i * 10 + 5] = (int)(ux % 10u);
  out[i * 10 + 6] = min(x, y) + max(x, y);
  out[i * 10 + 7] = (int)(umin(ux, uy) ^ umax(ux, uy));
  out[i * 10 + 8] = abs(x) - __hadd(x, y) + __rhadd(x, y);
  out[i * 10 + 9] = (int)(__uhadd(ux, uy) + __urhadd(ux, uy));
  long long lx = la[i], ly = la[i + n] | 1;
  lout[i * 6 + 0] = lx / ly;
  lout[i * 6 + 1] = lx % ly;
  lout[i * 6 + 2] = (long long)((unsigned long long)lx / (unsigned long long)ly);
  lout[i * 6 + 3] = llmin(lx, ly) + llmax(lx, ly);
  lout[i * 6 + 4] = llabs(lx);
  lout[i * 6 + 5] = -lx >> 3;
}

__global__ void wide_add(const U128 *a, const U128 *b, U128 *sum, U128 *diff, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    sum[i] = add128(a[i], b[i]);
    diff[i] = sub128(a[i], b[i]);
  }
}

// SIMD-in-a-word video intrinsics.
__global__ void simd_video(const unsigned *a, const unsigned *b, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  out[i * 8 + 0] = __vadd4(x, y);
  out[i * 8 + 1] = __vsub2(x, y);
  out[i * 8 + 2] = __vabsdiffu4(x, y);
  out[i * 8 + 3] = __vmaxs2(x, y);
  out[i * 8 + 4] = __vcmpgtu4(x, y);
  out[i * 8 + 5] = __vsads2(x, y);
  out[i * 8 + 6] = __vavgu4(x, y);
  out[i * 8 + 7] = __vneg2(x);
}

// Forms NVVM no longer selects on its own (it folds __mul24 into mul.lo and
// expands bit-field extracts to shift/and), written directly in inline PTX.
__device__ __forceinline__ unsigned bfe_u32(unsigned v, unsigned pos, unsigned len) {
  unsigned r;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(v), "r"(pos), "r"(len));
  return r;
}
__device__ __forceinline__ long long bfe_s64(long long v, unsigned pos, unsigned len) {
  long long r;
  asm("bfe.s64 %0, %1, %2, %3;" : "=l"(r) : "l"(v), "r"(pos), "r"(len));
  return r;
}
__device__ __forceinline__ unsigned bfi_b32(unsigned f, unsigned b, unsigned pos,
                                            unsigned len) {
  unsigned r;
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(f), "r"(b), "r"(pos), "r"(len));
  return r;
}

__global__ void explicit_bitfield_mul24(const unsigned *in, unsigned *out, long long *out64,
                                        int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = in[i], w = in[n - 1 - i];
  int m24h, m24l, mad24;
  asm("mul24.hi.s32 %0, %1, %2;" : "=r"(m24h) : "r"((int)v), "r"((int)w));
  asm("mul24.lo.u32 %0, %1, %2;" : "=r"(m24l) : "r"(v), "r"(w));
  asm("mad24.lo.s32 %0, %1, %2, %3;" : "=r"(mad24) : "r"((int)v), "r"((int)w), "r"(i));
  out[i * 6 + 0] = bfe_u32(v, 4, 9);
  out[i * 6 + 1] = bfi_b32(w, v, 8, 8);
  out[i * 6 + 2] = (unsigned)m24h;
  out[i * 6 + 3] = (unsigned)m24l;
  out[i * 6 + 4] = (unsigned)mad24;
  unsigned t;
  asm("{\n\t.reg .pred p;\n\t"
      "testp.finite.f32 p, %1;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(t)
      : "f"(__int_as_float((int)v)));
  out[i * 6 + 5] = t;
  out64[i] = bfe_s64(((long long)w << 32) | v, 20, 24);
}
