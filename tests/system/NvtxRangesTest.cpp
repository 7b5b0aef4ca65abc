// NVTX ranges placed on the host's time by the system model (system/Timeline.h TimelineRange): a range
// begins where the host was after the calls before it and ends where it was after the calls inside it,
// so it follows the operations wherever the model puts them. Then nsys stats' nvtx_sum of them.
#include "report/TimelineStats.h"
#include "system/Timeline.h"

#include "support/SystemConfigFor.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

using system::OpKind;

system::SessionOp op(OpKind kind, uint64_t bytes = 0, double kernelSeconds = 0) {
  system::SessionOp o;
  o.kind = kind;
  o.bytes = bytes;
  o.kernelSeconds = kernelSeconds;
  return o;
}

system::NvtxRange range(std::string name, size_t begin, size_t end, unsigned depth = 0, bool pushPop = true,
                        std::string domain = {}) {
  system::NvtxRange r;
  r.name = std::move(name);
  r.domain = std::move(domain);
  r.begin = begin;
  r.end = end;
  r.depth = depth;
  r.pushPop = pushPop;
  return r;
}

/// Copy in, a kernel, wait for it; "outer" around all three, "inner" around the kernel and the wait,
/// a start/end "io" around the copy alone, a mark at the end.
system::Session session() {
  system::Session s;
  s.ops = {op(OpKind::CopyH2D, 1 << 20), op(OpKind::Kernel, 0, 100e-6), op(OpKind::Synchronize)};
  s.ranges = {range("io", 0, 1, 0, false), range("inner", 1, 3, 1, true, "solver"), range("outer", 0, 3)};
  system::NvtxRange mark = range("done", 3, 3);
  mark.mark = true;
  s.ranges.push_back(mark);
  return s;
}

TEST(NvtxRanges, FollowTheHostThroughItsCalls) {
  const system::Timeline tl = system::simulate(configFor("h100"), session());
  ASSERT_EQ(tl.ranges.size(), 4u);
  const auto &e = tl.entries;
  // io: from the program's start to the copy call's return (the pinned copy is asynchronous to the host).
  EXPECT_DOUBLE_EQ(tl.ranges[0].start, 0);
  EXPECT_DOUBLE_EQ(tl.ranges[0].end, e[0].hostDone);
  EXPECT_DOUBLE_EQ(e[0].hostDone, e[1].issue); // the next call is made when the host is back
  // inner: from the launch call to the end of the wait, which is after the kernel ended.
  EXPECT_DOUBLE_EQ(tl.ranges[1].start, e[1].issue);
  EXPECT_DOUBLE_EQ(tl.ranges[1].end, e[2].end);
  EXPECT_GE(tl.ranges[1].end, e[1].end);
  // outer holds both; the mark is where the host is at the end.
  EXPECT_DOUBLE_EQ(tl.ranges[2].start, 0);
  EXPECT_DOUBLE_EQ(tl.ranges[2].end, tl.ranges[1].end);
  EXPECT_DOUBLE_EQ(tl.ranges[3].start, tl.ranges[3].end);
  EXPECT_DOUBLE_EQ(tl.ranges[3].start, e[2].end);
}

TEST(NvtxRanges, SummarizedAsNsysStatsNvtxSum) {
  const system::Timeline tl = system::simulate(configFor("h100"), session());
  const std::string csv = report::timelineStatsCsv(tl, "nvtx_sum");
  // Largest total first; the mark is not a range; the domain prefixes its range's name.
  const double outer = (tl.ranges[2].end - tl.ranges[2].start) * 1e9;
  const double inner = (tl.ranges[1].end - tl.ranges[1].start) * 1e9;
  const double io = (tl.ranges[0].end - tl.ranges[0].start) * 1e9;
  ASSERT_GT(outer, inner);
  ASSERT_GT(inner, io);
  const double all = outer + inner + io;
  const std::string want =
      "\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Avg (ns)\",\"Med (ns)\",\"Min (ns)\",\"Max (ns)\","
      "\"StdDev (ns)\",\"Style\",\"Range\"\n" +
      fmt::format("{:.1f},{:.0f},1,{:.1f},{:.1f},{:.0f},{:.0f},0.0,\"PushPop\",\"outer\"\n", 100 * outer / all, outer,
                  outer, outer, outer, outer) +
      fmt::format("{:.1f},{:.0f},1,{:.1f},{:.1f},{:.0f},{:.0f},0.0,\"PushPop\",\"solver:inner\"\n", 100 * inner / all,
                  inner, inner, inner, inner, inner) +
      fmt::format("{:.1f},{:.0f},1,{:.1f},{:.1f},{:.0f},{:.0f},0.0,\"StartEnd\",\"io\"\n", 100 * io / all, io, io, io,
                  io, io);
  EXPECT_EQ(csv, want);
}

} // namespace
} // namespace ptxray::test
