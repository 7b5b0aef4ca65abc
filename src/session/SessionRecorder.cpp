#include "session/SessionRecorder.h"

#include "system/KernelOperation.h"

#include <fmt/format.h>

namespace ptxray::session {

using system::OpKind;
using system::SessionOp;

SessionOp &SessionRecorder::add(OpKind kind, StreamRef on, std::string label) {
  SessionOp &op = session_.ops.emplace_back();
  op.kind = kind;
  op.device = on.device;
  op.stream = on.stream;
  op.nonBlocking = on.nonBlocking;
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

void SessionRecorder::launch(const model::LaunchProfile &p, StreamRef on, double loadSeconds) {
  SessionOp op = system::kernelOperation(p, on.stream, smCount_);
  op.device = on.device;
  op.nonBlocking = on.nonBlocking;
  op.loadSeconds = loadSeconds;
  op.where = fmt::format("call {}", session_.ops.size());
  session_.ops.push_back(std::move(op));
}

void SessionRecorder::eventRecord(const void *event, StreamRef on, std::string label) {
  lastRecord_[event] = session_.ops.size();
  add(OpKind::EventRecord, on, label.empty() ? fmt::format("event {}", event) : std::move(label));
}

void SessionRecorder::streamWaitEvent(StreamRef on, const void *event) {
  auto it = lastRecord_.find(event);
  if (it == lastRecord_.end())
    return; // an event never recorded completes at once: nothing to wait for
  const size_t record = it->second;
  add(OpKind::StreamWaitEvent, on, fmt::format("event {}", event)).event = record;
}

void SessionRecorder::streamSynchronize(StreamRef on) {
  const char *what = session_.api == system::HostApi::OpenCL ? "queue" : "stream";
  add(OpKind::StreamSynchronize, on,
      on.device ? fmt::format("device {} {} {}", on.device, what, on.stream) : fmt::format("{} {}", what, on.stream));
}

void SessionRecorder::eventSynchronize(const void *event) {
  auto it = lastRecord_.find(event);
  if (it != lastRecord_.end())
    streamSynchronize({session_.ops[it->second].device, session_.ops[it->second].stream});
}

void SessionRecorder::synchronize(unsigned device) {
  add(OpKind::Synchronize, {device, 0}, fmt::format("device {}", device));
}

void SessionRecorder::endGraphLaunch() {
  if (!graphLaunch_)
    return;
  graphLaunch_ = false;
  bool first = true;
  for (size_t i = graphFirst_; i < session_.ops.size(); ++i) {
    session_.ops[i].graphNode = true;
    session_.ops[i].graphLaunchCall = first;
    first = false;
  }
}

} // namespace ptxray::session
