// Errors a launch can end with, reported like the CUDA driver and compute-sanitizer report them:
// which kernel, block, thread and instruction, the address and the allocation it missed, and the
// CUDA source line from `.loc`.
#pragma once

#include "ptx/Ir.h"
#include "vm/Events.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptxray::vm {

enum class FaultKind : uint8_t {
  OutOfBounds,        ///< an address outside every allocation / the shared, local or param window
  Misaligned,         ///< an address not aligned to the access size
  UseAfterFree,       ///< an address in a freed allocation
  ReadOnly,           ///< a store to a constant bank or the kernel parameters
  InvalidGeneric,     ///< a generic address in no window and no allocation
  BarrierDivergence,  ///< bar.sync reached by some lanes of a warp only
  BarrierDeadlock,    ///< warps wait at a barrier that can never complete
  InstructionLimit,   ///< the instruction budget ran out (runaway kernel)
  StackOverflow,      ///< call depth or local memory beyond the per-thread stack limit
  AssertFailed,       ///< __assertfail
  Trap,               ///< trap instruction
  Breakpoint,         ///< brkpt instruction
  IllegalInstruction, ///< an instruction the VM cannot execute, or invalid operands at run time
  InvalidCall,        ///< call through a pointer that is not a function, or to a function without a body
  HeapError,          ///< free() of a pointer malloc() did not return
  Livelock,           ///< every warp that can run polls memory that nothing changes
  MemoryBudget,       ///< the VM's state for the launch would pass the process's memory budget (--max-memory)
};

const char *faultName(FaultKind kind);
/// A stable identifier of the kind for machine-readable reports: "out-of-bounds", "misaligned", ...
const char *faultKindId(FaultKind kind);

/// Where a PTX instruction is, in words and as data, for fault and sanitizer reports.
struct InstructionPlace {
  std::string ptxLocation; ///< file:line:col of the PTX instruction
  std::string ptxText;     ///< its source text, trimmed
  /// CUDA file:line from .loc, with " inlined into file:line" links; empty without line information.
  std::string sourceLine;
  std::string sourceFile;      ///< the innermost of those positions: its file,
  uint32_t sourceFileLine = 0; ///< and its line (0 without line information)
};
/// Builds line tables of the module's sources lazily: not thread-safe for one module.
InstructionPlace placeOf(const ptx::Module &module, const ptx::Instruction &instruction);

struct Fault {
  FaultKind kind = FaultKind::IllegalInstruction;
  std::string kernel;
  Dim3 block;
  Dim3 thread;
  std::string function;        ///< PTX function executing (kernel or callee)
  uint32_t instruction = 0;    ///< PTX instruction index in that function
  std::string ptxLocation;     ///< file:line:col of the PTX instruction
  std::string sourceLine;      ///< CUDA file:line from .loc ("a.cu:12 inlined into a.cu:40"), empty without it
  std::string sourceFile;      ///< the innermost of those positions: its file,
  uint32_t sourceFileLine = 0; ///< and its line (0 without line information)
  std::string instructionText;
  uint64_t address = 0;
  uint32_t size = 0; ///< bytes accessed
  Space space = Space::Global;
  bool isWrite = false;
  std::string detail; ///< what the address missed, or other specifics

  /// The report's first line, without the "========= " prefix: the kind, and the access.
  std::string headline() const;
  /// The report's other lines, without prefixes: kernel and function, instruction, source, thread,
  /// address, detail (those that apply).
  std::vector<std::string> detailLines() const;
  /// Multi-line report in compute-sanitizer style: the headline and the details.
  std::string describe() const;
};

/// The order reports of a launch are kept and shown in: by block, then thread (z, y, x), then PTX
/// instruction and address, whichever worker found them first.
bool faultOrder(const Fault &a, const Fault &b);

} // namespace ptxray::vm
