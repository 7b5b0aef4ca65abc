// f32/f64 PTX floating-point semantics against independent host references: the host FPU with
// std::fesetround and volatile operands for every rounding mode, libm in double/long double for the
// approximations.
#include "vm/semantics/FloatOps.h"

#include <gtest/gtest.h>

#include <cfenv>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace ptxray::vm::sem;
namespace sem = ptxray::vm::sem;

constexpr Rounding kModes[] = {Rounding::Rn, Rounding::Rz, Rounding::Rm, Rounding::Rp};

int hostMode(Rounding r) {
  switch (r) {
  case Rounding::Rz: return FE_TOWARDZERO;
  case Rounding::Rm: return FE_DOWNWARD;
  case Rounding::Rp: return FE_UPWARD;
  default: return FE_TONEAREST;
  }
}

enum class Op { Add, Sub, Mul, Div, Fma, Sqrt };
constexpr Op kOps[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Fma, Op::Sqrt};

template <class T> T hostOp(Op op, T a, T b, T c) {
  volatile T x = a, y = b, z = c;
  volatile T d;
  switch (op) {
  case Op::Add: d = x + y; break;
  case Op::Sub: d = x - y; break;
  case Op::Mul: d = x * y; break;
  case Op::Div: d = x / y; break;
  case Op::Fma: d = std::fma(T(x), T(y), T(z)); break;
  case Op::Sqrt: d = std::sqrt(T(x)); break;
  }
  return d;
}

float ourOp(Op op, float a, float b, float c, Rounding r, bool ftz, bool sat) {
  switch (op) {
  case Op::Add: return add(a, b, r, ftz, sat);
  case Op::Sub: return sub(a, b, r, ftz, sat);
  case Op::Mul: return mul(a, b, r, ftz, sat);
  case Op::Div: return div(a, b, r, ftz);
  case Op::Fma: return fma(a, b, c, r, ftz, sat);
  case Op::Sqrt: return sqrt(a, r, ftz);
  }
  return 0;
}
double ourOp(Op op, double a, double b, double c, Rounding r, bool, bool) {
  switch (op) {
  case Op::Add: return add(a, b, r);
  case Op::Sub: return sub(a, b, r);
  case Op::Mul: return mul(a, b, r);
  case Op::Div: return div(a, b, r);
  case Op::Fma: return fma(a, b, c, r);
  case Op::Sqrt: return sqrt(a, r);
  }
  return 0;
}
// The soft core directly (the .rn path of FloatOps bypasses it), to check it in round-to-nearest too.
template <class T> T softOp(Op op, T a, T b, T c, Rounding r) {
  constexpr Format f = sizeof(T) == 4 ? kF32 : kF64;
  uint64_t x = bitsOf(a), y = bitsOf(b), z = bitsOf(c), d = 0;
  switch (op) {
  case Op::Add: d = soft::add(f, x, y, r); break;
  case Op::Sub: d = soft::sub(f, x, y, r); break;
  case Op::Mul: d = soft::mul(f, x, y, r); break;
  case Op::Div: d = soft::div(f, x, y, r); break;
  case Op::Fma: d = soft::fma(f, x, y, z, r); break;
  case Op::Sqrt: d = soft::sqrt(f, x, r); break;
  }
  if constexpr (sizeof(T) == 4)
    return f32FromBits(static_cast<uint32_t>(d));
  else
    return f64FromBits(d);
}

template <class T> std::vector<T> specialValues() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {T(0),
                      T(1),
                      T(2),
                      T(0.5),
                      T(3),
                      L::denorm_min(),
                      L::min(),
                      L::max(),
                      L::infinity(),
                      L::quiet_NaN(),
                      L::epsilon(),
                      T(1) + L::epsilon(),
                      T(1) - L::epsilon() / 2,
                      std::nextafter(L::min(), T(0)),
                      std::nextafter(L::max(), T(0)),
                      L::min() / 2,
                      std::ldexp(T(1), L::max_exponent - 1),
                      std::ldexp(T(1), L::min_exponent - 2),
                      std::sqrt(L::max()),
                      std::sqrt(L::min()),
                      T(1.5) * L::denorm_min(),
                      std::ldexp(T(1.5), L::min_exponent - L::digits)};
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i)
    v.push_back(-v[i]);
  return v;
}

