// Scalar semantics of PTX cvt (and cvt.pack.sat) between {u8..u64, s8..s64, f16, bf16, tf32, f32, f64}.
//
// Values are raw bits: a source uses only its low bitWidth(src) bits (signed integers are sign-extended
// from there); the result is in the low bitWidth(dst) bits, zero-extended, except signed integer results,
// which are sign-extended to 64 bits (cvt sign-extends signed results to the register width). tf32 is
// carried in f32 layout (low 13 bits zero).
//
// Rounding: `convert` is fully soft (SoftFloat.h: exact significand + sticky, one rounding), so every
// mode is exact and independent of the host FPU. The typed `cvt<D, S>` templates take host fast paths
// for the common pairs (int<->int; f32/f64/f16/bf16 -> int with trunc/floor/ceil and an exact
// ties-to-even step; int -> f32/f64 and f64 -> f32 in .rn via host casts, which assumes the host FPU is
// in its default round-to-nearest mode) and fall back to `convert` otherwise.
//
// Rules implemented (ISA "cvt"):
//  * float -> int always saturates: NaN -> 0, out of range -> MIN/MAX of dst. Integer rounding
//    .rni/.rzi/.rmi/.rpi (a plain .rn/.rz/.rm/.rp is read as the matching integer rounding).
//  * int -> int: .sat clamps to the dst range; otherwise truncation / sign or zero extension.
//  * float -> float with an integer rounding (.rni etc.): rounds to an integral value.
//  * .ftz: flushes f32 subnormal inputs and f32 subnormal results only (the ISA restricts .ftz to f32).
//  * .sat on float results (f16, f32, f64): clamp to [+0, 1], NaN -> +0.
//  * .relu (f16/bf16/tf32 results): negative -> +0, NaN -> canonical NaN. .satfinite (f16/bf16/tf32):
//    |x| > MAX_NORM (including inf) -> +-MAX_NORM, NaN stays NaN.
//  * NaN results of float -> float are the destination's canonical NaN: 0x7fffffff (f32), 0x7fff
//    (f16, bf16), 0x7fffe000 (tf32), 0x7fffffffffffffff (f64).
#pragma once

#include "vm/semantics/FloatOps.h"
#include "vm/semantics/Half.h"

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace ptxray::vm::sem {

enum class ScalarType : uint8_t { U8, U16, U32, U64, S8, S16, S32, S64, F16, BF16, TF32, F32, F64 };

constexpr bool isFloatType(ScalarType t) {
  return t >= ScalarType::F16;
}
constexpr bool isIntType(ScalarType t) {
  return t < ScalarType::F16;
}
constexpr bool isSignedInt(ScalarType t) {
  return t >= ScalarType::S8 && t <= ScalarType::S64;
}
constexpr int bitWidth(ScalarType t) {
  switch (t) {
  case ScalarType::U8:
  case ScalarType::S8: return 8;
  case ScalarType::U16:
  case ScalarType::S16:
  case ScalarType::F16:
  case ScalarType::BF16: return 16;
  case ScalarType::U32:
  case ScalarType::S32:
  case ScalarType::F32:
  case ScalarType::TF32: return 32;
  default: return 64;
  }
}
// Arithmetic format of a float type (tf32 is narrowed in its own format but read as f32).
constexpr Format formatOf(ScalarType t) {
  switch (t) {
  case ScalarType::F16: return kF16;
  case ScalarType::BF16: return kBF16;
  case ScalarType::TF32: return kTF32;
  case ScalarType::F64: return kF64;
  default: return kF32;
  }
}

namespace detail {

__extension__ typedef __int128 i128;

constexpr uint64_t lowMask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}
constexpr i128 intMin(ScalarType t) {
  return isSignedInt(t) ? -(i128{1} << (bitWidth(t) - 1)) : 0;
}
constexpr i128 intMax(ScalarType t) {
  return isSignedInt(t) ? (i128{1} << (bitWidth(t) - 1)) - 1 : (i128{1} << bitWidth(t)) - 1;
}
// The integer value of a source register.
constexpr i128 intValue(uint64_t a, ScalarType s) {
  const int n = bitWidth(s);
  a &= lowMask(n);
  if (isSignedInt(s) && n < 64 && (a >> (n - 1)) & 1)
    a |= ~lowMask(n);
  return isSignedInt(s) ? i128{static_cast<int64_t>(a)} : i128{a};
}
// Encodes an in-range integer for dst: low bits, sign-extended to 64 for signed types.
constexpr uint64_t intResult(i128 v, ScalarType d) {
  uint64_t b = static_cast<uint64_t>(v) & lowMask(bitWidth(d));
  const int n = bitWidth(d);
  if (isSignedInt(d) && n < 64 && (b >> (n - 1)) & 1)
    b |= ~lowMask(n);
  return b;
}
constexpr i128 clampInt(i128 v, ScalarType d) {
  return v < intMin(d) ? intMin(d) : v > intMax(d) ? intMax(d) : v;
}

// .sat / .relu / .satfinite / .ftz on a float result in dst's format; returns the dst register bits.
constexpr uint64_t finishFloat(uint64_t b, ScalarType d, bool ftz, bool sat, bool relu, bool satfinite) {
  const Format f = formatOf(d);
  if (soft::isNaN(f, b))
    b = soft::canonicalNaN(f);
  if (ftz && d == ScalarType::F32)
    b = soft::flush(f, b);
  if (sat && (d == ScalarType::F16 || d == ScalarType::F32 || d == ScalarType::F64)) {
    const uint64_t one = uint64_t(soft::bias(f)) << f.frac;
    if (soft::isNaN(f, b) || (b & soft::signBit(f)))
      b = 0;
    else if (b > one)
      b = one;
  }
  if (d == ScalarType::F16 || d == ScalarType::BF16 || d == ScalarType::TF32) {
    if (satfinite && !soft::isNaN(f, b) && (b & ~soft::signBit(f)) == soft::infBits(f))
      b = (b & soft::signBit(f)) | soft::maxFinite(f);
    if (relu && !soft::isNaN(f, b) && (b & soft::signBit(f)))
      b = 0;
  }
  return d == ScalarType::TF32 ? b << 13 : b;
}

} // namespace detail

