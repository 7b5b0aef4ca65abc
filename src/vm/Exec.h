// Execution state: a launch, its CTAs and their warps, and the context every micro-op handler gets.
// Warps are plain data (pc, SIMT stack, call frames, registers), never OS threads: a CTA's warps run
// one at a time on one worker until they block at a barrier or finish.
#pragma once

#include "support/MemoryBudget.h"
#include "support/Progress.h"
#include "vm/Events.h"
#include "vm/Fault.h"
#include "vm/LaunchOptions.h"
#include "vm/Memory.h"
#include "vm/Program.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace ptxray::vm {

class DeviceHeap;
class TextureTable;
class Device;
class LoadedModule;

/// One path of a warp: run `mask` from `pc` until `rpc` (where it rejoins the entry below).
struct SimtEntry {
  uint32_t pc = 0;
  uint32_t rpc = kNoSlot;
  uint32_t mask = 0;
  /// Independent thread scheduling (runWaitingLanesAhead, parkRunAheadLanes): kRunAhead marks lanes
  /// that left a reconvergence point before the rest of their warp; kParked an entry where such
  /// lanes wait at a barrier for the others.
  enum Flags : uint8_t { kRunAhead = 1, kParked = 2 };
  uint8_t flags = 0;
};

struct CallFrame {
  const DecodedFunction *function = nullptr;
  uint32_t simtBase = 0; ///< SIMT stack depth below this frame's entries
  uint32_t regBase = 0;  ///< first value slot of the frame's register window
  uint32_t predBase = 0;
  uint64_t frameBase = 0;    ///< local-memory offset of the frame
  uint32_t callPc = kNoSlot; ///< caller's call micro-op (kNoSlot for the kernel)
  uint32_t returnedMask = 0; ///< lanes that executed ret
};

struct Warp {
  uint32_t index = 0;
  uint32_t liveMask = 0; ///< lanes that exist and have not exited
  std::vector<SimtEntry> simt;
  std::vector<CallFrame> frames;
  std::vector<uint64_t> regs; ///< slot-major: regs[slot * 32 + lane]
  std::vector<uint32_t> preds;
  std::vector<std::byte> local; ///< lane-major: local[lane * localStride + offset]
  uint64_t localStride = 0;
  uint64_t clock = 0;     ///< warp instructions issued: %clock, %clock64, %globaltimer (LaunchClock)
  uint64_t clockRead = 0; ///< `clock` when the warp last read a clock register
  enum class State : uint8_t { Ready, AtBarrier, Done } state = State::Ready;
  uint32_t barrier = 0;   ///< barrier id waited on
  uint32_t barrierPc = 0; ///< micro-op of the wait (reports)
  /// Forward progress (docs/virtual-gpu.md, "SIMT execution"): backward branches since the warp last left
  /// runWarp; at kYieldQuantum it yields so that the CTA's other warps run (a spin-wait on a flag
  /// another warp sets terminates). `quantumYield` says the last yield was that one, `stateHash` is
  /// the warp's state then: a CTA whose warps all come back in the same state polls memory nothing
  /// changes (a livelock).
  uint32_t backwardBranches = 0;
  bool quantumYield = false;
  uint64_t stateHash = 0;

  /// Back to a new warp's state, keeping the vectors' storage (a worker's next CTA reuses it).
  void recycle() {
    Warp fresh;
    fresh.simt.swap(simt);
    fresh.frames.swap(frames);
    fresh.regs.swap(regs);
    fresh.preds.swap(preds);
    fresh.local.swap(local);
    fresh.simt.clear();
    fresh.frames.clear();
    *this = std::move(fresh);
  }
};

/// Backward branches a warp takes before it lets the other warps of its CTA run.
inline constexpr uint32_t kYieldQuantum = 1024;

inline constexpr int kNumBarriers = 16;

struct Cta {
  Dim3 id;
  uint64_t linearId = 0;
  std::vector<std::byte> shared;
  std::vector<std::byte> reservedShared; ///< allocated on first use (kReservedSharedOffset)
  std::vector<Warp> warps;
  struct Barrier {
    uint32_t arrived = 0;   ///< threads arrived
    uint32_t expected = 0;  ///< thread count of the current phase (0: all live threads)
    uint32_t reduction = 0; ///< bar.red accumulator (popc count or and/or)
    uint64_t waiting = 0;   ///< bit per warp (CTAs have at most 32 warps)
    // Per waiting warp: where its bar.red result goes when the barrier releases (kind 0: no bar.red).
    uint32_t redSlot[kWarpSize] = {};
    uint32_t redMask[kWarpSize] = {};
    uint8_t redKind[kWarpSize] = {};
  };
  Barrier barriers[kNumBarriers];
  uint32_t liveThreads = 0;
  /// What this storage holds of the memory budget: its registers, local and shared memory at their
  /// largest so far (the vectors keep their capacity when the storage runs the next CTA).
  support::MemoryReservation hostMemory;
};

