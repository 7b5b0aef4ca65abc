// racecheck and dynamic parallelism (sanitizers/ChildGridRaces.h): a parent grid's accesses after it
// launched a child race with the child's (and its descendants'), one of them a write; what the
// parent wrote before the launch, and what a tail launch reads, do not. Kernels:
// tests/kernels/cdp/cdp_races.cu.
#include "sanitizers/Racecheck.h"
#include "support/TestFiles.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

std::vector<sanitizers::Hazard> race(const std::string &kernel, unsigned workers = 1) {
  VmHarness vm("sm_90");
  sanitizers::Racecheck racecheck({90, false});
  vm.device.setListener(&racecheck);
  vm.options.threads = workers;
  auto &m = vm.load(readFile(sourceDir() / "tests/kernels/cdp/cdp_races.ptx"));
  const uint64_t data = vm.zeros<int>(256), out = vm.zeros<int>(256);
  vm::LaunchResult r = vm.launch(m, kernel, {2, 1, 1}, {32, 1, 1}, data, out);
  EXPECT_TRUE(r.ok()) << describe(r);
  EXPECT_GT(r.childGrids, 0u);
  return racecheck.launchHazards();
}

TEST(ChildGridRace, ParentReadsItsChildsResultsTooEarly) {
  for (unsigned workers : {1u, 3u}) {
    const auto hazards = race("_Z12readTooEarlyPiS_", workers);
    ASSERT_EQ(hazards.size(), 1u) << workers;
    const sanitizers::Hazard &h = hazards[0];
    EXPECT_EQ(h.severity, sanitizers::Severity::Error);
    // Both blocks' thread 0 read data[5] after launching fill, which writes it.
    EXPECT_EQ(h.occurrences, 2u);
    EXPECT_EQ(h.kernel, "_Z4fillPii");
    EXPECT_NE(h.headline.find("parent grid's Read access at /tmp/ptxray-cdp-kernels/cdp_races.cu:28"),
              std::string::npos)
        << h.headline;
    EXPECT_NE(h.headline.find("the child's Write access at /tmp/ptxray-cdp-kernels/cdp_races.cu:10"), std::string::npos)
        << h.headline;
    EXPECT_NE(h.headline.find("the parent reads what its child grid writes"), std::string::npos) << h.headline;
    EXPECT_NE(h.describe().find("launched (at some depth) by kernel _Z12readTooEarlyPiS_"), std::string::npos);
  }
}

TEST(ChildGridRace, ParentWritesWhatItsChildReads) {
  const auto hazards = race("_Z16writeAfterLaunchPiS_");
  ASSERT_EQ(hazards.size(), 1u);
  EXPECT_NE(hazards[0].headline.find("the parent writes what its child grid reads"), std::string::npos)
      << hazards[0].headline;
  EXPECT_NE(hazards[0].headline.find("cdp_races.cu:36"), std::string::npos) << hazards[0].headline;
}

TEST(ChildGridRace, AGrandchildRacesWithItsGrandparent) {
  const auto hazards = race("_Z14grandchildRacePiS_");
  ASSERT_EQ(hazards.size(), 1u);
  EXPECT_EQ(hazards[0].kernel, "_Z4fillPii");
  EXPECT_NE(hazards[0].headline.find("cdp_races.cu:66"), std::string::npos) << hazards[0].headline;
}

TEST(ChildGridRace, OrderedAccessesAreNotRaces) {
  // Written before the launch, read by a tail launch: ordered.
  EXPECT_TRUE(race("_Z9tailReadsPiS_").empty());
  // Written after the first launch but before the second, whose child reads it: ordered.
  EXPECT_TRUE(race("_Z15betweenLaunchesPiS_").empty());
}

} // namespace
} // namespace ptxray::test
