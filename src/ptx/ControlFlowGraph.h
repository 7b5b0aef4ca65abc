// Basic blocks of a function body and the edges between them. Later stages (liveness here, SIMT
// reconvergence in the VM) work on this instead of re-deriving control flow from statements.
#pragma once

#include "ptx/Ir.h"

#include <span>
#include <vector>

namespace ptxray::ptx {

struct BasicBlock {
  uint32_t firstInstruction = 0; ///< index into Function::instructions
  uint32_t endInstruction = 0;   ///< one past the last
  std::vector<uint32_t> successors;
  std::vector<uint32_t> predecessors;
  bool endsFunction = false; ///< ret/exit/trap with no guard: control leaves here
};

class ControlFlowGraph {
public:
  explicit ControlFlowGraph(const Module &module, const Function &fn);

  const std::vector<BasicBlock> &blocks() const { return blocks_; }
  /// Block holding an instruction.
  uint32_t blockOf(uint32_t instruction) const { return blockOfInstruction_[instruction]; }

private:
  std::vector<BasicBlock> blocks_;
  std::vector<uint32_t> blockOfInstruction_;
};

/// Which registers an instruction writes and reads (PTX: the first operand is the destination,
/// except for instructions that only store, synchronize or branch).
struct RegisterAccess {
  std::vector<uint32_t> defs;
  std::vector<uint32_t> uses;
};
RegisterAccess registerAccess(const Function &fn, const Instruction &inst);

} // namespace ptxray::ptx