// A mix of uniformly random bit patterns, values near the other operand (cancellation, ties), tiny and
// huge values, and special values.
template <class T> T randomFloat(std::mt19937_64 &rng, T near) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  static const std::vector<T> specials = specialValues<T>();
  constexpr int digits = std::numeric_limits<T>::digits;
  const unsigned kind = rng() % 8;
  const U r = static_cast<U>(rng());
  switch (kind) {
  case 0: return specials[rng() % specials.size()];
  case 1: // near the other operand, possibly negated: cancellation and exact results
    return std::bit_cast<T>(static_cast<U>(std::bit_cast<U>(near) + (rng() % 9) - 4) ^
                            ((rng() & 1) ? (U{1} << (sizeof(T) * 8 - 1)) : 0));
  case 2: // subnormal or tiny
    return std::ldexp(T(static_cast<int64_t>(r >> 8)),
                      std::numeric_limits<T>::min_exponent - digits - (int)(rng() % 8));
  case 3: // near overflow
    return std::ldexp(T(1) + T(static_cast<double>(r >> 12) * 0x1p-52),
                      std::numeric_limits<T>::max_exponent - 1 - static_cast<int>(rng() % 4)) *
           ((rng() & 1) ? T(1) : T(-1));
  case 4: // few significant bits: exact results and ties
    return std::ldexp(T(static_cast<int64_t>(rng() % 4096) - 2048), static_cast<int>(rng() % 64) - 32);
  default: return std::bit_cast<T>(r);
  }
}

template <class T> bool sameResult(T ours, T ref) {
  if (ref != ref) {
    if constexpr (sizeof(T) == 4)
      return bitsOf(ours) == kCanonicalNaN32;
    else
      return ours != ours;
  }
  return bitsOf(ours) == bitsOf(ref);
}

template <class T> void checkAllModes(int samples, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> as, bs, cs;
  const std::vector<T> sp = specialValues<T>();
  for (T a : sp) // every pair of special values
    for (T b : sp) {
      as.push_back(a);
      bs.push_back(b);
      cs.push_back(sp[rng() % sp.size()]);
    }
  for (int i = 0; i < samples; ++i) {
    const T a = randomFloat<T>(rng, T(1));
    const T b = randomFloat<T>(rng, a);
    T c = randomFloat<T>(rng, a * b);
    as.push_back(a);
    bs.push_back(b);
    cs.push_back(c);
  }
  std::vector<T> ref(as.size());
  long checked = 0;
  for (Op op : kOps)
    for (Rounding r : kModes) {
      const int old = std::fegetround();
      std::fesetround(hostMode(r));
      for (size_t i = 0; i < as.size(); ++i)
        ref[i] = hostOp(op, as[i], bs[i], cs[i]);
      std::fesetround(old);
      for (size_t i = 0; i < as.size(); ++i) {
        const T ours = ourOp(op, as[i], bs[i], cs[i], r, false, false);
        const T viaSoft = softOp(op, as[i], bs[i], cs[i], r);
        if (!sameResult(ours, ref[i]) || !(ref[i] != ref[i] ? viaSoft != viaSoft : bitsOf(viaSoft) == bitsOf(ref[i]))) {
          ADD_FAILURE() << "op " << int(op) << " mode " << int(r) << std::hexfloat << " a=" << as[i] << " b=" << bs[i]
                        << " c=" << cs[i] << " ours=" << ours << " soft=" << viaSoft << " ref=" << ref[i];
          return;
        }
        ++checked;
      }
    }
  EXPECT_GT(checked, samples * 20L);
}

TEST(FloatSemantics, F32AllOpsAllRoundingModesMatchHostFpu) {
  checkAllModes<float>(200000, 1);
}
TEST(FloatSemantics, F64AllOpsAllRoundingModesMatchHostFpu) {
  checkAllModes<double>(200000, 2);
}

