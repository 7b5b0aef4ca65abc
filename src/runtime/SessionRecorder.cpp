#include "runtime/SessionRecorder.h"

#include "advisor/SessionRules.h"
#include "report/TimelineView.h"
#include "system/SessionFromSpec.h"
#include "system/Timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>

namespace ptxray::runtime {

using system::OpKind;
using system::SessionOp;

void SessionRecorder::copy(OpKind kind, uint64_t bytes, bool pageableHost, unsigned stream, uint64_t rows,
                           uint64_t hostPitch) {
  SessionOp op;
  op.kind = kind;
  op.bytes = bytes;
  op.stream = stream;
  op.rows = rows;
  op.hostPitch = hostPitch;
  op.hostMemory = pageableHost ? system::HostMemory::Pageable : system::HostMemory::Pinned;
  op.label = fmt::format("{} B{}", bytes, pageableHost && kind != OpKind::CopyD2D ? " pageable" : "");
  op.where = fmt::format("call {}", session_.ops.size());
  session_.ops.push_back(std::move(op));
}

void SessionRecorder::memset(uint64_t bytes, unsigned stream) {
  SessionOp op;
  op.kind = OpKind::Memset;
  op.bytes = bytes;
  op.stream = stream;
  op.label = fmt::format("{} B", bytes);
  session_.ops.push_back(std::move(op));
}

void SessionRecorder::launch(const model::LaunchProfile &p, unsigned stream) {
  session_.ops.push_back(system::kernelOperation(p, stream, smCount_));
}

void SessionRecorder::eventRecord(const void *event, unsigned stream) {
  SessionOp op;
  op.kind = OpKind::EventRecord;
  op.stream = stream;
  op.label = fmt::format("event {}", event);
  lastRecord_[event] = session_.ops.size();
  session_.ops.push_back(std::move(op));
}

void SessionRecorder::streamWaitEvent(unsigned stream, const void *event) {
  auto it = lastRecord_.find(event);
  if (it == lastRecord_.end())
    return; // an event never recorded completes at once: nothing to wait for
  SessionOp op;
  op.kind = OpKind::StreamWaitEvent;
  op.stream = stream;
  op.event = it->second;
  op.label = fmt::format("event {}", event);
  session_.ops.push_back(std::move(op));
}

void SessionRecorder::streamSynchronize(unsigned stream) {
  SessionOp op;
  op.kind = OpKind::StreamSynchronize;
  op.stream = stream;
  op.label = fmt::format("stream {}", stream);
  session_.ops.push_back(std::move(op));
}

void SessionRecorder::eventSynchronize(const void *event) {
  auto it = lastRecord_.find(event);
  if (it != lastRecord_.end())
    streamSynchronize(session_.ops[it->second].stream);
}

void SessionRecorder::synchronize() {
  SessionOp op;
  op.kind = OpKind::Synchronize;
  op.label = "device";
  session_.ops.push_back(std::move(op));
}

bool SessionRecorder::write(const arch::ArchTarget &target, std::optional<int> connections,
                            const std::vector<std::string> &outputs) const {
  system::SystemOptions options;
  options.connections = connections;
  system::Timeline timeline;
  try {
    timeline = system::simulate(system::SystemConfig::forTarget(target, options), session_);
  } catch (const std::invalid_argument &e) {
    std::cerr << "ptxray: error: PTXRAY_TIMELINE: " << e.what() << "\n";
    return false;
  }
  const std::vector<advisor::Finding> findings = advisor::adviseSession(timeline);
  bool ok = true;
  for (const std::string &path : outputs) {
    std::string text = path.ends_with(".json") ? report::timelineJson(timeline, findings).dump(1) + "\n"
                       : path.ends_with(".html") || path.ends_with(".htm") ? report::timelineHtml(timeline, findings)
                                                                           : report::timelineText(timeline, findings);
    if (path == "-") {
      std::cerr << text;
      continue;
    }
    std::ofstream out(path);
    out << text;
    if (!out) {
      std::cerr << fmt::format("ptxray: error: cannot write {}\n", path);
      ok = false;
    } else {
      std::cerr << fmt::format("ptxray: the timeline of {} operation{} is in {}\n", session_.ops.size(),
                               session_.ops.size() == 1 ? "" : "s", path);
    }
  }
  return ok;
}

} // namespace ptxray::runtime
