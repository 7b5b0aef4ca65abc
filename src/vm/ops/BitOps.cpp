// Logic, shift and bit-manipulation instructions: and or xor not cnot (predicates and .b16/.b32/.b64),
// shl shr, lop3 (with the .and/.or predicate form), bfe bfi brev bfind clz popc fns prmt (every mode)
// shf bmsk szext dp2a dp4a. Each handler is instantiated for its exact type and modifiers; the only
// run-time operand a decoder cannot fold into the template is lop3's table, carried in MicroOp::imm.
#include "vm/ops/Families.h"

#include "vm/Exec.h"

#include <algorithm>
#include <bit>
#include <type_traits>

namespace ptxray::vm::ops {

using ptx::Mod;
using ptx::OperandKind;

namespace {

/// Register bits of a result: signed types sign-extended, like IntegerArithmetic's results.
template <class T> inline uint64_t store(T v) {
  if constexpr (std::is_signed_v<T>)
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  else
    return static_cast<uint64_t>(v);
}

template <class U> inline U lowMask(uint32_t n) {
  constexpr uint32_t bits = 8 * sizeof(U);
  return n >= bits ? static_cast<U>(~U(0)) : static_cast<U>((U(1) << n) - 1);
}

// ---------------------------------------------------------------------------------------------
// Lane functions: apply(a, b, c, e, imm) -> register bits. T is the operation's type.

template <class T> struct And {
  static uint64_t apply(uint64_t a, uint64_t b, uint64_t, uint64_t, int64_t) { return T(a & b); }
};
template <class T> struct Or {
  static uint64_t apply(uint64_t a, uint64_t b, uint64_t, uint64_t, int64_t) { return T(a | b); }
};
template <class T> struct Xor {
  static uint64_t apply(uint64_t a, uint64_t b, uint64_t, uint64_t, int64_t) { return T(a ^ b); }
};
template <class T> struct Not {
  static uint64_t apply(uint64_t a, uint64_t, uint64_t, uint64_t, int64_t) { return T(~a); }
};
template <class T> struct Cnot {
  static uint64_t apply(uint64_t a, uint64_t, uint64_t, uint64_t, int64_t) { return T(a) == 0 ? 1 : 0; }
};

/// shl: the amount is an unsigned 32-bit value clamped to the width.
template <class T> struct Shl {
  static uint64_t apply(uint64_t a, uint64_t b, uint64_t, uint64_t, int64_t) {
    const uint32_t n = static_cast<uint32_t>(b);
    return n >= 8 * sizeof(T) ? 0 : T(T(a) << n);
  }
};

/// shr: zero fill for unsigned and untyped, sign fill for signed; amounts clamp to the width.
template <class T> struct Shr {
  static uint64_t apply(uint64_t a, uint64_t b, uint64_t, uint64_t, int64_t) {
    constexpr uint32_t bits = 8 * sizeof(T);
    const uint32_t n = std::min<uint32_t>(static_cast<uint32_t>(b), bits);
    if constexpr (std::is_signed_v<T>)
      return store(static_cast<T>(static_cast<T>(a) >> std::min<uint32_t>(n, bits - 1)));
    else
      return n >= bits ? 0 : static_cast<T>(static_cast<T>(a) >> n);
  }
};

/// lop3: bit i of the table is the result for (a, b, c) = (i >> 2 & 1, i >> 1 & 1, i & 1).
inline uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t r = 0;
  for (int i = 0; i < 8; ++i)
    if (lut >> i & 1)
      r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
  return r;
}
struct Lop3 {
  static uint64_t apply(uint64_t a, uint64_t b, uint64_t c, uint64_t, int64_t imm) {
    return lop3(static_cast<uint32_t>(a), static_cast<uint32_t>(b), static_cast<uint32_t>(c),
                static_cast<uint32_t>(imm));
  }
};

/// bfe: position and length are 8-bit; the field's sign bit (signed types) fills what the field
/// does not cover.
template <class T> struct Bfe {
  static uint64_t apply(uint64_t a, uint64_t b, uint64_t c, uint64_t, int64_t) {
    using U = std::make_unsigned_t<T>;
    constexpr uint32_t bits = 8 * sizeof(T);
    const U x = static_cast<U>(a);
    const uint32_t pos = static_cast<uint32_t>(b) & 0xff, len = static_cast<uint32_t>(c) & 0xff;
    bool sbit = false;
    if constexpr (std::is_signed_v<T>)
      if (len != 0)
        sbit = (x >> std::min(pos + len - 1, bits - 1)) & 1;
    const U fill = sbit ? static_cast<U>(~U(0)) : U(0);
    if (pos >= bits)
      return store(static_cast<T>(fill));
    const uint32_t n = std::min(len, bits - pos);
    const U m = lowMask<U>(n);
    return store(static_cast<T>(static_cast<U>(((x >> pos) & m) | (fill & ~m))));
  }
};

/// bfi: insert the low bits of a into b at c, d bits long (8-bit values; out-of-range is b).
template <class U> struct Bfi {
  static uint64_t apply(uint64_t a, uint64_t b, uint64_t c, uint64_t d, int64_t) {
    constexpr uint32_t bits = 8 * sizeof(U);
    const uint32_t pos = static_cast<uint32_t>(c) & 0xff, len = static_cast<uint32_t>(d) & 0xff;
    const U base = static_cast<U>(b);
    if (pos >= bits || len == 0)
      return base;
    const U m = static_cast<U>(lowMask<U>(std::min(len, bits - pos)) << pos);
    return static_cast<U>((base & ~m) | (static_cast<U>(static_cast<U>(a) << pos) & m));
  }
};

template <class U> struct Brev {
  static uint64_t apply(uint64_t a, uint64_t, uint64_t, uint64_t, int64_t) {
    uint64_t x = static_cast<U>(a);
    x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
    x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
    x = __builtin_bswap64(x);
    return static_cast<U>(x >> (64 - 8 * sizeof(U)));
  }
};

/// bfind: the most significant non-sign bit (0xffffffff when none), or its left-shift distance.
template <class T, bool ShiftAmt> struct Bfind {
  static uint64_t apply(uint64_t a, uint64_t, uint64_t, uint64_t, int64_t) {
    using U = std::make_unsigned_t<T>;
    constexpr uint32_t msb = 8 * sizeof(T) - 1;
    U x = static_cast<U>(a);
    if constexpr (std::is_signed_v<T>)
      if (static_cast<T>(x) < 0)
        x = static_cast<U>(~x);
    if (x == 0)
      return 0xffffffffu;
    const uint32_t d = msb - static_cast<uint32_t>(std::countl_zero(x));
    return ShiftAmt ? msb - d : d;
  }
};

template <class U> struct Clz {
  static uint64_t apply(uint64_t a, uint64_t, uint64_t, uint64_t, int64_t) {
    return static_cast<uint32_t>(std::countl_zero(static_cast<U>(a)));
  }
};

template <class U> struct Popc {
  static uint64_t apply(uint64_t a, uint64_t, uint64_t, uint64_t, int64_t) {
    return static_cast<uint32_t>(std::popcount(static_cast<U>(a)));
  }
};

/// fns: the offset-th set bit of mask counting from base (up for positive offsets, down for
/// negative; offset 0 tests base itself). A base above 31 is undefined in the ISA: no bit is found.
struct Fns {
  static uint64_t apply(uint64_t a, uint64_t b, uint64_t c, uint64_t, int64_t) {
    const uint32_t mask = static_cast<uint32_t>(a);
    const uint32_t base = static_cast<uint32_t>(b);
    const int64_t offset = static_cast<int32_t>(c);
    if (base > 31)
      return 0xffffffffu;
    if (offset == 0)
      return (mask >> base & 1) ? base : 0xffffffffu;
    const int64_t count = offset > 0 ? offset : -offset;
    if (count > 32)
      return 0xffffffffu;
    if (offset > 0) {
      uint32_t m = mask & (~0u << base);
      for (int64_t k = 1; k < count && m; ++k)
        m &= m - 1;
      return m ? static_cast<uint32_t>(std::countr_zero(m)) : 0xffffffffu;
    }
    uint32_t m = mask & (base == 31 ? ~0u : (2u << base) - 1);
    for (int64_t k = 1; k < count && m; ++k)
      m &= ~(0x80000000u >> std::countl_zero(m));
    return m ? 31u - static_cast<uint32_t>(std::countl_zero(m)) : 0xffffffffu;
  }
};

enum class Prmt : uint8_t { Generic, F4e, B4e, Rc8, Ecl, Ecr, Rc16 };

/// prmt: bytes of {b, a} picked per destination byte by c (four nibbles, or a 2-bit mode selector).
template <Prmt M> struct Permute {
  static uint64_t apply(uint64_t a, uint64_t b, uint64_t c, uint64_t, int64_t) {
    const uint64_t src = (static_cast<uint64_t>(static_cast<uint32_t>(b)) << 32) | static_cast<uint32_t>(a);
    const uint32_t ctl = static_cast<uint32_t>(c);
    const uint32_t s = ctl & 3;
    uint32_t r = 0;
    for (uint32_t i = 0; i < 4; ++i) {
      uint32_t sel;
      if constexpr (M == Prmt::Generic)
        sel = (ctl >> (4 * i)) & 0xf;
      else if constexpr (M == Prmt::F4e)
        sel = (s + i) & 7;
      else if constexpr (M == Prmt::B4e)
        sel = (s - i) & 7;
      else if constexpr (M == Prmt::Rc8)
        sel = s;
      else if constexpr (M == Prmt::Ecl)
        sel = std::max(i, s);
      else if constexpr (M == Prmt::Ecr)
        sel = std::min(i, s);
      else
        sel = (i & 1) | ((s & 1) << 1);
      uint32_t byte = static_cast<uint32_t>(src >> (8 * (sel & 7))) & 0xff;
      if (M == Prmt::Generic && (sel & 8))
        byte = (byte & 0x80) ? 0xff : 0;
      r |= byte << (8 * i);
    }
    return r;
  }
};

/// shf: funnel shift of the 64-bit {b, a} by c clamped to 32 or wrapped to 0..31.
template <bool Left, bool Clamp> struct Shf {
  static uint64_t apply(uint64_t a, uint64_t b, uint64_t c, uint64_t, int64_t) {
    const uint32_t amount = static_cast<uint32_t>(c);
    const uint32_t n = Clamp ? std::min<uint32_t>(amount, 32) : amount & 31;
    const uint64_t v = (static_cast<uint64_t>(static_cast<uint32_t>(b)) << 32) | static_cast<uint32_t>(a);
    if constexpr (Left)
      return static_cast<uint32_t>((v << n) >> 32);
    else
      return static_cast<uint32_t>(v >> n);
  }
};

/// bmsk: a mask of b bits starting at bit a, following the ISA's overflow rules per mode.
template <bool Clamp> struct Bmsk {
  static uint64_t apply(uint64_t ra, uint64_t rb, uint64_t, uint64_t, int64_t) {
    const uint32_t a = static_cast<uint32_t>(ra), b = static_cast<uint32_t>(rb);
    const uint32_t a1 = a & 31, b1 = b & 31, sum = a1 + b1;
    uint32_t mask0 = ~0u << a1;
    bool overflow = sum >= 32;
    if (Clamp) {
      if (a >= 32) {
        mask0 = 0;
        overflow = true;
      }
      if (b >= 32)
        overflow = true;
    }
    uint32_t mask1 = overflow ? 0 : b1 == 0 ? ~0u : ~0u << sum;
    return mask0 & ~mask1;
  }
};

/// szext: sign- or zero-extend the low b bits of a (b clamped or wrapped).
template <bool Signed, bool Clamp> struct Szext {
  static uint64_t apply(uint64_t ra, uint64_t rb, uint64_t, uint64_t, int64_t) {
    const uint32_t a = static_cast<uint32_t>(ra), b = static_cast<uint32_t>(rb);
    const uint32_t b1 = b & 31;
    const bool tooLarge = Clamp && b >= 32;
    const uint32_t mask = tooLarge ? 0 : ~0u << b1;
    const bool sign = Signed && b1 != 0 && !tooLarge && ((a >> ((b1 - 1) & 31)) & 1);
    const uint32_t r = (a & ~mask) | (sign ? mask : 0);
    return Signed ? store(static_cast<int32_t>(r)) : r;
  }
};

template <bool S> inline int32_t extend8(uint32_t v, int i) {
  const uint32_t byte = (v >> (8 * i)) & 0xff;
  return S ? static_cast<int8_t>(byte) : static_cast<int32_t>(byte);
}
template <bool S> inline int32_t extend16(uint32_t v, int i) {
  const uint32_t half = (v >> (16 * i)) & 0xffff;
  return S ? static_cast<int16_t>(half) : static_cast<int32_t>(half);
}

/// dp4a / dp2a: products are exact in 32 bits; the accumulation wraps.
template <bool SA, bool SB> struct Dp4a {
  static uint64_t apply(uint64_t ra, uint64_t rb, uint64_t rc, uint64_t, int64_t) {
    const uint32_t a = static_cast<uint32_t>(ra), b = static_cast<uint32_t>(rb);
    uint32_t d = static_cast<uint32_t>(rc);
    for (int i = 0; i < 4; ++i)
      d += static_cast<uint32_t>(static_cast<int64_t>(extend8<SA>(a, i)) * extend8<SB>(b, i));
    return (SA || SB) ? store(static_cast<int32_t>(d)) : d;
  }
};
template <bool SA, bool SB, bool Hi> struct Dp2a {
  static uint64_t apply(uint64_t ra, uint64_t rb, uint64_t rc, uint64_t, int64_t) {
    const uint32_t a = static_cast<uint32_t>(ra), b = static_cast<uint32_t>(rb);
    uint32_t d = static_cast<uint32_t>(rc);
    for (int i = 0; i < 2; ++i)
      d += static_cast<uint32_t>(static_cast<int64_t>(extend16<SA>(a, i)) * extend8<SB>(b, (Hi ? 2 : 0) + i));
    return (SA || SB) ? store(static_cast<int32_t>(d)) : d;
  }
};

// ---------------------------------------------------------------------------------------------
// Handlers

template <class F> void execLanes(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *a = ctx.in(op.s[0]);
  const uint64_t *b = op.s[1] != kNoSlot ? ctx.in(op.s[1]) : a;
  const uint64_t *c = op.s[2] != kNoSlot ? ctx.in(op.s[2]) : a;
  const uint64_t *e = op.s[3] != kNoSlot ? ctx.in(op.s[3]) : a;
  uint64_t *d = ctx.out(op.d[0]);
  const int64_t imm = op.imm;
  forLanes(ctx.exec, [&](int lane) { d[lane] = F::apply(a[lane], b[lane], c[lane], e[lane], imm); });
}

inline void writePred(ExecContext &ctx, uint32_t slot, uint32_t value) {
  uint32_t &p = ctx.pred(slot);
  p = (p & ~ctx.exec) | (value & ctx.exec);
}

enum class PredOp : uint8_t { And, Or, Xor, Not };

/// Predicate logic: flags bit 0 / bit 1 negate the first / second source; bit 2 / bit 3 say the
/// source is the constant in imm bit 0 / bit 1 instead of a register.
template <PredOp P> void execPredLogic(ExecContext &ctx, const MicroOp &op) {
  auto source = [&](int i) -> uint32_t {
    uint32_t v = (op.flags >> (2 + i) & 1) ? ((op.imm >> i & 1) ? kFullMask : 0u) : ctx.pred(op.s[i]);
    return (op.flags >> i & 1) ? ~v : v;
  };
  const uint32_t a = source(0);
  uint32_t r;
  if constexpr (P == PredOp::Not)
    r = ~a;
  else {
    const uint32_t b = source(1);
    r = P == PredOp::And ? (a & b) : P == PredOp::Or ? (a | b) : (a ^ b);
  }
  writePred(ctx, op.d[0], r);
}

/// lop3.BoolOp: d as lop3, then p = (d != 0) BoolOp q (flags bit 0: .or, bit 1: q negated).
void execLop3Pred(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *a = ctx.in(op.s[0]);
  const uint64_t *b = ctx.in(op.s[1]);
  const uint64_t *c = ctx.in(op.s[2]);
  uint64_t *d = ctx.out(op.d[0]);
  const uint32_t lut = static_cast<uint32_t>(op.imm);
  uint32_t nonZero = 0;
  forLanes(ctx.exec, [&](int lane) {
    const uint32_t r =
        lop3(static_cast<uint32_t>(a[lane]), static_cast<uint32_t>(b[lane]), static_cast<uint32_t>(c[lane]), lut);
    d[lane] = r;
    nonZero |= static_cast<uint32_t>(r != 0) << lane;
  });
  uint32_t q = ctx.pred(op.s[3]);
  if (op.flags & 2)
    q = ~q;
  writePred(ctx, op.d[1], (op.flags & 1) ? (nonZero | q) : (nonZero & q));
}

// ---------------------------------------------------------------------------------------------
// Decoding

template <template <class> class F> ExecFn forBits(Mod type) {
  switch (ptx::typeInfo(type).bits) {
  case 16: return &execLanes<F<uint16_t>>;
  case 32: return &execLanes<F<uint32_t>>;
  case 64: return &execLanes<F<uint64_t>>;
  default: return nullptr;
  }
}

/// Signed and unsigned integer types of 16, 32 and 64 bits (untyped .bN reads as unsigned).
template <template <class> class F> ExecFn forInt(Mod type, bool allow16) {
  switch (type) {
  case Mod::s16: return allow16 ? &execLanes<F<int16_t>> : nullptr;
  case Mod::u16:
  case Mod::b16: return allow16 ? &execLanes<F<uint16_t>> : nullptr;
  case Mod::s32: return &execLanes<F<int32_t>>;
  case Mod::u32:
  case Mod::b32: return &execLanes<F<uint32_t>>;
  case Mod::s64: return &execLanes<F<int64_t>>;
  case Mod::u64:
  case Mod::b64: return &execLanes<F<uint64_t>>;
  default: return nullptr;
  }
}

template <class T> using BfindPlain = Bfind<T, false>;
template <class T> using BfindShift = Bfind<T, true>;

ExecFn prmtFor(const ptx::Instruction &inst) {
  if (inst.has(Mod::f4e))
    return &execLanes<Permute<Prmt::F4e>>;
  if (inst.has(Mod::b4e))
    return &execLanes<Permute<Prmt::B4e>>;
  if (inst.has(Mod::rc8))
    return &execLanes<Permute<Prmt::Rc8>>;
  if (inst.has(Mod::ecl))
    return &execLanes<Permute<Prmt::Ecl>>;
  if (inst.has(Mod::ecr))
    return &execLanes<Permute<Prmt::Ecr>>;
  if (inst.has(Mod::rc16))
    return &execLanes<Permute<Prmt::Rc16>>;
  return &execLanes<Permute<Prmt::Generic>>;
}

template <template <bool, bool> class F> ExecFn forTwoFlags(bool x, bool y) {
  if (x)
    return y ? &execLanes<F<true, true>> : &execLanes<F<true, false>>;
  return y ? &execLanes<F<false, true>> : &execLanes<F<false, false>>;
}

template <bool SA, bool SB> using Dp2aLo = Dp2a<SA, SB, false>;
template <bool SA, bool SB> using Dp2aHi = Dp2a<SA, SB, true>;

bool decodePredLogic(DecodeContext &ctx, MicroOp &op, std::span<const ptx::Operand> operands) {
  const size_t sources = ctx.inst->opcode == ptx::Opcode::not_ ? 1 : 2;
  if (operands.size() < sources + 1 || !ctx.isPredicate(operands[0]))
    return false;
  op.d[0] = ctx.predSlot(operands[0]);
  for (size_t i = 0; i < sources; ++i) {
    const ptx::Operand &s = operands[1 + i];
    if (s.kind == OperandKind::Immediate) {
      op.flags |= static_cast<uint8_t>(4u << i);
      if (s.value != 0)
        op.imm |= int64_t{1} << i;
      continue;
    }
    if (!ctx.isPredicate(s))
      return false;
    bool negated = false;
    op.s[i] = ctx.predSlot(s, &negated);
    if (negated)
      op.flags |= static_cast<uint8_t>(1u << i);
  }
  switch (ctx.inst->opcode) {
  case ptx::Opcode::and_: op.exec = &execPredLogic<PredOp::And>; break;
  case ptx::Opcode::or_: op.exec = &execPredLogic<PredOp::Or>; break;
  case ptx::Opcode::xor_: op.exec = &execPredLogic<PredOp::Xor>; break;
  default: op.exec = &execPredLogic<PredOp::Not>; break;
  }
  return true;
}

void decodeLop3(DecodeContext &ctx, MicroOp &op, std::span<const ptx::Operand> operands) {
  if (operands.size() < 5 || operands[4].kind != OperandKind::Immediate)
    return;
  const bool boolForm = ctx.inst->has(Mod::and_) || ctx.inst->has(Mod::or_);
  op.imm = operands[4].value & 0xff;
  for (int i = 0; i < 3; ++i)
    op.s[i] = ctx.src(operands[1 + i], Mod::b32);
  if (!boolForm) {
    op.d[0] = ctx.dst(operands[0]);
    op.exec = &execLanes<Lop3>;
    return;
  }
  if (operands.size() < 6 || operands[0].kind != OperandKind::Pair)
    return;
  auto dp = ctx.children(operands[0]);
  if (dp.size() != 2)
    return;
  op.d[0] = ctx.dst(dp[0]); // a sink `_` gets a scratch slot
  op.d[1] = ctx.predSlot(dp[1]);
  bool negated = false;
  op.s[3] = ctx.predSlot(operands[5], &negated);
  if (op.d[1] == kNoSlot || op.s[3] == kNoSlot)
    return;
  op.flags = static_cast<uint8_t>((ctx.inst->has(Mod::or_) ? 1 : 0) | (negated ? 2 : 0));
  op.exec = &execLop3Pred;
}

} // namespace