// .ftz and .sat: the reference flushes inputs, computes on the host in the mode, flushes a subnormal
// result and clamps.
TEST(FloatSemantics, F32FtzAndSatMatchFlushedHostReference) {
  std::mt19937_64 rng(3);
  auto flushRef = [](float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; };
  const int n = 60000;
  std::vector<float> as(n), bs(n), cs(n), ref(n);
  for (int i = 0; i < n; ++i) {
    as[i] = randomFloat<float>(rng, 1.0f);
    bs[i] = (i % 3 == 0) ? std::ldexp(float(rng() % 1000), -140) : randomFloat<float>(rng, as[i]);
    cs[i] = randomFloat<float>(rng, -as[i] * bs[i]);
  }
  for (Op op : kOps)
    for (Rounding r : kModes)
      for (int sat = 0; sat < 2; ++sat) {
        const bool hasSat = op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Fma;
        if (sat && !hasSat)
          continue;
        const int old = std::fegetround();
        std::fesetround(hostMode(r));
        for (int i = 0; i < n; ++i)
          ref[i] = hostOp(op, flushRef(as[i]), flushRef(bs[i]), flushRef(cs[i]));
        std::fesetround(old);
        for (int i = 0; i < n; ++i) {
          float e = flushRef(ref[i]);
          if (e != e)
            e = f32FromBits(kCanonicalNaN32);
          if (sat)
            e = (e != e || e <= 0.0f) ? 0.0f : std::fmin(e, 1.0f);
          const float ours = ourOp(op, as[i], bs[i], cs[i], r, true, sat != 0);
          if (bitsOf(ours) != bitsOf(e)) {
            ADD_FAILURE() << "op " << int(op) << " mode " << int(r) << " sat " << sat << std::hexfloat << " a=" << as[i]
                          << " b=" << bs[i] << " c=" << cs[i] << " ours=" << ours << " ref=" << e;
            return;
          }
        }
      }
}

TEST(FloatSemantics, OverflowAndUnderflowBoundariesUnderDirectedRounding) {
  const float mx = FLT_MAX;
  EXPECT_EQ(bitsOf(add(mx, mx, Rounding::Rz)), bitsOf(mx));
  EXPECT_EQ(bitsOf(add(mx, mx, Rounding::Rm)), bitsOf(mx));
  EXPECT_TRUE(std::isinf(add(mx, mx, Rounding::Rp)));
  EXPECT_EQ(bitsOf(add(-mx, -mx, Rounding::Rp)), bitsOf(-mx));
  EXPECT_TRUE(std::isinf(add(-mx, -mx, Rounding::Rm)));
  EXPECT_TRUE(std::isinf(add(mx, mx, Rounding::Rn)));
  EXPECT_EQ(bitsOf(mul(DBL_MAX, 2.0, Rounding::Rz)), bitsOf(DBL_MAX));
  EXPECT_EQ(mul(FLT_TRUE_MIN, 0.5f, Rounding::Rp), FLT_TRUE_MIN);
  EXPECT_EQ(bitsOf(mul(-FLT_TRUE_MIN, 0.5f, Rounding::Rp)), 0x80000000u);
  EXPECT_EQ(mul(FLT_TRUE_MIN, 0.5f, Rounding::Rn), 0.0f);          // tie to even
  EXPECT_EQ(mul(FLT_TRUE_MIN, 0.75f, Rounding::Rn), FLT_TRUE_MIN); // above half
  EXPECT_EQ(bitsOf(sub(1.0f, 1.0f, Rounding::Rm)), 0x80000000u);   // exact zero is -0 in .rm
  EXPECT_EQ(bitsOf(sub(1.0f, 1.0f, Rounding::Rp)), 0u);
  EXPECT_EQ(bitsOf(fma(1.0, -1.0, 1.0, Rounding::Rm)), 0x8000000000000000ull);
  EXPECT_EQ(sqrt(FLT_TRUE_MIN, Rounding::Rz), std::sqrt(FLT_TRUE_MIN));
  EXPECT_EQ(div(1.0f, 3.0f, Rounding::Rz), std::nextafter(1.0f / 3.0f, 0.0f)); // RN rounds 1/3 up
  // .ftz flushes a result that is subnormal after rounding, keeping its sign.
  EXPECT_EQ(bitsOf(mul(-FLT_MIN, 0.5f, Rounding::Rn, true)), 0x80000000u);
  // .sat: NaN -> +0, clamp to [0, 1].
  EXPECT_EQ(bitsOf(add(INFINITY, -INFINITY, Rounding::Rn, false, true)), 0u);
  EXPECT_EQ(add(0.75f, 0.75f, Rounding::Rn, false, true), 1.0f);
  EXPECT_EQ(bitsOf(sub(-0.0f, 0.0f, Rounding::Rn, false, true)), 0u);
}

