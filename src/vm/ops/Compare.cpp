// setp, set, selp, slct. Comparisons produce a 32-lane mask per warp; combining it with the .and/.or/
// .xor predicate and writing p and q are then mask operations, not per-lane work.
#include "vm/ops/Families.h"

#include "vm/Exec.h"
#include "vm/semantics/Half.h"

#include <cmath>

namespace ptxray::vm::ops {

using ptx::Mod;

namespace {

enum class Cmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };
enum class Combine : uint8_t { None, And, Or, Xor };

/// Element `Elem` (0: bits 15:0, 1: bits 31:16) of a half-precision operand, as a comparison type.
template <sem::HalfKind K, int Elem> struct HalfLane {
  static constexpr sem::HalfKind kind = K;
  static constexpr int elem = Elem;
};
template <class T> struct IsHalfLane : std::false_type {};
template <sem::HalfKind K, int E> struct IsHalfLane<HalfLane<K, E>> : std::true_type {};
/// Types with the unordered comparisons (equ ... nan).
template <class T> inline constexpr bool kFloatLike = std::is_floating_point_v<T> || IsHalfLane<T>::value;

template <class T> inline T flushSubnormal(T v) {
  if constexpr (std::is_same_v<T, float>)
    return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v;
  else
    return v;
}

template <class T, Cmp C> inline bool compare(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool unordered = std::isnan(a) || std::isnan(b);
    switch (C) {
    case Cmp::Eq: return !unordered && a == b;
    case Cmp::Ne: return !unordered && a != b;
    case Cmp::Lt: return !unordered && a < b;
    case Cmp::Le: return !unordered && a <= b;
    case Cmp::Gt: return !unordered && a > b;
    case Cmp::Ge: return !unordered && a >= b;
    case Cmp::Equ: return unordered || a == b;
    case Cmp::Neu: return unordered || a != b;
    case Cmp::Ltu: return unordered || a < b;
    case Cmp::Leu: return unordered || a <= b;
    case Cmp::Gtu: return unordered || a > b;
    case Cmp::Geu: return unordered || a >= b;
    case Cmp::Num: return !unordered;
    case Cmp::Nan: return unordered;
    }
  } else {
    switch (C) {
    case Cmp::Eq: return a == b;
    case Cmp::Ne: return a != b;
    case Cmp::Lt: return a < b;
    case Cmp::Le: return a <= b;
    case Cmp::Gt: return a > b;
    case Cmp::Ge: return a >= b;
    default: return false;
    }
  }
  return false;
}

/// The comparison mask of the exec lanes (flags bit 0: .ftz).
template <class T, Cmp C> uint32_t compareMask(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *a = ctx.in(op.s[0]);
  const uint64_t *b = ctx.in(op.s[1]);
  uint32_t m = 0;
  const bool ftz = op.flags & 1;
  if constexpr (IsHalfLane<T>::value) {
    // Halves compare as their exactly widened f32 values (.ftz flushes subnormal inputs first).
    forLanes(ctx.exec, [&](int lane) {
      auto x = static_cast<uint16_t>(a[lane] >> (16 * T::elem)), y = static_cast<uint16_t>(b[lane] >> (16 * T::elem));
      if (ftz) {
        x = sem::flushH<T::kind>(x);
        y = sem::flushH<T::kind>(y);
      }
      m |= static_cast<uint32_t>(compare<float, C>(sem::toF32<T::kind>(x), sem::toF32<T::kind>(y))) << lane;
    });
  } else {
    forLanes(ctx.exec, [&](int lane) {
      T x = bitsAs<T>(a[lane]), y = bitsAs<T>(b[lane]);
      if (ftz) {
        x = flushSubnormal(x);
        y = flushSubnormal(y);
      }
      m |= static_cast<uint32_t>(compare<T, C>(x, y)) << lane;
    });
  }
  return m;
}

/// flags: bit 0 ftz, bits 1-2 Combine, bit 3 negated c.
inline uint32_t combine(ExecContext &ctx, const MicroOp &op, uint32_t m, bool invert) {
  uint32_t r = invert ? ~m : m;
  auto how = static_cast<Combine>((op.flags >> 1) & 3);
  if (how == Combine::None)
    return r;
  uint32_t c = ctx.pred(op.s[2]);
  if (op.flags & 8)
    c = ~c;
  switch (how) {
  case Combine::And: return r & c;
  case Combine::Or: return r | c;
  default: return r ^ c;
  }
}

