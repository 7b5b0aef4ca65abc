// Lowering PTX functions into micro-ops. The Decoder walks each function once; an instruction family
// (ops/*.cpp) turns one PTX instruction into one micro-op (or a few), choosing a handler instantiated
// for its exact type and modifiers so nothing is tested at run time that decoding could decide.
#pragma once

#include "vm/Program.h"

#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace ptxray::vm {

/// Where module variables went; the loader fills it before functions are decoded.
struct SymbolPlacement {
  enum class Kind : uint8_t { None, Global, Const, Shared, KernelParam, Frame, Register, Function };
  Kind kind = Kind::None;
  uint64_t address = 0;    ///< device address, const offset, shared offset, param offset, frame offset
  uint32_t slot = kNoSlot; ///< Register kind: value slot of a .reg parameter
};

class DecodeContext {
public:
  DecodeContext(Program &program, DecodedFunction &fn, const std::vector<SymbolPlacement> &modulePlacement);

  Program &program;
  DecodedFunction &fn;
  const ptx::Module &module;
  const ptx::Function &ptxFn;
  const ptx::Instruction *inst = nullptr;
  uint32_t instIndex = 0;

  std::span<const ptx::Operand> operands() const { return ptxFn.operandsOf(*inst); }
  std::span<const ptx::Operand> children(const ptx::Operand &op) const { return ptxFn.children(op); }

  /// A source operand as a lane array reference. `type` is the instruction type the value is read as
  /// (float literals are converted to it; integer literals keep their bits).
  uint32_t src(const ptx::Operand &op, ptx::Mod type = ptx::Mod::None);
  /// A destination register's value slot (a sink `_` gets a scratch slot).
  uint32_t dst(const ptx::Operand &op);
  /// Predicate register slot; `negated` receives the operand's `!`.
  uint32_t predSlot(const ptx::Operand &op, bool *negated = nullptr);
  bool isPredicate(const ptx::Operand &op) const;
  /// `[base+offset]`, a symbol or a register used as an address; sets `space` from the instruction.
  AddressRef address(const ptx::Operand &op);
  /// The decoded space of the instruction's memory operand (kernel .param vs a function's frame).
  Space spaceOf(ptx::StateSpace space, const ptx::Operand &addressOperand) const;

  /// Component of a vector register named by `.x`/`.r`... (0 for scalars).
  uint32_t vectorComponent(const ptx::Operand &op) const;
  uint32_t constant(uint64_t bits);
  uint32_t scratchSlot();
  /// The slot of PTX register `reg` (a predicate slot for a .pred), given at its first use.
  uint32_t registerSlot(uint32_t reg);
  /// Appends a micro-op that runs before the one being decoded (operand materialization).
  void emitBefore(const MicroOp &op);
  /// Marks the micro-op as one the VM cannot execute; it faults only if it is reached.
  void unsupported(MicroOp &op, std::string why);

  const SymbolPlacement &placement(uint32_t symbol) const;
  uint32_t functionIndexOf(uint32_t symbol) const;

  std::vector<MicroOp> pending; ///< emitted by emitBefore for the current instruction
  /// Positions in fn.extra holding label symbols (brx targets) to turn into pcs after decoding.
  std::vector<uint32_t> extraLabels;

  // Filled by the decoder before the instructions are decoded.
  const std::vector<SymbolPlacement> &modulePlacement_;
  /// The kernel this copy is decoded for: its shared variables' offsets and the copies it calls.
  const std::unordered_map<uint32_t, SymbolPlacement> *kernelPlacement_ = nullptr;
  const std::vector<uint32_t> *functionMap_ = nullptr;
  std::unordered_map<uint32_t, SymbolPlacement> framePlacement_; ///< function-scope symbols
  std::vector<uint32_t> slotOfRegister_;
  std::vector<uint8_t> isPred_;
  const std::vector<uint32_t> *symbolOfVariable_ = nullptr; ///< module variable index -> its symbol
};

using DecodeFn = void (*)(DecodeContext &, MicroOp &);

/// Decodes every function with a body (system calls get their own marker), then for each kernel its
/// shared-memory layout and a copy of every function it can call that reaches shared memory.
void decodeProgram(Program &program, const std::vector<SymbolPlacement> &placement);

/// Messages of unsupported micro-ops (indexed by MicroOp::imm of the unsupported handler).
std::string_view unsupportedMessage(const Program &program, int64_t index);

} // namespace ptxray::vm
