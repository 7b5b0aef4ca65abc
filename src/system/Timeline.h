// What the system model says about a session: when each operation was issued, started and ended on
// which engine, and the totals the guides reason with (overlap against the one-stream run, time per
// engine, transfer bandwidth, the Amdahl bound).
#pragma once

#include "system/Session.h"
#include "system/SystemConfig.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptxray::system {

enum class Engine : uint8_t {
  Host,    ///< the host thread waiting at a synchronization
  CopyH2D, ///< the host-to-device copy engine
  CopyD2H, ///< the device-to-host copy engine
  Copy,    ///< the only copy engine (both directions)
  Compute, ///< the SMs: kernels, device copies, memsets (and every copy without a copy engine)
  None,    ///< events: no engine, no time
};

const char *engineName(Engine engine);

struct TimelineEntry {
  size_t op = 0;
  Engine engine = Engine::None; ///< of the operation's device (SessionOp::device)
  unsigned queue = 0;           ///< hardware queue it was dispatched from
  double issue = 0;             ///< when the host made the call
  double start = 0;             ///< when its engine began it (for host waits: the call)
  double end = 0;               ///< when it completed (for host waits: when the host went on)
  double hostDone = 0;          ///< when the host's call returned (the call's cost, or the wait's end)
};

/// An NVTX range or mark (Session::ranges) placed on the host's time: from where the host was when it
/// began to where it was when it ended.
struct TimelineRange {
  size_t range = 0; ///< index in Session::ranges
  double start = 0, end = 0;
};

struct EngineTotals {
  double busySeconds = 0; ///< time with at least one operation running
  uint64_t bytes = 0;
  size_t operations = 0;
};

struct Timeline {
  SystemConfig config;
  Session session;
  std::vector<TimelineEntry> entries; ///< one per session operation, in issue order
  std::vector<TimelineRange> ranges;  ///< one per Session::ranges entry, in its order
  double totalSeconds = 0;            ///< from the first call to the last completion
  /// The same operations issued on one stream (the guide's single-queue run, [BPG] §3.1.3), and the
  /// proportion by which this run is shorter: 1 - total / serial.
  double serialSeconds = 0;
  double overlapFraction = 0;
  EngineTotals h2d, d2h, compute, host; ///< copy directions counted apart even on a shared engine
  EngineTotals peer;                    ///< copies between devices
  double kernelSeconds = 0;             ///< the kernels' own durations, summed
  /// [KTG] §1.3 (Amdahl): the kernels' share of the serial run, and the most that making every kernel
  /// faster could speed the session up: 1 / (1 - share).
  double kernelShare = 0;
  double amdahlBound = 0;
  int peakConcurrentKernels = 0; ///< on one device
};

/// The time covered by at least one of `spans` ([start, end) pairs, in any order, overlapping or not).
double unionLength(std::vector<std::pair<double, double>> spans);

/// Places every operation of `session` in time on the system `config` describes. Throws
/// std::invalid_argument for a session that cannot run: a stream waiting for an event recorded later
/// (or not an event record), a kernel time or GPU share that is negative, zero or not finite, a
/// device the system does not have, a peer copy within one device or on a third device's stream.
Timeline simulate(const SystemConfig &config, const Session &session);

/// The placement alone (the entries and totalSeconds of simulate(), without the one-stream run and
/// the totals derived from it), for a clock read often as the session grows.
Timeline place(const SystemConfig &config, const Session &session);

} // namespace ptxray::system
