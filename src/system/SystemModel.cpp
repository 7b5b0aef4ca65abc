// The system model: a discrete-event simulation of the host thread, the GPU's hardware queues and its
// engines.
//
//   - The host issues operations in order, each call costing its issue time; it stops at a
//     synchronization, and at a pageable copy until the copy completes (the runtime stages pageable
//     memory through a pinned buffer, so the call returns when the bytes are through).
//   - Stream order: an operation starts after the one before it on its stream; an operation on the
//     legacy stream 0 after everything issued before it, and everything issued after it after it;
//     a stream waiting for an event after that event's record completes.
//   - Hardware queues dispatch in order: an operation at a queue's head that cannot start (stream
//     order, engine busy) holds back everything behind it, whatever its stream. Kernels go to one
//     compute queue before Hyper-Q ([KTG] §1.4.2.2: the false dependencies of Fermi and GK104) and,
//     from GK110 on, to the connections, handed to the streams round-robin in the order they are
//     first used; copies to their engine's queue (per connection with Hyper-Q).
//   - Engines: each copy engine moves one copy at a time (one engine: both directions share it; none:
//     copies wait for the SMs to be idle and hold them). Up to maxConcurrentKernels kernels run at
//     once and share the SMs in the order they started: side by side at full speed while their
//     shares of the GPU add up to no more than 1, a later kernel slowed to the SMs left to it.
#include "system/Timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <stdexcept>

namespace ptxray::system {

const char *opKindName(OpKind kind) {
  switch (kind) {
  case OpKind::CopyH2D: return "memcpy_h2d";
  case OpKind::CopyD2H: return "memcpy_d2h";
  case OpKind::CopyD2D: return "memcpy_d2d";
  case OpKind::Memset: return "memset";
  case OpKind::Kernel: return "launch";
  case OpKind::EventRecord: return "event_record";
  case OpKind::StreamWaitEvent: return "stream_wait_event";
  case OpKind::StreamSynchronize: return "stream_synchronize";
  case OpKind::Synchronize: return "synchronize";
  }
  return "?";
}

const char *engineName(Engine engine) {
  switch (engine) {
  case Engine::Host: return "host";
  case Engine::CopyH2D: return "copy H2D";
  case Engine::CopyD2H: return "copy D2H";
  case Engine::Copy: return "copy";
  case Engine::Compute: return "compute";
  case Engine::None: return "-";
  }
  return "?";
}

namespace {

constexpr double kNever = 1e300;

struct OpState {
  Engine engine = Engine::None;
  int queue = -1;       ///< -1: not dispatched from a queue (events, host waits)
  double duration = 0;  ///< copies, device copies, memsets
  double remaining = 0; ///< kernels: alone-seconds still to run
  double share = 1;     ///< of the SMs
  std::vector<size_t> deps;
  bool issued = false, started = false, done = false;
  double issue = 0, start = 0, end = 0;
};

class Simulation {
public:
  Simulation(const SystemConfig &config, const Session &session) : c_(config), ops_(session.ops), s_(ops_.size()) {}

