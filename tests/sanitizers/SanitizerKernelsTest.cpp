// The planted-bug suite (tests/kernels/sanitizers): each bug is reported once, at the lines written
// into its CUDA source, with a hand-counted number of occurrences; each clean twin gives no report.
#include "sanitizers/SanitizerHarness.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

using sanitizers::Severity;

const std::string kRaces = "/tmp/ptxray-sanitizer-kernels/races.cu";
const std::string kReduce = "/tmp/ptxray-sanitizer-kernels/warp_reduce.cu";
const std::string kSync = "/tmp/ptxray-sanitizer-kernels/sync_errors.cu";

std::string place(const std::string &file, int line) {
  return file + ":" + std::to_string(line);
}

TEST(SanitizerKernels, ReadAfterWriteBetweenWarps) {
  ToolReports r = runWithTools(sanitizerSpec("race_raw"));
  ASSERT_EQ(r.racecheck.size(), 1u) << describeAll(r.racecheck);
  const sanitizers::Hazard &h = r.racecheck[0];
  EXPECT_EQ(h.severity, Severity::Error);
  EXPECT_EQ(h.headline, "Race reported between Write access at " + place(kRaces, 9) + " and Read access at " +
                            place(kRaces, 10) + " (Read-After-Write hazard, shared memory)");
  // Per block, warp 1 overwrites the 32 elements warp 0 read and reads the 32 warp 0 wrote: 64
  // thread accesses find the hazard; two blocks.
  EXPECT_EQ(h.occurrences, 128u);
  EXPECT_NE(h.describe().find("address 0x0 (shared), _ZZ15rawBetweenWarpsPKiPiE4tile"), std::string::npos)
      << h.describe();
  EXPECT_TRUE(r.synccheck.empty()) << describeAll(r.synccheck);
  EXPECT_EQ(r.raceErrors, 1u);
}

TEST(SanitizerKernels, WriteAfterReadBetweenWarps) {
  ToolReports r = runWithTools(sanitizerSpec("race_war"));
  ASSERT_EQ(r.racecheck.size(), 1u) << describeAll(r.racecheck);
  EXPECT_EQ(r.racecheck[0].headline, "Race reported between Read access at " + place(kRaces, 28) +
                                         " and Write access at " + place(kRaces, 29) +
                                         " (Write-After-Read hazard, shared memory)");
  EXPECT_EQ(r.racecheck[0].occurrences, 128u);
}

TEST(SanitizerKernels, WriteAfterWriteBetweenWarps) {
  ToolReports r = runWithTools(sanitizerSpec("race_waw"));
  ASSERT_EQ(r.racecheck.size(), 1u) << describeAll(r.racecheck);
  EXPECT_EQ(r.racecheck[0].headline, "Race reported between Write access at " + place(kRaces, 50) +
                                         " and Write access at " + place(kRaces, 50) +
                                         " (Write-After-Write hazard, shared memory)");
  // Warp 1's 32 stores land on the 32 slots warp 0 stored to; two blocks.
  EXPECT_EQ(r.racecheck[0].occurrences, 64u);
}

/// The unsynchronized reduction: nvcc keeps s[t] in a register and stores it once (line 18), after
/// reading s[t+16], s[t+8], ... (lines 14-18) that other lanes of the warp overwrite at that store.
/// Each store finds the earliest other-lane read of its element: s[16..31] were read at line 14,
/// s[8..15] at 15, s[4..7] at 16, s[2..3] at 17, s[1] at 18; per block 16, 8, 4, 2, 1.
void expectUnsynchronizedReduction(const ToolReports &r, Severity severity) {
  ASSERT_EQ(r.racecheck.size(), 5u) << describeAll(r.racecheck);
  const uint64_t perBlock[] = {16, 8, 4, 2, 1};
  for (int i = 0; i < 5; ++i) {
    const sanitizers::Hazard &h = r.racecheck[static_cast<size_t>(i)];
    EXPECT_EQ(h.severity, severity);
    EXPECT_EQ(h.headline, "Intra-warp hazard (Write-After-Read) between Read access at " + place(kReduce, 14 + i) +
                              " and Write access at " + place(kReduce, 18) + " in shared memory");
    EXPECT_EQ(h.occurrences, 2 * perBlock[i]) << h.describe();
  }
}

TEST(SanitizerKernels, UnsynchronizedLastWarpReductionIsAnErrorSinceVolta) {
  ToolReports r = runWithTools(sanitizerSpec("reduce_unsynchronized"), "sm_90");
  expectUnsynchronizedReduction(r, Severity::Error);
  EXPECT_EQ(r.raceErrors, 5u);
}

TEST(SanitizerKernels, UnsynchronizedLastWarpReductionIsAWarningBeforeVolta) {
  ToolReports r = runWithTools(sanitizerSpec("reduce_unsynchronized"), "sm_35");
  expectUnsynchronizedReduction(r, Severity::Warning);
  EXPECT_EQ(r.raceErrors, 0u);
  EXPECT_EQ(r.raceWarnings, 5u);
}

TEST(SanitizerKernels, SyncwarpReductionIsCleanEverywhere) {
  for (const char *arch : {"sm_90", "sm_35"}) {
    ToolReports r = runWithTools(sanitizerSpec("reduce_syncwarp"), arch);
    EXPECT_TRUE(r.racecheck.empty()) << arch << "\n" << describeAll(r.racecheck);
    EXPECT_TRUE(r.synccheck.empty()) << arch << "\n" << describeAll(r.synccheck);
  }
}

