// Launch failures, ties, cache configurations and carveouts, partitioned caching, barriers, the launch
// configurator and the available dynamic shared memory, each worked out by hand in the comments.
#include "arch/OccupancyCalculator.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace ptxray::arch {
namespace {

constexpr std::size_t KiB = 1024;
using enum OccupancyResource;

const ComputeCapability &cc(int major, int minor) {
  return *findComputeCapability(major, minor);
}

OccupancyInput launch(int threads, int registers, std::size_t sharedBytes = 0) {
  OccupancyInput input;
  input.threadsPerBlock = threads;
  input.registersPerThread = registers;
  input.dynamicSharedBytes = sharedBytes;
  return input;
}

TEST(OccupancyCalculator, LaunchFailures) {
  OccupancyResult threads = computeOccupancy(cc(1, 3), launch(513, 8));
  EXPECT_EQ(threads.activeBlocksPerSm, 0);
  EXPECT_EQ(threads.launchFailures, std::vector{LaunchFailure::TooManyThreads});
  EXPECT_EQ(threads.launchError, "513 threads per block exceed the 512 a block may have on sm_13");
  EXPECT_EQ(threads.limiters, std::vector{Warps});

  OccupancyResult perThread = computeOccupancy(cc(3, 0), launch(128, 64));
  EXPECT_EQ(perThread.launchFailures, std::vector{LaunchFailure::TooManyRegistersPerThread});
  EXPECT_EQ(perThread.launchError, "64 registers per thread exceed the 63 a thread can address on sm_30");

  // GK20A allows 32 K registers per block: 1024 threads x 33 registers = 32 warps x 1280 = 40960.
  OccupancyResult perBlock = computeOccupancy(cc(3, 2), launch(1024, 33));
  EXPECT_EQ(perBlock.launchFailures, std::vector{LaunchFailure::TooManyRegistersPerBlock});
  EXPECT_EQ(perBlock.allocatedRegistersPerBlock, 40960);
  EXPECT_TRUE(computeOccupancy(cc(3, 2), launch(1024, 32)).launches());

  OccupancyResult shared = computeOccupancy(cc(2, 0), launch(128, 8, 48 * KiB + 1));
  EXPECT_EQ(shared.launchFailures, std::vector{LaunchFailure::TooMuchSharedMemory});
  EXPECT_EQ(shared.limits.sharedMemory, 0);
  EXPECT_EQ(shared.allocatedSharedBytesPerBlock, 48 * KiB + 128);

  OccupancyResult all = computeOccupancy(cc(2, 0), launch(2000, 70, 64 * KiB));
  EXPECT_EQ(all.launchFailures.size(), 3u);
  EXPECT_NE(all.launchError.find("; "), std::string::npos);
}

TEST(OccupancyCalculator, ZeroRegistersAndSharedDoNotLimit) {
  OccupancyResult result = computeOccupancy(cc(9, 0), launch(64, 0));
  EXPECT_FALSE(result.limits.registers.has_value());
  EXPECT_EQ(result.activeBlocksPerSm, 32);
  EXPECT_EQ(result.limiters, (std::vector{Warps, Blocks})); // 64 warps / 2 per block = 32 blocks too
  // The 1 KB reserved per block on CC 8.0+ always counts: 228 KB / 1 KB = 228 blocks allowed.
  EXPECT_EQ(result.allocatedSharedBytesPerBlock, 1 * KiB);
  EXPECT_EQ(result.limits.sharedMemory, 228);
  EXPECT_FALSE(computeOccupancy(cc(7, 0), launch(64, 0)).limits.sharedMemory.has_value());
}

// 3.5, 1024 threads x 32 registers: warps 64 / 32 = 2; registers 16384 per partition / 1024 per warp
// = 16 x 4 = 64 warps = 2 blocks. Both limit.
TEST(OccupancyCalculator, TiesReportEveryLimiter) {
  OccupancyResult result = computeOccupancy(cc(3, 5), launch(1024, 32));
  EXPECT_EQ(result.activeBlocksPerSm, 2);
  EXPECT_EQ(result.limiters, (std::vector{Warps, Registers}));
  EXPECT_DOUBLE_EQ(result.occupancy, 1.0);
}

// Fermi allocates 21, 22, 29, 30, 37, 38, 45 and 46 registers per thread in 128-register units.
TEST(OccupancyCalculator, FermiRegisterQuirk) {
  EXPECT_EQ(computeOccupancy(cc(2, 0), launch(32, 20)).allocatedRegistersPerBlock, 640);
  EXPECT_EQ(computeOccupancy(cc(2, 0), launch(32, 21)).allocatedRegistersPerBlock, 768);  // 672 -> 768
  EXPECT_EQ(computeOccupancy(cc(2, 0), launch(32, 23)).allocatedRegistersPerBlock, 768);  // 736 -> 768
  EXPECT_EQ(computeOccupancy(cc(2, 0), launch(32, 47)).allocatedRegistersPerBlock, 1536); // 1504 -> 1536
}

// Kepler: 20 KB per block. PreferL1 offers 16 KB, too little for one block, so the 48 KB configuration
// is used (2 blocks); PreferEqual gives 32 KB (1 block); PreferShared 48 KB (2 blocks).
TEST(OccupancyCalculator, KeplerCacheConfigurations) {
  OccupancyInput input = launch(64, 16, 20 * KiB);
  auto blocks = [&](CacheConfig config) {
    input.cacheConfig = config;
    return computeOccupancy(cc(3, 5), input).limits.sharedMemory;
  };
  EXPECT_EQ(blocks(CacheConfig::PreferL1), 2);
  EXPECT_EQ(blocks(CacheConfig::PreferEqual), 1);
  EXPECT_EQ(blocks(CacheConfig::PreferShared), 2);
  EXPECT_EQ(blocks(CacheConfig::PreferNone), 2);
  // GK210 with 30 KB blocks: 80 KB -> 2, 96 KB -> 3, 112 KB -> 3.
  input.dynamicSharedBytes = 30 * KiB;
  auto gk210 = [&](CacheConfig config) {
    input.cacheConfig = config;
    return computeOccupancy(cc(3, 7), input).limits.sharedMemory;
  };
  EXPECT_EQ(gk210(CacheConfig::PreferL1), 2);
  EXPECT_EQ(gk210(CacheConfig::PreferEqual), 3);
  EXPECT_EQ(gk210(CacheConfig::PreferShared), 3);
  // Fermi: PreferL1 leaves 16 KB.
  input.dynamicSharedBytes = 8 * KiB;
  input.cacheConfig = CacheConfig::PreferL1;
  EXPECT_EQ(computeOccupancy(cc(2, 0), input).limits.sharedMemory, 2);
  EXPECT_EQ(computeOccupancy(cc(2, 0), input).sharedBytesPerSm, 16 * KiB);
}

// Volta, 10 KB per block: a 25% carveout asks for 24 KB, configured as 32 KB (3 blocks); 0% cannot hold
// one block, so the driver configures the smallest size that can, 16 KB (1 block).
TEST(OccupancyCalculator, VoltaCarveouts) {
  OccupancyInput input = launch(64, 16, 10 * KiB);
  input.carveoutPercent = 25;
  OccupancyResult quarter = computeOccupancy(cc(7, 0), input);
  EXPECT_EQ(quarter.sharedBytesPerSm, 32 * KiB);
  EXPECT_EQ(quarter.limits.sharedMemory, 3);
  input.carveoutPercent = 0;
  OccupancyResult none = computeOccupancy(cc(7, 0), input);
  EXPECT_EQ(none.sharedBytesPerSm, 16 * KiB);
  EXPECT_EQ(none.limits.sharedMemory, 1);
  input.carveoutPercent.reset();
  input.cacheConfig = CacheConfig::PreferEqual; // 50% of 96 KB = 48 KB -> 64 KB: 6 blocks
  EXPECT_EQ(computeOccupancy(cc(7, 0), input).limits.sharedMemory, 6);
  input.carveoutPercent = 101;
  EXPECT_THROW(computeOccupancy(cc(7, 0), input), std::invalid_argument);
}

// A100: a block may use 48 KB by default and 163 KB after the opt-in; 1 KB is reserved per block.
TEST(OccupancyCalculator, SharedMemoryOptIn) {
  OccupancyResult big = computeOccupancy(cc(8, 0), launch(256, 32, 100 * KiB));
  EXPECT_TRUE(big.launches());
  EXPECT_TRUE(big.sharedMemoryOptInRequired);
  EXPECT_EQ(big.allocatedSharedBytesPerBlock, 101 * KiB);
  EXPECT_EQ(big.activeBlocksPerSm, 1);
  EXPECT_FALSE(computeOccupancy(cc(8, 0), launch(256, 32, 163 * KiB)).launchFailures.size());
  EXPECT_EQ(computeOccupancy(cc(8, 0), launch(256, 32, 163 * KiB + 1)).launchFailures,
            std::vector{LaunchFailure::TooMuchSharedMemory});
  OccupancyInput noOptIn = launch(256, 32, 48 * KiB);
  noOptIn.sharedMemoryOptIn = false;
  EXPECT_TRUE(computeOccupancy(cc(8, 0), noOptIn).launches());
  EXPECT_FALSE(computeOccupancy(cc(8, 0), noOptIn).sharedMemoryOptInRequired);
  noOptIn.dynamicSharedBytes += 1;
  EXPECT_FALSE(computeOccupancy(cc(8, 0), noOptIn).launches());
}

// 5.2 with partitioned global caching: a block lives in half the SM (32 warp slots, two partitions'
// registers). 64 regs x 32 = 2048 per warp; 16384 / 2048 = 8 warps per partition.
TEST(OccupancyCalculator, PartitionedGlobalCaching) {
  OccupancyInput input = launch(384, 64); // 12 warps
  input.partitionedGlobalCaching = PartitionedGlobalCaching::On;
  OccupancyResult on = computeOccupancy(cc(5, 2), input);
  EXPECT_TRUE(on.partitionedGlobalCachingEnabled);
  EXPECT_EQ(on.limits.registers, 2); // 16 warps per half / 12 = 1, x 2 halves
  input.threadsPerBlock = 640;       // 20 warps: cannot fit in half an SM, caching turns off
  OccupancyResult off = computeOccupancy(cc(5, 2), input);
  EXPECT_FALSE(off.partitionedGlobalCachingEnabled);
  EXPECT_EQ(off.limits.registers, 1);
  input.partitionedGlobalCaching = PartitionedGlobalCaching::OnStrict;
  EXPECT_EQ(computeOccupancy(cc(5, 2), input).activeBlocksPerSm, 0);
  EXPECT_FALSE(computeOccupancy(cc(5, 0), input).partitionedGlobalCachingEnabled); // not on 5.0
}

// Hopper: 64 barriers per SM; 16 barriers per block leave room for 4 blocks.
TEST(OccupancyCalculator, HopperBarriers) {
  OccupancyInput input = launch(64, 16);
  input.barriersPerBlock = 16;
  OccupancyResult result = computeOccupancy(cc(9, 0), input);
  EXPECT_EQ(result.limits.barriers, 4);
  EXPECT_EQ(result.activeBlocksPerSm, 4);
  EXPECT_EQ(result.limiters, std::vector{Barriers});
  EXPECT_FALSE(computeOccupancy(cc(8, 0), input).limits.barriers.has_value());
}

// cudaOccupancyMaxPotentialBlockSize: with 32 registers every size that divides 2048 fills a 3.5 SM, the
// largest first; 1.1 with 10 registers reaches 100% first at 384 threads (2 blocks of 12 warps).
TEST(OccupancyCalculator, LaunchConfigurator) {
  LaunchConfiguration kepler = suggestLaunchConfiguration(cc(3, 5), launch(0, 32), 15);
  EXPECT_EQ(kepler.blockSize, 1024);
  EXPECT_EQ(kepler.blocksPerSm, 2);
  EXPECT_EQ(kepler.minGridSize, 30);
  EXPECT_DOUBLE_EQ(kepler.occupancy, 1.0);
  LaunchConfiguration tesla = suggestLaunchConfiguration(cc(1, 1), launch(0, 10), 16);
  EXPECT_EQ(tesla.blockSize, 384);
  EXPECT_EQ(tesla.blocksPerSm, 2);
  // Bounded to 200 threads: 200 (7 warps) fits 9 blocks = 1800 threads, 192 fits 10 = 1920, and 128
  // fits 16 = 2048, a full SM.
  LaunchConfiguration bounded = suggestLaunchConfiguration(cc(3, 5), launch(0, 32), 15, {}, 200);
  EXPECT_EQ(bounded.blockSize, 128);
  EXPECT_EQ(bounded.blocksPerSm, 16);
  LaunchConfiguration perThreadShared =
      suggestLaunchConfiguration(cc(3, 5), launch(0, 8), 15, [](int threads) { return threads * 64; });
  EXPECT_EQ(perThreadShared.blocksPerSm * perThreadShared.blockSize, 768); // 48 KB / 64 B per thread
  LaunchConfiguration impossible = suggestLaunchConfiguration(cc(3, 0), launch(0, 64), 8);
  EXPECT_EQ(impossible.blockSize, 0);
}

// Available dynamic shared memory: 3.5 PreferShared (48 KB) for 3 blocks: 16 KB each, minus 4 KB static.
TEST(OccupancyCalculator, AvailableDynamicShared) {
  OccupancyInput input = launch(128, 32);
  input.staticSharedBytes = 4 * KiB;
  EXPECT_EQ(availableDynamicSharedBytes(cc(3, 5), input, 3), 12 * KiB);
  EXPECT_EQ(availableDynamicSharedBytes(cc(3, 5), input, 1), 44 * KiB);
  EXPECT_EQ(availableDynamicSharedBytes(cc(3, 5), input, 17), std::nullopt); // 16 blocks at most
  // A100, one block: 163 KB opt-in limit less 4 KB static (the reserved 1 KB is not the kernel's).
  EXPECT_EQ(availableDynamicSharedBytes(cc(8, 0), input, 1), 159 * KiB);
  for (int blocks = 1; blocks <= 16; ++blocks) {
    auto available = availableDynamicSharedBytes(cc(8, 0), input, blocks);
    ASSERT_TRUE(available.has_value());
    input.dynamicSharedBytes = *available;
    EXPECT_GE(computeOccupancy(cc(8, 0), input).activeBlocksPerSm, blocks) << blocks;
    input.dynamicSharedBytes = 0;
  }
}

TEST(OccupancyCalculator, InvalidInputThrows) {
  EXPECT_THROW(computeOccupancy(cc(3, 5), launch(0, 8)), std::invalid_argument);
  EXPECT_THROW(computeOccupancy(cc(3, 5), launch(32, -1)), std::invalid_argument);
  EXPECT_EQ(resourceName(SharedMemory), "shared_memory");
}

} // namespace
} // namespace ptxray::arch
