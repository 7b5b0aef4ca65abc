// Threads that wait for each other (tests/kernels/forward_progress.cu, nvcc 13 for compute_75,
// compute_90 and compute_100): a warp that spins yields after a quantum of loop iterations, so
// cooperative groups' multi-warp tiles and producer/consumer flags between warps finish with any
// worker count; a block that polls lets the worker start or resume other resident blocks, so flags
// between blocks and grid barriers work with one worker; lanes of one warp contending for a spin lock
// work from sm_70 on (independent thread scheduling) and hang before; a cooperative launch gets the
// grid workspace grid.sync() needs. What hangs on a GPU is reported, with each warp's line, long
// before the instruction budget.
#include "arch/GpuDatabase.h"
#include "model/PerformanceModel.h"
#include "sanitizers/Initcheck.h"
#include "sanitizers/Racecheck.h"
#include "sanitizers/Synccheck.h"
#include "support/TestFiles.h"
#include "support/VmHarness.h"
#include "vm/ListenerGroup.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <numeric>

using namespace ptxray;
using namespace ptxray::test;

namespace {

/// A buffer of zeros the host wrote (as cudaMemset would), so that initcheck, with
/// PTXRAY_TEST_SANITIZERS set, sees flags and counters the kernels poll as initialized.
template <class T> uint64_t zeroed(VmHarness &h, size_t count) {
  return h.upload(std::vector<T>(count));
}

struct CorpusCase {
  const char *dir;
  const char *arch;
};

class ForwardProgress : public ::testing::TestWithParam<CorpusCase> {
protected:
  void SetUp() override {
    path = sourceDir() / "tests/corpus/nvcc" / GetParam().dir / "forward_progress.ptx";
    if (!std::filesystem::exists(path))
      GTEST_SKIP() << path << " is not in the corpus";
  }
  std::filesystem::path path;
};

} // namespace

TEST_P(ForwardProgress, CooperativeGroupsTilesLargerThanAWarp) {
  // Below SM 8.0 the tiles need the block_tile_memory the program provides; from 8.0 on they use the
  // reserved shared memory (%reserved_smem_offset_1), which the kernel here relies on.
  if (std::string(GetParam().dir) == "compute_75")
    GTEST_SKIP() << "multi-warp tiles without block_tile_memory need compute_80 or newer";
  for (unsigned workers : {1u, 2u}) {
    VmHarness h(GetParam().arch);
    h.options.threads = workers;
    auto &m = h.load(readFile(path), path.string());
    const int blocks = 3, threads = 256;
    std::vector<int> in(blocks * threads);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = static_cast<int>(i * 7 % 101) - 50;
    for (int tile : {64, 128, 256}) {
      uint64_t din = h.upload(in);
      uint64_t dout = zeroed<int>(h, in.size() / tile);
      auto r = h.launch(m, "_Z11tile_reduceILi" + std::to_string(tile) + "EEvPKiPi", {blocks}, {threads}, din, dout);
      ASSERT_TRUE(r.ok()) << "tile " << tile << ", " << workers << " workers: " << describe(r);
      std::vector<int> got = h.download<int>(dout, in.size() / tile);
      for (size_t t = 0; t < got.size(); ++t)
        EXPECT_EQ(got[t], std::accumulate(in.begin() + t * tile, in.begin() + (t + 1) * tile, 0))
            << "tile " << tile << " #" << t << ", " << workers << " workers";
    }
  }
}

TEST_P(ForwardProgress, CooperativeGroupsTilesWithTheProgramsScratchMemory) {
  // block_tile_memory: multi-warp tiles on every target, compute_75 included.
  for (unsigned workers : {1u, 2u}) {
    VmHarness h(GetParam().arch);
    h.options.threads = workers;
    auto &m = h.load(readFile(path), path.string());
    const int blocks = 3, threads = 256;
    std::vector<int> in(blocks * threads);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = static_cast<int>(i * 11 % 97) - 40;
    for (int tile : {64, 128, 256}) {
      uint64_t din = h.upload(in);
      uint64_t dout = zeroed<int>(h, in.size() / tile);
      auto r =
          h.launch(m, "_Z19tile_reduce_scratchILi" + std::to_string(tile) + "EEvPKiPi", {blocks}, {threads}, din, dout);
      ASSERT_TRUE(r.ok()) << "tile " << tile << ", " << workers << " workers: " << describe(r);
      std::vector<int> got = h.download<int>(dout, in.size() / tile);
      for (size_t t = 0; t < got.size(); ++t)
        EXPECT_EQ(got[t], std::accumulate(in.begin() + t * tile, in.begin() + (t + 1) * tile, 0))
            << "tile " << tile << " #" << t << ", " << workers << " workers";
    }
  }
}

