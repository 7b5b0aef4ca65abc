// A module lowered for execution: every function's instructions decoded once into micro-ops whose
// operands are register slots, constant-pool entries and resolved addresses, with the SIMT
// reconvergence point of every branch precomputed. The interpreter never looks at PTX text, modifiers
// or names again.
#pragma once

#include "ptx/Ir.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ptxray::vm {

inline constexpr int kWarpSize = 32;
inline constexpr uint32_t kFullMask = 0xffffffffu;
inline constexpr uint32_t kNoSlot = 0xffffffffu;
/// Operand references with this bit set index the program's constant pool, not the register file.
inline constexpr uint32_t kConstBit = 0x80000000u;
/// A guard reference with this bit set is negated (@!p).
inline constexpr uint32_t kGuardNegated = 0x80000000u;

struct ExecContext;
struct MicroOp;
using ExecFn = void (*)(ExecContext &, const MicroOp &);

/// What an address operand `[base+offset]` resolves to. Frame-relative addresses (a function's
/// local and .param variables) add the warp's current frame base at run time.
struct AddressRef {
  uint32_t base = kNoSlot; ///< register slot holding the address, kNoSlot for a constant address
  int64_t offset = 0;      ///< constant part (symbol address + displacement)
  bool frameRelative = false;
};

/// Memory space an access goes to after decoding (`.param` splits into the kernel's parameter buffer
/// and a function's frame).
enum class Space : uint8_t { Global, Shared, Local, Const, KernelParam, Generic };
const char *spaceName(Space space);

/// One decoded instruction. Operand meaning is per handler; `d` are destination slots, `s` source
/// references (slot, or kConstBit | constant-pool index). Predicate operands index the predicate file.
struct MicroOp {
  ExecFn exec = nullptr;
  uint32_t guard = kNoSlot; ///< predicate slot (| kGuardNegated), kNoSlot when unguarded
  uint32_t instruction = 0; ///< index into the PTX function's instructions (lines, events)
  uint32_t d[4] = {kNoSlot, kNoSlot, kNoSlot, kNoSlot};
  uint32_t s[4] = {kNoSlot, kNoSlot, kNoSlot, kNoSlot};
  AddressRef addr;               ///< memory operand
  int64_t imm = 0;               ///< handler-specific constant (shift, mask, byte count...)
  uint32_t target = kNoSlot;     ///< branch target pc, callee function, barrier...
  uint32_t reconverge = kNoSlot; ///< SIMT reconvergence pc of a branch (kNoSlot: function exit)
  uint32_t extra = 0;            ///< index into DecodedFunction::extra for long operand lists
  uint16_t extraCount = 0;
  uint8_t width = 0; ///< access size in bytes of one element
  uint8_t vec = 1;   ///< vector count of a memory access
  Space space = Space::Global;
  uint8_t flags = 0; ///< handler-specific
  uint8_t kind = 0;  ///< OpKind: what the interpreter must do besides calling exec
};

/// Micro-ops the interpreter treats specially: control flow reads and writes warp state; operand
/// materialization belongs to the PTX instruction after it (no event, no instruction count).
enum OpKind : uint8_t { Plain = 0, Control = 1, Operand = 2 };

/// A shared variable in a kernel's CTA.
struct SharedVariable {
  std::string name;
  uint64_t offset = 0;
  uint64_t size = 0;    ///< 0 for an unsized extern array (the dynamic area)
  bool dynamic = false; ///< an unsized `.extern .shared` array
};

struct DecodedFunction {
  const ptx::Module *module = nullptr; ///< the module `source` belongs to
  const ptx::Function *source = nullptr;
  uint32_t index = 0; ///< in the PTX module's functions
  std::string name;
  bool isEntry = false;
  bool isSystemCall = false;
  int systemCall = -1; ///< abi::SystemCallId when isSystemCall
  std::vector<MicroOp> code;
  std::vector<uint32_t> extra; ///< long operand lists (call arguments, brx targets)
  uint32_t numValueSlots = 0;  ///< 64-bit lanes per slot
  uint32_t numPredSlots = 0;
  /// Per-thread frame: locals, call-site .param scratch, own parameters and return values.
  uint64_t frameBytes = 0;
  uint32_t frameAlign = 16;
  std::vector<uint64_t> paramOffsets; ///< frame offset (funcs) or param-buffer offset (kernels)
  std::vector<uint64_t> paramSizes;
  std::vector<uint64_t> returnOffsets;
  std::vector<uint64_t> returnSizes;
  uint64_t kernelParamBytes = 0;
  bool decoded = false;
  /// Kernels: ptxas can size the stack (ptx::SharedLayoutPlanner::stackSizeIsStatic); when not, the
  /// launch's stack is LaunchOptions::stackLimitBytes.
  bool stackSizeIsStatic = true;

  // Kernels only: the CTA's shared memory, laid out as ptxas lays it out (ptx/SharedLayout.h).
  uint64_t staticSharedBytes = 0;          ///< the kernel's static shared memory; the dynamic area starts here
  std::vector<SharedVariable> sharedSlots; ///< the variables in it, by offset (dynamic arrays last)
  /// PTX function index -> decoded function this kernel runs for it. Functions that reach shared
  /// memory are decoded once per kernel (as ptxas compiles a copy per kernel), since a variable's
  /// offset depends on the kernel; indirect calls go through this map.
  std::vector<uint32_t> functionMap;
};

/// A module variable placed in device memory (global or const).
struct PlacedVariable {
  uint32_t variable = 0; ///< PTX module variable index
  std::string name;
  ptx::StateSpace space = ptx::StateSpace::None;
  uint64_t address = 0; ///< global: device address; const: const-bank offset
  uint64_t size = 0;
};

struct Program {
  const ptx::Module *module = nullptr;
  /// One per PTX function (same index), then the per-kernel copies of functions that reach shared
  /// memory (DecodedFunction::functionMap).
  std::vector<DecodedFunction> functions;
  std::vector<uint64_t> constPool; ///< kWarpSize copies of every constant, so operands read like registers
  std::vector<PlacedVariable> variables;
  uint32_t addressBits = 64;
  uint64_t constBankBase = 0;        ///< device address of the module's constant bank (cvta.const)
  std::vector<std::string> messages; ///< texts of unsupported micro-ops (MicroOp::imm indexes it)
  /// Some function reads %clock, %clock64 or %globaltimer (its launches need LaunchOptions::clock).
  bool readsClock = false;

  /// The function `name` names: a PTX name, or a demangled name with or without parameters.
  const DecodedFunction *findFunction(std::string_view name) const;
};

} // namespace ptxray::vm
