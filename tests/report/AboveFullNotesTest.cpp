// The reports explain a global efficiency above 100% and an effective bandwidth above the DRAM's
// (issue #30: "global load efficiency 200.0%" and "3543 GB/s effective of 3352 GB/s" went
// unexplained), and say nothing when the figure is not above.
#include "report/MetricsReport.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

TEST(AboveFullNotes, EfficiencyAboveOneHundredPercentIsABroadcast) {
  EXPECT_EQ(report::efficiencyAboveFullNote(0.5), "");
  EXPECT_EQ(report::efficiencyAboveFullNote(1.0), "");
  EXPECT_EQ(report::efficiencyAboveFullNote(1.0004), ""); // printed as 100.0%
  EXPECT_NE(report::efficiencyAboveFullNote(4.0).find("same bytes more than once"), std::string::npos);
}

TEST(AboveFullNotes, EffectiveBandwidthAboveDramSaysWhatHitInL2) {
  model::LaunchProfile L;
  L.time.bandwidthBytesPerSecond = 1000e9;
  L.uniqueBytesRead = 3000;
  L.uniqueBytesWritten = 1000;
  L.time.dramBytes = 1500;
  L.time.effectiveBandwidthGBps = 999;
  EXPECT_EQ(report::bandwidthAboveTheoreticalNote(L), "");
  L.time.effectiveBandwidthGBps = 1600;
  EXPECT_EQ(report::bandwidthAboveTheoreticalNote(L),
            " (above the 1000.0 GB/s of DRAM: only 1500 of these 4000 B are estimated to cross DRAM, the rest hit in "
            "L2)");
  L.time.dramBytes = 4000; // no fewer bytes cross DRAM: no reason to give
  EXPECT_EQ(report::bandwidthAboveTheoreticalNote(L), " (above the 1000.0 GB/s of DRAM)");
}

} // namespace
} // namespace ptxray::test
