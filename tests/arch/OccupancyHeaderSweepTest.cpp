// The calculator against NVIDIA's cuda_occupancy.h (CUDA 13) for every modeled CC 3.x-12.0: block sizes,
// register counts, shared memory at every allocation-unit boundary (and past the limits), every cache
// configuration and carveout, partitioned global caching and barriers. Active blocks, every per-resource
// limit, the limiting factors and the allocated registers and shared memory must match exactly.
// This is the only file that includes the header; it is skipped when no CUDA toolkit is installed.
#include "arch/GpuDatabase.h"
#include "arch/OccupancyCalculator.h"

#include <gtest/gtest.h>

#ifdef PTXRAY_HAVE_CUDA_OCCUPANCY_H
#include <cuda_occupancy.h>
#endif

#include <chrono>
#include <climits>
#include <sstream>

namespace ptxray::arch {
namespace {

std::vector<const ComputeCapability *> headerEraCapabilities() {
  std::vector<const ComputeCapability *> out;
  for (const auto &cc : computeCapabilities())
    if (cc.major >= 3)
      out.push_back(&cc);
  return out;
}

struct CacheSetting {
  CacheConfig config;
  std::optional<int> carveout;
};

std::vector<CacheSetting> cacheSettings(const ComputeCapability &cc) {
  std::vector<CacheSetting> out;
  for (CacheConfig config :
       {CacheConfig::PreferNone, CacheConfig::PreferShared, CacheConfig::PreferL1, CacheConfig::PreferEqual})
    out.push_back({config, std::nullopt});
  if (!cc.sharedCarveoutsBytes.empty())
    for (int percent : {0, 1, 10, 25, 33, 50, 66, 75, 99, 100})
      out.push_back({CacheConfig::PreferNone, percent});
  return out;
}

#ifdef PTXRAY_HAVE_CUDA_OCCUPANCY_H

struct Reference {
  cudaOccDeviceProp properties;
  cudaOccFuncAttributes attributes;
  cudaOccDeviceState state;
};

Reference referenceFor(const ComputeCapability &cc, const OccupancyInput &input) {
  Reference r;
  r.properties.computeMajor = cc.major;
  r.properties.computeMinor = cc.minor;
  r.properties.maxThreadsPerBlock = cc.maxThreadsPerBlock;
  r.properties.maxThreadsPerMultiprocessor = cc.maxThreadsPerSm;
  r.properties.regsPerBlock = cc.maxRegistersPerBlock;
  r.properties.regsPerMultiprocessor = cc.registersPerSm;
  r.properties.warpSize = cc.warpSize;
  r.properties.sharedMemPerBlock = static_cast<size_t>(cc.sharedPerBlock);
  r.properties.sharedMemPerMultiprocessor = static_cast<size_t>(cc.sharedPerSm);
  r.properties.numSms = 1;
  r.properties.sharedMemPerBlockOptin = static_cast<size_t>(cc.sharedPerBlockOptIn);
  r.properties.reservedSharedMemPerBlock = static_cast<size_t>(cc.sharedReservedPerBlock);
  r.attributes.maxThreadsPerBlock = INT_MAX;
  r.attributes.numRegs = input.registersPerThread;
  r.attributes.sharedSizeBytes = input.staticSharedBytes;
  r.attributes.partitionedGCConfig =
      input.partitionedGlobalCaching == PartitionedGlobalCaching::Off  ? PARTITIONED_GC_OFF
      : input.partitionedGlobalCaching == PartitionedGlobalCaching::On ? PARTITIONED_GC_ON
                                                                       : PARTITIONED_GC_ON_STRICT;
  // Opting in means cudaFuncSetAttribute(MaxDynamicSharedMemorySize) was set to what the launch uses.
  r.attributes.shmemLimitConfig = input.sharedMemoryOptIn ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
  r.attributes.maxDynamicSharedSizeBytes = input.dynamicSharedBytes;
  r.attributes.numBlockBarriers = input.barriersPerBlock;
  r.state.cacheConfig = static_cast<cudaOccCacheConfig>(input.cacheConfig);
  r.state.carveoutConfig = input.carveoutPercent.value_or(SHAREDMEM_CARVEOUT_DEFAULT);
  return r;
}

unsigned limitingBits(const OccupancyResult &result) {
  unsigned bits = 0;
  for (OccupancyResource resource : result.limiters)
    switch (resource) {
    case OccupancyResource::Warps: bits |= OCC_LIMIT_WARPS; break;
    case OccupancyResource::Registers: bits |= OCC_LIMIT_REGISTERS; break;
    case OccupancyResource::SharedMemory: bits |= OCC_LIMIT_SHARED_MEMORY; break;
    case OccupancyResource::Blocks: bits |= OCC_LIMIT_BLOCKS; break;
    case OccupancyResource::Barriers: bits |= OCC_LIMIT_BARRIERS; break;
    }
  return bits;
}

/// Runs both calculators and records the first differences.
class Comparison {
public:
  explicit Comparison(const ComputeCapability &cc) : cc_(cc) {}

