// racecheck follows synchronization built from atomics and strong loads and stores (the PTX memory
// model's release and acquire patterns), not only bar.sync and mbarriers: libcu++'s cuda::barrier
// and cuda::pipeline compiled for compute_75 are counters updated with atom.acq_rel and polled with
// ld.acquire, and must give no report. Strong accesses to the same word (atomics, ld/st .relaxed,
// volatile) are morally strong and never race with each other; a plain access and an atomic do.
#include "sanitizers/SanitizerHarness.h"

#include <algorithm>
#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

// ---------------------------------------------------------------------------------------------
// The correct compute_75 kernels of tests/kernels/async_copy.cu (nvcc 13)

class AtomicOrderingRaceCorpus : public ::testing::Test {
protected:
  void SetUp() override {
    path = sourceDir() / "tests/corpus/nvcc/compute_75/async_copy.ptx";
    if (!std::filesystem::exists(path))
      GTEST_SKIP() << path << " is not in the corpus";
  }
  std::filesystem::path path;
};

TEST_F(AtomicOrderingRaceCorpus, CudaPipelineOnAtomicsIsClean) {
  for (unsigned workers : {1u, 4u}) {
    VmHarness h("sm_90");
    sanitizers::Racecheck racecheck({90, false});
    h.device.setListener(&racecheck);
    h.options.threads = workers;
    auto &m = h.load(readFile(path), path.string());
    // The block sizes the VM test runs: one warp (its own lanes arrive and wait), and several
    // warps, whose producers and consumers meet only through the barrier words.
    for (unsigned block : {32u, 128u, 256u}) {
      uint64_t in = h.upload(std::vector<float>(2 * block, 1.5f));
      uint64_t out = h.zeros<float>(block);
      h.dynamicShared = 2 * block * sizeof(float);
      auto r = h.launch(m, "cuda_pipeline_copy", {1, 1, 1}, {block, 1, 1}, in, out, static_cast<int>(2 * block));
      ASSERT_TRUE(r.ok()) << describe(r);
      EXPECT_TRUE(racecheck.launchHazards().empty()) << block << " threads\n" << describeAll(racecheck.launchHazards());
    }
  }
}

TEST_F(AtomicOrderingRaceCorpus, PipelinePrimitivesAreClean) {
  VmHarness h("sm_90");
  sanitizers::Racecheck racecheck({90, false});
  h.device.setListener(&racecheck);
  auto &m = h.load(readFile(path), path.string());
  for (int tiles : {1, 2, 5}) {
    uint64_t in = h.upload(std::vector<float>(static_cast<size_t>(tiles) * 128 * 4, 2.0f));
    uint64_t out = h.zeros<float>(static_cast<size_t>(tiles) * 128 * 4);
    auto r = h.launch(m, "pipeline_primitives", {1, 1, 1}, {128, 1, 1}, in, out, tiles);
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_TRUE(racecheck.launchHazards().empty()) << tiles << " tiles\n" << describeAll(racecheck.launchHazards());
  }
}

TEST_F(AtomicOrderingRaceCorpus, BarrierCopyStillRacesAfterItsSplitArrive) {
  // Synchronization through the barrier's atomics must not hide the kernel's real race (see
  // MbarrierRaceTest.cpp for the mbarrier builds).
  VmHarness h("sm_90");
  sanitizers::Racecheck racecheck({90, false});
  h.device.setListener(&racecheck);
  auto &m = h.load(readFile(path), path.string());
  uint64_t in = h.upload(std::vector<int32_t>(2 * 256 * 4, 3));
  uint64_t out = h.zeros<int32_t>(2 * 256 * 4);
  auto r = h.launch(m, "barrier_copy", {2, 1, 1}, {256, 1, 1}, in, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  const std::string source = "/tmp/ptxray-corpus/kernels/async_copy.cu:";
  ASSERT_EQ(racecheck.launchHazards().size(), 1u) << describeAll(racecheck.launchHazards());
  // Named as for the mbarrier builds: the barrier's polls (a number of loads that depends on the
  // schedule) do not count in the order of accesses that names a pair.
  EXPECT_EQ(racecheck.launchHazards().front().headline, "Race reported between Read access at " + source +
                                                            "74 and Write access at " + source +
                                                            "77 (Write-After-Read hazard, shared memory)");
}

// ---------------------------------------------------------------------------------------------
// A hand-off through a shared flag: thread 0 (warp 0) runs PRODUCER, thread 32 (warp 1) runs
// CONSUMER; the other threads return at once.

const char *kHandOff = R"(
.visible .entry handOff()
{
  .reg .b32 %r<8>;
  .reg .pred %p<4>;
  .shared .align 4 .u32 data;
  .shared .align 4 .u32 flag;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra PRODUCER;
  setp.eq.u32 %p2, %r1, 32;
  @%p2 bra CONSUMER;
  ret;
PRODUCER:
PRODUCER_CODE
  ret;
CONSUMER:
CONSUMER_CODE
  ret;
}
)";

