// The guides' heuristics as structured advice.
#include "arch/OccupancyAdvice.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ptxray::arch {
namespace {

std::vector<AdviceKind> kinds(int major, int minor, int threads, int registers, std::optional<long long> grid = {},
                              std::optional<int> sms = {}) {
  const ComputeCapability &cc = *findComputeCapability(major, minor);
  OccupancyInput input;
  input.threadsPerBlock = threads;
  input.registersPerThread = registers;
  std::vector<AdviceKind> out;
  for (const Advice &advice : adviseLaunch(cc, input, computeOccupancy(cc, input), grid, sms))
    out.push_back(advice.kind);
  return out;
}

bool has(const std::vector<AdviceKind> &all, AdviceKind kind) {
  return std::find(all.begin(), all.end(), kind) != all.end();
}

TEST(OccupancyAdvice, BlockShape) {
  auto odd = kinds(3, 5, 100, 16);
  EXPECT_TRUE(has(odd, AdviceKind::BlockNotWarpMultiple));
  EXPECT_TRUE(has(odd, AdviceKind::BlockOutsideRecommendedRange));
  EXPECT_FALSE(has(odd, AdviceKind::BlockNotRegisterBankMultiple)); // a 1.x rule
  EXPECT_TRUE(has(kinds(1, 3, 96, 8), AdviceKind::BlockNotRegisterBankMultiple));
  EXPECT_TRUE(has(kinds(3, 5, 32, 16), AdviceKind::BlockBelowMinimum));
  EXPECT_TRUE(kinds(3, 5, 128, 16).size() <= 1); // only the >50% plateau note
  EXPECT_TRUE(has(kinds(2, 0, 1024, 16), AdviceKind::SingleBlockPerSm));
}

TEST(OccupancyAdvice, Grid) {
  EXPECT_TRUE(has(kinds(3, 5, 256, 16, 10, 15), AdviceKind::GridBelowSmCount));
  EXPECT_TRUE(has(kinds(3, 5, 256, 16, 10, 15), AdviceKind::GridTooSmallToScale));
  EXPECT_TRUE(has(kinds(3, 5, 256, 16, 60, 15), AdviceKind::GridDoesNotFillGpu)); // 8 x 15 = 120 needed
  auto big = kinds(3, 5, 256, 16, 10000, 15);
  EXPECT_FALSE(has(big, AdviceKind::GridBelowSmCount) || has(big, AdviceKind::GridDoesNotFillGpu) ||
               has(big, AdviceKind::GridTooSmallToScale));
}

// BPG §4.3: below 25% (CC 1.1) / 18.75% (1.2+) the register latency shows. 1.1 with 64-thread blocks and
// 60 registers: 64 x 60 = 3840 per block, 2 blocks, 4 warps of 24 = 16.7%.
TEST(OccupancyAdvice, OccupancyThresholds) {
  EXPECT_TRUE(has(kinds(1, 1, 64, 60), AdviceKind::OccupancyTooLowForRegisterLatency));
  EXPECT_FALSE(has(kinds(1, 1, 64, 20), AdviceKind::OccupancyTooLowForRegisterLatency));
  EXPECT_TRUE(has(kinds(3, 5, 256, 16), AdviceKind::OccupancyPastPlateau));
  EXPECT_FALSE(has(kinds(2, 0, 256, 63), AdviceKind::OccupancyPastPlateau));
}

TEST(OccupancyAdvice, FailuresAndSharedMemory) {
  auto failing = kinds(3, 0, 128, 80);
  ASSERT_FALSE(failing.empty());
  EXPECT_EQ(failing.front(), AdviceKind::LaunchFails);
  EXPECT_FALSE(has(failing, AdviceKind::OccupancyTooLowForRegisterLatency));

  const ComputeCapability &ampere = *findComputeCapability(8, 0);
  OccupancyInput input;
  input.threadsPerBlock = 256;
  input.staticSharedBytes = 64 * 1024;
  input.carveoutPercent = 50;
  auto advice = adviseLaunch(ampere, input, computeOccupancy(ampere, input));
  auto found = [&](AdviceKind kind) {
    return std::any_of(advice.begin(), advice.end(), [&](const Advice &a) { return a.kind == kind; });
  };
  EXPECT_TRUE(found(AdviceKind::StaticSharedTooLarge));
  EXPECT_TRUE(found(AdviceKind::SharedOptInRequired));
  EXPECT_FALSE(found(AdviceKind::CarveoutIgnored));
  const ComputeCapability &kepler = *findComputeCapability(3, 5);
  input.staticSharedBytes = 0;
  advice = adviseLaunch(kepler, input, computeOccupancy(kepler, input));
  EXPECT_TRUE(found(AdviceKind::CarveoutIgnored));
  for (const Advice &a : advice)
    EXPECT_FALSE(a.source.empty());
}

} // namespace
} // namespace ptxray::arch