TEST(FloatSemantics, NaNPolicy) {
  const float qnan = f32FromBits(0x7fc01234u), snan = f32FromBits(0xff801234u);
  EXPECT_EQ(bitsOf(add(qnan, 1.0f)), kCanonicalNaN32);
  EXPECT_EQ(bitsOf(mul(snan, 1.0f, Rounding::Rz)), kCanonicalNaN32);
  EXPECT_EQ(bitsOf(sqrt(-1.0f)), kCanonicalNaN32);
  EXPECT_EQ(bitsOf(fma(0.0f, INFINITY, 1.0f, Rounding::Rp)), kCanonicalNaN32);
  const double dq = f64FromBits(0x7ff8000000001234ull), ds = f64FromBits(0xfff0000000001234ull);
  EXPECT_EQ(bitsOf(add(1.0, dq)), bitsOf(dq));
  EXPECT_EQ(bitsOf(mul(ds, dq, Rounding::Rm)), 0xfff8000000001234ull); // first NaN, quieted
  EXPECT_EQ(bitsOf(sub(double(INFINITY), double(INFINITY), Rounding::Rz)), kCanonicalNaN64);
  // Sign-bit operations keep the payload.
  EXPECT_EQ(bitsOf(sem::neg(qnan)), 0xffc01234u);
  EXPECT_EQ(bitsOf(sem::abs(snan)), 0x7f801234u);
  EXPECT_EQ(bitsOf(sem::abs(ds)), 0x7ff0000000001234ull);
  EXPECT_EQ(bitsOf(sem::copysign(-1.0f, qnan)), 0xffc01234u);
  EXPECT_EQ(sem::copysign(-1.0, 2.0), -2.0);
  EXPECT_EQ(bitsOf(sem::neg(FLT_TRUE_MIN, true)), 0x80000000u);
  EXPECT_EQ(bitsOf(sem::abs(-FLT_TRUE_MIN, true)), 0u);
}

TEST(FloatSemantics, MinMax) {
  const float nan = NAN;
  EXPECT_EQ(sem::max(nan, 2.0f), 2.0f);
  EXPECT_EQ(sem::min(3.0f, nan), 3.0f);
  EXPECT_EQ(bitsOf(sem::max(nan, nan)), kCanonicalNaN32);
  EXPECT_EQ(bitsOf(sem::min(nan, 1.0f, false, true)), kCanonicalNaN32);
  EXPECT_EQ(bitsOf(sem::max(-0.0f, 0.0f)), 0u);
  EXPECT_EQ(bitsOf(sem::max(-0.0f, -0.0f)), 0x80000000u);
  EXPECT_EQ(bitsOf(sem::min(0.0f, -0.0f)), 0x80000000u);
  EXPECT_EQ(sem::max(-3.0f, 2.0f, false, false, true), -3.0f); // |-3| > |2|, sign -^+ = -
  EXPECT_EQ(sem::min(-3.0f, -2.0f, false, false, true), 2.0f); // sign - ^ - = +
  EXPECT_EQ(bitsOf(sem::max(nan, nan, false, false, true)), kCanonicalNaN32);
  EXPECT_EQ(bitsOf(sem::max(FLT_TRUE_MIN, -1.0f, true)), 0u);
  EXPECT_EQ(sem::max(1.0, double(NAN)), 1.0);
  EXPECT_EQ(bitsOf(sem::min(double(NAN), double(NAN))), kCanonicalNaN64);
  std::mt19937_64 rng(4);
  for (int i = 0; i < 200000; ++i) {
    const float a = randomFloat<float>(rng, 1.0f), b = randomFloat<float>(rng, a);
    if (a != a || b != b || (a == 0 && b == 0))
      continue;
    ASSERT_EQ(bitsOf(sem::max(a, b)), bitsOf(std::fmax(a, b)));
    ASSERT_EQ(bitsOf(sem::min(a, b)), bitsOf(std::fmin(a, b)));
  }
}