struct HandOff {
  std::string module;
  std::vector<sanitizers::Hazard> racecheck;
};

HandOff runHandOff(const std::string &producer, const std::string &consumer) {
  HandOff h;
  const std::string body = replaceAll(replaceAll(kHandOff, "PRODUCER_CODE", producer), "CONSUMER_CODE", consumer);
  h.module = sm90Module(body);
  for (unsigned workers : {1u, 2u}) {
    VmHarness vm;
    sanitizers::Racecheck racecheck({90, false});
    vm.device.setListener(&racecheck);
    vm.options.threads = workers;
    // Two CTAs: with one worker the second runs after the first set its flag, and what the first
    // published must not order the second's accesses (each CTA's own, in both cases).
    vm::LaunchResult result = vm.launch(vm.load(h.module), "handOff", {2}, {64});
    EXPECT_TRUE(result.ok()) << describe(result);
    if (workers == 1)
      h.racecheck = racecheck.launchHazards();
    else
      EXPECT_EQ(describeAll(racecheck.launchHazards()), describeAll(h.racecheck)) << "depends on the workers";
  }
  return h;
}

/// "test.ptx:LINE:" of the first line of `module` that contains `text`.
std::string placeOf(const std::string &module, const std::string &text) {
  const size_t at = module.find(text);
  EXPECT_NE(at, std::string::npos) << text;
  const auto line = std::count(module.begin(), module.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1;
  return "test.ptx:" + std::to_string(line) + ":";
}

/// The one report of `h`, checked to name `first` and `second` (instruction texts) in that order.
void expectOneRace(const HandOff &h, const std::string &first, const std::string &second, const char *kind,
                   const char *firstAccess, const char *secondAccess) {
  ASSERT_EQ(h.racecheck.size(), 1u) << describeAll(h.racecheck);
  const std::string &headline = h.racecheck.front().headline;
  EXPECT_TRUE(headline.starts_with(std::string("Race reported between ") + firstAccess + " access at " +
                                   placeOf(h.module, first)))
      << headline;
  EXPECT_NE(headline.find(std::string(" and ") + secondAccess + " access at " + placeOf(h.module, second)),
            std::string::npos)
      << headline;
  EXPECT_TRUE(headline.ends_with(std::string("(") + kind + " hazard, shared memory)")) << headline;
  EXPECT_EQ(h.racecheck.front().occurrences, 2u); // once per CTA
}

const char *kWriteData = "  st.shared.u32 [data], 42;\n";
const char *kReadData = "  ld.shared.u32 %r3, [data];\n";

/// Spins until `load` (which reads the flag into %r2) sees it set.
std::string spinOn(const std::string &load) {
  return "WAIT:\n" + load + "\n  setp.eq.u32 %p3, %r2, 0;\n  @%p3 bra WAIT;\n";
}

TEST(AtomicOrderingRace, ReleaseStoreAndAcquireLoadOrderTheData) {
  HandOff h = runHandOff(std::string(kWriteData) + "  st.release.cta.shared.u32 [flag], 1;",
                         spinOn("  ld.acquire.cta.shared.u32 %r2, [flag];") + kReadData);
  EXPECT_TRUE(h.racecheck.empty()) << describeAll(h.racecheck);
}

TEST(AtomicOrderingRace, ReleaseAtomicAndAcquireAtomicOrderTheData) {
  HandOff h = runHandOff(std::string(kWriteData) + "  atom.release.cta.shared.exch.b32 %r4, [flag], 1;",
                         spinOn("  atom.acquire.cta.shared.or.b32 %r2, [flag], 0;") + kReadData);
  EXPECT_TRUE(h.racecheck.empty()) << describeAll(h.racecheck);
}

TEST(AtomicOrderingRace, AtomicsAfterTheReleaseContinueItsSequence) {
  // The consumer reads the value of a relaxed read-modify-write that came after the release: it
  // still synchronizes with the release (a release sequence).
  HandOff h = runHandOff(std::string(kWriteData) + "  atom.release.cta.shared.exch.b32 %r4, [flag], 1;\n"
                                                   "  atom.relaxed.cta.shared.add.u32 %r5, [flag], 1;",
                         spinOn("  ld.acquire.cta.shared.u32 %r2, [flag];") + kReadData);
  EXPECT_TRUE(h.racecheck.empty()) << describeAll(h.racecheck);
}

TEST(AtomicOrderingRace, FencesMakeRelaxedAccessesSynchronize) {
  // fence + relaxed store is a release pattern, relaxed load + fence an acquire pattern.
  HandOff h = runHandOff(std::string(kWriteData) + "  fence.acq_rel.cta;\n  st.relaxed.cta.shared.u32 [flag], 1;",
                         spinOn("  ld.relaxed.cta.shared.u32 %r2, [flag];") + "  fence.acq_rel.cta;\n" + kReadData);
  EXPECT_TRUE(h.racecheck.empty()) << describeAll(h.racecheck);
}

TEST(AtomicOrderingRace, VolatileFlagWithMembarsSynchronizes) {
  // __threadfence() around a volatile flag, the pre-sm_70 idiom: volatile is relaxed.sys, membar
  // is fence.sc.
  HandOff h = runHandOff(std::string(kWriteData) + "  membar.cta;\n  st.volatile.shared.u32 [flag], 1;",
                         spinOn("  ld.volatile.shared.u32 %r2, [flag];") + "  membar.cta;\n" + kReadData);
  EXPECT_TRUE(h.racecheck.empty()) << describeAll(h.racecheck);
}

TEST(AtomicOrderingRace, DataWrittenAfterTheReleaseRaces) {
  HandOff h = runHandOff(std::string("  st.release.cta.shared.u32 [flag], 1;\n") + kWriteData,
                         spinOn("  ld.acquire.cta.shared.u32 %r2, [flag];") + kReadData);
  expectOneRace(h, kWriteData, kReadData, "Read-After-Write", "Write", "Read");
}

TEST(AtomicOrderingRace, RelaxedFlagWithoutFencesRaces) {
  // The flag's own accesses are morally strong (no report there); the data they do not order.
  HandOff h = runHandOff(std::string(kWriteData) + "  st.relaxed.cta.shared.u32 [flag], 1;",
                         spinOn("  ld.relaxed.cta.shared.u32 %r2, [flag];") + kReadData);
  expectOneRace(h, kWriteData, kReadData, "Read-After-Write", "Write", "Read");
}

TEST(AtomicOrderingRace, AFenceBeforeTheLoadIsNoAcquire) {
  // The acquire pattern is load then fence: a fence before the spin orders nothing after it.
  HandOff h = runHandOff(std::string(kWriteData) + "  fence.acq_rel.cta;\n  st.relaxed.cta.shared.u32 [flag], 1;",
                         "  fence.acq_rel.cta;\n" + spinOn("  ld.relaxed.cta.shared.u32 %r2, [flag];") + kReadData);
  expectOneRace(h, kWriteData, kReadData, "Read-After-Write", "Write", "Read");
}

TEST(AtomicOrderingRace, ReaderReleasesTheBufferBackToTheWriter) {
  // The other direction: thread 32 reads the data, then releases the flag; thread 0 acquires it
  // and only then overwrites the data (clean), or overwrites it before it waits (a race).
  const std::string consumer = std::string(kReadData) + "  st.release.cta.shared.u32 [flag], 1;";
  HandOff clean = runHandOff(spinOn("  ld.acquire.cta.shared.u32 %r2, [flag];") + kWriteData, consumer);
  EXPECT_TRUE(clean.racecheck.empty()) << describeAll(clean.racecheck);
  HandOff racy = runHandOff(std::string(kWriteData) + spinOn("  ld.acquire.cta.shared.u32 %r2, [flag];"), consumer);
  // Both are their warp's first shared access: racecheck names the pair in code order.
  expectOneRace(racy, kWriteData, kReadData, "Read-After-Write", "Write", "Read");
  // A writer that increments the data before it waits: its store is its second shared access, the
  // reader's load the reader's first, so the pair is named Write-After-Read.
  const std::string increment = "  ld.shared.u32 %r5, [data];\n  add.u32 %r5, %r5, 1;\n  st.shared.u32 [data], %r5;\n";
  HandOff early = runHandOff(increment + spinOn("  ld.acquire.cta.shared.u32 %r2, [flag];"), consumer);
  expectOneRace(early, kReadData, "  st.shared.u32 [data], %r5;", "Write-After-Read", "Read", "Write");
}

// Lanes 0 and 1 of one warp: lane 0 writes the data and sets the flag, then lane 1 reads the flag
// and the data (straight-line code, so lane 1 runs after lane 0 on every schedule).
const char *kLaneHandOff = R"(
.visible .entry laneHandOff()
{
  .reg .b32 %r<4>;
  .reg .pred %p<3>;
  .shared .align 4 .u32 data;
  .shared .align 4 .u32 flag;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  setp.eq.u32 %p2, %r1, 1;
  @%p1 st.shared.u32 [data], 42;
  @%p1 SET_FLAG;
  @%p2 GET_FLAG;
  @%p2 ld.shared.u32 %r3, [data];
  ret;
}
)";

