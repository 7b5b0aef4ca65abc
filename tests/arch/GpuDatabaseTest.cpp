// Board facts and the theoretical bandwidth formula of the OpenCL Best Practices Guide §2.2.1.
#include "arch/GpuDatabase.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace ptxray::arch {
namespace {

const Gpu &gpu(std::string_view name) {
  ArchLookup found = findArch(name);
  EXPECT_TRUE(found && found.target->gpu) << found.error;
  return *found.target->gpu;
}

double truncatedToTenths(double value) {
  return std::floor(value * 10) / 10;
}

// BPG §2.2.1: 1107 MHz x (512 / 8) bytes x 2 = 141.6 GB/s, or 131.9 "GBps" with 1024^3 (the guide
// truncates both to one decimal: the exact values are 141.696 and 131.96).
TEST(GpuDatabase, Gtx280BandwidthMatchesTheGuide) {
  const Gpu &gtx280 = gpu("GTX 280");
  EXPECT_DOUBLE_EQ(gtx280.theoreticalBandwidthBytesPerSecond(), 1107e6 * 64 * 2);
  EXPECT_DOUBLE_EQ(truncatedToTenths(gtx280.theoreticalBandwidthGBps()), 141.6);
  EXPECT_DOUBLE_EQ(truncatedToTenths(gtx280.theoreticalBandwidthGiBps()), 131.9);
  EXPECT_EQ(gtx280.smCount, 30); // BPG §1.1: 30 multiprocessors
}

TEST(GpuDatabase, DatasheetBandwidths) {
  const std::pair<const char *, double> expected[] = {
      {"8800 GTX", 86.4},  {"GTX 480", 177.4}, {"M2090", 177.4}, {"GTX 680", 192.2}, {"K10", 160.0},
      {"K20", 208.0},      {"K20X", 249.6},    {"K40", 288.3},   {"780 Ti", 336.0},  {"K80", 240.4},
      {"TK1", 14.9},       {"GT 730", 40.0},   {"750 Ti", 86.4}, {"GTX 980", 224.3}, {"P100", 732.1},
      {"GTX 1080", 320.3}, {"V100", 898.0},    {"T4", 320.0},    {"A100", 1555.2},   {"RTX 3090", 936.0},
      {"L4", 300.0},       {"H100", 3352.3},   {"H200", 4814.3}};
  for (auto [name, gbps] : expected)
    EXPECT_DOUBLE_EQ(truncatedToTenths(gpu(name).theoreticalBandwidthGBps()), gbps) << name;
}

TEST(GpuDatabase, KeplerGuideFacts) {
  EXPECT_EQ(gpu("GTX 480").maxConcurrentKernels(), 16); // KTG §1.4.2.1
  EXPECT_EQ(gpu("GTX 680").maxConcurrentKernels(), 16);
  EXPECT_EQ(gpu("K20").maxConcurrentKernels(), 32);
  EXPECT_EQ(gpu("TK1").maxConcurrentKernels(), 4);
  EXPECT_EQ(gpu("K20X").hyperQQueues(), 32); // KTG §1.4.2.2
  EXPECT_EQ(gpu("K10").hyperQQueues(), 1);
  EXPECT_EQ(gpu("TK1").hyperQQueues(), 1);
  EXPECT_TRUE(gpu("K40").dynamicParallelism()); // KTG §1.4.2.3
  EXPECT_FALSE(gpu("TK1").dynamicParallelism());
  EXPECT_FALSE(gpu("GTX 680").dynamicParallelism());
  EXPECT_EQ(gpu("GTX 680").smCount, 8);  // KTG §1.4.1
  EXPECT_EQ(gpu("K10").gpusPerBoard, 2); // KTG §1.4.7
  EXPECT_EQ(gpu("K80").gpusPerBoard, 2);
  EXPECT_EQ(gpu("K20").pcieGeneration, 2); // KTG §1.4.8
  EXPECT_EQ(gpu("K20X").pcieGeneration, 2);
  EXPECT_EQ(gpu("K40").pcieGeneration, 3);
  EXPECT_EQ(gpu("K80").pcieGeneration, 3);
  EXPECT_FALSE(gpu("TK1").pcieGeneration.has_value());
  EXPECT_TRUE(gpu("K40").l1CachingOptIn()); // KTG §1.4.4.2: GK110B, GK20A, GK210 opt in
  EXPECT_TRUE(gpu("K80").l1CachingOptIn());
  EXPECT_TRUE(gpu("TK1").l1CachingOptIn());
  EXPECT_FALSE(gpu("K20").l1CachingOptIn());
  EXPECT_FALSE(gpu("GTX 680").l1CachingOptIn());
  EXPECT_EQ(gpu("K40").boostClocksMHz, (std::vector<int>{810, 875})); // KTG §1.4.6
  EXPECT_EQ(gpu("K40").maxBoostClockMHz(), 875);
  EXPECT_EQ(gpu("K40").defaultClockMHz(), 745); // [KTG] §1.4.6: boost is opt-in on the K40
  EXPECT_EQ(gpu("K80").defaultClockMHz(), 875); // dynamic boost by default
  EXPECT_EQ(gpu("K20").defaultClockMHz(), 706);
  EXPECT_TRUE(gpu("K80").dynamicBoostByDefault);
  EXPECT_EQ(gpu("K80").maxBoostClockMHz(), 875);
  EXPECT_EQ(gpu("K20").maxBoostClockMHz(), 706);
  EXPECT_EQ(gpu("K20").fp64ResultsPerClock(), 64);    // KTG §1.4.5.1: GK110 is double-precision strong
  EXPECT_EQ(gpu("GTX 680").fp64ResultsPerClock(), 8); // GK104, GK208 are not
  EXPECT_EQ(gpu("GT 730").fp64ResultsPerClock(), 8);
}

TEST(GpuDatabase, EveryGpuIsComplete) {
  std::set<std::string> keys;
  for (const Gpu &board : gpus()) {
    SCOPED_TRACE(board.name);
    EXPECT_NO_THROW(board.computeCapability());
    EXPECT_GT(board.smCount, 0);
    EXPECT_GT(board.baseClockMHz, 0);
    EXPECT_TRUE(std::is_sorted(board.boostClocksMHz.begin(), board.boostClocksMHz.end()));
    EXPECT_GT(board.memoryClockMHz, 0);
    EXPECT_EQ(board.memoryTransfersPerClock, 2);
    EXPECT_GT(board.memoryBusWidthBits, 0);
    EXPECT_GT(board.memoryBytes, 0u);
    EXPECT_FALSE(board.chip.empty());
    for (const auto &alias : board.aliases)
      EXPECT_TRUE(keys.insert(alias).second) << "duplicate alias " << alias;
    if (board.computeCapability().major >= 2) {
      EXPECT_GT(board.l2CacheBytes, 0);
    }
  }
  // One modern GPU per compute capability from 5.0 on, and every named Kepler board.
  for (const char *name :
       {"750 Ti", "GTX 980", "P100", "GTX 1080", "V100", "T4",     "A100", "RTX 3090", "L4",     "H100",
        "H200",   "K10",     "K20",  "K20X",     "K40",  "780 Ti", "K80",  "TK1",      "GT 730", "M2090"})
    EXPECT_TRUE(findArch(name)) << name;
}

} // namespace
} // namespace ptxray::arch
