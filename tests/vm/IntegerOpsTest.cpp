// Integer, logic, bit-manipulation and extended-precision instructions run through the VM. Every lane
// computes one instruction over inputs full of edge cases (0, 1, -1, the extreme signed values, shift
// amounts around the width, random values from a fixed seed) and the result is compared with a host
// computation written straight from the PTX ISA's semantics, independent of the VM's code.
#include "support/VmHarness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace ptxray::test {
namespace {

using u64 = uint64_t;
using u32 = uint32_t;
using u16 = uint16_t;
using s64 = int64_t;
using s32 = int32_t;
using s16 = int16_t;
using u128 = unsigned __int128;

/// One instruction (or a short sequence) under test. `{a}` `{b}` `{c}` `{e}` are source registers and
/// `{d}` `{f}` destinations, of the widths given (16, 32 or 64 bits); scratch registers %w<16> (b32),
/// %q<8> (b64) and %p<6> (pred) are declared too.
struct Case {
  std::string ptx;
  int wd = 32, wa = 32, wb = 32, wc = 32, we = 32, wf = 0;
};

struct Inputs {
  std::vector<u64> a, b, c, e;
};

std::string regName(char operand, int width) {
  const char *prefix = width == 16 ? "%h" : width == 64 ? "%x" : "%s";
  return std::string(prefix) + operand;
}

std::string kernelFor(const Case &c) {
  std::string body = c.ptx;
  body = replaceAll(body, "{a}", regName('a', c.wa));
  body = replaceAll(body, "{b}", regName('b', c.wb));
  body = replaceAll(body, "{c}", regName('c', c.wc));
  body = replaceAll(body, "{e}", regName('e', c.we));
  body = replaceAll(body, "{d}", regName('d', c.wd));
  if (c.wf)
    body = replaceAll(body, "{f}", regName('f', c.wf));
  auto ld = [](char operand, int width, const char *address) {
    return "  ld.global.b" + std::to_string(width) + " " + regName(operand, width) + ", [" + address + "];\n";
  };
  std::string s = R"(.version 8.3
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pe, .param .u64 pd, .param .u64 pf,
                  .param .u32 n)
{
  .reg .b16 %ha, %hb, %hc, %he, %hd, %hf;
  .reg .b32 %sa, %sb, %sc, %se, %sd, %sf;
  .reg .b64 %xa, %xb, %xc, %xe, %xd, %xf;
  .reg .b32 %w<16>;
  .reg .b64 %q<8>;
  .reg .pred %p<6>;
  .reg .b32 %i<8>;
  .reg .b64 %rd<16>;
  .reg .pred %done;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u64 %rd4, [pe];
  ld.param.u64 %rd5, [pd];
  ld.param.u64 %rd6, [pf];
  ld.param.u32 %i1, [n];
  mov.u32 %i2, %tid.x;
  mov.u32 %i3, %ctaid.x;
  mov.u32 %i4, %ntid.x;
  mad.lo.s32 %i5, %i3, %i4, %i2;
  setp.ge.u32 %done, %i5, %i1;
  @%done bra DONE;
  mul.wide.u32 %rd7, %i5, 8;
  add.s64 %rd1, %rd1, %rd7;
  add.s64 %rd2, %rd2, %rd7;
  add.s64 %rd3, %rd3, %rd7;
  add.s64 %rd4, %rd4, %rd7;
  add.s64 %rd5, %rd5, %rd7;
  add.s64 %rd6, %rd6, %rd7;
)";
  s += ld('a', c.wa, "%rd1") + ld('b', c.wb, "%rd2") + ld('c', c.wc, "%rd3") + ld('e', c.we, "%rd4");
  s += "  " + body + "\n";
  s += "  st.global.b" + std::to_string(c.wd) + " [%rd5], " + regName('d', c.wd) + ";\n";
  if (c.wf)
    s += "  st.global.b" + std::to_string(c.wf) + " [%rd6], " + regName('f', c.wf) + ";\n";
  s += "DONE:\n  ret;\n}\n";
  return s;
}

u64 widthMask(int bits) {
  return bits >= 64 ? ~u64{0} : (u64{1} << bits) - 1;
}

/// Values every operand sees: zero, one, all ones, the signed extremes of each width, shift amounts
/// around each width, byte patterns.
const std::vector<u64> &edges() {
  static const std::vector<u64> v = {0,
                                     1,
                                     2,
                                     3,
                                     ~u64{0},
                                     ~u64{0} - 1,
                                     0x7fff,
                                     0x8000,
                                     0xffff,
                                     0x7fffffff,
                                     0x80000000,
                                     0xffffffff,
                                     0x100000000ull,
                                     0x7fffffffffffffffull,
                                     0x8000000000000000ull,
                                     15,
                                     16,
                                     17,
                                     31,
                                     32,
                                     33,
                                     63,
                                     64,
                                     65,
                                     255,
                                     256,
                                     0x12345678,
                                     0x80808080,
                                     0xdeadbeefcafebabeull,
                                     0xffffffff80000000ull,
                                     0x00ff00ff00ff00ffull};
  return v;
}

/// Every pair of edge values for (a, b) plus random lanes; c and e cycle through the edges with
/// other strides or are random.
Inputs makeInputs(uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  const auto &E = edges();
  Inputs in;
  for (u64 x : E)
    for (u64 y : E) {
      in.a.push_back(x);
      in.b.push_back(y);
    }
  const size_t pairs = in.a.size();
  // Random values of every magnitude: full 64-bit, 32-bit, 16-bit, small.
  auto randomValue = [&]() -> u64 {
    u64 r = rng();
    switch (rng() % 5) {
    case 0: return r;
    case 1: return r & 0xffffffff;
    case 2: return r & 0xffff;
    case 3: return r & 0x7f;
    default: return static_cast<u64>(static_cast<s64>(static_cast<s32>(r)));
    }
  };
  for (size_t i = 0; i < 600; ++i) {
    in.a.push_back(randomValue());
    in.b.push_back(randomValue());
  }
  for (size_t i = 0; i < in.a.size(); ++i) {
    bool useEdge = i < pairs ? (i % 3 != 0) : (i % 4 == 0);
    in.c.push_back(useEdge ? E[(i * 7 + i / E.size()) % E.size()] : randomValue());
    in.e.push_back(useEdge ? E[(i * 11 + 3) % E.size()] : randomValue());
  }
  return in;
}

using HostFn = std::function<u64(u64, u64, u64, u64)>;
using HostPair = std::function<std::pair<u64, u64>(u64, u64, u64, u64)>;

struct Results {
  std::vector<u64> d, f;
};