std::vector<sanitizers::Hazard> laneHandOff(const std::string &set, const std::string &get) {
  InlineRun run = runInline(replaceAll(replaceAll(kLaneHandOff, "SET_FLAG", set), "GET_FLAG", get), "laneHandOff", {1},
                            {32}, false);
  EXPECT_TRUE(run.result.ok()) << describe(run.result);
  return run.racecheck;
}

TEST(AtomicOrderingRace, LanesOfAWarpHandOffThroughReleaseAndAcquire) {
  std::vector<sanitizers::Hazard> clean =
      laneHandOff("st.release.cta.shared.u32 [flag], 1", "ld.acquire.cta.shared.u32 %r2, [flag]");
  EXPECT_TRUE(clean.empty()) << describeAll(clean);
  // Relaxed flag accesses order nothing: an intra-warp hazard on the data (not on the flag).
  std::vector<sanitizers::Hazard> racy =
      laneHandOff("st.relaxed.cta.shared.u32 [flag], 1", "ld.relaxed.cta.shared.u32 %r2, [flag]");
  ASSERT_EQ(racy.size(), 1u) << describeAll(racy);
  EXPECT_TRUE(racy[0].headline.starts_with("Intra-warp hazard (Read-After-Write) between Write access"))
      << racy[0].headline;
  EXPECT_NE(racy[0].details[1].find("st.shared.u32 [data], 42"), std::string::npos) << racy[0].describe();
  EXPECT_NE(racy[0].details[2].find("ld.shared.u32 %r3, [data]"), std::string::npos) << racy[0].describe();
}