TEST(FloatSemantics, TestpAndSetp) {
  EXPECT_TRUE(testp(TestOp::Normal, 0.0f));
  EXPECT_TRUE(testp(TestOp::Normal, -0.0));
  EXPECT_TRUE(testp(TestOp::Subnormal, FLT_TRUE_MIN));
  EXPECT_FALSE(testp(TestOp::Normal, FLT_TRUE_MIN));
  EXPECT_FALSE(testp(TestOp::Finite, double(INFINITY)));
  EXPECT_TRUE(testp(TestOp::NotANumber, f32FromBits(0xffc00001u)));
  std::mt19937_64 rng(5);
  for (int i = 0; i < 100000; ++i) {
    const double a = randomFloat<double>(rng, 1.0), b = (i & 1) ? a : randomFloat<double>(rng, a);
    ASSERT_EQ(setp(CmpOp::Eq, a, b), a == b);
    ASSERT_EQ(setp(CmpOp::Ne, a, b), std::islessgreater(a, b));
    ASSERT_EQ(setp(CmpOp::Lt, a, b), std::isless(a, b));
    ASSERT_EQ(setp(CmpOp::Le, a, b), std::islessequal(a, b));
    ASSERT_EQ(setp(CmpOp::Gt, a, b), std::isgreater(a, b));
    ASSERT_EQ(setp(CmpOp::Ge, a, b), std::isgreaterequal(a, b));
    const bool u = std::isunordered(a, b);
    ASSERT_EQ(setp(CmpOp::Equ, a, b), u || a == b);
    ASSERT_EQ(setp(CmpOp::Neu, a, b), u || std::islessgreater(a, b));
    ASSERT_EQ(setp(CmpOp::Ltu, a, b), !std::isgreaterequal(a, b));
    ASSERT_EQ(setp(CmpOp::Leu, a, b), !std::isgreater(a, b));
    ASSERT_EQ(setp(CmpOp::Gtu, a, b), !std::islessequal(a, b));
    ASSERT_EQ(setp(CmpOp::Geu, a, b), !std::isless(a, b));
    ASSERT_EQ(setp(CmpOp::Num, a, b), !u);
    ASSERT_EQ(setp(CmpOp::Nan, a, b), u);
    const TestOp ops[] = {TestOp::Finite, TestOp::Infinite, TestOp::Number, TestOp::NotANumber, TestOp::Subnormal};
    const bool want[] = {std::isfinite(a), std::isinf(a), !std::isnan(a), std::isnan(a),
                         std::fpclassify(a) == FP_SUBNORMAL};
    for (int k = 0; k < 5; ++k)
      ASSERT_EQ(testp(ops[k], a), want[k]);
    ASSERT_EQ(testp(TestOp::Normal, a), std::fpclassify(a) == FP_NORMAL || std::fpclassify(a) == FP_ZERO);
  }
  EXPECT_TRUE(setp(CmpOp::Eq, FLT_TRUE_MIN, 0.0f, true)); // .ftz flushes inputs
  EXPECT_FALSE(setp(CmpOp::Eq, FLT_TRUE_MIN, 0.0f));
}

// ---- approximations: max error over sampled ranges, against long double libm ----

struct ErrStats {
  long double maxAbs = 0, maxUlp = 0;
};
template <class F, class R> ErrStats measure(F ours, R ref, float lo, float hi, int n, uint64_t seed, bool ulp) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  ErrStats s;
  for (int i = 0; i < n; ++i) {
    const float x = dist(rng);
    const long double e = ref(static_cast<long double>(x));
    const long double d = std::fabs(static_cast<long double>(ours(x)) - e);
    s.maxAbs = std::max(s.maxAbs, d);
    if (ulp) {
      const float fe = static_cast<float>(e);
      const long double u = std::ldexp(1.0L, std::max(std::ilogb(fe), -126) - 23);
      s.maxUlp = std::max(s.maxUlp, d / u);
    }
  }
  return s;
}

