// `--arch` spellings: compute capabilities, GPU names, aliases and chips, and the error on a miss.
#include "arch/GpuDatabase.h"

#include <gtest/gtest.h>

namespace ptxray::arch {
namespace {

std::string ccOf(std::string_view text) {
  ArchLookup found = findArch(text);
  return found ? found.target->computeCapability->version() : "error: " + found.error;
}

std::string gpuOf(std::string_view text) {
  ArchLookup found = findArch(text);
  return found && found.target->gpu ? found.target->gpu->name : "";
}

TEST(ArchLookup, ComputeCapabilitySpellings) {
  EXPECT_EQ(ccOf("sm_35"), "3.5");
  EXPECT_EQ(ccOf("SM_35"), "3.5");
  EXPECT_EQ(ccOf("compute_35"), "3.5");
  EXPECT_EQ(ccOf("3.5"), "3.5");
  EXPECT_EQ(ccOf("35"), "3.5");
  EXPECT_EQ(ccOf("sm_90a"), "9.0");
  EXPECT_EQ(ccOf("sm_10"), "1.0");
  EXPECT_EQ(ccOf("1.3"), "1.3");
  EXPECT_EQ(gpuOf("sm_35"), ""); // a capability names no board
}

TEST(ArchLookup, EveryModeledCapabilityIsFoundByItsNames) {
  for (const auto &cc : computeCapabilities()) {
    EXPECT_EQ(ccOf(cc.smName()), cc.version());
    EXPECT_EQ(ccOf(cc.version()), cc.version());
    EXPECT_EQ(ccOf("compute_" + std::to_string(cc.major * 10 + cc.minor)), cc.version());
  }
}

TEST(ArchLookup, GpuNamesAliasesAndChipsIgnoreCaseAndSpacing) {
  EXPECT_EQ(gpuOf("k40"), "Tesla K40");
  EXPECT_EQ(gpuOf("K40"), "Tesla K40");
  EXPECT_EQ(gpuOf("Tesla K40"), "Tesla K40");
  EXPECT_EQ(gpuOf("tesla-k40"), "Tesla K40");
  EXPECT_EQ(gpuOf("NVIDIA Tesla K40"), "Tesla K40");
  EXPECT_EQ(gpuOf("gk110b"), "Tesla K40");
  EXPECT_EQ(gpuOf("GK110"), "Tesla K20");
  EXPECT_EQ(gpuOf("h100"), "H100 SXM5 80GB");
  EXPECT_EQ(gpuOf("GTX 280"), "GeForce GTX 280");
  EXPECT_EQ(gpuOf("geforce gtx 480"), "GeForce GTX 480");
  EXPECT_EQ(gpuOf("8800 GTX"), "GeForce 8800 GTX");
  EXPECT_EQ(gpuOf("g80"), "GeForce 8800 GTX");
  EXPECT_EQ(gpuOf("gk210"), "Tesla K80");
  EXPECT_EQ(gpuOf("Jetson TK1"), "Jetson TK1");
  EXPECT_EQ(gpuOf("gk20a"), "Jetson TK1");
  EXPECT_EQ(gpuOf("gt730"), "GeForce GT 730");
  EXPECT_EQ(gpuOf("3090"), "GeForce RTX 3090"); // bare digits are a capability only as two digits
  EXPECT_EQ(ccOf("k80"), "3.7");
  EXPECT_EQ(ccOf("tk1"), "3.2");
}

TEST(ArchLookup, EveryGpuIsFoundByNameAliasAndItsCapability) {
  for (const Gpu &gpu : gpus()) {
    EXPECT_EQ(gpuOf(gpu.name), gpu.name);
    for (const auto &alias : gpu.aliases)
      EXPECT_EQ(gpuOf(alias), gpu.name) << alias;
    EXPECT_EQ(&findArch(gpu.name).target->gpu->computeCapability(), findArch(gpu.name).target->computeCapability);
  }
}

TEST(ArchLookup, UnknownNameListsWhatIsKnown) {
  ArchLookup found = findArch("gtx 9999");
  ASSERT_FALSE(found);
  EXPECT_NE(found.error.find("unknown architecture 'gtx 9999'"), std::string::npos);
  EXPECT_NE(found.error.find("sm_35"), std::string::npos);
  EXPECT_NE(found.error.find("Tesla K40 (GK110B, k40"), std::string::npos);
  EXPECT_NE(found.error.find("H200"), std::string::npos);
}

TEST(ArchLookup, UnmodeledCapabilityListsTheModeledOnes) {
  ArchLookup found = findArch("sm_103");
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error.find("compute capability 10.3 is not modeled"), 0u) << found.error;
  EXPECT_NE(found.error.find("1.0, 1.1, 1.2"), std::string::npos);
  EXPECT_FALSE(findArch(""));
  EXPECT_FALSE(findArch("sm_"));
  EXPECT_FALSE(findArch("3.55"));
  EXPECT_FALSE(findArch("730")); // neither a two-digit capability nor a GPU alias
  EXPECT_EQ(findArch("sm_121").error.find("compute capability 12.1 is not modeled"), 0u);
}

TEST(ArchLookup, DisplayName) {
  EXPECT_EQ(findArch("k40").target->displayName(), "Tesla K40 (sm_35)");
  EXPECT_EQ(findArch("compute_52").target->displayName(), "sm_52");
}

} // namespace
} // namespace ptxray::arch
