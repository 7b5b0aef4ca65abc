// cvt semantics against independent references: the host FPU under std::fesetround (nearbyintl,
// volatile casts), C++ integer conversions, and consistency of the typed cvt<D, S> with convert().
#include "vm/semantics/Convert.h"

#include "support/HostConversions.h"

#include <gtest/gtest.h>

#include <array>
#include <cfenv>
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <utility>
#include <vector>

namespace {

using namespace ptxray::vm::sem;
using ST = ScalarType;
__extension__ typedef __int128 i128;

constexpr Rounding kModes[] = {Rounding::Rn, Rounding::Rz, Rounding::Rm, Rounding::Rp};
constexpr ST kAll[] = {ST::U8,  ST::U16, ST::U32,  ST::U64,  ST::S8,  ST::S16, ST::S32,
                       ST::S64, ST::F16, ST::BF16, ST::TF32, ST::F32, ST::F64};
constexpr ST kInts[] = {ST::U8, ST::U16, ST::U32, ST::U64, ST::S8, ST::S16, ST::S32, ST::S64};

int hostMode(Rounding r) {
  switch (base(r)) {
  case Rounding::Rz: return FE_TOWARDZERO;
  case Rounding::Rm: return FE_DOWNWARD;
  case Rounding::Rp: return FE_UPWARD;
  default: return FE_TONEAREST;
  }
}

// Table of cvt<D, S> instantiations indexed by [dst][src].
using CvtFn = uint64_t (*)(uint64_t, Rounding, bool, bool, bool, bool);
template <ST D, ST S> uint64_t callCvt(uint64_t a, Rounding r, bool ftz, bool sat, bool relu, bool satf) {
  return cvt<D, S>(a, r, ftz, sat, relu, satf);
}
template <size_t D, size_t... S> constexpr std::array<CvtFn, 13> row(std::index_sequence<S...>) {
  return {&callCvt<kAll[D], kAll[S]>...};
}
template <size_t... D> constexpr std::array<std::array<CvtFn, 13>, 13> makeTable(std::index_sequence<D...>) {
  return {row<D>(std::make_index_sequence<13>{})...};
}
constexpr auto kCvt = makeTable(std::make_index_sequence<13>{});
CvtFn typed(ST d, ST s) {
  return kCvt[static_cast<size_t>(d)][static_cast<size_t>(s)];
}

// Independent integer model with C++ types.
i128 srcInt(uint64_t a, ST t) {
  switch (t) {
  case ST::U8: return static_cast<uint8_t>(a);
  case ST::U16: return static_cast<uint16_t>(a);
  case ST::U32: return static_cast<uint32_t>(a);
  case ST::U64: return a;
  case ST::S8: return static_cast<int8_t>(a);
  case ST::S16: return static_cast<int16_t>(a);
  case ST::S32: return static_cast<int32_t>(a);
  default: return static_cast<int64_t>(a);
  }
}
template <class T> uint64_t enc(T v) {
  if constexpr (std::is_signed_v<T>)
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  else
    return static_cast<uint64_t>(v);
}
template <class T> uint64_t clampEnc(i128 v) {
  const i128 lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  return enc(static_cast<T>(v < lo ? lo : v > hi ? hi : v));
}
uint64_t dstInt(i128 v, ST t, bool sat) {
  switch (t) {
  case ST::U8: return sat ? clampEnc<uint8_t>(v) : enc(static_cast<uint8_t>(v));
  case ST::U16: return sat ? clampEnc<uint16_t>(v) : enc(static_cast<uint16_t>(v));
  case ST::U32: return sat ? clampEnc<uint32_t>(v) : enc(static_cast<uint32_t>(v));
  case ST::U64: return sat ? clampEnc<uint64_t>(v) : enc(static_cast<uint64_t>(v));
  case ST::S8: return sat ? clampEnc<int8_t>(v) : enc(static_cast<int8_t>(v));
  case ST::S16: return sat ? clampEnc<int16_t>(v) : enc(static_cast<int16_t>(v));
  case ST::S32: return sat ? clampEnc<int32_t>(v) : enc(static_cast<int32_t>(v));
  default: return sat ? clampEnc<int64_t>(v) : enc(static_cast<int64_t>(v));
  }
}

uint64_t randomInt(std::mt19937_64 &rng) {
  const uint64_t r = rng();
  switch (rng() % 4) {
  case 0: return r >> (rng() % 64); // all magnitudes
  case 1: return -(r >> (rng() % 64));
  case 2: return (uint64_t{1} << (rng() % 64)) + (rng() % 5) - 2; // near powers of two / limits
  default: return r;
  }
}

TEST(ConvertSemantics, IntToIntAllPairsWithAndWithoutSat) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t a = randomInt(rng);
    for (ST s : kInts)
      for (ST d : kInts)
        for (int sat = 0; sat < 2; ++sat) {
          const uint64_t ref = dstInt(srcInt(a, s), d, sat != 0);
          ASSERT_EQ(convert(a, d, s, Rounding::Rn, false, sat != 0), ref) << a << " " << int(d) << " " << int(s);
          ASSERT_EQ(typed(d, s)(a, Rounding::Rn, false, sat != 0, false, false), ref);
        }
  }
}

