// The occupancy rules. Comments give the rule's source: [OCC] cuda_occupancy.h (CUDA 13), [OCC7] its
// CUDA 6.5/7.0 edition for CC 1.x/2.x, [BPG] the OpenCL Best Practices Guide.
#include "arch/OccupancyCalculator.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ptxray::arch {
namespace {

constexpr int kPercent = 100;

// Warps and registers per block are counted in 64 bits: any int the caller passes is accepted, and
// 10^9 threads of 32 registers need 3.2 * 10^10 registers, which an int would wrap. The largest
// product, INT_MAX registers x 32 lanes x 2^26 warps (INT_MAX threads), stays below 2^63.
long long divideRoundUp(long long value, long long divisor) {
  return (value + divisor - 1) / divisor;
}
long long roundUp(long long value, long long multiple) {
  return divideRoundUp(value, multiple) * multiple;
}

// Shared memory sizes are std::size_t from the caller; their sums are checked, since a request that
// wrapped round to a few bytes would be reported as fitting.
std::optional<std::size_t> addBytes(std::size_t a, std::size_t b) {
  if (a > std::numeric_limits<std::size_t>::max() - b)
    return std::nullopt;
  return a + b;
}
std::optional<std::size_t> roundUpBytes(std::size_t value, std::size_t multiple) {
  std::size_t remainder = value % multiple;
  return remainder == 0 ? std::optional<std::size_t>(value) : addBytes(value, multiple - remainder);
}

/// Warps of a block before allocation granularity. Not ComputeCapability::warpsPerBlock: its int sum
/// overflows for a block within a warp of INT_MAX threads.
long long warpsOf(const ComputeCapability &cc, int threadsPerBlock) {
  return divideRoundUp(threadsPerBlock, cc.warpSize);
}

void fail(OccupancyResult &result, LaunchFailure failure, const std::string &why) {
  result.launchFailures.push_back(failure);
  result.launchError += (result.launchError.empty() ? "" : "; ") + why;
}

std::string bytes(std::size_t count) {
  return std::to_string(count) + " bytes";
}

/// Smallest configurable carveout holding `size`; nullopt when none does.
std::optional<std::size_t> alignUpToCarveout(const ComputeCapability &cc, std::size_t size) {
  for (int carveout : cc.sharedCarveoutsBytes)
    if (static_cast<std::size_t>(carveout) >= size)
      return static_cast<std::size_t>(carveout);
  return std::nullopt;
}

/// Shared memory the application asked the SM to provide ([OCC] cudaOccSMemPerMultiprocessor).
std::size_t preferredSharedPerSm(const ComputeCapability &cc, const OccupancyInput &input) {
  if (cc.sharedCarveoutsBytes.empty())
    return static_cast<std::size_t>(cc.sharedByCacheConfig ? cc.sharedByCacheConfig->forConfig(input.cacheConfig)
                                                           : cc.sharedPerSm);
  std::optional<int> percent = input.carveoutPercent;
  if (!percent) { // the legacy cache preference maps onto a carveout [OCC]
    switch (input.cacheConfig) {
    case CacheConfig::PreferL1: percent = kCarveoutMaxL1; break;
    case CacheConfig::PreferShared: percent = kCarveoutMaxShared; break;
    case CacheConfig::PreferEqual: percent = kCarveoutHalf; break;
    case CacheConfig::PreferNone: break;
    }
  }
  if (!percent)
    return static_cast<std::size_t>(cc.sharedPerSm);
  std::size_t wanted = static_cast<std::size_t>(*percent) * static_cast<std::size_t>(cc.sharedPerSm) / kPercent;
  return alignUpToCarveout(cc, wanted).value_or(static_cast<std::size_t>(cc.sharedPerSm));
}

int registerUnitFor(const ComputeCapability &cc, int registersPerThread) {
  const auto &wide = cc.registerCountsWithWideUnit;
  return std::find(wide.begin(), wide.end(), registersPerThread) != wide.end() ? cc.wideRegisterAllocationUnit
                                                                               : cc.registerAllocationUnit;
}

struct RegisterLimit {
  std::optional<int> blocks; ///< nullopt: no registers used
  bool fits = true;
  long long allocatedPerBlock = 0;
  PartitionedGlobalCaching caching = PartitionedGlobalCaching::Off;
};

/// [OCC] cudaOccMaxBlocksPerSMRegsLimit for per-warp allocation, with `partitions` register file parts.
RegisterLimit perWarpRegisterLimit(const ComputeCapability &cc, const OccupancyInput &input, long long warps,
                                   int partitions, PartitionedGlobalCaching caching) {
  RegisterLimit limit;
  long long perWarp = roundUp(static_cast<long long>(input.registersPerThread) * cc.warpSize,
                              registerUnitFor(cc, input.registersPerThread));
  limit.allocatedPerBlock = perWarp * warps;
  // The hardware checks the per-block limit as if every partition got the block's warps [OCC].
  long long assumedPerBlock = perWarp * roundUp(warps, partitions);
  limit.caching = caching;
  if (assumedPerBlock > cc.maxRegistersPerBlock || limit.allocatedPerBlock > cc.maxRegistersPerBlock) {
    limit.fits = false;
    limit.blocks = 0;
    return limit;
  }
  if (perWarp == 0)
    return limit;
  // Past the per-block check, perWarp and warps are small enough for every product below.
  long long warpsPerPartition = cc.registersPerSm / partitions / perWarp;
  long long blocks = 0;
  if (caching != PartitionedGlobalCaching::Off) { // a block is confined to one part of the SM [OCC]
    int parts = cc.globalCachingSmPartitions;
    blocks = warpsPerPartition * (partitions / parts) / warps * parts;
  }
  if (blocks == 0 && caching != PartitionedGlobalCaching::OnStrict) { // caching turns itself off [OCC]
    limit.caching = PartitionedGlobalCaching::Off;
    blocks = warpsPerPartition * partitions / warps;
  }
  limit.blocks = static_cast<int>(blocks);
  return limit;
}

RegisterLimit registerLimit(const ComputeCapability &cc, const OccupancyInput &input, long long warps,
                            PartitionedGlobalCaching caching) {
  if (cc.registerAllocationGranularity == RegisterAllocationGranularity::Block) { // [OCC7], [BPG] §4.2
    RegisterLimit limit;
    limit.allocatedPerBlock =
        roundUp(static_cast<long long>(input.registersPerThread) * cc.warpSize * warps, cc.registerAllocationUnit);
    if (limit.allocatedPerBlock > cc.maxRegistersPerBlock) {
      limit.fits = false;
      limit.blocks = 0;
    } else if (limit.allocatedPerBlock > 0) {
      limit.blocks = static_cast<int>(cc.registersPerSm / limit.allocatedPerBlock);
    }
    return limit;
  }
  RegisterLimit limit = perWarpRegisterLimit(cc, input, warps, cc.registerFilePartitions, caching);
  if (cc.registerFitCheckPartitions != cc.registerFilePartitions && limit.blocks.value_or(1) > 0) {
    // GP100 only admits blocks that would also fit GP10x's register file [OCC].
    RegisterLimit other = perWarpRegisterLimit(cc, input, warps, cc.registerFitCheckPartitions, limit.caching);
    if (other.blocks && *other.blocks == 0) {
      limit.blocks = 0;
      limit.fits = other.fits;
    }
  }
  return limit;
}

void computeSharedLimit(const ComputeCapability &cc, const OccupancyInput &input, OccupancyResult &result) {
  std::size_t reserved = static_cast<std::size_t>(cc.sharedReservedPerBlock);
  std::optional<std::size_t> requested;
  if (auto data = addBytes(input.staticSharedBytes, input.dynamicSharedBytes))
    requested = addBytes(*data, reserved);
  std::optional<std::size_t> allocated;
  if (requested)
    allocated = roundUpBytes(*requested, static_cast<std::size_t>(cc.sharedAllocationUnit));
  std::size_t defaultLimit = static_cast<std::size_t>(cc.sharedPerBlock);
  std::size_t optInLimit = static_cast<std::size_t>(cc.sharedPerBlockOptIn);
  // The opt-in limit applies once the block asks for more than the default [OCC] cudaOccSMemPerBlock.
  bool optIn = input.sharedMemoryOptIn && optInLimit > defaultLimit && (!requested || *requested > defaultLimit);
  std::size_t perBlockLimit = (optIn ? optInLimit : defaultLimit) + reserved;
  result.allocatedSharedBytesPerBlock = allocated.value_or(std::numeric_limits<std::size_t>::max());
  std::size_t preferred = preferredSharedPerSm(cc, input);
  result.sharedBytesPerSm = preferred;
  if (!allocated || *allocated > perBlockLimit) {
    result.limits.sharedMemory = 0;
    // Past SIZE_MAX there is no byte count to print; the two sizes asked for say it.
    std::string need = allocated ? "the block needs " + bytes(*allocated) + " of shared memory"
                                 : "the block asks for " + bytes(input.staticSharedBytes) + " of static and " +
                                       bytes(input.dynamicSharedBytes) + " of dynamic shared memory";
    fail(result, LaunchFailure::TooMuchSharedMemory,
         need + ", more than the " + bytes(perBlockLimit) + " a block may use on " + cc.smName() +
             (optIn ? " even with the opt-in" : ""));
    return;
  }
  std::size_t allocatedBytes = *allocated;
  result.sharedMemoryOptInRequired = allocatedBytes > defaultLimit + reserved;
  if (preferred < allocatedBytes) // the preference is overridden when one block would not fit [OCC]
    result.sharedBytesPerSm =
        cc.sharedCarveoutsBytes.empty()
            ? static_cast<std::size_t>(cc.sharedPerSm)
            : alignUpToCarveout(cc, allocatedBytes).value_or(static_cast<std::size_t>(cc.sharedPerSm));
  if (allocatedBytes > 0)
    result.limits.sharedMemory = static_cast<int>(result.sharedBytesPerSm / allocatedBytes);
}

void validate(const OccupancyInput &input) {
  if (input.threadsPerBlock < 1)
    throw std::invalid_argument("threads per block must be at least 1");
  if (input.registersPerThread < 0)
    throw std::invalid_argument("registers per thread cannot be negative");
  if (input.barriersPerBlock < 0)
    throw std::invalid_argument("barriers per block cannot be negative");
  if (input.carveoutPercent && (*input.carveoutPercent < kCarveoutMaxL1 || *input.carveoutPercent > kPercent))
    throw std::invalid_argument("the shared memory carveout is a percentage, 0 to 100");
}

} // namespace

