// Extended-precision integer arithmetic: add.cc, addc{.cc}, sub.cc, subc{.cc}, mad{.lo,.hi}.cc and
// madc{.lo,.hi}{.cc} on 32- and 64-bit types.
//
// The condition code's carry flag (CC.CF) is per-thread state. Exec.h has no field for it, so each
// function that uses it gets one extra predicate slot, allocated the first time one of these
// instructions is decoded in that function: a 32-lane mask like any predicate, saved and restored
// with the function's predicate window (a callee starts with a clear carry). The slot travels in
// MicroOp::target (unused by plain micro-ops).
//
// Per the ISA text, sub.cc and subc{.cc} write the *borrow* out to CC.CF and subc subtracts CC.CF as a
// borrow in: d = a - (b + CF). Mixing a sub-produced flag with addc (or the reverse) therefore uses
// the flag literally, as the ISA's semantics describe.
#include "vm/ops/Families.h"

#include "vm/Exec.h"

#include <type_traits>

namespace ptxray::vm::ops {

using ptx::Mod;

namespace {

/// Key in DecodeContext::framePlacement_ under which a function's carry slot is remembered. Module
/// symbol indices never come near it, and the map lives exactly as long as the function's decoding.
constexpr uint32_t kCarryKey = 0xfffffff0u;

uint32_t carrySlot(DecodeContext &ctx) {
  auto it = ctx.framePlacement_.find(kCarryKey);
  if (it != ctx.framePlacement_.end())
    return it->second.slot;
  uint32_t slot = ctx.fn.numPredSlots++;
  ctx.framePlacement_[kCarryKey] = SymbolPlacement{SymbolPlacement::Kind::None, 0, slot};
  return slot;
}

enum class Kind : uint8_t { Add, Sub, MadLo, MadHi };

template <class T> using Wide = std::conditional_t<sizeof(T) == 4, uint64_t, unsigned __int128>;
template <class T> using SWide = std::conditional_t<sizeof(T) == 4, int64_t, __int128>;

/// The half of a*b a mad reads (Signed: the operands are the signed type's values).
template <class T, Kind K, bool Signed> inline T productPart(T a, T b) {
  constexpr int n = 8 * sizeof(T);
  if constexpr (K == Kind::MadLo) {
    return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
  } else if constexpr (Signed) {
    using S = std::make_signed_t<T>;
    SWide<T> p = static_cast<SWide<T>>(static_cast<S>(a)) * static_cast<SWide<T>>(static_cast<S>(b));
    return static_cast<T>(static_cast<Wide<T>>(p) >> n);
  } else {
    return static_cast<T>((static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b)) >> n);
  }
}

/// T is the unsigned type of the operation's width; Signed matters only for mad.hi's product.
template <class T, Kind K, bool Signed, bool CarryIn, bool CarryOut>
void execCarry(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *a = ctx.in(op.s[0]);
  const uint64_t *b = ctx.in(op.s[1]);
  const uint64_t *c = (K == Kind::MadLo || K == Kind::MadHi) ? ctx.in(op.s[2]) : a;
  uint64_t *d = ctx.out(op.d[0]);
  uint32_t &cf = ctx.pred(op.target);
  const uint32_t carryIn = CarryIn ? cf : 0;
  uint32_t carryOut = 0;
  forLanes(ctx.exec, [&](int lane) {
    const T x = static_cast<T>(a[lane]), y = static_cast<T>(b[lane]);
    const T in = static_cast<T>((carryIn >> lane) & 1);
    T r;
    uint32_t out;
    if constexpr (K == Kind::Sub) {
      // d = x - (y + in); borrow when x < y + in (computed without overflowing y + in).
      r = static_cast<T>(x - y - in);
      out = (x < y || (x == y && in)) ? 1u : 0u;
    } else {
      T lhs, rhs;
      if constexpr (K == Kind::Add) {
        lhs = x;
        rhs = y;
      } else {
        lhs = productPart<T, K, Signed>(x, y);
        rhs = static_cast<T>(c[lane]);
      }
      const T s = static_cast<T>(lhs + rhs);
      r = static_cast<T>(s + in);
      out = (s < lhs || r < s) ? 1u : 0u;
    }
    d[lane] = static_cast<uint64_t>(r);
    carryOut |= out << lane;
  });
  if constexpr (CarryOut)
    cf = (cf & ~ctx.exec) | (carryOut & ctx.exec);
}

template <class T, Kind K, bool Signed> ExecFn pickCarry(bool carryIn, bool carryOut) {
  if (carryIn)
    return carryOut ? &execCarry<T, K, Signed, true, true> : &execCarry<T, K, Signed, true, false>;
  return carryOut ? &execCarry<T, K, Signed, false, true> : &execCarry<T, K, Signed, false, false>;
}

template <Kind K> ExecFn pickType(Mod type, bool carryIn, bool carryOut) {
  switch (type) {
  case Mod::u32: return pickCarry<uint32_t, K, false>(carryIn, carryOut);
  case Mod::s32: return pickCarry<uint32_t, K, true>(carryIn, carryOut);
  case Mod::u64: return pickCarry<uint64_t, K, false>(carryIn, carryOut);
  case Mod::s64: return pickCarry<uint64_t, K, true>(carryIn, carryOut);
  default: return nullptr;
  }
}

} // namespace

void decodeExtendedPrecision(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  const Mod type = inst.type();
  const bool isMad = inst.opcode == ptx::Opcode::mad || inst.opcode == ptx::Opcode::madc;
  if (operands.size() < (isMad ? 4u : 3u))
    return;
  bool carryIn = false, carryOut = inst.has(Mod::cc);
  ExecFn fn = nullptr;
  switch (inst.opcode) {
  case ptx::Opcode::add: fn = pickType<Kind::Add>(type, false, carryOut); break;
  case ptx::Opcode::addc:
    carryIn = true;
    fn = pickType<Kind::Add>(type, true, carryOut);
    break;
  case ptx::Opcode::sub: fn = pickType<Kind::Sub>(type, false, carryOut); break;
  case ptx::Opcode::subc:
    carryIn = true;
    fn = pickType<Kind::Sub>(type, true, carryOut);
    break;
  case ptx::Opcode::mad:
  case ptx::Opcode::madc: {
    carryIn = inst.opcode == ptx::Opcode::madc;
    if (inst.has(Mod::wide))
      return; // not an extended-precision form
    fn = inst.has(Mod::hi) ? pickType<Kind::MadHi>(type, carryIn, carryOut)
                           : pickType<Kind::MadLo>(type, carryIn, carryOut);
    break;
  }
  default: return;
  }
  if (!fn)
    return;
  op.d[0] = ctx.dst(operands[0]);
  op.s[0] = ctx.src(operands[1], type);
  op.s[1] = ctx.src(operands[2], type);
  if (isMad)
    op.s[2] = ctx.src(operands[3], type);
  op.target = carrySlot(ctx);
  op.exec = fn;
}

} // namespace ptxray::vm::ops