template <class T> T randomFloatForInt(std::mt19937_64 &rng) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  switch (rng() % 5) {
  case 0: return std::bit_cast<T>(static_cast<U>(rng()));
  case 1: return T(static_cast<int>(rng() % 2001) - 1000) / T(4); // halves and quarters: ties
  case 2: {                                                       // near the limits of every integer width
    const int k = static_cast<int>(rng() % 65);
    const T v =
        std::ldexp(T(1), k) + T(static_cast<int>(rng() % 7) - 3) * (k > 24 ? std::ldexp(T(1), k - 20) : T(0.25));
    return (rng() & 1) ? -v : v;
  }
  case 3: return T(std::ldexp(double(rng() >> 11), -int(rng() % 80)));
  default: {
    static const T sp[] = {
        T(0),    -T(0),  T(NAN), T(INFINITY), -T(INFINITY),  std::numeric_limits<T>::denorm_min(), T(0.5),
        T(-0.5), T(1.5), T(2.5), T(-2.5),     T(0.49999997), std::numeric_limits<T>::max()};
    return sp[rng() % std::size(sp)];
  }
  }
}

template <class T> void checkFloatToInt(ST s, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int n = 40000;
  std::vector<T> xs(n);
  std::vector<long double> rounded(n);
  for (auto &x : xs)
    x = randomFloatForInt<T>(rng);
  for (Rounding r : kModes) {
    const Rounding ri = toInteger(r);
    const int old = std::fegetround();
    std::fesetround(hostMode(r));
    for (int i = 0; i < n; ++i) {
      volatile long double v = xs[i];
      rounded[i] = std::nearbyintl(v);
    }
    std::fesetround(old);
    for (int i = 0; i < n; ++i) {
      const uint64_t a = sizeof(T) == 4 ? bitsOf(static_cast<float>(xs[i])) : bitsOf(static_cast<double>(xs[i]));
      for (ST d : kInts) {
        uint64_t ref;
        if (xs[i] != xs[i]) {
          ref = 0;
        } else {
          const long double lo =
              static_cast<long double>(static_cast<int64_t>(dstInt(std::numeric_limits<i128>::min(), d, true)));
          const long double hi =
              isSignedInt(d)
                  ? static_cast<long double>(static_cast<int64_t>(dstInt(std::numeric_limits<i128>::max(), d, true)))
                  : static_cast<long double>(dstInt(std::numeric_limits<i128>::max(), d, true));
          const long double v = rounded[i];
          if (v <= (isSignedInt(d) ? lo : 0.0L))
            ref = isSignedInt(d) ? dstInt(std::numeric_limits<i128>::min(), d, true) : 0;
          else if (v >= hi)
            ref = dstInt(std::numeric_limits<i128>::max(), d, true);
          else
            ref = dstInt(v < 0 ? -static_cast<i128>(static_cast<uint64_t>(-v))
                               : static_cast<i128>(static_cast<uint64_t>(v)),
                         d, false);
        }
        ASSERT_EQ(convert(a, d, s, ri), ref) << std::hexfloat << xs[i] << " dst " << int(d) << " mode " << int(r);
        ASSERT_EQ(typed(d, s)(a, ri, false, false, false, false), ref) << std::hexfloat << xs[i] << " dst " << int(d);
        ASSERT_EQ(convert(a, d, s, r), ref); // a plain float rounding is read as the integer rounding
      }
    }
  }
}

