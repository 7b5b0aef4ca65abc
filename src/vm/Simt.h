// The SIMT control-flow operations control micro-ops use: splitting a warp at a divergent branch,
// calls and returns with their frames, lanes exiting. All of them leave the warp's stack in a state
// the interpreter reloads from (ExecContext::reload).
#pragma once

#include "vm/Exec.h"

namespace ptxray::vm {

/// `takenMask` continues at `takenPc`, `fallMask` at `fallPc`; both rejoin at `rpc`.
void diverge(ExecContext &ctx, uint32_t takenPc, uint32_t takenMask, uint32_t fallPc, uint32_t fallMask, uint32_t rpc);
/// The current path's lanes in `mask` leave the kernel.
void exitLanes(ExecContext &ctx, uint32_t mask);
/// The current path's lanes in `mask` return from the current function (exit in a kernel).
void returnLanes(ExecContext &ctx, uint32_t mask);
/// Calls `callee` for `mask`; `args`/`rets` are the call's operand lists (DecodedFunction::extra).
/// False after reporting a fault (stack overflow).
bool callFunction(ExecContext &ctx, const MicroOp &op, const DecodedFunction &callee, uint32_t mask);
/// Independent thread scheduling: when the warp's current path polls, the lanes that already wait at
/// the nearest reconvergence point (a lane that took a lock and left the spin loop) run ahead to
/// where that point's path rejoins the rest, ahead of the polling path. False when no lane waits.
bool runWaitingLanesAhead(Warp &w);
/// At a CTA barrier reached by lanes that ran ahead (runWaitingLanesAhead) while the rest of their
/// warp is elsewhere: they wait at the barrier until the others get there, and the warp goes on with
/// its other paths (Volta's barriers count threads, not warps). False when that is not the case.
bool parkRunAheadLanes(ExecContext &ctx);
/// For a `.sync` warp instruction (membermask per lane, null: the whole warp): lanes that ran ahead
/// wait there for members still on another path (parkRunAheadLanes) and the warp runs its other
/// paths first. True when they did: the instruction is not executed now (ctx.yield is set).
inline bool waitForMembersElsewhere(ExecContext &ctx, const uint64_t *memberMask) {
  if (!(ctx.warp->simt.back().flags & SimtEntry::kRunAhead))
    return false; // the common case: one branch
  uint32_t wanted = 0;
  forLanes(ctx.exec, [&](int lane) { wanted |= memberMask ? static_cast<uint32_t>(memberMask[lane]) : kFullMask; });
  if (!(wanted & ctx.warp->liveMask & ~ctx.exec) || !parkRunAheadLanes(ctx))
    return false;
  ctx.yield = true;
  return true;
}
/// Makes room for `bytes` of local memory per thread; false after reporting a stack overflow.
bool ensureLocal(ExecContext &ctx, uint64_t bytes);

/// Releases barriers that wait for all live threads when exits have made them complete.
void releaseBarriers(ExecContext &ctx);

/// Host pointer to a lane's local memory at frame-relative `offset` of the current frame.
inline std::byte *frameBytes(ExecContext &ctx, int lane, uint64_t offset) {
  return ctx.warp->local.data() + lane * ctx.warp->localStride + ctx.frameBase() + offset;
}

/// Call operand encoding in DecodedFunction::extra, starting at MicroOp::extra:
/// [numReturns, numArgs, then per return: kind, value, then per argument: kind, value].
/// kind 0: a frame offset of a caller .param variable; 1: a value reference (register or constant).
enum class CallOperandKind : uint32_t { Frame = 0, Value = 1 };

} // namespace ptxray::vm