// ---------------------------------------------------------------------------------------------
// Strong accesses to one word: thread 0 adds to it with an atomic, thread OTHER reads it with LOAD.

const char *kStrongPair = R"(
.visible .entry strongPair()
{
  .reg .b32 %r<4>;
  .reg .pred %p<3>;
  .shared .align 4 .u32 word;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 atom.shared.add.u32 %r2, [word], 1;
  setp.eq.u32 %p2, %r1, OTHER;
  @%p2 LOAD %r3, [word];
  ret;
}
)";

std::vector<sanitizers::Hazard> strongPair(const std::string &load, int other) {
  const std::string ptx = replaceAll(replaceAll(kStrongPair, "LOAD", load), "OTHER", std::to_string(other));
  InlineRun run = runInline(ptx, "strongPair", {1}, {64}, false);
  EXPECT_TRUE(run.result.ok()) << describe(run.result);
  return run.racecheck;
}

TEST(AtomicOrderingRace, StrongLoadsDoNotRaceWithAtomics) {
  for (const char *load : {"ld.relaxed.cta.shared.u32", "ld.acquire.gpu.shared.u32", "ld.volatile.shared.u32"}) {
    std::vector<sanitizers::Hazard> hazards = strongPair(load, 32);
    EXPECT_TRUE(hazards.empty()) << load << "\n" << describeAll(hazards);
  }
}

TEST(AtomicOrderingRace, PlainLoadRacesWithAnAtomic) {
  std::vector<sanitizers::Hazard> hazards = strongPair("ld.shared.u32", 32);
  ASSERT_EQ(hazards.size(), 1u) << describeAll(hazards);
  EXPECT_TRUE(hazards[0].headline.starts_with("Race reported between Atomic access at test.ptx:"))
      << hazards[0].headline;
  EXPECT_TRUE(hazards[0].headline.ends_with("(Read-After-Write hazard, shared memory)")) << hazards[0].headline;
}

TEST(AtomicOrderingRace, WithinAWarpVolatileIsNoSynchronization) {
  // Lanes 0 and 1 of one warp: an explicitly strong load is morally strong with the atomic, a
  // volatile one is the lock-step idiom (an intra-warp hazard from sm_70 on), a plain one a hazard.
  EXPECT_TRUE(strongPair("ld.relaxed.cta.shared.u32", 1).empty());
  for (const char *load : {"ld.volatile.shared.u32", "ld.shared.u32"}) {
    std::vector<sanitizers::Hazard> hazards = strongPair(load, 1);
    ASSERT_EQ(hazards.size(), 1u) << load << "\n" << describeAll(hazards);
    EXPECT_TRUE(hazards[0].headline.starts_with("Intra-warp hazard (Read-After-Write) between Atomic access"))
        << hazards[0].headline;
  }
}

} // namespace
} // namespace ptxray::test