  Timeline run() {
    for (size_t i = 0; i < ops_.size(); ++i)
      classify(i);
    while (true) {
      issueWhatTheHostCan();
      bool progress = true;
      while (progress) { // all three every round: each can unblock the others
        const bool markers = completeMarkers();
        const bool dispatched = dispatch();
        const bool released = releaseHost();
        progress = markers || dispatched || released;
      }
      double next = nextEvent();
      if (next >= kNever)
        break;
      advanceTo(next);
    }
    // Every dependency points backwards and every queue drains in order, so all of it completes.
    if (next_ < ops_.size() || std::any_of(s_.begin(), s_.end(), [](const OpState &st) { return !st.done; }))
      throw std::logic_error("system model: the simulation stopped with operations left");
    return timeline();
  }

private:
  // ---- static properties
  void classify(size_t i) {
    const SessionOp &op = ops_[i];
    OpState &st = s_[i];
    const HostCosts &k = c_.costs;
    const unsigned conn = static_cast<unsigned>(c_.computeQueues);
    switch (op.kind) {
    case OpKind::CopyH2D:
    case OpKind::CopyD2H: {
      const bool h2d = op.kind == OpKind::CopyH2D;
      double rate = op.hostMemory == HostMemory::Pinned ? c_.pinnedBytesPerSecond
                    : h2d                               ? c_.pageableH2DBytesPerSecond
                                                        : c_.pageableD2HBytesPerSecond;
      st.duration = k.copyEngineSetupSeconds + static_cast<double>(op.bytes) / rate;
      const uint64_t rowBytes = op.rows > 1 ? op.bytes / op.rows : op.bytes;
      if (op.rows > 1 && op.hostPitch > rowBytes && rowBytes < k.gappedHostRowFullSpeedBytes)
        st.duration = k.copyEngineSetupSeconds + static_cast<double>(op.rows) * k.gappedHostRowSeconds +
                      static_cast<double>(op.bytes) / (rate * k.gappedHostRowBandwidthFraction);
      int engineIndex = 0;
      if (c_.copyEngines >= 2) {
        st.engine = h2d ? Engine::CopyH2D : Engine::CopyD2H;
        engineIndex = h2d ? 0 : 1;
      } else if (c_.copyEngines == 1) {
        st.engine = Engine::Copy;
      } else {
        st.engine = Engine::Compute;
        st.share = kExclusive;
      }
      // Copy queues follow the compute queues: numbered after them, one per engine (per connection).
      st.queue = st.engine == Engine::Compute
                     ? static_cast<int>(slot(op.stream) % conn)
                     : static_cast<int>(conn + static_cast<unsigned>(engineIndex) * conn + slot(op.stream) % conn);
      break;
    }
    case OpKind::CopyD2D:
    case OpKind::Memset: {
      const double traffic = static_cast<double>(op.bytes) * (op.kind == OpKind::CopyD2D ? 2.0 : 1.0);
      st.duration = k.copyEngineSetupSeconds + traffic / c_.deviceCopyBytesPerSecond;
      st.engine = Engine::Compute;
      st.queue = static_cast<int>(slot(op.stream) % conn);
      break;
    }
    case OpKind::Kernel:
      st.remaining = op.kernelSeconds;
      st.share = std::clamp(op.gpuShare, 1e-9, 1.0);
      st.engine = Engine::Compute;
      st.queue = static_cast<int>(slot(op.stream) % conn);
      break;
    case OpKind::EventRecord:
    case OpKind::StreamWaitEvent: break;
    case OpKind::StreamSynchronize:
    case OpKind::Synchronize: st.engine = Engine::Host; break;
    }
  }

  /// Streams get connections round-robin in the order they are first used.
  unsigned slot(unsigned stream) {
    auto [it, added] = slots_.try_emplace(stream, static_cast<unsigned>(slots_.size()));
    return it->second;
  }

  double issueCost(const SessionOp &op) const {
    switch (op.kind) {
    case OpKind::Kernel: return c_.costs.launchIssueSeconds;
    case OpKind::CopyH2D:
    case OpKind::CopyD2H:
    case OpKind::CopyD2D:
    case OpKind::Memset: return c_.costs.copyIssueSeconds;
    default: return 0; // events and synchronizations: no GPU work is queued
    }
  }

  // ---- the host thread
  void issueWhatTheHostCan() {
    while (next_ < ops_.size() && !hostWaiting_ && hostReady_ <= now_) {
      const size_t i = next_++;
      const SessionOp &op = ops_[i];
      OpState &st = s_[i];
      st.issued = true;
      st.issue = hostReady_;
      hostReady_ += issueCost(op);
      switch (op.kind) {
      case OpKind::StreamSynchronize:
        // The stream's own earlier work (which already waits for any earlier stream-0 work); the
        // legacy stream's means everything issued before, as its work waits for all of it.
        if (op.stream == 0) {
          for (const auto &[stream, last] : lastOnStream_)
            st.deps.push_back(last);
        } else if (auto it = lastOnStream_.find(op.stream); it != lastOnStream_.end()) {
          st.deps.push_back(it->second);
        }
        hostWaiting_ = true;
        waitingOp_ = i;
        continue;
      case OpKind::Synchronize:
        for (const auto &[stream, last] : lastOnStream_)
          st.deps.push_back(last);
        hostWaiting_ = true;
        waitingOp_ = i;
        continue;
      default: break;
      }
      // Stream order.
      if (op.stream == 0) {
        for (const auto &[stream, last] : lastOnStream_)
          st.deps.push_back(last);
      } else {
        if (auto it = lastOnStream_.find(op.stream); it != lastOnStream_.end())
          st.deps.push_back(it->second);
        if (lastLegacy_ != kNoOp)
          st.deps.push_back(lastLegacy_);
      }
      if (op.kind == OpKind::StreamWaitEvent && op.event != kNoOp)
        st.deps.push_back(op.event);
      lastOnStream_[op.stream] = i;
      if (op.stream == 0)
        lastLegacy_ = i;
      if (st.queue >= 0)
        queues_[st.queue].push_back(i);
      else
        markers_.push_back(i);
      if (op.isCopy() && op.hostMemory == HostMemory::Pageable) {
        hostWaiting_ = true; // the call returns once the bytes are through
        waitingOp_ = i;
      }
    }
  }

