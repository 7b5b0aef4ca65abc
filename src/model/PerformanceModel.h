// The performance model as a VM listener: for the modeled GPU it counts, per PTX instruction, what
// the hardware would do with every warp-level event (requests and transactions of global, local,
// shared and constant memory, divergent branches, active threads), and at the end of each launch
// turns the counts into a LaunchProfile: per instruction and source line, the instruction mix, the
// occupancy of the launch and a time estimate. Per-worker state, merged at the end of the launch;
// it never changes what the kernel computes.
#pragma once

#include "arch/GpuDatabase.h"
#include "arch/OccupancyCalculator.h"
#include "model/Counters.h"
#include "model/GlobalCoalescing.h"
#include "model/InstructionClass.h"
#include "model/TimeEstimate.h"
#include "model/WarpTiming.h"
#include "vm/Events.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptxray::model {

struct ModelOptions {
  /// -Xptxas -dlcm: whether global loads without a cache operator are cached in L1 (ca) or only in
  /// L2 (cg); unset: the architecture's default. `ca` applies only where the chip allows it.
  std::optional<arch::GlobalLoadCaching> loadCaching;
  int bankWidthBytes = 0; ///< Kepler's shared-memory bank mode (4 or 8); 0: the driver's default (4)
  int smClockMHz = 0;     ///< the SM clock of the time estimate (GPU Boost); 0: the board's default
};

enum class MemoryKind : uint8_t { None, Load, Store, Atomic };

/// One PTX instruction that ran, with where it is and what it cost.
struct InstructionProfile {
  uint32_t function = 0;    ///< PTX function index
  uint32_t instruction = 0; ///< index in the function
  std::string functionName;
  std::string ptxLocation; ///< file:line:col of the PTX
  std::string ptxText;
  std::string sourceFile; ///< innermost CUDA position (empty without line information)
  uint32_t sourceLine = 0;
  std::string inlinedAt; ///< "file:line inlined into file:line ..." beyond the innermost position
  InstructionClass cls = InstructionClass::Other;
  MemoryKind memory = MemoryKind::None;
  /// A shared access ptxas merges into a vector access (MergedAccesses.h): Merged ones issue with
  /// their group's first and are not in the time model's issued instructions.
  MergedRole merged = MergedRole::None;
  InstructionCounters counters;
};

/// A grid a kernel launched (dynamic parallelism), as its launch tree's schedule placed it. The
/// tree's root, the host's launch, lists them all (LaunchProfile::childGrids).
struct ChildGrid {
  size_t profile = 0;      ///< its own profile, in PerformanceModel::launches()
  uint32_t depth = 1;      ///< 1: launched by the root grid
  int64_t parent = -1;     ///< the launching grid, an index in the root's childGrids; -1: the root
  vm::GridOrigin origin{}; ///< where in the parent it was launched, into which stream
  std::string kernel;      ///< C++ name
  vm::Dim3 grid, block;
  double ownSeconds = 0;   ///< its own time estimate (LaunchProfile::time.seconds)
  double gpuShare = 0;     ///< the share of the GPU's resident blocks its grid fills (at most 1)
  double startSeconds = 0; ///< when it begins, after the root grid began
  double endSeconds = 0;   ///< when it and the grids it launched are done, after the root began
};

struct LaunchProfile {
  /// The module the kernel came from: valid while the device that ran it lives (during the run's
  /// onLaunch callback), for stages that read the PTX beside the counts (the advisor).
  const ptx::Module *module = nullptr;
  std::string kernel;    ///< PTX name
  std::string demangled; ///< C++ name
  vm::Dim3 grid, block;
  uint64_t staticSharedBytes = 0;
  uint64_t dynamicSharedBytes = 0;
  uint32_t registersPerThread = 0;
  std::string arch;           ///< display name of the modeled GPU
  uint64_t ctas = 0;          ///< CTAs in the grid
  uint64_t ctasSimulated = 0; ///< CTAs that ran; fewer with sampling, whose counts are scaled to the grid
  /// Dynamic parallelism. A grid a kernel launched has a profile of its own, after its parent's
  /// (depth > 0, parentProfile). The host's launch, the tree's root, lists every grid of its tree in
  /// the order they ran, with the schedule the time model gave them; its time.childGridsSeconds is
  /// how much longer than its own grid the tree takes (seconds()).
  uint32_t depth = 0;
  int64_t parentProfile = -1; ///< depth > 0: the launching grid's profile, in PerformanceModel::launches()
  std::vector<ChildGrid> childGrids;
  /// The time the host waits for the launch: its grid's and, with dynamic parallelism, those of
  /// every grid it launched.
  double seconds() const { return time.seconds + time.childGridsSeconds; }
  std::vector<InstructionProfile> instructions; ///< every instruction executed, by function and index
  InstructionCounters total;
  std::array<uint64_t, kInstructionClasses> warpInstructionsByClass{};
  arch::OccupancyResult occupancy;
  /// What the launch's accesses touched, in footprint granules (L2 sectors; the smallest transaction
  /// on CC 1.x) x the granule's bytes, scaled to the grid when sampling. Read: loads (ld, ld.global.nc,
  /// ldu), atomics and reductions, texture fetches and surface loads; written: stores and surface
  /// stores. The overlap is what loads, texture fetches and surface loads read that stores, surface
  /// stores, atomics or reductions also wrote during the launch: 0 means every load reads data the
  /// launch never modifies (a candidate for the read-only cache: `const __restrict__`, `__ldg`).
  uint64_t readFootprintBytes = 0;
  uint64_t writeFootprintBytes = 0;
  uint64_t readWriteOverlapBytes = 0;
  /// The guide's Br and Bw ([BPG] 2.2.2): the distinct bytes of global memory (and textures and
  /// surfaces) the launch read and wrote, each byte once however often it was accessed, scaled to the
  /// grid when sampling. An atomic both reads and writes its bytes; local memory is not counted.
  uint64_t uniqueBytesRead = 0;
  uint64_t uniqueBytesWritten = 0;
  /// The exact inputs of the time estimate below: estimateTime(target, modified inputs) answers
  /// what-if questions (fewer bytes, more occupancy, ...).
  TimeInputs timeInputs;
  TimeEstimate time;
};

