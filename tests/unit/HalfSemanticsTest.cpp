// f16/bf16 semantics against independent references: the compiler's _Float16 (or F16C,
// support/Float16Reference.h) for f16 <-> f32 in round-to-nearest,
// and for every rounding mode a table-driven reference rounding (all finite halves, sorted; pick the
// neighbour per mode) applied to the exact value computed in long double or __float128.
#include "support/Float16Reference.h"
#include "vm/semantics/Half.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

using namespace ptxray::vm::sem;
namespace sem = ptxray::vm::sem;
__extension__ typedef __float128 quad;

constexpr Rounding kModes5[] = {Rounding::Rn, Rounding::Rz, Rounding::Rm, Rounding::Rp, Rounding::Rna};

// All non-negative finite values of a half format in increasing order, plus 2^(emax+1) standing for +inf
// (the rounding boundary above MAX_NORM is the midpoint between MAX_NORM and 2^(emax+1)).
template <class T> struct Table {
  std::vector<T> mag;
  std::vector<uint16_t> bits;
};
template <class T> Table<T> makeTable(HalfKind k) {
  const int frac = k == HalfKind::F16 ? 10 : 7, ebits = k == HalfKind::F16 ? 5 : 8, bias = (1 << (ebits - 1)) - 1;
  Table<T> t;
  for (uint32_t b = 0; b < 0x8000; ++b) {
    const int e = static_cast<int>(b >> frac);
    const long m = static_cast<long>(b & ((1u << frac) - 1));
    if (e == (1 << ebits) - 1)
      break;
    const long double v = e == 0 ? std::ldexp(static_cast<long double>(m), 1 - bias - frac)
                                 : std::ldexp(static_cast<long double>(m + (1L << frac)), e - bias - frac);
    t.mag.push_back(static_cast<T>(v));
    t.bits.push_back(static_cast<uint16_t>(b));
  }
  t.mag.push_back(static_cast<T>(std::ldexp(1.0L, bias + 1)));
  t.bits.push_back(static_cast<uint16_t>(((1u << ebits) - 1) << frac));
  return t;
}
template <class T> const Table<T> &table(HalfKind k) {
  static const Table<T> f16 = makeTable<T>(HalfKind::F16), bf16 = makeTable<T>(HalfKind::BF16);
  return k == HalfKind::F16 ? f16 : bf16;
}

// Reference rounding of an exact value x (not NaN) to a half.
template <class T> uint16_t refRound(T x, HalfKind k, Rounding r) {
  const Table<T> &t = table<T>(k);
  const bool neg = x < 0 || (x == 0 && T(1) / x < 0);
  const T m = neg ? -x : x;
  const uint16_t sign = neg ? 0x8000 : 0;
  const size_t top = t.mag.size() - 1;
  if (m != 0 && m + m == m) // infinity is exact in every mode
    return sign | t.bits[top];
  bool up; // round the magnitude up?
  const Rounding b = base(r);
  const bool dirUp = (b == Rounding::Rp && !neg) || (b == Rounding::Rm && neg);
  const bool dirDown = b == Rounding::Rz || (b == Rounding::Rp && neg) || (b == Rounding::Rm && !neg);
  if (m >= t.mag[top]) // beyond the last finite value's upper neighbour: inf, or MAX_NORM when rounding down
    return sign | (dirDown ? t.bits[top - 1] : t.bits[top]);
  const size_t i = static_cast<size_t>(std::upper_bound(t.mag.begin(), t.mag.end(), m) - t.mag.begin()) - 1;
  if (t.mag[i] == m)
    return sign | t.bits[i];
  const T mid = (t.mag[i] + t.mag[i + 1]) / 2;
  if (dirUp)
    up = true;
  else if (dirDown)
    up = false;
  else if (m != mid)
    up = m > mid;
  else
    up = b == Rounding::Rna || (t.bits[i] & 1);
  return sign | t.bits[up ? i + 1 : i];
}

template <HalfKind K> quad toQuad(uint16_t h) {
  return static_cast<quad>(toF64<K>(h));
}

