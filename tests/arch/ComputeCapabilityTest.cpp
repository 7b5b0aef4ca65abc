// Consistency of the compute capability table and the facts the guides state about it.
#include "arch/ComputeCapability.h"

#include <gtest/gtest.h>

namespace ptxray::arch {
namespace {

const ComputeCapability &cc(int major, int minor) {
  const ComputeCapability *found = findComputeCapability(major, minor);
  EXPECT_NE(found, nullptr);
  return *found;
}

TEST(ArchComputeCapability, TableIsCompleteAndOrdered) {
  std::vector<std::string> versions;
  for (const auto &c : computeCapabilities())
    versions.push_back(c.version());
  EXPECT_EQ(versions, (std::vector<std::string>{"1.0", "1.1", "1.2", "1.3", "2.0", "2.1",  "3.0", "3.2",
                                                "3.5", "3.7", "5.0", "5.2", "6.0", "6.1",  "7.0", "7.5",
                                                "8.0", "8.6", "8.7", "8.9", "9.0", "10.0", "12.0"}));
  EXPECT_EQ(findComputeCapability(4, 0), nullptr);
}

TEST(ArchComputeCapability, EveryEntryIsConsistent) {
  for (const auto &c : computeCapabilities()) {
    SCOPED_TRACE(c.version());
    EXPECT_EQ(c.maxWarpsPerSm * c.warpSize, c.maxThreadsPerSm);
    EXPECT_LE(c.maxThreadsPerBlock, c.maxThreadsPerSm);
    EXPECT_LE(c.maxRegistersPerBlock, c.registersPerSm);
    EXPECT_LE(c.sharedPerBlock, c.sharedPerBlockOptIn);
    EXPECT_LE(c.sharedPerBlockOptIn + c.sharedReservedPerBlock, c.sharedPerSm);
    EXPECT_GT(c.sharedAllocationUnit, 0);
    EXPECT_GT(c.registerAllocationUnit, 0);
    EXPECT_GT(c.registerFilePartitions, 0);
    EXPECT_EQ(c.sharedByCacheConfig.has_value(), c.sharedCarveoutsBytes.empty());
    if (!c.sharedCarveoutsBytes.empty()) {
      EXPECT_TRUE(std::is_sorted(c.sharedCarveoutsBytes.begin(), c.sharedCarveoutsBytes.end()));
      EXPECT_EQ(c.sharedCarveoutsBytes.back(), c.sharedPerSm);
    }
    EXPECT_GT(c.throughput.fp32AddMulFma, 0);
    EXPECT_GT(c.latency.registerReadAfterWriteCycles, 0);
    EXPECT_LE(c.latency.globalMemoryMinCycles, c.latency.globalMemoryMaxCycles);
    EXPECT_EQ(c.smName(), "sm_" + std::to_string(c.major) + std::to_string(c.minor));
  }
}

TEST(ArchComputeCapability, KeplerGuideFacts) {
  EXPECT_EQ(cc(3, 0).registersPerSm, 2 * cc(2, 0).registersPerSm); // KTG §1.4.1
  EXPECT_EQ(cc(3, 7).registersPerSm, 2 * cc(3, 5).registersPerSm);
  EXPECT_EQ(cc(2, 0).maxBlocksPerSm, 8);
  EXPECT_EQ(cc(3, 5).maxBlocksPerSm, 16);
  EXPECT_EQ(cc(2, 0).maxRegistersPerThread, 63); // KTG §1.4.4.1
  EXPECT_EQ(cc(3, 0).maxRegistersPerThread, 63);
  EXPECT_EQ(cc(3, 5).maxRegistersPerThread, 255);
  const auto &kepler = *cc(3, 5).sharedByCacheConfig; // KTG §1.4.3.2: 48/16, 16/48, 32/32
  EXPECT_EQ(kepler.preferShared, 48 * 1024);
  EXPECT_EQ(kepler.preferL1, 16 * 1024);
  EXPECT_EQ(kepler.preferEqual, 32 * 1024);
  const auto &gk210 = *cc(3, 7).sharedByCacheConfig; // 112, 96, 80 KB
  EXPECT_EQ(gk210.preferShared, 112 * 1024);
  EXPECT_EQ(gk210.preferEqual, 96 * 1024);
  EXPECT_EQ(gk210.preferL1, 80 * 1024);
  EXPECT_EQ(cc(3, 7).sharedPerBlock, 48 * 1024);                                       // "remains 48 KB"
  EXPECT_EQ(cc(3, 5).sharedBanks.selectableBankWidthsBytes, (std::vector<int>{4, 8})); // KTG §1.4.3.1
  EXPECT_EQ(cc(3, 0).global.defaultLoadCaching, GlobalLoadCaching::L2Only);            // KTG §1.4.4.2
  EXPECT_EQ(cc(2, 0).global.defaultLoadCaching, GlobalLoadCaching::L1);
  EXPECT_TRUE(cc(3, 5).global.readOnlyDataCache); // KTG §1.4.4.3
  EXPECT_FALSE(cc(3, 0).global.readOnlyDataCache);
  EXPECT_EQ(cc(3, 0).throughput.warpShuffle, 32); // KTG §1.4.3.3
  EXPECT_EQ(cc(2, 0).throughput.warpShuffle, ArithmeticThroughput::kUnsupported);
}

TEST(ArchComputeCapability, BestPracticesGuideFacts) {
  EXPECT_EQ(cc(1, 0).sharedBanks.banks, 16); // §3.2.2.1, half-warp requests
  EXPECT_EQ(cc(1, 0).sharedBanks.threadsPerRequest, 16);
  EXPECT_EQ(cc(1, 1).registersPerSm, 8192); // §4.2
  EXPECT_EQ(cc(1, 2).registersPerSm, 16384);
  EXPECT_EQ(cc(1, 1).maxThreadsPerSm, 768);
  EXPECT_EQ(cc(1, 0).throughput.fp32AddMulFma, 8); // §5.1
  EXPECT_EQ(cc(1, 0).throughput.int24Mul, 8);
  EXPECT_EQ(cc(1, 0).throughput.int32MulMad, 2);
  EXPECT_EQ(cc(1, 0).throughput.fp32Special, 2);
  EXPECT_EQ(cc(1, 0).latency.registerReadAfterWriteCycles, 24); // §3.2.6
  EXPECT_EQ(cc(1, 0).latency.globalMemoryMinCycles, 400);       // §5.2
  EXPECT_EQ(cc(1, 0).latency.globalMemoryMaxCycles, 600);
  EXPECT_EQ(cc(1, 0).constantMemoryBytes, 64 * 1024); // §3.2.5
  // §3.2.1: 1.2+ segments are 32 bytes for 8-bit words, 64 for 16-bit, 128 for 32- to 128-bit words.
  const auto &global = cc(1, 3).global;
  EXPECT_EQ(global.segmentBytesForWordSize(1), 32);
  EXPECT_EQ(global.segmentBytesForWordSize(2), 64);
  EXPECT_EQ(global.segmentBytesForWordSize(4), 128);
  EXPECT_EQ(global.segmentBytesForWordSize(8), 128);
  EXPECT_EQ(global.segmentBytesForWordSize(16), 128);
  EXPECT_TRUE(cc(1, 1).global.requiresInOrderAlignedAccess);
  EXPECT_FALSE(cc(1, 2).global.requiresInOrderAlignedAccess);
}

} // namespace
} // namespace ptxray::arch
