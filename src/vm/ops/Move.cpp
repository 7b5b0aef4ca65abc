// mov (copies, constants, symbol addresses, special registers, vector packing), cvta, isspacep.
#include "vm/Memory.h"
#include "vm/ops/Families.h"

#include "vm/Exec.h"

namespace ptxray::vm {
namespace detail {
void execReadSpecial(ExecContext &ctx, const MicroOp &op);
void execFrameAddress(ExecContext &ctx, const MicroOp &op);
} // namespace detail

namespace ops {

using ptx::Mod;
using ptx::OperandKind;

namespace {

void execCopy(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *s = ctx.in(op.s[0]);
  uint64_t *d = ctx.out(op.d[0]);
  forLanes(ctx.exec, [&](int lane) { d[lane] = s[lane]; });
}

void execMovPred(ExecContext &ctx, const MicroOp &op) {
  uint32_t &d = ctx.pred(op.d[0]);
  uint32_t s = op.flags ? (op.imm ? kFullMask : 0) : ctx.pred(op.s[0]);
  d = (d & ~ctx.exec) | (s & ctx.exec);
}

/// mov.bN d, {a, b, ...}: elements of N / count bits each, first in the low bits.
void execPack(ExecContext &ctx, const MicroOp &op) {
  const int count = op.vec;
  const int bits = op.width * 8;
  const uint64_t elementMask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  uint64_t *d = ctx.out(op.d[0]);
  const uint64_t *s[4];
  for (int i = 0; i < count; ++i)
    s[i] = ctx.in(op.s[i]);
  forLanes(ctx.exec, [&](int lane) {
    uint64_t v = 0;
    for (int i = 0; i < count; ++i)
      v |= (s[i][lane] & elementMask) << (i * bits);
    d[lane] = v;
  });
}

/// mov.bN {a, b, ...}, s: the inverse of execPack.
void execUnpack(ExecContext &ctx, const MicroOp &op) {
  const int count = op.vec;
  const int bits = op.width * 8;
  const uint64_t elementMask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t *s = ctx.in(op.s[0]);
  uint64_t parts[4][kWarpSize];
  forLanes(ctx.exec, [&](int lane) {
    for (int i = 0; i < count; ++i)
      parts[i][lane] = (s[lane] >> (i * bits)) & elementMask;
  });
  for (int i = 0; i < count; ++i) {
    if (op.d[i] == kNoSlot)
      continue;
    uint64_t *d = ctx.out(op.d[i]);
    forLanes(ctx.exec, [&](int lane) { d[lane] = parts[i][lane]; });
  }
}

/// cvta: adds (to generic) or subtracts (.to) the window base; op.imm is the base, op.flags the
/// result width in bytes.
void execAddBase(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *s = ctx.in(op.s[0]);
  uint64_t *d = ctx.out(op.d[0]);
  const uint64_t base = static_cast<uint64_t>(op.imm);
  const bool narrow = op.width == 4;
  forLanes(ctx.exec, [&](int lane) {
    uint64_t v = s[lane] + base;
    d[lane] = narrow ? static_cast<uint32_t>(v) : v;
  });
}

void execSubBase(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *s = ctx.in(op.s[0]);
  uint64_t *d = ctx.out(op.d[0]);
  const uint64_t base = static_cast<uint64_t>(op.imm);
  const bool narrow = op.width == 4;
  // A generic address outside the window maps to an address no access of that space accepts.
  forLanes(ctx.exec, [&](int lane) {
    uint64_t v = s[lane] - base;
    d[lane] = narrow ? static_cast<uint32_t>(v) : v;
  });
}

/// isspacep: whether each lane's generic address lies in the space's window [imm, imm + extra).
void execIsSpace(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *s = ctx.in(op.s[0]);
  uint32_t result = 0;
  const uint64_t base = static_cast<uint64_t>(op.imm);
  const uint64_t size = op.target; // window size (global: below the windows, and the high range)
  uint64_t constBase = ctx.launch->constBank ? ctx.launch->constBank->base : 0;
  uint64_t constSize = ctx.launch->constBank ? ctx.launch->constBank->size : 0;
  forLanes(ctx.exec, [&](int lane) {
    uint64_t a = s[lane];
    bool in = false;
    switch (op.flags) {
    case 0: // global
      in = (a < kLocalWindow || a - kHighGlobalBase < kHighGlobalSize) && !(a - constBase < constSize);
      break;
    case 1: // const
      in = a - constBase < constSize;
      break;
    default: in = a - base < size; break;
    }
    if (in)
      result |= 1u << lane;
  });
  uint32_t &d = ctx.pred(op.d[0]);
  d = (d & ~ctx.exec) | (result & ctx.exec);
}

struct Window {
  uint64_t base = 0, size = 0;
  uint8_t kind = 2;
};

Window windowOf(ptx::StateSpace space) {
  switch (space) {
  case ptx::StateSpace::Shared: return {kSharedWindow, kSharedWindowSize, 2};
  case ptx::StateSpace::Local: return {kLocalWindow, kLocalWindowSize, 2};
  case ptx::StateSpace::Param: return {kParamWindow, kParamWindowSize, 2};
  case ptx::StateSpace::Const: return {0, 0, 1};
  default: return {0, kLocalWindow, 0};
  }
}

} // namespace

void decodeMove(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  if (operands.size() < 2)
    return;
  const ptx::Operand &dst = operands[0];
  const ptx::Operand &src = operands[1];
  switch (inst.opcode) {
  case ptx::Opcode::mov: {
    if (inst.type() == Mod::pred) {
      op.d[0] = ctx.predSlot(dst);
      if (src.kind == OperandKind::Immediate) {
        op.flags = 1;
        op.imm = src.value != 0;
      } else {
        op.s[0] = ctx.predSlot(src);
      }
      op.exec = &execMovPred;
      return;
    }
    if (ptx::typeInfo(inst.type()).bits > 64)
      return; // .b128 registers are not modelled (lanes hold 64 bits)
    if (src.kind == OperandKind::Vector || dst.kind == OperandKind::Vector) {
      bool pack = src.kind == OperandKind::Vector;
      auto elements = ctx.children(pack ? src : dst);
      if (elements.empty() || elements.size() > 4)
        return;
      op.vec = static_cast<uint8_t>(elements.size());
      op.width = static_cast<uint8_t>(ptx::typeInfo(inst.type()).bits / 8 / elements.size());
      if (op.width == 0)
        return;
      for (size_t i = 0; i < elements.size(); ++i) {
        if (pack)
          op.s[i] = ctx.src(elements[i]);
        else
          op.d[i] = elements[i].kind == OperandKind::Sink ? kNoSlot : ctx.dst(elements[i]);
      }
      if (pack)
        op.d[0] = ctx.dst(dst);
      else
        op.s[0] = ctx.src(src);
      op.exec = pack ? &execPack : &execUnpack;
      return;
    }
    op.d[0] = ctx.dst(dst);
    if (src.kind == OperandKind::SpecialReg) {
      // The special-register read writes the destination directly.
      op.exec = &detail::execReadSpecial;
      op.imm = src.id;
      char letter = static_cast<char>(src.selector & 0xff);
      op.flags = letter == 'y' ? 1 : letter == 'z' ? 2 : letter == 'w' ? 3 : 0;
      return;
    }
    if (src.kind == OperandKind::Symbol && ctx.placement(src.id).kind == SymbolPlacement::Kind::Frame) {
      // The address of a local or .param variable of this frame, written straight to the destination.
      op.exec = &detail::execFrameAddress;
      op.imm = static_cast<int64_t>(ctx.placement(src.id).address) + src.value;
      return;
    }
    op.s[0] = ctx.src(src, inst.type());
    op.exec = &execCopy;
    return;
  }
  case ptx::Opcode::cvta: {
    op.d[0] = ctx.dst(dst);
    op.s[0] = ctx.src(src, inst.type());
    op.width = static_cast<uint8_t>(ptx::typeInfo(inst.type()).bits / 8);
    bool toSpace = inst.has(Mod::to);
    switch (inst.space) {
    case ptx::StateSpace::Global: op.exec = &execCopy; return;
    case ptx::StateSpace::Const: op.imm = static_cast<int64_t>(ctx.program.constBankBase); break;
    default: op.imm = static_cast<int64_t>(windowOf(inst.space).base); break;
    }
    op.exec = toSpace ? &execSubBase : &execAddBase;
    return;
  }
  case ptx::Opcode::isspacep: {
    op.d[0] = ctx.predSlot(dst);
    op.s[0] = ctx.src(src, Mod::u64);
    Window w = windowOf(inst.space);
    op.imm = static_cast<int64_t>(w.base);
    op.target = static_cast<uint32_t>(w.size);
    op.flags = w.kind;
    op.exec = &execIsSpace;
    return;
  }
  default: return;
  }
}

} // namespace ops
} // namespace ptxray::vm
