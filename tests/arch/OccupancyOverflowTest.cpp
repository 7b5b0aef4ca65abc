// Launches far beyond any GPU: the calculator must report them as failing launches with the true
// sizes, never with a size that wrapped round in 32 bits (or past SIZE_MAX) into something that fits.
#include "arch/OccupancyCalculator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <string>

namespace ptxray::arch {
namespace {

using enum LaunchFailure;

constexpr int kBillion = 1'000'000'000;
constexpr int kIntMax = std::numeric_limits<int>::max();
constexpr std::size_t kSizeMax = std::numeric_limits<std::size_t>::max();

const ComputeCapability &cc(int major, int minor) {
  return *findComputeCapability(major, minor);
}

OccupancyInput launch(int threads, int registers, std::size_t staticShared = 0, std::size_t dynamicShared = 0) {
  OccupancyInput input;
  input.threadsPerBlock = threads;
  input.registersPerThread = registers;
  input.staticSharedBytes = staticShared;
  input.dynamicSharedBytes = dynamicShared;
  return input;
}

bool has(const OccupancyResult &result, LaunchFailure failure) {
  return std::find(result.launchFailures.begin(), result.launchFailures.end(), failure) != result.launchFailures.end();
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// A number that wrapped past INT_MAX or LLONG_MAX usually prints as a negative one.
bool hasNegativeNumber(const std::string &text) {
  for (std::size_t at = text.find('-'); at != std::string::npos; at = text.find('-', at + 1))
    if (at + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[at + 1])))
      return true;
  return false;
}

/// Nothing the calculator computed may be negative or claim a block can run.
void expectNoBlockRuns(const OccupancyResult &result, const std::string &where) {
  EXPECT_FALSE(result.launches()) << where;
  EXPECT_EQ(result.activeBlocksPerSm, 0) << where;
  EXPECT_EQ(result.activeWarpsPerSm, 0) << where;
  EXPECT_EQ(result.occupancy, 0.0) << where;
  EXPECT_GE(result.allocatedWarpsPerBlock, 0) << where;
  EXPECT_GE(result.allocatedRegistersPerBlock, 0) << where;
  for (OccupancyResource resource :
       {OccupancyResource::Warps, OccupancyResource::Registers, OccupancyResource::SharedMemory,
        OccupancyResource::Blocks, OccupancyResource::Barriers})
    EXPECT_GE(result.limits.of(resource).value_or(0), 0) << where;
  EXPECT_FALSE(hasNegativeNumber(result.launchError)) << where << ": " << result.launchError;
}

// 10^9 threads of 32 registers: 31,250,000 warps of 1,024 registers = 3.2 * 10^10 registers, which
// wrapped to 1,935,228,928 in 32 bits. Every architecture refuses the block for its size and for its
// registers, and reports the real count.
TEST(OccupancyOverflow, BillionThreadBlock) {
  for (const ComputeCapability &c : computeCapabilities()) {
    OccupancyResult result = computeOccupancy(c, launch(kBillion, 32));
    expectNoBlockRuns(result, c.smName());
    EXPECT_TRUE(has(result, TooManyThreads)) << c.smName();
    EXPECT_TRUE(has(result, TooManyRegistersPerBlock)) << c.smName();
    EXPECT_EQ(result.allocatedWarpsPerBlock, kBillion / 32) << c.smName(); // a multiple of every granularity
    EXPECT_EQ(result.allocatedRegistersPerBlock, 32'000'000'000LL) << c.smName();
    EXPECT_EQ(result.limits.warps, 0) << c.smName();
    EXPECT_EQ(result.limits.registers, 0) << c.smName();
    EXPECT_TRUE(contains(result.launchError, "1000000000 threads per block exceed")) << result.launchError;
    EXPECT_TRUE(contains(result.launchError, "the block needs 32000000000 registers")) << result.launchError;
  }
  // Without registers only the block size fails.
  OccupancyResult noRegisters = computeOccupancy(cc(9, 0), launch(kBillion, 0));
  expectNoBlockRuns(noRegisters, "sm_90, no registers");
  EXPECT_EQ(noRegisters.launchFailures, std::vector{TooManyThreads});
  EXPECT_EQ(noRegisters.launchError, "1000000000 threads per block exceed the 1024 a block may have on sm_90");
}

// The largest block an int can describe, with the most registers: INT_MAX threads are 2^26 warps (the
// last one partial), and rounding the threads up to whole warps must not overflow either.
TEST(OccupancyOverflow, LargestIntInputs) {
  for (const ComputeCapability &c : computeCapabilities()) {
    OccupancyResult result = computeOccupancy(c, launch(kIntMax, kIntMax));
    expectNoBlockRuns(result, c.smName());
    EXPECT_TRUE(has(result, TooManyThreads)) << c.smName();
    EXPECT_TRUE(has(result, TooManyRegistersPerThread)) << c.smName();
    EXPECT_EQ(result.allocatedWarpsPerBlock, 1 << 26) << c.smName();
    // At least INT_MAX registers for each of the 2^26 warps' 32 threads.
    EXPECT_GE(result.allocatedRegistersPerBlock, static_cast<long long>(kIntMax) * 32 * (1 << 26)) << c.smName();
    EXPECT_TRUE(contains(result.launchError, "2147483647 threads per block exceed")) << result.launchError;
    EXPECT_TRUE(contains(result.launchError, "2147483647 registers per thread exceed")) << result.launchError;
  }
}

// A million registers per thread: 3.2 * 10^7 per warp, 2.56 * 10^8 for a 256-thread block, 10^15 for
// a block of 10^9 threads.
TEST(OccupancyOverflow, MillionRegisters) {
  OccupancyResult result = computeOccupancy(cc(9, 0), launch(256, 1'000'000));
  expectNoBlockRuns(result, "sm_90");
  EXPECT_EQ(result.launchFailures, std::vector{TooManyRegistersPerThread});
  EXPECT_EQ(result.allocatedRegistersPerBlock, 256'000'000);
  EXPECT_EQ(result.limits.registers, 0);
  EXPECT_EQ(result.launchError, "1000000 registers per thread exceed the 255 a thread can address on sm_90");
  for (const ComputeCapability &c : computeCapabilities()) {
    OccupancyResult block = computeOccupancy(c, launch(512, 1'000'000)); // 512: every CC's block size
    expectNoBlockRuns(block, c.smName());
    EXPECT_EQ(block.launchFailures, std::vector{TooManyRegistersPerThread}) << c.smName();
    EXPECT_EQ(block.allocatedRegistersPerBlock, 512'000'000LL) << c.smName();
    OccupancyResult huge = computeOccupancy(c, launch(kBillion, 1'000'000));
    expectNoBlockRuns(huge, c.smName());
    EXPECT_EQ(huge.allocatedRegistersPerBlock, 1'000'000'000'000'000LL) << c.smName();
  }
}

// Half of SIZE_MAX of static shared memory: the request plus H100's reserved 1 KB, rounded to its
// 128-byte unit, is 2^63 + 1024 bytes, printed in full.
TEST(OccupancyOverflow, HalfSizeMaxSharedMemory) {
  const std::size_t half = kSizeMax / 2; // 2^63 - 1
  OccupancyResult result = computeOccupancy(cc(9, 0), launch(256, 32, half));
  expectNoBlockRuns(result, "sm_90");
  EXPECT_EQ(result.launchFailures, std::vector{TooMuchSharedMemory});
  EXPECT_EQ(result.allocatedSharedBytesPerBlock, (std::size_t{1} << 63) + 1024);
  EXPECT_EQ(result.limits.sharedMemory, 0);
  EXPECT_EQ(result.launchError, "the block needs 9223372036854776832 bytes of shared memory, more than the 233472 "
                                "bytes a block may use on sm_90 even with the opt-in");
}

// Static plus dynamic shared memory past SIZE_MAX (with the reserved bytes, or once rounded to the
// allocation unit) wrapped round to a few bytes and the block "fit". It fails on every architecture,
// its size saturated at SIZE_MAX and the message giving the two sizes asked for.
TEST(OccupancyOverflow, SharedMemoryPastSizeMax) {
  const std::size_t half = kSizeMax / 2;
  const std::pair<std::size_t, std::size_t> requests[] = {{half, half},  {half, half + 1}, {half + 1, half + 1},
                                                          {kSizeMax, 0}, {0, kSizeMax},    {kSizeMax, kSizeMax}};
  for (const ComputeCapability &c : computeCapabilities()) {
    for (auto [staticBytes, dynamicBytes] : requests) {
      std::string where = c.smName() + " " + std::to_string(staticBytes) + " + " + std::to_string(dynamicBytes);
      OccupancyResult result = computeOccupancy(c, launch(256, 16, staticBytes, dynamicBytes));
      expectNoBlockRuns(result, where);
      EXPECT_EQ(result.launchFailures, std::vector{TooMuchSharedMemory}) << where;
      EXPECT_EQ(result.limits.sharedMemory, 0) << where;
      EXPECT_GE(result.allocatedSharedBytesPerBlock, staticBytes) << where;
      EXPECT_GE(result.allocatedSharedBytesPerBlock, dynamicBytes) << where;
      EXPECT_TRUE(contains(result.launchError, std::to_string(staticBytes))) << result.launchError;
    }
  }
  OccupancyResult sum = computeOccupancy(cc(9, 0), launch(256, 16, half, half + 1));
  EXPECT_EQ(sum.allocatedSharedBytesPerBlock, kSizeMax);
  EXPECT_EQ(sum.launchError, "the block asks for 9223372036854775807 bytes of static and 9223372036854775808 bytes "
                             "of dynamic shared memory, more than the 233472 bytes a block may use on sm_90 even "
                             "with the opt-in");
}

// The launch configurator and the available dynamic shared memory find nothing that runs.
TEST(OccupancyOverflow, ConfiguratorAndAvailableShared) {
  for (const ComputeCapability &c : computeCapabilities()) {
    EXPECT_EQ(suggestLaunchConfiguration(c, launch(0, 1'000'000), 132).blockSize, 0) << c.smName();
    EXPECT_EQ(suggestLaunchConfiguration(c, launch(0, kIntMax), 132).blockSize, 0) << c.smName();
    EXPECT_EQ(suggestLaunchConfiguration(c, launch(0, 32, kSizeMax / 2, kSizeMax / 2), 132).blockSize, 0) << c.smName();
    EXPECT_EQ(suggestLaunchConfiguration(c, launch(0, 32), 132, [](int) { return kSizeMax; }).blockSize, 0)
        << c.smName();
    EXPECT_EQ(availableDynamicSharedBytes(c, launch(128, 32, kSizeMax), 1), std::nullopt) << c.smName();
    EXPECT_EQ(availableDynamicSharedBytes(c, launch(kBillion, 32), 1), std::nullopt) << c.smName();
  }
}

} // namespace
} // namespace ptxray::arch
