// What the VM tells observers: warp-level events while a kernel runs, and the host's allocations,
// releases and writes of device memory between launches; one interface for both, in the spirit of
// Oclgrind's plugins and llvm-mca's event listeners. The performance model and the sanitizers are
// listeners; they never change results. A listener is attached to a device (Device::setListener)
// and hears both channels from then on; with none attached the interpreter runs an instantiation
// without any event code and memory calls nobody.
//
// Threading: events of one CTA come from one worker thread, in execution order; different CTAs run
// on different workers at the same time. Every event carries the worker index so a listener can
// keep per-worker state and merge it at onLaunchEnd without locks. Memory events come from the host
// thread, never while a kernel runs.
#pragma once

#include "vm/Program.h"

#include <array>
#include <cstdint>

namespace ptxray::vm {

struct Allocation;

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

/// The unit an access goes through: ld/st/atom/red (and prefetches, async copies) through the
/// load/store pipe, tex/tld4 through the texture pipe, suld/sust through surface instructions.
/// Texture and surface events carry device (global) addresses of the bytes read or written.
enum class MemoryPath : uint8_t { LoadStore, Texture, Surface };

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
  /// An mbarrier object's own word (init, arrive, wait...): synchronization, not data (MbarrierEvent
  /// says what it did).
  bool isSynchronization = false;
  ptx::Mod semantics = ptx::Mod::None;
  ptx::Mod scope = ptx::Mod::None;
  MemoryPath path = MemoryPath::LoadStore;
  /// A texture fetch that reads several texels per lane (linear filtering: 2, 4 or 8; tld4: 4) is
  /// reported as `footprintParts` consecutive events of the same warp, one per footprint corner
  /// (`footprintPart` 0, 1, ...), each with the lanes that read a texel there. Together they are one
  /// request; the texels they name are the fetch's footprint. Every other event is part 0 of 1.
  uint8_t footprintPart = 0;
  uint8_t footprintParts = 1;
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
  /// Arrivals only: the thread count the instruction gave (its `b` operand), 0 when it waits for
  /// every live thread of the CTA.
  uint32_t threadCount = 0;
  /// Arrivals only: bar.arrive / barrier.arrive, which does not wait for the barrier to complete.
  bool arriveOnly = false;
};

/// What an mbarrier operation did for one lane: an arrive-on (mbarrier.arrive, cp.async.mbarrier.arrive,
/// and a complete-tx: the bytes a thread's bulk copy brought count as its arrival), the completion of
/// a phase (after the arrive or complete-tx that ended it), or a test_wait/try_wait that found the
/// phase of `parity` complete. An arrive releases what the lane's thread did before it; a successful
/// wait acquires what every arrival of that phase released.
enum class MbarrierOp : uint8_t { Arrive, PhaseComplete, WaitComplete };

struct MbarrierEvent {
  uint32_t pc = 0;
  uint32_t instruction = 0;
  MbarrierOp op = MbarrierOp::Arrive;
  int lane = 0;
  uint64_t address = 0; ///< shared-memory offset of the object
  bool parity = false;  ///< PhaseComplete, WaitComplete: the parity of the phase that completed
};

/// The warp-level instructions whose lanes synchronize with each other: bar.warp.sync and the
/// .sync forms of shfl, vote, match, redux and elect (also legacy shfl and vote, without a mask).
enum class WarpSyncOp : uint8_t { BarWarpSync, Shfl, Vote, Match, Redux, Elect };

/// One warp-synchronizing instruction with what each executing lane asked for: the lanes of its
/// membermask and, for shfl, the lane it reads. Sent only when a listener is attached.
struct WarpSyncEvent {
  uint32_t pc = 0;
  uint32_t instruction = 0;
  WarpSyncOp op = WarpSyncOp::BarWarpSync;
  bool hasMemberMask = false;                    ///< false for legacy shfl and vote (the whole warp takes part)
  uint32_t activeMask = 0;                       ///< lanes on the current SIMT path
  uint32_t executedMask = 0;                     ///< active lanes whose guard predicate held: the lanes executing it
  uint32_t liveMask = 0;                         ///< lanes of the warp that exist and have not exited
  std::array<uint32_t, kWarpSize> memberMasks{}; ///< per executing lane (hasMemberMask)
  std::array<uint8_t, kWarpSize> sourceLanes{};  ///< shfl: per executing lane, the lane it reads
};

/// Lanes leaving the kernel: exit, ret from the kernel's body, or running off its end.
struct ExitEvent {
  uint32_t pc = 0;          ///< micro-op index (may equal the code size when lanes ran off the end)
  uint32_t instruction = 0; ///< PTX instruction index (the last one when lanes ran off the end)
  uint32_t mask = 0;        ///< lanes that exit
};

enum class HeapOp : uint8_t { Malloc, Free };