Results runCase(const Case &c, const Inputs &in) {
  VmHarness h;
  auto &m = h.load(kernelFor(c));
  const uint32_t n = static_cast<uint32_t>(in.a.size());
  uint64_t pa = h.upload(in.a), pb = h.upload(in.b), pc = h.upload(in.c), pe = h.upload(in.e);
  uint64_t pd = h.upload(std::vector<u64>(n, 0)), pf = h.upload(std::vector<u64>(n, 0));
  auto r = h.launch(m, "k", {(n + 127) / 128, 1, 1}, {128, 1, 1}, pa, pb, pc, pe, pd, pf, n);
  Results out;
  EXPECT_TRUE(r.ok()) << c.ptx << "\n" << describe(r);
  if (!r.ok())
    return out;
  out.d = h.download<u64>(pd, n);
  out.f = h.download<u64>(pf, n);
  return out;
}

/// Runs `c` and compares every lane's destination with `expect` (both truncated to the width).
void check(const Case &c, const HostFn &expect, const Inputs &in = makeInputs()) {
  SCOPED_TRACE(c.ptx);
  Results r = runCase(c, in);
  if (r.d.empty())
    return;
  const u64 mask = widthMask(c.wd);
  int failures = 0;
  for (size_t i = 0; i < in.a.size() && failures < 8; ++i) {
    u64 want = expect(in.a[i], in.b[i], in.c[i], in.e[i]) & mask;
    u64 got = r.d[i] & mask;
    if (want != got) {
      ++failures;
      ADD_FAILURE() << std::hex << "lane input " << std::dec << i << std::hex << ": a=0x" << in.a[i] << " b=0x"
                    << in.b[i] << " c=0x" << in.c[i] << " e=0x" << in.e[i] << " -> got 0x" << got << ", want 0x"
                    << want;
    }
  }
}

/// Two destinations ({d} and {f}).
void check2(const Case &c, const HostPair &expect, const Inputs &in = makeInputs()) {
  SCOPED_TRACE(c.ptx);
  Results r = runCase(c, in);
  if (r.d.empty())
    return;
  int failures = 0;
  for (size_t i = 0; i < in.a.size() && failures < 8; ++i) {
    auto [wd, wf] = expect(in.a[i], in.b[i], in.c[i], in.e[i]);
    u64 gd = r.d[i] & widthMask(c.wd), gf = r.f[i] & widthMask(c.wf);
    wd &= widthMask(c.wd);
    wf &= widthMask(c.wf);
    if (gd != wd || gf != wf) {
      ++failures;
      ADD_FAILURE() << std::hex << "a=0x" << in.a[i] << " b=0x" << in.b[i] << " c=0x" << in.c[i] << " e=0x" << in.e[i]
                    << " -> got (0x" << gd << ", 0x" << gf << "), want (0x" << wd << ", 0x" << wf << ")";
    }
  }
}

Case bin(const std::string &ptx, int w) {
  return Case{ptx, w, w, w, w, w};
}

// ---------------------------------------------------------------------------------------------
// Host references, written from the ISA's semantics sections bit by bit.

u64 bit(u64 v, int i) {
  return (v >> i) & 1;
}

u64 hostShl(u64 a, u64 b, int n) {
  u32 amount = static_cast<u32>(b);
  u64 r = 0;
  for (int i = 0; i < n; ++i) // d[i] = a[i - amount] for i >= amount
    if (static_cast<u64>(i) >= amount && bit(a, i - static_cast<int>(amount)))
      r |= u64{1} << i;
  return r;
}

u64 hostShr(u64 a, u64 b, int n, bool isSigned) {
  u32 amount = static_cast<u32>(b);
  u64 fill = isSigned ? bit(a, n - 1) : 0;
  u64 r = 0;
  for (int i = 0; i < n; ++i) {
    u64 srcIndex = static_cast<u64>(i) + amount;
    u64 v = srcIndex < static_cast<u64>(n) ? bit(a, static_cast<int>(srcIndex)) : fill;
    r |= v << i;
  }
  return r;
}

u64 hostBfe(u64 a, u64 b, u64 c, int n, bool isSigned) {
  int msb = n - 1;
  int pos = static_cast<int>(b & 0xff), len = static_cast<int>(c & 0xff);
  u64 sbit = (!isSigned || len == 0) ? 0 : bit(a, std::min(pos + len - 1, msb));
  u64 d = 0;
  for (int i = 0; i <= msb; ++i) {
    u64 v = (i < len && pos + i <= msb) ? bit(a, pos + i) : sbit;
    d |= v << i;
  }
  return d;
}

u64 hostBfi(u64 a, u64 b, u64 c, u64 d, int n) {
  int msb = n - 1;
  int pos = static_cast<int>(c & 0xff), len = static_cast<int>(d & 0xff);
  u64 f = b;
  for (int i = 0; i < len && pos + i <= msb; ++i) {
    f &= ~(u64{1} << (pos + i));
    f |= bit(a, i) << (pos + i);
  }
  return f;
}

u64 hostBfind(u64 a, int n, bool isSigned, bool shiftAmt) {
  int msb = n - 1;
  if (isSigned && bit(a, msb))
    a = ~a;
  u32 d = 0xffffffff;
  for (int i = msb; i >= 0; --i)
    if (bit(a, i)) {
      d = static_cast<u32>(i);
      break;
    }
  if (shiftAmt && d != 0xffffffff)
    d = static_cast<u32>(msb) - d;
  return d;
}

u64 hostFns(u32 mask, u32 base, s32 offset) {
  u32 d = 0xffffffff;
  if (offset == 0) {
    if (bit(mask, static_cast<int>(base)))
      d = base;
  } else {
    s64 pos = base;
    s64 count = (offset < 0 ? -static_cast<s64>(offset) : offset) - 1;
    int inc = offset > 0 ? 1 : -1;
    while (pos >= 0 && pos < 32) {
      if (bit(mask, static_cast<int>(pos))) {
        if (count == 0) {
          d = static_cast<u32>(pos);
          break;
        }
        --count;
      }
      pos += inc;
    }
  }
  return d;
}

