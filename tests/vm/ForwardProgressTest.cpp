// Warps of one block that wait for each other (tests/kernels/forward_progress.cu, nvcc 13 for
// compute_75, compute_90 and compute_100): a warp that spins yields after a quantum of loop
// iterations, so cooperative groups' multi-warp tiles and producer/consumer flags between warps
// finish with any worker count; a block whose warps all poll memory nothing changes is a livelock,
// reported with each warp's line long before the instruction budget.
#include "support/TestFiles.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>

#include <chrono>
#include <numeric>

using namespace ptxray;
using namespace ptxray::test;

namespace {

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
      uint64_t dout = h.zeros<int>(in.size() / tile);
      auto r = h.launch(m, "_Z11tile_reduceILi" + std::to_string(tile) + "EEvPKiPi", {blocks}, {threads}, din, dout);
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
    uint64_t out = h.zeros<int>(32 * 4);
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
  uint64_t flag = h.zeros<int>(1), out = h.zeros<int>(64);
  const auto start = std::chrono::steady_clock::now();
  auto r = h.launch(m, "livelock", {2}, {64}, flag, out);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.status, vm::LaunchStatus::Faulted);
  ASSERT_FALSE(r.faults.empty());
  const vm::Fault &f = r.faults.front();
  EXPECT_EQ(f.kind, vm::FaultKind::Livelock) << describe(r);
  EXPECT_NE(f.sourceLine.find("forward_progress.cu:44"), std::string::npos) << f.sourceLine;
  EXPECT_NE(f.detail.find("warp 0 polls at"), std::string::npos) << f.detail;
  EXPECT_NE(f.detail.find("warp 1 polls at"), std::string::npos) << f.detail;
  EXPECT_NE(f.detail.find("forward_progress.cu:44)"), std::string::npos) << f.detail;
  // Found in a fraction of a second, not after the instruction budget of the whole launch.
  EXPECT_LT(seconds, 5.0);
}

INSTANTIATE_TEST_SUITE_P(Nvcc, ForwardProgress,
                         ::testing::Values(CorpusCase{"compute_75", "sm_75"}, CorpusCase{"compute_90", "sm_90"},
                                           CorpusCase{"compute_100", "sm_90"}),
                         [](const auto &info) { return std::string(info.param.dir); });
