// Theoretical occupancy of a launch on one SM, computed the way NVIDIA's occupancy calculator does
// (cuda_occupancy.h for CC 3.x-12.0, its CUDA 6.5/7.0 rules for CC 1.x/2.x), plus the launch configurator
// (cudaOccupancyMaxPotentialBlockSize) and the dynamic shared memory still available per block.
// Every architectural number comes from the ComputeCapability passed in.
#pragma once

#include "arch/ComputeCapability.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::arch {

/// cudaOccPartitionedGCConfig: only 5.2 and 6.1 have partitioned global caching; elsewhere it is Off.
enum class PartitionedGlobalCaching { Off, On, OnStrict };

/// cudaSharedmemCarveout: percent of the SM's maximum shared memory (CUDA API constants).
inline constexpr int kCarveoutMaxL1 = 0;
inline constexpr int kCarveoutHalf = 50;
inline constexpr int kCarveoutMaxShared = 100;

struct OccupancyInput {
  int threadsPerBlock = 0;
  int registersPerThread = 0;
  std::size_t staticSharedBytes = 0;
  std::size_t dynamicSharedBytes = 0;
  CacheConfig cacheConfig = CacheConfig::PreferNone;
  std::optional<int> carveoutPercent; ///< CC 7.0+, 0-100; takes precedence over cacheConfig there
  PartitionedGlobalCaching partitionedGlobalCaching = PartitionedGlobalCaching::Off;
  bool sharedMemoryOptIn = true; ///< cudaFuncSetAttribute(MaxDynamicSharedMemorySize) raises the block limit
  int barriersPerBlock = 1;      ///< hardware barriers a block uses (where they limit, CC 9.0)
};

enum class OccupancyResource { Warps, Registers, SharedMemory, Blocks, Barriers };
std::string_view resourceName(OccupancyResource resource); ///< "warps", "registers", "shared_memory", ...

/// Blocks per SM each resource allows; nullopt when the resource does not limit (no registers used,
/// no shared memory used, no barrier limit on this architecture).
struct BlockLimits {
  std::optional<int> warps;
  std::optional<int> registers;
  std::optional<int> sharedMemory;
  std::optional<int> blocks;
  std::optional<int> barriers;
  std::optional<int> of(OccupancyResource resource) const;
};

/// Why a block cannot run at all ("the kernel invocation fails", [BPG] §4.4).
enum class LaunchFailure { TooManyThreads, TooManyRegistersPerThread, TooManyRegistersPerBlock, TooMuchSharedMemory };

struct OccupancyResult {
  int activeBlocksPerSm = 0;
  int activeWarpsPerSm = 0;
  int maxWarpsPerSm = 0;
  double occupancy = 0; ///< active warps / max warps, 0..1
  BlockLimits limits;
  std::vector<OccupancyResource> limiters;  ///< every resource whose limit equals activeBlocksPerSm
  int allocatedWarpsPerBlock = 0;           ///< after warp allocation granularity
  long long allocatedRegistersPerBlock = 0; ///< 64-bit: a block of 10^9 threads needs more than INT_MAX
  /// Including the driver's reserved bytes, rounded; SIZE_MAX when the request exceeds what size_t holds.
  std::size_t allocatedSharedBytesPerBlock = 0;
  std::size_t sharedBytesPerSm = 0; ///< shared memory the SM is configured with for this launch
  bool partitionedGlobalCachingEnabled = false;
  bool sharedMemoryOptInRequired = false; ///< the block only fits above the default per-block limit
  std::vector<LaunchFailure> launchFailures;
  std::string launchError; ///< empty when the block can run; otherwise every reason, "; "-separated
  bool launches() const { return launchFailures.empty(); }
};

/// Throws std::invalid_argument for a block of fewer than one thread, negative registers or barriers,
/// or a carveout outside 0-100.
OccupancyResult computeOccupancy(const ComputeCapability &cc, const OccupancyInput &input);

/// cudaOccupancyAvailableDynamicSMemPerBlock: the most dynamic shared memory a block can use while
/// `blocksPerSm` blocks of input.threadsPerBlock stay resident (input.dynamicSharedBytes is ignored).
/// nullopt when that many blocks cannot be resident even without dynamic shared memory.
std::optional<std::size_t> availableDynamicSharedBytes(const ComputeCapability &cc, const OccupancyInput &input,
                                                       int blocksPerSm);

/// cudaOccupancyMaxPotentialBlockSize: the block size with the most active threads per SM (the largest
/// such size on ties), and the smallest grid that fills the GPU at that occupancy.
struct LaunchConfiguration {
  int blockSize = 0; ///< 0 when no block size can run
  int blocksPerSm = 0;
  int minGridSize = 0; ///< blocksPerSm x SM count
  double occupancy = 0;
};

/// input.threadsPerBlock is ignored; dynamicSharedForBlockSize, when given, replaces
/// input.dynamicSharedBytes per candidate size; kernelMaxThreadsPerBlock is __launch_bounds__/.maxntid.
LaunchConfiguration suggestLaunchConfiguration(const ComputeCapability &cc, const OccupancyInput &input, int smCount,
                                               const std::function<std::size_t(int)> &dynamicSharedForBlockSize = {},
                                               std::optional<int> kernelMaxThreadsPerBlock = std::nullopt);

} // namespace ptxray::arch
