// The project's correct kernels (every run spec of tests/kernels/vm: scans, reductions, tiled matrix
// products and transposes, histograms with shared atomics, __syncwarp tiles, device functions with
// parameters, malloc/free, printf), from both targets nvcc compiled them for, give no racecheck,
// synccheck, initcheck or leak report. (The clang legacy kernels and the nvcc corpus run under the
// four tools through tests/support/SanitizerWatch.h: the sanitizers.*_clean tests.)
#include "sanitizers/SanitizerHarness.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

void expectNoReport(const session::RunSpec &spec, const std::string &label) {
  ToolReports r = runWithTools(spec, "sm_90", 2);
  EXPECT_FALSE(r.outcome.launches.empty()) << label;
  EXPECT_TRUE(r.racecheck.empty()) << label << "\n" << describeAll(r.racecheck);
  EXPECT_TRUE(r.synccheck.empty()) << label << "\n" << describeAll(r.synccheck);
  EXPECT_TRUE(r.initcheck.empty()) << label << "\n" << describeAll(r.initcheck);
  EXPECT_TRUE(r.leaks.empty()) << label << "\n" << describeAll(r.leaks);
}

TEST(SanitizersOnCorrectKernels, EveryVmSpecIsClean) {
  const auto specs = filesUnder(sourceDir() / "tests/kernels/vm/specs", ".json");
  ASSERT_GE(specs.size(), 18u);
  for (const auto &file : specs)
    expectNoReport(session::loadRunSpec(file), file.string());
}

TEST(SanitizersOnCorrectKernels, EveryVmSpecIsCleanFromTheOtherTarget) {
  // The same specs with the module nvcc compiled for the other target (compute_75 / compute_90),
  // where the source was compiled for both (as tests/vm/KernelSpecTest.cpp runs them).
  const auto root = sourceDir() / "tests/kernels/vm";
  size_t runs = 0;
  for (const auto &file : filesUnder(root / "specs", ".json")) {
    session::RunSpec spec = session::loadRunSpec(file);
    const std::string target = spec.module.parent_path().filename().string();
    for (const char *other : {"compute_75", "compute_90"}) {
      const auto module = root / "ptx" / other / spec.module.filename();
      if (target == other || !std::filesystem::exists(module))
        continue;
      session::RunSpec variant = spec;
      variant.module = module;
      expectNoReport(variant, file.string() + " with " + module.string());
      ++runs;
    }
  }
  EXPECT_GE(runs, 17u);
}

} // namespace
} // namespace ptxray::test
