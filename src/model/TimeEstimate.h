// A first, explainable time estimate for a launch: a bound model. The launch takes as long as its
// slowest limit: issuing its instructions at the SM's per-class throughput, moving its DRAM bytes at
// the GPU's theoretical bandwidth, or waiting for memory when too few warps are resident to hide the
// latency; plus the launch overhead. Every rate comes from the arch database; it states which bound
// dominates. Calibrated against hardware in validation/model.
#pragma once

#include "arch/GpuDatabase.h"
#include "arch/OccupancyCalculator.h"
#include "model/InstructionClass.h"

#include <array>
#include <cstdint>
#include <string>

namespace ptxray::model {

enum class Bound : uint8_t { Compute, MemoryBandwidth, Latency, LaunchOverhead, Serialization };
std::string_view boundName(Bound b);

struct TimeInputs {
  std::array<uint64_t, kInstructionClasses> warpInstructionsByClass{};
  uint64_t ctas = 0;
  uint64_t memoryRequests = 0; ///< global, local, texture and surface requests (each waits for DRAM or L2)
  /// Shared wavefronts and constant transactions beyond one per request: bank conflicts and divergent
  /// constant addresses replay the instruction, each replay taking an issue slot of the memory pipe.
  uint64_t replays = 0;
  /// Constant-cache transactions beyond one per request (divergent __constant__ addresses).
  uint64_t constantReplays = 0;
  /// 128-byte lines global requests touched beyond one a request: L1 looks them up one after another
  /// (MemoryThroughput::l1LinesPerClock), holding the memory pipe.
  uint64_t l1LineReplays = 0;
  /// DRAM bytes read beyond the read footprint because DRAM reads whole access units
  /// (MemoryThroughput::dramAccessBytes), and the fills of partially written sectors never read
  /// (MemoryThroughput::partialWriteFill; they count when the footprint exceeds L2).
  uint64_t dramReadUnitExtraBytes = 0;
  uint64_t partialWriteFillBytes = 0;
  /// Shared-memory atomics: lanes that updated an address another lane of their warp also updated.
  uint64_t sharedAtomicConflicts = 0;
  /// The per-warp critical paths (WarpTiming.h): SM cycles from a CTA's start until its last warp is
  /// done, as if it ran alone on its SM; the mean over the CTAs that ran, and the longest.
  double ctaPathCycles = 0;
  double ctaPathCyclesMax = 0;
  /// Sectors the L2 served or took: loads L1 did not hold, stores, atomics (the L2 bandwidth bound).
  uint64_t l2Sectors = 0;
  uint64_t l2SectorBytes = 32;
  /// Global atomics and reductions: the L2 cycles (SM clock) of the atomic unit most of them went to
  /// (arch::Latencies::atomicSectorCycles; they serialize there).
  double hottestAtomicRegionCycles = 0;
  /// What the critical path and the L2 traffic were measured with (pathBasisOf, bytesMoved): a what-if
  /// that changes the instruction mix, the requests or the bytes scales them in proportion.
  double pathBasis = 0;
  uint64_t l2BasisBytesMoved = 0;
  uint64_t printfCalls = 0;   ///< warp-level printf calls
  uint64_t printfThreads = 0; ///< threads that called printf
  uint64_t heapThreads = 0;   ///< device malloc and free calls, per thread
  /// Global, local, texture and surface transactions' bytes (no reuse beyond one request).
  uint64_t bytesMoved = 0;
  /// Of bytesMoved, those of global requests split into one transaction per thread (CC 1.0/1.1's
  /// uncoalesced accesses): DRAM moves them at MemoryThroughput::splitDramEfficiency.
  uint64_t splitBytesMoved = 0;
  /// Distinct sectors loads, atomics, texture fetches and surface loads touched x sector size (perfect reuse).
  uint64_t readFootprintBytes = 0;
  uint64_t writeFootprintBytes = 0; ///< distinct sectors stores and surface stores touched x sector size
  /// What the kernel's accesses asked for: global bytes requested, texels fetched, surface bytes
  /// (every access counted, repeats included).
  uint64_t bytesRequested = 0;
  /// The distinct bytes the kernel read plus those it wrote, each once: the guide's effective
  /// bandwidth numerator, Br + Bw ([BPG] 2.2.2; LaunchProfile::uniqueBytesRead/Written).
  uint64_t uniqueBytes = 0;
  arch::OccupancyResult occupancy;
  /// The SM clock to estimate at, MHz: 0 is the board's default (arch::Gpu::defaultClockMHz; the
  /// base clock of a K40, whose GPU Boost is opt-in, [KTG] §1.4.6).
  int smClockMHz = 0;
};

struct TimeEstimate {
  double seconds = 0;
  double computeSeconds = 0;
  double memorySeconds = 0;
  double latencySeconds = 0;
  double launchOverheadSeconds = 0;
  double l2Seconds = 0;            ///< L2 sectors at the L2's bandwidth
  double serializationSeconds = 0; ///< same-address atomics and printf, one after another GPU-wide
  double waves = 0;                ///< rounds of resident CTAs on the busiest SM
  /// The longest a warp read its clock after the launch began (code waiting on %clock64): a floor.
  double clockWaitSeconds = 0;
  /// Dynamic parallelism: how much longer than `seconds` the grids this launch's threads launched
  /// (and theirs) keep the launch from completing (LaunchProfile::seconds()). Not in `seconds`, which
  /// is this grid's own, as its counts are.
  double childGridsSeconds = 0;
  Bound dominant = Bound::LaunchOverhead;
  uint64_t dramBytes = 0;             ///< the bytes the memory bound assumes cross the DRAM interface
  double clockHz = 0;                 ///< SM clock used (TimeInputs::smClockMHz or the board's default)
  double bandwidthBytesPerSecond = 0; ///< theoretical ([BPG] §2.2.1)
  /// [BPG] §2.2.2: (Br + Bw) / 10^9 / time, Br and Bw the distinct bytes read and written
  /// (TimeInputs::uniqueBytes): what the algorithm moves, once each.
  double effectiveBandwidthGBps = 0;
  double requestedBandwidthGBps = 0; ///< every byte the accesses asked for (TimeInputs::bytesRequested) / time
  double dramBandwidthGBps = 0;      ///< the bytes estimated to cross DRAM (dramBytes) / time
  int smCount = 0;
  std::string gpu;         ///< the board whose clocks and bandwidth were used
  std::string explanation; ///< one sentence per bound, with the numbers
};

TimeEstimate estimateTime(const arch::ArchTarget &target, const TimeInputs &in);

/// The latency the inputs' instructions and requests would take one after another (cycles): what
/// TimeInputs::pathBasis records, so that a what-if scales the measured critical path.
double pathBasisOf(const arch::ComputeCapability &cc, const TimeInputs &in);

} // namespace ptxray::model
