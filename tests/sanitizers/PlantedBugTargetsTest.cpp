// The planted bugs compiled for other targets than compute_90 (tests/kernels/sanitizers/ptx/compute_75,
// nvcc 13; ptx/clang_sm35, clang 14): the reports name CUDA lines and count thread accesses, so they
// must not depend on the compiler or the target, only on the device's rules (sm_35 runs warps in
// lock-step: intra-warp hazards there are warnings, and volatile ones none).
#include "sanitizers/SanitizerHarness.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

using sanitizers::Hazard;
using sanitizers::Severity;

/// A headline without the header lines of inlining chains ("sm_30_intrinsics.hpp:409 inlined into
/// sync_errors.cu:31" becomes "sync_errors.cu:31"): nvcc's PTX has them, clang's line tables do not.
std::string withoutInliningChains(std::string headline) {
  const std::string link = " inlined into ";
  for (size_t at = headline.find(link); at != std::string::npos; at = headline.find(link)) {
    size_t start = headline.rfind(' ', at - 1);
    start = start == std::string::npos ? 0 : start + 1;
    headline.erase(start, at + link.size() - start);
  }
  return headline;
}

/// What a report says that no target may change: severity, headline (kind and CUDA lines) and the
/// number of occurrences; one line per report.
std::string targetIndependent(const std::vector<Hazard> &hazards) {
  std::string out;
  for (const Hazard &h : hazards)
    out += (h.severity == Severity::Error ? "error: " : "warning: ") + withoutInliningChains(h.headline) + " x" +
           std::to_string(h.occurrences) + "\n";
  return out;
}

struct Reports {
  std::string racecheck, synccheck, initcheck, leaks;
  size_t count = 0;
};

Reports reportsOf(const session::RunSpec &spec, const char *arch) {
  ToolReports r = runWithTools(spec, arch, 2);
  EXPECT_TRUE(r.outcome.error.empty() || !r.synccheck.empty()) << spec.module << ": " << r.outcome.error;
  return {targetIndependent(r.racecheck), targetIndependent(r.synccheck), targetIndependent(r.initcheck),
          targetIndependent(r.leaks), r.racecheck.size() + r.synccheck.size() + r.initcheck.size() + r.leaks.size()};
}

void expectSameReports(const char *name, const Reports &expected, const Reports &actual, const std::string &target) {
  EXPECT_EQ(actual.racecheck, expected.racecheck) << name << " from " << target;
  EXPECT_EQ(actual.synccheck, expected.synccheck) << name << " from " << target;
  EXPECT_EQ(actual.initcheck, expected.initcheck) << name << " from " << target;
  EXPECT_EQ(actual.leaks, expected.leaks) << name << " from " << target;
}

/// Each bug and how many reports it gives on sm_90 (tests/sanitizers/SanitizerKernelsTest.cpp and
/// InitcheckKernelsTest.cpp pin them): one, except the reductions' per-step hazards and race_raw, whose
/// read of the other warp's elements is also a read of shared memory not written yet (initcheck).
const std::pair<const char *, size_t> kBugs[] = {
    {"race_raw", 2},         {"race_war", 1},          {"race_waw", 1},          {"reduce_unsynchronized", 5},
    {"reduce_volatile", 10}, {"barrier_in_branch", 1}, {"shfl_partial_mask", 1}, {"init_global", 1},
    {"init_shared", 1},      {"init_local", 1},        {"leak_per_thread", 1}};
const char *const kTwins[] = {"race_raw_clean",   "race_war_clean",       "race_waw_clean",    "reduce_syncwarp",
                              "barrier_for_all",  "shfl_half_warp_mask",  "init_global_clean", "init_shared_clean",
                              "init_local_clean", "leak_per_thread_clean"};

TEST(PlantedBugTargets, Compute75GivesTheSameReportsAsCompute90) {
  for (auto [name, count] : kBugs) {
    Reports hopper = reportsOf(sanitizerSpec(name), "sm_90");
    ASSERT_EQ(hopper.count, count) << name;
    expectSameReports(name, hopper, reportsOf(sanitizerSpecFor(name, "compute_75"), "sm_75"), "compute_75");
  }
  for (const char *name : kTwins)
    EXPECT_EQ(reportsOf(sanitizerSpecFor(name, "compute_75"), "sm_75").count, 0u) << name;
}

TEST(PlantedBugTargets, ClangSm35GivesTheSameRacesBarriersAndUninitializedReads) {
  for (auto [name, count] : kBugs) {
    // Below: the reductions, whose rules differ on sm_35, and the write-after-write race, which clang
    // compiles away.
    if (std::string_view(name).starts_with("reduce_") || name == std::string_view("race_waw"))
      continue;
    Reports hopper = reportsOf(sanitizerSpec(name), "sm_90");
    ASSERT_EQ(hopper.count, count) << name;
    expectSameReports(name, hopper, reportsOf(sanitizerSpecFor(name, "clang_sm35"), "sm_35"), "clang_sm35");
  }
  for (const char *name : kTwins)
    EXPECT_EQ(reportsOf(sanitizerSpecFor(name, "clang_sm35"), "sm_35").count, 0u) << name;
}

TEST(PlantedBugTargets, ClangSm35ReductionsFollowTheLockStepRules) {
  // On sm_35 the unsynchronized reduction is a warning per hazard, never an error; with volatile
  // (lock-step, warp-synchronous code of the time) and with __syncwarp() it is clean.
  ToolReports unsynchronized = runWithTools(sanitizerSpecFor("reduce_unsynchronized", "clang_sm35"), "sm_35");
  EXPECT_EQ(unsynchronized.raceErrors, 0u) << describeAll(unsynchronized.racecheck);
  EXPECT_GE(unsynchronized.raceWarnings, 1u);
  for (const Hazard &h : unsynchronized.racecheck)
    EXPECT_TRUE(h.headline.starts_with("Intra-warp hazard")) << h.headline;
  for (const char *name : {"reduce_volatile", "reduce_syncwarp"}) {
    ToolReports r = runWithTools(sanitizerSpecFor(name, "clang_sm35"), "sm_35");
    EXPECT_TRUE(r.racecheck.empty()) << name << "\n" << describeAll(r.racecheck);
  }
}

TEST(PlantedBugTargets, ClangCompilesTheWriteAfterWriteRaceAway) {
  // wawBetweenWarps stores t to slot[t % 32] and reads it back after the barrier: racing stores are
  // undefined behaviour, so clang forwards t to the load and drops the shared array; its PTX has no
  // shared-memory access left to race (nvcc keeps both).
  ToolReports clang = runWithTools(sanitizerSpecFor("race_waw", "clang_sm35"), "sm_35");
  EXPECT_TRUE(clang.racecheck.empty()) << describeAll(clang.racecheck);
  const std::string ptx = readFile(sanitizerSpecFor("race_waw", "clang_sm35").module);
  const size_t kernel = ptx.find(".entry _Z15wawBetweenWarpsPi(");
  ASSERT_NE(kernel, std::string::npos);
  const std::string body = ptx.substr(kernel, ptx.find(".entry", kernel + 1) - kernel);
  EXPECT_EQ(body.find(".shared"), std::string::npos) << body;
}

} // namespace
} // namespace ptxray::test