TEST_P(ForwardProgress, ConsumerWarpPollsTheProducersFlag) {
  for (unsigned workers : {1u, 2u}) {
    VmHarness h(GetParam().arch);
    h.options.threads = workers;
    auto &m = h.load(readFile(path), path.string());
    uint64_t out = zeroed<int>(h, 32 * 4);
    auto r = h.launch(m, "producer_consumer", {4}, {64}, out);
    ASSERT_TRUE(r.ok()) << describe(r);
    std::vector<int> got = h.download<int>(out, 32);
    for (int i = 0; i < 32; ++i)
      EXPECT_EQ(got[i], i * 3 + 1);
  }
}

TEST_P(ForwardProgress, AFlagNobodySetsIsALivelockWithEachWarpsLine) {
  VmHarness h(GetParam().arch);
  auto &m = h.load(readFile(path), path.string());
  uint64_t flag = zeroed<int>(h, 1), out = zeroed<int>(h, 64);
  const auto start = std::chrono::steady_clock::now();
  auto r = h.launch(m, "livelock", {2}, {64}, flag, out);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.status, vm::LaunchStatus::Faulted);
  ASSERT_FALSE(r.faults.empty());
  const vm::Fault &f = r.faults.front();
  EXPECT_EQ(f.kind, vm::FaultKind::Livelock) << describe(r);
  EXPECT_NE(f.sourceLine.find("forward_progress.cu:64"), std::string::npos) << f.sourceLine;
  EXPECT_NE(f.detail.find("warp 0 polls at"), std::string::npos) << f.detail;
  EXPECT_NE(f.detail.find("warp 1 polls at"), std::string::npos) << f.detail;
  EXPECT_NE(f.detail.find("forward_progress.cu:64)"), std::string::npos) << f.detail;
  // Found in a fraction of a second, not after the instruction budget of the whole launch.
  EXPECT_LT(seconds, 5.0);
}

TEST_P(ForwardProgress, BlockWaitsForAFlagALaterBlockRaises) {
  for (unsigned workers : {1u, 2u}) {
    VmHarness h(GetParam().arch);
    h.options.threads = workers;
    auto &m = h.load(readFile(path), path.string());
    uint64_t flag = zeroed<int>(h, 1), data = zeroed<int>(h, 64), out = zeroed<int>(h, 64);
    auto r = h.launch(m, "_Z14inter_cta_flagPViPiS1_", {6}, {64}, flag, data, out);
    ASSERT_TRUE(r.ok()) << workers << " workers: " << describe(r);
    std::vector<int> got = h.download<int>(out, 64);
    for (int i = 0; i < 64; ++i)
      EXPECT_EQ(got[i], i * 5 + 1) << i << ", " << workers << " workers";
  }
}

TEST_P(ForwardProgress, LastBlockAddsThePartialSums) {
  for (unsigned workers : {1u, 2u}) {
    VmHarness h(GetParam().arch);
    h.options.threads = workers;
    auto &m = h.load(readFile(path), path.string());
    const int blocks = 7, threads = 128;
    std::vector<int> in(blocks * threads);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = static_cast<int>(i % 13) - 4;
    uint64_t din = h.upload(in), partial = zeroed<int>(h, blocks), ticket = zeroed<unsigned>(h, 1),
             out = zeroed<int>(h, 1);
    auto r = h.launch(m, "_Z14last_block_sumPKiPiPjS1_", {blocks}, {threads}, din, partial, ticket, out);
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(h.download<int>(out, 1)[0], std::accumulate(in.begin(), in.end(), 0)) << workers << " workers";
    EXPECT_EQ(h.download<unsigned>(ticket, 1)[0], 0u);
  }
}

TEST_P(ForwardProgress, LanesOfOneWarpTakeASpinLockInTurn) {
  for (unsigned workers : {1u, 2u}) {
    VmHarness h(GetParam().arch);
    h.options.threads = workers;
    auto &m = h.load(readFile(path), path.string());
    const int blocks = 3, threads = 96;
    uint64_t lock = zeroed<int>(h, 1), counter = zeroed<int>(h, 1), order = zeroed<int>(h, blocks * threads);
    auto r = h.launch(m, "_Z17spin_lock_counterPiPViS_", {blocks}, {threads}, lock, counter, order);
    ASSERT_TRUE(r.ok()) << workers << " workers: " << describe(r);
    EXPECT_EQ(h.download<int>(counter, 1)[0], blocks * threads);
    EXPECT_EQ(h.download<int>(lock, 1)[0], 0);
    // Every thread held the lock exactly once.
    std::vector<int> got = h.download<int>(order, blocks * threads);
    std::sort(got.begin(), got.end());
    for (int i = 0; i < blocks * threads; ++i)
      ASSERT_EQ(got[i], i);
  }
}