TEST(SanitizerKernels, VolatileReductionIsCleanOnlyInLockStep) {
  ToolReports kepler = runWithTools(sanitizerSpec("reduce_volatile"), "sm_35");
  EXPECT_TRUE(kepler.racecheck.empty()) << describeAll(kepler.racecheck);
  // Since Volta volatile is not enough: every step (lines 51-56) reads what another lane wrote the
  // step before (RAW) and writes what another lane read in the same step (WAR).
  ToolReports hopper = runWithTools(sanitizerSpec("reduce_volatile"), "sm_90");
  ASSERT_EQ(hopper.racecheck.size(), 10u) << describeAll(hopper.racecheck);
  for (int step = 0; step < 5; ++step) {
    const sanitizers::Hazard &raw = hopper.racecheck[static_cast<size_t>(2 * step)];
    const sanitizers::Hazard &war = hopper.racecheck[static_cast<size_t>(2 * step + 1)];
    EXPECT_EQ(raw.headline, "Intra-warp hazard (Read-After-Write) between Write access at " +
                                place(kReduce, 51 + step) + " and Read access at " + place(kReduce, 52 + step) +
                                " in shared memory");
    EXPECT_EQ(war.headline, "Intra-warp hazard (Write-After-Read) between Read access at " + place(kReduce, 52 + step) +
                                " and Write access at " + place(kReduce, 52 + step) + " in shared memory");
  }
  // The first step: lanes 0-15 read s[16..31], which lanes 16-31 wrote at line 51 and write again at
  // line 52: 16 of each per block, two blocks.
  EXPECT_EQ(hopper.racecheck[0].occurrences, 32u);
  EXPECT_EQ(hopper.racecheck[1].occurrences, 32u);
}

TEST(SanitizerKernels, BarrierOnlyHalfTheBlockReaches) {
  ToolReports r = runWithTools(sanitizerSpec("barrier_in_branch"));
  ASSERT_EQ(r.synccheck.size(), 1u) << describeAll(r.synccheck);
  const sanitizers::Hazard &h = r.synccheck[0];
  EXPECT_EQ(h.headline, "Barrier error: not every thread of the block reaches the barrier at " + place(kSync, 10) +
                            "; the others exited at " + place(kSync, 13));
  EXPECT_NE(h.describe().find("64 threads (0,0,0)-(63,0,0) arrived; 64 threads (64,0,0)-(127,0,0) exited instead"),
            std::string::npos)
      << h.describe();
  EXPECT_EQ(h.occurrences, 2u); // one barrier release per block
  EXPECT_TRUE(r.racecheck.empty()) << describeAll(r.racecheck);
}

TEST(SanitizerKernels, ShuffleWhoseMaskNamesLanesOnAnotherPath) {
  ToolReports r = runWithTools(sanitizerSpec("shfl_partial_mask"));
  ASSERT_EQ(r.synccheck.size(), 1u) << describeAll(r.synccheck);
  const sanitizers::Hazard &h = r.synccheck[0];
  EXPECT_NE(h.headline.find("membermask lanes never arrive at "), std::string::npos) << h.headline;
  EXPECT_TRUE(h.headline.ends_with("inlined into " + place(kSync, 31))) << h.headline;
  EXPECT_NE(h.describe().find("lanes 0-15 execute it; membermask lanes 16-31"), std::string::npos) << h.describe();
  EXPECT_EQ(h.occurrences, 4u); // every warp of both blocks
}

TEST(SanitizerKernels, CleanTwinsGiveNoReport) {
  for (const char *name : {"race_raw_clean", "race_war_clean", "race_waw_clean", "reduce_syncwarp", "barrier_for_all",
                           "shfl_half_warp_mask"}) {
    ToolReports r = runWithTools(sanitizerSpec(name));
    EXPECT_TRUE(r.outcome.ok()) << name << ": " << r.outcome.error;
    EXPECT_TRUE(r.racecheck.empty()) << name << "\n" << describeAll(r.racecheck);
    EXPECT_TRUE(r.synccheck.empty()) << name << "\n" << describeAll(r.synccheck);
  }
}

TEST(SanitizerKernels, ReportsDoNotDependOnWorkerCount) {
  for (const char *name : {"race_raw", "race_war", "reduce_volatile", "barrier_in_branch", "shfl_partial_mask"}) {
    session::RunSpec spec = sanitizerSpec(name);
    // 16 blocks, and buffers large enough for all of them: a block past a buffer's end would fault
    // and stop the launch after a number of blocks that depends on the workers' timing.
    const uint64_t scale = 16 / std::max<uint64_t>(spec.launches[0].grid.x, 1) + 1;
    spec.launches[0].grid = {16, 1, 1};
    for (session::SpecBuffer &b : spec.buffers)
      b.bytes *= scale;
    ToolReports one = runWithTools(spec, "sm_90", 1), four = runWithTools(spec, "sm_90", 4);
    ASSERT_TRUE(one.outcome.ok()) << name << ": " << one.outcome.error;
    ASSERT_TRUE(four.outcome.ok()) << name << ": " << four.outcome.error;
    ASSERT_FALSE(one.racecheck.empty() && one.synccheck.empty()) << name;
    EXPECT_EQ(describeAll(one.racecheck), describeAll(four.racecheck)) << name;
    EXPECT_EQ(describeAll(one.synccheck), describeAll(four.synccheck)) << name;
  }
}

} // namespace
} // namespace ptxray::test