void decodeBitOps(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  if (operands.size() < 2)
    return;
  const Mod type = inst.type();
  auto srcs = [&](int count, Mod t) {
    op.d[0] = ctx.dst(operands[0]);
    for (int i = 0; i < count && static_cast<size_t>(i + 1) < operands.size(); ++i)
      op.s[i] = ctx.src(operands[i + 1], t);
  };
  // Position, length, shift-amount and selector operands are .u32 whatever the instruction type.
  auto srcsU32From = [&](int first, int count) {
    for (int i = first; i < count && static_cast<size_t>(i + 1) < operands.size(); ++i)
      op.s[i] = ctx.src(operands[i + 1], Mod::u32);
  };
  switch (inst.opcode) {
  case ptx::Opcode::and_:
  case ptx::Opcode::or_:
  case ptx::Opcode::xor_:
  case ptx::Opcode::not_:
    if (type == Mod::pred) {
      if (!decodePredLogic(ctx, op, operands))
        op.exec = nullptr;
      return;
    }
    if (operands.size() < (inst.opcode == ptx::Opcode::not_ ? 2u : 3u))
      return;
    srcs(inst.opcode == ptx::Opcode::not_ ? 1 : 2, type);
    switch (inst.opcode) {
    case ptx::Opcode::and_: op.exec = forBits<And>(type); break;
    case ptx::Opcode::or_: op.exec = forBits<Or>(type); break;
    case ptx::Opcode::xor_: op.exec = forBits<Xor>(type); break;
    default: op.exec = forBits<Not>(type); break;
    }
    return;
  case ptx::Opcode::cnot:
    srcs(1, type);
    op.exec = forBits<Cnot>(type);
    return;
  case ptx::Opcode::shl:
    if (operands.size() < 3)
      return;
    srcs(1, type);
    srcsU32From(1, 2);
    op.exec = forBits<Shl>(type);
    return;
  case ptx::Opcode::shr:
    if (operands.size() < 3)
      return;
    srcs(1, type);
    srcsU32From(1, 2);
    op.exec = forInt<Shr>(type, true);
    return;
  case ptx::Opcode::lop3: decodeLop3(ctx, op, operands); return;
  case ptx::Opcode::bfe:
    if (operands.size() < 4)
      return;
    srcs(1, type);
    srcsU32From(1, 3);
    op.exec = forInt<Bfe>(type, false);
    return;
  case ptx::Opcode::bfi:
    if (operands.size() < 5)
      return;
    srcs(2, type);
    srcsU32From(2, 4);
    op.exec = type == Mod::b32 ? &execLanes<Bfi<uint32_t>> : type == Mod::b64 ? &execLanes<Bfi<uint64_t>> : nullptr;
    return;
  case ptx::Opcode::brev:
    srcs(1, type);
    op.exec = type == Mod::b32 ? &execLanes<Brev<uint32_t>> : type == Mod::b64 ? &execLanes<Brev<uint64_t>> : nullptr;
    return;
  case ptx::Opcode::bfind:
    srcs(1, type);
    op.exec = inst.has(Mod::shiftamt) ? forInt<BfindShift>(type, false) : forInt<BfindPlain>(type, false);
    return;
  case ptx::Opcode::clz:
    srcs(1, type);
    op.exec = type == Mod::b32 ? &execLanes<Clz<uint32_t>> : type == Mod::b64 ? &execLanes<Clz<uint64_t>> : nullptr;
    return;
  case ptx::Opcode::popc:
    srcs(1, type);
    op.exec = type == Mod::b32 ? &execLanes<Popc<uint32_t>> : type == Mod::b64 ? &execLanes<Popc<uint64_t>> : nullptr;
    return;
  case ptx::Opcode::fns:
    if (operands.size() < 4)
      return;
    srcs(1, Mod::b32);
    srcsU32From(1, 2);
    op.s[2] = ctx.src(operands[3], Mod::s32);
    op.exec = &execLanes<Fns>;
    return;
  case ptx::Opcode::prmt:
    if (operands.size() < 4)
      return;
    srcs(3, Mod::b32);
    op.exec = prmtFor(inst);
    return;
  case ptx::Opcode::shf: {
    if (operands.size() < 4 || type != Mod::b32)
      return;
    srcs(3, Mod::b32);
    const bool left = inst.has(Mod::l), right = inst.has(Mod::r);
    if (left == right)
      return;
    // The ISA requires a mode; without one, the hardware-compatible default is .clamp.
    op.exec = forTwoFlags<Shf>(left, !inst.has(Mod::wrap));
    return;
  }
  case ptx::Opcode::bmsk:
    if (operands.size() < 3 || type != Mod::b32)
      return;
    srcs(2, Mod::u32);
    op.exec = inst.has(Mod::wrap) ? &execLanes<Bmsk<false>> : &execLanes<Bmsk<true>>;
    return;
  case ptx::Opcode::szext: {
    if (operands.size() < 3 || (type != Mod::u32 && type != Mod::s32))
      return;
    srcs(2, Mod::u32);
    op.exec = forTwoFlags<Szext>(type == Mod::s32, !inst.has(Mod::wrap));
    return;
  }
  case ptx::Opcode::dp4a:
  case ptx::Opcode::dp2a: {
    if (operands.size() < 4)
      return;
    const Mod at = inst.type(0), bt = inst.type(1);
    if ((at != Mod::u32 && at != Mod::s32) || (bt != Mod::u32 && bt != Mod::s32))
      return;
    srcs(3, Mod::b32);
    const bool sa = at == Mod::s32, sb = bt == Mod::s32;
    if (inst.opcode == ptx::Opcode::dp4a)
      op.exec = forTwoFlags<Dp4a>(sa, sb);
    else
      op.exec = inst.has(Mod::hi) ? forTwoFlags<Dp2aHi>(sa, sb) : forTwoFlags<Dp2aLo>(sa, sb);
    return;
  }
  default: return;
  }
}

} // namespace ptxray::vm::ops