TEST(ConvertSemantics, F32ToIntEveryIntegerRoundingSaturates) {
  checkFloatToInt<float>(ST::F32, 2);
}
TEST(ConvertSemantics, F64ToIntEveryIntegerRoundingSaturates) {
  checkFloatToInt<double>(ST::F64, 3);
}

TEST(ConvertSemantics, HalfToIntMatchesViaF32) {
  for (uint32_t b = 0; b < 0x10000; ++b)
    for (Rounding r : kModes)
      for (ST d : {ST::S8, ST::U16, ST::S32, ST::U64}) {
        const Rounding ri = toInteger(r);
        ASSERT_EQ(convert(b, d, ST::F16, ri), convert(bitsOf(toF32<HalfKind::F16>(uint16_t(b))), d, ST::F32, ri));
        ASSERT_EQ(convert(b, d, ST::BF16, ri), convert(uint64_t{b} << 16, d, ST::F32, ri));
        ASSERT_EQ(typed(d, ST::F16)(b, ri, false, false, false, false), convert(b, d, ST::F16, ri));
      }
}

template <class T> T hostIntToFloat(uint64_t a, ST s) {
  if (isSignedInt(s)) {
    volatile int64_t v = static_cast<int64_t>(srcInt(a, s));
    volatile T f = static_cast<T>(v);
    return f;
  }
  volatile T f = ptxray::test::fromUnsigned<T>(static_cast<uint64_t>(srcInt(a, s)));
  return f;
}

TEST(ConvertSemantics, IntToFloatEveryRoundingMode) {
  std::mt19937_64 rng(4);
  const int n = 30000;
  std::vector<uint64_t> as(n);
  for (auto &a : as)
    a = randomInt(rng);
  std::vector<float> rf(n);
  std::vector<double> rd(n);
  for (ST s : kInts)
    for (Rounding r : kModes) {
      const int old = std::fegetround();
      std::fesetround(hostMode(r));
      for (int i = 0; i < n; ++i) {
        rf[i] = hostIntToFloat<float>(as[i], s);
        rd[i] = hostIntToFloat<double>(as[i], s);
      }
      std::fesetround(old);
      for (int i = 0; i < n; ++i) {
        ASSERT_EQ(convert(as[i], ST::F32, s, r), bitsOf(rf[i])) << as[i] << " src " << int(s) << " mode " << int(r);
        ASSERT_EQ(convert(as[i], ST::F64, s, r), bitsOf(rd[i]));
        ASSERT_EQ(typed(ST::F32, s)(as[i], r, false, false, false, false), bitsOf(rf[i]));
        ASSERT_EQ(typed(ST::F64, s)(as[i], r, false, false, false, false), bitsOf(rd[i]));
        // Via an exact double (|v| < 2^53) the half rounding is the one HalfSemanticsTest checks.
        const i128 v = srcInt(as[i], s);
        if (v > -(i128{1} << 53) && v < (i128{1} << 53)) {
          const double dv = static_cast<double>(static_cast<int64_t>(v));
          ASSERT_EQ(convert(as[i], ST::F16, s, r), fromF64<HalfKind::F16>(dv, r));
          ASSERT_EQ(convert(as[i], ST::BF16, s, r), fromF64<HalfKind::BF16>(dv, r));
        }
      }
    }
}

