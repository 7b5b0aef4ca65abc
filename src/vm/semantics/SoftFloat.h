// Exact, host-FPU-independent IEEE 754 arithmetic on raw bit patterns, for any binary format up to
// binary64 (f64, f32, f16, bf16, tf32). Every operation computes the exact result as an integer
// significand (128-bit where needed) plus a sticky bit and rounds it once with roundPack, so all
// rounding modes, overflow under directed rounding, and subnormal results are bit-exact.
//
// NaN results are the format's canonical NaN (all exponent and fraction bits set, sign clear:
// 0x7fffffff for f32, 0x7fff for f16/bf16, 0x7fffffffffffffff for f64); callers that want
// another NaN policy test for NaN inputs first.
#pragma once

#include "vm/semantics/Rounding.h"

#include <bit>
#include <cmath>
#include <cstdint>

namespace ptxray::vm::sem {

// A binary floating-point format: number of fraction (stored mantissa) bits and exponent bits.
struct Format {
  int frac;
  int exp;
};
inline constexpr Format kF64{52, 11};
inline constexpr Format kF32{23, 8};
inline constexpr Format kF16{10, 5};
inline constexpr Format kBF16{7, 8};
inline constexpr Format kTF32{10, 8}; // packed in f32 layout by shifting left by 13

namespace soft {

__extension__ typedef unsigned __int128 u128;

constexpr int bias(Format f) {
  return (1 << (f.exp - 1)) - 1;
}
constexpr uint64_t fracMask(Format f) {
  return (uint64_t{1} << f.frac) - 1;
}
constexpr uint64_t expMask(Format f) {
  return ((uint64_t{1} << f.exp) - 1) << f.frac;
}
constexpr uint64_t signBit(Format f) {
  return uint64_t{1} << (f.frac + f.exp);
}
constexpr uint64_t infBits(Format f) {
  return expMask(f);
}
constexpr uint64_t maxFinite(Format f) {
  return expMask(f) - 1;
}
constexpr uint64_t canonicalNaN(Format f) {
  return expMask(f) | fracMask(f);
}
constexpr uint64_t zeroBits(Format f, bool sign) {
  return sign ? signBit(f) : 0;
}
constexpr bool isNaN(Format f, uint64_t b) {
  return (b & expMask(f)) == expMask(f) && (b & fracMask(f)) != 0;
}
constexpr bool isSubnormal(Format f, uint64_t b) {
  return (b & expMask(f)) == 0 && (b & fracMask(f)) != 0;
}
// Sign-preserving flush of a subnormal to zero.
constexpr uint64_t flush(Format f, uint64_t b) {
  return isSubnormal(f, b) ? b & signBit(f) : b;
}

enum class Class : uint8_t { Zero, Finite, Inf, NaN };

// value = (-1)^sign * sig * 2^exp; sig != 0 exactly when cls == Finite.
struct Unpacked {
  bool sign;
  Class cls;
  int exp;
  uint64_t sig;
};

constexpr Unpacked unpack(Format f, uint64_t b) {
  const bool sign = (b & signBit(f)) != 0;
  const uint64_t e = (b & expMask(f)) >> f.frac;
  const uint64_t m = b & fracMask(f);
  if (e == (uint64_t{1} << f.exp) - 1)
    return {sign, m != 0 ? Class::NaN : Class::Inf, 0, 0};
  if (e == 0)
    return m == 0 ? Unpacked{sign, Class::Zero, 0, 0} : Unpacked{sign, Class::Finite, 1 - bias(f) - f.frac, m};
  return {sign, Class::Finite, static_cast<int>(e) - bias(f) - f.frac, m | (uint64_t{1} << f.frac)};
}

// Result of rounding a finite value whose magnitude exceeds the largest finite number.
constexpr uint64_t overflow(Format f, bool sign, Rounding r) {
  bool toInf = true;
  switch (base(r)) {
  case Rounding::Rz: toInf = false; break;
  case Rounding::Rp: toInf = !sign; break;
  case Rounding::Rm: toInf = sign; break;
  default: break;
  }
  return zeroBits(f, sign) | (toInf ? infBits(f) : maxFinite(f));
}

// Whether to increment the truncated magnitude, given where the discarded part lies.
constexpr bool roundUp(Rounding r, bool sign, bool odd, bool above, bool tie, bool inexact) {
  switch (base(r)) {
  case Rounding::Rn: return above || (tie && odd);
  case Rounding::Rna: return above || tie;
  case Rounding::Rz: return false;
  case Rounding::Rp: return inexact && !sign;
  case Rounding::Rm: return inexact && sign;
  default: return above || (tie && odd);
  }
}

// Rounds (-1)^sign * sig * 2^exp to format f. Bit 0 of sig may be a "jammed" sticky bit (set when
// nonzero bits were discarded below it); this is exact provided sig has at least frac + 4 significant
// bits whenever a bit was jammed (all callers keep 63 or 64).
constexpr uint64_t roundPack(Format f, bool sign, uint64_t sig, int exp, Rounding r) {
  if (sig == 0)
    return zeroBits(f, sign);
  const int lz = std::countl_zero(sig);
  sig <<= lz;
  exp -= lz;
  int e = exp + 63; // value in [2^e, 2^(e+1))
  const int emin = 1 - bias(f);
  int shift = 63 - f.frac;
  const bool sub = e < emin;
  if (sub)
    shift += emin - e;
  uint64_t kept;
  bool above, tie, inexact;
  if (shift < 64) {
    const uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    kept = sig >> shift;
    above = rem > half;
    tie = rem == half;
    inexact = rem != 0;
  } else {
    kept = 0;
    above = shift == 64 && sig > (uint64_t{1} << 63);
    tie = shift == 64 && sig == (uint64_t{1} << 63);
    inexact = true;
  }
  kept += roundUp(r, sign, (kept & 1) != 0, above, tie, inexact) ? 1 : 0;
  if (sub) // kept <= 2^frac; a carry into bit frac yields the smallest normal's encoding
    return zeroBits(f, sign) | kept;
  if (kept >> (f.frac + 1)) {
    kept >>= 1;
    ++e;
  }
  const int biased = e + bias(f);
  if (biased >= (1 << f.exp) - 1)
    return overflow(f, sign, r);
  return zeroBits(f, sign) | (static_cast<uint64_t>(biased) << f.frac) | (kept & fracMask(f));
}

constexpr int bitWidth128(u128 v) {
  const uint64_t hi = static_cast<uint64_t>(v >> 64);
  return hi != 0 ? 128 - std::countl_zero(hi) : 64 - std::countl_zero(static_cast<uint64_t>(v));
}

// As roundPack, for a 128-bit significand (bit 0 may be jammed if it has >= 66 significant bits).
constexpr uint64_t roundPack128(Format f, bool sign, u128 sig, int exp, Rounding r) {
  const uint64_t hi = static_cast<uint64_t>(sig >> 64);
  if (hi == 0)
    return roundPack(f, sign, static_cast<uint64_t>(sig), exp, r);
  const int lz = std::countl_zero(hi);
  sig <<= lz;
  exp -= lz;
  const uint64_t top = static_cast<uint64_t>(sig >> 64) | (static_cast<uint64_t>(sig) != 0 ? 1 : 0);
  return roundPack(f, sign, top, exp + 64, r);
}

// Exact sum of two finite-or-zero values x = sx * 2^ex and y = sy * 2^ey (significands up to 120
// bits), rounded once. Both significands are normalized to bit 125, leaving >= 5 zero bits at the
// bottom of the larger one, so jamming the bits shifted out of the smaller one into bit 0 keeps the
// sum strictly inside the same rounding interval as the exact sum.
constexpr uint64_t addExact(Format f, bool signX, u128 sx, int ex, bool signY, u128 sy, int ey, Rounding r) {
  if (sx == 0 && sy == 0)
    return zeroBits(f, signX == signY ? signX : base(r) == Rounding::Rm);
  if (sy == 0)
    return roundPack128(f, signX, sx, ex, r);
  if (sx == 0)
    return roundPack128(f, signY, sy, ey, r);
  int s = 125 - (bitWidth128(sx) - 1);
  sx <<= s;
  ex -= s;
  s = 125 - (bitWidth128(sy) - 1);
  sy <<= s;
  ey -= s;
  if (ex < ey || (ex == ey && sx < sy)) {
    const u128 ts = sx;
    sx = sy;
    sy = ts;
    const int te = ex;
    ex = ey;
    ey = te;
    const bool tg = signX;
    signX = signY;
    signY = tg;
  }
  const int d = ex - ey;
  if (d >= 127) {
    sy = 1;
  } else if (d > 0) {
    const bool lost = (sy & ((u128{1} << d) - 1)) != 0;
    sy = (sy >> d) | (lost ? 1 : 0);
  }
  const u128 z = signX == signY ? sx + sy : sx - sy;
  if (z == 0)
    return zeroBits(f, base(r) == Rounding::Rm);
  return roundPack128(f, signX, z, ex, r);
}

constexpr uint64_t add(Format f, uint64_t a, uint64_t b, Rounding r) {
  const Unpacked x = unpack(f, a), y = unpack(f, b);
  if (x.cls == Class::NaN || y.cls == Class::NaN)
    return canonicalNaN(f);
  if (x.cls == Class::Inf || y.cls == Class::Inf) {
    if (x.cls == Class::Inf && y.cls == Class::Inf && x.sign != y.sign)
      return canonicalNaN(f);
    return zeroBits(f, x.cls == Class::Inf ? x.sign : y.sign) | infBits(f);
  }
  return addExact(f, x.sign, x.sig, x.exp, y.sign, y.sig, y.exp, r);
}

constexpr uint64_t sub(Format f, uint64_t a, uint64_t b, Rounding r) {
  return add(f, a, b ^ signBit(f), r);
}

constexpr uint64_t mul(Format f, uint64_t a, uint64_t b, Rounding r) {
  const Unpacked x = unpack(f, a), y = unpack(f, b);
  const bool sign = x.sign != y.sign;
  if (x.cls == Class::NaN || y.cls == Class::NaN)
    return canonicalNaN(f);
  if (x.cls == Class::Inf || y.cls == Class::Inf) {
    if (x.cls == Class::Zero || y.cls == Class::Zero)
      return canonicalNaN(f);
    return zeroBits(f, sign) | infBits(f);
  }
  if (x.cls == Class::Zero || y.cls == Class::Zero)
    return zeroBits(f, sign);
  return roundPack128(f, sign, static_cast<u128>(x.sig) * y.sig, x.exp + y.exp, r);
}

// a * b + c with a single rounding.
constexpr uint64_t fma(Format f, uint64_t a, uint64_t b, uint64_t c, Rounding r) {
  const Unpacked x = unpack(f, a), y = unpack(f, b), z = unpack(f, c);
  const bool sp = x.sign != y.sign;
  if (x.cls == Class::NaN || y.cls == Class::NaN || z.cls == Class::NaN)
    return canonicalNaN(f);
  const bool pInf = x.cls == Class::Inf || y.cls == Class::Inf;
  if (pInf && (x.cls == Class::Zero || y.cls == Class::Zero))
    return canonicalNaN(f);
  if (pInf) {
    if (z.cls == Class::Inf && z.sign != sp)
      return canonicalNaN(f);
    return zeroBits(f, sp) | infBits(f);
  }
  if (z.cls == Class::Inf)
    return c;
  return addExact(f, sp, static_cast<u128>(x.sig) * y.sig, x.exp + y.exp, z.sign, z.sig, z.exp, r);
}

constexpr uint64_t div(Format f, uint64_t a, uint64_t b, Rounding r) {
  const Unpacked x = unpack(f, a), y = unpack(f, b);
  const bool sign = x.sign != y.sign;
  if (x.cls == Class::NaN || y.cls == Class::NaN)
    return canonicalNaN(f);
  if (x.cls == Class::Inf)
    return y.cls == Class::Inf ? canonicalNaN(f) : zeroBits(f, sign) | infBits(f);
  if (y.cls == Class::Inf)
    return zeroBits(f, sign);
  if (y.cls == Class::Zero)
    return x.cls == Class::Zero ? canonicalNaN(f) : zeroBits(f, sign) | infBits(f);
  if (x.cls == Class::Zero)
    return zeroBits(f, sign);
  const int la = std::countl_zero(x.sig), lb = std::countl_zero(y.sig);
  const uint64_t sa = x.sig << la, sb = y.sig << lb; // both in [2^63, 2^64)
  const u128 n = static_cast<u128>(sa) << 64;
  u128 q = n / sb; // in (2^63, 2^65): at least 64 significant bits
  const u128 rem = n - q * sb;
  q |= rem != 0 ? 1 : 0;
  return roundPack128(f, sign, q, (x.exp - la) - (y.exp - lb) - 64, r);
}

// floor(sqrt(n)) for n < 2^128, exact: a double estimate refined by an integer Newton step and then
// corrected, so the host rounding mode does not matter.
inline uint64_t isqrt128(u128 n) {
  double est = std::sqrt(static_cast<double>(n));
  u128 r = est >= 18446744073709551615.0 ? ~uint64_t{0} : static_cast<u128>(static_cast<uint64_t>(est));
  if (r == 0)
    r = 1;
  r = (r + n / r) >> 1;
  if (r > ~uint64_t{0})
    r = ~uint64_t{0};
  while (r * r > n)
    --r;
  while (r < ~uint64_t{0} && (r + 1) * (r + 1) <= n)
    ++r;
  return static_cast<uint64_t>(r);
}

inline uint64_t sqrt(Format f, uint64_t a, Rounding r) {
  const Unpacked x = unpack(f, a);
  if (x.cls == Class::NaN)
    return canonicalNaN(f);
  if (x.cls == Class::Zero)
    return a;
  if (x.sign)
    return canonicalNaN(f);
  if (x.cls == Class::Inf)
    return a;
  const int lz = std::countl_zero(x.sig);
  const uint64_t s = x.sig << lz;
  int e = x.exp - lz; // value = s * 2^e, s in [2^63, 2^64)
  u128 n;
  if (((e - 64) & 1) == 0) {
    n = static_cast<u128>(s) << 64;
    e -= 64;
  } else {
    n = static_cast<u128>(s) << 63;
    e -= 63;
  }
  uint64_t root = isqrt128(n); // in [2^63, 2^64)
  if (static_cast<u128>(root) * root != n)
    root |= 1; // jam: sqrt(n) lies strictly between root and root + 1
  return roundPack(f, false, root, e / 2, r);
}

// Converts a value of format `from` to format `to`, rounding with r.
constexpr uint64_t convert(Format to, Format from, uint64_t a, Rounding r) {
  const Unpacked x = unpack(from, a);
  switch (x.cls) {
  case Class::NaN: return canonicalNaN(to);
  case Class::Inf: return zeroBits(to, x.sign) | infBits(to);
  case Class::Zero: return zeroBits(to, x.sign);
  default: return roundPack(to, x.sign, x.sig, x.exp, r);
  }
}

// Rounds a finite value to an integer with the direction of r; returns its magnitude, or sets
// `tooBig` when the magnitude is >= 2^64.
constexpr uint64_t roundToIntegerMagnitude(const Unpacked &x, Rounding r, bool &tooBig) {
  tooBig = false;
  if (x.cls != Class::Finite)
    return 0;
  if (x.exp >= 0) {
    if (x.exp + (64 - std::countl_zero(x.sig)) > 64) {
      tooBig = true;
      return 0;
    }
    return x.sig << x.exp;
  }
  const int shift = -x.exp;
  uint64_t kept;
  bool above, tie, inexact;
  if (shift < 64) {
    const uint64_t rem = x.sig & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    kept = x.sig >> shift;
    above = rem > half;
    tie = rem == half;
    inexact = rem != 0;
  } else {
    kept = 0;
    above = shift == 64 && x.sig > (uint64_t{1} << 63);
    tie = shift == 64 && x.sig == (uint64_t{1} << 63);
    inexact = true;
  }
  return kept + (roundUp(r, x.sign, (kept & 1) != 0, above, tie, inexact) ? 1 : 0);
}

// Rounds a value of format f to an integral value in the same format (cvt.rni.f32.f32 etc.).
constexpr uint64_t roundToIntegral(Format f, uint64_t a, Rounding r) {
  const Unpacked x = unpack(f, a);
  if (x.cls == Class::NaN)
    return canonicalNaN(f);
  if (x.cls != Class::Finite || x.exp >= 0)
    return a;
  bool tooBig = false;
  const uint64_t m = roundToIntegerMagnitude(x, r, tooBig);
  return roundPack(f, x.sign, m, 0, Rounding::Rn); // exact; m == 0 gives a signed zero
}

} // namespace soft
} // namespace ptxray::vm::sem