std::string_view resourceName(OccupancyResource resource) {
  switch (resource) {
  case OccupancyResource::Warps: return "warps";
  case OccupancyResource::Registers: return "registers";
  case OccupancyResource::SharedMemory: return "shared_memory";
  case OccupancyResource::Blocks: return "blocks";
  case OccupancyResource::Barriers: return "barriers";
  }
  return "";
}

std::optional<int> BlockLimits::of(OccupancyResource resource) const {
  switch (resource) {
  case OccupancyResource::Warps: return warps;
  case OccupancyResource::Registers: return registers;
  case OccupancyResource::SharedMemory: return sharedMemory;
  case OccupancyResource::Blocks: return blocks;
  case OccupancyResource::Barriers: return barriers;
  }
  return std::nullopt;
}

OccupancyResult computeOccupancy(const ComputeCapability &cc, const OccupancyInput &input) {
  validate(input);
  OccupancyResult result;
  result.maxWarpsPerSm = cc.maxWarpsPerSm;
  long long warps = roundUp(warpsOf(cc, input.threadsPerBlock), cc.warpAllocationGranularity);
  result.allocatedWarpsPerBlock = static_cast<int>(warps); // at most INT_MAX / warp size, rounded up

  PartitionedGlobalCaching caching =
      cc.globalCachingSmPartitions > 0 ? input.partitionedGlobalCaching : PartitionedGlobalCaching::Off;
  RegisterLimit registers = registerLimit(cc, input, warps, caching);
  result.limits.registers = registers.blocks;
  result.allocatedRegistersPerBlock = registers.allocatedPerBlock;
  bool registersAddressable = input.registersPerThread <= cc.maxRegistersPerThread;
  // Caching only turns itself off for a block that is otherwise launchable [OCC].
  result.partitionedGlobalCachingEnabled =
      (registersAddressable ? registers.caching : caching) != PartitionedGlobalCaching::Off;

  if (input.threadsPerBlock > cc.maxThreadsPerBlock) {
    result.limits.warps = 0;
    fail(result, LaunchFailure::TooManyThreads,
         std::to_string(input.threadsPerBlock) + " threads per block exceed the " +
             std::to_string(cc.maxThreadsPerBlock) + " a block may have on " + cc.smName());
  } else if (result.partitionedGlobalCachingEnabled) {
    int parts = cc.globalCachingSmPartitions; // half the warp slots per block [OCC]
    result.limits.warps = static_cast<int>(cc.maxWarpsPerSm / parts / warps * parts);
  } else {
    result.limits.warps = static_cast<int>(cc.maxWarpsPerSm / warps);
  }
  if (!registersAddressable) {
    result.limits.registers = 0;
    fail(result, LaunchFailure::TooManyRegistersPerThread,
         std::to_string(input.registersPerThread) + " registers per thread exceed the " +
             std::to_string(cc.maxRegistersPerThread) + " a thread can address on " + cc.smName());
  } else if (!registers.fits) {
    fail(result, LaunchFailure::TooManyRegistersPerBlock,
         "the block needs " + std::to_string(registers.allocatedPerBlock) + " registers, more than the " +
             std::to_string(cc.maxRegistersPerBlock) + " a block may use on " + cc.smName());
  }
  result.limits.blocks = cc.maxBlocksPerSm;
  computeSharedLimit(cc, input, result);
  if (cc.blockBarriersPerSm && input.barriersPerBlock > 0)
    result.limits.barriers = *cc.blockBarriersPerSm / input.barriersPerBlock;

  constexpr OccupancyResource kAll[] = {OccupancyResource::Warps, OccupancyResource::Registers,
                                        OccupancyResource::SharedMemory, OccupancyResource::Blocks,
                                        OccupancyResource::Barriers};
  int active = cc.maxBlocksPerSm;
  for (OccupancyResource resource : kAll)
    if (auto limit = result.limits.of(resource))
      active = std::min(active, *limit);
  for (OccupancyResource resource : kAll)
    if (result.limits.of(resource) == active)
      result.limiters.push_back(resource);
  result.activeBlocksPerSm = active;
  // No block of more than the SM's warps is ever active, so the product fits an int.
  result.activeWarpsPerSm = static_cast<int>(active * warpsOf(cc, input.threadsPerBlock));
  result.occupancy = static_cast<double>(result.activeWarpsPerSm) / cc.maxWarpsPerSm;
  return result;
}

