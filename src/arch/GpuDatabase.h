// Named GPUs (boards) and the `--arch` lookup: `sm_35`, `compute_35`, `3.5`, `35`, a GPU name, alias or
// chip, case-insensitively. The GPU table, each value with its source, is in GpuData.cpp.
#pragma once

#include "arch/ComputeCapability.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::arch {

struct Gpu {
  std::string name;                 ///< "Tesla K40"
  std::vector<std::string> aliases; ///< "k40"; matched ignoring case, spaces, '-' and '_'
  std::string chip;                 ///< "GK110B"; also accepted by findArch
  int ccMajor = 0;
  int ccMinor = 0;
  int smCount = 0;
  int baseClockMHz = 0;            ///< SM clock (the shader clock on CC 1.x/2.x)
  std::vector<int> boostClocksMHz; ///< selectable GPU Boost / application clocks, ascending
  bool dynamicBoostByDefault = false;
  /// The boost clocks are application clocks the user selects (nvidia-smi, NVML): the board runs at
  /// its base clock until then.
  bool boostIsOptIn = false;
  std::string memoryType;
  int memoryClockMHz = 0;          ///< as deviceQuery reports it
  int memoryTransfersPerClock = 0; ///< 2: double data rate
  int memoryBusWidthBits = 0;
  std::uint64_t memoryBytes = 0; ///< per GPU
  int l2CacheBytes = 0;
  std::optional<int> pcieGeneration; ///< none for integrated GPUs
  int copyEngines = 0;
  bool ecc = false;
  int gpusPerBoard = 1;
  std::optional<bool> globalL1CachingOptIn; ///< where the chip differs from its compute capability
  std::optional<int> fp64AddMulFmaPerClock; ///< where the board differs from its compute capability
  /// An empty kernel's duration, launch to completion, where measured on this board (else the
  /// compute capability's: ComputeCapability::launchOverheadNanoseconds).
  std::optional<int> launchOverheadNanoseconds;

  const ComputeCapability &computeCapability() const;
  int maxBoostClockMHz() const; ///< base clock when there is no boost
  /// The SM clock a kernel runs at on a board as shipped: the base clock where boost is opt-in (K40),
  /// else the highest boost clock (GPU Boost raises the clock by itself while power allows).
  int defaultClockMHz() const;
  bool l1CachingOptIn() const;
  int fp64ResultsPerClock() const;
  int maxConcurrentKernels() const { return computeCapability().maxResidentGrids; }
  int hyperQQueues() const { return computeCapability().hardwareWorkQueues; }
  bool dynamicParallelism() const { return computeCapability().dynamicParallelism; }
  /// [BPG] §2.2.1: memory clock x transfers per clock x bus width in bytes.
  double theoreticalBandwidthBytesPerSecond() const;
  double theoreticalBandwidthGBps() const;  ///< divided by 10^9
  double theoreticalBandwidthGiBps() const; ///< divided by 1024^3
};

/// All modeled GPUs, oldest first.
std::span<const Gpu> gpus();

/// What an `--arch` argument names: a compute capability, and the GPU when a GPU was named.
struct ArchTarget {
  const ComputeCapability *computeCapability = nullptr;
  const Gpu *gpu = nullptr;        ///< nullptr when only a compute capability was given
  std::string displayName() const; ///< "Tesla K40 (sm_35)" or "sm_35"
  /// The board whose clocks, bandwidth and link stand for the target: the named GPU, else the first
  /// board of that compute capability in the database; nullptr when there is none.
  const Gpu *board() const;
};

struct ArchLookup {
  std::optional<ArchTarget> target;
  std::string error; ///< set when target is empty: says what was expected and lists the known names
  explicit operator bool() const { return target.has_value(); }
};

ArchLookup findArch(std::string_view text);

/// Every spelling findArch documents, for help texts: compute capabilities, then GPU names.
std::vector<std::string> knownArchNames();

} // namespace ptxray::arch
