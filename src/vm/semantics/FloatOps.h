// Scalar semantics of the PTX f32/f64 floating-point instructions, one lane at a time.
//
// Rounding technique: the default .rn path uses the host's IEEE 754 arithmetic (+ - * / sqrt fma),
// which is exact provided the host FPU is left in its default round-to-nearest-even mode (ptxray never
// changes it). Every other rounding mode (.rz .rm .rp) goes through soft:: (SoftFloat.h), which forms the
// exact result as an integer significand plus sticky bit and rounds once, so it is bit-exact and
// independent of the host FPU mode, including overflow to +-inf versus +-max-finite and subnormal results.
//
// NaN policy (the ISA leaves payloads unspecified): every f32 arithmetic NaN result is the canonical NaN
// 0x7fffffff, as the hardware produces. For f64, a NaN input is returned quieted (first NaN operand in
// a, b, c order) and a NaN created from non-NaN inputs (inf - inf, 0 * inf, sqrt(-1)) is
// 0x7fffffffffffffff. abs, neg and copysign only touch the sign bit, so a NaN passes through.
//
// .ftz (f32 only): subnormal inputs are flushed to sign-preserving zero before the operation, and a
// result that is subnormal after rounding is flushed to sign-preserving zero.
// .sat (f32 only): the result is clamped to [+0.0, 1.0]; NaN and -0.0 become +0.0.
#pragma once

#include "vm/semantics/SoftFloat.h"

#include <bit>
#include <cmath>
#include <cstdint>

