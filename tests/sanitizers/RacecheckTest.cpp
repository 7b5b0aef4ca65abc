// racecheck on small hand-written kernels: atomics, producer/consumer named barriers (bar.arrive),
// global memory on request.
#include "sanitizers/SanitizerHarness.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

using sanitizers::Severity;

// Every thread adds 1 to one shared counter; with `store` set, thread 0 then also stores to it.
const char *kAtomics = R"(
.visible .entry atomics(.param .u32 store)
{
  .reg .b32 %r<4>;
  .reg .pred %p<3>;
  .shared .align 4 .u32 counter;
  ld.param.u32 %r1, [store];
  mov.u32 %r3, %tid.x;
  atom.shared.add.u32 %r2, [counter], 1;
  setp.ne.u32 %p1, %r1, 0;
  setp.eq.u32 %p2, %r3, 0;
  and.pred %p1, %p1, %p2;
  @%p1 st.shared.u32 [counter], %r1;
  ret;
}
)";

TEST(Racecheck, AtomicsDoNotRaceWithEachOther) {
  InlineRun run = runInline(kAtomics, "atomics", {1}, {64}, false, uint32_t{0});
  ASSERT_TRUE(run.result.ok()) << describe(run.result);
  EXPECT_TRUE(run.racecheck.empty()) << describeAll(run.racecheck);
}

TEST(Racecheck, APlainStoreRacesWithAtomics) {
  InlineRun run = runInline(kAtomics, "atomics", {1}, {64}, false, uint32_t{7});
  ASSERT_TRUE(run.result.ok()) << describe(run.result);
  // Thread 0's store (its warp's second shared access) races with the atomics of the other lanes of
  // warp 0 (no __syncwarp between) and with warp 1's atomics (no barrier): both named atomic first.
  ASSERT_EQ(run.racecheck.size(), 2u) << describeAll(run.racecheck);
  EXPECT_TRUE(run.racecheck[0].headline.starts_with("Race reported between Atomic access at "))
      << run.racecheck[0].headline;
  EXPECT_TRUE(run.racecheck[0].headline.ends_with("(Write-After-Write hazard, shared memory)"));
  // Warp 1's first atomic finds thread 0's store and becomes the byte's last write; the other 31
  // atomics meet only atomics after it.
  EXPECT_EQ(run.racecheck[0].occurrences, 1u);
  EXPECT_TRUE(run.racecheck[1].headline.starts_with("Intra-warp hazard (Write-After-Write) between Atomic access"))
      << run.racecheck[1].headline;
  EXPECT_EQ(run.racecheck[1].occurrences, 1u); // thread 0's store finds lane 31's atomic
}

// Warp 1 produces buf[lane] and arrives at named barrier 1; warp 0 waits there for 64 threads and
// consumes. Without the barrier (synced = 0) the consumer's read races with the producer's write.
const char *kProducerConsumer = R"(
.visible .entry producerConsumer(.param .u64 out, .param .u32 synced)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<3>;
  .shared .align 4 .b8 buf[128];
  mov.u32 %r1, %tid.x;
  ld.param.u32 %r2, [synced];
  setp.ne.u32 %p2, %r2, 0;
  and.b32 %r3, %r1, 31;
  shl.b32 %r4, %r3, 2;
  mov.u32 %r5, buf;
  add.u32 %r6, %r5, %r4;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra CONSUMER;
  st.shared.u32 [%r6], %r1;
  @%p2 bar.arrive 1, 64;
  ret;
CONSUMER:
  @%p2 bar.sync 1, 64;
  ld.shared.u32 %r7, [%r6];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r7;
  ret;
}
)";

TEST(Racecheck, BarArriveOrdersTheProducerBeforeTheConsumer) {
  InlineRun run = runInline(kProducerConsumer, "producerConsumer", {1}, {64}, false, OutputWords{32}, uint32_t{1});
  ASSERT_TRUE(run.result.ok()) << describe(run.result);
  EXPECT_TRUE(run.racecheck.empty()) << describeAll(run.racecheck);
  EXPECT_TRUE(run.synccheck.empty()) << describeAll(run.synccheck);
}

TEST(Racecheck, ConsumerWithoutTheBarrierRaces) {
  InlineRun run = runInline(kProducerConsumer, "producerConsumer", {1}, {64}, false, OutputWords{32}, uint32_t{0});
  ASSERT_TRUE(run.result.ok()) << describe(run.result);
  // The VM happens to run the consumer first; the report still names the producer's write first
  // (both are their warp's first shared access; the store comes first in the code).
  ASSERT_EQ(run.racecheck.size(), 1u) << describeAll(run.racecheck);
  EXPECT_TRUE(run.racecheck[0].headline.starts_with("Race reported between Write access at test.ptx:"));
  EXPECT_TRUE(run.racecheck[0].headline.ends_with("(Read-After-Write hazard, shared memory)"));
  EXPECT_EQ(run.racecheck[0].occurrences, 32u);
}

// Every thread stores its index to the same global word.
const char *kGlobalStores = R"(
.visible .entry sameWord(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";

TEST(Racecheck, GlobalMemoryOnlyOnRequest) {
  EXPECT_TRUE(runInline(kGlobalStores, "sameWord", {1}, {64}, false, OutputWords{1}).racecheck.empty());
  InlineRun run = runInline(kGlobalStores, "sameWord", {2}, {64}, true, OutputWords{1});
  // Within a block, warp 1's first store finds warp 0's (the lanes of one store do not race with
  // each other); blocks are not compared: one occurrence per block.
  ASSERT_EQ(run.racecheck.size(), 1u) << describeAll(run.racecheck);
  EXPECT_TRUE(run.racecheck[0].headline.ends_with("(Write-After-Write hazard, global memory)"))
      << run.racecheck[0].headline;
  EXPECT_EQ(run.racecheck[0].occurrences, 2u);
}

TEST(Racecheck, SummaryLine) {
  EXPECT_EQ(sanitizers::summaryLine("RACECHECK", 2, 1), "RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warning)");
  EXPECT_EQ(sanitizers::summaryLine("SYNCCHECK", 1, 0), "SYNCCHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)");
  EXPECT_EQ(sanitizers::laneList(0x0000ffffu), "0-15");
  EXPECT_EQ(sanitizers::laneList(0x80000005u), "0,2,31");
}

} // namespace
} // namespace ptxray::test