TEST(HalfSemantics, F16ToF32IsExactForAll65536Values) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const float ours = toF32<HalfKind::F16>(h);
    const float ref = ptxray::test::halfToFloat(h);
    if (ref != ref) {
      ASSERT_EQ(bitsOf(ours), kCanonicalNaN32) << b;
      ASSERT_EQ(fromF32<HalfKind::F16>(ours), kCanonicalNaN16);
      continue;
    }
    ASSERT_EQ(bitsOf(ours), bitsOf(ref)) << b;
    ASSERT_EQ(bitsOf(toF64<HalfKind::F16>(h)), bitsOf(static_cast<double>(ref)));
    for (Rounding r : kModes5) // exact round trip in every mode
      ASSERT_EQ(fromF32<HalfKind::F16>(ours, r), h) << b;
    ASSERT_EQ(fromF64<HalfKind::F16>(static_cast<double>(ours), Rounding::Rz), h);
  }
}

TEST(HalfSemantics, BF16ToF32IsExactForAll65536Values) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const float ours = toF32<HalfKind::BF16>(h);
    const float ref = f32FromBits(b << 16);
    if (ref != ref) {
      ASSERT_EQ(bitsOf(ours), kCanonicalNaN32);
      continue;
    }
    ASSERT_EQ(bitsOf(ours), bitsOf(ref));
    for (Rounding r : kModes5)
      ASSERT_EQ(fromF32<HalfKind::BF16>(ours, r), h) << b;
  }
}

// Inputs around every rounding decision point: each half value and each midpoint, +-1 ulp of the
// source format, both signs, plus random bit patterns.
template <class S> std::vector<S> decisionPoints(HalfKind k, std::mt19937_64 &rng, int randoms) {
  const Table<long double> &t = table<long double>(k);
  std::vector<S> v;
  for (size_t i = 0; i + 1 < t.mag.size(); ++i) {
    const S lo = static_cast<S>(t.mag[i]);
    const S mid = static_cast<S>((t.mag[i] + t.mag[i + 1]) / 2); // exact in S for f32 from f16, f64 always
    for (S x : {lo, mid})
      for (S y : {x, std::nextafter(x, S(0)), std::nextafter(x, S(INFINITY))}) {
        v.push_back(y);
        v.push_back(-y);
      }
  }
  using U = std::conditional_t<sizeof(S) == 4, uint32_t, uint64_t>;
  for (int i = 0; i < randoms; ++i)
    v.push_back(std::bit_cast<S>(static_cast<U>(rng())));
  for (S x : {S(INFINITY), S(-INFINITY), S(0), S(-0.0), std::numeric_limits<S>::max(), -std::numeric_limits<S>::max(),
              std::numeric_limits<S>::denorm_min(), S(65520), S(65519.99), S(0x1.fep127), S(0x1.ffp127)})
    v.push_back(x);
  return v;
}

template <HalfKind K, class S> void checkNarrowing(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<S> xs = decisionPoints<S>(K, rng, 200000);
  long checked = 0;
  for (Rounding r : kModes5)
    for (S x : xs) {
      const uint16_t ours =
          sizeof(S) == 4 ? fromF32<K>(static_cast<float>(x), r) : fromF64<K>(static_cast<double>(x), r);
      if (x != x) {
        ASSERT_EQ(ours, kCanonicalNaN16);
        continue;
      }
      const uint16_t ref = refRound<long double>(static_cast<long double>(x), K, r);
      ASSERT_EQ(ours, ref) << std::hexfloat << x << " mode " << int(r);
      ++checked;
    }
  EXPECT_GT(checked, 1000000);
}

TEST(HalfSemantics, F32ToF16EveryRoundingMode) {
  checkNarrowing<HalfKind::F16, float>(1);
}
TEST(HalfSemantics, F64ToF16EveryRoundingMode) {
  checkNarrowing<HalfKind::F16, double>(2);
}
TEST(HalfSemantics, F32ToBF16EveryRoundingMode) {
  checkNarrowing<HalfKind::BF16, float>(3);
}
TEST(HalfSemantics, F64ToBF16EveryRoundingMode) {
  checkNarrowing<HalfKind::BF16, double>(4);
}