  void check(const OccupancyInput &input, bool compareLimiters = true) {
    ++evaluations_;
    Reference r = referenceFor(cc_, input);
    cudaOccResult expected{};
    cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(&expected, &r.properties, &r.attributes, &r.state,
                                                                  input.threadsPerBlock, input.dynamicSharedBytes);
    OccupancyResult actual = computeOccupancy(cc_, input);
    auto orMax = [](std::optional<int> limit) { return static_cast<long long>(limit.value_or(INT_MAX)); };
    const std::pair<const char *, std::pair<long long, long long>> fields[] = {
        {"status", {CUDA_OCC_SUCCESS, status}},
        {"active", {actual.activeBlocksPerSm, expected.activeBlocksPerMultiprocessor}},
        {"warps-limit", {orMax(actual.limits.warps), expected.blockLimitWarps}},
        {"regs-limit", {orMax(actual.limits.registers), expected.blockLimitRegs}},
        {"smem-limit", {orMax(actual.limits.sharedMemory), expected.blockLimitSharedMem}},
        {"blocks-limit", {orMax(actual.limits.blocks), expected.blockLimitBlocks}},
        {"barrier-limit", {orMax(actual.limits.barriers), expected.blockLimitBarriers}},
        {"regs", {actual.allocatedRegistersPerBlock, expected.allocatedRegistersPerBlock}},
        {"smem",
         {static_cast<long long>(actual.allocatedSharedBytesPerBlock),
          static_cast<long long>(expected.allocatedSharedMemPerBlock)}},
        {"gc", {actual.partitionedGlobalCachingEnabled, expected.partitionedGCConfig != PARTITIONED_GC_OFF}},
        {"limiters", {compareLimiters ? limitingBits(actual) : 0, compareLimiters ? expected.limitingFactors : 0}}};
    bool differs = false;
    for (const auto &field : fields)
      differs |= field.second.first != field.second.second;
    if (!differs || mismatches_++ >= kReported)
      return;
    report_ << "\n  " << cc_.smName() << " threads " << input.threadsPerBlock << " regs " << input.registersPerThread
            << " static " << input.staticSharedBytes << " dynamic " << input.dynamicSharedBytes << " cache "
            << static_cast<int>(input.cacheConfig) << " carveout " << input.carveoutPercent.value_or(-1) << " gc "
            << static_cast<int>(input.partitionedGlobalCaching) << " optin " << input.sharedMemoryOptIn << " barriers "
            << input.barriersPerBlock << ":";
    for (const auto &[name, values] : fields)
      if (values.first != values.second)
        report_ << " " << name << " " << values.first << " vs " << values.second;
  }

  ~Comparison() {
    EXPECT_EQ(mismatches_, 0) << mismatches_ << " of " << evaluations_ << " launches differ" << report_.str();
  }

