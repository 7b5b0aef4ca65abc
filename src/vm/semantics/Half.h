// Scalar semantics of the PTX half-precision instructions (.f16 .f16x2 .bf16 .bf16x2) and the
// f16/bf16 <-> f32/f64 conversions. Halves are raw 16-bit patterns; x2 types are 32-bit patterns with
// lane 0 in bits [15:0] and lane 1 in bits [31:16].
//
// Exactness: fma, and add/sub/mul in modes other than .rn, are computed by soft:: (SoftFloat.h) directly
// in the half format, which forms the exact result (integer significand + sticky) and rounds once.
// add/sub/mul in .rn go through f32 (see detail::arith2 for why that is exact). Widening f16/bf16 -> f32/f64 is exact
// (bit manipulation); narrowing rounds once with any rounding mode.
//
// NaN policy: arithmetic NaN results are the canonical 0x7fff (.relu also maps NaN to it, as the ISA
// says); neg/abs only touch the sign bit. f16/bf16 -> f32 NaN gives the canonical 0x7fffffff.
#pragma once

#include "vm/semantics/FloatOps.h"

#include <cmath>
#include <cstdint>

namespace ptxray::vm::sem {

enum class HalfKind : uint8_t { F16, BF16 };

template <HalfKind K> inline constexpr Format kHalfFormat = K == HalfKind::F16 ? kF16 : kBF16;
inline constexpr uint16_t kCanonicalNaN16 = 0x7fff;
inline constexpr uint16_t kF16MaxNorm = 0x7bff;
inline constexpr uint16_t kBF16MaxNorm = 0x7f7f;

template <HalfKind K> constexpr bool isNaNH(uint16_t h) {
  return soft::isNaN(kHalfFormat<K>, h);
}
template <HalfKind K> constexpr uint16_t flushH(uint16_t h) {
  return static_cast<uint16_t>(soft::flush(kHalfFormat<K>, h));
}

// ---------------------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------------------

// Exact widening.
template <HalfKind K> inline float toF32(uint16_t h) {
  if constexpr (K == HalfKind::BF16) {
    return isNaNH<K>(h) ? f32FromBits(kCanonicalNaN32) : f32FromBits(uint32_t{h} << 16);
  } else {
    return f32FromBits(static_cast<uint32_t>(soft::convert(kF32, kF16, h, Rounding::Rn)));
  }
}
template <HalfKind K> inline double toF64(uint16_t h) {
  return isNaNH<K>(h) ? f64FromBits(kCanonicalNaN64) : static_cast<double>(toF32<K>(h));
}

// .relu (negative -> +0, NaN -> canonical NaN) and .satfinite (|x| > MAX_NORM -> +-MAX_NORM, NaN stays
// NaN) applied to a rounded half; `inputInf` says the source was infinite.
template <HalfKind K> constexpr uint16_t clampHalf(uint16_t h, bool relu, bool satfinite) {
  constexpr Format f = kHalfFormat<K>;
  if (soft::isNaN(f, h))
    return kCanonicalNaN16;
  if (satfinite && (h & 0x7fff) == soft::infBits(f))
    h = static_cast<uint16_t>((h & 0x8000) | soft::maxFinite(f));
  if (relu && (h & 0x8000))
    h = 0;
  return h;
}

// cvt.frnd{.relu}{.satfinite}.{f16,bf16}.{f32,f64}: one rounding from the source, any mode.
template <HalfKind K>
inline uint16_t fromF32(float x, Rounding r = Rounding::Rn, bool relu = false, bool satfinite = false) {
  return clampHalf<K>(static_cast<uint16_t>(soft::convert(kHalfFormat<K>, kF32, bitsOf(x), r)), relu, satfinite);
}
template <HalfKind K>
inline uint16_t fromF64(double x, Rounding r = Rounding::Rn, bool relu = false, bool satfinite = false) {
  return clampHalf<K>(static_cast<uint16_t>(soft::convert(kHalfFormat<K>, kF64, bitsOf(x), r)), relu, satfinite);
}
// cvt.frnd{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b: a goes to the upper half, b to the lower.
template <HalfKind K>
inline uint32_t fromF32x2(float a, float b, Rounding r = Rounding::Rn, bool relu = false, bool satfinite = false) {
  return (uint32_t{fromF32<K>(a, r, relu, satfinite)} << 16) | fromF32<K>(b, r, relu, satfinite);
}

// ---------------------------------------------------------------------------------------------------
// Arithmetic (.rn is the only rounding the ISA defines; others are accepted and exact too)
// ---------------------------------------------------------------------------------------------------

// Modifiers of half arithmetic: .ftz (f16 only in the ISA), .sat (f16), .relu (fma, f16 and bf16).
struct HalfMods {
  bool ftz = false;
  bool sat = false;
  bool relu = false;
  Rounding rnd = Rounding::Rn;
};

namespace detail {
template <HalfKind K> constexpr uint16_t finishHalf(uint16_t h, const HalfMods &m) {
  constexpr Format f = kHalfFormat<K>;
  if (soft::isNaN(f, h))
    return m.sat ? 0 : kCanonicalNaN16;
  if (m.ftz)
    h = static_cast<uint16_t>(soft::flush(f, h));
  if (m.sat) {
    const uint16_t one = K == HalfKind::F16 ? 0x3c00 : 0x3f80;
    if (h & 0x8000)
      h = 0;
    else if (h > one)
      h = one;
  }
  if (m.relu && (h & 0x8000))
    h = 0;
  return h;
}
template <HalfKind K> constexpr uint16_t inHalf(uint16_t h, const HalfMods &m) {
  return m.ftz ? flushH<K>(h) : h;
}
} // namespace detail

namespace detail {
// Round-to-nearest f32 -> half: bf16 by the carry trick on the bit pattern (same exponent range as
// f32, so subnormals and overflow to inf come out right), f16 through soft::convert.
template <HalfKind K> inline uint16_t roundF32Rn(float x) {
  const uint32_t b = bitsOf(x);
  if constexpr (K == HalfKind::BF16) {
    if (x != x)
      return kCanonicalNaN16;
    return static_cast<uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
  } else {
    return static_cast<uint16_t>(soft::convert(kF16, kF32, b, Rounding::Rn));
  }
}
enum class HOp { Add, Sub, Mul };
// .rn fast path: a*b of two halves is exact in f32 (<= 22 bits), and a+-b rounded to f32 then to the
// half is correctly rounded because 24 >= 2*11+2 (double rounding is innocuous, Figueroa 1995; the
// subnormal ranges of f32 and bf16 coincide, where the sum of two bf16 values is exact in f32).
// Other modes use the exact soft:: path.
template <HalfKind K, HOp O> inline uint16_t arith2(uint16_t a, uint16_t b, const HalfMods &m) {
  a = inHalf<K>(a, m);
  b = inHalf<K>(b, m);
  uint16_t h;
  if (m.rnd == Rounding::Rn) {
    const float x = toF32<K>(a), y = toF32<K>(b);
    h = roundF32Rn<K>(O == HOp::Add ? x + y : O == HOp::Sub ? x - y : x * y);
  } else {
    constexpr Format f = kHalfFormat<K>;
    h = static_cast<uint16_t>(O == HOp::Add   ? soft::add(f, a, b, m.rnd)
                              : O == HOp::Sub ? soft::sub(f, a, b, m.rnd)
                                              : soft::mul(f, a, b, m.rnd));
  }
  return finishHalf<K>(h, m);
}
} // namespace detail

template <HalfKind K> inline uint16_t add(uint16_t a, uint16_t b, const HalfMods &m = {}) {
  return detail::arith2<K, detail::HOp::Add>(a, b, m);
}
template <HalfKind K> inline uint16_t sub(uint16_t a, uint16_t b, const HalfMods &m = {}) {
  return detail::arith2<K, detail::HOp::Sub>(a, b, m);
}
template <HalfKind K> inline uint16_t mul(uint16_t a, uint16_t b, const HalfMods &m = {}) {
  return detail::arith2<K, detail::HOp::Mul>(a, b, m);
}
template <HalfKind K> constexpr uint16_t fma(uint16_t a, uint16_t b, uint16_t c, const HalfMods &m = {}) {
  return detail::finishHalf<K>(
      static_cast<uint16_t>(
          soft::fma(kHalfFormat<K>, detail::inHalf<K>(a, m), detail::inHalf<K>(b, m), detail::inHalf<K>(c, m), m.rnd)),
      m);
}
template <HalfKind K> constexpr uint16_t neg(uint16_t a, bool ftz = false) {
  return static_cast<uint16_t>((ftz ? flushH<K>(a) : a) ^ 0x8000);
}
template <HalfKind K> constexpr uint16_t abs(uint16_t a, bool ftz = false) {
  return static_cast<uint16_t>((ftz ? flushH<K>(a) : a) & 0x7fff);
}

// min/max{.ftz}{.NaN}{.xorsign.abs} with the same rules as f32 (NaN and number -> number, two NaNs ->
// canonical NaN, +0 > -0).
template <HalfKind K>
constexpr uint16_t max(uint16_t a, uint16_t b, bool ftz = false, bool nanMode = false, bool xorsignAbs = false) {
  if (ftz) {
    a = flushH<K>(a);
    b = flushH<K>(b);
  }
  const uint16_t xs = (a ^ b) & 0x8000;
  if (xorsignAbs) {
    a &= 0x7fff;
    b &= 0x7fff;
  }
  const bool na = isNaNH<K>(a), nb = isNaNH<K>(b);
  if ((na && nb) || (nanMode && (na || nb)))
    return kCanonicalNaN16;
  const float fa = toF32<K>(a), fb = toF32<K>(b);
  uint16_t d = na ? b : nb ? a : fa == fb ? static_cast<uint16_t>(a & b) : (fa > fb ? a : b);
  if (xorsignAbs)
    d = static_cast<uint16_t>((d & 0x7fff) | xs);
  return d;
}
template <HalfKind K>
constexpr uint16_t min(uint16_t a, uint16_t b, bool ftz = false, bool nanMode = false, bool xorsignAbs = false) {
  if (ftz) {
    a = flushH<K>(a);
    b = flushH<K>(b);
  }
  const uint16_t xs = (a ^ b) & 0x8000;
  if (xorsignAbs) {
    a &= 0x7fff;
    b &= 0x7fff;
  }
  const bool na = isNaNH<K>(a), nb = isNaNH<K>(b);
  if ((na && nb) || (nanMode && (na || nb)))
    return kCanonicalNaN16;
  const float fa = toF32<K>(a), fb = toF32<K>(b);
  uint16_t d = na ? b : nb ? a : fa == fb ? static_cast<uint16_t>(a | b) : (fa < fb ? a : b);
  if (xorsignAbs)
    d = static_cast<uint16_t>((d & 0x7fff) | xs);
  return d;
}

// setp/set on halves: comparison of the exactly widened values (.ftz flushes subnormal inputs).
template <HalfKind K> inline bool setp(CmpOp op, uint16_t a, uint16_t b, bool ftz = false) {
  if (ftz) {
    a = flushH<K>(a);
    b = flushH<K>(b);
  }
  return compareFloat(op, toF32<K>(a), toF32<K>(b));
}

// ex2.approx{.ftz} and tanh.approx on halves: computed in double and rounded once (<= 0.5 ulp + tiny;
// ISA: tanh abs error 2^-10.987 (f16), 2^-8 (bf16)).
template <HalfKind K> inline uint16_t ex2Approx(uint16_t a, bool ftz = false) {
  if (ftz)
    a = flushH<K>(a);
  const uint16_t h = fromF64<K>(std::exp2(toF64<K>(a)));
  return ftz ? flushH<K>(h) : h;
}
template <HalfKind K> inline uint16_t tanhApprox(uint16_t a) {
  return fromF64<K>(std::tanh(toF64<K>(a)));
}

// ---------------------------------------------------------------------------------------------------
// x2 (SIMD) forms: apply a scalar op to lanes [15:0] and [31:16] independently.
// ---------------------------------------------------------------------------------------------------

template <class Op> constexpr uint32_t lanes2(uint32_t a, Op op) {
  return uint32_t{static_cast<uint16_t>(op(static_cast<uint16_t>(a)))} |
         (uint32_t{static_cast<uint16_t>(op(static_cast<uint16_t>(a >> 16)))} << 16);
}
template <class Op> constexpr uint32_t lanes2(uint32_t a, uint32_t b, Op op) {
  return uint32_t{static_cast<uint16_t>(op(static_cast<uint16_t>(a), static_cast<uint16_t>(b)))} |
         (uint32_t{static_cast<uint16_t>(op(static_cast<uint16_t>(a >> 16), static_cast<uint16_t>(b >> 16)))} << 16);
}
template <class Op> constexpr uint32_t lanes2(uint32_t a, uint32_t b, uint32_t c, Op op) {
  return uint32_t{
             static_cast<uint16_t>(op(static_cast<uint16_t>(a), static_cast<uint16_t>(b), static_cast<uint16_t>(c)))} |
         (uint32_t{static_cast<uint16_t>(
              op(static_cast<uint16_t>(a >> 16), static_cast<uint16_t>(b >> 16), static_cast<uint16_t>(c >> 16)))}
          << 16);
}

template <HalfKind K> inline uint32_t add2(uint32_t a, uint32_t b, const HalfMods &m = {}) {
  return lanes2(a, b, [&](uint16_t x, uint16_t y) { return add<K>(x, y, m); });
}
template <HalfKind K> inline uint32_t sub2(uint32_t a, uint32_t b, const HalfMods &m = {}) {
  return lanes2(a, b, [&](uint16_t x, uint16_t y) { return sub<K>(x, y, m); });
}
template <HalfKind K> inline uint32_t mul2(uint32_t a, uint32_t b, const HalfMods &m = {}) {
  return lanes2(a, b, [&](uint16_t x, uint16_t y) { return mul<K>(x, y, m); });
}
template <HalfKind K> constexpr uint32_t fma2(uint32_t a, uint32_t b, uint32_t c, const HalfMods &m = {}) {
  return lanes2(a, b, c, [&](uint16_t x, uint16_t y, uint16_t z) { return fma<K>(x, y, z, m); });
}
template <HalfKind K> constexpr uint32_t neg2(uint32_t a, bool ftz = false) {
  return lanes2(a, [&](uint16_t x) { return neg<K>(x, ftz); });
}
template <HalfKind K> constexpr uint32_t abs2(uint32_t a, bool ftz = false) {
  return lanes2(a, [&](uint16_t x) { return abs<K>(x, ftz); });
}
template <HalfKind K>
constexpr uint32_t max2(uint32_t a, uint32_t b, bool ftz = false, bool nanMode = false, bool xorsignAbs = false) {
  return lanes2(a, b, [&](uint16_t x, uint16_t y) { return max<K>(x, y, ftz, nanMode, xorsignAbs); });
}
template <HalfKind K>
constexpr uint32_t min2(uint32_t a, uint32_t b, bool ftz = false, bool nanMode = false, bool xorsignAbs = false) {
  return lanes2(a, b, [&](uint16_t x, uint16_t y) { return min<K>(x, y, ftz, nanMode, xorsignAbs); });
}

} // namespace ptxray::vm::sem
