// The system model: a discrete-event simulation of the host thread, the GPU's hardware queues and its
// engines.
//
//   - The host issues operations in order, each call costing its issue time (a kernel's first launch
//     also loading its code, CUDA's lazy loading); the GPU gets the work when the call has handed it
//     over, at the end of that time (what event-timed work on a GPU includes); the host stops at a
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
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <span>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace ptxray::system {

const char *opKindName(OpKind kind) {
  switch (kind) {
  case OpKind::CopyH2D: return "memcpy_h2d";
  case OpKind::CopyD2H: return "memcpy_d2h";
  case OpKind::CopyPeer: return "memcpy_peer";
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
  bool issued = false, started = false, done = false;
  uint8_t linkCount = 0;
  int queue = -1;       ///< -1: not dispatched from a queue (events, host waits)
  double duration = 0;  ///< copies, device copies, memsets: alone
  double remaining = 0; ///< alone-seconds still to run (kernels, and copies once started)
  double share = 1;     ///< of the SMs
  /// Copies: the PCIe links (directions) the bytes cross (linkCount of them: at most the host's side,
  /// two board links and two switch ports), and the rate they move at alone.
  std::array<int, 5> links{};
  double demand = 0;
  /// The operations it waits for not yet seen done: deps_[nextDep, lastDep) (those before are, and
  /// depsEnd is the latest of their ends). Completion only moves forwards, so each dependency is
  /// looked at once however often the operation is (the one wait for 100,000 streams included).
  size_t nextDep = 0, lastDep = 0;
  double depsEnd = 0;
  /// Events: the operation they wait on now is the first of a list of events linked by nextWaiter
  /// (firstWaiter of the operation), checked again when it completes, not at every step.
  size_t firstWaiter = kNoOp, nextWaiter = kNoOp;
  double issue = 0, start = 0, end = 0;
  double submit = 0; ///< when the call handed the work to the GPU: the end of its issue time
  std::span<const int> linkSpan() const { return {links.data(), linkCount}; }
};

/// A stream of one device: its last operation, its connection, its kind.
struct StreamState {
  static constexpr unsigned kNoSlot = std::numeric_limits<unsigned>::max();
  size_t last = kNoOp;
  unsigned slot = kNoSlot;  ///< the order in which the device's streams were first used
  bool nonBlocking = false; ///< created with cudaStreamNonBlocking (SessionOp::nonBlocking)
};

/// What one device keeps apart from the others: its streams and their connections, its legacy stream,
/// the compute operations running on its SMs.
struct DeviceState {
  std::unordered_map<unsigned, StreamState> streams;
  unsigned slotsTaken = 0;
  size_t lastLegacy = kNoOp;
  /// The operations that became their stream's last since the device's streams were last waited for
  /// all together, those of blocking and of non-blocking streams apart (some followed on their
  /// stream since: dependOnLast drops them). Legacy-stream work waits for every blocking stream's
  /// last operation, a device synchronization for every stream's; one that became last before such
  /// a wait is covered by that wait (dependOnLast), so each operation is looked at by one wait for
  /// all streams, not by every later one.
  std::vector<size_t> recentBlocking, recentNonBlocking;
  std::vector<size_t> running;
  bool exclusiveRunning = false;
  int peakKernels = 0;
};

class Simulation {
public:
  /// `serial`: every operation is on stream 1 and also waits for the one issued before it, whatever
  /// its device (the one-queue baseline of a session over several devices).
  Simulation(const SystemConfig &config, const Session &session, bool serial = false)
      : c_(config), ops_(session.ops), ranges_(session.ranges), api_(session.api), s_(ops_.size()),
        dev_(static_cast<size_t>(config.devices())), serial_(serial) {
    // A session continued from a quiet point of a longer one: its clock and its streams' connections.
    now_ = hostReady_ = startSeconds_ = session.startSeconds;
    for (const auto &[device, stream] : session.streamOrder)
      if (device < dev_.size())
        takeSlot(dev_[device], stream);
    // An operation on the legacy stream waits for every blocking stream's last operation, and the
    // legacy stream's next one waits for it: it stands for them all, and what it waited for need not
    // be looked at again. Unless the legacy stream itself is marked non-blocking (no program makes
    // one, but a session can say so): its work then does not wait for its own earlier work.
    legacyCovers_ = std::none_of(ops_.begin(), ops_.end(),
                                 [&](const SessionOp &op) { return op.nonBlocking && !serial_ && op.stream == 0; });
  }

  /// Places every operation in time; then timeline() and totalSeconds() say where.
  void run() {
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
  }

  /// From the first call to the last completion (or the host's last call).
  double totalSeconds() const {
    double total = 0;
    for (const OpState &st : s_)
      total = std::max({total, st.end, st.issue});
    return std::max(total, hostReady_);
  }

  Timeline timeline() const {
    Timeline tl;
    tl.config = c_;
    tl.session.ops = ops_;
    tl.session.api = api_;
    tl.session.ranges = ranges_;
    for (const DeviceState &d : dev_)
      tl.peakConcurrentKernels = std::max(tl.peakConcurrentKernels, d.peakKernels);
    std::vector<std::pair<double, double>> h2d, d2h, peer, compute, host;
    tl.entries.reserve(ops_.size());
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
      e.hostDone = op.kind == OpKind::StreamSynchronize || op.kind == OpKind::Synchronize ? st.end : st.submit;
      tl.entries.push_back(e);
      auto count = [&](EngineTotals &totals, std::vector<std::pair<double, double>> &spans) {
        totals.bytes += op.bytes;
        ++totals.operations;
        spans.emplace_back(st.start, st.end);
      };
      if (op.kind == OpKind::CopyH2D)
        count(tl.h2d, h2d);
      else if (op.kind == OpKind::CopyD2H)
        count(tl.d2h, d2h);
      else if (op.kind == OpKind::CopyPeer)
        count(tl.peer, peer);
      if (st.engine == Engine::Compute)
        count(tl.compute, compute);
      if (st.engine == Engine::Host)
        count(tl.host, host);
      if (op.kind == OpKind::Kernel)
        tl.kernelSeconds += op.kernelSeconds;
    }
    tl.totalSeconds = totalSeconds();
    tl.h2d.busySeconds = unionLength(h2d);
    tl.d2h.busySeconds = unionLength(d2h);
    tl.peer.busySeconds = unionLength(peer);
    tl.compute.busySeconds = unionLength(compute);
    tl.host.busySeconds = unionLength(host);
    // NVTX ranges: where the host was after the calls before each end (its start, before any).
    auto hostAt = [&](size_t position) {
      return position == 0 || tl.entries.empty() ? startSeconds_
                                                 : tl.entries[std::min(position, tl.entries.size()) - 1].hostDone;
    };
    tl.ranges.reserve(ranges_.size());
    for (size_t i = 0; i < ranges_.size(); ++i)
      tl.ranges.push_back({i, hostAt(ranges_[i].begin), hostAt(std::max(ranges_[i].begin, ranges_[i].end))});
    return tl;
  }

private:
  // ---- static properties
  unsigned boardOf(unsigned device) const { return device / static_cast<unsigned>(c_.gpusPerBoard); }
  // Link directions: each board's host link down (to the GPUs) and up, then each GPU's switch port in
  // and out (boards of several GPUs only), then the host's side of all of them together.
  int hostDown(unsigned device) const { return static_cast<int>(2 * boardOf(device)); }
  int hostUp(unsigned device) const { return hostDown(device) + 1; }
  int portIn(unsigned device) const { return 2 * c_.boards + static_cast<int>(2 * device); }
  int portOut(unsigned device) const { return portIn(device) + 1; }
  int hostSide() const { return 2 * c_.boards + 2 * c_.devices(); }
  bool switched() const { return c_.gpusPerBoard > 1 && c_.switchPortBytesPerSecond > 0; }
  double capacity(int link) const {
    return link == hostSide()     ? c_.costs.hostPcieBytesPerSecond
           : link < 2 * c_.boards ? c_.pinnedBytesPerSecond
                                  : c_.switchPortBytesPerSecond;
  }

  /// The links a copy's bytes cross, into st.links.
  void setLinks(const SessionOp &op, OpState &st) const {
    if (!c_.link)
      return; // an integrated GPU: copies stay in the host's DRAM
    struct Links {
      OpState &st;
      void push_back(int link) { st.links[st.linkCount++] = link; }
    } l{st};
    switch (op.kind) {
    case OpKind::CopyH2D:
      l.push_back(hostDown(op.device));
      l.push_back(hostSide());
      if (switched())
        l.push_back(portIn(op.device));
      break;
    case OpKind::CopyD2H:
      l.push_back(hostUp(op.device));
      l.push_back(hostSide());
      if (switched())
        l.push_back(portOut(op.device));
      break;
    case OpKind::CopyPeer:
      if (boardOf(op.fromDevice) != boardOf(op.toDevice)) {
        l.push_back(hostUp(op.fromDevice));
        l.push_back(hostDown(op.toDevice));
        l.push_back(hostSide());
      }
      if (switched()) {
        l.push_back(portOut(op.fromDevice));
        l.push_back(portIn(op.toDevice));
      }
      break;
    default: break;
    }
  }

  void classify(size_t i) {
    const SessionOp &op = ops_[i];
    OpState &st = s_[i];
    const HostCosts &k = c_.costs;
    const unsigned conn = static_cast<unsigned>(c_.computeQueues);
    switch (op.kind) {
    case OpKind::CopyH2D:
    case OpKind::CopyD2H:
    case OpKind::CopyPeer: {
      // The direction on the stream's device: a peer copy leaving it is an outgoing copy.
      const bool in = op.kind == OpKind::CopyH2D || (op.kind == OpKind::CopyPeer && op.device == op.toDevice);
      double rate = 0;
      if (op.kind == OpKind::CopyPeer)
        rate = boardOf(op.fromDevice) == boardOf(op.toDevice) && switched() ? c_.boardPeerBytesPerSecond
                                                                            : c_.hostPeerBytesPerSecond;
      else
        rate = op.hostMemory == HostMemory::Pinned ? c_.pinnedBytesPerSecond
               : in                                ? c_.pageableH2DBytesPerSecond
                                                   : c_.pageableD2HBytesPerSecond;
      st.duration = k.copyEngineSetupSeconds + static_cast<double>(op.bytes) / rate;
      if (op.isCopy() && op.hostMemory == HostMemory::Pageable)
        st.duration += k.pageableCopySeconds;
      if (op.isCopy() && op.rows > 1) {
        // Short host rows far apart: part or all of the measured gapped-row cost.
        const double penalty = k.gappedHostRowPenalty(op.bytes / op.rows, op.hostPitch);
        st.duration += penalty * (static_cast<double>(op.rows) * k.gappedHostRowSeconds +
                                  static_cast<double>(op.bytes) / rate * (1 / k.gappedHostRowBandwidthFraction - 1));
      }
      int engineIndex = 0;
      if (c_.copyEngines >= 2) {
        st.engine = in ? Engine::CopyH2D : Engine::CopyD2H;
        engineIndex = in ? 0 : 1;
      } else if (c_.copyEngines == 1) {
        st.engine = Engine::Copy;
      } else {
        st.engine = Engine::Compute;
        st.share = kExclusive;
      }
      if (st.engine != Engine::Compute) {
        setLinks(op, st);
        st.demand = st.duration > 0 ? static_cast<double>(op.bytes) / st.duration : 0;
      }
      // Copy queues follow the compute queues: numbered after them, one per engine (per connection).
      st.queue = st.engine == Engine::Compute
                     ? static_cast<int>(slot(i) % conn)
                     : static_cast<int>(conn + static_cast<unsigned>(engineIndex) * conn + slot(i) % conn);
      break;
    }
    case OpKind::CopyD2D:
    case OpKind::Memset: {
      const double traffic = static_cast<double>(op.bytes) * (op.kind == OpKind::CopyD2D ? 2.0 : 1.0);
      st.duration = k.copyEngineSetupSeconds + traffic / c_.deviceCopyBytesPerSecond;
      st.engine = Engine::Compute;
      st.queue = static_cast<int>(slot(i) % conn);
      break;
    }
    case OpKind::Kernel:
      st.remaining = op.kernelSeconds;
      st.share = std::clamp(op.gpuShare, 1e-9, 1.0);
      st.engine = Engine::Compute;
      st.queue = static_cast<int>(slot(i) % conn);
      break;
    case OpKind::EventRecord:
    case OpKind::StreamWaitEvent: break;
    case OpKind::StreamSynchronize:
    case OpKind::Synchronize: st.engine = Engine::Host; break;
    }
  }

  /// The stream an operation is on (the serial baseline puts them all on one).
  unsigned streamOf(size_t i) const { return serial_ ? 1u : ops_[i].stream; }

  /// A device's streams get its connections round-robin in the order they are first used.
  static unsigned takeSlot(DeviceState &d, unsigned stream) {
    StreamState &s = d.streams[stream];
    if (s.slot == StreamState::kNoSlot)
      s.slot = d.slotsTaken++;
    return s.slot;
  }
  unsigned slot(size_t i) { return takeSlot(dev_[ops_[i].device], streamOf(i)); }

  double issueCost(const SessionOp &op) const {
    if (op.graphNode)
      return op.graphLaunchCall ? c_.costs.launchIssueSeconds + op.loadSeconds : op.loadSeconds;
    switch (op.kind) {
    case OpKind::Kernel: return c_.costs.launchIssueSeconds + op.loadSeconds;
    case OpKind::CopyH2D:
    case OpKind::CopyD2H:
    case OpKind::CopyPeer:
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
      const unsigned stream = streamOf(i);
      OpState &st = s_[i];
      DeviceState &d = dev_[op.device];
      st.issued = true;
      st.issue = hostReady_;
      hostReady_ += issueCost(op);
      st.submit = hostReady_;
      st.nextDep = deps_.size();
      switch (op.kind) {
      case OpKind::StreamSynchronize:
      case OpKind::Synchronize: // cudaDeviceSynchronize: the device's work
        // The stream's own earlier work (which already waits for any earlier stream-0 work); the
        // legacy stream's means everything issued before on the device, as its work waits for all.
        if (op.kind == OpKind::Synchronize || stream == 0) {
          dependOnLast(d, false);
          // The host goes on once all of it is done: every later call is issued after it ended,
          // so later waits for the device's streams need not name it again.
          d.recentBlocking.clear();
          d.recentNonBlocking.clear();
        } else if (auto it = d.streams.find(stream); it != d.streams.end() && it->second.last != kNoOp) {
          deps_.push_back(it->second.last);
        }
        st.lastDep = deps_.size();
        hostWaiting_ = true;
        waitingOp_ = i;
        continue;
      default: break;
      }
      // Stream order. Non-blocking streams neither wait for the legacy stream nor hold it back.
      StreamState &on = d.streams[stream];
      if (op.nonBlocking)
        on.nonBlocking = true;
      if (stream == 0) {
        dependOnLast(d, true);
        if (legacyCovers_)
          d.recentBlocking.clear(); // this operation stands for them from now on
      } else {
        if (on.last != kNoOp)
          deps_.push_back(on.last);
        if (d.lastLegacy != kNoOp && !op.nonBlocking)
          deps_.push_back(d.lastLegacy);
      }
      if (op.kind == OpKind::StreamWaitEvent && op.event != kNoOp)
        deps_.push_back(op.event);
      if (serial_ && lastIssued_ != kNoOp)
        deps_.push_back(lastIssued_);
      lastIssued_ = i;
      becomeLast(d, on, i);
      if (stream == 0)
        d.lastLegacy = i;
      // A peer copy on the legacy stream (cudaMemcpyPeer) is ordered with the other device's work too:
      // after everything issued to it, and before everything issued to it later.
      if (op.kind == OpKind::CopyPeer && stream == 0) {
        DeviceState &other = dev_[op.device == op.fromDevice ? op.toDevice : op.fromDevice];
        dependOnLast(other, false);
        if (legacyCovers_) {
          other.recentBlocking.clear();
          other.recentNonBlocking.clear();
        }
        becomeLast(other, other.streams[0], i);
        other.lastLegacy = i;
      }
      st.lastDep = deps_.size();
      if (st.queue >= 0)
        queues_[{op.device, st.queue}].push_back(i);
      else
        await(i);
      if (op.isCopy() && op.hostMemory == HostMemory::Pageable) {
        hostWaiting_ = true; // the call returns once the bytes are through
        waitingOp_ = i;
      }
    }
  }

  /// Operation `i` is now the last on stream `on` of `d`.
  static void becomeLast(DeviceState &d, StreamState &on, size_t i) {
    on.last = i;
    (on.nonBlocking ? d.recentNonBlocking : d.recentBlocking).push_back(i);
  }

  /// The operation being issued waits for the last operation of every stream of `d` (of every
  /// blocking one, `blockingOnly`). Only those that became last since the device's streams were last
  /// waited for all together are named; the others are covered by that wait, with the same result:
  ///  - a host wait for the device: it returned before this call was issued, so they completed
  ///    before it was, which leaves this operation's start and end as they were;
  ///  - an operation on the device's legacy stream (or a legacy peer copy with the device): it
  ///    completes after them, and the legacy stream's last operation, which this one waits for
  ///    too, is that operation or waits for it.
  void dependOnLast(DeviceState &d, bool blockingOnly) {
    auto collect = [&](std::vector<size_t> &recent) {
      size_t kept = 0;
      for (const size_t op : recent) {
        const StreamState &on = d.streams.find(streamOf(op))->second;
        if (on.last != op)
          continue; // followed on its stream since
        recent[kept++] = op;
        if (!blockingOnly || !on.nonBlocking)
          deps_.push_back(op);
      }
      recent.resize(kept);
    };
    collect(d.recentBlocking);
    if (!blockingOnly)
      collect(d.recentNonBlocking);
  }

  bool releaseHost() {
    if (!hostWaiting_)
      return false;
    OpState &w = s_[waitingOp_];
    if (w.engine == Engine::Host) {
      if (!depsDone(w))
        return false;
      w.start = w.issue;
      w.end = std::max(w.issue, w.depsEnd) + c_.costs.syncSeconds;
      w.done = true;
      completed(waitingOp_);
      hostReady_ = std::max(hostReady_, w.end);
    } else {
      if (!w.done)
        return false;
      hostReady_ = std::max(hostReady_, w.end);
    }
    hostWaiting_ = false;
    return true;
  }

  // ---- the GPUs
  /// Whether everything `st` waits for is done (and then its latest end is st.depsEnd).
  bool depsDone(OpState &st) {
    for (; st.nextDep < st.lastDep; ++st.nextDep) {
      const OpState &dep = s_[deps_[st.nextDep]];
      if (!dep.done)
        return false;
      st.depsEnd = std::max(st.depsEnd, dep.end);
    }
    return true;
  }

  /// An event (no engine): ready to complete once its dependencies are done; until then it waits on
  /// the first one that is not.
  void await(size_t i) {
    OpState &st = s_[i];
    if (depsDone(st)) {
      readyMarkers_.push_back(i);
      return;
    }
    OpState &blocker = s_[deps_[st.nextDep]];
    st.nextWaiter = blocker.firstWaiter;
    blocker.firstWaiter = i;
  }

  /// Operation `i` has just completed: the events waiting on it look further.
  void completed(size_t i) {
    size_t waiter = std::exchange(s_[i].firstWaiter, kNoOp);
    while (waiter != kNoOp) {
      const size_t next = std::exchange(s_[waiter].nextWaiter, kNoOp);
      await(waiter);
      waiter = next;
    }
  }

  bool completeMarkers() {
    bool any = false;
    while (!readyMarkers_.empty()) {
      const size_t i = readyMarkers_.back();
      readyMarkers_.pop_back();
      OpState &st = s_[i];
      st.started = st.done = true;
      st.start = st.end = std::max(st.issue, st.depsEnd);
      completed(i);
      any = true;
    }
    return any;
  }

  bool engineFree(unsigned device, const OpState &st) const {
    const DeviceState &d = dev_[device];
    switch (st.engine) {
    case Engine::CopyH2D:
    case Engine::CopyD2H:
    case Engine::Copy: return !copyBusy_.contains({device, st.engine});
    case Engine::Compute:
      if (d.exclusiveRunning)
        return false;
      if (st.share >= kExclusive)
        return d.running.empty();
      return static_cast<int>(d.running.size()) < c_.maxConcurrentKernels;
    default: return true;
    }
  }

  bool dispatch() {
    bool any = false;
    for (auto &[queue, fifo] : queues_) {
      while (!fifo.empty()) {
        OpState &st = s_[fifo.front()];
        if (st.submit > now_ || !depsDone(st) || !engineFree(queue.first, st))
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
      DeviceState &d = dev_[op.device];
      if (op.kind != OpKind::Kernel)
        st.remaining = st.duration; // device copies, memsets and engine-less copies: the whole GPU
      d.exclusiveRunning = d.exclusiveRunning || st.share >= kExclusive;
      d.running.push_back(i);
      d.peakKernels =
          std::max(d.peakKernels, static_cast<int>(std::count_if(d.running.begin(), d.running.end(), [&](size_t r) {
                     return ops_[r].kind == OpKind::Kernel;
                   })));
    } else {
      st.remaining = st.duration;
      copyBusy_[{op.device, st.engine}] = i;
    }
  }

  /// Each running compute operation's progress per second, in the device's running order. The SMs go
  /// to the kernels in the order they started, as the block scheduler dispatches them: a kernel keeps
  /// the SMs its blocks hold, and a later one runs on what is left (at full speed while the running
  /// kernels fill no more than the GPU, slowed in proportion to the SMs it gets when they do).
  /// The rates are valid until the next call.
  const std::vector<double> &computeRates(const DeviceState &d) {
    std::vector<double> &rates = computeRates_;
    rates.clear();
    double free = 1;
    for (size_t r : d.running) {
      const double want = std::min(s_[r].share, 1.0);
      const double got = std::min(want, free);
      free -= got;
      rates.push_back(got / want);
    }
    return rates;
  }

  /// Each running copy's progress per second, in copyBusy_'s order: the links' bandwidth shared
  /// max-min fairly (progressive filling) among the copies crossing them, none faster than alone.
  /// One copy per engine and direction means a single GPU's copies never share a link direction; the
  /// GPUs of a board share its host link. The rates are valid until the next call.
  const std::vector<double> &copyRates() {
    // Scratch kept from call to call: this runs at every step of the simulation.
    std::vector<const OpState *> &flows = flows_;
    std::vector<double> &alloc = alloc_, &left = left_;
    std::vector<char> &frozen = frozen_, &used = linkUsed_;
    std::vector<int> &links = usedLinks_;
    flows.clear();
    for (const auto &[engine, i] : copyBusy_)
      flows.push_back(&s_[i]);
    alloc.assign(flows.size(), 0);
    frozen.assign(flows.size(), 0);
    // The bandwidth left on each link the copies cross, by link number.
    left.assign(static_cast<size_t>(hostSide()) + 1, 0);
    used.assign(left.size(), 0);
    links.clear();
    for (const OpState *f : flows)
      for (int l : f->linkSpan())
        if (!std::exchange(used[static_cast<size_t>(l)], 1)) {
          links.push_back(l);
          left[static_cast<size_t>(l)] = capacity(l);
        }
    // A link carrying both directions at once gives each a little less (links pair as 2k, 2k + 1).
    for (int link : links)
      if (link != hostSide() && used[static_cast<size_t>(link ^ 1)])
        left[static_cast<size_t>(link)] *= c_.costs.duplexBandwidthFraction;
    for (size_t f = 0; f < flows.size(); ++f)
      frozen[f] = flows[f]->demand <= 0;
    while (std::find(frozen.begin(), frozen.end(), 0) != frozen.end()) {
      double step = kNever;
      for (int link : links) {
        size_t users = 0;
        for (size_t f = 0; f < flows.size(); ++f) {
          const std::span<const int> crossed = flows[f]->linkSpan();
          users += !frozen[f] && std::count(crossed.begin(), crossed.end(), link);
        }
        if (users)
          step = std::min(step, left[static_cast<size_t>(link)] / static_cast<double>(users));
      }
      for (size_t f = 0; f < flows.size(); ++f)
        if (!frozen[f])
          step = std::min(step, flows[f]->demand - alloc[f]);
      for (size_t f = 0; f < flows.size(); ++f) {
        if (frozen[f])
          continue;
        alloc[f] += step;
        for (int l : flows[f]->linkSpan())
          left[static_cast<size_t>(l)] -= step;
      }
      for (size_t f = 0; f < flows.size(); ++f) {
        if (frozen[f])
          continue;
        const std::span<const int> crossed = flows[f]->linkSpan();
        const bool saturated = std::any_of(crossed.begin(), crossed.end(),
                                           [&](int l) { return left[static_cast<size_t>(l)] <= 1e-9 * capacity(l); });
        frozen[f] = saturated || alloc[f] >= flows[f]->demand * (1 - 1e-12);
      }
    }
    std::vector<double> &rates = copyRates_;
    rates.clear();
    for (size_t f = 0; f < flows.size(); ++f)
      rates.push_back(flows[f]->demand > 0 ? std::min(1.0, alloc[f] / flows[f]->demand) : 1.0);
    return rates;
  }

  double nextEvent() {
    double t = kNever;
    if (!hostWaiting_ && next_ < ops_.size())
      t = std::max(hostReady_, now_);
    for (const auto &[queue, fifo] : queues_)
      if (!fifo.empty() && s_[fifo.front()].submit > now_)
        t = std::min(t, s_[fifo.front()].submit);
    const std::vector<double> &copies = copyRates();
    size_t k = 0;
    for (const auto &[engine, i] : copyBusy_) {
      if (copies[k] > 0)
        t = std::min(t, now_ + s_[i].remaining / copies[k]);
      ++k;
    }
    for (const DeviceState &d : dev_) {
      if (d.running.empty())
        continue;
      const std::vector<double> &rates = computeRates(d);
      for (size_t r = 0; r < d.running.size(); ++r)
        if (rates[r] > 0)
          t = std::min(t, now_ + s_[d.running[r]].remaining / rates[r]);
    }
    return t;
  }

  /// Whether operation `i`, progressing by `progress` alone-seconds, has finished by `t`.
  bool finishes(size_t i, double progress, double t) {
    OpState &st = s_[i];
    st.remaining -= progress;
    if (st.remaining > 1e-12 * std::max(1.0, t))
      return false;
    st.done = true;
    st.end = t;
    completed(i);
    return true;
  }

  void advanceTo(double t) {
    const double dt = t - now_;
    for (DeviceState &d : dev_) {
      if (d.running.empty())
        continue;
      const std::vector<double> &rates = computeRates(d);
      size_t still = 0;
      bool exclusiveLeft = false;
      for (size_t k = 0; k < d.running.size(); ++k) {
        const size_t i = d.running[k];
        if (rates[k] > 0 && finishes(i, dt * rates[k], t))
          continue;
        exclusiveLeft = exclusiveLeft || s_[i].share >= kExclusive;
        d.running[still++] = i;
      }
      d.running.resize(still);
      d.exclusiveRunning = exclusiveLeft;
    }
    const std::vector<double> &copies = copyRates();
    size_t k = 0;
    for (auto it = copyBusy_.begin(); it != copyBusy_.end(); ++k) {
      if (copies[k] > 0 && finishes(it->second, dt * copies[k], t))
        it = copyBusy_.erase(it);
      else
        ++it;
    }
    now_ = t;
  }

  /// A share that takes the whole GPU and lets nothing else run (copies without a copy engine).
  static constexpr double kExclusive = 2;
  using HostCosts = arch::HostCosts;

  const SystemConfig &c_;
  const std::vector<SessionOp> &ops_;
  const std::vector<NvtxRange> &ranges_;
  HostApi api_ = HostApi::Cuda;
  double startSeconds_ = 0;
  std::vector<OpState> s_;
  std::vector<DeviceState> dev_;
  bool serial_ = false;
  double now_ = 0, hostReady_ = 0;
  size_t next_ = 0;
  bool hostWaiting_ = false;
  size_t waitingOp_ = kNoOp;
  size_t lastIssued_ = kNoOp;
  std::map<std::pair<unsigned, int>, std::deque<size_t>> queues_; ///< (device, queue)
  std::vector<size_t> deps_;                                      ///< every operation's dependencies (OpState::nextDep)
  std::vector<size_t> readyMarkers_;                              ///< events whose dependencies are done
  bool legacyCovers_ = true;                                      ///< see the constructor
  std::map<std::pair<unsigned, Engine>, size_t> copyBusy_;        ///< (device, engine) -> its copy
  // Scratch of computeRates and copyRates.
  std::vector<double> computeRates_, copyRates_, alloc_, left_;
  std::vector<const OpState *> flows_;
  std::vector<char> frozen_, linkUsed_;
  std::vector<int> usedLinks_;
};

} // namespace

double unionLength(std::vector<std::pair<double, double>> spans) {
  std::sort(spans.begin(), spans.end());
  double total = 0, from = 0, to = -1;
  for (auto [a, b] : spans) {
    if (a > to) {
      total += std::max(0.0, to - from);
      from = a;
      to = b;
    } else {
      to = std::max(to, b);
    }
  }
  return total + std::max(0.0, to - from);
}

namespace {

void validate(const SystemConfig &config, const Session &session) {
  const auto devices = static_cast<unsigned>(config.devices());
  for (size_t i = 0; i < session.ops.size(); ++i) {
    const SessionOp &op = session.ops[i];
    // Only for a message: no string per operation of a session that is fine.
    auto name = [&] { return op.where.empty() ? fmt::format("operation {}", i) : op.where; };
    if (op.kind == OpKind::StreamWaitEvent && (op.event >= i || session.ops[op.event].kind != OpKind::EventRecord))
      throw std::invalid_argument(
          fmt::format("operation {} waits for operation {}, which is not an earlier event record", i, op.event));
    const bool peer = op.kind == OpKind::CopyPeer;
    if (op.device >= devices || (peer && (op.fromDevice >= devices || op.toDevice >= devices)))
      throw std::invalid_argument(fmt::format(
          "{}: device {} of a system of {} ({} board{} of {} GPU{}; more boards: --boards, or \"boards\" in the "
          "spec's \"host\")",
          name(), std::max(op.device, peer ? std::max(op.fromDevice, op.toDevice) : 0u),
          devices == 1 ? "one GPU" : fmt::format("{} GPUs", devices), config.boards, config.boards == 1 ? "" : "s",
          config.gpusPerBoard, config.gpusPerBoard == 1 ? "" : "s"));
    if (peer && (op.fromDevice == op.toDevice || (op.device != op.fromDevice && op.device != op.toDevice)))
      throw std::invalid_argument(fmt::format("{}: a peer copy from device {} to device {} on a stream of device {}",
                                              name(), op.fromDevice, op.toDevice, op.device));
    if (!std::isfinite(op.kernelSeconds) || op.kernelSeconds < 0 || !std::isfinite(op.gpuShare) || op.gpuShare <= 0)
      throw std::invalid_argument(
          fmt::format("operation {}: a kernel time of {} s and a GPU share of {}", i, op.kernelSeconds, op.gpuShare));
  }
}

} // namespace

Timeline place(const SystemConfig &config, const Session &session) {
  validate(config, session);
  Simulation simulation(config, session);
  simulation.run();
  return simulation.timeline();
}

Timeline simulate(const SystemConfig &config, const Session &session) {
  Timeline tl = place(config, session); // validates the session
  // The guide's baseline: the same calls on one stream, nothing overlapping (across devices too).
  Simulation serial(config, session, true);
  serial.run();
  tl.serialSeconds = serial.totalSeconds();
  tl.overlapFraction = tl.serialSeconds > 0 ? 1 - tl.totalSeconds / tl.serialSeconds : 0;
  tl.kernelShare = tl.serialSeconds > 0 ? std::min(1.0, tl.kernelSeconds / tl.serialSeconds) : 0;
  tl.amdahlBound = tl.kernelShare < 1 ? 1 / (1 - tl.kernelShare) : 0;
  return tl;
}

} // namespace ptxray::system