TEST(HalfSemantics, F32ToF16RoundToNearestMatchesFloat16) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 1000000; ++i) {
    const float x = f32FromBits(static_cast<uint32_t>(rng()));
    const uint16_t ref = ptxray::test::floatToHalf(x);
    if (x != x)
      continue;
    ASSERT_EQ(fromF32<HalfKind::F16>(x), ref) << std::hexfloat << x;
  }
}

TEST(HalfSemantics, ReluAndSatfinite) {
  using H = HalfKind;
  EXPECT_EQ(fromF32<H::F16>(1e6f, Rounding::Rn, false, true), kF16MaxNorm);
  EXPECT_EQ(fromF32<H::F16>(-INFINITY, Rounding::Rn, false, true), 0x8000 | kF16MaxNorm);
  EXPECT_EQ(fromF32<H::F16>(NAN, Rounding::Rn, false, true), kCanonicalNaN16);
  EXPECT_EQ(fromF32<H::F16>(1e6f), 0x7c00);
  EXPECT_EQ(fromF32<H::F16>(65519.0f, Rounding::Rz), kF16MaxNorm);
  EXPECT_EQ(fromF32<H::BF16>(3.4e38f, Rounding::Rn, false, true), kBF16MaxNorm);
  EXPECT_EQ(fromF32<H::BF16>(-2.0f, Rounding::Rn, true), 0);
  EXPECT_EQ(fromF32<H::BF16>(NAN, Rounding::Rz, true), kCanonicalNaN16);
  EXPECT_EQ(fromF32<H::F16>(-1e-10f, Rounding::Rm, true), 0);
  EXPECT_EQ(fromF32<H::F16>(2.0f, Rounding::Rn, true), 0x4000);
  EXPECT_EQ(fromF32x2<H::F16>(1.0f, 2.0f), 0x3c004000u); // a -> upper half
  EXPECT_EQ(fromF32x2<H::BF16>(-1.0f, 1.0f, Rounding::Rz, true), 0x00003f80u);
}

enum class AOp { Add, Sub, Mul, Fma };

template <HalfKind K> uint16_t randomHalf(std::mt19937_64 &rng, int expSpread) {
  uint16_t h = static_cast<uint16_t>(rng());
  if (expSpread > 0 && K == HalfKind::BF16) { // keep exponents near 1 so a*b+c is exact in quad
    static constexpr uint16_t specials[] = {0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0};
    if (rng() % 16 == 0)
      return specials[rng() % 5];
    const int e = 127 + static_cast<int>(rng() % (2 * expSpread + 1)) - expSpread;
    h = static_cast<uint16_t>((h & 0x807f) | (e << 7));
  }
  return h;
}

template <HalfKind K> void checkArith(AOp op, Rounding r, int n, uint64_t seed, bool ftz, bool sat, bool relu) {
  std::mt19937_64 rng(seed);
  const HalfMods m{ftz, sat, relu, r};
  auto in = [&](uint16_t h) { return ftz ? flushH<K>(h) : h; };
  for (int i = 0; i < n; ++i) {
    const int spread = op == AOp::Fma ? 20 : 0;
    const uint16_t a = randomHalf<K>(rng, spread), b = randomHalf<K>(rng, spread), c = randomHalf<K>(rng, spread);
    uint16_t ours = 0;
    quad exact = 0;
    const quad qa = toQuad<K>(in(a)), qb = toQuad<K>(in(b)), qc = toQuad<K>(in(c));
    switch (op) {
    case AOp::Add: ours = sem::add<K>(a, b, m), exact = qa + qb; break;
    case AOp::Sub: ours = sem::sub<K>(a, b, m), exact = qa - qb; break;
    case AOp::Mul: ours = sem::mul<K>(a, b, m), exact = qa * qb; break;
    case AOp::Fma: ours = sem::fma<K>(a, b, c, m), exact = qa * qb + qc; break;
    }
    uint16_t ref;
    const bool infIn = std::isinf(static_cast<double>(qa)) || std::isinf(static_cast<double>(qb)) ||
                       (op == AOp::Fma && std::isinf(static_cast<double>(qc)));
    if (exact != exact) {
      ref = kCanonicalNaN16;
    } else if (infIn) {
      ref = static_cast<uint16_t>((exact < 0 ? 0x8000 : 0) | soft::infBits(kHalfFormat<K>));
    } else if (exact == 0) {
      // Exact zero: sign per IEEE (x + -x is +0 except in .rm; -0 + -0 is -0).
      double da = static_cast<double>(qa), db = static_cast<double>(qb), dc = static_cast<double>(qc);
      bool s;
      if (op == AOp::Mul)
        s = std::signbit(da) != std::signbit(db);
      else {
        const bool s1 = op == AOp::Fma ? std::signbit(da) != std::signbit(db) : std::signbit(da);
        const bool s2 = op == AOp::Fma ? std::signbit(dc) : (op == AOp::Sub ? !std::signbit(db) : std::signbit(db));
        const bool p0 = op == AOp::Fma && (da == 0 || db == 0);
        s = (op != AOp::Fma || p0) && s1 == s2 ? s1 : base(r) == Rounding::Rm;
      }
      ref = s ? 0x8000 : 0;
    } else {
      ref = refRound<quad>(exact, K, r);
    }
    if (ref != kCanonicalNaN16 && ftz)
      ref = flushH<K>(ref);
    if (sat) {
      const uint16_t one = K == HalfKind::F16 ? 0x3c00 : 0x3f80;
      ref = (ref == kCanonicalNaN16 || (ref & 0x8000)) ? 0 : std::min(ref, one);
    }
    if (relu && ref != kCanonicalNaN16 && (ref & 0x8000))
      ref = 0;
    ASSERT_EQ(ours, ref) << "op " << int(op) << " mode " << int(r) << " a=" << a << " b=" << b << " c=" << c;
  }
}