/// prmt from the ISA's selection tables (written out as tables, not formulas).
u64 hostPrmt(u64 ra, u64 rb, u64 rc, const std::string &mode) {
  u64 tmp64 = (static_cast<u64>(static_cast<u32>(rb)) << 32) | static_cast<u32>(ra);
  u32 c = static_cast<u32>(rc);
  // Rows: selector c[1:0]; columns: d.b0, d.b1, d.b2, d.b3 source byte.
  static const std::map<std::string, std::array<std::array<int, 4>, 4>> tables = {
      {"f4e", {{{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}}},
      {"b4e", {{{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}}}},
      {"rc8", {{{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}}},
      {"ecl", {{{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}}}},
      {"ecr", {{{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}}},
      {"rc16", {{{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}}},
  };
  u32 r = 0;
  for (int i = 0; i < 4; ++i) {
    u32 byte;
    if (mode.empty()) {
      u32 sel = (c >> (4 * i)) & 0xf;
      byte = static_cast<u32>(tmp64 >> (8 * (sel & 7))) & 0xff;
      if (sel & 8)
        byte = (byte & 0x80) ? 0xff : 0x00;
    } else {
      int src = tables.at(mode)[c & 3][i];
      byte = static_cast<u32>(tmp64 >> (8 * src)) & 0xff;
    }
    r |= byte << (8 * i);
  }
  return r;
}

u64 hostShf(u64 a, u64 b, u64 c, bool left, bool clamp) {
  u32 cc = static_cast<u32>(c);
  u32 n = clamp ? std::min<u32>(cc, 32) : (cc & 0x1f);
  u32 lo = static_cast<u32>(a), hi = static_cast<u32>(b);
  // Bit by bit over the 64-bit concatenation [hi, lo].
  auto src = [&](int i) -> u64 { return i < 32 ? bit(lo, i) : bit(hi, i - 32); };
  u32 d = 0;
  for (int i = 0; i < 32; ++i) {
    int from = left ? 32 + i - static_cast<int>(n) : i + static_cast<int>(n);
    if (from >= 0 && from < 64 && src(from))
      d |= 1u << i;
  }
  return d;
}

u64 hostBmsk(u64 ra, u64 rb, bool clamp) {
  u32 a = static_cast<u32>(ra), b = static_cast<u32>(rb);
  u32 start = a & 0x1f, width = b & 0x1f;
  if (clamp && a >= 32)
    return 0;
  if (clamp && b >= 32)
    width = 32;
  u32 d = 0;
  for (u32 i = start; i < 32 && i < start + width; ++i)
    d |= 1u << i;
  return d;
}

u64 hostSzext(u64 ra, u64 rb, bool isSigned, bool clamp) {
  u32 a = static_cast<u32>(ra), b = static_cast<u32>(rb);
  u32 n = (clamp && b >= 32) ? 32 : (b & 0x1f);
  if (n == 0)
    return 0;
  if (n == 32)
    return a;
  u32 d = a & ((1u << n) - 1);
  if (isSigned && bit(a, static_cast<int>(n) - 1))
    d |= ~((1u << n) - 1);
  return d;
}

s64 ext(u64 v, int bits, bool isSigned) {
  u64 m = widthMask(bits);
  v &= m;
  if (isSigned && bit(v, bits - 1))
    return static_cast<s64>(v | ~m);
  return static_cast<s64>(v);
}

u64 hostDp4a(u64 a, u64 b, u64 c, bool sa, bool sb) {
  s64 d = static_cast<s64>(static_cast<u32>(c));
  for (int i = 0; i < 4; ++i)
    d += ext(a >> (8 * i), 8, sa) * ext(b >> (8 * i), 8, sb);
  return static_cast<u32>(d);
}

u64 hostDp2a(u64 a, u64 b, u64 c, bool sa, bool sb, bool hi) {
  s64 d = static_cast<s64>(static_cast<u32>(c));
  int sel = hi ? 2 : 0;
  for (int i = 0; i < 2; ++i)
    d += ext(a >> (16 * i), 16, sa) * ext(b >> (8 * (sel + i)), 8, sb);
  return static_cast<u32>(d);
}

u64 lop3Host(u64 a, u64 b, u64 c, u32 lut) {
  u32 r = 0;
  for (int i = 0; i < 32; ++i) {
    u32 index = static_cast<u32>((bit(a, i) << 2) | (bit(b, i) << 1) | bit(c, i));
    r |= ((lut >> index) & 1) << i;
  }
  return r;
}

std::string typeName(int w, char kind) {
  return std::string(".") + kind + std::to_string(w);
}

// ---------------------------------------------------------------------------------------------
// Logic

TEST(IntegerOps, AndOrXorNotCnot) {
  for (int w : {16, 32, 64}) {
    std::string t = typeName(w, 'b');
    check(bin("and" + t + " {d}, {a}, {b};", w), [](u64 a, u64 b, u64, u64) { return a & b; });
    check(bin("or" + t + " {d}, {a}, {b};", w), [](u64 a, u64 b, u64, u64) { return a | b; });
    check(bin("xor" + t + " {d}, {a}, {b};", w), [](u64 a, u64 b, u64, u64) { return a ^ b; });
    check(bin("not" + t + " {d}, {a};", w), [](u64 a, u64, u64, u64) { return ~a; });
    check(bin("cnot" + t + " {d}, {a};", w),
          [w](u64 a, u64, u64, u64) -> u64 { return (a & widthMask(w)) == 0 ? 1 : 0; });
  }
  // Immediates as operands.
  check(bin("and.b32 {d}, {a}, 0xff00ff00;", 32), [](u64 a, u64, u64, u64) { return a & 0xff00ff00; });
  check(bin("xor.b64 {d}, {a}, -1;", 64), [](u64 a, u64, u64, u64) { return ~a; });
  check(bin("or.b16 {d}, {a}, 0x8001;", 16), [](u64 a, u64, u64, u64) { return a | 0x8001; });
  check(bin("and.b64 {d}, 0x00000000ffff0000, {b};", 64), [](u64, u64 b, u64, u64) { return b & 0xffff0000; });
}

TEST(IntegerOps, PredicateLogic) {
  const std::string setup = "setp.ne.b32 %p1, {a}, 0; setp.ne.b32 %p2, {b}, 0; ";
  auto nz = [](u64 v) { return static_cast<u32>(v) != 0; };
  struct P {
    std::string op;
    std::function<bool(bool, bool)> f;
  };
  std::vector<P> cases = {
      {"and.pred %p3, %p1, %p2;", [](bool x, bool y) { return x && y; }},
      {"or.pred %p3, %p1, %p2;", [](bool x, bool y) { return x || y; }},
      {"xor.pred %p3, %p1, %p2;", [](bool x, bool y) { return x != y; }},
      {"not.pred %p3, %p1;", [](bool x, bool) { return !x; }},
      {"and.pred %p3, %p1, !%p2;", [](bool x, bool y) { return x && !y; }},
      {"or.pred %p3, !%p1, %p2;", [](bool x, bool y) { return !x || y; }},
      // the destination also a source
      {"mov.pred %p3, %p2; xor.pred %p3, %p3, %p1;", [](bool x, bool y) { return x != y; }},
  };
  for (const auto &p : cases)
    check(bin(setup + p.op + " selp.u32 {d}, 1, 0, %p3;", 32),
          [&](u64 a, u64 b, u64, u64) -> u64 { return p.f(nz(a), nz(b)) ? 1 : 0; });
  // A guarded predicate op leaves the other lanes' predicate alone.
  check(bin("setp.ne.b32 %p1, {a}, 0; setp.ne.b32 %p2, {b}, 0; setp.ne.b32 %p4, {c}, 0; mov.pred %p3, %p4;"
            " @%p1 not.pred %p3, %p2; selp.u32 {d}, 1, 0, %p3;",
            32),
        [&](u64 a, u64 b, u64 c, u64) -> u64 { return (nz(a) ? !nz(b) : nz(c)) ? 1 : 0; });
}

TEST(IntegerOps, Shifts) {
  for (int w : {16, 32, 64}) {
    Case shl{std::string("shl") + typeName(w, 'b') + " {d}, {a}, {b};", w, w, 32, 32, 32};
    check(shl, [w](u64 a, u64 b, u64, u64) { return hostShl(a, b, w); });
    for (char kind : {'b', 'u', 's'}) {
      Case shr{std::string("shr") + typeName(w, kind) + " {d}, {a}, {b};", w, w, 32, 32, 32};
      check(shr, [w, kind](u64 a, u64 b, u64, u64) { return hostShr(a, b, w, kind == 's'); });
    }
  }
  for (int amount : {0, 1, 15, 16, 31, 32, 33, 63, 64, 255}) {
    std::string imm = std::to_string(amount);
    check(bin("shl.b32 {d}, {a}, " + imm + ";", 32), [=](u64 a, u64, u64, u64) { return hostShl(a, amount, 32); });
    check(bin("shr.s32 {d}, {a}, " + imm + ";", 32),
          [=](u64 a, u64, u64, u64) { return hostShr(a, amount, 32, true); });
    check(Case{"shr.u64 {d}, {a}, " + imm + ";", 64, 64, 32, 32, 32},
          [=](u64 a, u64, u64, u64) { return hostShr(a, amount, 64, false); });
    check(Case{"shr.s16 {d}, {a}, " + imm + ";", 16, 16, 32, 32, 32},
          [=](u64 a, u64, u64, u64) { return hostShr(a, amount, 16, true); });
  }
  // A shift amount of 2^32 + 1 is not 1: the operand is 32 bits, so it reads as 1.
  check(Case{"shl.b64 {d}, 5, {b};", 64, 64, 32, 32, 32}, [](u64, u64 b, u64, u64) { return hostShl(5, b, 64); });
}

TEST(IntegerOps, Lop3) {
  for (u32 lut : {0x00u, 0xffu, 0x80u, 0xfeu, 0x40u, 0x1au, 0x96u, 0xe8u, 0xf0u, 0xccu, 0xaau, 0x6bu, 0x3cu}) {
    check(bin("lop3.b32 {d}, {a}, {b}, {c}, " + std::to_string(lut) + ";", 32),
          [lut](u64 a, u64 b, u64 c, u64) { return lop3Host(a, b, c, lut); });
  }
  // Predicate forms: p = (d != 0) BoolOp q; d may be a sink.
  auto nz = [](u64 v) { return static_cast<u32>(v) != 0; };
  check2(Case{"setp.ne.b32 %p2, {e}, 0; lop3.and.b32 {d}|%p1, {a}, {b}, {c}, 0x80, %p2; selp.u32 {f}, 1, 0, %p1;", 32,
              32, 32, 32, 32, 32},
         [&](u64 a, u64 b, u64 c, u64 e) -> std::pair<u64, u64> {
           u64 d = lop3Host(a, b, c, 0x80);
           return {d, (d != 0 && nz(e)) ? 1 : 0};
         });
  check2(Case{"setp.ne.b32 %p2, {e}, 0; lop3.or.b32 {d}|%p1, {a}, {b}, {c}, 0x96, !%p2; selp.u32 {f}, 1, 0, %p1;", 32,
              32, 32, 32, 32, 32},
         [&](u64 a, u64 b, u64 c, u64 e) -> std::pair<u64, u64> {
           u64 d = lop3Host(a, b, c, 0x96);
           return {d, (d != 0 || !nz(e)) ? 1 : 0};
         });
  check(Case{"setp.ne.b32 %p2, {e}, 0; lop3.or.b32 _|%p1, {a}, {b}, {c}, 0x1a, %p2; selp.u32 {d}, 1, 0, %p1;", 32},
        [&](u64 a, u64 b, u64 c, u64 e) -> u64 { return (lop3Host(a, b, c, 0x1a) != 0 || nz(e)) ? 1 : 0; });
}

TEST(IntegerOps, BitFieldExtractInsert) {
  for (int w : {32, 64})
    for (char kind : {'u', 's'})
      check(Case{std::string("bfe") + typeName(w, kind) + " {d}, {a}, {b}, {c};", w, w, 32, 32, 32},
            [w, kind](u64 a, u64 b, u64 c, u64) { return hostBfe(a, b, c, w, kind == 's'); });
  check(bin("bfe.s32 {d}, {a}, 8, 8;", 32), [](u64 a, u64, u64, u64) { return hostBfe(a, 8, 8, 32, true); });
  check(Case{"bfe.u64 {d}, {a}, 60, {c};", 64, 64, 32, 32, 32},
        [](u64 a, u64, u64 c, u64) { return hostBfe(a, 60, c, 64, false); });
  for (int w : {32, 64})
    check(Case{std::string("bfi") + typeName(w, 'b') + " {d}, {a}, {b}, {c}, {e};", w, w, w, 32, 32},
          [w](u64 a, u64 b, u64 c, u64 e) { return hostBfi(a, b, c, e, w); });
  check(bin("bfi.b32 {d}, {a}, {b}, 28, 8;", 32), [](u64 a, u64 b, u64, u64) { return hostBfi(a, b, 28, 8, 32); });
}

TEST(IntegerOps, BitCounting) {
  for (int w : {32, 64}) {
    check(Case{std::string("brev") + typeName(w, 'b') + " {d}, {a};", w, w}, [w](u64 a, u64, u64, u64) {
      u64 r = 0;
      for (int i = 0; i < w; ++i)
        r |= bit(a, w - 1 - i) << i;
      return r;
    });
    check(Case{std::string("clz") + typeName(w, 'b') + " {d}, {a};", 32, w}, [w](u64 a, u64, u64, u64) {
      u64 d = 0;
      while (d < static_cast<u64>(w) && !bit(a, w - 1 - static_cast<int>(d)))
        ++d;
      return d;
    });
    check(Case{std::string("popc") + typeName(w, 'b') + " {d}, {a};", 32, w}, [w](u64 a, u64, u64, u64) {
      u64 d = 0;
      for (int i = 0; i < w; ++i)
        d += bit(a, i);
      return d;
    });
    for (char kind : {'u', 's'})
      for (bool shift : {false, true})
        check(Case{std::string("bfind") + (shift ? ".shiftamt" : "") + typeName(w, kind) + " {d}, {a};", 32, w},
              [=](u64 a, u64, u64, u64) { return hostBfind(a, w, kind == 's', shift); });
  }
  // The popc and clz results are full 32-bit values even from a .b64 source.
  check(Case{"popc.b64 {d}, -1;", 32, 64}, [](u64, u64, u64, u64) -> u64 { return 64; });
  check(Case{"bfind.u32 {d}, 0;", 32, 32}, [](u64, u64, u64, u64) -> u64 { return 0xffffffff; });
}

TEST(IntegerOps, FindNthSet) {
  Inputs in = makeInputs(7);
  std::mt19937 rng(3);
  for (size_t i = 0; i < in.a.size(); ++i) {
    in.b[i] &= 31;
    int choice = static_cast<int>(rng() % 4);
    if (choice == 0)
      in.c[i] = static_cast<u64>(static_cast<s64>(static_cast<int>(rng() % 81) - 40));
    else if (choice == 1)
      in.c[i] = static_cast<u64>(static_cast<s64>(static_cast<int>(rng() % 7) - 3));
  }
  check(
      bin("fns.b32 {d}, {a}, {b}, {c};", 32),
      [](u64 a, u64 b, u64 c, u64) {
        return hostFns(static_cast<u32>(a), static_cast<u32>(b), static_cast<s32>(static_cast<u32>(c)));
      },
      in);
  // The ISA's examples.
  check(bin("fns.b32 {d}, 0xaaaaaaaa, 3, 1;", 32), [](u64, u64, u64, u64) -> u64 { return 3; });
  check(bin("fns.b32 {d}, 0xaaaaaaaa, 3, -1;", 32), [](u64, u64, u64, u64) -> u64 { return 3; });
  check(bin("fns.b32 {d}, 0xaaaaaaaa, 2, 1;", 32), [](u64, u64, u64, u64) -> u64 { return 3; });
  check(bin("fns.b32 {d}, 0xaaaaaaaa, 2, -1;", 32), [](u64, u64, u64, u64) -> u64 { return 1; });
}

TEST(IntegerOps, Permute) {
  for (std::string mode : {"", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"}) {
    std::string op = "prmt.b32" + (mode.empty() ? "" : "." + mode) + " {d}, {a}, {b}, {c};";
    check(bin(op, 32), [mode](u64 a, u64 b, u64 c, u64) { return hostPrmt(a, b, c, mode); });
  }
  check(bin("prmt.b32 {d}, {a}, {b}, 0x8f19;", 32), [](u64 a, u64 b, u64, u64) { return hostPrmt(a, b, 0x8f19, ""); });
  check(bin("prmt.b32 {d}, {a}, 0, 0x4440;", 32), [](u64 a, u64, u64, u64) { return hostPrmt(a, 0, 0x4440, ""); });
}

TEST(IntegerOps, FunnelShiftMaskExtend) {
  for (bool left : {false, true})
    for (bool clamp : {false, true}) {
      std::string op =
          std::string("shf.") + (left ? "l" : "r") + (clamp ? ".clamp" : ".wrap") + ".b32 {d}, {a}, {b}, {c};";
      check(bin(op, 32), [=](u64 a, u64 b, u64 c, u64) { return hostShf(a, b, c, left, clamp); });
    }
  check(bin("shf.l.wrap.b32 {d}, {a}, {a}, 40;", 32),
        [](u64 a, u64, u64, u64) { return hostShf(a, a, 40, true, false); });
  for (bool clamp : {false, true}) {
    std::string mode = clamp ? ".clamp" : ".wrap";
    check(bin("bmsk" + mode + ".b32 {d}, {a}, {b};", 32),
          [=](u64 a, u64 b, u64, u64) { return hostBmsk(a, b, clamp); });
    for (char kind : {'u', 's'})
      check(bin("szext" + mode + typeName(32, kind) + " {d}, {a}, {b};", 32),
            [=](u64 a, u64 b, u64, u64) { return hostSzext(a, b, kind == 's', clamp); });
  }
}

TEST(IntegerOps, DotProducts) {
  for (char ka : {'u', 's'})
    for (char kb : {'u', 's'}) {
      std::string types = std::string(typeName(32, ka));
      types += typeName(32, kb);
      bool sa = ka == 's', sb = kb == 's';
      check(bin("dp4a" + types + " {d}, {a}, {b}, {c};", 32),
            [=](u64 a, u64 b, u64 c, u64) { return hostDp4a(a, b, c, sa, sb); });
      for (bool hi : {false, true})
        check(bin(std::string("dp2a") + (hi ? ".hi" : ".lo") + types + " {d}, {a}, {b}, {c};", 32),
              [=](u64 a, u64 b, u64 c, u64) { return hostDp2a(a, b, c, sa, sb, hi); });
    }
}

// ---------------------------------------------------------------------------------------------
// Integer arithmetic (IntegerArithmetic.cpp)

template <class T> u64 bitsOf(T v) {
  return static_cast<u64>(static_cast<std::make_unsigned_t<T>>(v));
}

TEST(IntegerOps, DivRemCornerCases) {
  // Division by zero is machine-specific in the ISA; ptxray gives what the GPU's division sequence
  // gives: all ones unsigned, -1 (a >= 0) or 1 (a < 0) signed; rem by zero gives a.
  auto divRem = [](auto a, auto b, bool isDiv) -> u64 {
    using T = decltype(a);
    if (b == 0) {
      if (!isDiv)
        return bitsOf(a);
      if constexpr (std::is_signed_v<T>)
        return bitsOf(static_cast<T>(a < 0 ? 1 : -1));
      else
        return bitsOf(static_cast<T>(~T(0)));
    }
    if constexpr (std::is_signed_v<T>)
      if (b == -1)
        return isDiv ? bitsOf(static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(a))) : 0;
    return bitsOf(static_cast<T>(isDiv ? a / b : a % b));
  };
  for (bool isDiv : {true, false}) {
    std::string op = isDiv ? "div" : "rem";
    check(bin(op + ".u16 {d}, {a}, {b};", 16),
          [&](u64 a, u64 b, u64, u64) { return divRem(static_cast<u16>(a), static_cast<u16>(b), isDiv); });
    check(bin(op + ".s16 {d}, {a}, {b};", 16),
          [&](u64 a, u64 b, u64, u64) { return divRem(static_cast<s16>(a), static_cast<s16>(b), isDiv); });
    check(bin(op + ".u32 {d}, {a}, {b};", 32),
          [&](u64 a, u64 b, u64, u64) { return divRem(static_cast<u32>(a), static_cast<u32>(b), isDiv); });
    check(bin(op + ".s32 {d}, {a}, {b};", 32),
          [&](u64 a, u64 b, u64, u64) { return divRem(static_cast<s32>(a), static_cast<s32>(b), isDiv); });
    check(bin(op + ".u64 {d}, {a}, {b};", 64), [&](u64 a, u64 b, u64, u64) { return divRem(a, b, isDiv); });
    check(bin(op + ".s64 {d}, {a}, {b};", 64),
          [&](u64 a, u64 b, u64, u64) { return divRem(static_cast<s64>(a), static_cast<s64>(b), isDiv); });
  }
  check(bin("div.s32 {d}, {a}, -7;", 32), [](u64 a, u64, u64, u64) { return bitsOf(static_cast<s32>(a) / -7); });
}

s64 sx(u64 v, int bits) {
  return ext(v, bits, true);
}
u64 zx(u64 v, int bits) {
  return v & widthMask(bits);
}

TEST(IntegerOps, MultiplyVariants) {
  for (int w : {16, 32, 64})
    for (char kind : {'u', 's'}) {
      bool s = kind == 's';
      std::string t = typeName(w, kind);
      auto hiProduct = [=](u64 a, u64 b) -> u64 {
        if (s) {
          __int128 p = static_cast<__int128>(sx(a, w)) * sx(b, w);
          return static_cast<u64>(p >> w);
        }
        u128 p = static_cast<u128>(zx(a, w)) * zx(b, w);
        return static_cast<u64>(p >> w);
      };
      check(bin("mul.lo" + t + " {d}, {a}, {b};", w), [](u64 a, u64 b, u64, u64) { return a * b; });
      check(bin("mul.hi" + t + " {d}, {a}, {b};", w), [=](u64 a, u64 b, u64, u64) { return hiProduct(a, b); });
      check(bin("mad.lo" + t + " {d}, {a}, {b}, {c};", w), [](u64 a, u64 b, u64 c, u64) { return a * b + c; });
      check(bin("mad.hi" + t + " {d}, {a}, {b}, {c};", w),
            [=](u64 a, u64 b, u64 c, u64) { return hiProduct(a, b) + c; });
      if (w < 64) {
        check(Case{"mul.wide" + t + " {d}, {a}, {b};", 2 * w, w, w, w, w},
              [=](u64 a, u64 b, u64, u64) { return s ? static_cast<u64>(sx(a, w) * sx(b, w)) : zx(a, w) * zx(b, w); });
        check(Case{"mad.wide" + t + " {d}, {a}, {b}, {c};", 2 * w, w, w, 2 * w, w}, [=](u64 a, u64 b, u64 c, u64) {
          return (s ? static_cast<u64>(sx(a, w) * sx(b, w)) : zx(a, w) * zx(b, w)) + c;
        });
      }
    }
  // mad.hi.sat.s32: the high word plus c, saturated.
  check(bin("mad.hi.sat.s32 {d}, {a}, {b}, {c};", 32), [](u64 a, u64 b, u64 c, u64) {
    s64 v = ((sx(a, 32) * sx(b, 32)) >> 32) + sx(c, 32);
    return static_cast<u64>(std::clamp<s64>(v, INT32_MIN, INT32_MAX));
  });
  // 24-bit multiplies: the 48-bit product's bits 31..0 or 47..16.
  for (char kind : {'u', 's'}) {
    bool s = kind == 's';
    std::string t = typeName(32, kind);
    auto p48 = [=](u64 a, u64 b) -> s64 { return s ? sx(a, 24) * sx(b, 24) : static_cast<s64>(zx(a, 24) * zx(b, 24)); };
    check(bin("mul24.lo" + t + " {d}, {a}, {b};", 32),
          [=](u64 a, u64 b, u64, u64) { return static_cast<u64>(p48(a, b)); });
    check(bin("mul24.hi" + t + " {d}, {a}, {b};", 32),
          [=](u64 a, u64 b, u64, u64) { return static_cast<u64>(p48(a, b)) >> 16; });
    check(bin("mad24.lo" + t + " {d}, {a}, {b}, {c};", 32),
          [=](u64 a, u64 b, u64 c, u64) { return static_cast<u64>(p48(a, b)) + c; });
    check(bin("mad24.hi" + t + " {d}, {a}, {b}, {c};", 32),
          [=](u64 a, u64 b, u64 c, u64) { return (static_cast<u64>(p48(a, b)) >> 16) + c; });
  }
  check(bin("mad24.hi.sat.s32 {d}, {a}, {b}, {c};", 32), [](u64 a, u64 b, u64 c, u64) {
    s64 hi = sx(static_cast<u64>(sx(a, 24) * sx(b, 24)) >> 16, 32);
    return static_cast<u64>(std::clamp<s64>(hi + sx(c, 32), INT32_MIN, INT32_MAX));
  });
}

TEST(IntegerOps, AddSubAbsNegMinMaxSad) {
  for (int w : {16, 32, 64})
    for (char kind : {'u', 's'}) {
      bool s = kind == 's';
      std::string t = typeName(w, kind);
      auto lt = [=](u64 a, u64 b) { return s ? sx(a, w) < sx(b, w) : zx(a, w) < zx(b, w); };
      check(bin("add" + t + " {d}, {a}, {b};", w), [](u64 a, u64 b, u64, u64) { return a + b; });
      check(bin("sub" + t + " {d}, {a}, {b};", w), [](u64 a, u64 b, u64, u64) { return a - b; });
      check(bin("min" + t + " {d}, {a}, {b};", w), [=](u64 a, u64 b, u64, u64) { return lt(a, b) ? a : b; });
      check(bin("max" + t + " {d}, {a}, {b};", w), [=](u64 a, u64 b, u64, u64) { return lt(a, b) ? b : a; });
      check(bin("sad" + t + " {d}, {a}, {b}, {c};", w),
            [=](u64 a, u64 b, u64 c, u64) { return c + (lt(a, b) ? b - a : a - b); });
      if (s) {
        check(bin("abs" + t + " {d}, {a};", w), [=](u64 a, u64, u64, u64) { return sx(a, w) < 0 ? 0 - a : a; });
        check(bin("neg" + t + " {d}, {a};", w), [](u64 a, u64, u64, u64) { return 0 - a; });
      }
    }
  check(bin("add.sat.s32 {d}, {a}, {b};", 32), [](u64 a, u64 b, u64, u64) {
    return static_cast<u64>(std::clamp<s64>(sx(a, 32) + sx(b, 32), INT32_MIN, INT32_MAX));
  });
  check(bin("sub.sat.s32 {d}, {a}, {b};", 32), [](u64 a, u64 b, u64, u64) {
    return static_cast<u64>(std::clamp<s64>(sx(a, 32) - sx(b, 32), INT32_MIN, INT32_MAX));
  });
  check(bin("min.relu.s32 {d}, {a}, {b};", 32),
        [](u64 a, u64 b, u64, u64) { return static_cast<u64>(std::max<s64>(std::min(sx(a, 32), sx(b, 32)), 0)); });
  check(bin("max.relu.s32 {d}, {a}, {b};", 32),
        [](u64 a, u64 b, u64, u64) { return static_cast<u64>(std::max<s64>(std::max(sx(a, 32), sx(b, 32)), 0)); });
  // Packed halves.
  auto halves = [](u64 a, u64 b, auto f) {
    u64 r = 0;
    for (int h = 0; h < 2; ++h)
      r |= (f((a >> (16 * h)) & 0xffff, (b >> (16 * h)) & 0xffff) & 0xffff) << (16 * h);
    return r;
  };
  check(bin("add.u16x2 {d}, {a}, {b};", 32),
        [&](u64 a, u64 b, u64, u64) { return halves(a, b, [](u64 x, u64 y) { return x + y; }); });
  check(bin("min.s16x2 {d}, {a}, {b};", 32), [&](u64 a, u64 b, u64, u64) {
    return halves(a, b, [](u64 x, u64 y) { return sx(x, 16) < sx(y, 16) ? x : y; });
  });
  check(bin("max.relu.s16x2 {d}, {a}, {b};", 32), [&](u64 a, u64 b, u64, u64) {
    return halves(a, b,
                  [](u64 x, u64 y) { return static_cast<u64>(std::max<s64>(std::max(sx(x, 16), sx(y, 16)), 0)); });
  });
  check(bin("min.u16x2 {d}, {a}, {b};", 32),
        [&](u64 a, u64 b, u64, u64) { return halves(a, b, [](u64 x, u64 y) { return std::min(x, y); }); });
}

// ---------------------------------------------------------------------------------------------
// Extended precision

TEST(IntegerOps, CarryFlagSingleSteps) {
  for (int w : {32, 64})
    for (char kind : {'u', 's'}) {
      std::string t = typeName(w, kind);
      const u64 m = widthMask(w);
      // The flag read back with addc.u32 d, 0, 0 (d = CF).
      auto withFlag = [&](const std::string &op) { return Case{op + " addc.u32 {f}, 0, 0;", w, w, w, w, w, 32}; };
      check2(withFlag("add.cc" + t + " {d}, {a}, {b};"), [=](u64 a, u64 b, u64, u64) -> std::pair<u64, u64> {
        u128 s = static_cast<u128>(a & m) + (b & m);
        return {static_cast<u64>(s), static_cast<u64>(s >> w) & 1};
      });
      // sub.cc writes the borrow; subc.u32 d, 0, 0 gives -borrow.
      check2(Case{"sub.cc" + t + " {d}, {a}, {b}; subc.u32 {f}, 0, 0;", w, w, w, w, w, 32},
             [=](u64 a, u64 b, u64, u64) -> std::pair<u64, u64> {
               return {a - b, (a & m) < (b & m) ? 0xffffffffu : 0u};
             });
      // Carry in from a first step on c, e (c + e sets CF), then the instruction under test.
      const std::string scratch = w == 32 ? "%w15" : "%q7";
      const std::string set = "add.cc" + t + " " + scratch + ", {c}, {e}; ";
      auto cfOf = [=](u64 c, u64 e) -> u64 { return ((static_cast<u128>(c & m) + (e & m)) >> w) & 1; };
      check2(withFlag(set + "addc.cc" + t + " {d}, {a}, {b};"), [=](u64 a, u64 b, u64 c, u64 e) -> std::pair<u64, u64> {
        u128 s = static_cast<u128>(a & m) + (b & m) + cfOf(c, e);
        return {static_cast<u64>(s), static_cast<u64>(s >> w) & 1};
      });
      check(Case{set + "addc" + t + " {d}, {a}, {b};", w, w, w, w, w},
            [=](u64 a, u64 b, u64 c, u64 e) { return a + b + cfOf(c, e); });
      // subc: d = a - (b + CF), borrow out.
      check2(Case{set + "subc.cc" + t + " {d}, {a}, {b}; subc.u32 {f}, 0, 0;", w, w, w, w, w, 32},
             [=](u64 a, u64 b, u64 c, u64 e) -> std::pair<u64, u64> {
               u128 sub = static_cast<u128>(b & m) + cfOf(c, e);
               return {a - b - cfOf(c, e), static_cast<u128>(a & m) < sub ? 0xffffffffu : 0u};
             });
      // mad.lo/hi.cc and madc.lo/hi{.cc}.
      auto part = [=](u64 a, u64 b, bool hi) -> u64 {
        if (kind == 's') {
          __int128 p = static_cast<__int128>(sx(a, w)) * sx(b, w);
          return static_cast<u64>(hi ? (p >> w) : p) & m;
        }
        u128 p = static_cast<u128>(a & m) * (b & m);
        return static_cast<u64>(hi ? (p >> w) : p) & m;
      };
      for (bool hi : {false, true}) {
        std::string mode = hi ? ".hi" : ".lo";
        check2(withFlag("mad" + mode + ".cc" + t + " {d}, {a}, {b}, {c};"),
               [=](u64 a, u64 b, u64 c, u64) -> std::pair<u64, u64> {
                 u128 s = static_cast<u128>(part(a, b, hi)) + (c & m);
                 return {static_cast<u64>(s), static_cast<u64>(s >> w) & 1};
               });
        // Carry in from e + e.
        std::string setE = "add.cc" + t + " " + scratch + ", {e}, {e}; ";
        auto cfE = [=](u64 e) -> u64 { return ((static_cast<u128>(e & m) * 2) >> w) & 1; };
        check2(Case{setE + "madc" + mode + ".cc" + t + " {d}, {a}, {b}, {c}; addc.u32 {f}, 0, 0;", w, w, w, w, w, 32},
               [=](u64 a, u64 b, u64 c, u64 e) -> std::pair<u64, u64> {
                 u128 s = static_cast<u128>(part(a, b, hi)) + (c & m) + cfE(e);
                 return {static_cast<u64>(s), static_cast<u64>(s >> w) & 1};
               });
        check(Case{setE + "madc" + mode + t + " {d}, {a}, {b}, {c};", w, w, w, w, w},
              [=](u64 a, u64 b, u64 c, u64 e) { return part(a, b, hi) + c + cfE(e); });
      }
    }
  // Immediates as operands.
  check2(Case{"add.cc.u32 {d}, {a}, 0xffffffff; addc.u32 {f}, 0, 0;", 32, 32, 32, 32, 32, 32},
         [](u64 a, u64, u64, u64) -> std::pair<u64, u64> {
           u64 s = (a & 0xffffffff) + 0xffffffff;
           return {s, s >> 32};
         });
}

/// 128-bit values as (lo = a, hi = b) and (lo = c, hi = e).
u128 x128(u64 lo, u64 hi) {
  return (static_cast<u128>(hi) << 64) | lo;
}

TEST(IntegerOps, MultiPrecisionChains) {
  const std::string split = "mov.b64 {%w0, %w1}, {a}; mov.b64 {%w2, %w3}, {b}; mov.b64 {%w4, %w5}, {c}; "
                            "mov.b64 {%w6, %w7}, {e}; ";
  const std::string join = " mov.b64 {d}, {%w8, %w9}; mov.b64 {f}, {%w10, %w11};";
  auto words = [](u128 v) -> std::pair<u64, u64> { return {static_cast<u64>(v), static_cast<u64>(v >> 64)}; };
  const Case wide{"", 64, 64, 64, 64, 64, 64};
  // 128-bit add and sub with 32-bit words.
  Case add32 = wide;
  add32.ptx = split +
              "add.cc.u32 %w8, %w0, %w4; addc.cc.u32 %w9, %w1, %w5; addc.cc.u32 %w10, %w2, %w6; "
              "addc.u32 %w11, %w3, %w7;" +
              join;
  check2(add32, [&](u64 a, u64 b, u64 c, u64 e) { return words(x128(a, b) + x128(c, e)); });
  Case sub32 = wide;
  sub32.ptx = split +
              "sub.cc.u32 %w8, %w0, %w4; subc.cc.u32 %w9, %w1, %w5; subc.cc.u32 %w10, %w2, %w6; "
              "subc.u32 %w11, %w3, %w7;" +
              join;
  check2(sub32, [&](u64 a, u64 b, u64 c, u64 e) { return words(x128(a, b) - x128(c, e)); });
  // 128-bit add and sub with 64-bit words; the final borrow of a 256-bit-style chain as a mask.
  check2(Case{"add.cc.u64 {d}, {a}, {c}; addc.u64 {f}, {b}, {e};", 64, 64, 64, 64, 64, 64},
         [&](u64 a, u64 b, u64 c, u64 e) { return words(x128(a, b) + x128(c, e)); });
  check2(Case{"sub.cc.s64 {d}, {a}, {c}; subc.s64 {f}, {b}, {e};", 64, 64, 64, 64, 64, 64},
         [&](u64 a, u64 b, u64 c, u64 e) { return words(x128(a, b) - x128(c, e)); });
  check2(Case{"sub.cc.u64 %q0, {a}, {c}; subc.cc.u64 {d}, {b}, {e}; subc.u32 {f}, 0, 0;", 64, 64, 64, 64, 64, 32},
         [&](u64 a, u64 b, u64 c, u64 e) -> std::pair<u64, u64> {
           return {b - e - (a < c ? 1 : 0), x128(a, b) < x128(c, e) ? 0xffffffffu : 0u};
         });
  // The ISA's extended-precision multiply: [r3,r2,r1,r0] = [r5,r4] * [r7,r6] (a * c, 64 x 64 -> 128).
  Case mul64 = wide;
  mul64.ptx = split +
              "mul.lo.u32 %w8, %w0, %w4; mul.hi.u32 %w9, %w0, %w4; mad.lo.cc.u32 %w9, %w1, %w4, %w9; "
              "madc.hi.u32 %w10, %w1, %w4, 0; mad.lo.cc.u32 %w9, %w0, %w5, %w9; madc.hi.cc.u32 %w10, %w0, %w5, %w10; "
              "addc.u32 %w11, 0, 0; mad.lo.cc.u32 %w10, %w1, %w5, %w10; madc.hi.u32 %w11, %w1, %w5, %w11;" +
              join;
  check2(mul64, [&](u64 a, u64, u64 c, u64) { return words(static_cast<u128>(a) * c); });
  // 128 x 128 -> low 128 bits with 64-bit words: lo = a*c; hi = hi(a*c) + lo(a*e) + lo(b*c).
  check2(Case{"mul.lo.u64 {d}, {a}, {c}; mul.hi.u64 %q0, {a}, {c}; mad.lo.cc.u64 %q0, {a}, {e}, %q0; "
              "madc.lo.u64 %q1, 0, 0, 0; mad.lo.u64 {f}, {b}, {c}, %q0;",
              64, 64, 64, 64, 64, 64},
         [&](u64 a, u64 b, u64 c, u64 e) { return words(x128(a, b) * x128(c, e)); });
  // 64 x 64 -> 128 with 64-bit words through the carry: (a*c) + (b << 64) using mad.hi/madc.
  check2(
      Case{"mad.lo.cc.u64 {d}, {a}, {c}, {b}; madc.hi.u64 {f}, {a}, {c}, {e};", 64, 64, 64, 64, 64, 64},
      [&](u64 a, u64 b, u64 c, u64 e) { return words(static_cast<u128>(a) * c + b + (static_cast<u128>(e) << 64)); });
}

TEST(IntegerOps, CarryFlagOnlyChangesOnExecutingLanes) {
  // Lanes where a is odd skip the second add.cc, so their addc sees the first add's carry.
  check(Case{"add.cc.u32 %w0, {b}, {b}; and.b32 %w1, {a}, 1; setp.eq.u32 %p1, %w1, 1; "
             "@!%p1 add.cc.u32 %w0, {c}, {c}; addc.u32 {d}, 0, 0;",
             32},
        [](u64 a, u64 b, u64 c, u64) -> u64 {
          u64 src = (a & 1) ? b : c;
          return ((src & 0xffffffff) * 2) >> 32;
        });
}

} // namespace
} // namespace ptxray::test
