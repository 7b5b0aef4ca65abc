// Floating-point instructions run through the VM. Each lane applies one instruction to inputs full of
// edge cases (+-0, +-inf, NaNs, subnormals with and without .ftz, max finite, halfway cases, random
// values from fixed seeds); results are compared with host computations written in this file from the
// PTX ISA (fesetround + volatile for directed rounding, support/Float16Reference.h for f16, round-to-odd for exact
// narrowing), not with src/vm/semantics.
#include "vm/FloatTestSupport.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

namespace ptxray::test::fp {
namespace {

int modeOf(const std::string &rnd) {
  if (rnd == ".rz")
    return FE_TOWARDZERO;
  if (rnd == ".rm")
    return FE_DOWNWARD;
  if (rnd == ".rp")
    return FE_UPWARD;
  return FE_TONEAREST;
}

/// Compares bit patterns; f64 NaN payloads are not checked (`anyNaN64`), nor f32 ones with anyNaN32.
void expectSame(const std::string &what, const std::vector<u64> &got, const std::vector<u64> &want,
                const std::vector<u64> &a, const std::vector<u64> &b = {}, const std::vector<u64> &c = {},
                int nanWidth = 0) {
  ASSERT_EQ(got.size(), want.size());
  int failures = 0;
  for (size_t i = 0; i < got.size() && failures < 8; ++i) {
    bool ok = got[i] == want[i];
    if (!ok && nanWidth == 64)
      ok = std::isnan(D(got[i])) && std::isnan(D(want[i]));
    if (!ok && nanWidth == 32)
      ok = std::isnan(F(static_cast<u32>(got[i]))) && std::isnan(F(static_cast<u32>(want[i])));
    if (!ok) {
      ++failures;
      ADD_FAILURE() << what << ": a=" << hex(a[i]) << (b.empty() ? "" : " b=" + hex(b[i]))
                    << (c.empty() ? "" : " c=" + hex(c[i])) << " got " << hex(got[i]) << " want " << hex(want[i]);
    }
  }
}

u64 fin32(float r, bool ftz, bool sat) {
  if (std::isnan(r))
    return sat ? 0 : 0x7fffffff;
  if (ftz)
    r = flush(r);
  if (sat)
    r = r > 0.0f ? (r < 1.0f ? r : 1.0f) : 0.0f;
  return B(r);
}

// ---------------------------------------------------------------------------------------------
// f32

TEST(FloatOps, F32AddSubMulEveryRoundingFtzSat) {
  std::vector<u64> a, b;
  pairs(f32Edges(), 1500, RandomF32(1), a, b);
  for (std::string op : {"add", "sub", "mul"})
    for (std::string rnd : {"", ".rn", ".rz", ".rm", ".rp"})
      for (bool ftz : {false, true})
        for (bool sat : {false, true}) {
          const std::string inst = op + rnd + (ftz ? ".ftz" : "") + (sat ? ".sat" : "") + ".f32";
          auto got = runKernel(inst + " {d}, {a}, {b};", {32, 32, 32, 0}, a, b);
          std::vector<u64> want;
          for (size_t i = 0; i < a.size(); ++i) {
            float x = F(static_cast<u32>(a[i])), y = F(static_cast<u32>(b[i]));
            if (ftz) {
              x = flush(x);
              y = flush(y);
            }
            volatile float vx = x, vy = y;
            float r = rounded(modeOf(rnd), [&] {
              volatile float t = op == "add" ? vx + vy : op == "sub" ? vx - vy : vx * vy;
              return static_cast<float>(t);
            });
            want.push_back(fin32(r, ftz, sat));
          }
          expectSame(inst, got, want, a, b);
        }
}

std::vector<u64> triples(std::vector<u64> &a, std::vector<u64> &b, std::vector<u64> &c, bool f64) {
  std::vector<u64> e;
  if (f64)
    for (u64 v : f64Edges())
      e.push_back(v);
  else
    for (u32 v : f32Edges())
      e.push_back(v);
  for (size_t i = 0; i < e.size(); ++i)
    for (size_t j = 0; j < e.size(); ++j) {
      a.push_back(e[i]);
      b.push_back(e[j]);
      c.push_back(e[(i * 7 + j * 3) % e.size()]);
    }
  RandomF32 r32(7);
  RandomF64 r64(7);
  for (int i = 0; i < 1500; ++i) {
    u64 x = f64 ? r64() : r32(), y = f64 ? r64() : r32();
    a.push_back(x);
    b.push_back(y);
    // Every third c cancels the rounded product exactly, exposing the fused low part.
    if (i % 3 == 0)
      c.push_back(f64 ? B(-(D(x) * D(y))) : u64{B(-(F(static_cast<u32>(x)) * F(static_cast<u32>(y))))});
    else
      c.push_back(f64 ? r64() : r32());
  }
  return e;
}

TEST(FloatOps, F32FmaAndMad) {
  std::vector<u64> a, b, c;
  triples(a, b, c, false);
  auto check = [&](const std::string &inst, int mode, bool ftz, bool sat, const char *target = "sm_90") {
    auto got = runKernel(inst + " {d}, {a}, {b}, {c};", {32, 32, 32, 32}, a, b, c, target);
    std::vector<u64> want;
    for (size_t i = 0; i < a.size(); ++i) {
      float x = F(static_cast<u32>(a[i])), y = F(static_cast<u32>(b[i])), z = F(static_cast<u32>(c[i]));
      if (ftz) {
        x = flush(x);
        y = flush(y);
        z = flush(z);
      }
      volatile float vx = x, vy = y, vz = z;
      float r = rounded(mode, [&] {
        volatile float t = std::fma(static_cast<float>(vx), static_cast<float>(vy), static_cast<float>(vz));
        return static_cast<float>(t);
      });
      want.push_back(fin32(r, ftz, sat));
    }
    expectSame(inst + " on " + target, got, want, a, b, c);
  };
  for (std::string rnd : {".rn", ".rz", ".rm", ".rp"})
    for (bool ftz : {false, true})
      for (bool sat : {false, true}) {
        const std::string mods = rnd + (ftz ? ".ftz" : "") + (sat ? ".sat" : "") + ".f32";
        check("fma" + mods, modeOf(rnd), ftz, sat);
        if (!sat)
          check("mad" + mods, modeOf(rnd), ftz, sat);
      }
  // mad.f32 without rounding is the sm_1x form, which sm_20+ devices run as fma.rn.ftz.f32 (ISA).
  check("mad.f32", FE_TONEAREST, true, false, "sm_13");
}

TEST(FloatOps, F32DivRcpSqrtIeee) {
  std::vector<u64> a, b;
  pairs(f32Edges(), 1500, RandomF32(3), a, b);
  for (std::string rnd : {".rn", ".rz", ".rm", ".rp"})
    for (bool ftz : {false, true}) {
      const std::string mods = rnd + (ftz ? ".ftz" : "") + ".f32";
      const int mode = modeOf(rnd);
      auto in = [&](u64 v) { return ftz ? flush(F(static_cast<u32>(v))) : F(static_cast<u32>(v)); };
      auto got = runKernel("div" + mods + " {d}, {a}, {b};", {32, 32, 32, 0}, a, b);
      std::vector<u64> want;
      for (size_t i = 0; i < a.size(); ++i) {
        volatile float x = in(a[i]), y = in(b[i]);
        want.push_back(fin32(rounded(mode,
                                     [&] {
                                       volatile float t = x / y;
                                       return static_cast<float>(t);
                                     }),
                             ftz, false));
      }
      expectSame("div" + mods, got, want, a, b);
      for (std::string op : {"rcp", "sqrt"}) {
        got = runKernel(op + mods + " {d}, {a};", {32, 32, 0, 0}, a);
        want.clear();
        for (size_t i = 0; i < a.size(); ++i) {
          volatile float x = in(a[i]);
          want.push_back(fin32(rounded(mode,
                                       [&] {
                                         volatile float t = op == "rcp" ? 1.0f / x : std::sqrt(static_cast<float>(x));
                                         return static_cast<float>(t);
                                       }),
                               ftz, false));
        }
        expectSame(op + mods, got, want, a);
      }
    }
}

/// |got - want| in units of the last place of want (f32).
double ulps(float got, double want) {
  if (want == 0)
    return got == 0 ? 0 : 1e9;
  int e;
  std::frexp(want, &e);
  const double ulp = std::ldexp(1.0, std::max(e - 24, -149));
  return std::fabs(got - want) / ulp;
}

TEST(FloatOps, F32ApproximationsWithinIsaBounds) {
  std::mt19937 rng(11);
  std::vector<u64> a;
  for (int i = 0; i < 2000; ++i) {
    float v = std::ldexp(1.0f + (rng() % 8388608) / 8388608.0f, static_cast<int>(rng() % 60) - 30);
    a.push_back(B(rng() % 2 ? -v : v));
  }
  std::vector<u64> positives;
  for (u64 v : a)
    positives.push_back(v & 0x7fffffff);
  struct Approx {
    std::string inst;
    bool positiveOnly;
    std::function<double(double)> f;
    double bound; // ulps, or absolute error when negative
  };
  std::vector<Approx> cases = {
      {"rcp.approx.f32", false, [](double x) { return 1 / x; }, 1},
      {"rcp.approx.ftz.f32", false, [](double x) { return 1 / x; }, 1},
      {"rcp.f32", false, [](double x) { return 1 / x; }, 1}, // legacy default .approx.ftz
      {"sqrt.approx.f32", true, [](double x) { return std::sqrt(x); }, 1},
      {"sqrt.approx.ftz.f32", true, [](double x) { return std::sqrt(x); }, 1},
      {"rsqrt.approx.f32", true, [](double x) { return 1 / std::sqrt(x); }, 2},
      {"rsqrt.approx.ftz.f32", true, [](double x) { return 1 / std::sqrt(x); }, 2},
      {"ex2.approx.f32", false, [](double x) { return std::exp2(x); }, 2},
      {"ex2.approx.ftz.f32", false, [](double x) { return std::exp2(x); }, 2},
      {"lg2.approx.f32", true, [](double x) { return std::log2(x); }, -std::ldexp(1.0, -22)},
      {"lg2.approx.ftz.f32", true, [](double x) { return std::log2(x); }, -std::ldexp(1.0, -22)},
      {"sin.approx.f32", false, [](double x) { return std::sin(x); }, -std::exp2(-20.5)},
      {"sin.approx.ftz.f32", false, [](double x) { return std::sin(x); }, -std::exp2(-20.5)},
      {"cos.approx.f32", false, [](double x) { return std::cos(x); }, -std::exp2(-20.5)},
      {"cos.approx.ftz.f32", false, [](double x) { return std::cos(x); }, -std::exp2(-20.5)},
      {"tanh.approx.f32", false, [](double x) { return std::tanh(x); }, -1},
  };
  for (const Approx &c : cases) {
    const std::vector<u64> &in = c.positiveOnly ? positives : a;
    std::vector<u64> x = in;
    if (c.inst.starts_with("ex2"))
      for (u64 &v : x)
        v = B(std::fmod(F(static_cast<u32>(v)), 100.0f)); // keep results normal
    if (c.inst.starts_with("sin") || c.inst.starts_with("cos"))
      for (u64 &v : x)
        v = B(std::fmod(F(static_cast<u32>(v)), 314.0f));
    auto got = runKernel(c.inst + " {d}, {a};", {32, 32, 0, 0}, x);
    int failures = 0;
    for (size_t i = 0; i < x.size() && failures < 5; ++i) {
      const double want = c.f(F(static_cast<u32>(x[i])));
      const float g = F(static_cast<u32>(got[i]));
      bool ok;
      if (c.inst.starts_with("tanh"))
        ok = std::fabs(g - want) <= std::ldexp(std::fabs(want), -11) + 1e-30;
      else if (c.bound < 0)
        ok = std::fabs(g - want) <= -c.bound + std::ldexp(std::fabs(want), -22);
      else
        ok = ulps(g, want) <= c.bound;
      if (!ok) {
        ++failures;
        ADD_FAILURE() << c.inst << " " << F(static_cast<u32>(x[i])) << " got " << g << " want " << want;
      }
    }
  }
  // Special values (ISA tables).
  const std::vector<u64> s = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x00000001, 0x80000001};
  auto special = [&](const std::string &inst, std::vector<u64> want) {
    expectSame(inst, runKernel(inst + " {d}, {a};", {32, 32, 0, 0}, s), want, s, {}, {}, 32);
  };
  const u64 nan = 0x7fffffff, inf = 0x7f800000, ninf = 0xff800000, one = 0x3f800000;
  special("rcp.approx.ftz.f32", {inf, ninf, 0, 0x80000000, nan, inf, ninf});
  special("sqrt.approx.ftz.f32", {0, 0x80000000, inf, nan, nan, 0, 0x80000000});
  special("rsqrt.approx.ftz.f32", {inf, ninf, 0, nan, nan, inf, ninf});
  special("lg2.approx.ftz.f32", {ninf, ninf, inf, nan, nan, ninf, ninf});
  special("ex2.approx.ftz.f32", {one, one, inf, 0, nan, one, one});
  special("sin.approx.ftz.f32", {0, 0x80000000, nan, nan, nan, 0, 0x80000000});
  special("cos.approx.ftz.f32", {one, one, nan, nan, nan, one, one});
  special("tanh.approx.f32", {0, 0x80000000, one, 0xbf800000, nan, 1, 0x80000001});
}

TEST(FloatOps, F32DivApproxAndFull) {
  std::mt19937 rng(5);
  std::vector<u64> a, b;
  for (int i = 0; i < 2000; ++i) {
    auto v = [&] {
      float f = std::ldexp(1.0f + (rng() % 8388608) / 8388608.0f, static_cast<int>(rng() % 120) - 60);
      return B(rng() % 2 ? -f : f);
    };
    a.push_back(v());
    b.push_back(v());
  }
  for (std::string inst : {"div.approx.f32", "div.approx.ftz.f32", "div.full.f32", "div.full.ftz.f32", "div.f32"}) {
    auto got = runKernel(inst + " {d}, {a}, {b};", {32, 32, 32, 0}, a, b);
    int failures = 0;
    for (size_t i = 0; i < a.size() && failures < 5; ++i) {
      const double want = static_cast<double>(F(static_cast<u32>(a[i]))) / F(static_cast<u32>(b[i]));
      if (ulps(F(static_cast<u32>(got[i])), want) > 2) {
        ++failures;
        ADD_FAILURE() << inst << " " << hex(a[i]) << "/" << hex(b[i]) << " got " << hex(got[i]);
      }
    }
  }
  // Subnormal inputs and results are flushed; 0/0 and inf/inf are NaN; x/0 is inf.
  const std::vector<u64> x = {0x00000001, 0x3f800000, 0x00000000, 0x7f800000, 0x3f800000, 0x00800000};
  const std::vector<u64> y = {0x3f800000, 0x00000001, 0x00000000, 0x7f800000, 0x80000000, 0x40000000};
  const std::vector<u64> want = {0x00000000, 0x7f800000, 0x7fffffff, 0x7fffffff, 0xff800000, 0x00000000};
  for (std::string inst : {"div.approx.f32", "div.full.f32", "div.f32"})
    expectSame(inst, runKernel(inst + " {d}, {a}, {b};", {32, 32, 32, 0}, x, y), want, x, y, {}, 32);
}

TEST(FloatOps, F32SignMinMaxCopysign) {
  std::vector<u64> a, b;
  pairs(f32Edges(), 800, RandomF32(9), a, b);
  auto isnan32 = [](u64 v) { return std::isnan(F(static_cast<u32>(v))); };
  auto fl = [](u64 v, bool ftz) -> u32 {
    u32 x = static_cast<u32>(v);
    return ftz && (x & 0x7f800000) == 0 ? x & 0x80000000 : x;
  };
  for (bool ftz : {false, true}) {
    const std::string f = ftz ? ".ftz" : "";
    std::vector<u64> wantAbs, wantNeg;
    for (u64 v : a) {
      wantAbs.push_back(fl(v, ftz) & 0x7fffffff);
      wantNeg.push_back(fl(v, ftz) ^ 0x80000000);
    }
    expectSame("abs" + f, runKernel("abs" + f + ".f32 {d}, {a};", {32, 32, 0, 0}, a), wantAbs, a);
    expectSame("neg" + f, runKernel("neg" + f + ".f32 {d}, {a};", {32, 32, 0, 0}, a), wantNeg, a);
    for (bool isMax : {false, true})
      for (bool nanMode : {false, true})
        for (bool xs : {false, true}) {
          const std::string inst =
              std::string(isMax ? "max" : "min") + f + (nanMode ? ".NaN" : "") + (xs ? ".xorsign.abs" : "") + ".f32";
          std::vector<u64> want;
          for (size_t i = 0; i < a.size(); ++i) {
            u32 x = fl(a[i], ftz), y = fl(b[i], ftz);
            const u32 sign = (x ^ y) & 0x80000000;
            if (xs) {
              x &= 0x7fffffff;
              y &= 0x7fffffff;
            }
            u32 r;
            if ((isnan32(x) && isnan32(y)) || (nanMode && (isnan32(x) || isnan32(y))))
              r = 0x7fffffff;
            else if (isnan32(x))
              r = y;
            else if (isnan32(y))
              r = x;
            else {
              const float fx = F(x), fy = F(y);
              if (fx == fy) // +0 > -0
                r = isMax ? (x & y) : (x | y);
              else
                r = (isMax ? fx > fy : fx < fy) ? x : y;
            }
            if (xs && !isnan32(r))
              r = (r & 0x7fffffff) | sign;
            want.push_back(r);
          }
          expectSame(inst, runKernel(inst + " {d}, {a}, {b};", {32, 32, 32, 0}, a, b), want, a, b);
        }
  }
  std::vector<u64> want;
  for (size_t i = 0; i < a.size(); ++i)
    want.push_back((a[i] & 0x80000000) | (b[i] & 0x7fffffff));
  expectSame("copysign.f32", runKernel("copysign.f32 {d}, {a}, {b};", {32, 32, 32, 0}, a, b), want, a, b);
}

TEST(FloatOps, TestpEveryPropertyF32F64) {
  std::vector<u64> a32, a64;
  for (u32 v : f32Edges())
    a32.push_back(v);
  for (u64 v : f64Edges())
    a64.push_back(v);
  const char *props[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
  for (const char *p : props) {
    auto pred = [&](auto x) {
      const std::string s = p;
      if (s == "finite")
        return std::isfinite(x);
      if (s == "infinite")
        return std::isinf(x);
      if (s == "number")
        return !std::isnan(x);
      if (s == "notanumber")
        return std::isnan(x);
      if (s == "normal")
        return std::isnormal(x) || x == 0; // zero counts as normal (ISA)
      return std::fpclassify(x) == FP_SUBNORMAL;
    };
    std::vector<u64> w32, w64;
    for (u64 v : a32)
      w32.push_back(pred(F(static_cast<u32>(v))) ? 1 : 0);
    for (u64 v : a64)
      w64.push_back(pred(D(v)) ? 1 : 0);
    const std::string body = std::string("testp.") + p;
    expectSame(body + ".f32", runKernel(body + ".f32 %p1, {a}; selp.u32 {d}, 1, 0, %p1;", {32, 32, 0, 0}, a32), w32,
               a32);
    expectSame(body + ".f64", runKernel(body + ".f64 %p1, {a}; selp.u32 {d}, 1, 0, %p1;", {32, 64, 0, 0}, a64), w64,
               a64);
  }
}

// ---------------------------------------------------------------------------------------------
// f64

TEST(FloatOps, F64ArithmeticEveryRounding) {
  std::vector<u64> a, b, c;
  triples(a, b, c, true);
  for (std::string rnd : {"", ".rn", ".rz", ".rm", ".rp"}) {
    const int mode = modeOf(rnd);
    for (std::string op : {"add", "sub", "mul", "div", "fma", "mad", "rcp", "sqrt"}) {
      const bool three = op == "fma" || op == "mad", one = op == "rcp" || op == "sqrt";
      if (rnd.empty() && (op == "fma" || op == "rcp" || op == "sqrt" || op == "div"))
        continue; // rounding required (legacy defaults need PTX <= 1.3)
      const std::string inst = op + rnd + ".f64";
      const std::string body = inst + (one ? " {d}, {a};" : three ? " {d}, {a}, {b}, {c};" : " {d}, {a}, {b};");
      auto got = runKernel(body, {64, 64, one ? 0 : 64, three ? 64 : 0}, a, b, c);
      std::vector<u64> want;
      for (size_t i = 0; i < a.size(); ++i) {
        volatile double x = D(a[i]), y = D(b[i]), z = D(c[i]);
        want.push_back(B(rounded(mode, [&] {
          volatile double t = op == "add"   ? x + y
                              : op == "sub" ? x - y
                              : op == "mul" ? x * y
                              : op == "div" ? x / y
                              : three ? std::fma(static_cast<double>(x), static_cast<double>(y), static_cast<double>(z))
                              : op == "rcp" ? 1.0 / x
                                            : std::sqrt(static_cast<double>(x));
          return static_cast<double>(t);
        })));
      }
      expectSame(inst, got, want, a, b, c, 64);
    }
  }
}

TEST(FloatOps, F64SignMinMaxAndApproximations) {
  std::vector<u64> a, b;
  pairs(f64Edges(), 500, RandomF64(4), a, b);
  std::vector<u64> wAbs, wNeg, wMin, wMax, wCs;
  for (size_t i = 0; i < a.size(); ++i) {
    wAbs.push_back(a[i] & 0x7fffffffffffffff);
    wNeg.push_back(a[i] ^ 0x8000000000000000);
    wCs.push_back((a[i] & 0x8000000000000000) | (b[i] & 0x7fffffffffffffff));
    const double x = D(a[i]), y = D(b[i]);
    auto pick = [&](bool isMax) -> u64 {
      if (std::isnan(x) && std::isnan(y))
        return 0x7fffffffffffffff;
      if (std::isnan(x))
        return b[i];
      if (std::isnan(y))
        return a[i];
      if (x == y)
        return isMax ? (a[i] & b[i]) : (a[i] | b[i]);
      return (isMax ? x > y : x < y) ? a[i] : b[i];
    };
    wMin.push_back(pick(false));
    wMax.push_back(pick(true));
  }
  expectSame("abs.f64", runKernel("abs.f64 {d}, {a};", {64, 64, 0, 0}, a), wAbs, a);
  expectSame("neg.f64", runKernel("neg.f64 {d}, {a};", {64, 64, 0, 0}, a), wNeg, a);
  expectSame("min.f64", runKernel("min.f64 {d}, {a}, {b};", {64, 64, 64, 0}, a, b), wMin, a, b, {}, 64);
  expectSame("max.f64", runKernel("max.f64 {d}, {a}, {b};", {64, 64, 64, 0}, a, b), wMax, a, b, {}, 64);
  expectSame("copysign.f64", runKernel("copysign.f64 {d}, {a}, {b};", {64, 64, 64, 0}, a, b), wCs, a, b);

  std::mt19937_64 rng(8);
  std::vector<u64> x;
  for (int i = 0; i < 1000; ++i)
    x.push_back(B(std::ldexp(1.0 + (rng() % (1ull << 52)) / 4503599627370496.0, static_cast<int>(rng() % 400) - 200)));
  struct Case {
    const char *inst;
    bool rsqrt;
    double rel;
  };
  for (Case c : {Case{"rcp.approx.ftz.f64", false, std::ldexp(1.0, -20)}, Case{"rsqrt.approx.f64", true, 1e-15},
                 Case{"rsqrt.approx.ftz.f64", true, std::ldexp(1.0, -20)}}) {
    auto got = runKernel(std::string(c.inst) + " {d}, {a};", {64, 64, 0, 0}, x);
    for (size_t i = 0; i < x.size(); ++i) {
      // The .ftz forms use only the upper word of a (1.11.20) and return 20 fraction bits (ISA).
      const double in =
          std::string(c.inst).find("ftz") != std::string::npos ? D(x[i] & 0xffffffff00000000ull) : D(x[i]);
      const double want = c.rsqrt ? 1 / std::sqrt(in) : 1 / in;
      ASSERT_LE(std::fabs(D(got[i]) - want), c.rel * std::fabs(want)) << c.inst << " " << D(x[i]);
    }
  }
  // rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64 leave the low word of the result zero (ISA).
  auto got = runKernel("rcp.approx.ftz.f64 {d}, {a};", {64, 64, 0, 0}, x);
  for (u64 g : got)
    EXPECT_EQ(g & 0xffffffff, 0u);
}

TEST(FloatOps, ImmediateOperandsAndF32LiteralPromotion) {
  const std::vector<u64> a32 = {B(2.0f), B(-3.5f), B(0.0f), 0x7f800000};
  auto w32 = [&](auto f) {
    std::vector<u64> w;
    for (u64 v : a32)
      w.push_back(B(f(F(static_cast<u32>(v)))));
    return w;
  };
  expectSame("add imm", runKernel("add.f32 {d}, {a}, 0f3F800000;", {32, 32, 0, 0}, a32),
             w32([](float x) { return x + 1.0f; }), a32);
  expectSame("fma imm", runKernel("fma.rn.f32 {d}, {a}, 0f40000000, 0fBF800000;", {32, 32, 0, 0}, a32),
             w32([](float x) { return std::fma(x, 2.0f, -1.0f); }), a32);
  expectSame("min imm", runKernel("min.f32 {d}, 0f7FC00000, {a};", {32, 32, 0, 0}, a32), w32([](float x) { return x; }),
             a32);
  const std::vector<u64> a64 = {B(2.0), B(-3.5), B(1e300), B(0.1)};
  auto w64 = [&](auto f) {
    std::vector<u64> w;
    for (u64 v : a64)
      w.push_back(B(f(D(v))));
    return w;
  };
  expectSame("add.f64 0d", runKernel("add.f64 {d}, {a}, 0d3FF0000000000000;", {64, 64, 0, 0}, a64),
             w64([](double x) { return x + 1.0; }), a64);
  // A 0f literal in an f64 instruction is the f32 value promoted exactly (0f3DCCCCCD != 0.1).
  expectSame("mul.f64 0f", runKernel("mul.f64 {d}, {a}, 0f3DCCCCCD;", {64, 64, 0, 0}, a64),
             w64([](double x) { return x * static_cast<double>(0.1f); }), a64);
  expectSame("fma.f64 0f", runKernel("fma.rn.f64 {d}, 0f3FC00000, {a}, 0d3FF0000000000000;", {64, 64, 0, 0}, a64),
             w64([](double x) { return std::fma(1.5, x, 1.0); }), a64);
}

TEST(FloatOps, GuardedAndDivergentLanesOnly) {
  // Lanes with an odd index skip the instruction and keep their loaded value.
  std::vector<u64> a;
  for (int i = 0; i < 96; ++i)
    a.push_back(B(static_cast<float>(i)));
  auto got = runKernel("mov.b32 {d}, {a}; and.b32 %t0, %i0, 1; setp.eq.u32 %p1, %t0, 0;\n"
                       "@%p1 fma.rn.f32 {d}, {a}, {a}, 0f3F800000;",
                       {32, 32, 0, 0}, a);
  for (int i = 0; i < 96; ++i)
    EXPECT_EQ(F(static_cast<u32>(got[i])), i % 2 ? float(i) : float(i) * i + 1) << i;
}

// ---------------------------------------------------------------------------------------------
// Halves

u64 finHalf(u16 h, bool isF16, bool ftz, bool sat, bool relu) {
  const bool nan = isF16 ? (h & 0x7c00) == 0x7c00 && (h & 0x3ff) : (h & 0x7f80) == 0x7f80 && (h & 0x7f);
  if (nan)
    return sat ? 0 : 0x7fff;
  if (ftz)
    h = isF16 ? flushH(h) : ((h & 0x7f80) == 0 ? static_cast<u16>(h & 0x8000) : h);
  if (sat) {
    const u16 one = isF16 ? 0x3c00 : 0x3f80;
    if (h & 0x8000)
      h = 0;
    else if (h > one)
      h = one;
  }
  if (relu && (h & 0x8000))
    h = 0;
  return h;
}
double halfValue(u16 h, bool isF16) {
  return isF16 ? static_cast<double>(H(h)) : static_cast<double>(bf16ToFloat(h));
}
u16 toKind(double x, bool isF16) {
  return isF16 ? toHalf(x) : toBF16(x);
}

/// Per-element reference on packed 16-bit fields.
template <class F> u64 perElement(bool x2, u64 a, u64 b, u64 c, F f) {
  u64 r = f(static_cast<u16>(a), static_cast<u16>(b), static_cast<u16>(c));
  if (x2)
    r |= u64{static_cast<u16>(f(static_cast<u16>(a >> 16), static_cast<u16>(b >> 16), static_cast<u16>(c >> 16)))}
         << 16;
  return r;
}

struct HalfInputs {
  std::vector<u64> a, b, c;
};
HalfInputs halfInputs(bool isF16, bool x2) {
  std::vector<u16> e = isF16 ? f16Edges() : bf16Edges();
  HalfInputs in;
  std::mt19937 rng(isF16 ? 21 : 22);
  auto pack = [&](u16 lo) -> u64 { return x2 ? (u64{e[rng() % e.size()]} << 16) | lo : lo; };
  for (size_t i = 0; i < e.size(); ++i)
    for (size_t j = 0; j < e.size(); ++j) {
      in.a.push_back(pack(e[i]));
      in.b.push_back(pack(e[j]));
      in.c.push_back(pack(e[(i * 5 + j) % e.size()]));
    }
  for (int i = 0; i < 800; ++i) {
    auto r = [&]() -> u64 { return x2 ? static_cast<u32>(rng()) : static_cast<u16>(rng()); };
    in.a.push_back(r());
    in.b.push_back(r());
    in.c.push_back(r());
  }
  return in;
}

TEST(FloatOps, HalfArithmeticFmaSignMinMax) {
  for (bool isF16 : {true, false})
    for (bool x2 : {false, true}) {
      const std::string type = std::string(isF16 ? ".f16" : ".bf16") + (x2 ? "x2" : "");
      const Widths w2{x2 ? 32 : 16, x2 ? 32 : 16, x2 ? 32 : 16, 0};
      const Widths w3{x2 ? 32 : 16, x2 ? 32 : 16, x2 ? 32 : 16, x2 ? 32 : 16};
      const Widths w1{x2 ? 32 : 16, x2 ? 32 : 16, 0, 0};
      HalfInputs in = halfInputs(isF16, x2);
      auto isNaN = [&](u16 h) { return std::isnan(halfValue(h, isF16)); };
      for (std::string op : {"add", "sub", "mul"})
        for (std::string rnd : {"", ".rn"})
          for (bool ftz : {false, true})
            for (bool sat : {false, true}) {
              if (!isF16 && (ftz || sat))
                continue;
              const std::string inst = op + rnd + (ftz ? ".ftz" : "") + (sat ? ".sat" : "") + type;
              std::vector<u64> want;
              for (size_t i = 0; i < in.a.size(); ++i)
                want.push_back(perElement(x2, in.a[i], in.b[i], 0, [&](u16 x, u16 y, u16) {
                  if (ftz) {
                    x = flushH(x);
                    y = flushH(y);
                  }
                  const double p = halfValue(x, isF16), q = halfValue(y, isF16);
                  const double r = roundToOdd([&] {
                    volatile double vp = p, vq = q;
                    return op == "add" ? vp + vq : op == "sub" ? vp - vq : vp * vq;
                  });
                  return finHalf(toKind(r, isF16), isF16, ftz, sat, false);
                }));
              expectSame(inst, runKernel(inst + " {d}, {a}, {b};", w2, in.a, in.b), want, in.a, in.b);
            }
      for (bool ftz : {false, true})
        for (int mode = 0; mode < 3; ++mode) { // plain, .sat, .relu
          if (!isF16 && (ftz || mode == 1))
            continue;
          const bool sat = mode == 1, relu = mode == 2;
          const std::string inst =
              std::string("fma.rn") + (ftz ? ".ftz" : "") + (sat ? ".sat" : "") + (relu ? ".relu" : "") + type;
          std::vector<u64> want;
          for (size_t i = 0; i < in.a.size(); ++i)
            want.push_back(perElement(x2, in.a[i], in.b[i], in.c[i], [&](u16 x, u16 y, u16 z) {
              if (ftz) {
                x = flushH(x);
                y = flushH(y);
                z = flushH(z);
              }
              const double p = halfValue(x, isF16), q = halfValue(y, isF16), s = halfValue(z, isF16);
              const double r = roundToOdd([&] {
                volatile double vp = p, vq = q, vs = s;
                return std::fma(static_cast<double>(vp), static_cast<double>(vq), static_cast<double>(vs));
              });
              return finHalf(toKind(r, isF16), isF16, ftz, sat, relu);
            }));
          expectSame(inst, runKernel(inst + " {d}, {a}, {b}, {c};", w3, in.a, in.b, in.c), want, in.a, in.b, in.c);
        }
      for (bool ftz : {false, true}) {
        if (!isF16 && ftz)
          continue;
        const std::string f = ftz ? ".ftz" : "";
        std::vector<u64> wAbs, wNeg;
        for (u64 v : in.a) {
          wAbs.push_back(
              perElement(x2, v, 0, 0, [&](u16 x, u16, u16) -> u16 { return (ftz ? flushH(x) : x) & 0x7fff; }));
          wNeg.push_back(
              perElement(x2, v, 0, 0, [&](u16 x, u16, u16) -> u16 { return (ftz ? flushH(x) : x) ^ 0x8000; }));
        }
        expectSame("abs" + f + type, runKernel("abs" + f + type + " {d}, {a};", w1, in.a), wAbs, in.a);
        expectSame("neg" + f + type, runKernel("neg" + f + type + " {d}, {a};", w1, in.a), wNeg, in.a);
        for (bool isMax : {false, true})
          for (bool nanMode : {false, true})
            for (bool xs : {false, true}) {
              const std::string inst =
                  std::string(isMax ? "max" : "min") + f + (nanMode ? ".NaN" : "") + (xs ? ".xorsign.abs" : "") + type;
              std::vector<u64> want;
              for (size_t i = 0; i < in.a.size(); ++i)
                want.push_back(perElement(x2, in.a[i], in.b[i], 0, [&](u16 x, u16 y, u16) -> u16 {
                  if (ftz) {
                    x = flushH(x);
                    y = flushH(y);
                  }
                  const u16 sign = (x ^ y) & 0x8000;
                  if (xs) {
                    x &= 0x7fff;
                    y &= 0x7fff;
                  }
                  u16 r;
                  if ((isNaN(x) && isNaN(y)) || (nanMode && (isNaN(x) || isNaN(y))))
                    return 0x7fff;
                  if (isNaN(x))
                    r = y;
                  else if (isNaN(y))
                    r = x;
                  else if (halfValue(x, isF16) == halfValue(y, isF16))
                    r = isMax ? (x & y) : (x | y);
                  else
                    r = (isMax ? halfValue(x, isF16) > halfValue(y, isF16) : halfValue(x, isF16) < halfValue(y, isF16))
                            ? x
                            : y;
                  return xs ? static_cast<u16>((r & 0x7fff) | sign) : r;
                }));
              expectSame(inst, runKernel(inst + " {d}, {a}, {b};", w2, in.a, in.b), want, in.a, in.b);
            }
      }
      // ex2.approx (.ftz for bf16) and tanh.approx: within a half ulp-ish of the true value.
      for (std::string inst : {std::string(isF16 ? "ex2.approx" : "ex2.approx.ftz") + type, "tanh.approx" + type}) {
        std::vector<u64> x; // values in [-8, 8): results stay normal
        std::mt19937 rng(31);
        auto one = [&] { return u64{toKind((static_cast<int>(rng() % 2048) - 1024) / 128.0, isF16)}; };
        for (int i = 0; i < 1000; ++i)
          x.push_back(x2 ? one() | (one() << 16) : one());
        auto got = runKernel(inst + " {d}, {a};", w1, x);
        for (size_t i = 0; i < x.size(); ++i)
          for (int e = 0; e < (x2 ? 2 : 1); ++e) {
            const u16 in16 = static_cast<u16>(x[i] >> (16 * e)), g16 = static_cast<u16>(got[i] >> (16 * e));
            const double v = halfValue(in16, isF16);
            if (std::isnan(v))
              continue;
            const double want = inst.starts_with("ex2") ? std::exp2(v) : std::tanh(v);
            const double tol = inst.starts_with("ex2") ? std::fabs(want) * (isF16 ? 1.0 / 1024 : 1.0 / 128) + 1e-7
                                                       : (isF16 ? std::exp2(-10.9) : 1.0 / 256);
            ASSERT_LE(std::fabs(halfValue(g16, isF16) - want), tol) << inst << " " << hex(in16) << " -> " << hex(g16);
          }
      }
    }
}

TEST(FloatOps, HalfFloatLiteralOperands) {
  const std::vector<u64> a = {0x3c00, 0x4000, 0xbc00};
  std::vector<u64> want;
  for (u64 v : a)
    want.push_back(floatToHalf(H(static_cast<u16>(v)) + 1.5f));
  expectSame("add.f16 0f", runKernel("add.f16 {d}, {a}, 0f3FC00000;", {16, 16, 0, 0}, a), want, a);
}

TEST(FloatOps, HalfSetpAndSet) {
  const char *cmps[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  auto cmp = [](const std::string &c, double x, double y) {
    const bool u = std::isnan(x) || std::isnan(y);
    if (c == "num")
      return !u;
    if (c == "nan")
      return u;
    const bool unordered = c.size() == 3;
    const std::string base = unordered ? c.substr(0, 2) : c;
    bool r = base == "eq"   ? x == y
             : base == "ne" ? x != y
             : base == "lt" ? x < y
             : base == "le" ? x <= y
             : base == "gt" ? x > y
                            : x >= y;
    return u ? unordered : r;
  };
  for (bool isF16 : {true, false}) {
    HalfInputs s = halfInputs(isF16, false), p = halfInputs(isF16, true);
    const std::string t = isF16 ? ".f16" : ".bf16";
    const u64 one = isF16 ? 0x3c00 : 0x3f80;
    for (const char *c : cmps)
      for (bool ftz : {false, true}) {
        if (!isF16 && ftz)
          continue;
        const std::string f = ftz ? ".ftz" : "";
        auto val = [&](u16 h) { return halfValue(ftz ? flushH(h) : h, isF16); };
        // setp scalar, setp.and with a predicate, setp x2 p|q, set.f16/bf16 and set.u32 on x2.
        std::vector<u64> w1, w2, w3, w4, w5;
        for (size_t i = 0; i < s.a.size(); ++i) {
          const bool r = cmp(c, val(static_cast<u16>(s.a[i])), val(static_cast<u16>(s.b[i])));
          w1.push_back(r);
          w2.push_back(r && (s.c[i] & 1));
          w4.push_back(r ? one : 0);
        }
        for (size_t i = 0; i < p.a.size(); ++i) {
          const bool r0 = cmp(c, val(static_cast<u16>(p.a[i])), val(static_cast<u16>(p.b[i])));
          const bool r1 = cmp(c, val(static_cast<u16>(p.a[i] >> 16)), val(static_cast<u16>(p.b[i] >> 16)));
          w3.push_back(r0 | (r1 << 1));
          w5.push_back((r0 ? 0xffff : 0) | (r1 ? 0xffff0000u : 0));
        }
        const std::string sp = std::string("setp.") + c + f + t;
        expectSame(sp, runKernel(sp + " %p1, {a}, {b}; selp.u16 {d}, 1, 0, %p1;", {16, 16, 16, 0}, s.a, s.b), w1, s.a,
                   s.b);
        const std::string spAnd = std::string("setp.") + c + ".and" + f + t;
        expectSame(spAnd,
                   runKernel("and.b16 %g0, {c}, 1; setp.ne.u16 %p2, %g0, 0;\n" + spAnd +
                                 " %p1, {a}, {b}, %p2; selp.u16 {d}, 1, 0, %p1;",
                             {16, 16, 16, 16}, s.a, s.b, s.c),
                   w2, s.a, s.b, s.c);
        const std::string sp2 = std::string("setp.") + c + f + t + "x2";
        expectSame(sp2,
                   runKernel(sp2 + " %p1|%p2, {a}, {b}; selp.u32 %t0, 1, 0, %p1; selp.u32 %t1, 2, 0, %p2;"
                                   " or.b32 {d}, %t0, %t1;",
                             {32, 32, 32, 0}, p.a, p.b),
                   w3, p.a, p.b);
        const std::string st = std::string("set.") + c + f + t + t;
        expectSame(st, runKernel(st + " {d}, {a}, {b};", {16, 16, 16, 0}, s.a, s.b), w4, s.a, s.b);
        const std::string st2 = std::string("set.") + c + f + ".u32" + t + "x2";
        expectSame(st2, runKernel(st2 + " {d}, {a}, {b};", {32, 32, 32, 0}, p.a, p.b), w5, p.a, p.b);
      }
  }
  // set.f16x2 writes 1.0 per element.
  const std::vector<u64> a = {0x3c004000, 0x7e000000}, b = {0x3c003c00, 0x7e000000};
  expectSame("set.eq.f16x2.f16x2", runKernel("set.eq.f16x2.f16x2 {d}, {a}, {b};", {32, 32, 32, 0}, a, b),
             {0x3c000000, 0x00003c00}, a, b);
}

// Throughput of a plain f32 fma loop on one worker (run with --gtest_also_run_disabled_tests).
TEST(FloatOps, DISABLED_BenchFmaLoop) {
  VmHarness h;
  auto &m = h.load(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 iters)
{
  .reg .b32 %f<8>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .pred %p;
  ld.param.u32 %r1, [iters];
  mov.u32 %r2, %tid.x;
  cvt.rn.f32.u32 %f1, %r2;
  mov.b32 %f2, 0f3F800000;
  mov.b32 %f3, 0f3F000000;
  mov.b32 %f4, 0f3E800000;
LOOP:
  fma.rn.f32 %f1, %f1, 0f3F7FFFFE, %f3;
  fma.rn.f32 %f2, %f2, 0f3F7FFFFE, %f4;
  fma.rn.f32 %f3, %f3, 0f3F7FFFFE, %f1;
  fma.rn.f32 %f4, %f4, 0f3F7FFFFE, %f2;
  sub.s32 %r1, %r1, 1;
  setp.ne.s32 %p, %r1, 0;
  @%p bra LOOP;
  add.f32 %f1, %f1, %f2;
  add.f32 %f3, %f3, %f4;
  add.f32 %f1, %f1, %f3;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd1, %rd1, %rd2;
  st.global.f32 [%rd1], %f1;
  ret;
}
)");
  const uint32_t threads = 1024, iters = 20000;
  uint64_t out = h.upload(std::vector<float>(threads));
  auto t0 = std::chrono::steady_clock::now();
  auto r = h.launch(m, "k", {1, 1, 1}, {threads, 1, 1}, out, iters);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.ok()) << describe(r);
  const double fmas = 4.0 * threads * iters, insts = 7.0 * threads * iters;
  std::printf("fma loop: %.3f s, %.1f M fma/s, %.1f M thread-instructions/s (1 worker)\n", s, fmas / s / 1e6,
              insts / s / 1e6);
}

} // namespace
} // namespace ptxray::test::fp
