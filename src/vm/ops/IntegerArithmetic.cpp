// Integer add sub mul mad (.lo .hi .wide, .sat) mul24 mad24 sad div rem abs neg min max (.relu), on
// 16-, 32- and 64-bit signed and unsigned types, with the ISA's corner cases: wrap-around, division
// by zero, the most negative value divided by -1.
#include "vm/ops/Families.h"

#include "vm/Exec.h"

#include <limits>
#include <type_traits>

namespace ptxray::vm::ops {

using ptx::Mod;

namespace {

template <class T>
using Wide =
    std::conditional_t<sizeof(T) == 2, std::conditional_t<std::is_signed_v<T>, int32_t, uint32_t>,
                       std::conditional_t<sizeof(T) == 4, std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>,
                                          std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>>>;

template <class T> inline uint64_t store(T v) {
  // Registers hold values extended to 64 bits; readers truncate to their type.
  if constexpr (std::is_signed_v<T>)
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  else
    return static_cast<uint64_t>(v);
}

template <class T> inline T wrapAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <class T> inline T wrapSub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <class T> inline T wrapMul(T a, T b) {
  using U = std::conditional_t<sizeof(T) < 4, uint32_t, std::make_unsigned_t<T>>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}
template <class T> inline T saturate(Wide<T> v) {
  if (v > static_cast<Wide<T>>(std::numeric_limits<T>::max()))
    return std::numeric_limits<T>::max();
  if (v < static_cast<Wide<T>>(std::numeric_limits<T>::min()))
    return std::numeric_limits<T>::min();
  return static_cast<T>(v);
}

enum class IntOp : uint8_t {
  Add,
  AddSat,
  Sub,
  SubSat,
  MulLo,
  MulHi,
  MulWide,
  MadLo,
  MadHi,
  MadWide,
  MadHiSat,
  Mul24Lo,
  Mul24Hi,
  Mad24Lo,
  Mad24Hi,
  Mad24HiSat,
  Sad,
  Div,
  Rem,
  Abs,
  Neg,
  Min,
  Max,
  MinRelu,
  MaxRelu
};

template <class T, IntOp Op> inline uint64_t apply(uint64_t ra, uint64_t rb, uint64_t rc) {
  const T a = static_cast<T>(ra), b = static_cast<T>(rb);
  using W = Wide<T>;
  if constexpr (Op == IntOp::Add)
    return store(wrapAdd(a, b));
  else if constexpr (Op == IntOp::AddSat)
    return store(saturate<T>(W(a) + W(b)));
  else if constexpr (Op == IntOp::Sub)
    return store(wrapSub(a, b));
  else if constexpr (Op == IntOp::SubSat)
    return store(saturate<T>(W(a) - W(b)));
  else if constexpr (Op == IntOp::MulLo)
    return store(wrapMul(a, b));
  else if constexpr (Op == IntOp::MulHi)
    return store(static_cast<T>((W(a) * W(b)) >> (8 * sizeof(T))));
  else if constexpr (Op == IntOp::MulWide) {
    if constexpr (sizeof(T) == 8)
      return 0; // no 128-bit registers: decoding rejects mul.wide.u64
    else
      return store(static_cast<W>(W(a) * W(b)));
  } else if constexpr (Op == IntOp::MadLo)
    return store(wrapAdd(wrapMul(a, b), static_cast<T>(rc)));
  else if constexpr (Op == IntOp::MadHi)
    return store(wrapAdd(static_cast<T>((W(a) * W(b)) >> (8 * sizeof(T))), static_cast<T>(rc)));
  else if constexpr (Op == IntOp::MadHiSat) {
    // mad.hi.sat.s32: the high half plus c, saturated.
    int64_t hi = static_cast<int64_t>((W(a) * W(b)) >> (8 * sizeof(T)));
    return store(saturate<T>(static_cast<W>(hi + static_cast<int64_t>(static_cast<T>(rc)))));
  } else if constexpr (Op == IntOp::MadWide) {
    if constexpr (sizeof(T) == 8)
      return 0;
    else {
      using WU = std::make_unsigned_t<W>;
      return store(static_cast<W>(static_cast<WU>(W(a) * W(b)) + static_cast<WU>(rc)));
    }
  } else if constexpr (Op == IntOp::Mul24Lo || Op == IntOp::Mul24Hi || Op == IntOp::Mad24Lo || Op == IntOp::Mad24Hi ||
                       Op == IntOp::Mad24HiSat) {
    // Operands are the low 24 bits (sign-extended for .s32); the 48-bit product's low or high 32 bits.
    int64_t x, y;
    if constexpr (std::is_signed_v<T>) {
      x = static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(a) << 8) >> 8);
      y = static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(b) << 8) >> 8);
    } else {
      x = static_cast<int64_t>(static_cast<uint32_t>(a) & 0xffffff);
      y = static_cast<int64_t>(static_cast<uint32_t>(b) & 0xffffff);
    }
    int64_t p = x * y;
    uint32_t part =
        (Op == IntOp::Mul24Lo || Op == IntOp::Mad24Lo) ? static_cast<uint32_t>(p) : static_cast<uint32_t>(p >> 16);
    if constexpr (Op == IntOp::Mul24Lo || Op == IntOp::Mul24Hi)
      return store(static_cast<T>(part));
    else if constexpr (Op == IntOp::Mad24HiSat)
      return store(saturate<T>(
          static_cast<W>(static_cast<int64_t>(static_cast<T>(part)) + static_cast<int64_t>(static_cast<T>(rc)))));
    else
      return store(wrapAdd(static_cast<T>(part), static_cast<T>(rc)));
  } else if constexpr (Op == IntOp::Sad) {
    T diff = a < b ? wrapSub(b, a) : wrapSub(a, b);
    return store(wrapAdd(static_cast<T>(rc), diff));
  } else if constexpr (Op == IntOp::Div) {
    // PTX: division by zero gives all ones (unsigned) or -1 / the sign-dependent value; the most
    // negative value divided by -1 wraps to itself, as the hardware's sequence does.
    if (b == 0) {
      if constexpr (std::is_signed_v<T>)
        return store(static_cast<T>(a < 0 ? 1 : -1));
      else
        return store(static_cast<T>(~T(0)));
    }
    if constexpr (std::is_signed_v<T>)
      if (a == std::numeric_limits<T>::min() && b == T(-1))
        return store(a);
    return store(static_cast<T>(a / b));
  } else if constexpr (Op == IntOp::Rem) {
    if (b == 0)
      return store(a);
    if constexpr (std::is_signed_v<T>)
      if (b == T(-1))
        return store(T(0));
    return store(static_cast<T>(a % b));
  } else if constexpr (Op == IntOp::Abs) {
    if constexpr (std::is_signed_v<T>)
      return store(a < 0 ? wrapSub(T(0), a) : a);
    else
      return store(a);
  } else if constexpr (Op == IntOp::Neg)
    return store(wrapSub(T(0), a));
  else if constexpr (Op == IntOp::Min)
    return store(a < b ? a : b);
  else if constexpr (Op == IntOp::Max)
    return store(a > b ? a : b);
  else if constexpr (Op == IntOp::MinRelu)
    return store(std::max<T>(a < b ? a : b, T(0)));
  else
    return store(std::max<T>(a > b ? a : b, T(0)));
}