  bool releaseHost() {
    if (!hostWaiting_)
      return false;
    OpState &w = s_[waitingOp_];
    if (w.engine == Engine::Host) {
      if (!depsDone(w))
        return false;
      w.start = w.issue;
      w.end = std::max(w.issue, depsEnd(w)) + c_.costs.syncSeconds;
      w.done = true;
      hostReady_ = std::max(hostReady_, w.end);
    } else {
      if (!w.done)
        return false;
      hostReady_ = std::max(hostReady_, w.end);
    }
    hostWaiting_ = false;
    return true;
  }

  // ---- the GPU
  bool depsDone(const OpState &st) const {
    return std::all_of(st.deps.begin(), st.deps.end(), [&](size_t d) { return s_[d].done; });
  }
  double depsEnd(const OpState &st) const {
    double t = 0;
    for (size_t d : st.deps)
      t = std::max(t, s_[d].end);
    return t;
  }

  bool completeMarkers() {
    bool any = false;
    for (auto it = markers_.begin(); it != markers_.end();) {
      OpState &st = s_[*it];
      if (depsDone(st)) {
        st.started = st.done = true;
        st.start = st.end = std::max(st.issue, depsEnd(st));
        it = markers_.erase(it);
        any = true;
      } else
        ++it;
    }
    return any;
  }

  bool engineFree(const OpState &st) const {
    switch (st.engine) {
    case Engine::CopyH2D:
    case Engine::CopyD2H:
    case Engine::Copy: return !copyBusy_.contains(st.engine);
    case Engine::Compute:
      if (exclusiveRunning_)
        return false;
      if (st.share >= kExclusive)
        return running_.empty();
      return static_cast<int>(running_.size()) < c_.maxConcurrentKernels;
    default: return true;
    }
  }

  bool dispatch() {
    bool any = false;
    for (auto &[queue, fifo] : queues_) {
      while (!fifo.empty()) {
        OpState &st = s_[fifo.front()];
        if (!depsDone(st) || !engineFree(st))
          break; // in-order dispatch: the head holds back the rest of its queue
        start(fifo.front());
        fifo.pop_front();
        any = true;
      }
    }
    return any;
  }

  void start(size_t i) {
    OpState &st = s_[i];
    st.started = true;
    st.start = now_;
    const SessionOp &op = ops_[i];
    if (st.engine == Engine::Compute) {
      if (op.kind != OpKind::Kernel)
        st.remaining = st.duration; // device copies, memsets and engine-less copies: the whole GPU
      exclusiveRunning_ = exclusiveRunning_ || st.share >= kExclusive;
      running_.push_back(i);
      peakKernels_ =
          std::max(peakKernels_, static_cast<int>(std::count_if(running_.begin(), running_.end(), [&](size_t r) {
                     return ops_[r].kind == OpKind::Kernel;
                   })));
    } else {
      st.end = now_ + st.duration;
      copyBusy_[st.engine] = i;
    }
  }

  /// Each running compute operation's progress per second, in running_'s order. The SMs go to the
  /// kernels in the order they started, as the block scheduler dispatches them: a kernel keeps the
  /// SMs its blocks hold, and a later one runs on what is left (at full speed while the running
  /// kernels fill no more than the GPU, slowed in proportion to the SMs it gets when they do).
  std::vector<double> computeRates() const {
    std::vector<double> rates;
    double free = 1;
    for (size_t r : running_) {
      const double want = std::min(s_[r].share, 1.0);
      const double got = std::min(want, free);
      free -= got;
      rates.push_back(got / want);
    }
    return rates;
  }

  double nextEvent() const {
    double t = kNever;
    if (!hostWaiting_ && next_ < ops_.size())
      t = std::max(hostReady_, now_);
    for (const auto &[engine, i] : copyBusy_)
      t = std::min(t, s_[i].end);
    const std::vector<double> rates = computeRates();
    for (size_t k = 0; k < running_.size(); ++k)
      if (rates[k] > 0)
        t = std::min(t, now_ + s_[running_[k]].remaining / rates[k]);
    return t;
  }

  void advanceTo(double t) {
    const double dt = t - now_;
    if (!running_.empty()) {
      const std::vector<double> rates = computeRates();
      std::vector<size_t> still;
      bool exclusiveLeft = false;
      for (size_t k = 0; k < running_.size(); ++k) {
        OpState &st = s_[running_[k]];
        st.remaining -= dt * rates[k];
        if (rates[k] > 0 && st.remaining <= 1e-12 * std::max(1.0, t)) {
          st.done = true;
          st.end = t;
        } else {
          exclusiveLeft = exclusiveLeft || st.share >= kExclusive;
          still.push_back(running_[k]);
        }
      }
      running_ = std::move(still);
      exclusiveRunning_ = exclusiveLeft;
    }
    for (auto it = copyBusy_.begin(); it != copyBusy_.end();) {
      OpState &st = s_[it->second];
      if (st.end <= t) {
        st.done = true;
        it = copyBusy_.erase(it);
      } else
        ++it;
    }
    now_ = t;
  }