TEST(ConvertSemantics, F64ToF32EveryRoundingModeAndFtz) {
  std::mt19937_64 rng(5);
  const int n = 300000;
  std::vector<double> xs(n);
  for (auto &x : xs) {
    switch (rng() % 4) {
    case 0: x = std::bit_cast<double>(rng()); break;
    case 1: x = std::ldexp(double(rng() >> 11), -int(rng() % 140) - 53 - 100); break; // f32 subnormal range
    case 2: x = std::ldexp(1.0 + double(rng() >> 11) * 0x1p-53, 127 - int(rng() % 3)) * ((rng() & 1) ? 1 : -1); break;
    default: { // f32 ties +-1 ulp of f64
      const float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
      const double t = (f == 0 || !std::isfinite(f)) ? double(f) : double(f) + std::ldexp(1.0, std::ilogb(f) - 24);
      x = (rng() % 3 == 0) ? t : std::nextafter(t, (rng() & 1) ? 0.0 : INFINITY);
    }
    }
  }
  std::vector<float> ref(n);
  for (Rounding r : kModes) {
    const int old = std::fegetround();
    std::fesetround(hostMode(r));
    for (int i = 0; i < n; ++i) {
      volatile double v = xs[i];
      volatile float f = static_cast<float>(v);
      ref[i] = f;
    }
    std::fesetround(old);
    for (int i = 0; i < n; ++i) {
      const uint64_t a = bitsOf(xs[i]);
      uint32_t want = ref[i] != ref[i] ? kCanonicalNaN32 : bitsOf(ref[i]);
      ASSERT_EQ(convert(a, ST::F32, ST::F64, r), want) << std::hexfloat << xs[i] << " mode " << int(r);
      ASSERT_EQ(typed(ST::F32, ST::F64)(a, r, false, false, false, false), want);
      if (std::fpclassify(ref[i]) == FP_SUBNORMAL)
        want &= 0x80000000u;
      ASSERT_EQ(convert(a, ST::F32, ST::F64, r, true), want);
      ASSERT_EQ(typed(ST::F32, ST::F64)(a, r, true, false, false, false), want);
    }
  }
}

TEST(ConvertSemantics, FloatToIntegralFloat) {
  std::mt19937_64 rng(6);
  for (Rounding r : kModes) {
    const Rounding ri = toInteger(r);
    for (int i = 0; i < 100000; ++i) {
      const double x = randomFloatForInt<double>(rng);
      const float f = randomFloatForInt<float>(rng);
      const int old = std::fegetround();
      std::fesetround(hostMode(r));
      volatile double vx = x;
      volatile float vf = f;
      const double rx = std::nearbyint(vx);
      const float rf = std::nearbyintf(vf);
      std::fesetround(old);
      ASSERT_EQ(convert(bitsOf(x), ST::F64, ST::F64, ri), rx != rx ? kCanonicalNaN64 : bitsOf(rx))
          << std::hexfloat << x;
      ASSERT_EQ(convert(bitsOf(f), ST::F32, ST::F32, ri), rf != rf ? kCanonicalNaN32 : bitsOf(rf))
          << std::hexfloat << f;
      ASSERT_EQ(typed(ST::F32, ST::F32)(bitsOf(f), ri, false, false, false, false),
                convert(bitsOf(f), ST::F32, ST::F32, ri));
    }
  }
  for (uint32_t b = 0; b < 0x10000; ++b) { // f16 -> f16 and bf16 -> bf16 integral, via the f32 result
    const float f = toF32<HalfKind::F16>(uint16_t(b));
    const uint64_t viaF32 = convert(bitsOf(f), ST::F32, ST::F32, Rounding::Rni);
    ASSERT_EQ(convert(b, ST::F16, ST::F16, Rounding::Rni), fromF32<HalfKind::F16>(f32FromBits(uint32_t(viaF32))));
  }
  EXPECT_EQ(convert(bitsOf(-0.3f), ST::F32, ST::F32, Rounding::Rni), 0x80000000u); // sign kept
  EXPECT_EQ(convert(bitsOf(FLT_TRUE_MIN), ST::F32, ST::F32, Rounding::Rpi), bitsOf(1.0f));
  EXPECT_EQ(convert(bitsOf(FLT_TRUE_MIN), ST::F32, ST::F32, Rounding::Rpi, true), 0u); // .ftz input
}

