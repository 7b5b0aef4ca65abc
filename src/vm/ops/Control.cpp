// bra, brx.idx, call (direct, indirect, system calls), ret, exit, trap, brkpt.
#include "abi/SystemCalls.h"
#include "ptx/Demangle.h"
#include "vm/Memory.h"
#include "vm/Simt.h"
#include "vm/SystemCalls.h"
#include "vm/ops/Families.h"

#include <fmt/format.h>

namespace ptxray::vm::ops {

using ptx::OperandKind;

namespace {

void emitBranch(ExecContext &ctx, const MicroOp &op, uint32_t taken, uint32_t notTaken) {
  BranchEvent e;
  e.pc = ctx.pc;
  e.instruction = op.instruction;
  e.takenMask = taken;
  e.notTakenMask = notTaken;
  e.reconvergePc = op.reconverge;
  e.divergent = taken != 0 && notTaken != 0;
  ctx.listener->onBranch(ctx.warpRef(), e);
}

void execBranch(ExecContext &ctx, const MicroOp &op) {
  uint32_t taken = ctx.exec;
  uint32_t notTaken = ctx.active & ~taken;
  if (ctx.listener)
    emitBranch(ctx, op, taken, notTaken);
  if (taken == 0)
    return;
  if (notTaken == 0) {
    ctx.nextPc = op.target;
    return;
  }
  diverge(ctx, op.target, taken, ctx.pc + 1, notTaken, op.reconverge);
}

/// brx.idx: every lane picks a target from the list; lanes that agree run together.
void execBranchIndexed(ExecContext &ctx, const MicroOp &op) {
  if (ctx.exec == 0)
    return;
  const uint64_t *index = ctx.in(op.s[0]);
  const uint32_t *targets = ctx.fn->extra.data() + op.extra;
  uint32_t pcs[kWarpSize];
  uint32_t bad = 0;
  forLanes(ctx.exec, [&](int lane) {
    uint32_t i = static_cast<uint32_t>(index[lane]);
    if (i >= op.extraCount || targets[i] == kNoSlot)
      bad |= 1u << lane;
    else
      pcs[lane] = targets[i];
  });
  if (bad) {
    int lane = std::countr_zero(bad);
    ctx.fault(FaultKind::IllegalInstruction, lane,
              fmt::format("brx.idx index {} is outside its {}-entry target list", static_cast<uint32_t>(index[lane]),
                          op.extraCount));
    return;
  }
  uint32_t notTaken = ctx.active & ~ctx.exec;
  uint32_t remaining = ctx.exec;
  if (ctx.listener)
    emitBranch(ctx, op, ctx.exec, notTaken);
  Warp &w = *ctx.warp;
  // Split into one path per distinct target, all rejoining at the reconvergence point.
  int first = std::countr_zero(remaining);
  uint32_t group = 0;
  forLanes(remaining, [&](int lane) {
    if (pcs[lane] == pcs[first])
      group |= 1u << lane;
  });
  if (group == remaining && notTaken == 0) {
    ctx.nextPc = pcs[first];
    return;
  }
  SimtEntry &top = w.simt.back();
  top.pc = op.reconverge;
  if (notTaken)
    w.simt.push_back({ctx.pc + 1, op.reconverge, notTaken});
  while (remaining) {
    int lead = std::countr_zero(remaining);
    uint32_t g = 0;
    forLanes(remaining, [&](int lane) {
      if (pcs[lane] == pcs[lead])
        g |= 1u << lane;
    });
    w.simt.push_back({pcs[lead], op.reconverge, g});
    remaining &= ~g;
  }
}

void execCall(ExecContext &ctx, const MicroOp &op) {
  if (ctx.exec == 0)
    return;
  const Program &program = *ctx.launch->program;
  uint32_t mask = ctx.exec;
  uint32_t target = op.target;
  if (target == kNoSlot) {
    // Indirect: the callee is the function whose address each lane holds.
    const uint64_t *fp = ctx.in(op.s[0]);
    auto functionAt = [&](uint64_t a) -> uint32_t {
      if (a < kFunctionWindow || (a - kFunctionWindow) % kFunctionStride)
        return kNoSlot;
      uint64_t i = (a - kFunctionWindow) / kFunctionStride;
      if (i >= program.module->functions.size())
        return kNoSlot;
      // A function pointer names the PTX function; the kernel may run its own copy of it.
      const std::vector<uint32_t> &map = ctx.launch->kernel->functionMap;
      return i < map.size() ? map[i] : static_cast<uint32_t>(i);
    };
    int lead = std::countr_zero(mask);
    target = functionAt(fp[lead]);
    if (target == kNoSlot) {
      ctx.fault(FaultKind::InvalidCall, lead, fmt::format("0x{:x} is not the address of a function", fp[lead]),
                fp[lead]);
      return;
    }
    uint32_t same = 0;
    forLanes(mask, [&](int lane) {
      if (fp[lane] == fp[lead])
        same |= 1u << lane;
    });
    if (same != mask) {
      // The other lanes execute this call again after these return (then with their own target).
      Warp &w = *ctx.warp;
      w.simt.back().pc = ctx.pc + 1;
      w.simt.push_back({ctx.pc, ctx.pc + 1, mask & ~same});
      mask = same;
    }
  }
  const DecodedFunction &callee = program.functions[target];
  if (callee.isSystemCall) {
    runSystemCall(ctx, op, callee, mask);
    return;
  }
  if (!callee.source->hasBody) {
    ctx.fault(FaultKind::InvalidCall, std::countr_zero(mask),
              fmt::format("{} is declared but not defined in this module: link the module that defines it "
                          "(ptxray run A.ptx B.ptx, \"module\": [...] in a spec; nvcc -rdc=true)",
                          ptx::demangle(callee.name) == callee.name
                              ? callee.name
                              : fmt::format("{} ({})", ptx::demangle(callee.name), callee.name)));
    return;
  }
  bool split = mask != ctx.exec;
  if (callFunction(ctx, op, callee, mask) && split) {
    // callFunction pointed the entry below the new frame (the lanes still to call) past the call;
    // they run the call again with their own target.
    Warp &w = *ctx.warp;
    w.simt[w.frames.back().simtBase - 1].pc = ctx.pc;
  }
}

void execReturn(ExecContext &ctx, const MicroOp &) {
  if (ctx.exec)
    returnLanes(ctx, ctx.exec);
}

void execExit(ExecContext &ctx, const MicroOp &) {
  if (ctx.exec)
    exitLanes(ctx, ctx.exec);
}

void execTrap(ExecContext &ctx, const MicroOp &op) {
  if (!ctx.exec)
    return;
  bool isTrap = ctx.fn->source->instructions[op.instruction].opcode == ptx::Opcode::trap;
  ctx.fault(isTrap ? FaultKind::Trap : FaultKind::Breakpoint, std::countr_zero(ctx.exec),
            isTrap ? "the kernel executed trap (an unrecoverable error, like CUDA's __trap())"
                   : "the kernel executed brkpt with no debugger attached");
}

void decodeCall(DecodeContext &ctx, MicroOp &op) {
  auto operands = ctx.operands();
  size_t i = 0;
  const ptx::Operand *rets = nullptr;
  const ptx::Operand *args = nullptr;
  if (i < operands.size() && operands[i].kind == OperandKind::List && operands.size() > 1 &&
      operands[i + 1].kind != OperandKind::List)
    rets = &operands[i++];
  if (i >= operands.size())
    return;
  const ptx::Operand &callee = operands[i++];
  if (i < operands.size() && operands[i].kind == OperandKind::List)
    args = &operands[i++];
  if (callee.kind == OperandKind::Symbol) {
    op.target = ctx.functionIndexOf(callee.id);
    if (op.target == kNoSlot)
      return;
  } else {
    op.target = kNoSlot;
    op.s[0] = ctx.src(callee, ptx::Mod::u64);
  }
  auto &extra = ctx.fn.extra;
  op.extra = static_cast<uint32_t>(extra.size());
  std::vector<const ptx::Operand *> retList, argList;
  if (rets)
    for (const ptx::Operand &c : ctx.children(*rets))
      retList.push_back(&c);
  if (args)
    for (const ptx::Operand &c : ctx.children(*args))
      argList.push_back(&c);
  extra.push_back(static_cast<uint32_t>(retList.size()));
  extra.push_back(static_cast<uint32_t>(argList.size()));
  auto encode = [&](const ptx::Operand &o, bool isReturn) {
    if (o.kind == OperandKind::Symbol) {
      const SymbolPlacement &p = ctx.placement(o.id);
      if (p.kind == SymbolPlacement::Kind::Frame) {
        extra.push_back(static_cast<uint32_t>(CallOperandKind::Frame));
        extra.push_back(static_cast<uint32_t>(p.address + static_cast<uint64_t>(o.value)));
        return;
      }
    }
    extra.push_back(static_cast<uint32_t>(CallOperandKind::Value));
    extra.push_back(isReturn ? ctx.dst(o) : ctx.src(o));
  };
  for (const ptx::Operand *r : retList)
    encode(*r, true);
  for (const ptx::Operand *a : argList)
    encode(*a, false);
  op.extraCount = static_cast<uint16_t>(extra.size() - op.extra);
  op.kind = OpKind::Control;
  op.exec = &execCall;
}

} // namespace

void decodeControl(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  op.kind = OpKind::Control;
  switch (inst.opcode) {
  case ptx::Opcode::bra:
    if (operands.empty() || operands[0].kind != OperandKind::Symbol)
      return;
    op.target = operands[0].id;
    op.flags |= 0x80; // a label symbol, resolved to a pc once the function is decoded
    op.exec = &execBranch;
    return;
  case ptx::Opcode::brx: {
    if (operands.size() < 2 || operands[1].kind != OperandKind::Symbol)
      return;
    op.s[0] = ctx.src(operands[0], ptx::Mod::u32);
    const ptx::Symbol &list = ctx.module.symbols[operands[1].id];
    if (list.kind != ptx::SymbolKind::BranchTargets)
      return;
    const ptx::TargetList &targets = ctx.ptxFn.targetLists[list.index];
    op.extra = static_cast<uint32_t>(ctx.fn.extra.size());
    for (uint32_t label : targets.symbols) {
      ctx.extraLabels.push_back(static_cast<uint32_t>(ctx.fn.extra.size()));
      ctx.fn.extra.push_back(label);
    }
    op.extraCount = static_cast<uint16_t>(targets.symbols.size());
    op.exec = &execBranchIndexed;
    return;
  }
  case ptx::Opcode::call: decodeCall(ctx, op); return;
  case ptx::Opcode::ret: op.exec = ctx.fn.isEntry ? &execExit : &execReturn; return;
  case ptx::Opcode::exit: op.exec = &execExit; return;
  case ptx::Opcode::trap:
  case ptx::Opcode::brkpt: op.exec = &execTrap; return;
  default: return;
  }
}

} // namespace ptxray::vm::ops
