// bar / barrier (sync, arrive, red), bar.warp.sync, membar / fence, nanosleep.
//
// Barriers count threads. A warp arrives with its active lanes; on sm_70+ hardware (and in PTX's
// model of bar.sync as barrier.sync.aligned) every non-exited thread of a warp must reach the same
// barrier, so a warp arriving with only some of its live lanes is reported as compute-sanitizer's
// synccheck reports it. Exited threads do not count toward a barrier that waits for all threads.
#include "vm/Simt.h"
#include "vm/ops/Families.h"

#include <fmt/format.h>

namespace ptxray::vm::ops {

using ptx::Mod;
using ptx::OperandKind;

namespace {

enum BarrierFlags : uint8_t { Arrive = 1, RedPopc = 2, RedAnd = 4, RedOr = 8, HasCount = 16, NegatedPred = 32 };

uint64_t reductionResult(const Cta::Barrier &b, uint8_t kind) {
  return kind & RedPopc ? b.reduction : (b.reduction ? 1 : 0);
}

void writeReduction(Warp &w, uint32_t slot, uint32_t mask, uint8_t kind, uint64_t result) {
  const CallFrame &f = w.frames.back();
  if (kind & RedPopc) {
    uint64_t *d = w.regs.data() + (uint64_t{f.regBase} + slot) * kWarpSize;
    forLanes(mask, [&](int lane) { d[lane] = result; });
  } else {
    uint32_t &p = w.preds[f.predBase + slot];
    p = result ? (p | mask) : (p & ~mask);
  }
}

void release(ExecContext &ctx, uint32_t id) {
  Cta &cta = *ctx.cta;
  Cta::Barrier &b = cta.barriers[id];
  for (uint32_t i = 0; i < cta.warps.size(); ++i) {
    if (!((b.waiting >> i) & 1))
      continue;
    Warp &w = cta.warps[i];
    w.state = Warp::State::Ready;
    if (b.redKind[i])
      writeReduction(w, b.redSlot[i], b.redMask[i], b.redKind[i], reductionResult(b, b.redKind[i]));
  }
  if (ctx.listener) {
    BarrierEvent e;
    e.pc = ctx.pc;
    e.barrier = id;
    e.release = true;
    ctx.listener->onBarrier(ctx.warpRef(), e);
  }
  b = Cta::Barrier{};
}

void execBarrier(ExecContext &ctx, const MicroOp &op) {
  if (ctx.exec == 0)
    return;
  Warp &w = *ctx.warp;
  int lead = std::countr_zero(ctx.exec);
  uint32_t id = static_cast<uint32_t>(ctx.in(op.s[0])[lead]);
  if (id >= kNumBarriers) {
    ctx.fault(FaultKind::IllegalInstruction, lead, fmt::format("barrier {} does not exist (0-15)", id));
    return;
  }
  uint32_t count = 0;
  if (op.flags & HasCount) {
    count = static_cast<uint32_t>(ctx.in(op.s[1])[lead]);
    if (count == 0 || count % kWarpSize) {
      ctx.fault(FaultKind::IllegalInstruction, lead,
                fmt::format("barrier thread count {} is not a positive multiple of the warp size", count));
      return;
    }
  }
  if (ctx.exec != w.liveMask && parkRunAheadLanes(ctx))
    return;
  if (ctx.exec != w.liveMask) {
    uint32_t missing = w.liveMask & ~ctx.exec;
    ctx.fault(FaultKind::BarrierDivergence, std::countr_zero(missing),
              fmt::format("barrier {} reached by lanes 0x{:08x} of warp {} while live lanes 0x{:08x} are elsewhere", id,
                          ctx.exec, w.index, missing));
    if (ctx.yield)
      return;
  }
  Cta &cta = *ctx.cta;
  Cta::Barrier &b = cta.barriers[id];
  if (b.arrived == 0) {
    b.expected = count;
    b.reduction = (op.flags & RedAnd) ? 1 : 0;
  }
  uint8_t redKind = op.flags & (RedPopc | RedAnd | RedOr);
  if (redKind) {
    uint32_t p = ctx.preds[op.s[2]];
    if (op.flags & NegatedPred)
      p = ~p;
    p &= ctx.exec;
    if (redKind & RedPopc)
      b.reduction += static_cast<uint32_t>(std::popcount(p));
    else if (redKind & RedAnd)
      b.reduction &= p == ctx.exec ? 1u : 0u;
    else
      b.reduction |= p ? 1u : 0u;
    b.redSlot[w.index] = op.d[0];
    b.redMask[w.index] = ctx.exec;
    b.redKind[w.index] = redKind;
  }
  b.arrived += static_cast<uint32_t>(std::popcount(ctx.exec));
  if (ctx.listener) {
    BarrierEvent e;
    e.pc = ctx.pc;
    e.instruction = op.instruction;
    e.barrier = id;
    e.mask = ctx.exec;
    e.threadCount = count;
    e.arriveOnly = (op.flags & Arrive) != 0;
    ctx.listener->onBarrier(ctx.warpRef(), e);
  }
  uint32_t expected = b.expected ? b.expected : cta.liveThreads;
  if (b.arrived >= expected) {
    b.waiting |= uint64_t{1} << w.index;
    release(ctx, id);
    return;
  }
  if (op.flags & Arrive)
    return;
  b.waiting |= uint64_t{1} << w.index;
  w.state = Warp::State::AtBarrier;
  w.barrier = id;
  w.barrierPc = ctx.pc;
  ctx.yield = true;
}

void execNop(ExecContext &, const MicroOp &) {}

/// bar.warp.sync: op.s[0] the membermask.
void execWarpBarrier(ExecContext &ctx, const MicroOp &op) {
  if (waitForMembersElsewhere(ctx, op.s[0] != kNoSlot ? ctx.in(op.s[0]) : nullptr))
    return;
  if (ctx.listener)
    emitWarpSyncEvent(ctx, op, WarpSyncOp::BarWarpSync, op.s[0] != kNoSlot ? ctx.in(op.s[0]) : nullptr, nullptr);
}

/// nanosleep lets the other warps of the CTA run (spin-waits on a flag another warp sets).
void execYield(ExecContext &ctx, const MicroOp &) {
  if (ctx.exec) {
    ctx.yield = true;
    // A back-off in a spin loop: the scheduler treats it like a quantum's end (it may be polling).
    ctx.warp->quantumYield = true;
  }
}

} // namespace

void releaseWaitingBarriers(ExecContext &ctx) {
  Cta &cta = *ctx.cta;
  for (uint32_t id = 0; id < kNumBarriers; ++id) {
    Cta::Barrier &b = cta.barriers[id];
    if (b.waiting && b.expected == 0 && b.arrived >= cta.liveThreads) {
      release(ctx, id);
    }
  }
}

void decodeNop(DecodeContext &, MicroOp &op) {
  op.exec = &execNop;
}

void decodeSync(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  switch (inst.opcode) {
  case ptx::Opcode::membar:
  case ptx::Opcode::fence:
    // CTAs run one warp at a time and workers share memory through host atomics and the launch's
    // final join: every access is already ordered as these instructions require.
    op.exec = &execNop;
    return;
  case ptx::Opcode::nanosleep:
    op.kind = OpKind::Control;
    op.exec = &execYield;
    return;
  case ptx::Opcode::bar:
  case ptx::Opcode::barrier: {
    if (inst.has(Mod::warp)) {
      // bar.warp.sync: lanes of a warp already run in lock-step here; only a listener (synccheck,
      // racecheck) needs to know where the warp synchronized and with which membermask.
      if (!operands.empty())
        op.s[0] = ctx.src(operands[0], Mod::b32);
      op.exec = &execWarpBarrier;
      return;
    }
    if (inst.has(Mod::cluster)) {
      // A cluster of one CTA: barrier.cluster.arrive/wait synchronize only this CTA's threads,
      // which a CTA barrier does too.
      if (inst.has(Mod::wait)) {
        op.exec = &execNop;
        return;
      }
      op.s[0] = ctx.constant(15);
      op.kind = OpKind::Control;
      op.exec = &execBarrier;
      return;
    }
    size_t first = 0;
    if (inst.has(Mod::red)) {
      op.flags |= inst.has(Mod::popc) ? RedPopc : inst.has(Mod::and_) ? RedAnd : RedOr;
      if (operands.empty())
        return;
      op.d[0] = (op.flags & RedPopc) ? ctx.dst(operands[0]) : ctx.predSlot(operands[0]);
      first = 1;
      if (operands.size() < first + 2)
        return;
      bool negated = false;
      op.s[2] = ctx.predSlot(operands.back(), &negated);
      if (negated)
        op.flags |= NegatedPred;
      if (operands.size() == first + 3) {
        op.s[1] = ctx.src(operands[first + 1], Mod::u32);
        op.flags |= HasCount;
      }
    } else if (operands.size() >= 2) {
      op.s[1] = ctx.src(operands[1], Mod::u32);
      op.flags |= HasCount;
    }
    op.s[0] = operands.size() > first ? ctx.src(operands[first], Mod::u32) : ctx.constant(0);
    if (inst.has(Mod::arrive))
      op.flags |= Arrive;
    op.kind = OpKind::Control;
    op.exec = &execBarrier;
    return;
  }
  default: return;
  }
}

} // namespace ptxray::vm::ops

namespace ptxray::vm {
void releaseBarriers(ExecContext &ctx) {
  ops::releaseWaitingBarriers(ctx);
}
} // namespace ptxray::vm