TEST(ConvertSemantics, TypedMatchesGenericForEveryPair) {
  std::mt19937_64 rng(7);
  const Rounding modes[] = {Rounding::Rn,  Rounding::Rz,  Rounding::Rm,  Rounding::Rp, Rounding::Rna,
                            Rounding::Rni, Rounding::Rzi, Rounding::Rmi, Rounding::Rpi};
  for (int i = 0; i < 3000; ++i) {
    const uint64_t a = (i & 1) ? rng() : randomInt(rng);
    for (ST d : kAll)
      for (ST s : kAll) {
        const bool sameFloat = isFloatType(d) && isFloatType(s) && bitWidth(d) == bitWidth(s);
        for (Rounding r : modes) {
          if (isInteger(r) && !(isIntType(d) || sameFloat))
            continue;
          const bool ftz = rng() & 1, sat = (rng() & 3) == 0, relu = (rng() & 7) == 0, satf = (rng() & 7) == 0;
          ASSERT_EQ(typed(d, s)(a, r, ftz, sat, relu, satf), convert(a, d, s, r, ftz, sat, relu, satf))
              << std::hex << a << std::dec << " d " << int(d) << " s " << int(s) << " r " << int(r) << " ftz " << ftz
              << " sat " << sat;
        }
      }
  }
}

