// synccheck on small hand-written kernels: named-barrier thread counts, membermasks, shuffle
// sources, deadlocks, different barrier instructions for one barrier.
#include "sanitizers/SanitizerHarness.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

bool contains(const sanitizers::Hazard &h, const std::string &text) {
  return h.describe().find(text) != std::string::npos;
}

TEST(Synccheck, NamedBarrierWithDifferentThreadCounts) {
  // Warp 0 asks barrier 1 for 64 threads, warp 1 for 96, at the same instruction.
  const char *ptx = R"(
.visible .entry counts()
{
  .reg .b32 %r<3>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  selp.u32 %r2, 64, 96, %p1;
  bar.sync 1, %r2;
  ret;
}
)";
  InlineRun run = runInline(ptx, "counts", {1}, {64}, false);
  ASSERT_EQ(run.synccheck.size(), 1u) << describeAll(run.synccheck);
  EXPECT_TRUE(run.synccheck[0].headline.starts_with("Barrier error: mismatched thread counts"));
  EXPECT_TRUE(contains(run.synccheck[0], "barrier 1 in block (0,0,0): warp 0 expects 64 threads, warp 1 expects 96 "
                                         "threads"))
      << run.synccheck[0].describe();
}

TEST(Synccheck, ExecutingLanesOutsideTheirMembermask) {
  const char *ptx = R"(
.visible .entry mask()
{
  bar.warp.sync 0x0000ffff;
  ret;
}
)";
  InlineRun run = runInline(ptx, "mask", {1}, {32}, false);
  ASSERT_EQ(run.synccheck.size(), 1u) << describeAll(run.synccheck);
  EXPECT_TRUE(run.synccheck[0].headline.starts_with("Invalid arguments: executing lanes are not in the membermask"));
  EXPECT_TRUE(contains(run.synccheck[0], "lanes 16-31 execute it but are not in their membermask (0x0000ffff)"));
}

TEST(Synccheck, ShuffleFromALaneThatDoesNotTakePart) {
  // Lanes 0-15 read lane 20, which is on the other path and outside their membermask.
  const char *ptx = R"(
.visible .entry source()
{
  .reg .b32 %r<4>;
  .reg .pred %p<2>;
  mov.u32 %r1, %laneid;
  setp.ge.u32 %p1, %r1, 16;
  @%p1 bra DONE;
  shfl.sync.idx.b32 %r2, %r1, 20, 0x1f, 0x0000ffff;
DONE:
  ret;
}
)";
  InlineRun run = runInline(ptx, "source", {1}, {32}, false);
  ASSERT_EQ(run.synccheck.size(), 1u) << describeAll(run.synccheck);
  EXPECT_TRUE(run.synccheck[0].headline.starts_with("Invalid arguments: shfl reads an inactive lane"));
  EXPECT_TRUE(contains(run.synccheck[0], "lanes 0-15 read lanes that do not take part (lane 0 reads lane 20, which "
                                         "is not executing the shuffle)"))
      << run.synccheck[0].describe();
}

TEST(Synccheck, DeadlockNamesWhereTheOtherThreadsWait) {
  // Warp 0 waits at barrier 0, warp 1 at barrier 1: neither completes (the VM reports the deadlock).
  const char *ptx = R"(
.visible .entry deadlock()
{
  .reg .b32 %r<2>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra FIRST;
  bar.sync 1;
  ret;
FIRST:
  bar.sync 0;
  ret;
}
)";
  InlineRun run = runInline(ptx, "deadlock", {1}, {64}, false);
  EXPECT_FALSE(run.result.ok());
  ASSERT_EQ(run.synccheck.size(), 2u) << describeAll(run.synccheck);
  for (const sanitizers::Hazard &h : run.synccheck)
    EXPECT_NE(h.headline.find("never completes; the threads it waits for are at test.ptx:"), std::string::npos)
        << h.headline;
  EXPECT_TRUE(contains(run.synccheck[0], "32 threads (32,0,0)-(63,0,0) wait here; 32 threads (0,0,0)-(31,0,0) wait at "
                                         "another barrier instead"))
      << describeAll(run.synccheck);
}

const char *kTwoBarriers = R"(
.visible .entry twoBarriers()
{
  .reg .b32 %r<2>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra FIRST;
  BARRIER 0;
  ret;
FIRST:
  BARRIER 0;
  ret;
}
)";

TEST(Synccheck, AlignedBarrierReachedThroughDifferentInstructions) {
  InlineRun run = runInline(replaceAll(kTwoBarriers, "BARRIER", "bar.sync"), "twoBarriers", {1}, {64}, false);
  ASSERT_TRUE(run.result.ok()) << describe(run.result);
  ASSERT_EQ(run.synccheck.size(), 1u) << describeAll(run.synccheck);
  EXPECT_TRUE(run.synccheck[0].headline.starts_with("Barrier error: threads of one block wait at different barriers"));
}

TEST(Synccheck, UnalignedBarrierMayBeReachedThroughDifferentInstructions) {
  InlineRun run = runInline(replaceAll(kTwoBarriers, "BARRIER", "barrier.sync"), "twoBarriers", {1}, {64}, false);
  ASSERT_TRUE(run.result.ok()) << describe(run.result);
  EXPECT_TRUE(run.synccheck.empty()) << describeAll(run.synccheck);
}

} // namespace
} // namespace ptxray::test