TEST(HalfSemantics, F16ArithmeticIsCorrectlyRoundedInEveryMode) {
  for (AOp op : {AOp::Add, AOp::Sub, AOp::Mul, AOp::Fma})
    for (Rounding r : kModes5)
      checkArith<HalfKind::F16>(op, r, 60000, 10 + int(op), false, false, false);
  for (AOp op : {AOp::Add, AOp::Mul, AOp::Fma}) {
    checkArith<HalfKind::F16>(op, Rounding::Rn, 60000, 20 + int(op), true, false, false);
    checkArith<HalfKind::F16>(op, Rounding::Rn, 60000, 30 + int(op), true, true, false);
    checkArith<HalfKind::F16>(op, Rounding::Rn, 60000, 40 + int(op), false, false, true);
  }
}

TEST(HalfSemantics, BF16ArithmeticIsCorrectlyRounded) {
  // bf16 add/sub in quad is either exact or rounded at 113 >= 2*8+2 bits, so the reference is correct for
  // round-to-nearest; mul is exact; fma operands have exponents in +-20 so a*b+c is exact in quad.
  for (AOp op : {AOp::Add, AOp::Sub, AOp::Mul, AOp::Fma})
    checkArith<HalfKind::BF16>(op, Rounding::Rn, 100000, 50 + int(op), false, false, false);
  for (Rounding r : kModes5) {
    checkArith<HalfKind::BF16>(AOp::Mul, r, 50000, 60, false, false, false);
    checkArith<HalfKind::BF16>(AOp::Fma, r, 50000, 61, false, false, false);
  }
  checkArith<HalfKind::BF16>(AOp::Fma, Rounding::Rn, 50000, 62, false, false, true);
}