inline void writePred(ExecContext &ctx, uint32_t slot, uint32_t value) {
  if (slot == kNoSlot)
    return;
  uint32_t &p = ctx.pred(slot);
  p = (p & ~ctx.exec) | (value & ctx.exec);
}

template <class T, Cmp C> void execSetp(ExecContext &ctx, const MicroOp &op) {
  uint32_t m = compareMask<T, C>(ctx, op);
  // Both results before either is written: c may be p or q itself.
  uint32_t p = combine(ctx, op, m, false), q = combine(ctx, op, m, true);
  writePred(ctx, op.d[0], p);
  writePred(ctx, op.d[1], q);
}

/// set: 0xffffffff/0 for integer destinations, 1.0f/0.0f for .f32 (op.imm: the true value).
template <class T, Cmp C> void execSet(ExecContext &ctx, const MicroOp &op) {
  uint32_t m = combine(ctx, op, compareMask<T, C>(ctx, op), false);
  uint64_t *d = ctx.out(op.d[0]);
  const uint64_t yes = static_cast<uint64_t>(op.imm);
  forLanes(ctx.exec, [&](int lane) { d[lane] = (m >> lane & 1) ? yes : 0; });
}

/// setp.CmpOp{.BoolOp}{.ftz}.{f16x2,bf16x2} p|q, a, b{, c}: p from element 0, q from element 1.
template <class T, Cmp C> void execSetpX2(ExecContext &ctx, const MicroOp &op) {
  constexpr sem::HalfKind K = T::kind;
  // Both results before either write: c may be p or q.
  const uint32_t p = combine(ctx, op, compareMask<HalfLane<K, 0>, C>(ctx, op), false);
  const uint32_t q = combine(ctx, op, compareMask<HalfLane<K, 1>, C>(ctx, op), false);
  writePred(ctx, op.d[0], p);
  writePred(ctx, op.d[1], q);
}

/// set.CmpOp{.BoolOp}{.ftz}.dtype.{f16x2,bf16x2}: each element's result (op.imm: the true value of one
/// element, 1.0 in the half format or 0xffff) packed in 32 bits.
template <class T, Cmp C> void execSetX2(ExecContext &ctx, const MicroOp &op) {
  constexpr sem::HalfKind K = T::kind;
  const uint32_t m0 = combine(ctx, op, compareMask<HalfLane<K, 0>, C>(ctx, op), false);
  const uint32_t m1 = combine(ctx, op, compareMask<HalfLane<K, 1>, C>(ctx, op), false);
  uint64_t *d = ctx.out(op.d[0]);
  const uint64_t yes = static_cast<uint64_t>(op.imm);
  forLanes(ctx.exec, [&](int lane) { d[lane] = ((m0 >> lane & 1) ? yes : 0) | ((m1 >> lane & 1) ? yes << 16 : 0); });
}

void execSelp(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *a = ctx.in(op.s[0]);
  const uint64_t *b = ctx.in(op.s[1]);
  uint32_t c = ctx.pred(op.s[2]);
  if (op.flags & 8)
    c = ~c;
  uint64_t *d = ctx.out(op.d[0]);
  forLanes(ctx.exec, [&](int lane) { d[lane] = (c >> lane & 1) ? a[lane] : b[lane]; });
}

template <class C> void execSlct(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *a = ctx.in(op.s[0]);
  const uint64_t *b = ctx.in(op.s[1]);
  const uint64_t *c = ctx.in(op.s[2]);
  uint64_t *d = ctx.out(op.d[0]);
  const bool ftz = op.flags & 1;
  forLanes(ctx.exec, [&](int lane) {
    C v = bitsAs<C>(c[lane]);
    if (ftz)
      v = flushSubnormal(v);
    d[lane] = v >= C(0) ? a[lane] : b[lane];
  });
}

