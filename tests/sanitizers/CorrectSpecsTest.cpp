// The project's correct kernels (every run spec of tests/kernels/vm: scans, reductions, tiled matrix
// products and transposes, histograms with shared atomics, __syncwarp tiles, device functions with
// parameters, malloc/free, printf) give no racecheck, synccheck, initcheck or leak report.
#include "sanitizers/SanitizerHarness.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

TEST(SanitizersOnCorrectKernels, EveryVmSpecIsClean) {
  const auto specs = filesUnder(sourceDir() / "tests/kernels/vm/specs", ".json");
  ASSERT_GE(specs.size(), 18u);
  for (const auto &file : specs) {
    ToolReports r = runWithTools(vm::loadRunSpec(file), "sm_90", 2);
    EXPECT_FALSE(r.outcome.launches.empty()) << file;
    EXPECT_TRUE(r.racecheck.empty()) << file << "\n" << describeAll(r.racecheck);
    EXPECT_TRUE(r.synccheck.empty()) << file << "\n" << describeAll(r.synccheck);
    EXPECT_TRUE(r.initcheck.empty()) << file << "\n" << describeAll(r.initcheck);
    EXPECT_TRUE(r.leaks.empty()) << file << "\n" << describeAll(r.leaks);
  }
}

} // namespace
} // namespace ptxray::test