/// Device-side malloc or free (the system calls) by the lanes of a warp. Sent only when a listener
/// is attached, after the heap has done its work.
struct HeapEvent {
  uint32_t pc = 0;          ///< the call micro-op
  uint32_t instruction = 0; ///< the call instruction
  HeapOp op = HeapOp::Malloc;
  uint32_t mask = 0; ///< lanes whose malloc returned a block (not null), or whose free released one
  std::array<uint64_t, kWarpSize> addresses{}; ///< per lane in mask: the block's device address
  std::array<uint64_t, kWarpSize> bytes{};     ///< Malloc: per lane in mask, the size asked for
};

struct CallEvent {
  uint32_t pc = 0;
  uint32_t instruction = 0;
  const DecodedFunction *callee = nullptr;
  uint32_t mask = 0;
  bool isReturn = false;
};

/// What a launch is: the kernel, its configuration and the resources the launch check used.
/// Where a child grid was launched (dynamic parallelism): the launching thread, as linear indices in
/// the parent grid, its launch count, and the device stream. The VM's record of a launch, the
/// listeners' LaunchInfo and the model's ChildGrid carry it as one.
struct GridOrigin {
  uint64_t launchingCta = 0, launchingThread = 0;
  uint32_t launchSequence = 0; ///< the launching thread's earlier launches
  /// The device stream, as the device runtime names them: 0 the block's own (NULL) stream,
  /// kTailLaunchStream, kFireAndForgetStream, else one the block created.
  uint64_t stream = 0;
  static constexpr uint64_t kTailLaunchStream = 3;    ///< cudaStreamTailLaunch
  static constexpr uint64_t kFireAndForgetStream = 4; ///< cudaStreamFireAndForget
};

struct LaunchInfo {
  const DecodedFunction *kernel = nullptr;
  Dim3 grid, block;
  uint64_t dynamicSharedBytes = 0;
  uint32_t registersPerThread = 0; ///< .maxnreg, else the PTX liveness estimate (what the launch check used)
  unsigned workers = 1;
  uint64_t ctasRun = 0; ///< CTAs that will run: the grid, or fewer when sampling
  /// Values WarpRef::worker and onCtaBegin's `worker` take: one CTA per slot at a time. Slots
  /// [0, workers) are the workers' own; a worker keeping several CTAs resident (they wait for each
  /// other) uses more, up to this many. Per-slot state beyond the first `workers` should be made on
  /// first use (onCtaBegin of that slot), as most launches never use it.
  unsigned slots = 1;
  /// Dynamic parallelism. Grids a kernel launched run after the grid that launched them ends, each
  /// heard as a launch of its own, depth-first in the order they run (Device::runChildGrids); the
  /// grids of one host launch make a launch tree, numbered in that order from its root's 0.
  uint32_t depth = 0;      ///< 0: launched by the host
  uint64_t treeGrid = 0;   ///< this grid's number in its tree
  uint64_t parentGrid = 0; ///< depth > 0: the number of the grid that launched it
  GridOrigin origin{};     ///< depth > 0: where in it
  /// The device runtime's parameter buffers ([base, base + bytes); 0 bytes: none): driver memory the
  /// launching threads fill and the launch consumes, reused from launch to launch.
  uint64_t parameterBuffersBase = 0, parameterBuffersBytes = 0;
};

class Listener {
public:
  virtual ~Listener() = default;
  // Execution.
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
  virtual void onWarpSync(const WarpRef &, const WarpSyncEvent &) {}
  virtual void onExit(const WarpRef &, const ExitEvent &) {}
  virtual void onHeap(const WarpRef &, const HeapEvent &) {}
  virtual void onMbarrier(const WarpRef &, const MbarrierEvent &) {}
  /// Dynamic parallelism: the `lanes` of the warp launched a grid each (cudaLaunchDeviceV2 accepted
  /// it; the grid is heard after this one ends, vm::LaunchInfo::depth).
  virtual void onChildLaunch(const WarpRef &, uint32_t /*lanes*/) {}
  /// The grid's warps waited on their clock (code that spins on %clock64 until a time has passed):
  /// the modeled cycles from the grid's start to the latest clock read (LaunchResult::clockCycles for
  /// a host launch), heard just before onLaunchEnd, for every grid of a launch tree that read it.
  virtual void onClockWait(uint64_t /*cycles*/) {}
  // Device memory, from the host (tools that keep shadow state of it: initcheck).
  /// A new allocation (its bytes are zero, but a tool may treat them as never written).
  virtual void onAllocate(const Allocation & /*allocation*/) {}
  virtual void onRelease(const Allocation & /*allocation*/) {}
  /// [address, address + bytes) of a live allocation was written from the host: a copy, a memset, a
  /// module variable written by name.
  virtual void onHostWrite(uint64_t /*address*/, uint64_t /*bytes*/) {}
};

} // namespace ptxray::vm