Cmp cmpOf(Mod m, bool isUnsignedType) {
  switch (m) {
  case Mod::eq: return Cmp::Eq;
  case Mod::ne: return Cmp::Ne;
  case Mod::lt:
  case Mod::lo: return Cmp::Lt;
  case Mod::le:
  case Mod::ls: return Cmp::Le;
  case Mod::gt:
  case Mod::hi: return Cmp::Gt;
  case Mod::ge:
  case Mod::hs: return Cmp::Ge;
  case Mod::equ: return Cmp::Equ;
  case Mod::neu: return Cmp::Neu;
  case Mod::ltu: return Cmp::Ltu;
  case Mod::leu: return Cmp::Leu;
  case Mod::gtu: return Cmp::Gtu;
  case Mod::geu: return Cmp::Geu;
  case Mod::num: return Cmp::Num;
  case Mod::nan: return Cmp::Nan;
  default: (void)isUnsignedType; return Cmp::Eq;
  }
}

template <template <class, Cmp> class Pick, class T> ExecFn forCmp(Cmp c) {
  switch (c) {
  case Cmp::Eq: return Pick<T, Cmp::Eq>::fn;
  case Cmp::Ne: return Pick<T, Cmp::Ne>::fn;
  case Cmp::Lt: return Pick<T, Cmp::Lt>::fn;
  case Cmp::Le: return Pick<T, Cmp::Le>::fn;
  case Cmp::Gt: return Pick<T, Cmp::Gt>::fn;
  case Cmp::Ge: return Pick<T, Cmp::Ge>::fn;
  default: break;
  }
  if constexpr (kFloatLike<T>) {
    switch (c) {
    case Cmp::Equ: return Pick<T, Cmp::Equ>::fn;
    case Cmp::Neu: return Pick<T, Cmp::Neu>::fn;
    case Cmp::Ltu: return Pick<T, Cmp::Ltu>::fn;
    case Cmp::Leu: return Pick<T, Cmp::Leu>::fn;
    case Cmp::Gtu: return Pick<T, Cmp::Gtu>::fn;
    case Cmp::Geu: return Pick<T, Cmp::Geu>::fn;
    case Cmp::Num: return Pick<T, Cmp::Num>::fn;
    case Cmp::Nan: return Pick<T, Cmp::Nan>::fn;
    default: break;
    }
  }
  return nullptr;
}

template <class T, Cmp C> struct SetpPick { static constexpr ExecFn fn = &execSetp<T, C>; };
template <class T, Cmp C> struct SetPick { static constexpr ExecFn fn = &execSet<T, C>; };
template <class T, Cmp C> struct SetpX2Pick { static constexpr ExecFn fn = &execSetpX2<T, C>; };
template <class T, Cmp C> struct SetX2Pick { static constexpr ExecFn fn = &execSetX2<T, C>; };

template <template <class, Cmp> class Pick> ExecFn forType(Mod type, Cmp c) {
  switch (type) {
  case Mod::s16: return forCmp<Pick, int16_t>(c);
  case Mod::u16:
  case Mod::b16: return forCmp<Pick, uint16_t>(c);
  case Mod::s32: return forCmp<Pick, int32_t>(c);
  case Mod::u32:
  case Mod::b32: return forCmp<Pick, uint32_t>(c);
  case Mod::s64: return forCmp<Pick, int64_t>(c);
  case Mod::u64:
  case Mod::b64: return forCmp<Pick, uint64_t>(c);
  case Mod::f32: return forCmp<Pick, float>(c);
  case Mod::f64: return forCmp<Pick, double>(c);
  case Mod::f16: return forCmp<Pick, HalfLane<sem::HalfKind::F16, 0>>(c);
  case Mod::bf16: return forCmp<Pick, HalfLane<sem::HalfKind::BF16, 0>>(c);
  default: return nullptr;
  }
}

/// The packed half types, with the x2 handlers (setp: p|q, set: two packed results).
template <template <class, Cmp> class Pick> ExecFn forPackedType(Mod type, Cmp c) {
  switch (type) {
  case Mod::f16x2: return forCmp<Pick, HalfLane<sem::HalfKind::F16, 0>>(c);
  case Mod::bf16x2: return forCmp<Pick, HalfLane<sem::HalfKind::BF16, 0>>(c);
  default: return nullptr;
  }
}

