// The guides' launch-configuration rules on the occupancy calculator's view of a launch (what
// `ptxray occupancy` shows; `analyze` runs the same rules on launches: AdvisorCasesTest).
#include "advisor/LaunchConfiguration.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>
#include <string>

namespace ptxray::advisor {
namespace {

ConfigurationView view(const arch::ComputeCapability &cc, arch::OccupancyInput input, std::optional<uint64_t> grid = {},
                       int sms = 0) {
  ConfigurationView v;
  v.cc = &cc;
  v.input = input;
  v.result = arch::computeOccupancy(cc, input);
  v.gridBlocks = grid;
  v.smCount = sms;
  return v;
}

std::vector<Finding> findings(int major, int minor, int threads, int registers, std::optional<uint64_t> grid = {},
                              int sms = 0, ConfigurationScope scope = ConfigurationScope::Calculator) {
  arch::OccupancyInput input;
  input.threadsPerBlock = threads;
  input.registersPerThread = registers;
  return adviseConfiguration(view(*arch::findComputeCapability(major, minor), input, grid, sms), Thresholds{}, scope);
}

std::set<std::string> rules(const std::vector<Finding> &all) {
  std::set<std::string> out;
  for (const Finding &f : all)
    out.insert(f.rule);
  return out;
}

TEST(LaunchConfiguration, BlockShape) {
  const auto odd = rules(findings(3, 5, 100, 16));
  EXPECT_TRUE(odd.count("block-not-warp-multiple"));
  EXPECT_TRUE(odd.count("block-size-range"));
  EXPECT_FALSE(odd.count("block-register-banks")); // a 1.x rule
  EXPECT_TRUE(rules(findings(1, 3, 96, 8)).count("block-register-banks"));
  EXPECT_TRUE(rules(findings(3, 5, 32, 16)).count("block-too-small"));
  EXPECT_EQ(rules(findings(3, 5, 128, 16)), std::set<std::string>{"occupancy-past-plateau"}); // the note only
  EXPECT_TRUE(rules(findings(2, 0, 1024, 16)).count("single-block-per-sm"));
}

TEST(LaunchConfiguration, Grid) {
  const auto few = rules(findings(3, 5, 256, 16, 10, 15));
  EXPECT_TRUE(few.count("grid-below-sm-count"));
  EXPECT_TRUE(few.count("grid-too-small-to-scale"));
  EXPECT_TRUE(rules(findings(3, 5, 256, 16, 60, 15)).count("grid-does-not-fill-gpu")); // 8 x 15 = 120 needed
  // 8 x 15 = 120 blocks a wave: 130 leave a tail of 10 (8% of a wave, about 46% of the SM time idle).
  EXPECT_TRUE(rules(findings(3, 5, 256, 16, 130, 15)).count("tail-wave"));
  const auto big = rules(findings(3, 5, 256, 16, 10 * 120, 15));
  for (const char *rule : {"grid-below-sm-count", "grid-does-not-fill-gpu", "grid-too-small-to-scale", "tail-wave"})
    EXPECT_FALSE(big.count(rule)) << rule;
  EXPECT_FALSE(rules(findings(3, 5, 256, 16)).count("grid-below-sm-count")); // no grid, no grid rules
}

// [BPG] 4.3: below 25% (CC 1.1) / 18.75% (1.2+) the register latency shows. 1.1 with 64-thread blocks and
// 60 registers: 64 x 60 = 3840 per block, 2 blocks, 4 warps of 24 = 16.7%.
TEST(LaunchConfiguration, OccupancyThresholds) {
  const auto low = findings(1, 1, 64, 60);
  EXPECT_TRUE(rules(low).count("occupancy-latency-hiding"));
  EXPECT_TRUE(rules(low).count("occupancy-limited"));
  EXPECT_FALSE(rules(findings(1, 1, 64, 20)).count("occupancy-latency-hiding"));
  EXPECT_TRUE(rules(findings(3, 5, 256, 16)).count("occupancy-past-plateau"));
  EXPECT_FALSE(rules(findings(2, 0, 256, 63)).count("occupancy-past-plateau"));
  // The calculator's notes are not a launch's findings: the time model judges a launch that ran.
  const auto launch = rules(findings(3, 5, 100, 16, {}, 0, ConfigurationScope::Launch));
  EXPECT_FALSE(launch.count("occupancy-past-plateau"));
  EXPECT_FALSE(launch.count("block-size-range"));
  EXPECT_TRUE(launch.count("block-not-warp-multiple"));
  // The 50% plateau is the advisor's one threshold: moved, the rule moves with it.
  Thresholds t;
  t.occupancyPlateau = 0.2;
  arch::OccupancyInput in;
  in.threadsPerBlock = 64;
  in.registersPerThread = 60;
  const ConfigurationView v = view(*arch::findComputeCapability(2, 0), in);
  ASSERT_LT(v.result.occupancy, 0.5);
  ASSERT_GT(v.result.occupancy, 0.2);
  EXPECT_TRUE(rules(adviseConfiguration(v, Thresholds{}, ConfigurationScope::Calculator)).count("occupancy-limited"));
  EXPECT_FALSE(rules(adviseConfiguration(v, t, ConfigurationScope::Calculator)).count("occupancy-limited"));
}

TEST(LaunchConfiguration, OccupancyLiftIsTheCalculatorRerun) {
  // 256 threads x 63 registers on Fermi: 2 blocks (33%); 32 registers fit 4 blocks.
  arch::OccupancyInput in;
  in.threadsPerBlock = 256;
  in.registersPerThread = 63;
  const ConfigurationView v = view(*arch::findComputeCapability(2, 0), in);
  const std::optional<OccupancyLift> lift = bestOccupancyLift(v);
  ASSERT_TRUE(lift);
  EXPECT_GT(lift->result.activeBlocksPerSm, v.result.activeBlocksPerSm);
  EXPECT_NE(lift->change.find("registers per thread"), std::string::npos) << lift->change;
}

TEST(LaunchConfiguration, FailuresAndSharedMemory) {
  const auto failing = findings(3, 0, 128, 80);
  ASSERT_FALSE(failing.empty());
  EXPECT_EQ(failing.front().rule, "launch-fails");
  EXPECT_FALSE(rules(failing).count("occupancy-latency-hiding"));

  const arch::ComputeCapability &ampere = *arch::findComputeCapability(8, 0);
  arch::OccupancyInput input;
  input.threadsPerBlock = 256;
  input.staticSharedBytes = 64 * 1024;
  input.carveoutPercent = 50;
  auto found = rules(adviseConfiguration(view(ampere, input), Thresholds{}, ConfigurationScope::Calculator));
  EXPECT_TRUE(found.count("static-shared-too-large"));
  EXPECT_TRUE(found.count("shared-opt-in"));
  EXPECT_FALSE(found.count("carveout-ignored"));
  const arch::ComputeCapability &kepler = *arch::findComputeCapability(3, 5);
  input.staticSharedBytes = 0;
  const auto keplerFindings = adviseConfiguration(view(kepler, input), Thresholds{}, ConfigurationScope::Calculator);
  EXPECT_TRUE(rules(keplerFindings).count("carveout-ignored"));
  for (const Finding &f : keplerFindings) {
    EXPECT_FALSE(f.guide.empty()) << f.rule;
    EXPECT_FALSE(f.fix.empty()) << f.rule;
  }
}

bool hasNegativeNumber(const std::string &text) {
  for (size_t i = 0; i + 1 < text.size(); ++i)
    if (text[i] == '-' && std::isdigit(static_cast<unsigned char>(text[i + 1])) &&
        (i == 0 || text[i - 1] == ' ' || text[i - 1] == '('))
      return true;
  return false;
}

// A launch far beyond any GPU: the failure with the real numbers, and no occupancy advice for it.
TEST(LaunchConfiguration, HugeLaunches) {
  constexpr int kBillion = 1'000'000'000;
  constexpr size_t kSizeMax = std::numeric_limits<size_t>::max();
  arch::OccupancyInput input;
  input.threadsPerBlock = kBillion;
  input.registersPerThread = 32;
  input.staticSharedBytes = kSizeMax / 2;
  input.dynamicSharedBytes = kSizeMax / 2 + 1;
  const std::vector<Finding> all =
      adviseConfiguration(view(*arch::findComputeCapability(9, 0), input, std::numeric_limits<uint64_t>::max(), 132),
                          Thresholds{}, ConfigurationScope::Calculator);
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.front().rule, "launch-fails");
  EXPECT_NE(all.front().title.find("the block needs 32000000000 registers"), std::string::npos) << all.front().title;
  for (const Finding &f : all) {
    EXPECT_NE(f.rule, "occupancy-latency-hiding") << f.title;
    EXPECT_NE(f.rule, "occupancy-past-plateau") << f.title;
    EXPECT_NE(f.rule, "grid-below-sm-count") << f.title;
    EXPECT_FALSE(hasNegativeNumber(f.title + " " + f.evidence + " " + f.fix)) << f.title;
  }
}

// Every rule these findings name is in the catalogue (with its priority and guide section).
TEST(LaunchConfiguration, EveryRuleIsCatalogued) {
  for (int threads : {32, 100, 128, 1024})
    for (const Finding &f : findings(2, 0, threads, 40, 5, 15))
      EXPECT_NE(findRule(f.rule), nullptr) << f.rule;
}

} // namespace
} // namespace ptxray::advisor
