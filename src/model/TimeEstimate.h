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

enum class Bound : uint8_t { Compute, MemoryBandwidth, Latency, LaunchOverhead };
std::string_view boundName(Bound b);

struct TimeInputs {
  std::array<uint64_t, kInstructionClasses> warpInstructionsByClass{};
  uint64_t ctas = 0;
  uint64_t memoryRequests = 0; ///< global, local, texture and surface requests (each waits for DRAM or L2)
  /// Shared wavefronts and constant transactions beyond one per request: bank conflicts and divergent
  /// constant addresses replay the instruction, each replay taking an issue slot of the memory pipe.
  uint64_t replays = 0;
  /// Global, local, texture and surface transactions' bytes (no reuse beyond one request).
  uint64_t bytesMoved = 0;
  /// Distinct sectors loads, atomics, texture fetches and surface loads touched x sector size (perfect reuse).
  uint64_t readFootprintBytes = 0;
  uint64_t writeFootprintBytes = 0; ///< distinct sectors stores and surface stores touched x sector size
  /// What the kernel read and wrote: global bytes requested, texels fetched, surface bytes (the
  /// guide's effective bandwidth numerator).
  uint64_t bytesRequested = 0;
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
  /// The longest a warp read its clock after the launch began (code waiting on %clock64): a floor.
  double clockWaitSeconds = 0;
  Bound dominant = Bound::LaunchOverhead;
  uint64_t dramBytes = 0;             ///< the bytes the memory bound assumes cross the DRAM interface
  double clockHz = 0;                 ///< SM clock used (TimeInputs::smClockMHz or the board's default)
  double bandwidthBytesPerSecond = 0; ///< theoretical ([BPG] §2.2.1)
  double effectiveBandwidthGBps = 0;  ///< [BPG] §2.2.2: (bytes read + written) / 10^9 / time
  int smCount = 0;
  std::string gpu;         ///< the board whose clocks and bandwidth were used
  std::string explanation; ///< one sentence per bound, with the numbers
};

TimeEstimate estimateTime(const arch::ArchTarget &target, const TimeInputs &in);

} // namespace ptxray::model