/// Everything a launch shares between its workers.
struct LaunchState {
  const Device *device = nullptr;       ///< the GPU it runs on (the device runtime's queries)
  const LoadedModule *module = nullptr; ///< the module of `program`
  const Program *program = nullptr;
  const DecodedFunction *kernel = nullptr;
  DeviceMemory *memory = nullptr;
  DeviceHeap *heap = nullptr;
  const TextureTable *textures = nullptr; ///< texture and surface objects the host created
  std::vector<std::byte> params;
  const Allocation *constBank = nullptr;
  Dim3 grid, block;
  uint32_t sharedBytes = 0; ///< static + dynamic
  /// The shared memory the system reserves (%reserved_smem_offset_*: cooperative groups keep their
  /// multi-warp tile barriers there), at kReservedSharedOffset of the shared window.
  uint32_t reservedSharedBytes = 0;
  uint32_t smCount = 1;
  uint64_t gridId = 1;
  LaunchOptions options;
  Listener *listener = nullptr; ///< the device's (Device::setListener), null for the plain VM
  /// The terminal's progress line (support/Progress.h), null when none is shown: a block's end counts.
  support::ProgressDisplay::Launch *progressLine = nullptr;
  /// Volta's independent thread scheduling (CC 7.0+): a path of a warp that polls lets lanes of the
  /// warp waiting at a reconvergence point run on (the per-thread spin lock).
  bool independentThreadScheduling = false;
  /// CTAs the GPU keeps resident at once (occupancy x SMs): a worker starts another CTA while its
  /// own poll only up to this many (vm/Scheduler.h).
  uint64_t residentLimit = 1;
  /// A cooperative launch's grid workspace (cooperative groups' grid barrier), read through
  /// %envreg1 (high half) and %envreg2 (low half); 0 otherwise.
  uint64_t gridWorkspace = 0;
  /// An OpenCL launch's global work offset (LaunchConfig::globalOffset), read through %envreg3-5.
  std::array<uint32_t, 3> globalOffset{};
  uint32_t workDim = 1; ///< an OpenCL launch's work_dim (LaunchConfig::workDim), read through %envreg6
  /// The modeled clock (LaunchOptions::clock): a warp's %clock64 is clockBase + its instructions x
  /// cyclesPerInstruction; %globaltimer is timerBase + those cycles x nsPerCycle.
  uint64_t clockBase = 0;
  uint64_t timerBase = 0;
  uint64_t cyclesPerInstruction = 1;
  double nsPerCycle = 1;
  /// The most instructions a warp had issued when it read a clock register (LaunchResult::clockCycles).
  std::atomic<uint64_t> clockReadInstructions{0};

