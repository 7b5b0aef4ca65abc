// The latency side of the time model: for every warp, the cycle each instruction could issue at, on
// its own, given when its operands are ready (a scoreboard over the PTX registers: the dependency
// chains and instruction-level parallelism of the Kepler guide §1.4.1), how long memory takes at the
// level an access was served from, and when a CTA barrier lets its warps go. The longest warp of a
// CTA is the CTA's critical path; the model (TimeEstimate) schedules those paths in waves on the SMs
// against the throughput limits. What a cycle costs comes from the architecture database.
#pragma once

#include "arch/ComputeCapability.h"
#include "model/InstructionClass.h"
#include "model/MergedAccesses.h"
#include "ptx/Ir.h"

#include <cstdint>
#include <vector>

namespace ptxray::model {

/// How an instruction's result time is found.
enum class ResultTiming : uint8_t {
  Fixed,  ///< the class's dependent-issue latency (InstructionTiming::resultCycles)
  Memory, ///< set when the access is seen (the level that served it)
  None,   ///< writes no register
};

/// Per PTX instruction: the registers it reads and writes (indices into FunctionTiming::registers:
/// sources first, then destinations), its issue cost and its result latency.
struct InstructionTiming {
  uint32_t firstRegister = 0;
  uint8_t sources = 0;
  uint8_t destinations = 0;
  ResultTiming result = ResultTiming::Fixed;
  uint16_t issueCycles = 1;  ///< cycles its scheduler is busy with it (1 / the class's rate per scheduler)
  uint16_t resultCycles = 0; ///< ResultTiming::Fixed: cycles until a dependent instruction can issue
  bool printf = false;       ///< a call of vprintf (device printf: a system call, with no call event)
  /// A branch, call, return or exit: the end of a basic block. ptxas schedules within a block (loads
  /// early, independent chains interleaved) but the warp issues in order, so nothing after it issues
  /// before everything before it has.
  bool endsBlock = false;
  /// A barrier or memory fence: it issues only once every instruction before it has (the reorder
  /// window does not reach past it), so a CTA barrier waits for the loads and stores before it.
  bool waitsForEarlier = false;
  /// Memory order within a warp: a store (or atomic) to memory a later load may alias; a load that
  /// may read what an earlier store wrote (not .param, .const or the read-only path) and so cannot
  /// be scheduled above it.
  /// Bit 0: shared memory, bit 1: global and local memory (a generic access: both).
  uint8_t orderedStore = 0;
  uint8_t orderedLoad = 0;
  /// An atomic or reduction whose address and operands are the same in every lane by construction
  /// (kernel parameters, block indices, constants): ptxas combines a warp's lanes into one update.
  bool warpUniformAtomic = false;
  /// ptxas merges this shared access with others into one vector access (model/MergedAccesses.h):
  /// First issues it (mergedBytesPerLane wide, at its address plus mergedAddressAdjust), Merged
  /// takes no issue slot or bank cost of its own.
  MergedRole merged = MergedRole::None;
  uint8_t mergedBytesPerLane = 0;
  int8_t mergedAddressAdjust = 0;
  /// What it takes of its SM: the class's pipe (an InstructionClass index), SM cycles on that pipe
  /// (1 / the class's warp instructions per clock), and issue slots (warp instructions: an emulated
  /// sequence's length; 0 for a Merged access). Between two barriers a CTA's warps share them, so
  /// the CTA goes no faster than its busiest pipe or its issue slots (PerformanceModel's phases).
  uint8_t pipe = 0;
  float pipeCycles = 0;
  float issueSlots = 1;
};

struct FunctionTiming {
  std::vector<InstructionTiming> instructions;
  std::vector<uint32_t> registers; ///< PTX register indices of the function
};

/// The per-instruction timing of one function on `cc` (fp64PerClock: the board's FP64 rate where it
/// differs from the compute capability's).
FunctionTiming buildFunctionTiming(const arch::ComputeCapability &cc, const ptx::Module &module,
                                   const ptx::Function &function, int fp64PerClock = 0);

/// Cycles a result of class `c` takes before a dependent instruction can issue.
int resultLatencyCycles(const arch::ComputeCapability &cc, InstructionClass c);

} // namespace ptxray::model
