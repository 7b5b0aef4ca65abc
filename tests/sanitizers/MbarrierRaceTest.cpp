// racecheck follows mbarrier phases (cuda::barrier, cuda::pipeline, raw mbarrier PTX): an arrive-on
// releases what its thread did before, a wait that sees the phase complete acquires it. Kernels of
// tests/kernels/async_copy.cu (nvcc 13, compute_90 and compute_100): the correct ones give no report;
// barrier_copy's real race (after its split arrive a thread writes tile[t] that another thread may
// not have read yet) is reported at exactly those two lines, and its asynchronous copy, which the
// barrier orders before the reads, is not.
#include "sanitizers/Racecheck.h"
#include "support/TestFiles.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

class MbarrierRace : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    path = sourceDir() / "tests/corpus/nvcc" / GetParam() / "async_copy.ptx";
    if (!std::filesystem::exists(path))
      GTEST_SKIP() << path << " is not in the corpus";
  }
  std::filesystem::path path;
};

std::string allReports(const sanitizers::Racecheck &r) {
  std::string s;
  for (const sanitizers::Hazard &h : r.launchHazards())
    s += h.describe();
  return s;
}

TEST_P(MbarrierRace, BarrierCopyRacesOnlyAfterItsSplitArrive) {
  VmHarness h("sm_90");
  sanitizers::Racecheck racecheck({90, false});
  h.device.setListener(&racecheck);
  auto &m = h.load(readFile(path), path.string());
  uint64_t in = h.upload(std::vector<int32_t>(2 * 256 * 4, 3));
  uint64_t out = h.zeros<int32_t>(2 * 256 * 4);
  auto r = h.launch(m, "barrier_copy", {2, 1, 1}, {256, 1, 1}, in, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  const std::string source = "/tmp/ptxray-corpus/kernels/async_copy.cu:";
  ASSERT_EQ(racecheck.launchHazards().size(), 1u) << allReports(racecheck);
  const sanitizers::Hazard &hazard = racecheck.launchHazards().front();
  EXPECT_EQ(hazard.headline, "Race reported between Read access at " + source + "74 and Write access at " + source +
                                 "77 (Write-After-Read hazard, shared memory)")
      << hazard.describe();
}

TEST_P(MbarrierRace, PipelinesAndRawMbarriersAreClean) {
  VmHarness h("sm_90");
  sanitizers::Racecheck racecheck({90, false});
  h.device.setListener(&racecheck);
  auto &m = h.load(readFile(path), path.string());
  // cuda::pipeline over two stages of 128 floats (dynamic shared memory).
  uint64_t in = h.upload(std::vector<float>(256, 1.5f));
  uint64_t out = h.zeros<float>(128);
  h.dynamicShared = 2 * 128 * sizeof(float);
  auto r = h.launch(m, "cuda_pipeline_copy", {1, 1, 1}, {128, 1, 1}, in, out, int32_t{256});
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_TRUE(racecheck.launchHazards().empty()) << allReports(racecheck);
  h.dynamicShared = 0;
  uint64_t raw = h.zeros<int32_t>(96);
  r = h.launch(m, "raw_mbarrier", {2, 1, 1}, {96, 1, 1}, raw);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_TRUE(racecheck.launchHazards().empty()) << allReports(racecheck);
}

INSTANTIATE_TEST_SUITE_P(Nvcc, MbarrierRace, ::testing::Values("compute_90", "compute_100"));

} // namespace
} // namespace ptxray::test