template <class T, IntOp Op> void execInt(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *a = ctx.in(op.s[0]);
  const uint64_t *b = op.s[1] != kNoSlot ? ctx.in(op.s[1]) : a;
  const uint64_t *c = op.s[2] != kNoSlot ? ctx.in(op.s[2]) : a;
  uint64_t *d = ctx.out(op.d[0]);
  forLanes(ctx.exec, [&](int lane) { d[lane] = apply<T, Op>(a[lane], b[lane], c[lane]); });
}

/// Packed .u16x2/.s16x2 add, sub, min, max (and .relu variants): each half separately.
template <class H, IntOp Op> void execPacked(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *a = ctx.in(op.s[0]);
  const uint64_t *b = ctx.in(op.s[1]);
  uint64_t *d = ctx.out(op.d[0]);
  forLanes(ctx.exec, [&](int lane) {
    uint32_t r = 0;
    for (int h = 0; h < 2; ++h) {
      uint64_t x = (a[lane] >> (16 * h)) & 0xffff, y = (b[lane] >> (16 * h)) & 0xffff;
      r |= static_cast<uint32_t>(apply<H, Op>(x, y, 0) & 0xffff) << (16 * h);
    }
    d[lane] = r;
  });
}

template <IntOp Op> ExecFn forType(Mod type) {
  switch (type) {
  case Mod::s16: return &execInt<int16_t, Op>;
  case Mod::u16:
  case Mod::b16: return &execInt<uint16_t, Op>;
  case Mod::s32: return &execInt<int32_t, Op>;
  case Mod::u32:
  case Mod::b32: return &execInt<uint32_t, Op>;
  case Mod::s64: return &execInt<int64_t, Op>;
  case Mod::u64:
  case Mod::b64: return &execInt<uint64_t, Op>;
  default: return nullptr;
  }
}

