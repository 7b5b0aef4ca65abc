// cvt and cvt.pack run through the VM over edge-case inputs, compared with host conversions written in
// this file (fesetround + volatile casts, support/Float16Reference.h, round-to-odd narrowing), not with
// src/vm/semantics.
#include "support/HostConversions.h"
#include "vm/FloatTestSupport.h"

#include <climits>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

namespace ptxray::test::fp {
namespace {

struct TypeDesc {
  const char *name;
  int bits;
  bool isSigned, isFloat;
};
const TypeDesc kInts[] = {{"u8", 8, false, false},   {"u16", 16, false, false}, {"u32", 32, false, false},
                          {"u64", 64, false, false}, {"s8", 8, true, false},    {"s16", 16, true, false},
                          {"s32", 32, true, false},  {"s64", 64, true, false}};
const TypeDesc kFloats[] = {
    {"f16", 16, false, true}, {"bf16", 16, false, true}, {"f32", 32, false, true}, {"f64", 64, false, true}};

int regWidth(int bits) {
  return bits < 16 ? 16 : bits;
}

/// An integer result as the destination register holds it: sign-extended for signed types.
u64 intBits(__int128 v, const TypeDesc &t) {
  u64 b = static_cast<u64>(v);
  if (t.bits < 64) {
    b &= (u64{1} << t.bits) - 1;
    if (t.isSigned && (b >> (t.bits - 1)) & 1)
      b |= ~((u64{1} << t.bits) - 1);
  }
  return b;
}
__int128 intValue(u64 raw, const TypeDesc &t) {
  if (t.bits < 64)
    raw &= (u64{1} << t.bits) - 1;
  if (t.isSigned) {
    const int shift = 64 - t.bits;
    return static_cast<int64_t>(raw << shift) >> shift;
  }
  return raw;
}
__int128 minOf(const TypeDesc &t) {
  return t.isSigned ? -(__int128{1} << (t.bits - 1)) : 0;
}
__int128 maxOf(const TypeDesc &t) {
  return t.isSigned ? (__int128{1} << (t.bits - 1)) - 1 : (__int128{1} << t.bits) - 1;
}

double floatValue(u64 raw, const TypeDesc &t) {
  switch (t.bits == 16 ? (t.name[0] == 'f' ? 0 : 1) : t.bits == 32 ? 2 : 3) {
  case 0: return static_cast<double>(H(static_cast<u16>(raw)));
  case 1: return bf16ToFloat(static_cast<u16>(raw));
  case 2: return F(static_cast<u32>(raw));
  default: return D(raw);
  }
}

std::vector<u64> floatInputs(const TypeDesc &t) {
  std::vector<u64> v;
  const std::string n = t.name;
  if (n == "f16")
    for (u16 x : f16Edges())
      v.push_back(x);
  else if (n == "bf16")
    for (u16 x : bf16Edges())
      v.push_back(x);
  else if (n == "f32")
    for (u32 x : f32Edges())
      v.push_back(x);
  else
    for (u64 x : f64Edges())
      v.push_back(x);
  // Integer boundaries, halfway cases and random values.
  for (double d : {0.5,
                   1.5,
                   2.5,
                   -0.5,
                   -1.5,
                   -2.5,
                   127.5,
                   128.0,
                   -128.5,
                   255.5,
                   32767.5,
                   65535.0,
                   65536.0,
                   2147483647.0,
                   2147483648.0,
                   -2147483648.0,
                   -2147483649.0,
                   4294967295.0,
                   4294967296.0,
                   9.2233720368547758e18,
                   -9.2233720368547758e18,
                   1.8446744073709552e19,
                   1e30,
                   -1e30,
                   3.7,
                   -3.7})
    v.push_back(n == "f16" ? toHalf(d) : n == "bf16" ? toBF16(d) : n == "f32" ? u64{B(static_cast<float>(d))} : B(d));
  std::mt19937_64 rng(42);
  for (int i = 0; i < 600; ++i) {
    const double d = std::ldexp((rng() % 2000000) / 1000.0 - 1000.0, static_cast<int>(rng() % 80) - 20);
    v.push_back(n == "f16" ? toHalf(d) : n == "bf16" ? toBF16(d) : n == "f32" ? u64{B(static_cast<float>(d))} : B(d));
  }
  return v;
}

std::vector<u64> intInputs() {
  std::vector<u64> v = {0,
                        1,
                        2,
                        3,
                        0x7f,
                        0x80,
                        0xff,
                        0x100,
                        0x7fff,
                        0x8000,
                        0xffff,
                        0x10000,
                        0x7fffffff,
                        0x80000000,
                        0xffffffff,
                        0x100000000,
                        0x7fffffffffffffff,
                        0x8000000000000000,
                        0xffffffffffffffff,
                        0xfffffffffffff800,
                        0x20000001,
                        0x1000001,
                        0x1000003,
                        0xfffffffffffff801,
                        0x801,
                        0x803};
  std::mt19937_64 rng(43);
  for (int i = 0; i < 500; ++i)
    v.push_back(rng() >> (rng() % 64));
  return v;
}

void expectEq(const std::string &what, const std::vector<u64> &got, const std::vector<u64> &want,
              const std::vector<u64> &in, std::function<bool(u64)> isNaN = nullptr) {
  int failures = 0;
  for (size_t i = 0; i < got.size() && failures < 6; ++i)
    if (got[i] != want[i] && !(isNaN && isNaN(got[i]) && isNaN(want[i]))) {
      ++failures;
      ADD_FAILURE() << what << " in=" << hex(in[i]) << " got " << hex(got[i]) << " want " << hex(want[i]);
    }
}

const char *kIntRnd[] = {".rni", ".rzi", ".rmi", ".rpi"};
const char *kFltRnd[] = {".rn", ".rz", ".rm", ".rp"};
const int kModes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

double roundIntegral(double x, int r) {
  switch (r) {
  case 0: return std::nearbyint(x); // default mode: ties to even
  case 1: return std::trunc(x);
  case 2: return std::floor(x);
  default: return std::ceil(x);
  }
}

/// A float result in the destination format with host rounding mode `mode` from an exact double (or a
/// round-to-odd one).
u64 narrow(double x, const TypeDesc &d, int mode) {
  const std::string n = d.name;
  if (n == "f16")
    return toHalf(x, mode);
  if (n == "bf16")
    return toBF16(x, mode);
  volatile double v = x;
  if (n == "f32")
    return rounded(mode, [&] {
      volatile float f = static_cast<float>(v);
      return u64{B(static_cast<float>(f))};
    });
  return B(x);
}

bool isNaNOf(u64 raw, const TypeDesc &t) {
  return std::isnan(floatValue(raw, t));
}

TEST(ConvertOps, IntToIntEveryPairWithAndWithoutSat) {
  const std::vector<u64> in = intInputs();
  for (const TypeDesc &d : kInts)
    for (const TypeDesc &s : kInts)
      for (bool sat : {false, true}) {
        const bool superset = (d.isSigned == s.isSigned && d.bits >= s.bits) || (d.isSigned && d.bits > s.bits);
        if (sat && superset)
          continue; // .sat is illegal where it cannot saturate
        const std::string inst = std::string("cvt") + (sat ? ".sat." : ".") + d.name + "." + s.name;
        std::vector<u64> want;
        for (u64 v : in) {
          __int128 x = intValue(v, s);
          if (sat)
            x = std::min(std::max(x, minOf(d)), maxOf(d));
          u64 r = intBits(x, d);
          if (regWidth(d.bits) < 64)
            r &= (u64{1} << regWidth(d.bits)) - 1;
          want.push_back(r);
        }
        expectEq(inst, runKernel(inst + " {d}, {a};", {regWidth(d.bits), regWidth(s.bits), 0, 0}, in), want, in);
      }
}

TEST(ConvertOps, FloatToIntEveryRoundingSaturates) {
  for (const TypeDesc &s : kFloats) {
    const std::vector<u64> in = floatInputs(s);
    for (const TypeDesc &d : kInts)
      for (int r = 0; r < 4; ++r)
        for (bool ftz : {false, true}) {
          if (ftz && std::string(s.name) != "f32")
            continue;
          const std::string inst = std::string("cvt") + kIntRnd[r] + (ftz ? ".ftz." : ".") + d.name + "." + s.name;
          std::vector<u64> want;
          for (u64 v : in) {
            double x = floatValue(v, s);
            if (ftz && std::fpclassify(static_cast<float>(x)) == FP_SUBNORMAL)
              x = 0;
            __int128 q;
            if (std::isnan(x))
              q = 0;
            else {
              const double t = roundIntegral(x, r);
              if (t >= std::ldexp(1.0, d.bits - (d.isSigned ? 1 : 0)))
                q = maxOf(d);
              else if (t < (d.isSigned ? -std::ldexp(1.0, d.bits - 1) : 0.0))
                q = minOf(d);
              else
                q = static_cast<__int128>(t);
            }
            u64 b = intBits(q, d);
            if (regWidth(d.bits) < 64)
              b &= (u64{1} << regWidth(d.bits)) - 1;
            want.push_back(b);
          }
          expectEq(inst, runKernel(inst + " {d}, {a};", {regWidth(d.bits), s.bits, 0, 0}, in), want, in);
        }
    // A plain .rn/.rz/.rm/.rp on float -> int is read as the integer rounding.
  }
  const std::vector<u64> in = floatInputs(kFloats[2]);
  std::vector<u64> want;
  for (u64 v : in) {
    const float x = F(static_cast<u32>(v));
    want.push_back(std::isnan(x)                    ? 0
                   : std::trunc(x) >= 2147483648.0f ? 0x7fffffff
                   : std::trunc(x) < -2147483648.0f ? 0x80000000
                                                    : static_cast<u32>(static_cast<int32_t>(std::trunc(x))));
  }
  expectEq("cvt.rz.s32.f32", runKernel("cvt.rz.s32.f32 {d}, {a};", {32, 32, 0, 0}, in), want, in);
}

TEST(ConvertOps, IntToFloatEveryRounding) {
  const std::vector<u64> in = intInputs();
  for (const TypeDesc &s : kInts)
    for (const TypeDesc &d : kFloats)
      for (int r = 0; r < 4; ++r) {
        const std::string inst = std::string("cvt") + kFltRnd[r] + "." + d.name + "." + s.name;
        std::vector<u64> want;
        for (u64 v : in) {
          const __int128 x = intValue(v, s);
          volatile int64_t xs = static_cast<int64_t>(x);
          volatile uint64_t xu = static_cast<uint64_t>(x);
          const std::string n = d.name;
          if (n == "f32")
            want.push_back(rounded(kModes[r], [&] {
              volatile float f = s.isSigned ? static_cast<float>(xs) : fromUnsigned<float>(xu);
              return u64{B(static_cast<float>(f))};
            }));
          else if (n == "f64")
            want.push_back(rounded(kModes[r], [&] {
              volatile double f = s.isSigned ? static_cast<double>(xs) : fromUnsigned<double>(xu);
              return B(static_cast<double>(f));
            }));
          else
            want.push_back(
                narrow(roundToOdd([&] { return s.isSigned ? static_cast<double>(xs) : fromUnsigned<double>(xu); }), d,
                       kModes[r]));
        }
        expectEq(inst, runKernel(inst + " {d}, {a};", {d.bits, regWidth(s.bits), 0, 0}, in), want, in);
      }
}

TEST(ConvertOps, FloatToFloatRoundingsFtzSatIntegral) {
  for (const TypeDesc &s : kFloats)
    for (const TypeDesc &d : kFloats) {
      const std::vector<u64> in = floatInputs(s);
      const std::string sn = s.name, dn = d.name;
      const bool narrowing = !(sn == dn) && !(dn == "f64") && !(dn == "f32" && sn != "f64");
      auto nan = [&](u64 v) { return isNaNOf(v, d); };
      if (!narrowing) {
        // Widening (or same type): exact, no rounding modifier.
        const std::string inst = "cvt." + dn + "." + sn;
        std::vector<u64> want;
        for (u64 v : in)
          want.push_back(narrow(floatValue(v, s), d, FE_TONEAREST));
        expectEq(inst, runKernel(inst + " {d}, {a};", {d.bits, s.bits, 0, 0}, in), want, in, nan);
      } else {
        for (int r = 0; r < 4; ++r) {
          const std::string inst = std::string("cvt") + kFltRnd[r] + "." + dn + "." + sn;
          std::vector<u64> want;
          for (u64 v : in)
            want.push_back(narrow(floatValue(v, s), d, kModes[r]));
          expectEq(inst, runKernel(inst + " {d}, {a};", {d.bits, s.bits, 0, 0}, in), want, in, nan);
        }
      }
      if (sn == dn)
        for (int r = 0; r < 4; ++r) {
          const std::string inst = std::string("cvt") + kIntRnd[r] + "." + dn + "." + sn;
          std::vector<u64> want;
          for (u64 v : in)
            want.push_back(narrow(roundIntegral(floatValue(v, s), r), d, FE_TONEAREST));
          expectEq(inst, runKernel(inst + " {d}, {a};", {d.bits, s.bits, 0, 0}, in), want, in, nan);
        }
    }
  // .ftz (f32 inputs and results) and .sat ([0, 1], NaN -> 0).
  const std::vector<u64> f32in = floatInputs(kFloats[2]), f64in = floatInputs(kFloats[3]);
  auto sat = [](double x) { return std::isnan(x) ? 0.0 : x > 0 ? (x < 1 ? x : 1.0) : 0.0; };
  auto fl = [](float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; };
  std::vector<u64> w1, w2, w3, w4, w5;
  for (u64 v : f32in) {
    const float x = F(static_cast<u32>(v));
    w1.push_back(std::isnan(x) ? 0x7fffffff : B(fl(x)));
    w2.push_back(B(static_cast<float>(sat(x))));
    w3.push_back(B(static_cast<float>(sat(std::nearbyint(x)))));
    w4.push_back(std::isnan(x) ? B(std::numeric_limits<double>::quiet_NaN()) : B(static_cast<double>(fl(x))));
  }
  for (u64 v : f64in)
    w5.push_back(std::isnan(D(v)) ? 0x7fffffff : B(fl(static_cast<float>(D(v)))));
  auto nan32 = [](u64 v) { return std::isnan(F(static_cast<u32>(v))); };
  auto nan64 = [](u64 v) { return std::isnan(D(v)); };
  expectEq("cvt.ftz.f32.f32", runKernel("cvt.ftz.f32.f32 {d}, {a};", {32, 32, 0, 0}, f32in), w1, f32in, nan32);
  expectEq("cvt.sat.f32.f32", runKernel("cvt.sat.f32.f32 {d}, {a};", {32, 32, 0, 0}, f32in), w2, f32in);
  expectEq("cvt.rni.sat.f32.f32", runKernel("cvt.rni.sat.f32.f32 {d}, {a};", {32, 32, 0, 0}, f32in), w3, f32in);
  expectEq("cvt.ftz.f64.f32", runKernel("cvt.ftz.f64.f32 {d}, {a};", {64, 32, 0, 0}, f32in), w4, f32in, nan64);
  expectEq("cvt.rn.ftz.f32.f64", runKernel("cvt.rn.ftz.f32.f64 {d}, {a};", {32, 64, 0, 0}, f64in), w5, f64in, nan32);
}

/// f32 -> f16/bf16 with .relu and .satfinite, scalar and packed x2; f32 -> tf32.
TEST(ConvertOps, HalfPackingReluSatfiniteAndTf32) {
  const std::vector<u64> in = floatInputs(kFloats[2]);
  std::vector<u64> in2(in.rbegin(), in.rend());
  for (bool bf : {false, true})
    for (int r = 0; r < 2; ++r)
      for (bool relu : {false, true})
        for (bool satfinite : {false, true}) {
          const TypeDesc &d = kFloats[bf ? 1 : 0];
          const u16 maxNorm = bf ? 0x7f7f : 0x7bff, inf = bf ? 0x7f80 : 0x7c00;
          auto one = [&](u64 v) -> u16 {
            const float x = F(static_cast<u32>(v));
            if (std::isnan(x))
              return 0x7fff;
            u16 h = static_cast<u16>(narrow(x, d, kModes[r]));
            if (satfinite && (h & 0x7fff) == inf)
              h = (h & 0x8000) | maxNorm;
            if (relu && (h & 0x8000))
              h = 0;
            return h;
          };
          const std::string mods = std::string(kFltRnd[r]) + (relu ? ".relu" : "") + (satfinite ? ".satfinite" : "");
          const std::string t = bf ? "bf16" : "f16";
          std::vector<u64> w, w2;
          for (size_t i = 0; i < in.size(); ++i) {
            w.push_back(one(in[i]));
            w2.push_back((u64{one(in[i])} << 16) | one(in2[i]));
          }
          auto nan = [&](u64 v) { return isNaNOf(v & 0xffff, d) && (v >> 16 == 0 || isNaNOf(v >> 16, d)); };
          expectEq("cvt" + mods + "." + t + ".f32",
                   runKernel("cvt" + mods + "." + t + ".f32 {d}, {a};", {16, 32, 0, 0}, in), w, in, nan);
          // cvt.frnd.f16x2.f32 d, a, b: a in the upper half, b in the lower.
          expectEq("cvt" + mods + "." + t + "x2.f32",
                   runKernel("cvt" + mods + "." + t + "x2.f32 {d}, {a}, {b};", {32, 32, 32, 0}, in, in2), w2, in);
        }
  // tf32: 10 fraction bits in f32 layout.
  for (std::string mods : {".rna", ".rna.satfinite", ".rn", ".rz", ".rn.relu", ".rz.relu"}) {
    std::vector<u64> w;
    for (u64 v : in) {
      u32 b = static_cast<u32>(v);
      const u32 low = b & 0x1fff;
      u32 t = b & ~0x1fffu;
      if (std::isnan(F(b))) {
        w.push_back(0x7fffe000);
        continue;
      }
      if ((b & 0x7f800000) != 0x7f800000) {
        const bool up = mods.starts_with(".rna")  ? low >= 0x1000
                        : mods.starts_with(".rn") ? (low > 0x1000 || (low == 0x1000 && (t & 0x2000)))
                                                  : false;
        if (up)
          t += 0x2000;
      }
      if (mods.ends_with("satfinite") && (t & 0x7fffffff) == 0x7f800000)
        t = (t & 0x80000000) | 0x7f7fe000;
      if (mods.ends_with("relu") && (t >> 31))
        t = 0;
      w.push_back(t);
    }
    const std::string inst = "cvt" + mods + ".tf32.f32";
    expectEq(inst, runKernel(inst + " {d}, {a};", {32, 32, 0, 0}, in), w, in,
             [](u64 v) { return std::isnan(F(static_cast<u32>(v))); });
  }
}

TEST(ConvertOps, PackSat) {
  std::vector<u64> a = intInputs(), b(a.rbegin(), a.rend()), c;
  std::mt19937 rng(3);
  for (size_t i = 0; i < a.size(); ++i)
    c.push_back(rng());
  struct P {
    const char *t;
    int bits;
    bool sgn;
  };
  for (P p : {P{"u16", 16, false}, P{"s16", 16, true}, P{"u8", 8, false}, P{"s8", 8, true}, P{"u4", 4, false},
              P{"s4", 4, true}, P{"u2", 2, false}, P{"s2", 2, true}}) {
    const int64_t lo = p.sgn ? -(int64_t{1} << (p.bits - 1)) : 0,
                  hi = p.sgn ? (int64_t{1} << (p.bits - 1)) - 1 : (int64_t{1} << p.bits) - 1;
    auto sat = [&](u64 v) {
      const int64_t x = static_cast<int32_t>(v);
      return static_cast<u32>(std::min(std::max(x, lo), hi)) & ((1u << p.bits) - 1);
    };
    std::vector<u64> w;
    for (size_t i = 0; i < a.size(); ++i) {
      u32 r = sat(b[i]) | (sat(a[i]) << p.bits);
      if (p.bits < 16)
        r |= static_cast<u32>(c[i]) << (2 * p.bits);
      w.push_back(r);
    }
    const std::string inst = std::string("cvt.pack.sat.") + p.t + ".s32" + (p.bits < 16 ? ".b32" : "");
    const std::string body = inst + (p.bits < 16 ? " {d}, {a}, {b}, {c};" : " {d}, {a}, {b};");
    expectEq(inst, runKernel(body, {32, 32, 32, p.bits < 16 ? 32 : 0}, a, b, c), w, a);
  }
}

TEST(ConvertOps, HalfSourceInB16RegisterAndImmediates) {
  // cvt.f32.f16 reads the 16-bit value in the low bits of its .b16 source.
  const std::vector<u64> h = {0x3c00, 0xc000, 0x7c00, 0x0001, 0x7bff};
  std::vector<u64> w;
  for (u64 v : h)
    w.push_back(B(H(static_cast<u16>(v))));
  expectEq("cvt.f32.f16", runKernel("cvt.f32.f16 {d}, {a};", {32, 16, 0, 0}, h), w, h);
  const std::vector<u64> any = {0};
  expectEq("cvt imm f32", runKernel("cvt.rn.f16.f32 {d}, 0f3FC00000;", {16, 32, 0, 0}, any), {0x3e00}, any);
  expectEq("cvt imm s32", runKernel("cvt.rn.f64.s32 {d}, -7;", {64, 32, 0, 0}, any), {B(-7.0)}, any);
  expectEq("cvt imm f64", runKernel("cvt.rzi.s32.f64 {d}, 0dC00C000000000000;", {32, 64, 0, 0}, any), {0xfffffffd},
           any);
}

// ---------------------------------------------------------------------------------------------
// nvcc output (tests/corpus/nvcc/compute_90) run in the VM, checked against host versions of the source.

std::string readCorpus(const std::string &name) {
  std::ifstream f(std::string(PTXRAY_SOURCE_DIR) + "/tests/corpus/nvcc/compute_90/" + name);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(ConvertOps, NvccFloatToIntAndIntToFloatKernels) {
  VmHarness h;
  auto &m = h.load(readCorpus("conversions.ptx"), "conversions.ptx");
  const int n = 300;
  std::mt19937 rng(77);
  std::vector<float> f(n);
  std::vector<double> d(n);
  std::vector<int32_t> iv(n);
  std::vector<int64_t> lv(n);
  for (int i = 0; i < n; ++i) {
    f[i] = static_cast<float>((static_cast<int>(rng() % 4000000) - 2000000) / 1000.0);
    if (i % 10 == 0)
      f[i] = static_cast<float>(static_cast<int>(rng() % 200) - 100) + 0.5f; // ties
    d[i] = (static_cast<int>(rng() % 4000000) - 2000000) / 997.0;
    iv[i] = static_cast<int32_t>(rng());
    lv[i] = static_cast<int64_t>((static_cast<uint64_t>(rng()) << 32) | rng());
  }
  const uint64_t pf = h.upload(f), pd = h.upload(d), poi = h.upload(std::vector<int32_t>(n * 8)),
                 pou = h.upload(std::vector<uint32_t>(n * 4)), pol = h.upload(std::vector<int64_t>(n * 4));
  auto r = h.launch(m, "_Z12float_to_intPKfPKdPiPjPxi", {(n + 63) / 64, 1, 1}, {64, 1, 1}, pf, pd, poi, pou, pol, n);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto oi = h.download<int32_t>(poi, n * 8);
  auto ou = h.download<uint32_t>(pou, n * 4);
  auto ol = h.download<int64_t>(pol, n * 4);
  for (int i = 0; i < n; ++i) {
    const float x = f[i];
    const double y = d[i];
    EXPECT_EQ(oi[i * 8 + 0], static_cast<int>(std::nearbyint(x))) << x;
    EXPECT_EQ(oi[i * 8 + 1], static_cast<int>(std::trunc(x))) << x;
    EXPECT_EQ(oi[i * 8 + 2], static_cast<int>(std::ceil(x))) << x;
    EXPECT_EQ(oi[i * 8 + 3], static_cast<int>(std::floor(x))) << x;
    EXPECT_EQ(oi[i * 8 + 4], static_cast<int>(std::nearbyint(y)) + static_cast<int>(std::trunc(y))) << y;
    EXPECT_EQ(oi[i * 8 + 5], static_cast<int>(std::ceil(y)) - static_cast<int>(std::floor(y))) << y;
    EXPECT_EQ(oi[i * 8 + 6], static_cast<int>(x)) << x;
    EXPECT_EQ(oi[i * 8 + 7], static_cast<short>(static_cast<int>(y))) << y;
    EXPECT_EQ(ou[i * 4 + 0], x < 0 ? 0u : static_cast<uint32_t>(std::nearbyint(x))) << x;
    EXPECT_EQ(ol[i * 4 + 0], static_cast<int64_t>(std::nearbyint(x)) + static_cast<int64_t>(std::trunc(x))) << x;
    EXPECT_EQ(ol[i * 4 + 3], static_cast<int64_t>(y)) << y;
  }

  std::vector<double> od(n * 3);
  for (int i = 0; i < n; ++i)
    od[i] = d[i] * 1e10;
  const uint64_t piv = h.upload(iv), plv = h.upload(lv), pof = h.upload(std::vector<float>(n * 8)), pod = h.upload(od);
  r = h.launch(m, "_Z12int_to_floatPKiPKxPfPdi", {(n + 63) / 64, 1, 1}, {64, 1, 1}, piv, plv, pof, pod, n);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto of = h.download<float>(pof, n * 8);
  auto odOut = h.download<double>(pod, n * 3);
  for (int i = 0; i < n; ++i) {
    const int a = iv[i];
    EXPECT_EQ(of[i * 8 + 0], static_cast<float>(a)) << a;
    EXPECT_EQ(of[i * 8 + 7],
              static_cast<float>(static_cast<signed char>(a)) + static_cast<float>(static_cast<unsigned short>(a)));
    EXPECT_EQ(odOut[i * 3 + 0], static_cast<double>(a) + static_cast<double>(static_cast<unsigned>(a))) << a;
    EXPECT_EQ(odOut[i * 3 + 2], static_cast<double>(of[i])) << i;
  }
}

TEST(ConvertOps, NvccRoundingF32Kernel) {
  VmHarness h;
  auto &m = h.load(readCorpus("float32.ptx"), "float32.ptx");
  const int n = 256;
  std::mt19937 rng(78);
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = std::ldexp(1.0f + (rng() % 8388608) / 8388608.0f, static_cast<int>(rng() % 20) - 10) * (rng() % 2 ? 1 : -1);
    b[i] = std::ldexp(1.0f + (rng() % 8388608) / 8388608.0f, static_cast<int>(rng() % 20) - 10) * (rng() % 2 ? 1 : -1);
    c[i] = std::ldexp(1.0f + (rng() % 8388608) / 8388608.0f, static_cast<int>(rng() % 20) - 10);
  }
  const uint64_t pa = h.upload(a), pb = h.upload(b), pc = h.upload(c), po = h.upload(std::vector<float>(n * 24));
  auto r = h.launch(m, "_Z12rounding_f32PKfS0_S0_Pfi", {n / 64, 1, 1}, {64, 1, 1}, pa, pb, pc, po, n);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto o = h.download<float>(po, n * 24);
  for (int i = 0; i < n; ++i) {
    volatile float x = a[i], y = b[i], z = c[i];
    auto at = [&](int mode, auto f) {
      return rounded(mode, [&] {
        volatile float t = f();
        return static_cast<float>(t);
      });
    };
    const int rn = FE_TONEAREST, rz = FE_TOWARDZERO, ru = FE_UPWARD, rd = FE_DOWNWARD;
    auto add = [&] { return x + y; };
    auto sub = [&] { return x - y; };
    auto mul = [&] { return x * y; };
    auto div = [&] { return x / y; };
    auto fma = [&] { return std::fma(static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)); };
    const float want[18] = {at(rn, add), at(rz, add), at(ru, add), at(rd, add), at(rn, sub), at(rz, sub),
                            at(rn, mul), at(rz, mul), at(ru, mul), at(rd, mul), at(rn, div), at(rz, div),
                            at(ru, div), at(rd, div), at(rn, fma), at(rz, fma), at(ru, fma), at(rd, fma)};
    for (int k = 0; k < 18; ++k)
      EXPECT_EQ(B(o[i * 24 + k]), B(want[k])) << "output " << k << " lane " << i;
    EXPECT_EQ(B(o[i * 24 + 21]), B(at(rn, fma))) << i;
    const float q = x / y;
    EXPECT_EQ(B(o[i * 24 + 23]), B(q + std::sqrt(static_cast<float>(z)))) << i;
  }
}

} // namespace
} // namespace ptxray::test::fp