std::optional<std::size_t> availableDynamicSharedBytes(const ComputeCapability &cc, const OccupancyInput &input,
                                                       int blocksPerSm) {
  if (blocksPerSm < 1)
    return std::nullopt;
  OccupancyInput withoutDynamic = input;
  withoutDynamic.dynamicSharedBytes = 0;
  if (computeOccupancy(cc, withoutDynamic).activeBlocksPerSm < blocksPerSm)
    return std::nullopt;
  std::size_t reserved = static_cast<std::size_t>(cc.sharedReservedPerBlock);
  std::size_t unit = static_cast<std::size_t>(cc.sharedAllocationUnit);
  std::size_t perBlockLimit =
      static_cast<std::size_t>(input.sharedMemoryOptIn ? cc.sharedPerBlockOptIn : cc.sharedPerBlock) + reserved;
  // One block may take the whole per-block limit; several share the SM's preferred size [OCC]. With a
  // zero carveout the driver still provides its smallest non-zero configuration.
  std::size_t perSm = perBlockLimit;
  if (blocksPerSm > 1) {
    perSm = preferredSharedPerSm(cc, input);
    if (perSm == 0)
      perSm = alignUpToCarveout(cc, 1).value_or(0);
  }
  std::size_t share = std::min(perSm / static_cast<std::size_t>(blocksPerSm) / unit * unit, perBlockLimit);
  // The header forgets the reserved bytes here. A sum past SIZE_MAX leaves nothing.
  std::optional<std::size_t> used = addBytes(input.staticSharedBytes, reserved);
  return used && share > *used ? share - *used : 0;
}