  Timeline timeline() const {
    Timeline tl;
    tl.config = c_;
    tl.session.ops = ops_;
    tl.peakConcurrentKernels = peakKernels_;
    std::vector<std::pair<double, double>> h2d, d2h, compute, host;
    for (size_t i = 0; i < ops_.size(); ++i) {
      const OpState &st = s_[i];
      const SessionOp &op = ops_[i];
      TimelineEntry e;
      e.op = i;
      e.engine = st.engine;
      e.queue = st.queue < 0 ? 0 : static_cast<unsigned>(st.queue);
      e.issue = st.issue;
      e.start = st.start;
      e.end = st.end;
      tl.entries.push_back(e);
      tl.totalSeconds = std::max({tl.totalSeconds, st.end, st.issue});
      auto count = [&](EngineTotals &totals, std::vector<std::pair<double, double>> &spans) {
        totals.bytes += op.bytes;
        ++totals.operations;
        spans.emplace_back(st.start, st.end);
      };
      if (op.kind == OpKind::CopyH2D)
        count(tl.h2d, h2d);
      else if (op.kind == OpKind::CopyD2H)
        count(tl.d2h, d2h);
      if (st.engine == Engine::Compute)
        count(tl.compute, compute);
      if (st.engine == Engine::Host)
        count(tl.host, host);
      if (op.kind == OpKind::Kernel)
        tl.kernelSeconds += op.kernelSeconds;
    }
    tl.totalSeconds = std::max(tl.totalSeconds, hostReady_);
    tl.h2d.busySeconds = unionLength(h2d);
    tl.d2h.busySeconds = unionLength(d2h);
    tl.compute.busySeconds = unionLength(compute);
    tl.host.busySeconds = unionLength(host);
    return tl;
  }

  static double unionLength(std::vector<std::pair<double, double>> spans) {
    std::sort(spans.begin(), spans.end());
    double total = 0, from = 0, to = -1;
    for (auto [a, b] : spans) {
      if (a > to) {
        total += std::max(0.0, to - from);
        from = a;
        to = b;
      } else
        to = std::max(to, b);
    }
    return total + std::max(0.0, to - from);
  }

  /// A share that takes the whole GPU and lets nothing else run (copies without a copy engine).
  static constexpr double kExclusive = 2;
  using HostCosts = arch::HostCosts;

  const SystemConfig &c_;
  std::vector<SessionOp> ops_;
  std::vector<OpState> s_;
  double now_ = 0, hostReady_ = 0;
  size_t next_ = 0;
  bool hostWaiting_ = false;
  size_t waitingOp_ = kNoOp;
  std::map<unsigned, size_t> lastOnStream_;
  std::map<unsigned, unsigned> slots_; ///< stream -> connection order
  size_t lastLegacy_ = kNoOp;
  std::map<int, std::deque<size_t>> queues_;
  std::vector<size_t> markers_;
  std::map<Engine, size_t> copyBusy_;
  std::vector<size_t> running_;
  bool exclusiveRunning_ = false;
  int peakKernels_ = 0;
};

} // namespace

Timeline simulate(const SystemConfig &config, const Session &session) {
  for (size_t i = 0; i < session.ops.size(); ++i) {
    const SessionOp &op = session.ops[i];
    if (op.kind == OpKind::StreamWaitEvent && (op.event >= i || session.ops[op.event].kind != OpKind::EventRecord))
      throw std::invalid_argument(
          fmt::format("operation {} waits for operation {}, which is not an earlier event record", i, op.event));
    if (!std::isfinite(op.kernelSeconds) || op.kernelSeconds < 0 || !std::isfinite(op.gpuShare) || op.gpuShare <= 0)
      throw std::invalid_argument(
          fmt::format("operation {}: a kernel time of {} s and a GPU share of {}", i, op.kernelSeconds, op.gpuShare));
  }
  Timeline tl = Simulation(config, session).run();
  // The guide's baseline: the same calls on one stream, nothing overlapping.
  Session serial = session;
  for (SessionOp &op : serial.ops)
    op.stream = 1;
  tl.serialSeconds = Simulation(config, serial).run().totalSeconds;
  tl.overlapFraction = tl.serialSeconds > 0 ? 1 - tl.totalSeconds / tl.serialSeconds : 0;
  tl.kernelShare = tl.serialSeconds > 0 ? std::min(1.0, tl.kernelSeconds / tl.serialSeconds) : 0;
  tl.amdahlBound = tl.kernelShare < 1 ? 1 / (1 - tl.kernelShare) : 0;
  return tl;
}

} // namespace ptxray::system
