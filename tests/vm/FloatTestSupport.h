// Shared by FloatOpsTest and ConvertOpsTest: a kernel that applies one instruction (or a few) per lane
// to inputs from arrays, and host reference arithmetic written independently of src/vm/semantics:
// directed rounding through fesetround with volatile operands, f16 through support/Float16Reference.h, and
// exact narrowing through round-to-odd (truncate, then set the lowest bit if inexact; correct whenever
// the intermediate has at least two more bits than the target).
#pragma once

#include "support/Float16Reference.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace ptxray::test::fp {

using u64 = uint64_t;
using u32 = uint32_t;
using u16 = uint16_t;

inline std::string replaceAll(std::string s, const std::string &from, const std::string &to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

/// Register widths of the operands; 0 = unused.
struct Widths {
  int d = 32, a = 32, b = 32, c = 32;
};

inline std::string reg(char operand, int width) {
  return std::string(width == 16 ? "%h" : width == 64 ? "%x" : "%s") + operand;
}

/// Runs `body` once per input element; `{a}` `{b}` `{c}` are loaded from the arrays (the low `width`
/// bits of each 64-bit element), `{d}` is stored. Scratch: %p1..%p3, %t<4> (b32), %g<4> (b16), %u<4> (b64).
inline std::vector<u64> runKernel(const std::string &body, Widths w, const std::vector<u64> &a,
                                  const std::vector<u64> &b = {}, const std::vector<u64> &c = {},
                                  const char *target = "sm_90") {
  std::string text = body;
  text = replaceAll(text, "{a}", reg('a', w.a ? w.a : 32));
  text = replaceAll(text, "{b}", reg('b', w.b ? w.b : 32));
  text = replaceAll(text, "{c}", reg('c', w.c ? w.c : 32));
  text = replaceAll(text, "{d}", reg('d', w.d));
  auto load = [](char operand, int width, int slot) {
    std::string r = "%rd" + std::to_string(slot);
    return "  ld.param.u64 " + r + ", [p" + operand + "];\n  add.s64 " + r + ", " + r + ", %rd0;\n  ld.global.b" +
           std::to_string(width) + " " + reg(operand, width) + ", [" + r + "];\n";
  };
  std::string ptx = std::string(".version 8.0\n.target ") + target + R"(
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd, .param .u32 n)
{
  .reg .b16 %ha, %hb, %hc, %hd, %g<4>;
  .reg .b32 %sa, %sb, %sc, %sd, %t<4>;
  .reg .b64 %xa, %xb, %xc, %xd, %u<4>;
  .reg .pred %p<4>;
  .reg .b32 %i<4>;
  .reg .b64 %rd<8>;
  mov.u32 %i1, %ctaid.x;
  mov.u32 %i2, %ntid.x;
  mov.u32 %i3, %tid.x;
  mad.lo.u32 %i0, %i1, %i2, %i3;
  ld.param.u32 %i1, [n];
  setp.ge.u32 %p0, %i0, %i1;
  @%p0 bra DONE;
  mul.wide.u32 %rd0, %i0, 8;
)";
  if (w.a)
    ptx += load('a', w.a, 1);
  if (w.b)
    ptx += load('b', w.b, 2);
  if (w.c)
    ptx += load('c', w.c, 3);
  ptx += text + "\n";
  ptx += "  ld.param.u64 %rd4, [pd];\n  add.s64 %rd4, %rd4, %rd0;\n  st.global.b" + std::to_string(w.d) + " [%rd4], " +
         reg('d', w.d) + ";\nDONE:\n  ret;\n}\n";
  VmHarness h;
  auto &m = h.load(ptx);
  const size_t n = a.size();
  auto orZero = [&](const std::vector<u64> &v) { return v.empty() ? std::vector<u64>(n, 0) : v; };
  uint64_t pa = h.upload(a), pb = h.upload(orZero(b)), pc = h.upload(orZero(c));
  uint64_t pd = h.upload(std::vector<u64>(n, 0));
  auto r = h.launch(m, "k", {static_cast<uint32_t>((n + 127) / 128), 1, 1}, {128, 1, 1}, pa, pb, pc, pd,
                    static_cast<uint32_t>(n));
  EXPECT_TRUE(r.ok()) << body << "\n" << describe(r);
  auto out = h.download<u64>(pd, n);
  const u64 mask = w.d == 64 ? ~u64{0} : (u64{1} << w.d) - 1;
  for (auto &v : out)
    v &= mask;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Bits

inline float F(u32 b) {
  return std::bit_cast<float>(b);
}
inline double D(u64 b) {
  return std::bit_cast<double>(b);
}
inline u32 B(float f) {
  return std::bit_cast<u32>(f);
}
inline u64 B(double d) {
  return std::bit_cast<u64>(d);
}
/// f16 bits as a float (exact).
inline float H(u16 b) {
  return halfToFloat(b);
}

inline float flush(float x) {
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
}
inline u16 flushH(u16 h) {
  return (h & 0x7c00) == 0 ? static_cast<u16>(h & 0x8000) : h;
}

/// Runs f under the host rounding mode `mode`, restoring round-to-nearest after.
template <class F> auto rounded(int mode, F f) {
  std::fesetround(mode);
  auto r = f();
  std::fesetround(FE_TONEAREST);
  return r;
}

/// f() computed in double, rounded to odd (towards zero, lowest bit set when inexact).
template <class F> double roundToOdd(F f) {
  std::feclearexcept(FE_INEXACT);
  std::fesetround(FE_TOWARDZERO);
  volatile double r = f();
  const bool inexact = std::fetestexcept(FE_INEXACT);
  std::fesetround(FE_TONEAREST);
  double v = r;
  if (inexact && std::isfinite(v))
    v = D(B(v) | 1);
  return v;
}

/// double -> f16 bits rounded in the host direction `mode`: to float by round-to-odd (exact for the
/// 11-bit target), then to f16 in `mode`.
inline u16 toHalf(double x, int mode = FE_TONEAREST) {
  if (std::isnan(x))
    return floatToHalf(static_cast<float>(x), mode);
  volatile double v = x;
  std::feclearexcept(FE_INEXACT);
  std::fesetround(FE_TOWARDZERO);
  volatile float f = static_cast<float>(v);
  const bool inexact = std::fetestexcept(FE_INEXACT);
  std::fesetround(FE_TONEAREST);
  u32 b = std::bit_cast<u32>(static_cast<float>(f));
  if (inexact)
    b |= 1;
  return floatToHalf(std::bit_cast<float>(b), mode);
}

/// double -> bf16 bits: to float by round-to-odd, then to 8 fraction bits in direction `mode`.
inline u16 toBF16(double x, int mode = FE_TONEAREST) {
  if (std::isnan(x))
    return 0x7fff;
  volatile double v = x;
  std::feclearexcept(FE_INEXACT);
  std::fesetround(FE_TOWARDZERO);
  volatile float f = static_cast<float>(v);
  const bool inexact = std::fetestexcept(FE_INEXACT);
  std::fesetround(FE_TONEAREST);
  u32 b = B(static_cast<float>(f));
  if (inexact && (b & 0x7f800000) != 0x7f800000)
    b |= 1;
  else if (inexact) // |x| beyond float range: truncation gave inf? (never: RZ gives max finite)
    b |= 1;
  const bool neg = b >> 31;
  const u32 low = b & 0xffff;
  u32 t = b >> 16;
  bool up = false;
  switch (mode) {
  case FE_TONEAREST: up = low > 0x8000 || (low == 0x8000 && (t & 1)); break;
  case FE_UPWARD: up = !neg && low != 0; break;
  case FE_DOWNWARD: up = neg && low != 0; break;
  default: break;
  }
  if ((b & 0x7f800000) == 0x7f800000)
    return static_cast<u16>(t);
  return static_cast<u16>(t + (up ? 1 : 0));
}

inline float bf16ToFloat(u16 h) {
  return F(u32{h} << 16);
}

// ---------------------------------------------------------------------------------------------
// Inputs

inline std::vector<u32> f32Edges() {
  return {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f000000, 0x3fc00000, 0x40000000, 0x40400000, 0x7f800000,
          0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x00000001, 0x007fffff, 0x807fffff, 0x00800000, 0x80800000,
          0x7f7fffff, 0xff7fffff, 0x3f800001, 0x3f7fffff, 0x33800000, 0x33800001, 0x34000000, 0x4b800000, 0x4b000001,
          0x3eaaaaab, 0xc0490fdb, 0x1f800000, 0x5f800000, 0x00400000, 0x3f7ffffe, 0xbf400000, 0x7e800000, 0x01000000};
}
inline std::vector<u64> f64Edges() {
  return {0x0000000000000000, 0x8000000000000000, 0x3ff0000000000000, 0xbff0000000000000, 0x3fe0000000000000,
          0x3ff8000000000000, 0x4000000000000000, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
          0xfff8000000000000, 0x7ff0000000000001, 0x0000000000000001, 0x000fffffffffffff, 0x800fffffffffffff,
          0x0010000000000000, 0x7fefffffffffffff, 0xffefffffffffffff, 0x3ff0000000000001, 0x3fefffffffffffff,
          0x3ca0000000000000, 0x3ca0000000000001, 0x4340000000000000, 0x3fd5555555555555, 0xc00921fb54442d18,
          0x1ff0000000000000, 0x5ff0000000000000, 0x7fe0000000000000};
}
inline std::vector<u16> f16Edges() {
  return {0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4000, 0x7c00, 0xfc00, 0x7e00,
          0xfe00, 0x7c01, 0x0001, 0x03ff, 0x83ff, 0x0400, 0x7bff, 0xfbff, 0x3c01, 0x3bff,
          0x1400, 0x1401, 0x3555, 0xc248, 0x6400, 0x5bff, 0x0200, 0x2000};
}
inline std::vector<u16> bf16Edges() {
  return {0x0000, 0x8000, 0x3f80, 0xbf80, 0x3f00, 0x3fc0, 0x4000, 0x7f80, 0xff80,
          0x7fc0, 0xffc0, 0x7f81, 0x0001, 0x007f, 0x807f, 0x0080, 0x7f7f, 0xff7f,
          0x3f81, 0x3f7f, 0x3b80, 0x3b81, 0x3eab, 0xc049, 0x4b80, 0x0100, 0x7f00};
}

/// All pairs of `edges` plus `extra` random pairs from `gen`.
template <class T, class G>
void pairs(const std::vector<T> &edges, size_t extra, G gen, std::vector<u64> &a, std::vector<u64> &b) {
  for (T x : edges)
    for (T y : edges) {
      a.push_back(x);
      b.push_back(y);
    }
  for (size_t i = 0; i < extra; ++i) {
    a.push_back(gen());
    b.push_back(gen());
  }
}

/// A random f32: any bit pattern, or a value with a small exponent range (cancellation, halfway cases).
struct RandomF32 {
  std::mt19937 rng;
  explicit RandomF32(uint32_t seed) : rng(seed) {}
  u64 operator()() {
    const u32 r = static_cast<u32>(rng());
    if (rng() % 2)
      return r;
    return (r & 0x807fffff) | ((118 + rng() % 18) << 23);
  }
};
struct RandomF64 {
  std::mt19937_64 rng;
  explicit RandomF64(uint32_t seed) : rng(seed) {}
  u64 operator()() {
    const u64 r = rng();
    if (rng() % 2)
      return r;
    return (r & 0x800fffffffffffffull) | ((1013 + rng() % 20) << 52);
  }
};
struct Random16 {
  std::mt19937 rng;
  explicit Random16(uint32_t seed) : rng(seed) {}
  u64 operator()() { return static_cast<u16>(rng()); }
};

inline std::string hex(u64 v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

} // namespace ptxray::test::fp