// Generic cvt on raw bits (see the file comment). `r` is the cvt rounding modifier: a float rounding
// for float results, an integer rounding (.rni ...) for float -> int or float -> float-integral.
inline uint64_t convert(uint64_t a, ScalarType dst, ScalarType src, Rounding r = Rounding::Rn, bool ftz = false,
                        bool sat = false, bool relu = false, bool satfinite = false) {
  using detail::i128;
  if (isIntType(src)) {
    const i128 v = detail::intValue(a, src);
    if (isIntType(dst))
      return detail::intResult(sat ? detail::clampInt(v, dst) : v, dst);
    const bool negative = v < 0;
    const uint64_t mag = static_cast<uint64_t>(negative ? -v : v);
    const uint64_t b = soft::roundPack(formatOf(dst), negative, mag, 0, base(r));
    return detail::finishFloat(b, dst, ftz, sat, relu, satfinite);
  }
  const Format fs = src == ScalarType::TF32 ? kF32 : formatOf(src);
  uint64_t x = a & detail::lowMask(bitWidth(src));
  if (ftz && (src == ScalarType::F32 || src == ScalarType::TF32))
    x = soft::flush(kF32, x);
  if (isIntType(dst)) {
    const soft::Unpacked u = soft::unpack(fs, x);
    if (u.cls == soft::Class::NaN)
      return 0;
    bool tooBig = u.cls == soft::Class::Inf;
    const uint64_t mag = tooBig ? 0 : soft::roundToIntegerMagnitude(u, base(r), tooBig);
    i128 v = tooBig ? (i128{1} << 65) : i128{mag};
    if (u.sign)
      v = -v;
    return detail::intResult(detail::clampInt(v, dst), dst);
  }
  const Format fd = formatOf(dst);
  uint64_t b;
  if (isInteger(r)) {
    b = soft::convert(fd, fs, soft::roundToIntegral(fs, x, base(r)), Rounding::Rn);
  } else {
    b = soft::convert(fd, fs, x, base(r));
  }
  return detail::finishFloat(b, dst, ftz, sat, relu, satfinite);
}

namespace detail {

// Host rounding of a float/double to an integral value in the direction of r (mode-independent:
// trunc/floor/ceil are exact, and x - trunc(x) is exact).
template <class T> inline T roundIntegralHost(T x, Rounding r) {
  switch (base(r)) {
  case Rounding::Rz: return std::trunc(x);
  case Rounding::Rm: return std::floor(x);
  case Rounding::Rp: return std::ceil(x);
  default: {
    const T t = std::trunc(x);
    const T d = std::fabs(x - t);
    const bool away = d > T(0.5) || (d == T(0.5) && (base(r) == Rounding::Rna || std::fmod(t, T(2)) != 0));
    return away ? t + std::copysign(T(1), x) : t;
  }
  }
}

template <ScalarType D, class T> inline uint64_t floatToIntHost(T x, Rounding r) {
  if (x != x)
    return 0;
  const T v = roundIntegralHost(x, r);
  constexpr int n = bitWidth(D);
  constexpr bool sgn = isSignedInt(D);
  const T hiExcl = std::ldexp(T(1), sgn ? n - 1 : n); // exact power of two
  const T lo = sgn ? -hiExcl : T(0);
  if (v >= hiExcl)
    return intResult(intMax(D), D);
  if (v < lo)
    return intResult(intMin(D), D);
  if constexpr (sgn)
    return intResult(static_cast<int64_t>(v), D);
  else
    return static_cast<uint64_t>(v);
}

} // namespace detail

