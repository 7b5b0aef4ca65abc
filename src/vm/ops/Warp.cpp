// Warp-level data exchange and votes: shfl (legacy and .sync, modes .up .down .bfly .idx with the c
// operand's clamp and segment mask), vote (legacy and .sync: .all .any .uni .ballot), match.sync (.any
// .all), redux.sync, activemask and elect.sync.
//
// The lanes of a warp run in lock-step here, so a `.sync` instruction needs no waiting: the threads
// taking part are the lanes executing the instruction now (active, guard true) that are also in the
// executing lane's membermask. Members of the mask that are on another divergent path or have exited do
// not take part (for exited threads that is the ISA's rule; a diverged member would make the real
// instruction wait for it, which a lock-step warp cannot do). Behaviour the ISA leaves undefined is
// defined as follows: a shuffle from a lane that is not executing (inactive, guarded off or outside the
// membermask) reads that lane's current register value; a lane that is not in its own membermask still
// gets a result computed over the lanes that are.
#include "vm/ops/Families.h"

#include "vm/Exec.h"
#include "vm/Simt.h"

#include <fmt/format.h>

#include <type_traits>

namespace ptxray::vm::ops {

using ptx::Mod;
using ptx::OperandKind;

namespace {

inline void writePred(ExecContext &ctx, uint32_t slot, uint32_t value) {
  if (slot == kNoSlot)
    return;
  uint32_t &p = ctx.pred(slot);
  p = (p & ~ctx.exec) | (value & ctx.exec);
}

/// The lanes taking part for `lane`: its membermask (all lanes for the legacy forms) and the executing lanes.
inline uint32_t participants(const ExecContext &ctx, const uint64_t *mask, int lane) {
  return mask ? static_cast<uint32_t>(mask[lane]) & ctx.exec : ctx.exec;
}

// ---------------------------------------------------------------------------------------------
// shfl

enum class Shfl : uint8_t { Up, Down, Bfly, Idx };

/// op.d[0] d, op.d[1] p (kNoSlot without one), op.s[0..2] a b c, op.s[3] membermask (unused: the source
/// lane's register is read whether or not it is a member).
template <Shfl M> void execShfl(ExecContext &ctx, const MicroOp &op) {
  if (waitForMembersElsewhere(ctx, op.s[3] != kNoSlot ? ctx.in(op.s[3]) : nullptr))
    return;
  const uint64_t *a = ctx.in(op.s[0]);
  const uint64_t *b = ctx.in(op.s[1]);
  const uint64_t *c = ctx.in(op.s[2]);
  uint64_t result[kWarpSize];
  uint8_t sourceLanes[kWarpSize];
  uint32_t inRange = 0;
  forLanes(ctx.exec, [&](int lane) {
    const int bval = static_cast<int>(b[lane] & 31);
    const int cval = static_cast<int>(c[lane] & 31);
    const int segmask = static_cast<int>((c[lane] >> 8) & 31);
    const int maxLane = (lane & segmask) | (cval & ~segmask);
    const int minLane = lane & segmask;
    int j = lane;
    bool pval = false;
    if constexpr (M == Shfl::Up) {
      j = lane - bval;
      pval = j >= maxLane;
    } else if constexpr (M == Shfl::Down) {
      j = lane + bval;
      pval = j <= maxLane;
    } else if constexpr (M == Shfl::Bfly) {
      j = lane ^ bval;
      pval = j <= maxLane;
    } else {
      j = minLane | (bval & ~segmask);
      pval = j <= maxLane;
    }
    if (!pval)
      j = lane;
    result[lane] = a[j] & 0xffffffffu;
    sourceLanes[lane] = static_cast<uint8_t>(j);
    inRange |= static_cast<uint32_t>(pval) << lane;
  });
  if (ctx.listener)
    emitWarpSyncEvent(ctx, op, WarpSyncOp::Shfl, op.s[3] != kNoSlot ? ctx.in(op.s[3]) : nullptr, sourceLanes);
  // Every source is read before any destination is written (d may be a).
  uint64_t *d = ctx.out(op.d[0]);
  forLanes(ctx.exec, [&](int lane) { d[lane] = result[lane]; });
  writePred(ctx, op.d[1], inRange);
}

// ---------------------------------------------------------------------------------------------
// vote

enum class Vote : uint8_t { All, Any, Uni, Ballot };

/// op.s[0] the source predicate slot (flags bit 0: negated), op.s[1] membermask (kNoSlot: legacy form),
/// op.d[0] predicate slot (.all .any .uni) or value slot (.ballot).
template <Vote V> void execVote(ExecContext &ctx, const MicroOp &op) {
  uint32_t pa = ctx.pred(op.s[0]);
  if (op.flags & 1)
    pa = ~pa;
  const uint64_t *mask = op.s[1] != kNoSlot ? ctx.in(op.s[1]) : nullptr;
  if (waitForMembersElsewhere(ctx, mask))
    return;
  if (ctx.listener)
    emitWarpSyncEvent(ctx, op, WarpSyncOp::Vote, mask, nullptr);
  if constexpr (V == Vote::Ballot) {
    uint64_t *d = ctx.out(op.d[0]);
    forLanes(ctx.exec, [&](int lane) { d[lane] = pa & participants(ctx, mask, lane); });
  } else {
    uint32_t result = 0;
    forLanes(ctx.exec, [&](int lane) {
      const uint32_t part = participants(ctx, mask, lane);
      const uint32_t set = pa & part;
      bool r;
      if constexpr (V == Vote::All)
        r = set == part;
      else if constexpr (V == Vote::Any)
        r = set != 0;
      else
        r = set == 0 || set == part;
      result |= static_cast<uint32_t>(r) << lane;
    });
    writePred(ctx, op.d[0], result);
  }
}

// ---------------------------------------------------------------------------------------------
// match.sync

/// op.d[0] d, op.d[1] p (match.all; kNoSlot when absent), op.s[0] a, op.s[1] membermask.
template <class T, bool All> void execMatch(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *a = ctx.in(op.s[0]);
  const uint64_t *mask = ctx.in(op.s[1]);
  if (waitForMembersElsewhere(ctx, mask))
    return;
  if (ctx.listener)
    emitWarpSyncEvent(ctx, op, WarpSyncOp::Match, mask, nullptr);
  uint32_t matches[kWarpSize];
  uint32_t allSame = 0;
  forLanes(ctx.exec, [&](int lane) {
    const uint32_t part = participants(ctx, mask, lane);
    // .any compares the members with this lane's value; .all compares them with the first member's.
    const int reference = All && part ? std::countr_zero(part) : lane;
    const T value = static_cast<T>(a[reference]);
    uint32_t same = 0;
    for (uint32_t m = part; m; m &= m - 1) {
      const int k = std::countr_zero(m);
      if (static_cast<T>(a[k]) == value)
        same |= 1u << k;
    }
    if constexpr (All) {
      const bool all = same == part;
      matches[lane] = all ? part : 0;
      allSame |= static_cast<uint32_t>(all) << lane;
    } else {
      matches[lane] = same;
    }
  });
  uint64_t *d = ctx.out(op.d[0]);
  forLanes(ctx.exec, [&](int lane) { d[lane] = matches[lane]; });
  if constexpr (All)
    writePred(ctx, op.d[1], allSame);
}

// ---------------------------------------------------------------------------------------------
// redux.sync

enum class Redux : uint8_t { Add, Min, Max, And, Or, Xor };

template <class T, Redux R> inline T reduceStep(T x, T y) {
  if constexpr (R == Redux::Add)
    return static_cast<T>(static_cast<uint32_t>(x) + static_cast<uint32_t>(y));
  else if constexpr (R == Redux::Min)
    return x < y ? x : y;
  else if constexpr (R == Redux::Max)
    return x > y ? x : y;
  else if constexpr (R == Redux::And)
    return x & y;
  else if constexpr (R == Redux::Or)
    return x | y;
  else
    return x ^ y;
}

/// op.d[0] d, op.s[0] src, op.s[1] membermask. Lanes with the same participants share one reduction.
template <class T, Redux R> void execRedux(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *src = ctx.in(op.s[0]);
  const uint64_t *mask = ctx.in(op.s[1]);
  if (waitForMembersElsewhere(ctx, mask))
    return;
  if (ctx.listener)
    emitWarpSyncEvent(ctx, op, WarpSyncOp::Redux, mask, nullptr);
  uint64_t result[kWarpSize];
  uint32_t lastPart = 0;
  uint64_t lastValue = 0;
  bool haveLast = false;
  forLanes(ctx.exec, [&](int lane) {
    const uint32_t part = participants(ctx, mask, lane);
    if (!haveLast || part != lastPart) {
      T acc{};
      bool first = true;
      for (uint32_t m = part; m; m &= m - 1) {
        const T v = static_cast<T>(src[std::countr_zero(m)]);
        acc = first ? v : reduceStep<T, R>(acc, v);
        first = false;
      }
      // Registers hold values extended to 64 bits: .s32 sign-extended, .u32/.b32 zero-extended.
      lastValue = std::is_signed_v<T> ? static_cast<uint64_t>(static_cast<int64_t>(acc)) : static_cast<uint64_t>(acc);
      lastPart = part;
      haveLast = true;
    }
    result[lane] = lastValue;
  });
  uint64_t *d = ctx.out(op.d[0]);
  forLanes(ctx.exec, [&](int lane) { d[lane] = result[lane]; });
}

// ---------------------------------------------------------------------------------------------
// activemask, elect.sync

void execActivemask(ExecContext &ctx, const MicroOp &op) {
  uint64_t *d = ctx.out(op.d[0]);
  const uint64_t mask = ctx.exec;
  forLanes(ctx.exec, [&](int lane) { d[lane] = mask; });
}

/// op.d[0] d (the leader's lane id), op.d[1] p (true in the leader), op.s[0] membermask. The leader is the
/// lowest executing lane of the membermask (deterministic, as the ISA requires).
void execElect(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *mask = ctx.in(op.s[0]);
  if (waitForMembersElsewhere(ctx, mask))
    return;
  if (ctx.listener)
    emitWarpSyncEvent(ctx, op, WarpSyncOp::Elect, mask, nullptr);
  uint64_t *d = ctx.out(op.d[0]);
  uint32_t leaders = 0;
  forLanes(ctx.exec, [&](int lane) {
    const uint32_t part = participants(ctx, mask, lane);
    const int leader = part ? std::countr_zero(part) : lane;
    d[lane] = static_cast<uint64_t>(leader);
    leaders |= static_cast<uint32_t>(leader == lane && part != 0) << lane;
  });
  writePred(ctx, op.d[1], leaders);
}

// ---------------------------------------------------------------------------------------------
// Decoding

/// A `d|p` destination: value slot and predicate slot (kNoSlot for an absent p).
void destinationPair(DecodeContext &ctx, const ptx::Operand &o, uint32_t &value, uint32_t &pred) {
  if (o.kind == OperandKind::Pair) {
    auto parts = ctx.children(o);
    value = ctx.dst(parts[0]);
    pred = parts[1].kind == OperandKind::Sink ? kNoSlot : ctx.predSlot(parts[1]);
  } else {
    value = ctx.dst(o);
    pred = kNoSlot;
  }
}

void decodeShfl(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  const bool sync = inst.sync || inst.has(Mod::sync);
  if (operands.size() < (sync ? 5u : 4u))
    return;
  if (inst.type() != Mod::b32 && inst.type() != Mod::None)
    return;
  destinationPair(ctx, operands[0], op.d[0], op.d[1]);
  op.s[0] = ctx.src(operands[1], Mod::b32);
  op.s[1] = ctx.src(operands[2], Mod::b32);
  op.s[2] = ctx.src(operands[3], Mod::b32);
  if (sync)
    op.s[3] = ctx.src(operands[4], Mod::b32);
  if (inst.has(Mod::up))
    op.exec = &execShfl<Shfl::Up>;
  else if (inst.has(Mod::down))
    op.exec = &execShfl<Shfl::Down>;
  else if (inst.has(Mod::bfly))
    op.exec = &execShfl<Shfl::Bfly>;
  else if (inst.has(Mod::idx))
    op.exec = &execShfl<Shfl::Idx>;
}

void decodeVote(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  const bool sync = inst.sync || inst.has(Mod::sync);
  if (operands.size() < (sync ? 3u : 2u))
    return;
  bool negated = false;
  op.s[0] = ctx.predSlot(operands[1], &negated);
  if (op.s[0] == kNoSlot)
    return;
  op.flags = negated ? 1 : 0;
  if (sync)
    op.s[1] = ctx.src(operands[2], Mod::b32);
  if (inst.has(Mod::ballot)) {
    op.d[0] = ctx.dst(operands[0]);
    op.exec = &execVote<Vote::Ballot>;
    return;
  }
  op.d[0] = operands[0].kind == OperandKind::Sink ? kNoSlot : ctx.predSlot(operands[0]);
  if (op.d[0] == kNoSlot && operands[0].kind != OperandKind::Sink)
    return;
  if (inst.has(Mod::all))
    op.exec = &execVote<Vote::All>;
  else if (inst.has(Mod::any))
    op.exec = &execVote<Vote::Any>;
  else if (inst.has(Mod::uni) || inst.uni)
    op.exec = &execVote<Vote::Uni>;
}

void decodeMatch(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  if (operands.size() < 3)
    return;
  const bool all = inst.has(Mod::all);
  if (!all && !inst.has(Mod::any))
    return;
  const Mod type = inst.type();
  destinationPair(ctx, operands[0], op.d[0], op.d[1]);
  op.s[0] = ctx.src(operands[1], type);
  op.s[1] = ctx.src(operands[2], Mod::b32);
  const int bits = ptx::typeInfo(type).bits;
  if (bits == 32)
    op.exec = all ? &execMatch<uint32_t, true> : &execMatch<uint32_t, false>;
  else if (bits == 64)
    op.exec = all ? &execMatch<uint64_t, true> : &execMatch<uint64_t, false>;
}

template <class T> ExecFn reduxArith(const ptx::Instruction &inst) {
  if (inst.has(Mod::add))
    return &execRedux<T, Redux::Add>;
  if (inst.has(Mod::min))
    return &execRedux<T, Redux::Min>;
  if (inst.has(Mod::max))
    return &execRedux<T, Redux::Max>;
  return nullptr;
}

void decodeRedux(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  if (operands.size() < 3)
    return;
  const Mod type = inst.type();
  if (type == Mod::f32) {
    ctx.unsupported(op, "redux.sync on .f32 is not supported by the ptxray VM");
    return;
  }
  op.d[0] = ctx.dst(operands[0]);
  op.s[0] = ctx.src(operands[1], type);
  op.s[1] = ctx.src(operands[2], Mod::b32);
  if (inst.has(Mod::and_)) {
    op.exec = &execRedux<uint32_t, Redux::And>;
    return;
  }
  if (inst.has(Mod::or_)) {
    op.exec = &execRedux<uint32_t, Redux::Or>;
    return;
  }
  if (inst.has(Mod::xor_)) {
    op.exec = &execRedux<uint32_t, Redux::Xor>;
    return;
  }
  if (type == Mod::s32)
    op.exec = reduxArith<int32_t>(inst);
  else if (type == Mod::u32 || type == Mod::b32)
    op.exec = reduxArith<uint32_t>(inst);
}

void decodeElect(DecodeContext &ctx, MicroOp &op) {
  auto operands = ctx.operands();
  if (operands.size() < 2)
    return;
  destinationPair(ctx, operands[0], op.d[0], op.d[1]);
  op.s[0] = ctx.src(operands[1], Mod::b32);
  op.exec = &execElect;
}

} // namespace

void emitWarpSyncEvent(ExecContext &ctx, const MicroOp &op, WarpSyncOp kind, const uint64_t *memberMask,
                       const uint8_t *sourceLanes) {
  WarpSyncEvent e;
  e.pc = ctx.pc;
  e.instruction = op.instruction;
  e.op = kind;
  e.hasMemberMask = memberMask != nullptr;
  e.activeMask = ctx.active;
  e.executedMask = ctx.exec;
  e.liveMask = ctx.warp->liveMask;
  forLanes(ctx.exec, [&](int lane) {
    if (memberMask)
      e.memberMasks[lane] = static_cast<uint32_t>(memberMask[lane]);
    if (sourceLanes)
      e.sourceLanes[lane] = sourceLanes[lane];
  });
  ctx.listener->onWarpSync(ctx.warpRef(), e);
}

void decodeWarp(DecodeContext &ctx, MicroOp &op) {
  switch (ctx.inst->opcode) {
  case ptx::Opcode::shfl: decodeShfl(ctx, op); return;
  case ptx::Opcode::vote: decodeVote(ctx, op); return;
  case ptx::Opcode::match: decodeMatch(ctx, op); return;
  case ptx::Opcode::redux: decodeRedux(ctx, op); return;
  case ptx::Opcode::elect: decodeElect(ctx, op); return;
  case ptx::Opcode::activemask: {
    auto operands = ctx.operands();
    if (operands.empty())
      return;
    op.d[0] = ctx.dst(operands[0]);
    op.exec = &execActivemask;
    return;
  }
  default: return;
  }
}

} // namespace ptxray::vm::ops