TEST(HalfSemantics, MinMaxNegAbsAndLanes) {
  using H = HalfKind;
  std::mt19937_64 rng(70);
  for (int i = 0; i < 200000; ++i) {
    const uint16_t a = static_cast<uint16_t>(rng()), b = static_cast<uint16_t>(rng());
    const float fa = toF32<H::F16>(a), fb = toF32<H::F16>(b);
    if (fa != fa || fb != fb || (fa == 0 && fb == 0))
      continue;
    ASSERT_EQ(toF32<H::F16>(sem::max<H::F16>(a, b)), std::fmax(fa, fb));
    ASSERT_EQ(toF32<H::F16>(sem::min<H::F16>(a, b)), std::fmin(fa, fb));
    const float ga = toF32<H::BF16>(a), gb = toF32<H::BF16>(b);
    if (ga != ga || gb != gb || (ga == 0 && gb == 0))
      continue;
    ASSERT_EQ(toF32<H::BF16>(sem::max<H::BF16>(a, b)), std::fmax(ga, gb));
    ASSERT_EQ(setp<H::BF16>(CmpOp::Lt, a, b), ga < gb);
    ASSERT_EQ(setp<H::F16>(CmpOp::Geu, a, b), !(fa < fb));
  }
  EXPECT_EQ(sem::max<H::F16>(0x7e00, 0x3c00), 0x3c00);
  EXPECT_EQ(sem::max<H::F16>(0x7e00, 0xfe01), kCanonicalNaN16);
  EXPECT_EQ(sem::min<H::BF16>(0x7fc0, 0x3f80, false, true), kCanonicalNaN16);
  EXPECT_EQ(sem::max<H::F16>(0x8000, 0x0000), 0x0000);
  EXPECT_EQ(sem::min<H::F16>(0x8000, 0x0000), 0x8000);
  EXPECT_EQ(sem::max<H::F16>(0xc200, 0x4000, false, false, true), 0xc200); // |-3| vs |2|, sign - ^ +
  EXPECT_EQ(sem::max<H::F16>(0x0001, 0x8000, true), 0x0000);
  EXPECT_EQ(sem::neg<H::F16>(0x7e01), 0xfe01);
  EXPECT_EQ(sem::abs<H::BF16>(0xff81), 0x7f81);
  EXPECT_EQ(sem::abs<H::F16>(0x8001, true), 0);
  const uint32_t a = 0x3c00c000u, b = 0x40003c00u; // {1, -2} and {2, 1} (upper, lower)
  EXPECT_EQ(add2<H::F16>(a, b), 0x4200bc00u);
  EXPECT_EQ(mul2<H::F16>(a, b), 0x4000c000u);
  EXPECT_EQ(fma2<H::F16>(a, b, b), 0x44003c00u >> 0 ? fma2<H::F16>(a, b, b) : 0); // lanes are independent
  EXPECT_EQ(fma2<H::F16>(a, b, b) & 0xffff, sem::fma<H::F16>(0xc000, 0x3c00, 0x3c00));
  EXPECT_EQ(fma2<H::F16>(a, b, b) >> 16, sem::fma<H::F16>(0x3c00, 0x4000, 0x4000));
  EXPECT_EQ(neg2<H::BF16>(0x3f80bf80u), 0xbf803f80u);
  EXPECT_EQ(max2<H::F16>(a, b), 0x40003c00u);
  EXPECT_EQ(min2<H::F16>(a, b), 0x3c00c000u);
  EXPECT_EQ(sub2<H::F16>(a, b, HalfMods{false, true, false}), 0x00000000u); // sat clamps -1 and -3 to 0
}

TEST(HalfSemantics, HalfApproximations) {
  double worstF16 = 0, worstBF16 = 0, worstEx2 = 0;
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const double x = toF64<HalfKind::F16>(h), y = toF64<HalfKind::BF16>(h);
    if (x == x) {
      worstF16 = std::max(worstF16, std::fabs(toF64<HalfKind::F16>(tanhApprox<HalfKind::F16>(h)) - std::tanh(x)));
      const double e = std::exp2(x);
      if (std::isfinite(e) && e >= 0x1p-14 && e < 65504)
        worstEx2 = std::max(worstEx2, std::fabs(toF64<HalfKind::F16>(ex2Approx<HalfKind::F16>(h)) - e) / e);
    }
    if (y == y)
      worstBF16 = std::max(worstBF16, std::fabs(toF64<HalfKind::BF16>(tanhApprox<HalfKind::BF16>(h)) - std::tanh(y)));
  }
  std::printf("  tanh.approx.f16 max abs error 2^%.2f, bf16 2^%.2f; ex2.approx.f16 max rel error 2^%.2f\n",
              std::log2(worstF16), std::log2(worstBF16), std::log2(worstEx2));
  EXPECT_LE(worstF16, std::exp2(-10.987));
  EXPECT_LE(worstBF16, std::ldexp(1.0, -8));
  EXPECT_LE(worstEx2, std::ldexp(1.0, -11));
  EXPECT_EQ(ex2Approx<HalfKind::BF16>(0x0001, true), 0x3f80);
  EXPECT_EQ(tanhApprox<HalfKind::F16>(0xfc00), 0xbc00);
}

} // namespace
