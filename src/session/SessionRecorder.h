// The session a program's API calls make (copies, memsets, launches, events, synchronizations, each
// on its stream), recorded as the program runs (PTXRAY_TIMELINE) and placed in time by the system
// model at exit (docs/system.md). The calls themselves still run to completion when issued; only
// their timing is modeled. The CUDA runtime and driver record through it; OpenCL's queues will.
#pragma once

#include "model/PerformanceModel.h"
#include "system/Session.h"

#include <map>
#include <optional>
#include <string>

namespace ptxray::session {

/// A stream as the session names it: its device, and its number there (0: the default stream).
struct StreamRef {
  unsigned device = 0;
  unsigned stream = 0;
  bool nonBlocking = false; ///< created with cudaStreamNonBlocking (SessionOp::nonBlocking)
};

class SessionRecorder {
public:
  /// `smCount`: of the modeled GPU (a kernel's share of it).
  explicit SessionRecorder(int smCount) : smCount_(smCount) {}

  /// A 2D copy has `rows` rows of bytes / rows bytes, the host's `hostPitch` apart; a peer copy goes
  /// from `fromDevice` to `toDevice`.
  void copy(system::OpKind kind, uint64_t bytes, bool pageableHost, StreamRef on, uint64_t rows = 1,
            uint64_t hostPitch = 0, unsigned fromDevice = 0, unsigned toDevice = 0);
  void memset(uint64_t bytes, StreamRef on);
  /// `loadSeconds`: host time the launch call spends loading code first (SessionOp::loadSeconds).
  void launch(const model::LaunchProfile &profile, StreamRef on, double loadSeconds = 0);
  /// `label`: what the timeline calls it ("event 0x...", the handle, by default).
  void eventRecord(const void *event, StreamRef on, std::string label = {});
  void streamWaitEvent(StreamRef on, const void *event);
  void streamSynchronize(StreamRef on);
  /// The host waits for an event's last record (as for the stream it was recorded on).
  void eventSynchronize(const void *event);
  void synchronize(unsigned device); ///< cudaDeviceSynchronize on `device`

  const system::Session &session() const { return session_; }
  /// Where the program is in its sequence of operations (the operations recorded so far): where an
  /// NVTX range begins or ends.
  size_t position() const { return session_.ops.size(); }
  /// An NVTX range or mark that ended (its positions from position()).
  void nvtxRange(system::NvtxRange range) { session_.ranges.push_back(std::move(range)); }
  /// Operations recorded between these two come from one graph launch (SessionOp::graphNode).
  void beginGraphLaunch() {
    graphLaunch_ = true;
    graphFirst_ = session_.ops.size();
  }
  void endGraphLaunch();
  /// The operation of `event`'s last record, if it was recorded.
  std::optional<size_t> lastRecordOf(const void *event) const {
    auto it = lastRecord_.find(event);
    return it == lastRecord_.end() ? std::nullopt : std::optional<size_t>(it->second);
  }
  /// The API the program's calls come through (CUDA unless said otherwise).
  void setHostApi(system::HostApi api) { session_.api = api; }

private:
  /// A new operation of `kind` on `on`, appended; the caller fills in the rest.
  system::SessionOp &add(system::OpKind kind, StreamRef on, std::string label);

  int smCount_;
  system::Session session_;
  std::map<const void *, size_t> lastRecord_; ///< event -> its last EventRecord operation
  bool graphLaunch_ = false;
  size_t graphFirst_ = 0;
};

} // namespace ptxray::session