/// The true value set writes: 1.0 for float destinations, all ones of the destination's width.
int64_t setTrueValue(Mod dtype, Mod stype) {
  switch (dtype) {
  case Mod::f32: return 0x3f800000;
  case Mod::f16:
  case Mod::f16x2: return 0x3c00;
  case Mod::bf16:
  case Mod::bf16x2: return 0x3f80;
  case Mod::u16:
  case Mod::s16: return 0xffff;
  default: return stype == Mod::f16x2 || stype == Mod::bf16x2 ? 0xffff : 0xffffffff;
  }
}

uint8_t combineFlags(Mod boolOp) {
  switch (boolOp) {
  case Mod::and_: return 1 << 1;
  case Mod::or_: return 2 << 1;
  case Mod::xor_: return 3 << 1;
  default: return 0;
  }
}

} // namespace

void decodeCompare(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  switch (inst.opcode) {
  case ptx::Opcode::setp: {
    if (operands.size() < 3)
      return;
    Mod type = inst.type();
    op.flags = (inst.ftz ? 1 : 0) | combineFlags(inst.boolOp);
    const ptx::Operand &dst = operands[0];
    if (dst.kind == ptx::OperandKind::Pair) {
      auto pq = ctx.children(dst);
      op.d[0] = ctx.predSlot(pq[0]);
      op.d[1] = pq[1].kind == ptx::OperandKind::Sink ? kNoSlot : ctx.predSlot(pq[1]);
    } else {
      op.d[0] = ctx.predSlot(dst);
    }
    op.s[0] = ctx.src(operands[1], type);
    op.s[1] = ctx.src(operands[2], type);
    if (inst.boolOp != Mod::None && operands.size() >= 4) {
      bool neg = false;
      op.s[2] = ctx.predSlot(operands[3], &neg);
      if (neg)
        op.flags |= 8;
    }
    op.exec = type == Mod::f16x2 || type == Mod::bf16x2 ? forPackedType<SetpX2Pick>(type, cmpOf(inst.compare, false))
                                                        : forType<SetpPick>(type, cmpOf(inst.compare, false));
    return;
  }
  case ptx::Opcode::set: {
    if (operands.size() < 3)
      return;
    Mod dtype = inst.type(0), stype = inst.type(1);
    op.flags = (inst.ftz ? 1 : 0) | combineFlags(inst.boolOp);
    op.d[0] = ctx.dst(operands[0]);
    op.s[0] = ctx.src(operands[1], stype);
    op.s[1] = ctx.src(operands[2], stype);
    if (inst.boolOp != Mod::None && operands.size() >= 4) {
      bool neg = false;
      op.s[2] = ctx.predSlot(operands[3], &neg);
      if (neg)
        op.flags |= 8;
    }
    op.imm = setTrueValue(dtype, stype);
    op.exec = stype == Mod::f16x2 || stype == Mod::bf16x2 ? forPackedType<SetX2Pick>(stype, cmpOf(inst.compare, false))
                                                          : forType<SetPick>(stype, cmpOf(inst.compare, false));
    return;
  }
  case ptx::Opcode::selp: {
    if (operands.size() < 4)
      return;
    Mod type = inst.type();
    op.d[0] = ctx.dst(operands[0]);
    op.s[0] = ctx.src(operands[1], type);
    op.s[1] = ctx.src(operands[2], type);
    bool neg = false;
    op.s[2] = ctx.predSlot(operands[3], &neg);
    if (neg)
      op.flags |= 8;
    if (op.s[2] == kNoSlot)
      return;
    op.exec = &execSelp;
    return;
  }
  case ptx::Opcode::slct: {
    if (operands.size() < 4)
      return;
    Mod dtype = inst.type(0), ctype = inst.type(1);
    op.flags = inst.ftz ? 1 : 0;
    op.d[0] = ctx.dst(operands[0]);
    op.s[0] = ctx.src(operands[1], dtype);
    op.s[1] = ctx.src(operands[2], dtype);
    op.s[2] = ctx.src(operands[3], ctype);
    op.exec = ctype == Mod::f32 ? &execSlct<float> : &execSlct<int32_t>;
    return;
  }
  default: return;
  }
}

} // namespace ptxray::vm::ops
