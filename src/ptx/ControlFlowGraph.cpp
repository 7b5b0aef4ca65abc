#include "ptx/ControlFlowGraph.h"

#include <unordered_map>

namespace ptxray::ptx {
namespace {

bool isBranch(Opcode op) {
  return op == Opcode::bra || op == Opcode::brx;
}
bool leavesFunction(Opcode op) {
  return op == Opcode::ret || op == Opcode::exit || op == Opcode::trap;
}

/// Instructions whose first operand is read, never written (or that have no operands at all).
bool hasNoDestination(Opcode op) {
  switch (op) {
  case Opcode::bar:
  case Opcode::barrier:
  case Opcode::bra:
  case Opcode::brkpt:
  case Opcode::brx:
  case Opcode::exit:
  case Opcode::fence:
  case Opcode::griddepcontrol:
  case Opcode::membar:
  case Opcode::nanosleep:
  case Opcode::pmevent:
  case Opcode::ret:
  case Opcode::setmaxnreg:
  case Opcode::stackrestore:
  case Opcode::trap: return true;
  default: return false;
  }
}

void collect(const Function &fn, const Operand &op, std::vector<uint32_t> &out) {
  switch (op.kind) {
  case OperandKind::Register: out.push_back(op.id); break;
  case OperandKind::Address:
  case OperandKind::Vector:
  case OperandKind::List:
  case OperandKind::Pair:
    for (const Operand &child : fn.children(op))
      collect(fn, child, out);
    break;
  default: break;
  }
}

} // namespace

RegisterAccess registerAccess(const Function &fn, const Instruction &inst) {
  RegisterAccess access;
  if (inst.guard != kNone)
    access.uses.push_back(inst.guard);
  auto ops = fn.operandsOf(inst);
  size_t firstUse = 0;
  if (inst.opcode == Opcode::call) {
    // call (rets), target, (args) [, prototype]: registers in the return list are written.
    if (!ops.empty() && ops[0].kind == OperandKind::List) {
      collect(fn, ops[0], access.defs);
      firstUse = 1;
    }
  } else if (!ops.empty() && !hasNoDestination(inst.opcode) && ops[0].kind != OperandKind::Address) {
    const Operand &dest = ops[0];
    collect(fn, dest, access.defs);
    // A partial write (a byte/half selector) or an in-place accumulator keeps the old value live.
    bool readsDestination = dest.selector != 0 || inst.opcode == Opcode::wgmma;
    firstUse = readsDestination ? 0 : 1;
  }
  for (size_t i = firstUse; i < ops.size(); ++i)
    collect(fn, ops[i], access.uses);
  return access;
}

ControlFlowGraph::ControlFlowGraph(const Module &module, const Function &fn) {
  const uint32_t n = static_cast<uint32_t>(fn.instructions.size());
  blockOfInstruction_.assign(n, 0);
  if (n == 0)
    return;

  // Labels name the instruction that follows them.
  std::unordered_map<uint32_t, uint32_t> labelTarget; // label symbol -> instruction
  uint32_t next = 0;
  for (const Statement &st : fn.statements) {
    if (st.kind == StatementKind::Instruction)
      ++next;
    else if (st.kind == StatementKind::Label)
      labelTarget[st.index] = next;
  }

  std::vector<bool> leader(n + 1, false);
  leader[0] = true;
  for (const auto &[label, target] : labelTarget)
    leader[target] = true;
  for (uint32_t i = 0; i < n; ++i)
    if (isBranch(fn.instructions[i].opcode) || leavesFunction(fn.instructions[i].opcode))
      leader[i + 1] = true;

  for (uint32_t i = 0; i < n; ++i) {
    if (leader[i]) {
      if (!blocks_.empty())
        blocks_.back().endInstruction = i;
      blocks_.emplace_back();
      blocks_.back().firstInstruction = i;
    }
    blockOfInstruction_[i] = static_cast<uint32_t>(blocks_.size() - 1);
  }
  blocks_.back().endInstruction = n;

  auto blockAtLabel = [&](uint32_t symbol) -> int64_t {
    auto it = labelTarget.find(symbol);
    if (it == labelTarget.end() || it->second >= n)
      return -1;
    return blockOfInstruction_[it->second];
  };
  for (uint32_t b = 0; b < blocks_.size(); ++b) {
    BasicBlock &block = blocks_[b];
    const Instruction &last = fn.instructions[block.endInstruction - 1];
    bool guarded = last.guard != kNone;
    bool fallsThrough = true;
    auto ops = fn.operandsOf(last);
    if (last.opcode == Opcode::bra && !ops.empty() && ops[0].kind == OperandKind::Symbol && ops[0].id != kNone) {
      if (int64_t t = blockAtLabel(ops[0].id); t >= 0)
        block.successors.push_back(static_cast<uint32_t>(t));
      fallsThrough = guarded;
    } else if (last.opcode == Opcode::brx && ops.size() >= 2 && ops[1].kind == OperandKind::Symbol &&
               ops[1].id != kNone && module.symbols[ops[1].id].kind == SymbolKind::BranchTargets) {
      for (uint32_t label : fn.targetLists[module.symbols[ops[1].id].index].symbols)
        if (int64_t t = label == kNone ? -1 : blockAtLabel(label); t >= 0)
          block.successors.push_back(static_cast<uint32_t>(t));
      fallsThrough = guarded;
    } else if (leavesFunction(last.opcode)) {
      fallsThrough = guarded;
      block.endsFunction = !guarded;
    }
    if (fallsThrough && b + 1 < blocks_.size())
      block.successors.push_back(b + 1);
  }
  for (uint32_t b = 0; b < blocks_.size(); ++b)
    for (uint32_t s : blocks_[b].successors)
      blocks_[s].predecessors.push_back(b);
}

} // namespace ptxray::ptx
