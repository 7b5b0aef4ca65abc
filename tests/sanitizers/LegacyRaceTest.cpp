// A real race in the clang legacy corpus: shared_local (tests/kernels/legacy/math_sm30.cu) fills its
// per-thread scratch array from the shared tile before its __syncthreads(), reading elements other
// warps write (tests/vm/LegacyKernelTest.cpp compares only the threads that read their own warp's).
// racecheck reports it at the tile's store and that read; the read after the barrier is not a hazard.
// (The other legacy kernels run under all four tools with no report: sanitizers.legacy_kernels_clean.)
#include "sanitizers/Racecheck.h"
#include "support/TestFiles.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

TEST(LegacyKernelRace, SharedLocalReadsTheTileBeforeItsBarrier) {
  VmHarness h("sm_35");
  sanitizers::Racecheck racecheck({35, false});
  h.device.setListener(&racecheck);
  const std::string file = "math_sm35_ptx43_lineinfo.ptx"; // the variant with line info
  vm::LoadedModule &m = h.load(readFile(sourceDir() / "tests/corpus/clang" / file), file);
  uint64_t in = h.upload(std::vector<float>(256, 1.0f));
  uint64_t out = h.zeros<float>(256);
  vm::LaunchResult r = h.launch(m, "shared_local", {1, 1, 1}, {256, 1, 1}, in, out, int32_t{4});
  ASSERT_TRUE(r.ok()) << describe(r);

  const std::string source = "/tmp/ptxray-corpus/legacy/math_sm30.cu:";
  const std::string betweenWarps = "Race reported between Write access at " + source + "59 and Read access at " +
                                   source + "60 (Read-After-Write hazard, shared memory)";
  bool found = false;
  for (const sanitizers::Hazard &h : racecheck.launchHazards()) {
    found = found || (h.headline == betweenWarps && h.severity == sanitizers::Severity::Error);
    // tile[255 - t] at line 64 comes after the barrier: ordered after every store.
    EXPECT_EQ(h.headline.find(source + "64"), std::string::npos) << h.describe();
  }
  EXPECT_TRUE(found) << "no report \"" << betweenWarps << "\"";
}

} // namespace
} // namespace ptxray::test