TEST_P(ForwardProgress, LanesLeavingTheLockWaitAtTheShuffleForTheOthers) {
  for (unsigned workers : {1u, 2u}) {
    VmHarness h(GetParam().arch);
    h.options.threads = workers;
    auto &m = h.load(readFile(path), path.string());
    const int blocks = 2, threads = 64, warps = blocks * threads / 32;
    uint64_t lock = zeroed<int>(h, 1), counter = zeroed<int>(h, 1), out = zeroed<int>(h, warps);
    auto r = h.launch(m, "_Z18lock_then_warp_sumPiPViS_", {blocks}, {threads}, lock, counter, out);
    ASSERT_TRUE(r.ok()) << workers << " workers: " << describe(r);
    EXPECT_EQ(h.download<int>(counter, 1)[0], blocks * threads);
    std::vector<int> got = h.download<int>(out, warps);
    for (int w = 0; w < warps; ++w)
      EXPECT_EQ(got[w], (w % 2) * 32 * 32 + 496) << "warp " << w << ", " << workers << " workers";
  }
}

TEST_P(ForwardProgress, GridSyncInACooperativeLaunch) {
  for (unsigned workers : {1u, 2u}) {
    VmHarness h(GetParam().arch);
    h.options.threads = workers;
    h.cooperative = true;
    auto &m = h.load(readFile(path), path.string());
    const int blocks = 12, threads = 64, n = blocks * threads;
    uint64_t values = zeroed<int>(h, n), out = zeroed<int>(h, n);
    auto r = h.launch(m, "_Z16grid_sync_mirrorPiS_", {blocks}, {threads}, values, out);
    ASSERT_TRUE(r.ok()) << workers << " workers: " << describe(r);
    std::vector<int> got = h.download<int>(out, n);
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(got[i], (n - 1 - i) * 3 + 1) << i << ", " << workers << " workers";
    for (int v : h.download<int>(values, n))
      ASSERT_EQ(v, 0);
  }
}

TEST_P(ForwardProgress, CooperativeLaunchesAreCheckedAgainstResidency) {
  VmHarness h(GetParam().arch);
  auto &m = h.load(readFile(path), path.string());
  auto *kernel = m.findKernel("_Z16grid_sync_mirrorPiS_");
  ASSERT_NE(kernel, nullptr);
  const uint64_t limit = h.device.residentCtaLimit(m, *kernel, {{1}, {64}, 0, true});
  ASSERT_GE(limit, 4u); // at least a block per SM of the harness's 4
  uint64_t values = zeroed<int>(h, 64 * (limit + 1)), out = zeroed<int>(h, 64 * (limit + 1));
  h.cooperative = true;
  auto r = h.launch(m, "_Z16grid_sync_mirrorPiS_", {static_cast<uint32_t>(limit + 1)}, {64}, values, out);
  ASSERT_EQ(r.status, vm::LaunchStatus::Refused);
  EXPECT_NE(r.error.find("too many blocks in cooperative launch"), std::string::npos) << r.error;
  // Without a cooperative launch there is no grid workspace: cooperative groups trap, as on a GPU.
  h.cooperative = false;
  r = h.launch(m, "_Z16grid_sync_mirrorPiS_", {2}, {64}, values, out);
  EXPECT_EQ(r.status, vm::LaunchStatus::Faulted) << describe(r);
}

TEST_P(ForwardProgress, GridBarrierWorksWhileEveryBlockFitsAndHangsBeyond) {
  VmHarness h(GetParam().arch);
  auto &m = h.load(readFile(path), path.string());
  auto *kernel = m.findKernel("_Z18naive_grid_barrierPjPi");
  ASSERT_NE(kernel, nullptr);
  const uint64_t limit = h.device.residentCtaLimit(m, *kernel, {{1}, {32}, 0});
  for (unsigned workers : {1u, 2u}) {
    h.options.threads = workers;
    const uint32_t blocks = static_cast<uint32_t>(limit);
    uint64_t arrived = zeroed<unsigned>(h, 1), out = zeroed<int>(h, blocks * 32);
    auto r = h.launch(m, "_Z18naive_grid_barrierPjPi", {blocks}, {32}, arrived, out);
    ASSERT_TRUE(r.ok()) << blocks << " blocks, " << workers << " workers: " << describe(r);
    std::vector<int> got = h.download<int>(out, blocks * 32);
    for (uint32_t i = 0; i < blocks * 32; ++i)
      ASSERT_EQ(got[i], static_cast<int>(i / 32 + 1));
  }
  // One block more than can be resident: the first `limit` wait for one that never starts.
  h.options.threads = 1;
  const uint32_t blocks = static_cast<uint32_t>(limit + 1);
  uint64_t arrived = zeroed<unsigned>(h, 1), out = zeroed<int>(h, blocks * 32);
  const auto start = std::chrono::steady_clock::now();
  auto r = h.launch(m, "_Z18naive_grid_barrierPjPi", {blocks}, {32}, arrived, out);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.status, vm::LaunchStatus::Faulted);
  const vm::Fault &f = r.faults.front();
  EXPECT_EQ(f.kind, vm::FaultKind::Livelock) << describe(r);
  EXPECT_NE(f.detail.find("1 more block of the grid cannot start"), std::string::npos) << f.detail;
  // Found long before the default budget of 10^10 thread-instructions would stop it (the time taken
  // depends on the build: ASan with every sanitizer listening is some 20x slower).
  EXPECT_LT(r.threadInstructions, 1'000'000'000u) << seconds << " s";
}