template <IntOp Op> ExecFn forPacked(Mod type) {
  if (type == Mod::u16x2)
    return &execPacked<uint16_t, Op>;
  if (type == Mod::s16x2)
    return &execPacked<int16_t, Op>;
  return nullptr;
}

} // namespace

void decodeIntegerArithmetic(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  if (operands.size() < 2)
    return;
  Mod type = inst.type();
  op.d[0] = ctx.dst(operands[0]);
  for (size_t i = 1; i < operands.size() && i <= 3; ++i)
    op.s[i - 1] = ctx.src(operands[i], type);
  const bool hi = inst.has(Mod::hi), wide = inst.has(Mod::wide), sat = inst.sat;
  const bool packed = type == Mod::u16x2 || type == Mod::s16x2;
  switch (inst.opcode) {
  case ptx::Opcode::add:
    op.exec = packed ? forPacked<IntOp::Add>(type) : sat ? forType<IntOp::AddSat>(type) : forType<IntOp::Add>(type);
    return;
  case ptx::Opcode::sub:
    op.exec = packed ? forPacked<IntOp::Sub>(type) : sat ? forType<IntOp::SubSat>(type) : forType<IntOp::Sub>(type);
    return;
  case ptx::Opcode::mul:
    if (wide && ptx::typeInfo(type).bits == 64)
      return; // no 128-bit result registers
    op.exec = wide ? forType<IntOp::MulWide>(type) : hi ? forType<IntOp::MulHi>(type) : forType<IntOp::MulLo>(type);
    return;
  case ptx::Opcode::mad:
    if (wide && ptx::typeInfo(type).bits == 64)
      return;
    if (hi && sat && type != Mod::s32)
      return; // the ISA defines mad.hi.sat for .s32 only (64-bit would overflow the wide sum)
    op.exec = wide ? forType<IntOp::MadWide>(type)
              : hi ? (sat ? forType<IntOp::MadHiSat>(type) : forType<IntOp::MadHi>(type))
                   : forType<IntOp::MadLo>(type);
    return;
  case ptx::Opcode::mul24: op.exec = hi ? forType<IntOp::Mul24Hi>(type) : forType<IntOp::Mul24Lo>(type); return;
  case ptx::Opcode::mad24:
    if (hi && sat && type != Mod::s32)
      return; // .sat applies only to mad24.hi.s32
    op.exec =
        hi ? (sat ? forType<IntOp::Mad24HiSat>(type) : forType<IntOp::Mad24Hi>(type)) : forType<IntOp::Mad24Lo>(type);
    return;
  case ptx::Opcode::sad: op.exec = forType<IntOp::Sad>(type); return;
  case ptx::Opcode::div: op.exec = forType<IntOp::Div>(type); return;
  case ptx::Opcode::rem: op.exec = forType<IntOp::Rem>(type); return;
  case ptx::Opcode::abs: op.exec = forType<IntOp::Abs>(type); return;
  case ptx::Opcode::neg: op.exec = forType<IntOp::Neg>(type); return;
  case ptx::Opcode::min:
    op.exec = packed ? (inst.has(Mod::relu) ? forPacked<IntOp::MinRelu>(type) : forPacked<IntOp::Min>(type))
                     : (inst.has(Mod::relu) ? forType<IntOp::MinRelu>(type) : forType<IntOp::Min>(type));
    return;
  case ptx::Opcode::max:
    op.exec = packed ? (inst.has(Mod::relu) ? forPacked<IntOp::MaxRelu>(type) : forPacked<IntOp::Max>(type))
                     : (inst.has(Mod::relu) ? forType<IntOp::MaxRelu>(type) : forType<IntOp::Max>(type));
    return;
  default: return;
  }
}

} // namespace ptxray::vm::ops