TEST(FloatSemantics, ApproximationsWithinIsaBounds) {
  const int n = 300000;
  auto report = [](const char *name, long double err) {
    std::printf("  %-24s max abs error 2^%.2f\n", name, static_cast<double>(std::log2(err)));
  };
  ErrStats s = measure([](float x) { return sinApprox(x); }, [](long double x) { return std::sin(x); }, 0.0f,
                       1.5707963f, n, 10, false);
  report("sin.approx [0,pi/2]", s.maxAbs);
  EXPECT_LE(s.maxAbs, std::ldexp(1.0L, -21));
  s = measure([](float x) { return sinApprox(x); }, [](long double x) { return std::sin(x); }, -100.0f, 100.0f, n, 11,
              false);
  EXPECT_LE(s.maxAbs, std::ldexp(1.0L, -21));
  s = measure([](float x) { return cosApprox(x); }, [](long double x) { return std::cos(x); }, 0.0f, 1.5707963f, n, 12,
              false);
  report("cos.approx [0,pi/2]", s.maxAbs);
  EXPECT_LE(s.maxAbs, std::ldexp(1.0L, -21));
  s = measure([](float x) { return lg2Approx(x); }, [](long double x) { return std::log2(x); }, 1.0f, 2.0f, n, 13,
              false);
  report("lg2.approx [1,2)", s.maxAbs);
  EXPECT_LE(s.maxAbs, std::exp2(-22.6L));
  s = measure([](float x) { return lg2Approx(x); }, [](long double x) { return std::log2(x); }, 1e-30f, 1e30f, n, 14,
              true);
  EXPECT_LE(s.maxUlp, 0.51L);
  s = measure([](float x) { return ex2Approx(x); }, [](long double x) { return std::exp2(x); }, 0.0f, 1.0f, n, 15,
              false);
  report("ex2.approx [0,1)", s.maxAbs);
  EXPECT_LE(s.maxAbs, std::exp2(-22.5L));
  s = measure([](float x) { return ex2Approx(x); }, [](long double x) { return std::exp2(x); }, -120.0f, 120.0f, n, 16,
              true);
  std::printf("  %-24s max error %.3f ulp\n", "ex2.approx [-120,120]", static_cast<double>(s.maxUlp));
  EXPECT_LE(s.maxUlp, 0.51L);
  s = measure([](float x) { return rsqrtApprox(x); }, [](long double x) { return 1.0L / std::sqrt(x); }, 1.0f, 4.0f, n,
              17, true);
  report("rsqrt.approx [1,4)", s.maxAbs);
  EXPECT_LE(s.maxAbs, std::exp2(-22.4L));
  s = measure([](float x) { return rcpApprox(x); }, [](long double x) { return 1.0L / x; }, 1.0f, 2.0f, n, 18, true);
  report("rcp.approx [1,2)", s.maxAbs);
  EXPECT_LE(s.maxAbs, std::ldexp(1.0L, -23));
  s = measure([](float x) { return tanhApprox(x); }, [](long double x) { return std::tanh(x); }, -10.0f, 10.0f, n, 19,
              true);
  report("tanh.approx [-10,10]", s.maxAbs);
  std::printf("  %-24s max error %.3f ulp\n", "tanh.approx [-10,10]", static_cast<double>(s.maxUlp));
  EXPECT_LE(s.maxUlp, 0.51L);

  // div.approx: <= 2 ulp for |b| in [2^-126, 2^126]; div.full: <= 2 ulp everywhere.
  std::mt19937_64 rng(20);
  long double worstApprox = 0, worstFull = 0;
  for (int i = 0; i < n; ++i) {
    const float a = std::ldexp(1.0f + float(rng() % (1u << 23)) * 0x1p-23f, int(rng() % 200) - 100);
    const float b = std::ldexp(1.0f + float(rng() % (1u << 23)) * 0x1p-23f, int(rng() % 200) - 100);
    const long double e = static_cast<long double>(a) / b;
    if (std::fabs(e) < FLT_MIN || std::fabs(e) > FLT_MAX)
      continue;
    const long double u = std::ldexp(1.0L, std::ilogb(static_cast<float>(e)) - 23);
    worstApprox = std::max(worstApprox, std::fabs(divApprox(a, b) - e) / u);
    worstFull = std::max(worstFull, std::fabs(divFull(a, b) - e) / u);
  }
  std::printf("  %-24s max error %.3f ulp\n  %-24s max error %.3f ulp\n", "div.approx.f32",
              static_cast<double>(worstApprox), "div.full.f32", static_cast<double>(worstFull));
  EXPECT_LE(worstApprox, 2.0L);
  EXPECT_LE(worstFull, 0.5L);

  // rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64: 20 fraction bits, low word zero.
  long double worstRcp64 = 0;
  for (int i = 0; i < n; ++i) {
    const double x = std::ldexp(1.0 + double(rng() >> 12) * 0x1p-52, int(rng() % 2000) - 1000);
    const double r = rcpApproxFtz(x), q = rsqrtApproxFtz(x);
    ASSERT_EQ(bitsOf(r) & 0xffffffffu, 0u);
    ASSERT_EQ(bitsOf(q) & 0xffffffffu, 0u);
    const double hi = f64FromBits(bitsOf(x) & 0xffffffff00000000ull);
    worstRcp64 = std::max(worstRcp64, std::fabs((static_cast<long double>(r) * hi) - 1.0L));
    ASSERT_LE(std::fabs(static_cast<long double>(q) * std::sqrt(static_cast<long double>(hi)) - 1.0L), 0x1p-20L);
  }
  std::printf("  %-24s max rel error 2^%.2f\n", "rcp.approx.ftz.f64", static_cast<double>(std::log2(worstRcp64)));
  EXPECT_LE(worstRcp64, 0x1p-20L);
}