// Typed cvt for one (dst, src) pair, for the VM to instantiate per instruction; same results as
// convert(a, D, S, r, ftz, sat, relu, satfinite).
template <ScalarType D, ScalarType S>
inline uint64_t cvt(uint64_t a, Rounding r = Rounding::Rn, bool ftz = false, bool sat = false, bool relu = false,
                    bool satfinite = false) {
  if constexpr (isIntType(D) && isIntType(S)) {
    const detail::i128 v = detail::intValue(a, S);
    return detail::intResult(sat ? detail::clampInt(v, D) : v, D);
  } else if constexpr (isIntType(D) && (S == ScalarType::F32 || S == ScalarType::TF32)) {
    float x = f32FromBits(static_cast<uint32_t>(a));
    return detail::floatToIntHost<D>(ftz ? flushSubnormal(x) : x, r);
  } else if constexpr (isIntType(D) && S == ScalarType::F64) {
    return detail::floatToIntHost<D>(f64FromBits(a), r);
  } else if constexpr (isIntType(D) && (S == ScalarType::F16 || S == ScalarType::BF16)) {
    constexpr HalfKind k = S == ScalarType::F16 ? HalfKind::F16 : HalfKind::BF16;
    return detail::floatToIntHost<D>(toF32<k>(static_cast<uint16_t>(a)), r);
  } else if constexpr (isIntType(S) && (D == ScalarType::F32 || D == ScalarType::F64)) {
    if (r != Rounding::Rn)
      return convert(a, D, S, r, ftz, sat);
    const detail::i128 v = detail::intValue(a, S);
    using T = std::conditional_t<D == ScalarType::F32, float, double>;
    T x;
    if constexpr (isSignedInt(S))
      x = static_cast<T>(static_cast<int64_t>(v));
    else
      x = static_cast<T>(static_cast<uint64_t>(v));
    if (sat)
      x = saturate(x);
    if constexpr (D == ScalarType::F32)
      return bitsOf(ftz ? flushSubnormal(x) : x); // an integer is never subnormal; kept for symmetry
    else
      return bitsOf(x);
  } else if constexpr (D == ScalarType::F64 && S == ScalarType::F32) {
    if (isInteger(r))
      return convert(a, D, S, r, ftz, sat);
    float x = f32FromBits(static_cast<uint32_t>(a));
    if (ftz)
      x = flushSubnormal(x);
    double d = x != x ? f64FromBits(kCanonicalNaN64) : static_cast<double>(x);
    return bitsOf(sat ? saturate(d) : d);
  } else if constexpr (D == ScalarType::F32 && S == ScalarType::F64) {
    if (r != Rounding::Rn)
      return convert(a, D, S, r, ftz, sat);
    return bitsOf(finishF32(static_cast<float>(f64FromBits(a)), ftz, sat));
  } else {
    return convert(a, D, S, r, ftz, sat, relu, satfinite);
  }
}

// cvt.pack.sat.{u16,s16}.s32 d, a, b and cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b, c: a and b
// are saturated to `bits` wide (un)signed values; b goes to the lowest field, a above it, and for the
// narrow forms the rest of d comes from the low bits of c.
constexpr uint32_t cvtPackSat(int bits, bool isSigned, int32_t a, int32_t b, uint32_t c = 0) {
  const int64_t lo = isSigned ? -(int64_t{1} << (bits - 1)) : 0;
  const int64_t hi = isSigned ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  const uint32_t mask = static_cast<uint32_t>((uint64_t{1} << bits) - 1);
  auto sat = [&](int32_t v) { return static_cast<uint32_t>(v < lo ? lo : v > hi ? hi : v) & mask; };
  const uint32_t td = sat(b) | (sat(a) << bits);
  return bits >= 16 ? td : td | (c << (2 * bits));
}

} // namespace ptxray::vm::sem
