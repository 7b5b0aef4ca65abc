// The boards and compute capabilities of today's GPUs: Ampere's Jetson Orin (8.7), Ada's RTX 4090 and
// L40S, Ampere's A10, Blackwell's B200 (10.0) and RTX 5090 (12.0). Sources are those of
// ComputeCapabilityData.cpp and GpuData.cpp.
#include "arch/GpuDatabase.h"
#include "arch/OccupancyCalculator.h"

#include <gtest/gtest.h>

namespace ptxray::arch {
namespace {

constexpr int KiB = 1024;

const Gpu &gpu(std::string_view name) {
  ArchLookup found = findArch(name);
  EXPECT_TRUE(found && found.target->gpu) << found.error;
  return *found.target->gpu;
}

const ComputeCapability &cc(int major, int minor) {
  const ComputeCapability *found = findComputeCapability(major, minor);
  EXPECT_NE(found, nullptr) << major << "." << minor;
  return *found;
}

TEST(ModernBoards, FoundByTheirAliases) {
  const std::pair<const char *, const char *> expected[] = {{"rtx4090", "GeForce RTX 4090"},
                                                            {"4090", "GeForce RTX 4090"},
                                                            {"GeForce RTX 4090", "GeForce RTX 4090"},
                                                            {"l40s", "L40S"},
                                                            {"NVIDIA L40S", "L40S"},
                                                            {"a10", "A10"},
                                                            {"NVIDIA A10", "A10"},
                                                            {"orin", "Jetson AGX Orin 64GB"},
                                                            {"agxorin", "Jetson AGX Orin 64GB"},
                                                            {"Jetson AGX Orin", "Jetson AGX Orin 64GB"},
                                                            {"b200", "B200 SXM 180GB"},
                                                            {"B200 SXM", "B200 SXM 180GB"},
                                                            {"rtx5090", "GeForce RTX 5090"},
                                                            {"5090", "GeForce RTX 5090"},
                                                            {"GB202", "GeForce RTX 5090"},
                                                            {"ga10b", "Jetson AGX Orin 64GB"},
                                                            {"gb100", "B200 SXM 180GB"},
                                                            {"ad102", "GeForce RTX 4090"}};
  for (auto [alias, name] : expected)
    EXPECT_EQ(gpu(alias).name, name) << alias;
  // "a10" names the A10 and "a100" still the A100; "4090" and "5090" are GPUs (bare digits are a
  // capability only as two digits).
  EXPECT_EQ(gpu("a100").name, "A100 SXM4 40GB");
}

TEST(ModernBoards, ComputeCapabilities) {
  const std::pair<const char *, const char *> expected[] = {{"rtx4090", "8.9"}, {"l40s", "8.9"},  {"a10", "8.6"},
                                                            {"orin", "8.7"},    {"b200", "10.0"}, {"5090", "12.0"}};
  for (auto [alias, version] : expected) {
    EXPECT_EQ(gpu(alias).computeCapability().version(), version) << alias;
    EXPECT_EQ(findArch(alias).target->computeCapability->version(), version) << alias;
  }
  EXPECT_EQ(gpu("orin").computeCapability().architecture, "Ampere");
  EXPECT_EQ(gpu("b200").computeCapability().architecture, "Blackwell");
  EXPECT_EQ(gpu("5090").computeCapability().architecture, "Blackwell");
  EXPECT_EQ(gpu("rtx4090").computeCapability().architecture, "Ada Lovelace");
}

// The published bandwidth, within 1%, of memory clock x transfers per clock x bus width in bytes.
TEST(ModernBoards, TheoreticalBandwidthMatchesThePublishedFigure) {
  struct Published {
    const char *board;
    double gbps;
    const char *source;
  };
  const Published published[] = {
      {"rtx4090", 1008.0, "NVIDIA GeForce RTX 4090 specifications: 21 Gbps GDDR6X, 384-bit, 1008 GB/s"},
      {"l40s", 864.0, "NVIDIA L40S datasheet: 48 GB GDDR6 with ECC, 864 GB/s"},
      {"a10", 600.0, "NVIDIA A10 datasheet: 24 GB GDDR6, 600 GB/s"},
      {"orin", 204.8, "NVIDIA Jetson AGX Orin 64GB datasheet: 64 GB 256-bit LPDDR5, 204.8 GB/s"},
      {"b200", 7700.0, "NVIDIA HGX B200 specifications, per GPU: 180 GB HBM3e, 7.7 TB/s"},
      {"rtx5090", 1792.0, "NVIDIA GeForce RTX 5090 specifications: 28 Gbps GDDR7, 512-bit, 1792 GB/s"}};
  for (const Published &p : published)
    EXPECT_NEAR(gpu(p.board).theoreticalBandwidthGBps(), p.gbps, p.gbps * 0.01) << p.board << ": " << p.source;
  // The B200's driver-reported 7680-bit bus at 3996 MHz: 7.672 TB/s (pytorch/ao#4002); the 8 TB/s of the
  // 2024 announcement is the full 8192-bit memory, 4% more.
  EXPECT_DOUBLE_EQ(gpu("b200").theoreticalBandwidthBytesPerSecond(), 3996e6 * (7680 / 8) * 2);
}

TEST(ModernBoards, BoardFacts) {
  EXPECT_EQ(gpu("rtx4090").smCount, 128);
  EXPECT_EQ(gpu("l40s").smCount, 142);
  EXPECT_EQ(gpu("a10").smCount, 72);
  EXPECT_EQ(gpu("orin").smCount, 16);
  EXPECT_EQ(gpu("b200").smCount, 148);
  EXPECT_EQ(gpu("5090").smCount, 170);
  EXPECT_EQ(gpu("rtx4090").l2CacheBytes, 72 * KiB * KiB);
  EXPECT_EQ(gpu("l40s").l2CacheBytes, 96 * KiB * KiB);
  EXPECT_EQ(gpu("b200").l2CacheBytes, 132644864);
  EXPECT_EQ(gpu("5090").l2CacheBytes, 96 * KiB * KiB);
  EXPECT_EQ(gpu("rtx4090").defaultClockMHz(), 2520); // GPU Boost by default
  EXPECT_EQ(gpu("5090").defaultClockMHz(), 2407);
  EXPECT_FALSE(gpu("orin").pcieGeneration.has_value()); // integrated: shares the SoC's LPDDR5
  EXPECT_EQ(gpu("5090").pcieGeneration, 5);
  EXPECT_EQ(gpu("l40s").pcieGeneration, 4);
  EXPECT_TRUE(gpu("l40s").ecc);
  EXPECT_TRUE(gpu("b200").ecc);
  EXPECT_FALSE(gpu("rtx4090").ecc);
  EXPECT_EQ(gpu("b200").fp64ResultsPerClock(), 64); // 2:1 FP32:FP64, [PG13] Table 30
  EXPECT_EQ(gpu("5090").fp64ResultsPerClock(), 2);  // 64:1
  EXPECT_EQ(gpu("orin").fp64ResultsPerClock(), 2);
}

// [PG13] Tables 30-32: the occupancy limits of the new compute capabilities.
TEST(ModernBoards, ComputeCapabilityLimits) {
  const ComputeCapability &orin = cc(8, 7);
  EXPECT_EQ(orin.maxWarpsPerSm, 48);
  EXPECT_EQ(orin.maxThreadsPerSm, 1536);
  EXPECT_EQ(orin.maxBlocksPerSm, 16);
  EXPECT_EQ(orin.sharedPerSm, 164 * KiB);
  EXPECT_EQ(orin.sharedPerBlockOptIn, 163 * KiB);
  EXPECT_EQ(orin.combinedL1AndSharedBytes, 192 * KiB);
  EXPECT_EQ(orin.sharedCarveoutsBytes, cc(8, 0).sharedCarveoutsBytes);
  EXPECT_FALSE(orin.blockBarriersPerSm.has_value());

  const ComputeCapability &b200 = cc(10, 0);
  EXPECT_EQ(b200.maxWarpsPerSm, 64);
  EXPECT_EQ(b200.maxThreadsPerSm, 2048);
  EXPECT_EQ(b200.maxBlocksPerSm, 32);
  EXPECT_EQ(b200.sharedPerSm, 228 * KiB);
  EXPECT_EQ(b200.sharedPerBlockOptIn, 227 * KiB);
  EXPECT_EQ(b200.sharedReservedPerBlock, 1 * KiB);
  EXPECT_EQ(b200.combinedL1AndSharedBytes, 256 * KiB);
  EXPECT_EQ(b200.sharedCarveoutsBytes, cc(9, 0).sharedCarveoutsBytes);
  EXPECT_EQ(b200.blockBarriersPerSm, 64);
  EXPECT_EQ(b200.registersPerSm, 65536);

  const ComputeCapability &rtx5090 = cc(12, 0);
  EXPECT_EQ(rtx5090.maxWarpsPerSm, 48);
  EXPECT_EQ(rtx5090.maxThreadsPerSm, 1536);
  EXPECT_EQ(rtx5090.maxBlocksPerSm, 24);
  EXPECT_EQ(rtx5090.sharedPerSm, 100 * KiB);
  EXPECT_EQ(rtx5090.sharedPerBlockOptIn, 99 * KiB);
  EXPECT_EQ(rtx5090.combinedL1AndSharedBytes, 128 * KiB);
  EXPECT_EQ(rtx5090.sharedCarveoutsBytes, cc(8, 9).sharedCarveoutsBytes);
  EXPECT_EQ(rtx5090.blockBarriersPerSm, 24);

  for (const ComputeCapability *c : {&orin, &b200, &rtx5090}) {
    EXPECT_EQ(c->maxResidentGrids, 128) << c->version(); // [PG13] Table 30
    EXPECT_EQ(c->maxRegistersPerThread, 255) << c->version();
    EXPECT_EQ(c->maxLocalBytesPerThread, 512 * KiB) << c->version();
  }
}

OccupancyResult occupancyOn(int major, int minor, int threads, int registers) {
  OccupancyInput input;
  input.threadsPerBlock = threads;
  input.registersPerThread = registers;
  return computeOccupancy(cc(major, minor), input);
}

// One-warp blocks stop at the block limit: 16 of 48 warps on 8.7, 32 of 64 on 10.0, 24 of 48 on 12.0.
// 256 threads of 32 registers fill every SM.
TEST(ModernBoards, Occupancy) {
  EXPECT_EQ(occupancyOn(8, 7, 32, 32).activeWarpsPerSm, 16);
  EXPECT_EQ(occupancyOn(10, 0, 32, 32).activeWarpsPerSm, 32);
  EXPECT_EQ(occupancyOn(12, 0, 32, 32).activeWarpsPerSm, 24);
  EXPECT_EQ(occupancyOn(12, 0, 32, 32).limiters, (std::vector{OccupancyResource::Blocks, OccupancyResource::Barriers}));
  for (auto [major, minor] : {std::pair{8, 7}, {10, 0}, {12, 0}})
    EXPECT_DOUBLE_EQ(occupancyOn(major, minor, 256, 32).occupancy, 1.0) << major << "." << minor;
  // 128 registers per thread: 64 K registers hold 512 threads, 16 warps.
  EXPECT_EQ(occupancyOn(10, 0, 256, 128).activeWarpsPerSm, 16);
}

TEST(ModernBoards, NewCapabilitiesResolveToThemselvesAndTheirBoards) {
  const std::pair<const char *, const char *> expected[] = {
      {"sm_87", "8.7"},    {"compute_87", "8.7"}, {"8.7", "8.7"},          {"sm_100", "10.0"},
      {"sm_100a", "10.0"}, {"sm_100f", "10.0"},   {"compute_100", "10.0"}, {"10.0", "10.0"},
      {"sm_120", "12.0"},  {"sm_120a", "12.0"},   {"compute_120", "12.0"}, {"12.0", "12.0"}};
  for (auto [text, version] : expected) {
    ArchLookup found = findArch(text);
    ASSERT_TRUE(found) << text << ": " << found.error;
    EXPECT_EQ(found.target->computeCapability->version(), version) << text;
    EXPECT_EQ(found.target->gpu, nullptr) << text; // a capability names no board ...
  }
  // ... but stands for the first board of that capability.
  EXPECT_EQ(findArch("sm_87").target->board()->name, "Jetson AGX Orin 64GB");
  EXPECT_EQ(findArch("sm_100").target->board()->name, "B200 SXM 180GB");
  EXPECT_EQ(findArch("sm_120").target->board()->name, "GeForce RTX 5090");
  // The older capabilities keep their boards: the RTX 4090 and L40S come after the L4, the A10 after the 3090.
  EXPECT_EQ(findArch("sm_89").target->board()->name, "L4");
  EXPECT_EQ(findArch("sm_86").target->board()->name, "GeForce RTX 3090");
  EXPECT_EQ(findArch("sm_90").target->board()->name, "H100 SXM5 80GB");
  // Still unmodeled.
  EXPECT_EQ(findArch("sm_103").error.find("compute capability 10.3 is not modeled"), 0u);
  EXPECT_EQ(findArch("sm_121").error.find("compute capability 12.1 is not modeled"), 0u);
  EXPECT_NE(findArch("sm_103").error.find("8.6, 8.7, 8.9, 9.0, 10.0, 12.0"), std::string::npos);
}

TEST(ModernBoards, DisplayNames) {
  EXPECT_EQ(findArch("b200").target->displayName(), "B200 SXM 180GB (sm_100)");
  EXPECT_EQ(findArch("5090").target->displayName(), "GeForce RTX 5090 (sm_120)");
  EXPECT_EQ(findArch("orin").target->displayName(), "Jetson AGX Orin 64GB (sm_87)");
}

} // namespace
} // namespace ptxray::arch