TEST(ConvertSemantics, ModifiersAndSpecialCases) {
  // f32 -> f64 is exact; NaN gives the canonical f64 NaN.
  EXPECT_EQ(convert(bitsOf(FLT_TRUE_MIN), ST::F64, ST::F32), bitsOf(double(FLT_TRUE_MIN)));
  EXPECT_EQ(convert(bitsOf(FLT_TRUE_MIN), ST::F64, ST::F32, Rounding::Rn, true), 0u);
  EXPECT_EQ(convert(0xffc00001u, ST::F64, ST::F32), kCanonicalNaN64);
  // .ftz applies to f32 inputs only: a subnormal f32 rounded up to f16 vs flushed first.
  EXPECT_EQ(convert(bitsOf(FLT_TRUE_MIN), ST::F16, ST::F32, Rounding::Rp), 0x0001u);
  EXPECT_EQ(convert(bitsOf(FLT_TRUE_MIN), ST::F16, ST::F32, Rounding::Rp, true), 0x0000u);
  EXPECT_EQ(convert(0x0001, ST::F32, ST::F16, Rounding::Rn, true), bitsOf(0x1p-24f)); // f16 input not flushed
  // .sat on float results.
  EXPECT_EQ(convert(bitsOf(1.5), ST::F32, ST::F64, Rounding::Rn, false, true), bitsOf(1.0f));
  EXPECT_EQ(convert(bitsOf(double(NAN)), ST::F32, ST::F64, Rounding::Rn, false, true), 0u);
  EXPECT_EQ(convert(uint64_t(-5), ST::F16, ST::S32, Rounding::Rn, false, true), 0u);
  EXPECT_EQ(convert(bitsOf(-0.0f), ST::F32, ST::F32, Rounding::Rn, false, true), 0u);
  // .relu / .satfinite.
  EXPECT_EQ(convert(bitsOf(-3.0f), ST::BF16, ST::F32, Rounding::Rn, false, false, true), 0u);
  EXPECT_EQ(convert(bitsOf(double(INFINITY)), ST::F16, ST::F64, Rounding::Rz, false, false, false, true), 0x7bffu);
  EXPECT_EQ(convert(uint64_t(100000), ST::F16, ST::U32, Rounding::Rn, false, false, false, true), 0x7bffu);
  EXPECT_EQ(convert(uint64_t(100000), ST::F16, ST::U32, Rounding::Rn), 0x7c00u);
  EXPECT_EQ(convert(uint64_t(100000), ST::F16, ST::U32, Rounding::Rz), 0x7bffu);
  // tf32 (f32 layout, 10 fraction bits).
  EXPECT_EQ(convert(bitsOf(1.0f + 0x1p-11f), ST::TF32, ST::F32, Rounding::Rna), 0x3f802000u); // tie away
  EXPECT_EQ(convert(bitsOf(1.0f + 0x1p-11f), ST::TF32, ST::F32, Rounding::Rn), 0x3f800000u);  // tie to even
  EXPECT_EQ(convert(bitsOf(1.0f + 0x1p-11f), ST::TF32, ST::F32, Rounding::Rz), 0x3f800000u);
  EXPECT_EQ(convert(bitsOf(FLT_MAX), ST::TF32, ST::F32, Rounding::Rna, false, false, false, true), 0x7f7fe000u);
  EXPECT_EQ(convert(bitsOf(FLT_MAX), ST::TF32, ST::F32, Rounding::Rna), 0x7f800000u);
  EXPECT_EQ(convert(0x7fc00000u, ST::TF32, ST::F32, Rounding::Rn), 0x7fffe000u);
  // Sign extension of signed results; source uses the low bits only.
  EXPECT_EQ(convert(0x1ff, ST::S16, ST::S8), 0xffffffffffffffffull);
  EXPECT_EQ(convert(0xff, ST::U32, ST::S8), 0xffffffffu);
  EXPECT_EQ(convert(0xff, ST::U32, ST::S8, Rounding::Rn, false, true), 0u);
  EXPECT_EQ(convert(0x80000000u, ST::S32, ST::U32, Rounding::Rn, false, true), 0x7fffffffu);
  EXPECT_EQ(convert(bitsOf(-1.0f), ST::U32, ST::F32, Rounding::Rzi), 0u);
  EXPECT_EQ(convert(bitsOf(1e20f), ST::S64, ST::F32, Rounding::Rzi), 0x7fffffffffffffffull);
  EXPECT_EQ(convert(bitsOf(-1e20), ST::S8, ST::F64, Rounding::Rni), 0xffffffffffffff80ull);
  EXPECT_EQ(convert(bitsOf(double(NAN)), ST::U64, ST::F64, Rounding::Rzi), 0u);
  EXPECT_EQ(convert(bitsOf(-INFINITY), ST::S32, ST::F32, Rounding::Rmi), 0xffffffff80000000ull);
  EXPECT_EQ((cvt<ST::S32, ST::F32>(bitsOf(2.5f), Rounding::Rni)), 2u);
  EXPECT_EQ((cvt<ST::S32, ST::F32>(bitsOf(-2.5f), Rounding::Rni)), 0xfffffffffffffffeull);
}

TEST(ConvertSemantics, PackSat) {
  EXPECT_EQ(cvtPackSat(16, true, 40000, -40000), 0x7fff8000u);
  EXPECT_EQ(cvtPackSat(16, false, -1, 70000), 0x0000ffffu);
  EXPECT_EQ(cvtPackSat(8, false, 300, -5, 0xabcd), 0xabcdff00u);
  EXPECT_EQ(cvtPackSat(8, true, -200, 5, 0x1), 0x00018005u);
  EXPECT_EQ(cvtPackSat(4, true, 7, -9, 0xffffffffu), 0xffffff78u);
  EXPECT_EQ(cvtPackSat(2, false, 2, 9, 0), 0x0000000bu);
}

} // namespace