namespace ptxray::vm::sem {

inline constexpr uint32_t kCanonicalNaN32 = 0x7fffffffu;
inline constexpr uint64_t kCanonicalNaN64 = 0x7fffffffffffffffull;
// rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64 map NaN inputs to this encoding (ISA).
inline constexpr uint64_t kApproxNaN64 = 0x7fffffff00000000ull;

inline uint32_t bitsOf(float x) {
  return std::bit_cast<uint32_t>(x);
}
inline uint64_t bitsOf(double x) {
  return std::bit_cast<uint64_t>(x);
}
inline float f32FromBits(uint32_t b) {
  return std::bit_cast<float>(b);
}
inline double f64FromBits(uint64_t b) {
  return std::bit_cast<double>(b);
}

// ---------------------------------------------------------------------------------------------------
// Modifier helpers
// ---------------------------------------------------------------------------------------------------

inline float flushSubnormal(float x) {
  const uint32_t b = bitsOf(x);
  return (b & 0x7f800000u) == 0 ? f32FromBits(b & 0x80000000u) : x;
}
inline double flushSubnormal(double x) {
  const uint64_t b = bitsOf(x);
  return (b & 0x7ff0000000000000ull) == 0 ? f64FromBits(b & 0x8000000000000000ull) : x;
}
inline float canonicalizeNaN(float x) {
  return x != x ? f32FromBits(kCanonicalNaN32) : x;
}
// .sat: clamp to [0, 1]; NaN and -0 give +0.
inline float saturate(float x) {
  return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f;
}
inline double saturate(double x) {
  return x > 0.0 ? (x < 1.0 ? x : 1.0) : 0.0;
}

// Canonical NaN, then .ftz and .sat on an f32 result.
inline float finishF32(float d, bool ftz, bool sat) {
  d = canonicalizeNaN(d);
  if (ftz)
    d = flushSubnormal(d);
  if (sat)
    d = saturate(d);
  return d;
}

inline double quietNaN(double x) {
  return f64FromBits(bitsOf(x) | 0x0008000000000000ull);
}
// f64 NaN policy (see the file comment).
inline double fixNaN64(double d, double a, double b = 0.0, double c = 0.0) {
  if (d == d)
    return d;
  if (a != a)
    return quietNaN(a);
  if (b != b)
    return quietNaN(b);
  if (c != c)
    return quietNaN(c);
  return f64FromBits(kCanonicalNaN64);
}

// ---------------------------------------------------------------------------------------------------
// add / sub / mul / fma (mad.rnd == fma) / div / rcp / sqrt with IEEE rounding
// ---------------------------------------------------------------------------------------------------

inline float add(float a, float b, Rounding r = Rounding::Rn, bool ftz = false, bool sat = false) {
  if (ftz) {
    a = flushSubnormal(a);
    b = flushSubnormal(b);
  }
  const float d = r == Rounding::Rn ? a + b : f32FromBits(uint32_t(soft::add(kF32, bitsOf(a), bitsOf(b), r)));
  return finishF32(d, ftz, sat);
}
inline float sub(float a, float b, Rounding r = Rounding::Rn, bool ftz = false, bool sat = false) {
  if (ftz) {
    a = flushSubnormal(a);
    b = flushSubnormal(b);
  }
  const float d = r == Rounding::Rn ? a - b : f32FromBits(uint32_t(soft::sub(kF32, bitsOf(a), bitsOf(b), r)));
  return finishF32(d, ftz, sat);
}
inline float mul(float a, float b, Rounding r = Rounding::Rn, bool ftz = false, bool sat = false) {
  if (ftz) {
    a = flushSubnormal(a);
    b = flushSubnormal(b);
  }
  const float d = r == Rounding::Rn ? a * b : f32FromBits(uint32_t(soft::mul(kF32, bitsOf(a), bitsOf(b), r)));
  return finishF32(d, ftz, sat);
}
inline float fma(float a, float b, float c, Rounding r = Rounding::Rn, bool ftz = false, bool sat = false) {
  if (ftz) {
    a = flushSubnormal(a);
    b = flushSubnormal(b);
    c = flushSubnormal(c);
  }
  const float d = r == Rounding::Rn ? std::fma(a, b, c)
                                    : f32FromBits(uint32_t(soft::fma(kF32, bitsOf(a), bitsOf(b), bitsOf(c), r)));
  return finishF32(d, ftz, sat);
}
inline float mad(float a, float b, float c, Rounding r = Rounding::Rn, bool ftz = false, bool sat = false) {
  return fma(a, b, c, r, ftz, sat);
}
inline float div(float a, float b, Rounding r = Rounding::Rn, bool ftz = false) {
  if (ftz) {
    a = flushSubnormal(a);
    b = flushSubnormal(b);
  }
  const float d = r == Rounding::Rn ? a / b : f32FromBits(uint32_t(soft::div(kF32, bitsOf(a), bitsOf(b), r)));
  return finishF32(d, ftz, false);
}
inline float rcp(float a, Rounding r = Rounding::Rn, bool ftz = false) {
  return div(1.0f, a, r, ftz);
}
inline float sqrt(float a, Rounding r = Rounding::Rn, bool ftz = false) {
  if (ftz)
    a = flushSubnormal(a);
  const float d = r == Rounding::Rn ? std::sqrt(a) : f32FromBits(uint32_t(soft::sqrt(kF32, bitsOf(a), r)));
  return finishF32(d, ftz, false);
}

inline double add(double a, double b, Rounding r = Rounding::Rn) {
  const double d = r == Rounding::Rn ? a + b : f64FromBits(soft::add(kF64, bitsOf(a), bitsOf(b), r));
  return fixNaN64(d, a, b);
}
inline double sub(double a, double b, Rounding r = Rounding::Rn) {
  const double d = r == Rounding::Rn ? a - b : f64FromBits(soft::sub(kF64, bitsOf(a), bitsOf(b), r));
  return fixNaN64(d, a, b);
}
inline double mul(double a, double b, Rounding r = Rounding::Rn) {
  const double d = r == Rounding::Rn ? a * b : f64FromBits(soft::mul(kF64, bitsOf(a), bitsOf(b), r));
  return fixNaN64(d, a, b);
}
inline double fma(double a, double b, double c, Rounding r = Rounding::Rn) {
  const double d =
      r == Rounding::Rn ? std::fma(a, b, c) : f64FromBits(soft::fma(kF64, bitsOf(a), bitsOf(b), bitsOf(c), r));
  return fixNaN64(d, a, b, c);
}
inline double mad(double a, double b, double c, Rounding r = Rounding::Rn) {
  return fma(a, b, c, r);
}
inline double div(double a, double b, Rounding r = Rounding::Rn) {
  const double d = r == Rounding::Rn ? a / b : f64FromBits(soft::div(kF64, bitsOf(a), bitsOf(b), r));
  return fixNaN64(d, a, b);
}
inline double rcp(double a, Rounding r = Rounding::Rn) {
  return div(1.0, a, r);
}
inline double sqrt(double a, Rounding r = Rounding::Rn) {
  const double d = r == Rounding::Rn ? std::sqrt(a) : f64FromBits(soft::sqrt(kF64, bitsOf(a), r));
  return fixNaN64(d, a);
}

// ---------------------------------------------------------------------------------------------------
// Approximations. All are computed in double and rounded once to f32, so each is within 0.5 ulp
// (+2^-29 ulp from the double step) of the true function -- far inside the ISA's stated bounds.
// The ISA's corner-case tables (subnormal input -> +-0 / 1 / -inf / +-inf) describe flushed inputs;
// we reproduce them with .ftz, and without .ftz compute the true function of a subnormal input, as the
// "subnormal numbers are supported" text says. tanh has no .ftz and passes subnormals through.
// ---------------------------------------------------------------------------------------------------

namespace detail {
inline float approxF32(double v, bool ftz) {
  return finishF32(static_cast<float>(v), ftz, false);
}
inline float inF32(float a, bool ftz) {
  return ftz ? flushSubnormal(a) : a;
}
} // namespace detail

inline float sinApprox(float a, bool ftz = false) {
  return detail::approxF32(std::sin(static_cast<double>(detail::inF32(a, ftz))), ftz);
}
inline float cosApprox(float a, bool ftz = false) {
  return detail::approxF32(std::cos(static_cast<double>(detail::inF32(a, ftz))), ftz);
}
inline float lg2Approx(float a, bool ftz = false) {
  return detail::approxF32(std::log2(static_cast<double>(detail::inF32(a, ftz))), ftz);
}
inline float ex2Approx(float a, bool ftz = false) {
  return detail::approxF32(std::exp2(static_cast<double>(detail::inF32(a, ftz))), ftz);
}
inline float tanhApprox(float a) {
  return detail::approxF32(std::tanh(static_cast<double>(a)), false);
}
inline float rsqrtApprox(float a, bool ftz = false) {
  return detail::approxF32(1.0 / std::sqrt(static_cast<double>(detail::inF32(a, ftz))), ftz);
}
inline float sqrtApprox(float a, bool ftz = false) {
  return sqrt(a, Rounding::Rn, ftz);
}
// rcp.approx.f32: correctly rounded 1/a (ISA bound: 2^-23 absolute on [1, 2]).
inline float rcpApprox(float a, bool ftz = false) {
  return rcp(a, Rounding::Rn, ftz);
}

// div.approx.f32: d = a * (1/b) with subnormal inputs and results always flushed (ISA). For
// 2^126 < |b| < 2^128 the reciprocal flushes to zero, giving 0 or, for infinite a, NaN, as the ISA
// states. Error <= 1.5 ulp where the ISA allows 2. (.ftz is accepted and implied.)
inline float divApprox(float a, float b, bool /*ftz*/ = true) {
  a = flushSubnormal(a);
  b = flushSubnormal(b);
  const float rb = flushSubnormal(1.0f / b);
  return finishF32(a * rb, true, false);
}
// div.full.f32: correctly rounded (0.5 ulp; ISA allows 2) with subnormals flushed (ISA).
inline float divFull(float a, float b, bool /*ftz*/ = true) {
  return div(a, b, Rounding::Rn, true);
}

// rsqrt.approx.f64: 1/sqrt(a) in double (<= 1 ulp).
inline double rsqrtApprox(double a) {
  return fixNaN64(1.0 / std::sqrt(a), a);
}

namespace detail {
// The "1.11.20" format of the upper word of an f64 used by the .ftz.f64 approximations.
inline constexpr Format kF64Hi{20, 11};
inline double upperWordApprox(double a, bool rsqrt) {
  double t = f64FromBits(bitsOf(a) & 0xffffffff00000000ull);
  if (t != t)
    return f64FromBits(kApproxNaN64);
  t = flushSubnormal(t);
  const double v = rsqrt ? 1.0 / std::sqrt(t) : 1.0 / t;
  if (v != v)
    return f64FromBits(kApproxNaN64);
  const uint64_t hi = soft::flush(kF64Hi, soft::convert(kF64Hi, kF64, bitsOf(v), Rounding::Rn));
  return f64FromBits(hi << 32);
}
} // namespace detail
// rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64: the upper word of a (1.11.20) is used, the result is
// rounded to 20 fraction bits (relative error <= 2^-21), the low 32 bits are zero.
inline double rcpApproxFtz(double a) {
  return detail::upperWordApprox(a, false);
}
inline double rsqrtApproxFtz(double a) {
  return detail::upperWordApprox(a, true);
}

// ---------------------------------------------------------------------------------------------------
// min / max, abs / neg / copysign
// ---------------------------------------------------------------------------------------------------

// min/max{.ftz}{.NaN}{.xorsign.abs}.f32. A NaN and a number give the number; two NaNs (or any NaN
// with .NaN) give the canonical NaN. +0 > -0.
inline float max(float a, float b, bool ftz = false, bool nanMode = false, bool xorsignAbs = false) {
  if (ftz) {
    a = flushSubnormal(a);
    b = flushSubnormal(b);
  }
  const uint32_t xs = (bitsOf(a) ^ bitsOf(b)) & 0x80000000u;
  if (xorsignAbs) {
    a = f32FromBits(bitsOf(a) & 0x7fffffffu);
    b = f32FromBits(bitsOf(b) & 0x7fffffffu);
  }
  const bool na = a != a, nb = b != b;
  if ((na && nb) || (nanMode && (na || nb)))
    return f32FromBits(kCanonicalNaN32);
  float d = na ? b : nb ? a : a == b ? f32FromBits(bitsOf(a) & bitsOf(b)) : (a > b ? a : b);
  if (xorsignAbs)
    d = f32FromBits((bitsOf(d) & 0x7fffffffu) | xs);
  return d;
}
inline float min(float a, float b, bool ftz = false, bool nanMode = false, bool xorsignAbs = false) {
  if (ftz) {
    a = flushSubnormal(a);
    b = flushSubnormal(b);
  }
  const uint32_t xs = (bitsOf(a) ^ bitsOf(b)) & 0x80000000u;
  if (xorsignAbs) {
    a = f32FromBits(bitsOf(a) & 0x7fffffffu);
    b = f32FromBits(bitsOf(b) & 0x7fffffffu);
  }
  const bool na = a != a, nb = b != b;
  if ((na && nb) || (nanMode && (na || nb)))
    return f32FromBits(kCanonicalNaN32);
  float d = na ? b : nb ? a : a == b ? f32FromBits(bitsOf(a) | bitsOf(b)) : (a < b ? a : b);
  if (xorsignAbs)
    d = f32FromBits((bitsOf(d) & 0x7fffffffu) | xs);
  return d;
}
inline double max(double a, double b) {
  const bool na = a != a, nb = b != b;
  if (na && nb)
    return f64FromBits(kCanonicalNaN64);
  return na ? b : nb ? a : a == b ? f64FromBits(bitsOf(a) & bitsOf(b)) : (a > b ? a : b);
}
inline double min(double a, double b) {
  const bool na = a != a, nb = b != b;
  if (na && nb)
    return f64FromBits(kCanonicalNaN64);
  return na ? b : nb ? a : a == b ? f64FromBits(bitsOf(a) | bitsOf(b)) : (a < b ? a : b);
}

inline float abs(float a, bool ftz = false) {
  return f32FromBits(bitsOf(ftz ? flushSubnormal(a) : a) & 0x7fffffffu);
}
inline float neg(float a, bool ftz = false) {
  return f32FromBits(bitsOf(ftz ? flushSubnormal(a) : a) ^ 0x80000000u);
}
inline double abs(double a) {
  return f64FromBits(bitsOf(a) & 0x7fffffffffffffffull);
}
inline double neg(double a) {
  return f64FromBits(bitsOf(a) ^ 0x8000000000000000ull);
}
// copysign d, a, b: the sign of a with the magnitude of b (note the operand order).
inline float copysign(float a, float b) {
  return f32FromBits((bitsOf(a) & 0x80000000u) | (bitsOf(b) & 0x7fffffffu));
}
inline double copysign(double a, double b) {
  return f64FromBits((bitsOf(a) & 0x8000000000000000ull) | (bitsOf(b) & 0x7fffffffffffffffull));
}

// ---------------------------------------------------------------------------------------------------
// testp and setp
// ---------------------------------------------------------------------------------------------------

enum class TestOp : uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal };

template <class T> inline bool testp(TestOp op, T a) {
  switch (op) {
  case TestOp::Finite: return std::isfinite(a);
  case TestOp::Infinite: return std::isinf(a);
  case TestOp::Number: return !std::isnan(a);
  case TestOp::NotANumber: return std::isnan(a);
  case TestOp::Normal: return std::isnormal(a) || a == T(0); // zero counts as normal (ISA)
  case TestOp::Subnormal: return std::fpclassify(a) == FP_SUBNORMAL;
  }
  return false;
}

// Float comparison operators of setp/set (the integer-only lo/ls/hi/hs are not here).
enum class CmpOp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };

template <class T> inline bool compareFloat(CmpOp op, T a, T b) {
  const bool unord = a != a || b != b;
  switch (op) {
  case CmpOp::Eq: return a == b;
  case CmpOp::Ne: return !unord && a != b;
  case CmpOp::Lt: return a < b;
  case CmpOp::Le: return a <= b;
  case CmpOp::Gt: return a > b;
  case CmpOp::Ge: return a >= b;
  case CmpOp::Equ: return unord || a == b;
  case CmpOp::Neu: return a != b;
  case CmpOp::Ltu: return unord || a < b;
  case CmpOp::Leu: return unord || a <= b;
  case CmpOp::Gtu: return unord || a > b;
  case CmpOp::Geu: return unord || a >= b;
  case CmpOp::Num: return !unord;
  case CmpOp::Nan: return unord;
  }
  return false;
}
// setp.CmpOp{.ftz}.f32 (ftz flushes subnormal inputs) and setp.CmpOp.f64.
inline bool setp(CmpOp op, float a, float b, bool ftz = false) {
  return ftz ? compareFloat(op, flushSubnormal(a), flushSubnormal(b)) : compareFloat(op, a, b);
}
inline bool setp(CmpOp op, double a, double b) {
  return compareFloat(op, a, b);
}

} // namespace ptxray::vm::sem