  long long evaluations() const { return evaluations_; }

private:
  static constexpr int kReported = 10;
  const ComputeCapability &cc_;
  long long evaluations_ = 0;
  long long mismatches_ = 0;
  std::ostringstream report_;
};

class HeaderSweep : public testing::TestWithParam<const ComputeCapability *> {};

OccupancyInput launch(int threads, int registers) {
  OccupancyInput input;
  input.threadsPerBlock = threads;
  input.registersPerThread = registers;
  return input;
}

// Every addressable register count at both ends of every warp count (and past the block limit), and
// every block size from 1 to past the limit at register counts around each allocation boundary.
TEST_P(HeaderSweep, EveryBlockSizeAndRegisterCount) {
  const ComputeCapability &cc = *GetParam();
  Comparison comparison(cc);
  std::vector<PartitionedGlobalCaching> modes = {PartitionedGlobalCaching::Off};
  if (cc.globalCachingSmPartitions > 0)
    modes = {PartitionedGlobalCaching::Off, PartitionedGlobalCaching::On, PartitionedGlobalCaching::OnStrict};
  std::vector<int> warpEnds;
  for (int threads = cc.warpSize; threads <= cc.maxThreadsPerBlock + cc.warpSize; threads += cc.warpSize)
    warpEnds.insert(warpEnds.end(), {threads - cc.warpSize + 1, threads});
  std::vector<int> registerSet = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 40, 48, 56, 63};
  for (int registers : {64, 65, 72, 80, 96, 104, 127, 128, 129, 160, 168, 200, 232, 255})
    if (registers <= cc.maxRegistersPerThread)
      registerSet.push_back(registers);
  auto check = [&](int threads, int registers) {
    for (PartitionedGlobalCaching mode : modes) {
      OccupancyInput input = launch(threads, registers);
      input.partitionedGlobalCaching = mode;
      comparison.check(input);
    }
  };
  for (int registers = 0; registers <= cc.maxRegistersPerThread; ++registers)
    for (int threads : warpEnds)
      check(threads, registers);
  for (int registers : registerSet)
    for (int threads = 1; threads <= cc.maxThreadsPerBlock + cc.warpSize + 1; ++threads)
      check(threads, registers);
  RecordProperty("launches", std::to_string(comparison.evaluations()));
}

// Shared memory at every allocation-unit boundary up to past the per-SM size, split between static and
// dynamic, under every cache configuration and carveout, with and without the opt-in.
TEST_P(HeaderSweep, EverySharedMemorySizeAndCacheSetting) {
  const ComputeCapability &cc = *GetParam();
  Comparison comparison(cc);
  std::vector<std::size_t> sizes;
  std::size_t unit = static_cast<std::size_t>(cc.sharedAllocationUnit);
  for (std::size_t size = 0; size <= static_cast<std::size_t>(cc.sharedPerSm) + 2 * unit; size += unit)
    for (std::size_t offset : {0, 1}) // one past a boundary allocates the next unit
      sizes.push_back(size + offset);
  sizes.push_back(1u << 20); // far past every limit
  for (const CacheSetting &setting : cacheSettings(cc))
    for (bool optIn : {true, false})
      for (std::size_t size : sizes)
        for (int split = 0; split < 3; ++split) { // all dynamic, all static, half and half
          OccupancyInput input = launch(split == 2 ? 1024 : 96, split == 1 ? 0 : 40);
          input.cacheConfig = setting.config;
          input.carveoutPercent = setting.carveout;
          input.sharedMemoryOptIn = optIn;
          input.staticSharedBytes = split == 0 ? 0 : split == 1 ? size : size / 2;
          input.dynamicSharedBytes = size - input.staticSharedBytes;
          comparison.check(input);
        }
  RecordProperty("launches", std::to_string(comparison.evaluations()));
}

// Barriers limit from CC 9.0 on. Where the barrier limit is below every other limit the header keeps
// the factors it flagged before applying it (see the report), so limiters are compared only otherwise.
TEST_P(HeaderSweep, Barriers) {
  const ComputeCapability &cc = *GetParam();
  Comparison comparison(cc);
  for (int barriers = 0; barriers <= 70; ++barriers)
    for (int threads : {32, 64, 96, 256, 1024})
      for (int registers : {0, 32, 60}) {
        OccupancyInput input = launch(threads, registers);
        input.barriersPerBlock = barriers;
        OccupancyInput withoutBarriers = input;
        withoutBarriers.barriersPerBlock = 0;
        bool barriersAloneLimit =
            computeOccupancy(cc, input).activeBlocksPerSm < computeOccupancy(cc, withoutBarriers).activeBlocksPerSm;
        comparison.check(input, !barriersAloneLimit);
      }
}

// The launch configurator and the available dynamic shared memory against the header's.
TEST_P(HeaderSweep, LaunchConfiguratorAndAvailableDynamicShared) {
  const ComputeCapability &cc = *GetParam();
  constexpr int kSms = 13;
  int configuratorMismatches = 0, availableMismatches = 0, availableTooLarge = 0;
  for (int registers = 0; registers <= cc.maxRegistersPerThread; registers += 7)
    for (std::size_t shared : {0, 1000, 6000, 20000, 40000})
      for (const CacheSetting &setting : cacheSettings(cc)) {
        OccupancyInput input = launch(1, registers);
        input.cacheConfig = setting.config;
        input.carveoutPercent = setting.carveout;
        input.dynamicSharedBytes = shared;
        Reference r = referenceFor(cc, input);
        r.properties.numSms = kSms;
        int minGrid = 0, blockSize = 0;
        ASSERT_EQ(cudaOccMaxPotentialOccupancyBlockSize(&minGrid, &blockSize, &r.properties, &r.attributes, &r.state,
                                                        nullptr, shared),
                  CUDA_OCC_SUCCESS);
        LaunchConfiguration mine = suggestLaunchConfiguration(cc, input, kSms);
        configuratorMismatches += mine.blockSize != blockSize || mine.minGridSize != minGrid;

        input.threadsPerBlock = 128;
        input.staticSharedBytes = shared;
        input.dynamicSharedBytes = 0;
        r = referenceFor(cc, input);
        r.attributes.maxDynamicSharedSizeBytes = static_cast<size_t>(cc.sharedPerBlockOptIn);
        int maxBlocks = computeOccupancy(cc, input).activeBlocksPerSm;
        for (int blocks = 1; blocks <= maxBlocks; ++blocks) {
          size_t theirs = 0;
          ASSERT_EQ(cudaOccAvailableDynamicSMemPerBlock(&theirs, &r.properties, &r.attributes, &r.state, blocks, 128),
                    CUDA_OCC_SUCCESS);
          std::optional<std::size_t> available = availableDynamicSharedBytes(cc, input, blocks);
          ASSERT_TRUE(available.has_value());
          // Where anything is left, the header's figure is ours plus the reserved bytes it forgets to
          // subtract (CC 8.0+), capped at the opt-in limit; with nothing left it may wrap around instead.
          std::size_t theirsCorrected = std::min(*available + static_cast<std::size_t>(cc.sharedReservedPerBlock),
                                                 static_cast<std::size_t>(cc.sharedPerBlockOptIn));
          if (*available > 0)
            availableMismatches += theirsCorrected != theirs;
          OccupancyInput withAvailable = input;
          withAvailable.dynamicSharedBytes = *available;
          availableTooLarge += computeOccupancy(cc, withAvailable).activeBlocksPerSm < blocks;
        }
      }
  EXPECT_EQ(configuratorMismatches, 0);
  EXPECT_EQ(availableMismatches, 0);
  EXPECT_EQ(availableTooLarge, 0);
}

// Where the sources disagree on purpose: the header lets every CC 3.x thread address 255 registers (and
// 7.0+ 256); the Programming Guide and ptxas stop GK104 at 63, so the calculator reports the launch as
// failing there.
TEST_P(HeaderSweep, RegistersPastTheArchitecturalLimitFail) {
  const ComputeCapability &cc = *GetParam();
  int registers = cc.maxRegistersPerThread + 1;
  OccupancyResult result = computeOccupancy(cc, launch(128, registers));
  EXPECT_EQ(result.activeBlocksPerSm, 0);
  EXPECT_EQ(result.launchFailures, std::vector{LaunchFailure::TooManyRegistersPerThread});
}

#else

class HeaderSweep : public testing::TestWithParam<const ComputeCapability *> {};

TEST_P(HeaderSweep, EveryBlockSizeAndRegisterCount) {
  GTEST_SKIP() << "cuda_occupancy.h not found";
}

#endif

std::string capabilityName(const testing::TestParamInfo<const ComputeCapability *> &info) {
  return info.param->smName();
}

INSTANTIATE_TEST_SUITE_P(Occupancy, HeaderSweep, testing::ValuesIn(headerEraCapabilities()), capabilityName);

} // namespace
} // namespace ptxray::arch