class PerformanceModel : public vm::Listener {
public:
  PerformanceModel(const arch::ArchTarget &target, ModelOptions options = {});
  ~PerformanceModel() override;

  const std::vector<LaunchProfile> &launches() const { return launches_; }
  /// What the program configured for the next launches (cudaDeviceSetSharedMemConfig,
  /// cudaFuncSetCacheConfig...): Kepler's bank width (4 or 8; 0: the driver's default) and the cache
  /// preference the occupancy takes (the shared memory an SM offers under it).
  void setLaunchConfiguration(int bankWidthBytes, arch::CacheConfig cacheConfig) {
    options_.bankWidthBytes = bankWidthBytes;
    cacheConfig_ = cacheConfig;
  }
  /// The profile of the last host launch, the root of its launch tree (whose child grids come after
  /// it), or nullptr if it has none. The first call after the launch finishes it: its child grids
  /// are placed in time.
  const LaunchProfile *finishHostLaunch();

  void onLaunchBegin(const vm::LaunchInfo &info) override;
  void onLaunchEnd() override;
  /// A grid lasts at least as long as its warps waited on their clock (noteClockWait).
  void onClockWait(uint64_t cycles) override { clockWaitCycles_ = cycles; }
  void onCtaBegin(unsigned worker, vm::Dim3 cta) override;
  void onCtaEnd(unsigned worker, vm::Dim3 cta) override;
  void onBarrier(const vm::WarpRef &warp, const vm::BarrierEvent &e) override;
  void onHeap(const vm::WarpRef &warp, const vm::HeapEvent &e) override;
  void onInstruction(const vm::WarpRef &warp, const vm::InstructionEvent &e) override;
  void onMemory(const vm::WarpRef &warp, const vm::MemoryEvent &e) override;
  void onBranch(const vm::WarpRef &warp, const vm::BranchEvent &e) override;

private:
  struct Worker;
  std::unique_ptr<Worker> makeWorker() const;
  InstructionCounters &counters(const vm::WarpRef &warp, uint32_t instruction);
  GlobalPath globalPath(const vm::MemoryEvent &e) const;
  void globalAccess(const vm::WarpRef &warp, const vm::MemoryEvent &e, const WarpAccess &access,
                    InstructionCounters &c);
  void textureAccess(const vm::WarpRef &warp, const vm::MemoryEvent &e, InstructionCounters &c);
  const FunctionTiming &timing(Worker &w, const vm::DecodedFunction &function) const;
  uint64_t dramCycles() const; ///< an L2 miss, cycles
  uint64_t workerCount() const { return std::max<uint64_t>(launch_.workers, 1); }
  /// The warp's last issued instruction (the access `e`) completes `latency` cycles after it issued.
  void completeAccess(Worker &w, const vm::WarpRef &warp, uint64_t latency) const;
  /// SM cycles the running CTA's current phase needs to issue what it issued so far (its busiest
  /// pipe or its issue slots; the classes' cycles added up before Volta's independent pipes).
  uint64_t phaseFloor(const Worker &w) const;

  arch::ArchTarget target_;
  const arch::ComputeCapability &cc_;
  ModelOptions options_;
  arch::CacheConfig cacheConfig_ = arch::CacheConfig::PreferNone; ///< the launches' cache preference
  uint64_t footprintGranule_;
  uint64_t textureGranule_; ///< bytes of one texture or surface transaction (arch textureTransactionBytes)
  uint64_t l2Bytes_ = 0;    ///< the board's L2
  uint32_t fullSectorBits_; ///< the touched-byte bits of a whole footprint granule
  /// CC 5.0+: a global request is one instruction, its transactions the sectors (= granules) it touches.
  bool sectorsAreGranules_;
  double memoryPipeCyclesPerReplay_; ///< SM cycles a shared-memory replay holds the memory pipe
  vm::LaunchInfo launch_;
  uint32_t warpsPerCta_ = 1;
  uint32_t registerStride_ = 1;
  uint32_t reorderWindow_ = 1; ///< ready times per warp: the most registers of any function of the module
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<LaunchProfile> launches_;
  /// The current launch tree: its root's index in launches_, and each heard grid's profile by its
  /// number in the tree (vm::LaunchInfo::treeGrid; -1: it ended without a profile).
  size_t treeRoot_ = 0;
  std::vector<int64_t> treeProfiles_;
  bool treeFinished_ = true;
  void noteClockWait(LaunchProfile &profile, uint64_t cycles);
  uint64_t clockWaitCycles_ = 0; ///< the running grid's (onClockWait)
  /// Places the current tree's child grids in time (arch::DeviceLaunchCosts) and sets its root's
  /// time.childGridsSeconds.
  void scheduleLaunchTree();
};

} // namespace ptxray::model
