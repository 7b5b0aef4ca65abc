// The calculator against what the CUDA driver answered on a real H200 (validation/occupancy): every
// recorded launch configuration must give the same active blocks, and the recorded device properties
// must be the ones the database holds for CC 9.0 and the H200.
#include "arch/GpuDatabase.h"
#include "arch/OccupancyCalculator.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace ptxray::arch {
namespace {

const char *const kRecording = PTXRAY_SOURCE_DIR "/validation/occupancy/h200-driver-occupancy.csv";

/// The integer after `"key": ` in the recorded device line.
long long deviceProperty(const std::string &line, const std::string &key) {
  std::size_t at = line.find("\"" + key + "\": ");
  EXPECT_NE(at, std::string::npos) << key;
  return at == std::string::npos ? -1 : std::stoll(line.substr(at + key.size() + 4));
}

TEST(OccupancyHardware, RecordedDeviceMatchesTheDatabase) {
  std::ifstream in(kRecording);
  ASSERT_TRUE(in) << kRecording;
  std::string line;
  while (std::getline(in, line) && line.find("# device:") != 0) {
  }
  ASSERT_EQ(line.find("# device:"), 0u);
  const ComputeCapability &cc = *findComputeCapability(9, 0);
  EXPECT_EQ(deviceProperty(line, "regs_per_sm"), cc.registersPerSm);
  EXPECT_EQ(deviceProperty(line, "regs_per_block"), cc.maxRegistersPerBlock);
  EXPECT_EQ(deviceProperty(line, "smem_per_sm"), cc.sharedPerSm);
  EXPECT_EQ(deviceProperty(line, "smem_per_block"), cc.sharedPerBlock);
  EXPECT_EQ(deviceProperty(line, "smem_per_block_optin"), cc.sharedPerBlockOptIn);
  EXPECT_EQ(deviceProperty(line, "reserved_smem_per_block"), cc.sharedReservedPerBlock);
  EXPECT_EQ(deviceProperty(line, "max_threads_per_sm"), cc.maxThreadsPerSm);
  EXPECT_EQ(deviceProperty(line, "max_blocks_per_sm"), cc.maxBlocksPerSm);
  EXPECT_EQ(deviceProperty(line, "max_threads_per_block"), cc.maxThreadsPerBlock);
  EXPECT_EQ(deviceProperty(line, "warp_size"), cc.warpSize);
  const Gpu &h200 = *findArch("h200").target->gpu;
  EXPECT_EQ(deviceProperty(line, "sms"), h200.smCount);
  EXPECT_EQ(deviceProperty(line, "l2_bytes"), h200.l2CacheBytes);
  EXPECT_EQ(deviceProperty(line, "mem_bus_bits"), h200.memoryBusWidthBits);
}

// Columns: num_regs, static_smem, block, dyn_smem, carveout (-1: no preference), active_blocks, error.
// The probe raised cudaFuncAttributeMaxDynamicSharedMemorySize to each dynamic size: the opt-in.
TEST(OccupancyHardware, EveryRecordedLaunchMatchesTheDriver) {
  std::ifstream in(kRecording);
  ASSERT_TRUE(in) << kRecording;
  const ComputeCapability &cc = *findComputeCapability(9, 0);
  std::string line;
  int rows = 0, mismatches = 0;
  std::ostringstream report;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.starts_with("num_regs"))
      continue;
    std::istringstream fields(line);
    std::string field;
    std::vector<long long> values;
    while (values.size() < 6 && std::getline(fields, field, ','))
      values.push_back(std::stoll(field));
    ASSERT_EQ(values.size(), 6u) << line;
    OccupancyInput input;
    input.registersPerThread = static_cast<int>(values[0]);
    input.staticSharedBytes = static_cast<std::size_t>(values[1]);
    input.threadsPerBlock = static_cast<int>(values[2]);
    input.dynamicSharedBytes = static_cast<std::size_t>(values[3]);
    if (values[4] >= 0)
      input.carveoutPercent = static_cast<int>(values[4]);
    int active = computeOccupancy(cc, input).activeBlocksPerSm;
    ++rows;
    if (active != values[5] && mismatches++ < 10)
      report << "\n  " << line << ": calculator says " << active;
  }
  EXPECT_GT(rows, 20000);
  EXPECT_EQ(mismatches, 0) << mismatches << " of " << rows << " recorded launches differ" << report.str();
}

} // namespace
} // namespace ptxray::arch