LaunchConfiguration suggestLaunchConfiguration(const ComputeCapability &cc, const OccupancyInput &input, int smCount,
                                               const std::function<std::size_t(int)> &dynamicSharedForBlockSize,
                                               std::optional<int> kernelMaxThreadsPerBlock) {
  LaunchConfiguration best;
  int limit = std::min(cc.maxThreadsPerBlock, kernelMaxThreadsPerBlock.value_or(cc.maxThreadsPerBlock));
  int bestThreads = 0;
  // Largest block first, one warp at a time; stop at full occupancy [OCC] cudaOccMaxPotentialOccupancyBlockSize.
  for (int aligned = roundUp(limit, cc.warpSize); aligned > 0; aligned -= cc.warpSize) {
    OccupancyInput candidate = input;
    candidate.threadsPerBlock = std::min(limit, aligned);
    if (dynamicSharedForBlockSize)
      candidate.dynamicSharedBytes = dynamicSharedForBlockSize(candidate.threadsPerBlock);
    OccupancyResult result = computeOccupancy(cc, candidate);
    int threads = candidate.threadsPerBlock * result.activeBlocksPerSm;
    if (threads > bestThreads) {
      bestThreads = threads;
      best = {candidate.threadsPerBlock, result.activeBlocksPerSm, result.activeBlocksPerSm * smCount,
              result.occupancy};
    }
    if (bestThreads == cc.maxThreadsPerSm)
      break;
  }
  return best;
}

} // namespace ptxray::arch