  /// A launch stops at its first error, as on a GPU, and which error is "first" must not depend on
  /// how the host's threads raced: an error in the block of linear index b stops the blocks from b
  /// on, while those before b run to their end or to an error of their own, and the error of the
  /// lowest block is the one kept (report). So a faulting launch reports the same thread on every
  /// run and every machine. What ends the whole launch (the instruction budget, a hang, host memory)
  /// stops every block (stopAll).
  std::atomic<uint64_t> stopFrom{kNoStop};
  static constexpr uint64_t kNoStop = ~uint64_t{0};
  /// The block of linear index `linearCta` is to stop.
  bool stopped(uint64_t linearCta) const { return stopFrom.load(std::memory_order_relaxed) <= linearCta; }
  bool anyStopped() const { return stopFrom.load(std::memory_order_relaxed) != kNoStop; }
  void stopAll() { stopFrom.store(0, std::memory_order_relaxed); }
  /// Stops the blocks from `linearCta` on (those after it, if an earlier stop was higher).
  void stopFromBlock(uint64_t linearCta) {
    uint64_t current = stopFrom.load(std::memory_order_relaxed);
    while (linearCta < current && !stopFrom.compare_exchange_weak(current, linearCta, std::memory_order_relaxed)) {
    }
  }
  std::atomic<uint64_t> instructions{0}; ///< thread-instructions retired (budget accounting)
  uint64_t budget = 0;
  /// Warp-instructions one warp may issue in the launch (budget / kWarpBudgetShare): the VM's time goes
  /// by warp-instructions, so one spinning thread (one active lane) would otherwise run 32 times as
  /// long as a full warp before the thread-instruction budget stopped it.
  uint64_t warpBudget = 0;
  /// The printf FIFO of this launch (LaunchOptions::printfFifoBytes, or CUDA's default for the GPU).
  uint64_t printfFifoBytes = 0;
  std::atomic<uint64_t> resident{0}; ///< CTAs started and not finished
  /// Scheduling rounds that changed something, over every worker: a worker whose CTAs all poll
  /// reports a hang only if no other worker made progress meanwhile.
  std::atomic<uint64_t> progress{0};
  /// Per worker (vm/Scheduler.cpp): 1 + the `progress` value during which every CTA resident on it
  /// polled a whole turn, 0 while it has not or works, kWorkerGone once it has no CTA left. A hang
  /// is reported only when all workers agree on the current value: a worker busy with a long round
  /// (slow listeners, a loaded machine) is never mistaken for a hung one.
  std::unique_ptr<std::atomic<uint64_t>[]> quietSince;
  unsigned workers = 1;
  static constexpr uint64_t kWorkerGone = ~uint64_t{0};

  /// Listener slots (WarpRef::worker) beyond the workers' own, for the extra CTAs a worker keeps
  /// resident while others poll: slots [workers, slotCount) are handed out under `mutex`, each to
  /// one worker, which reuses it for its later CTAs.
  unsigned slotCount = 1;
  unsigned nextSlot = 1;

  /// Dynamic parallelism (CDP2, vm/SystemCalls.cpp; run by Device::launch once the grid is done).
  struct ParameterBuffer {
    uint32_t function = 0; ///< the child kernel, in program->functions
    Dim3 grid, block;
    uint32_t sharedBytes = 0;
  };
  /// A grid a thread launched, or a copy or set it put into a stream (cudaMemcpy*Async and
  /// cudaMemset*Async in device code), which runs in order with the grids.
  struct ChildLaunch {
    /// Where it was launched: (CTA, thread, the thread's launch count), for an order that does not
    /// depend on how the host's threads raced, and into which stream.
    GridOrigin origin{};
    enum class Kind : uint8_t { Grid, Copy, Set } kind = Kind::Grid;
    /// A copy or a set: `depth` slices of `height` rows of `width` bytes each.
    struct Rows {
      uint64_t dst = 0, dstPitch = 0, dstSlice = 0;
      uint64_t src = 0, srcPitch = 0, srcSlice = 0; ///< a copy's
      uint64_t width = 0, height = 1, depth = 1;
      uint8_t value = 0; ///< a set's byte
    } rows;
    uint32_t function = 0;
    Dim3 grid, block;
    uint32_t sharedBytes = 0;
    std::vector<std::byte> params;
  };
  static constexpr uint64_t kTailLaunchStream = GridOrigin::kTailLaunchStream;
  static constexpr uint64_t kFireAndForgetStream = GridOrigin::kFireAndForgetStream;
  DeviceHeap *launchArena = nullptr;                    ///< where parameter buffers live
  std::map<uint64_t, ParameterBuffer> parameterBuffers; ///< handed out and not yet launched, by address
  std::vector<ChildLaunch> children;
  std::unordered_map<uint64_t, uint32_t> launchesByThread; ///< by (CTA, thread): ChildLaunch::sequence
  std::unordered_map<uint64_t, uint32_t> lastErrors;       ///< by (CTA, thread): cudaGetLastError's
  /// Child grids pending in the whole tree (LaunchOptions::pendingLaunchLimit), shared with the
  /// children's own launches.
  std::shared_ptr<std::atomic<uint64_t>> pendingLaunches;
  uint32_t depth = 0;                   ///< 0 for a grid the host launched, 1 for its children...
  uint64_t treeGrid = 0;                ///< its number in the launch tree (LaunchInfo::treeGrid)
  std::shared_ptr<uint64_t> gridsHeard; ///< the tree's count of grids the listener heard
  uint64_t streamsCreated = 0;          ///< device-side cudaStreamCreateWithFlags
  uint64_t eventsCreated = 0;           ///< device-side cudaEventCreateWithFlags

