// What the VM tells observers while it runs: warp-level events in the spirit of Oclgrind's plugins
// and llvm-mca's event listeners. The performance model, memcheck-style tools and race detectors
// are listeners; they never change results. With no listener attached the interpreter runs an
// instantiation without any event code.
//
// Threading: events of one CTA come from one worker thread, in execution order; different CTAs run
// on different workers at the same time. Every event carries the worker index so a listener can
// keep per-worker state and merge it at onLaunchEnd without locks.
#pragma once

#include "vm/Program.h"

#include <array>
#include <cstdint>

namespace ptxray::vm {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
  bool operator==(const Dim3 &) const = default;
};

/// Which warp an event is about.
struct WarpRef {
  unsigned worker = 0;
  Dim3 cta;
  uint32_t warp = 0; ///< warp index in the CTA
  const DecodedFunction *function = nullptr;
};

struct InstructionEvent {
  uint32_t pc = 0;           ///< micro-op index in the function
  uint32_t instruction = 0;  ///< PTX instruction index in the function
  uint32_t activeMask = 0;   ///< lanes on the current SIMT path
  uint32_t executedMask = 0; ///< active lanes whose guard predicate held
};

enum class MemoryOp : uint8_t { Load, Store, Atomic, Reduction };

/// One warp-wide memory instruction: the addresses of all 32 lanes at once (what coalescing and
/// bank-conflict models need). Addresses are state-space addresses (shared offsets for .shared),
/// generic accesses are reported in the space they resolved to.
struct MemoryEvent {
  uint32_t pc = 0;
  uint32_t instruction = 0;
  MemoryOp op = MemoryOp::Load;
  Space space = Space::Global;
  uint8_t width = 0; ///< bytes per element
  uint8_t vec = 1;   ///< elements per lane
  uint32_t mask = 0; ///< lanes that accessed memory
  ptx::Mod cache = ptx::Mod::None;
  bool nonCoherent = false; ///< ld.global.nc / ldu
  bool isVolatile = false;
  ptx::Mod semantics = ptx::Mod::None;
  ptx::Mod scope = ptx::Mod::None;
  std::array<uint64_t, kWarpSize> addresses{};
};

struct BranchEvent {
  uint32_t pc = 0;
  uint32_t instruction = 0;
  uint32_t takenMask = 0;
  uint32_t notTakenMask = 0;
  uint32_t reconvergePc = kNoSlot;
  bool divergent = false;
};

struct BarrierEvent {
  uint32_t pc = 0;
  uint32_t instruction = 0;
  uint32_t barrier = 0;
  uint32_t mask = 0;
  bool release = false; ///< false: a warp arrived; true: the barrier completed (pc is the last arriver's)
};

struct CallEvent {
  uint32_t pc = 0;
  uint32_t instruction = 0;
  const DecodedFunction *callee = nullptr;
  uint32_t mask = 0;
  bool isReturn = false;
};

/// What a launch is: the kernel, its configuration and the resources the launch check used.
struct LaunchInfo {
  const DecodedFunction *kernel = nullptr;
  Dim3 grid, block;
  uint64_t dynamicSharedBytes = 0;
  uint32_t registersPerThread = 0; ///< .maxnreg, else the PTX liveness estimate (what the launch check used)
  unsigned workers = 1;
  uint64_t ctasRun = 0; ///< CTAs that will run: the grid, or fewer when sampling
};

class ExecutionListener {
public:
  virtual ~ExecutionListener() = default;
  virtual void onLaunchBegin(const LaunchInfo &) {}
  virtual void onLaunchEnd() {}
  virtual void onCtaBegin(unsigned /*worker*/, Dim3 /*cta*/) {}
  virtual void onCtaEnd(unsigned /*worker*/, Dim3 /*cta*/) {}
  virtual void onWarpBegin(const WarpRef &, uint32_t /*liveMask*/) {}
  virtual void onWarpEnd(const WarpRef &) {}
  virtual void onInstruction(const WarpRef &, const InstructionEvent &) {}
  virtual void onMemory(const WarpRef &, const MemoryEvent &) {}
  virtual void onBranch(const WarpRef &, const BranchEvent &) {}
  virtual void onBarrier(const WarpRef &, const BarrierEvent &) {}
  virtual void onCall(const WarpRef &, const CallEvent &) {}
};

} // namespace ptxray::vm