TEST_P(ForwardProgress, ListenersFollowEveryResidentBlock) {
  // One worker keeps all 12 blocks of a grid barrier resident at once, each under its own listener
  // slot: the performance model and the sanitizers see every block's events and merge them.
  VmHarness h(GetParam().arch);
  model::PerformanceModel perf(*arch::findArch(GetParam().arch).target);
  sanitizers::Racecheck racecheck({GetParam().arch == std::string("sm_75") ? 75 : 90, false});
  sanitizers::Synccheck synccheck;
  sanitizers::Initcheck initcheck;
  vm::ListenerGroup group;
  for (vm::Listener *l : std::initializer_list<vm::Listener *>{&perf, &racecheck, &synccheck, &initcheck})
    group.add(l);
  h.device.setListener(&group);
  h.cooperative = true;
  auto &m = h.load(readFile(path), path.string());
  const int blocks = 12, threads = 64, n = blocks * threads;
  uint64_t values = h.upload(std::vector<int>(n)), out = h.upload(std::vector<int>(n));
  auto r = h.launch(m, "_Z16grid_sync_mirrorPiS_", {blocks}, {threads}, values, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_TRUE(racecheck.launchHazards().empty());
  EXPECT_TRUE(synccheck.launchHazards().empty());
  EXPECT_TRUE(initcheck.launchHazards().empty());
  ASSERT_EQ(perf.launches().size(), 1u);
  // Every thread stored two values[] elements and one out[] element: both arrays, whole.
  EXPECT_EQ(perf.launches()[0].writeFootprintBytes, 2u * n * sizeof(int));
  EXPECT_EQ(perf.launches()[0].ctasSimulated, static_cast<uint64_t>(blocks));
}

INSTANTIATE_TEST_SUITE_P(Nvcc, ForwardProgress,
                         ::testing::Values(CorpusCase{"compute_75", "sm_75"}, CorpusCase{"compute_90", "sm_90"},
                                           CorpusCase{"compute_100", "sm_90"}),
                         [](const auto &info) { return std::string(info.param.dir); });

// The spin lock in hand-written PTX for sm_60: before Volta a warp's lanes run in lock-step, so the
// lane that takes the lock waits at the loop's exit for lanes that spin forever (a hang on those
// GPUs, reported); from sm_70 on the same code works.
namespace {
const char *kSpinLockPtx = R"(
.version 6.0
.target sm_60
.address_size 64
.visible .entry spin_lock(.param .u64 lock, .param .u64 counter) {
  .reg .pred %p;
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [lock];
  ld.param.u64 %rd2, [counter];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
$spin:
  atom.global.cas.b32 %r1, [%rd1], 0, 1;
  setp.ne.s32 %p, %r1, 0;
  @%p bra $spin;
  ld.volatile.global.u32 %r2, [%rd2];
  add.s32 %r2, %r2, 1;
  st.volatile.global.u32 [%rd2], %r2;
  membar.gl;
  atom.global.exch.b32 %r3, [%rd1], 0;
  ret;
}
)";
} // namespace

TEST(ForwardProgressLockStep, SpinLockHangsBeforeVoltaAndWorksAfter) {
  {
    VmHarness h("sm_60");
    auto &m = h.load(kSpinLockPtx);
    uint64_t lock = zeroed<int>(h, 1), counter = zeroed<int>(h, 1);
    auto r = h.launch(m, "spin_lock", {2}, {64}, lock, counter);
    ASSERT_EQ(r.status, vm::LaunchStatus::Faulted) << describe(r);
    EXPECT_EQ(r.faults.front().kind, vm::FaultKind::Livelock) << describe(r);
  }
  for (const char *arch : {"sm_70", "sm_90"}) {
    VmHarness h(arch);
    auto &m = h.load(kSpinLockPtx);
    uint64_t lock = zeroed<int>(h, 1), counter = zeroed<int>(h, 1);
    auto r = h.launch(m, "spin_lock", {2}, {64}, lock, counter);
    ASSERT_TRUE(r.ok()) << arch << ": " << describe(r);
    EXPECT_EQ(h.download<int>(counter, 1)[0], 128) << arch;
  }
}
