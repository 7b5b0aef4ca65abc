// The timeline as a Trace Event Format document (report::timelineTrace, written by `timeline --trace`
// and `exec --trace`): every operation where the system model placed it, on its device's stream row
// or the host's, with the metadata Perfetto and chrome://tracing name rows by, checked against the
// model's own entries for a session built by hand.
#include "report/TimelineView.h"
#include "session/Outputs.h"
#include "support/SystemConfigFor.h"
#include "system/Timeline.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

namespace ptxray::test {
namespace {

using nlohmann::json;
using system::OpKind;
using system::SessionOp;

SessionOp op(OpKind kind, unsigned stream, std::string label = {}) {
  SessionOp o;
  o.kind = kind;
  o.stream = stream;
  o.label = std::move(label);
  return o;
}

/// A copy and a kernel on stream 1, a longer kernel on stream 2 (they overlap on a Kepler GPU), an
/// event recorded on 1 and waited for on 2, then the host synchronizes.
system::Session handMadeSession() {
  system::Session s;
  SessionOp copy = op(OpKind::CopyH2D, 1, "hA -> dA");
  copy.bytes = 1 << 20;
  s.ops.push_back(copy);
  SessionOp k1 = op(OpKind::Kernel, 1, "k1<<<4, 256>>>");
  k1.kernelSeconds = 100e-6;
  k1.gpuShare = 0.25;
  s.ops.push_back(k1);
  SessionOp k2 = op(OpKind::Kernel, 2, "k2<<<4, 256>>>");
  k2.kernelSeconds = 400e-6;
  k2.gpuShare = 0.25;
  s.ops.push_back(k2);
  s.ops.push_back(op(OpKind::EventRecord, 1));
  SessionOp wait = op(OpKind::StreamWaitEvent, 2);
  wait.event = 3;
  s.ops.push_back(wait);
  s.ops.push_back(op(OpKind::Synchronize, 0));
  return s;
}

std::vector<json> eventsOf(const json &trace, const std::string &phase) {
  std::vector<json> out;
  for (const json &e : trace.at("traceEvents"))
    if (e.at("ph") == phase)
      out.push_back(e);
  return out;
}

std::string metadataName(const json &trace, const std::string &what, int pid, int tid = -1) {
  for (const json &e : trace.at("traceEvents"))
    if (e.at("ph") == "M" && e.at("name") == what && e.at("pid") == pid && (tid < 0 || e.at("tid") == tid))
      return e.at("args").at("name");
  return "(none)";
}

TEST(TimelineTrace, EveryOperationWhereTheModelPlacedIt) {
  const system::Timeline tl = system::simulate(configFor("k20x"), handMadeSession());
  // Through the writer `--trace` uses: the text must be one JSON document.
  session::SimulatedSession simulated;
  simulated.timeline = tl;
  const json trace = json::parse(session::renderTimeline(session::OutputFormat::Trace, simulated, {}));

  EXPECT_EQ(metadataName(trace, "process_name", 1), "Host");
  EXPECT_EQ(metadataName(trace, "thread_name", 1, 1), "host thread");
  EXPECT_NE(metadataName(trace, "process_name", 2).find("Tesla K20X"), std::string::npos)
      << metadataName(trace, "process_name", 2);
  EXPECT_EQ(metadataName(trace, "thread_name", 2, 1), "stream 1");
  EXPECT_EQ(metadataName(trace, "thread_name", 2, 2), "stream 2");

  const std::vector<json> slices = eventsOf(trace, "X");
  const std::vector<json> instants = eventsOf(trace, "i");
  ASSERT_EQ(slices.size(), 4u);   // the copy, two kernels, the host's synchronization
  ASSERT_EQ(instants.size(), 2u); // the event and the wait: no engine, no time
  for (const system::TimelineEntry &e : tl.entries) {
    const SessionOp &o = tl.session.ops[e.op];
    const std::vector<json> &pool = e.engine == system::Engine::None ? instants : slices;
    auto it = std::find_if(pool.begin(), pool.end(), [&](const json &j) { return j["args"]["index"] == e.op; });
    ASSERT_NE(it, pool.end()) << "operation " << e.op;
    const json &j = *it;
    EXPECT_DOUBLE_EQ(j.at("ts").get<double>(), e.start * 1e6) << e.op;
    EXPECT_DOUBLE_EQ(j["args"]["issue_us"].get<double>(), e.issue * 1e6) << e.op;
    if (e.engine != system::Engine::None) {
      EXPECT_DOUBLE_EQ(j.at("dur").get<double>(), (e.end - e.start) * 1e6) << e.op;
    }
    const bool host = o.kind == OpKind::Synchronize;
    EXPECT_EQ(j.at("pid"), host ? 1 : 2) << e.op;
    EXPECT_EQ(j.at("tid"), host ? 1 : static_cast<int>(o.stream)) << e.op;
    if (!o.label.empty()) {
      EXPECT_EQ(j.at("name"), o.label);
    }
  }
  const auto copy = std::find_if(slices.begin(), slices.end(), [](const json &j) { return j["cat"] == "memcpy"; });
  ASSERT_NE(copy, slices.end());
  EXPECT_EQ((*copy)["args"]["bytes"], 1 << 20);
  EXPECT_EQ((*copy)["args"]["host_memory"], "pinned");
  EXPECT_GT((*copy)["args"]["gbps"].get<double>(), 1.0);

  // The counter of kernels running at once: 2 exactly when the model overlapped them, 0 at the end.
  const system::TimelineEntry &k1 = tl.entries[1], &k2 = tl.entries[2];
  const bool overlap = k1.start < k2.end && k2.start < k1.end;
  ASSERT_TRUE(overlap) << "the session was made for the kernels to overlap on a K20X";
  int most = 0, last = -1;
  for (const json &c : eventsOf(trace, "C")) {
    last = c["args"]["kernels"];
    most = std::max(most, last);
  }
  EXPECT_EQ(most, 2);
  EXPECT_EQ(last, 0);
  EXPECT_DOUBLE_EQ(trace["otherData"]["total_us"].get<double>(), tl.totalSeconds * 1e6);
}

TEST(TimelineTrace, OpenClSessionsNameCommandQueues) {
  system::Session s = handMadeSession();
  s.api = system::HostApi::OpenCL;
  const json trace = report::timelineTrace(system::simulate(configFor("k20x"), s));
  EXPECT_EQ(metadataName(trace, "thread_name", 2, 1), "command queue 1");
}

} // namespace
} // namespace ptxray::test
