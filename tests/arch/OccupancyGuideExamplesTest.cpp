// The worked examples of the Kepler Tuning Guide (§1.4.1) and the OpenCL Best Practices Guide (§4.2-4.4).
#include "arch/OccupancyCalculator.h"

#include <gtest/gtest.h>

namespace ptxray::arch {
namespace {

OccupancyResult occupancyOn(int major, int minor, int threads, int registers) {
  const ComputeCapability *cc = findComputeCapability(major, minor);
  EXPECT_NE(cc, nullptr);
  OccupancyInput input;
  input.threadsPerBlock = threads;
  input.registersPerThread = registers;
  return computeOccupancy(*cc, input);
}

// KTG §1.4.1: 63 registers and 256 threads fit 16 of 48 warps on Fermi, 32 of 64 on GK104 and GK110,
// and 64 of 64 on GK210.
TEST(OccupancyGuideExamples, KeplerGuide63RegistersAnd256Threads) {
  for (auto [minor, name] : {std::pair{0, "2.0"}, {1, "2.1"}}) {
    OccupancyResult fermi = occupancyOn(2, minor, 256, 63);
    EXPECT_EQ(fermi.activeWarpsPerSm, 16) << name;
    EXPECT_EQ(fermi.maxWarpsPerSm, 48) << name;
    EXPECT_EQ(static_cast<int>(fermi.occupancy * 100), 33) << name;
    EXPECT_EQ(fermi.limiters, std::vector{OccupancyResource::Registers}) << name;
  }
  for (auto [minor, name] : {std::pair{0, "GK104"}, {5, "GK110"}}) {
    OccupancyResult kepler = occupancyOn(3, minor, 256, 63);
    EXPECT_EQ(kepler.activeWarpsPerSm, 32) << name;
    EXPECT_EQ(kepler.maxWarpsPerSm, 64) << name;
    EXPECT_DOUBLE_EQ(kepler.occupancy, 0.5) << name;
  }
  OccupancyResult gk210 = occupancyOn(3, 7, 256, 63);
  EXPECT_EQ(gk210.activeWarpsPerSm, 64);
  EXPECT_DOUBLE_EQ(gk210.occupancy, 1.0);
}

// BPG §4.2: on CC 1.0, 12 registers per thread: 128-thread blocks -> 5 blocks (83%), 256 -> 2 (66%).
TEST(OccupancyGuideExamples, Cc10TwelveRegisters) {
  OccupancyResult small = occupancyOn(1, 0, 128, 12);
  EXPECT_EQ(small.activeBlocksPerSm, 5);
  EXPECT_EQ(small.activeWarpsPerSm, 20);
  EXPECT_EQ(static_cast<int>(small.occupancy * 100), 83);
  EXPECT_EQ(small.allocatedRegistersPerBlock, 1536);
  EXPECT_EQ(small.limiters, std::vector{OccupancyResource::Registers});

  OccupancyResult large = occupancyOn(1, 0, 256, 12);
  EXPECT_EQ(large.activeBlocksPerSm, 2);
  EXPECT_EQ(static_cast<int>(large.occupancy * 100), 66);
}

// BPG §4.4: on CC 1.1, 512-thread blocks reach 66% (one block of 16 warps); 256-thread blocks 100%.
TEST(OccupancyGuideExamples, Cc11BlockSizes) {
  OccupancyResult large = occupancyOn(1, 1, 512, 8); // 4096 registers: 2 blocks' worth, warps limit
  EXPECT_EQ(large.activeBlocksPerSm, 1);
  EXPECT_EQ(static_cast<int>(large.occupancy * 100), 66);
  EXPECT_EQ(large.limiters, std::vector{OccupancyResource::Warps});
  OccupancyResult medium = occupancyOn(1, 1, 256, 8);
  EXPECT_EQ(medium.activeBlocksPerSm, 3);
  EXPECT_DOUBLE_EQ(medium.occupancy, 1.0);
}

// BPG §4.2: 10 registers per thread keep 100% on CC <= 1.1, 16 on CC 1.2/1.3; one more register
// costs occupancy.
TEST(OccupancyGuideExamples, RegistersPerThreadAtFullOccupancy) {
  EXPECT_DOUBLE_EQ(occupancyOn(1, 1, 256, 10).occupancy, 1.0);
  EXPECT_LT(occupancyOn(1, 1, 256, 11).occupancy, 1.0);
  EXPECT_DOUBLE_EQ(occupancyOn(1, 3, 256, 16).occupancy, 1.0);
  EXPECT_LT(occupancyOn(1, 3, 256, 17).occupancy, 1.0);
}

// BPG §4.2: registers are allocated per block, rounded to 256 (1.0/1.1) or 512 (1.2/1.3).
TEST(OccupancyGuideExamples, PerBlockRegisterRounding) {
  EXPECT_EQ(occupancyOn(1, 1, 64, 5).allocatedRegistersPerBlock, 512);  // 320 -> 512
  EXPECT_EQ(occupancyOn(1, 3, 64, 5).allocatedRegistersPerBlock, 512);  // 320 -> 512
  EXPECT_EQ(occupancyOn(1, 1, 64, 9).allocatedRegistersPerBlock, 768);  // 576 -> 768
  EXPECT_EQ(occupancyOn(1, 3, 64, 9).allocatedRegistersPerBlock, 1024); // 576 -> 1024
  // A one-warp block is allocated as a warp pair on 1.x (the CUDA 7-era header's rule).
  EXPECT_EQ(occupancyOn(1, 0, 32, 10).allocatedRegistersPerBlock, 768); // 2 warps x 320 = 640 -> 768
  EXPECT_EQ(occupancyOn(1, 0, 32, 10).allocatedWarpsPerBlock, 2);
  EXPECT_EQ(occupancyOn(1, 0, 32, 10).activeWarpsPerSm, 8); // 8 blocks of one real warp
}

// BPG §4.3: 192 threads (6 warps) hide the register latency: 25% on CC <= 1.1, 18.75% on 1.2+.
TEST(OccupancyGuideExamples, RegisterLatencyThresholds) {
  for (const auto &cc : computeCapabilities()) {
    if (cc.major != 1)
      continue;
    int warps = cc.registerLatencyHidingThreads / cc.warpSize;
    EXPECT_DOUBLE_EQ(cc.minOccupancyToHideRegisterLatency, static_cast<double>(warps) / cc.maxWarpsPerSm)
        << cc.version();
  }
  EXPECT_DOUBLE_EQ(findComputeCapability(1, 1)->minOccupancyToHideRegisterLatency, 0.25);
  EXPECT_DOUBLE_EQ(findComputeCapability(1, 2)->minOccupancyToHideRegisterLatency, 0.1875);
}

} // namespace
} // namespace ptxray::arch
