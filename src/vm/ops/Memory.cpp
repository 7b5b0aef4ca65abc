// ld, ldu, st, prefetch: whole-warp loads and stores of 1-16 byte elements, scalar or vector.
#include "vm/MemoryAccess.h"
#include "vm/ops/Families.h"

#include <fmt/format.h>

namespace ptxray::vm::ops {

using ptx::Mod;
using ptx::OperandKind;

namespace {

template <int Bytes, bool Signed> inline uint64_t loadElement(const std::byte *p) {
  if constexpr (Bytes == 1) {
    uint8_t v;
    std::memcpy(&v, p, 1);
    return Signed ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(v))) : v;
  } else if constexpr (Bytes == 2) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return Signed ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(v))) : v;
  } else if constexpr (Bytes == 4) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return Signed ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v))) : v;
  } else {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
}

template <int Bytes, bool Signed, int Vec> void execLoad(ExecContext &ctx, const MicroOp &op) {
  WarpAccess acc;
  computeAddresses(ctx, op, ctx.exec, acc.addresses);
  translate(ctx, op.space, ctx.exec, Bytes * Vec, Bytes * Vec, false, acc);
  for (int v = 0; v < Vec; ++v) {
    uint64_t *d = ctx.out(op.d[v]);
    forLanes(acc.mask, [&](int lane) { d[lane] = loadElement<Bytes, Signed>(acc.host[lane] + v * Bytes); });
  }
  if (ctx.listener)
    emitMemoryEvent(ctx, op, MemoryOp::Load, acc, Bytes, Vec);
}

template <int Bytes, int Vec> void execStore(ExecContext &ctx, const MicroOp &op) {
  WarpAccess acc;
  computeAddresses(ctx, op, ctx.exec, acc.addresses);
  translate(ctx, op.space, ctx.exec, Bytes * Vec, Bytes * Vec, true, acc);
  for (int v = 0; v < Vec; ++v) {
    const uint64_t *s = ctx.in(op.s[v]);
    forLanes(acc.mask, [&](int lane) { std::memcpy(acc.host[lane] + v * Bytes, &s[lane], Bytes); });
  }
  if (ctx.listener)
    emitMemoryEvent(ctx, op, MemoryOp::Store, acc, Bytes, Vec);
}

/// A prefetch is a hint: it never faults; the listener still sees the addresses.
void execPrefetch(ExecContext &ctx, const MicroOp &op) {
  if (!ctx.listener)
    return;
  WarpAccess acc;
  computeAddresses(ctx, op, ctx.exec, acc.addresses);
  acc.mask = ctx.exec;
  acc.space = op.space;
  emitMemoryEvent(ctx, op, MemoryOp::Load, acc, 0, 1);
}

template <int Bytes, bool Signed> ExecFn loadFor(int vec) {
  switch (vec) {
  case 1: return &execLoad<Bytes, Signed, 1>;
  case 2: return &execLoad<Bytes, Signed, 2>;
  case 4: return &execLoad<Bytes, Signed, 4>;
  default: return nullptr;
  }
}

template <int Bytes> ExecFn storeFor(int vec) {
  switch (vec) {
  case 1: return &execStore<Bytes, 1>;
  case 2: return &execStore<Bytes, 2>;
  case 4: return &execStore<Bytes, 4>;
  default: return nullptr;
  }
}

} // namespace

void decodeMemory(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  if (inst.opcode == ptx::Opcode::prefetch || inst.opcode == ptx::Opcode::prefetchu) {
    if (operands.empty())
      return;
    op.addr = ctx.address(operands[0]);
    op.space = ctx.spaceOf(inst.space, operands[0]);
    op.exec = &execPrefetch;
    return;
  }
  bool isStore = inst.opcode == ptx::Opcode::st;
  if (operands.size() < 2)
    return;
  const ptx::Operand &mem = isStore ? operands[0] : operands[1];
  const ptx::Operand &val = isStore ? operands[1] : operands[0];
  ptx::TypeInfo t = ptx::typeInfo(inst.type());
  int bytes = t.bits / 8;
  int vec = inst.vectorWidth;
  op.addr = ctx.address(mem);
  op.space = inst.opcode == ptx::Opcode::ldu ? Space::Global : ctx.spaceOf(inst.space, mem);
  op.width = static_cast<uint8_t>(bytes);
  op.vec = static_cast<uint8_t>(vec);
  std::vector<const ptx::Operand *> elements;
  if (val.kind == OperandKind::Vector) {
    for (const ptx::Operand &c : ctx.children(val))
      elements.push_back(&c);
  } else {
    elements.push_back(&val);
  }
  if (static_cast<int>(elements.size()) != vec || vec > 4) {
    ctx.unsupported(op, fmt::format("{}-element vector accesses are not supported", vec));
    return;
  }
  for (int i = 0; i < vec; ++i) {
    if (isStore)
      op.s[i] = ctx.src(*elements[i], inst.type());
    else
      op.d[i] = ctx.dst(*elements[i]);
  }
  bool isSigned = t.kind == ptx::TypeKind::Signed;
  if (isStore) {
    switch (bytes) {
    case 1: op.exec = storeFor<1>(vec); break;
    case 2: op.exec = storeFor<2>(vec); break;
    case 4: op.exec = storeFor<4>(vec); break;
    case 8: op.exec = storeFor<8>(vec); break;
    default: break;
    }
    return;
  }
  switch (bytes) {
  case 1: op.exec = isSigned ? loadFor<1, true>(vec) : loadFor<1, false>(vec); break;
  case 2: op.exec = isSigned ? loadFor<2, true>(vec) : loadFor<2, false>(vec); break;
  case 4: op.exec = isSigned ? loadFor<4, true>(vec) : loadFor<4, false>(vec); break;
  case 8: op.exec = loadFor<8, false>(vec); break;
  default: break;
  }
}

} // namespace ptxray::vm::ops
