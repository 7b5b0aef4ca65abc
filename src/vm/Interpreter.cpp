#include "vm/Interpreter.h"

#include "ptx/Isa.h"
#include "ptx/LineTable.h"
#include "vm/Simt.h"

#include <algorithm>
#include <fmt/format.h>

namespace ptxray::vm {

namespace {

/// Budget accounting is flushed to the launch every this many warp instructions.
constexpr uint32_t kBudgetChunk = 4096;

void loadFrame(ExecContext &ctx) {
  Warp &w = *ctx.warp;
  const CallFrame &f = w.frames.back();
  ctx.fn = f.function;
  ctx.regs = w.regs.data() + uint64_t{f.regBase} * kWarpSize;
  ctx.preds = w.preds.data() + f.predBase;
}

/// Pops finished paths and completed calls until the top entry has live lanes (or the warp is done).
void settle(ExecContext &ctx);

void finishCall(ExecContext &ctx) {
  Warp &w = *ctx.warp;
  CallFrame done = w.frames.back();
  uint32_t returned = done.returnedMask & w.liveMask;
  const CallFrame &caller = w.frames[w.frames.size() - 2];
  const DecodedFunction &callerFn = *caller.function;
  const MicroOp &call = callerFn.code[done.callPc];
  const uint32_t *list = callerFn.extra.data() + call.extra;
  uint32_t numRets = list[0];
  uint64_t *calleeRegs = w.regs.data() + uint64_t{done.regBase} * kWarpSize;
  uint64_t *callerRegs = w.regs.data() + uint64_t{caller.regBase} * kWarpSize;
  for (uint32_t r = 0; r < numRets && r < done.function->returnOffsets.size(); ++r) {
    auto kind = static_cast<CallOperandKind>(list[2 + 2 * r]);
    uint32_t value = list[3 + 2 * r];
    uint64_t from = done.function->returnOffsets[r];
    uint64_t size = std::min<uint64_t>(done.function->returnSizes[r], 16);
    forLanes(returned, [&](int lane) {
      uint64_t bits[2] = {0, 0};
      if (from >> 63)
        bits[0] = calleeRegs[(from & 0xffffffffu) * kWarpSize + lane];
      else
        std::memcpy(bits, w.local.data() + lane * w.localStride + done.frameBase + from, size);
      if (kind == CallOperandKind::Frame) {
        // Aggregates are copied whole; the caller's variable is at least as large as the callee's.
        std::memcpy(w.local.data() + lane * w.localStride + caller.frameBase + value,
                    w.local.data() + lane * w.localStride + done.frameBase + from,
                    (from >> 63) ? 8 : done.function->returnSizes[r]);
        if (from >> 63)
          std::memcpy(w.local.data() + lane * w.localStride + caller.frameBase + value, bits, 8);
      } else {
        callerRegs[uint64_t{value} * kWarpSize + lane] = bits[0];
      }
    });
  }
  w.frames.pop_back();
  w.regs.resize(uint64_t{done.regBase} * kWarpSize);
  w.preds.resize(done.predBase);
  loadFrame(ctx);
  if (ctx.listener) {
    CallEvent e;
    e.pc = done.callPc;
    e.instruction = call.instruction;
    e.callee = done.function;
    e.mask = returned;
    e.isReturn = true;
    ctx.listener->onCall(ctx.warpRef(), e);
  }
}

void settle(ExecContext &ctx) {
  Warp &w = *ctx.warp;
  for (;;) {
    if (w.frames.size() > 1 && w.simt.size() == w.frames.back().simtBase) {
      finishCall(ctx);
      continue;
    }
    if (w.simt.empty()) {
      w.state = Warp::State::Done;
      return;
    }
    if ((w.simt.back().mask & w.liveMask) == 0) {
      w.simt.pop_back();
      continue;
    }
    return;
  }
}

uint64_t readSpecial(ExecContext &ctx, ptx::SpecialReg reg, int component, int lane) {
  using ptx::SpecialReg;
  const LaunchState &L = *ctx.launch;
  auto pick = [component](const Dim3 &d) -> uint64_t {
    return component == 0 ? d.x : component == 1 ? d.y : component == 2 ? d.z : 0;
  };
  switch (reg) {
  case SpecialReg::tid: return pick(ctx.threadIdOf(lane));
  case SpecialReg::ntid: return pick(L.block);
  case SpecialReg::ctaid: return pick(ctx.cta->id);
  case SpecialReg::nctaid: return pick(L.grid);
  case SpecialReg::laneid: return static_cast<uint64_t>(lane);
  case SpecialReg::warpid: return ctx.warp->index;
  case SpecialReg::nwarpid: return static_cast<uint64_t>((L.block.count() + kWarpSize - 1) / kWarpSize);
  case SpecialReg::smid: return ctx.cta->linearId % L.smCount;
  case SpecialReg::nsmid: return L.smCount;
  case SpecialReg::gridid: return L.gridId;
  case SpecialReg::lanemask_eq: return uint64_t{1} << lane;
  case SpecialReg::lanemask_le: return (uint64_t{2} << lane) - 1;
  case SpecialReg::lanemask_lt: return (uint64_t{1} << lane) - 1;
  case SpecialReg::lanemask_ge: return static_cast<uint32_t>(~((uint64_t{1} << lane) - 1));
  case SpecialReg::lanemask_gt: return static_cast<uint32_t>(~((uint64_t{2} << lane) - 1));
  case SpecialReg::clock:
  case SpecialReg::clock_hi:
  case SpecialReg::clock64:
  case SpecialReg::globaltimer:
  case SpecialReg::globaltimer_lo:
  case SpecialReg::globaltimer_hi: {
    // The modeled clock (LaunchClock): the warp's own instructions at the dependent-issue latency,
    // so that the same program reads the same times on every run and every host.
    Warp &w = *ctx.warp;
    w.clockRead = w.clock;
    const uint64_t cycles = w.clock * L.cyclesPerInstruction;
    if (reg == SpecialReg::clock || reg == SpecialReg::clock_hi || reg == SpecialReg::clock64) {
      const uint64_t c = L.clockBase + cycles;
      return reg == SpecialReg::clock ? static_cast<uint32_t>(c) : reg == SpecialReg::clock_hi ? c >> 32 : c;
    }
    const uint64_t ns = L.timerBase + static_cast<uint64_t>(static_cast<double>(cycles) * L.nsPerCycle);
    return reg == SpecialReg::globaltimer      ? ns
           : reg == SpecialReg::globaltimer_lo ? static_cast<uint32_t>(ns)
                                               : ns >> 32;
  }
  case SpecialReg::is_explicit_cluster: return 0;
  case SpecialReg::clusterid: return pick(ctx.cta->id);
  case SpecialReg::nclusterid: return pick(L.grid);
  case SpecialReg::cluster_ctaid: return 0;
  case SpecialReg::cluster_nctaid: return component < 3 ? 1 : 0;
  case SpecialReg::cluster_ctarank: return 0;
  case SpecialReg::cluster_nctarank: return 1;
  case SpecialReg::total_smem_size:
  case SpecialReg::dynamic_smem_size:
  case SpecialReg::aggr_smem_size:
    return reg == SpecialReg::dynamic_smem_size ? L.sharedBytes - L.kernel->staticSharedBytes : L.sharedBytes;
  case SpecialReg::reserved_smem_offset_begin:
  case SpecialReg::reserved_smem_offset_0: return kReservedSharedOffset;
  case SpecialReg::reserved_smem_offset_1: return kReservedSharedOffset + 16;
  case SpecialReg::reserved_smem_offset_end: return kReservedSharedOffset + L.reservedSharedBytes;
  case SpecialReg::reserved_smem_offset_cap: return L.reservedSharedBytes;
  // The driver's environment registers: 1 and 2 hold a cooperative launch's grid workspace, 3 to 5
  // an OpenCL launch's global work offset (x, y, z), which ptxray's OpenCL built-ins read
  // (src/toolchain/OpenCLPrelude.cl).
  case SpecialReg::envreg1: return static_cast<uint32_t>(L.gridWorkspace >> 32);
  case SpecialReg::envreg2: return static_cast<uint32_t>(L.gridWorkspace);
  case SpecialReg::envreg3: return L.globalOffset[0];
  case SpecialReg::envreg4: return L.globalOffset[1];
  case SpecialReg::envreg5: return L.globalOffset[2];
  case SpecialReg::envreg6: return L.workDim;
  default: return 0;
  }
}

} // namespace

namespace detail {

void execReadSpecial(ExecContext &ctx, const MicroOp &op) {
  uint64_t *d = ctx.out(op.d[0]);
  if (op.imm < 0) { // predicate as 0/1
    uint32_t p = ctx.preds[op.s[0]];
    forLanes(ctx.exec, [&](int lane) { d[lane] = (p >> lane) & 1; });
    return;
  }
  auto reg = static_cast<ptx::SpecialReg>(op.imm);
  using ptx::SpecialReg;
  switch (reg) {
  case SpecialReg::tid: {
    // The warp's threads are consecutive in x, then y, then z: step through them, no division per lane.
    const Dim3 &b = ctx.launch->block;
    const uint64_t first = uint64_t{ctx.warp->index} * kWarpSize;
    uint32_t t[3] = {static_cast<uint32_t>(first % b.x), static_cast<uint32_t>(first / b.x % b.y),
                     static_cast<uint32_t>(first / (uint64_t{b.x} * b.y))};
    uint64_t ids[kWarpSize];
    for (int lane = 0; lane < kWarpSize; ++lane) {
      ids[lane] = op.flags < 3 ? t[op.flags] : 0;
      if (++t[0] == b.x) {
        t[0] = 0;
        if (++t[1] == b.y) {
          t[1] = 0;
          ++t[2];
        }
      }
    }
    forLanes(ctx.exec, [&](int lane) { d[lane] = ids[lane]; });
    return;
  }
  case SpecialReg::laneid:
  case SpecialReg::lanemask_eq:
  case SpecialReg::lanemask_le:
  case SpecialReg::lanemask_lt:
  case SpecialReg::lanemask_ge:
  case SpecialReg::lanemask_gt:
    forLanes(ctx.exec, [&](int lane) { d[lane] = readSpecial(ctx, reg, op.flags, lane); });
    return;
  default: {
    // The same for every lane of the warp.
    const uint64_t v = readSpecial(ctx, reg, op.flags, std::countr_zero(ctx.exec | 0x80000000u));
    forLanes(ctx.exec, [&](int lane) { d[lane] = v; });
    return;
  }
  }
}

void execFrameAddress(ExecContext &ctx, const MicroOp &op) {
  uint64_t *d = ctx.out(op.d[0]);
  uint64_t v = ctx.frameBase() + static_cast<uint64_t>(op.imm);
  forLanes(ctx.exec, [&](int lane) { d[lane] = v; });
}

} // namespace detail

// ---------------------------------------------------------------------------------------------
// SIMT operations

void diverge(ExecContext &ctx, uint32_t takenPc, uint32_t takenMask, uint32_t fallPc, uint32_t fallMask, uint32_t rpc) {
  Warp &w = *ctx.warp;
  SimtEntry &top = w.simt.back();
  if (top.rpc == rpc && w.simt.size() > w.frames.back().simtBase + 1) {
    // The entry below already waits at rpc with the union of these lanes: replace, don't nest.
    top = {fallPc, rpc, fallMask};
  } else {
    top.pc = rpc;
    w.simt.push_back({fallPc, rpc, fallMask});
  }
  // With rpc == kNoSlot (paths that meet only at function exit) the entry below never runs again
  // by pc: it ends when its lanes return or exit.
  w.simt.push_back({takenPc, rpc, takenMask});
}

void exitLanes(ExecContext &ctx, uint32_t mask) {
  Warp &w = *ctx.warp;
  if (ctx.listener && mask) {
    const std::vector<MicroOp> &code = ctx.fn->code;
    ExitEvent e;
    e.pc = ctx.pc;
    e.instruction = ctx.pc < code.size() ? code[ctx.pc].instruction : code.empty() ? 0 : code.back().instruction;
    e.mask = mask;
    ctx.listener->onExit(ctx.warpRef(), e);
  }
  w.liveMask &= ~mask;
  for (SimtEntry &e : w.simt)
    e.mask &= ~mask;
  for (CallFrame &f : w.frames)
    f.returnedMask &= ~mask;
  uint32_t gone = static_cast<uint32_t>(std::popcount(mask));
  ctx.cta->liveThreads -= std::min(ctx.cta->liveThreads, gone);
  settle(ctx);
}

void returnLanes(ExecContext &ctx, uint32_t mask) {
  Warp &w = *ctx.warp;
  if (w.frames.size() == 1) {
    exitLanes(ctx, mask);
    return;
  }
  CallFrame &f = w.frames.back();
  f.returnedMask |= mask;
  for (size_t i = f.simtBase; i < w.simt.size(); ++i)
    w.simt[i].mask &= ~mask;
  settle(ctx);
}

bool runWaitingLanesAhead(Warp &w) {
  if (w.simt.empty())
    return false;
  const size_t base = w.frames.back().simtBase;
  const size_t top = w.simt.size() - 1;
  uint32_t meet = w.simt[top].rpc; // where the polling path would rejoin the others
  uint32_t busy = 0;               // lanes on paths that have not reached their meeting point
  for (size_t i = top + 1; i-- > base && meet != kNoSlot;) {
    const SimtEntry &e = w.simt[i];
    if (i != top && e.pc == meet && e.rpc != meet && !(e.flags & SimtEntry::kParked)) {
      // The entry that resumes at `meet` once the paths above it arrive: its lanes that are on no
      // unfinished path above already wait there.
      const uint32_t waiting = e.mask & w.liveMask & ~busy;
      if (waiting) {
        for (size_t j = i; j <= top; ++j)
          w.simt[j].mask &= ~waiting;
        w.simt.push_back({meet, e.rpc, waiting, SimtEntry::kRunAhead});
        return true;
      }
      meet = e.rpc; // nobody waits here: maybe further out
    }
    if (e.pc != e.rpc)
      busy |= e.mask;
  }
  return false;
}

bool parkRunAheadLanes(ExecContext &ctx) {
  Warp &w = *ctx.warp;
  const SimtEntry ahead = w.simt.back();
  if (!(ahead.flags & SimtEntry::kRunAhead) || (ahead.mask & w.liveMask) != ctx.exec)
    return false;
  // The entry the lanes ran ahead of: the nearest unfinished one below meeting the rest where they do.
  const size_t base = w.frames.back().simtBase;
  size_t origin = w.simt.size() - 1;
  bool found = false;
  while (!found && origin > base) {
    --origin;
    found = w.simt[origin].rpc == ahead.rpc && w.simt[origin].pc != ahead.rpc;
  }
  if (!found)
    return false;
  // [.., origin{meet, r}, .., polling, ahead{x+1, r}] becomes [.., parked{x, r}, origin{meet, x}, ..,
  // polling]: the lanes left behind run from `meet` to the barrier, where everyone resumes together.
  const uint32_t barrierPc = ctx.pc;
  const SimtEntry behind = w.simt[origin];
  w.simt.pop_back();
  w.simt[origin] = {barrierPc, behind.rpc, behind.mask | ahead.mask, SimtEntry::kParked};
  w.simt.insert(w.simt.begin() + static_cast<std::ptrdiff_t>(origin) + 1, {behind.pc, barrierPc, behind.mask});
  return true;
}

bool ensureLocal(ExecContext &ctx, uint64_t bytes) {
  Warp &w = *ctx.warp;
  if (bytes <= w.localStride)
    return true;
  if (bytes > ctx.launch->options.stackBytesPerThread) {
    ctx.fault(FaultKind::StackOverflow, std::countr_zero(ctx.exec),
              ctx.launch->kernel->stackSizeIsStatic
                  ? fmt::format("the call needs {} bytes of local memory per thread; the stack limit is {} bytes",
                                bytes, ctx.launch->options.stackBytesPerThread)
                  : fmt::format("the call needs {} bytes of local memory per thread; the kernel recurses or calls "
                                "through a pointer, so its stack is the stack-size limit, {} bytes "
                                "(cudaDeviceSetLimit(cudaLimitStackSize, ...) raises it)",
                                bytes, ctx.launch->options.stackBytesPerThread));
    return false;
  }
  uint64_t stride =
      std::min<uint64_t>(std::max<uint64_t>(bytes, w.localStride * 2), ctx.launch->options.stackBytesPerThread);
  stride = (stride + 15) / 16 * 16;
  if (!ctx.cta->hostMemory.tryGrow((stride - w.localStride) * kWarpSize)) {
    ctx.fault(FaultKind::MemoryBudget, std::countr_zero(ctx.exec),
              fmt::format("the call needs {} bytes of local memory per thread: {} more for the warp, past the "
                          "memory budget ({} of {} in use; --max-memory, PTXRAY_MAX_MEMORY)",
                          bytes, support::memorySizeText((stride - w.localStride) * kWarpSize),
                          support::memorySizeText(support::memoryInUse()),
                          support::memorySizeText(support::memoryBudget())));
    return false;
  }
  std::vector<std::byte> grown(stride * kWarpSize);
  for (int lane = 0; lane < kWarpSize; ++lane)
    std::memcpy(grown.data() + lane * stride, w.local.data() + lane * w.localStride, w.localStride);
  w.local.swap(grown);
  w.localStride = stride;
  return true;
}

bool callFunction(ExecContext &ctx, const MicroOp &op, const DecodedFunction &callee, uint32_t mask) {
  Warp &w = *ctx.warp;
  if (w.frames.size() >= ctx.launch->options.maxCallDepth) {
    ctx.fault(FaultKind::StackOverflow, std::countr_zero(mask),
              fmt::format("call depth exceeds {} (runaway recursion?)", ctx.launch->options.maxCallDepth));
    return false;
  }
  const CallFrame &caller = w.frames.back();
  uint64_t align = std::max<uint32_t>(callee.frameAlign, 16);
  uint64_t base = (caller.frameBase + caller.function->frameBytes + align - 1) / align * align;
  if (!ensureLocal(ctx, base + callee.frameBytes))
    return false;
  uint32_t regBase = static_cast<uint32_t>(w.regs.size() / kWarpSize);
  uint32_t predBase = static_cast<uint32_t>(w.preds.size());
  w.regs.resize(w.regs.size() + uint64_t{callee.numValueSlots} * kWarpSize);
  w.preds.resize(w.preds.size() + callee.numPredSlots);
  loadFrame(ctx); // the register file may have moved
  const uint32_t *list = ctx.fn->extra.data() + op.extra;
  uint32_t numRets = list[0], numArgs = list[1];
  const uint32_t *args = list + 2 + 2 * numRets;
  uint64_t *calleeRegs = w.regs.data() + uint64_t{regBase} * kWarpSize;
  for (uint32_t a = 0; a < numArgs && a < callee.paramOffsets.size(); ++a) {
    auto kind = static_cast<CallOperandKind>(args[2 * a]);
    uint32_t value = args[2 * a + 1];
    uint64_t to = callee.paramOffsets[a];
    uint64_t size = callee.paramSizes[a];
    const uint64_t *valueLanes = kind == CallOperandKind::Value ? ctx.in(value) : nullptr;
    forLanes(mask, [&](int lane) {
      std::byte *laneLocal = w.local.data() + lane * w.localStride;
      if (to >> 63) { // a .reg parameter
        uint64_t bits = 0;
        if (valueLanes)
          bits = valueLanes[lane];
        else
          std::memcpy(&bits, laneLocal + caller.frameBase + value, std::min<uint64_t>(size, 8));
        calleeRegs[(to & 0xffffffffu) * kWarpSize + lane] = bits;
        return;
      }
      if (valueLanes) {
        uint64_t bits = valueLanes[lane];
        std::memcpy(laneLocal + base + to, &bits, std::min<uint64_t>(size, 8));
      } else {
        std::memcpy(laneLocal + base + to, laneLocal + caller.frameBase + value, size);
      }
    });
  }
  if (ctx.listener) {
    CallEvent e;
    e.pc = ctx.pc;
    e.instruction = op.instruction;
    e.callee = &callee;
    e.mask = mask;
    ctx.listener->onCall(ctx.warpRef(), e);
  }
  w.simt.back().pc = ctx.pc + 1;
  CallFrame frame;
  frame.function = &callee;
  frame.simtBase = static_cast<uint32_t>(w.simt.size());
  frame.regBase = regBase;
  frame.predBase = predBase;
  frame.frameBase = base;
  frame.callPc = ctx.pc;
  w.frames.push_back(frame);
  w.simt.push_back({0, kNoSlot, mask});
  loadFrame(ctx);
  return true;
}

// ---------------------------------------------------------------------------------------------
// The warp loop

namespace {

template <bool kObserve> void runWarp(ExecContext &ctx) {
  Warp &w = *ctx.warp;
  LaunchState &L = *ctx.launch;
  loadFrame(ctx);
  uint32_t pc = w.simt.back().pc;
  uint32_t rpc = w.simt.back().rpc;
  uint32_t active = w.simt.back().mask & w.liveMask;
  uint32_t activeLanes = static_cast<uint32_t>(std::popcount(active)); // once per path, not per instruction
  const MicroOp *code = ctx.fn->code.data();
  uint32_t codeSize = static_cast<uint32_t>(ctx.fn->code.size());
  uint64_t threadInstructions = 0;
  uint32_t sinceFlush = 0;
  ctx.yield = false;
  w.backwardBranches = 0;
  w.quantumYield = false;
  auto reload = [&] {
    if (w.state == Warp::State::Done || w.simt.empty()) {
      ctx.yield = true;
      return;
    }
    loadFrame(ctx);
    code = ctx.fn->code.data();
    codeSize = static_cast<uint32_t>(ctx.fn->code.size());
    pc = w.simt.back().pc;
    rpc = w.simt.back().rpc;
    active = w.simt.back().mask & w.liveMask;
    activeLanes = static_cast<uint32_t>(std::popcount(active));
  };
  while (!ctx.yield) {
    if (pc == rpc) {
      w.simt.pop_back();
      settle(ctx);
      reload();
      continue;
    }
    if (pc >= codeSize) {
      // Falling off the end of a body is an implicit return.
      w.simt.back().pc = pc;
      ctx.pc = pc;
      ctx.exec = active;
      returnLanes(ctx, active);
      reload();
      continue;
    }
    const MicroOp &op = code[pc];
    uint32_t exec = active;
    if (op.guard != kNoSlot) {
      uint32_t p = ctx.preds[op.guard & ~kGuardNegated];
      exec &= (op.guard & kGuardNegated) ? ~p : p;
    }
    if (op.kind != OpKind::Operand) {
      ++w.clock;
      if constexpr (kObserve) {
        InstructionEvent e{pc, op.instruction, active, exec};
        ctx.listener->onInstruction(ctx.warpRef(), e);
      }
      // Like CUDA's thread_inst_executed: every active lane, predicated off or not.
      threadInstructions += activeLanes;
    }
    if (++sinceFlush == kBudgetChunk) {
      sinceFlush = 0;
      uint64_t total = L.instructions.fetch_add(threadInstructions) + threadInstructions;
      threadInstructions = 0;
      if (total > L.budget) {
        ctx.pc = pc;
        ctx.exec = exec ? exec : active;
        ctx.fault(FaultKind::InstructionLimit, std::countr_zero(ctx.exec),
                  fmt::format("the launch executed more than {} thread-instructions (--max-instructions); "
                              "is a loop not terminating?",
                              L.budget));
        L.stopAll();
        break;
      }
      if (w.clock > L.warpBudget) {
        ctx.pc = pc;
        ctx.exec = exec ? exec : active;
        ctx.fault(FaultKind::InstructionLimit, std::countr_zero(ctx.exec | 0x80000000u),
                  fmt::format("the warp issued more than {} instructions (1/8 of --max-instructions); "
                              "is a loop not terminating?",
                              L.warpBudget));
        L.stopAll();
        break;
      }
      if (L.stopped(ctx.cta->linearId))
        break;
    }
    if (exec == 0 && op.kind != OpKind::Control) {
      ++pc;
      continue;
    }
    ctx.active = active;
    ctx.exec = exec;
    ctx.pc = pc;
    if (op.kind == OpKind::Control) {
      w.simt.back().pc = pc + 1;
      ctx.nextPc = pc + 1;
      op.exec(ctx, op);
      if (ctx.nextPc != pc + 1)
        w.simt.back().pc = ctx.nextPc; // a uniform jump: same path, new pc
      // A loop's back edge: after a quantum of them the warp lets the CTA's other warps run, so that
      // one spinning on a flag another warp sets cannot hold the CTA forever.
      if (ctx.nextPc <= pc && ++w.backwardBranches >= kYieldQuantum && !ctx.yield) {
        w.quantumYield = true;
        ctx.yield = true;
      }
      reload();
      continue;
    }
    op.exec(ctx, op);
    ++pc;
  }
  // Warps that yield often (nanosleep spin loops) may never fill a chunk: check at every exit too.
  uint64_t total = L.instructions.fetch_add(threadInstructions) + threadInstructions;
  if (total > L.budget && !L.stopped(ctx.cta->linearId)) {
    ctx.pc = std::min<uint32_t>(pc, codeSize ? codeSize - 1 : 0);
    ctx.exec = active ? active : w.liveMask;
    ctx.fault(FaultKind::InstructionLimit, std::countr_zero(ctx.exec | 0x80000000u),
              fmt::format("the launch executed more than {} thread-instructions (--max-instructions); "
                          "is a loop not terminating?",
                          L.budget));
    L.stopAll();
  }
}

/// A warp's whole architectural state (pc, SIMT stack, call frames, registers, predicates): equal
/// hashes at two quantum yields mean its quantum of work changed nothing of its own.
uint64_t warpStateHash(const Warp &w) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  for (const SimtEntry &e : w.simt)
    mix((uint64_t{e.pc} << 32) ^ e.rpc ^ (uint64_t{e.mask} << 16));
  mix(w.frames.size());
  mix(w.liveMask);
  for (uint64_t r : w.regs)
    mix(r);
  for (uint32_t p : w.preds)
    mix(p);
  return h;
}

/// "file.ptx:LINE (file.cu:LINE)" of micro-op `pc` of `fn`, for reports naming several warps.
std::string sourcePlace(LaunchState &L, const DecodedFunction &fn, uint32_t pc) {
  if (pc >= fn.code.size())
    return fn.name;
  const ptx::Module &m = *L.program->module;
  const ptx::Instruction &inst = fn.source->instructions[fn.code[pc].instruction];
  std::lock_guard lock(L.mutex); // the source manager builds line tables lazily
  std::string place = m.sources.position(inst.loc);
  ptx::LineTable lines(m);
  auto chain = lines.chain(inst);
  if (!chain.empty())
    place += fmt::format(" ({}:{})", chain.front().file.empty() ? "?" : chain.front().file, chain.front().line);
  return place;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Resident CTAs

CtaRun::CtaRun(LaunchState &L, uint64_t linearCtaId, unsigned slot, Cta storage)
    : launch_(L), cta_(std::move(storage)) {
  const DecodedFunction &kernel = *L.kernel;
  cta_.reservedShared.clear();
  for (Cta::Barrier &b : cta_.barriers)
    b = {};
  cta_.linearId = linearCtaId;
  cta_.id.x = static_cast<uint32_t>(linearCtaId % L.grid.x);
  cta_.id.y = static_cast<uint32_t>(linearCtaId / L.grid.x % L.grid.y);
  cta_.id.z = static_cast<uint32_t>(linearCtaId / (uint64_t{L.grid.x} * L.grid.y));
  const uint64_t threads = L.block.count();
  const uint32_t numWarps = static_cast<uint32_t>((threads + kWarpSize - 1) / kWarpSize);
  const uint64_t localBytes = initialLocalBytes(kernel);
  // The storage's share of the memory budget, before it grows: a block of 1024 threads with 512 KiB
  // of local memory each needs 512 MiB, and workers that all take one at once must not exhaust the
  // machine (runWorker reports the refusal as the launch's fault).
  if (const uint64_t need = ctaHostBytes(L, localBytes); need > cta_.hostMemory.bytes()) {
    const uint64_t more = need - cta_.hostMemory.bytes();
    if (!cta_.hostMemory.tryGrow(more))
      throw support::MemoryBudgetExceeded(
          fmt::format("the VM's state of a block of {} ({} threads: registers, {} B of local memory each, {} B of "
                      "shared memory)",
                      kernel.name, threads, localBytes, L.sharedBytes),
          more, support::memoryInUse(), support::memoryBudget());
  }
  cta_.shared.assign(L.sharedBytes, std::byte{0});
  cta_.warps.resize(numWarps);
  cta_.liveThreads = static_cast<uint32_t>(threads);
  for (uint32_t i = 0; i < numWarps; ++i) {
    Warp &w = cta_.warps[i];
    w.recycle();
    w.index = i;
    uint64_t lanes = std::min<uint64_t>(kWarpSize, threads - uint64_t{i} * kWarpSize);
    w.liveMask = lanes == kWarpSize ? kFullMask : static_cast<uint32_t>((uint64_t{1} << lanes) - 1);
    w.regs.assign(uint64_t{kernel.numValueSlots} * kWarpSize, 0);
    w.preds.assign(kernel.numPredSlots, 0);
    w.localStride = localBytes;
    w.local.assign(localBytes * kWarpSize, std::byte{0});
    CallFrame f;
    f.function = &kernel;
    w.frames.push_back(f);
    w.simt.push_back({0, kNoSlot, w.liveMask});
  }
  ctx_.launch = &L;
  ctx_.cta = &cta_;
  ctx_.worker = slot;
  ctx_.listener = L.listener;
  ctx_.constPool = L.program->constPool.data();
  if (ctx_.listener) {
    ctx_.listener->onCtaBegin(slot, cta_.id);
    for (Warp &w : cta_.warps) {
      ctx_.warp = &w;
      ctx_.fn = &kernel;
      ctx_.listener->onWarpBegin(ctx_.warpRef(), w.liveMask);
    }
  }
}

CtaRun::~CtaRun() {
  if (!finished_)
    noteClockReads();
  if (ctx_.listener && !finished_)
    ctx_.listener->onCtaEnd(ctx_.worker, cta_.id);
}

void CtaRun::noteClockReads() {
  uint64_t latest = 0;
  for (const Warp &w : cta_.warps)
    latest = std::max(latest, w.clockRead);
  uint64_t seen = launch_.clockReadInstructions.load(std::memory_order_relaxed);
  while (latest > seen && !launch_.clockReadInstructions.compare_exchange_weak(seen, latest))
    ;
}

Cta CtaRun::finish() {
  if (!finished_)
    noteClockReads();
  if (ctx_.listener && !finished_)
    ctx_.listener->onCtaEnd(ctx_.worker, cta_.id);
  finished_ = true;
  return std::move(cta_);
}

bool CtaRun::round(bool &polling) {
  LaunchState &L = launch_;
  ExecContext &ctx = ctx_;
  bool ran = false;
  polling = true; // every warp that ran came back from a quantum yield unchanged
  for (Warp &w : cta_.warps) {
    if (L.stopped(cta_.linearId))
      return false;
    if (w.state != Warp::State::Ready)
      continue;
    ran = true;
    ctx.warp = &w;
    if (ctx.listener)
      runWarp<true>(ctx);
    else
      runWarp<false>(ctx);
    if (w.quantumYield && w.state == Warp::State::Ready) {
      const uint64_t hash = warpStateHash(w);
      if (hash == w.stateHash && L.independentThreadScheduling && runWaitingLanesAhead(w)) {
        // Volta's independent thread scheduling: lanes of this warp that wait at a reconvergence
        // point run on while the path that polls (a lock another lane holds) is held back.
        polling = false;
        w.stateHash = 0;
        continue;
      }
      polling &= hash == w.stateHash;
      w.stateHash = hash;
    } else {
      polling = false;
      w.stateHash = 0;
    }
    if (w.state == Warp::State::Done) {
      if (ctx.listener)
        ctx.listener->onWarpEnd(ctx.warpRef());
      // Exited threads no longer hold back barriers that wait for every live thread.
      releaseBarriers(ctx);
    }
  }
  if (ran || L.stopped(cta_.linearId))
    return ran;
  bool anyLive = false;
  for (const Warp &w : cta_.warps)
    anyLive |= w.state != Warp::State::Done;
  if (!anyLive)
    return false;
  // Every live warp waits at a barrier that cannot complete.
  std::string waits;
  for (const Warp &w : cta_.warps) {
    if (w.state != Warp::State::AtBarrier)
      continue;
    const Cta::Barrier &b = cta_.barriers[w.barrier];
    waits += fmt::format("\n    warp {} waits at barrier {} ({} of {} threads arrived)", w.index, w.barrier, b.arrived,
                         b.expected ? b.expected : cta_.liveThreads);
  }
  for (Warp &w : cta_.warps)
    if (w.state == Warp::State::AtBarrier) {
      ctx.warp = &w;
      ctx.fn = w.frames.back().function;
      ctx.pc = w.barrierPc;
      ctx.exec = w.simt.empty() ? w.liveMask : w.simt.back().mask & w.liveMask;
      ctx.fault(FaultKind::BarrierDeadlock, std::countr_zero(ctx.exec | 1u),
                "the barrier can never complete: the threads still expected have exited or wait elsewhere" + waits);
      break;
    }
  L.stopFromBlock(cta_.linearId);
  return false;
}

CtaStep CtaRun::run() {
  LaunchState &L = launch_;
  for (;;) {
    bool polling = false;
    if (!round(polling))
      return CtaStep::Done;
    bool allDone = true;
    for (const Warp &w : cta_.warps)
      allDone &= w.state == Warp::State::Done;
    if (allDone || L.stopped(cta_.linearId))
      return CtaStep::Done;
    if (polling)
      return CtaStep::Polling;
    // Other workers whose CTAs poll look at this to tell "waiting for us" from "hung".
    L.progress.fetch_add(1, std::memory_order_relaxed);
  }
}

void CtaRun::reportHang(std::string_view why) {
  LaunchState &L = launch_;
  ExecContext &ctx = ctx_;
  std::string where;
  Warp *first = nullptr;
  for (Warp &w : cta_.warps)
    if (w.state == Warp::State::Ready) {
      first = first ? first : &w;
      where += fmt::format("\n    warp {} polls at {}", w.index,
                           sourcePlace(L, *w.frames.back().function, w.simt.back().pc));
    } else if (w.state == Warp::State::AtBarrier) {
      where += fmt::format("\n    warp {} waits at barrier {} ({})", w.index, w.barrier,
                           sourcePlace(L, *w.frames.back().function, w.barrierPc));
    }
  if (!first) {
    L.stopAll();
    return;
  }
  ctx.warp = first;
  ctx.fn = first->frames.back().function;
  ctx.pc = first->simt.back().pc;
  ctx.exec = first->simt.back().mask & first->liveMask;
  ctx.fault(FaultKind::Livelock, std::countr_zero(ctx.exec | 0x80000000u), fmt::format("{}{}", why, where));
  L.stopAll();
}

} // namespace ptxray::vm
