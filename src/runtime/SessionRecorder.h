// PTXRAY_TIMELINE: the session a program's runtime calls make (copies, memsets, launches, events,
// synchronizations, each on its stream), recorded as the program runs and placed in time by the
// system model at exit (docs/system.md). The calls themselves still run to completion when issued;
// only their timing is modeled.
#pragma once

#include "advisor/Finding.h"
#include "arch/GpuDatabase.h"
#include "model/PerformanceModel.h"
#include "system/Session.h"
#include "system/SystemConfig.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ptxray::runtime {

class SessionRecorder {
public:
  explicit SessionRecorder(int smCount) : smCount_(smCount) {}

  /// A 2D copy has `rows` rows of bytes / rows bytes, the host's `hostPitch` apart.
  void copy(system::OpKind kind, uint64_t bytes, bool pageableHost, unsigned stream, uint64_t rows = 1,
            uint64_t hostPitch = 0);
  void memset(uint64_t bytes, unsigned stream);
  void launch(const model::LaunchProfile &profile, unsigned stream);
  void eventRecord(const void *event, unsigned stream);
  void streamWaitEvent(unsigned stream, const void *event);
  void streamSynchronize(unsigned stream);
  /// The host waits for an event's last record (as for the stream it was recorded on).
  void eventSynchronize(const void *event);
  void synchronize();

  const system::Session &session() const { return session_; }

  /// Simulates the session on `target` and writes it to each of `outputs` by extension: .json (schema
  /// ptxray-timeline), .html, else text; "-" is text on stderr. Returns false when a file could not
  /// be written (after saying so on stderr).
  bool write(const arch::ArchTarget &target, std::optional<int> connections,
             const std::vector<std::string> &outputs) const;

private:
  int smCount_;
  system::Session session_;
  std::map<const void *, size_t> lastRecord_; ///< event -> its last EventRecord operation
};

} // namespace ptxray::runtime