  std::mutex mutex; ///< guards faults, printf output, slots and the dynamic-parallelism state
  std::vector<Fault> faults;
  uint64_t faultCount = 0; ///< every fault, also those past options.maxFaults
  std::string printfOutput;
  std::string assertOutput; ///< failed device assertions, which a GPU prints on stderr
  bool assertFailed = false;

  void report(Fault fault);
};

/// Local memory per thread a CTA of `kernel` starts with: the kernel's frame, in 16-byte units (calls
/// grow it: ensureLocal).
inline uint64_t initialLocalBytes(const DecodedFunction &kernel) {
  return std::max<uint64_t>((uint64_t{kernel.frameBytes} + 15) / 16 * 16, 16);
}

/// The host memory the VM's state of one CTA of the launch takes when it starts: each warp's registers
/// (a 64-bit slot per lane), predicates and local memory, and the CTA's shared memory. What a worker
/// reserves of the memory budget per CTA it keeps resident.
inline uint64_t ctaHostBytes(const LaunchState &L, uint64_t localBytes) {
  const uint64_t warps = (L.block.count() + kWarpSize - 1) / kWarpSize;
  const uint64_t perWarp = sizeof(Warp) + uint64_t{L.kernel->numValueSlots} * kWarpSize * sizeof(uint64_t) +
                           uint64_t{L.kernel->numPredSlots} * sizeof(uint32_t) + localBytes * kWarpSize;
  return sizeof(Cta) + L.sharedBytes + warps * perWarp;
}

/// The state a micro-op handler works on: the warp being run and its current path.
struct ExecContext {
  LaunchState *launch = nullptr;
  Cta *cta = nullptr;
  Warp *warp = nullptr;
  unsigned worker = 0;
  const DecodedFunction *fn = nullptr;
  const uint64_t *constPool = nullptr;
  uint64_t *regs = nullptr;
  uint32_t *preds = nullptr;
  uint32_t active = 0; ///< lanes on the current path
  uint32_t exec = 0;   ///< active lanes whose guard held: the lanes an instruction acts on
  uint32_t pc = 0;     ///< the micro-op being executed; handlers that jump set nextPc
  uint32_t nextPc = 0;
  bool yield = false; ///< stop running this warp (barrier, exit, fault)
  Listener *listener = nullptr;

  const uint64_t *in(uint32_t ref) const {
    return (ref & kConstBit) ? constPool + uint64_t{ref & ~kConstBit} * kWarpSize : regs + uint64_t{ref} * kWarpSize;
  }
  uint64_t *out(uint32_t slot) { return regs + uint64_t{slot} * kWarpSize; }
  uint32_t &pred(uint32_t slot) { return preds[slot]; }
  uint64_t frameBase() const { return warp->frames.back().frameBase; }

  /// Reports a fault at the current instruction for `lane`; stops the launch unless in memcheck mode.
  void fault(FaultKind kind, int lane, std::string detail, uint64_t address = 0, uint32_t size = 0,
             Space space = Space::Global, bool isWrite = false);
  WarpRef warpRef() const;
  Dim3 threadIdOf(int lane) const;
};

/// Calls f(lane) for every lane in mask; a full mask is a plain loop the compiler can vectorize.
template <class F> inline void forLanes(uint32_t mask, F &&f) {
  if (mask == kFullMask) {
    for (int lane = 0; lane < kWarpSize; ++lane)
      f(lane);
    return;
  }
  while (mask) {
    int lane = std::countr_zero(mask);
    mask &= mask - 1;
    f(lane);
  }
}

template <class T> inline T bitsAs(uint64_t v) {
  if constexpr (sizeof(T) == 8)
    return std::bit_cast<T>(v);
  else if constexpr (sizeof(T) == 4)
    return std::bit_cast<T>(static_cast<uint32_t>(v));
  else if constexpr (sizeof(T) == 2)
    return std::bit_cast<T>(static_cast<uint16_t>(v));
  else
    return std::bit_cast<T>(static_cast<uint8_t>(v));
}

/// Register bits of a value: zero-extended to 64 bits (readers truncate to their type's width).
template <class T> inline uint64_t asBits(T v) {
  if constexpr (sizeof(T) == 8)
    return std::bit_cast<uint64_t>(v);
  else if constexpr (sizeof(T) == 4)
    return std::bit_cast<uint32_t>(v);
  else if constexpr (sizeof(T) == 2)
    return std::bit_cast<uint16_t>(v);
  else
    return std::bit_cast<uint8_t>(v);
}

} // namespace ptxray::vm
