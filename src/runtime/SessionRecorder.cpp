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

SessionOp &SessionRecorder::add(OpKind kind, StreamRef on, std::string label) {
  SessionOp &op = session_.ops.emplace_back();
  op.kind = kind;
  op.device = on.device;
  op.stream = on.stream;
  op.label = std::move(label);
  op.where = fmt::format("call {}", session_.ops.size() - 1);
  return op;
}

void SessionRecorder::copy(OpKind kind, uint64_t bytes, bool pageableHost, StreamRef on, uint64_t rows,
                           uint64_t hostPitch, unsigned fromDevice, unsigned toDevice) {
  const bool hostSide = kind == OpKind::CopyH2D || kind == OpKind::CopyD2H;
  SessionOp &op =
      add(kind, on,
          kind == OpKind::CopyPeer ? fmt::format("{} B, device {} -> {}", bytes, fromDevice, toDevice)
                                   : fmt::format("{} B{}", bytes, pageableHost && hostSide ? " pageable" : ""));
  op.bytes = bytes;
  op.rows = rows;
  op.hostPitch = hostPitch;
  op.hostMemory = pageableHost ? system::HostMemory::Pageable : system::HostMemory::Pinned;
  op.fromDevice = fromDevice;
  op.toDevice = toDevice;
}

void SessionRecorder::memset(uint64_t bytes, StreamRef on) {
  add(OpKind::Memset, on, fmt::format("{} B", bytes)).bytes = bytes;
}

void SessionRecorder::launch(const model::LaunchProfile &p, StreamRef on) {
  SessionOp op = system::kernelOperation(p, on.stream, smCount_);
  op.device = on.device;
  op.where = fmt::format("call {}", session_.ops.size());
  session_.ops.push_back(std::move(op));
}

void SessionRecorder::eventRecord(const void *event, StreamRef on) {
  lastRecord_[event] = session_.ops.size();
  add(OpKind::EventRecord, on, fmt::format("event {}", event));
}

void SessionRecorder::streamWaitEvent(StreamRef on, const void *event) {
  auto it = lastRecord_.find(event);
  if (it == lastRecord_.end())
    return; // an event never recorded completes at once: nothing to wait for
  const size_t record = it->second;
  add(OpKind::StreamWaitEvent, on, fmt::format("event {}", event)).event = record;
}

void SessionRecorder::streamSynchronize(StreamRef on) {
  add(OpKind::StreamSynchronize, on,
      on.device ? fmt::format("device {} stream {}", on.device, on.stream) : fmt::format("stream {}", on.stream));
}

void SessionRecorder::eventSynchronize(const void *event) {
  auto it = lastRecord_.find(event);
  if (it != lastRecord_.end())
    streamSynchronize({session_.ops[it->second].device, session_.ops[it->second].stream});
}

void SessionRecorder::synchronize(unsigned device) {
  add(OpKind::Synchronize, {device, 0}, fmt::format("device {}", device));
}

bool SessionRecorder::write(const arch::ArchTarget &target, std::optional<int> connections,
                            const std::vector<std::string> &outputs) const {
  system::SystemOptions options;
  options.connections = connections;
  options.boards = boards_;
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