TEST(FloatSemantics, ApproximationCornerCasesWithFtz) {
  const float sub = FLT_TRUE_MIN * 5, inf = INFINITY;
  EXPECT_EQ(bitsOf(sinApprox(-sub, true)), 0x80000000u);
  EXPECT_EQ(bitsOf(sinApprox(-0.0f)), 0x80000000u);
  EXPECT_TRUE(std::isnan(sinApprox(inf)));
  EXPECT_EQ(bitsOf(sinApprox(-inf)), kCanonicalNaN32);
  EXPECT_EQ(cosApprox(-sub, true), 1.0f);
  EXPECT_EQ(lg2Approx(sub, true), -inf);
  EXPECT_EQ(lg2Approx(-0.0f), -inf);
  EXPECT_TRUE(std::isnan(lg2Approx(-inf)));
  EXPECT_EQ(lg2Approx(inf), inf);
  EXPECT_EQ(ex2Approx(-inf), 0.0f);
  EXPECT_EQ(ex2Approx(sub, true), 1.0f);
  EXPECT_EQ(ex2Approx(inf), inf);
  EXPECT_EQ(rsqrtApprox(-sub, true), -inf);
  EXPECT_TRUE(std::isnan(rsqrtApprox(-1.0f)));
  EXPECT_EQ(rsqrtApprox(inf), 0.0f);
  EXPECT_EQ(bitsOf(sqrtApprox(-sub, true)), 0x80000000u);
  EXPECT_TRUE(std::isnan(sqrtApprox(-2.0f)));
  EXPECT_EQ(rcpApprox(-sub, true), -inf);
  EXPECT_EQ(bitsOf(rcpApprox(-inf)), 0x80000000u);
  EXPECT_EQ(tanhApprox(-inf), -1.0f);
  EXPECT_EQ(bitsOf(tanhApprox(-sub)), bitsOf(-sub));
  EXPECT_EQ(bitsOf(rcpApproxFtz(f64FromBits(0x7ff8000000000001ull))), kApproxNaN64);
  EXPECT_EQ(rcpApproxFtz(DBL_TRUE_MIN), double(INFINITY));
  EXPECT_EQ(bitsOf(rcpApproxFtz(-double(INFINITY))), 0x8000000000000000ull);
  EXPECT_EQ(rcpApproxFtz(4.0), 0.25);
  EXPECT_EQ(rsqrtApproxFtz(4.0), 0.5);
  EXPECT_EQ(bitsOf(rsqrtApproxFtz(-4.0)), kApproxNaN64);
  // div.approx: huge divisor flushes the reciprocal; inf / huge is NaN.
  EXPECT_EQ(divApprox(1.0f, 0x1.8p126f), 0.0f);
  EXPECT_TRUE(std::isnan(divApprox(inf, 0x1.8p126f)));
  EXPECT_EQ(divApprox(-2.0f, 0.0f), -inf);
  EXPECT_EQ(divFull(1.0f, 3.0f), 1.0f / 3.0f);
}

} // namespace
