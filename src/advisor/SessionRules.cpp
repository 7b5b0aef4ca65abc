#include "advisor/SessionRules.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>

namespace ptxray::advisor {

namespace {

using system::OpKind;
using system::Session;
using system::SessionOp;
using system::Timeline;

constexpr std::array kSessionRules = {
    SessionRuleInfo{"pageable-transfers", Priority::High, "[BPG] 3.1, 3.1.1; [Kepler] 1.4.8",
                    "host-device copies from pageable memory: staged, slower, and they hold the host"},
    SessionRuleInfo{"transfers-dominate", Priority::High, "[BPG] 3.1, A.1",
                    "PCIe copies take longer than the kernels they feed"},
    SessionRuleInfo{"small-transfers", Priority::Medium, "[BPG] 3.1",
                    "many small copies in a row where one batched copy would do"},
    SessionRuleInfo{"gapped-host-rows", Priority::Medium, "[Kepler] 1.4.4.5",
                    "2D copies of short rows spread over host memory: slower than the same bytes contiguous"},
    SessionRuleInfo{"no-copy-compute-overlap", Priority::Medium, "[BPG] 3.1.3",
                    "copies and kernels run one after the other though the GPU has copy engines"},
    SessionRuleInfo{"serialized-streams", Priority::Medium, "[Kepler] 1.4.2.2",
                    "independent streams serialized by the GPU's hardware queues and the issue order"},
    SessionRuleInfo{"idle-devices", Priority::Medium, "[Kepler] 1.4.7",
                    "a system of several GPUs (a K10 or K80 board is two) whose work runs on fewer of them"},
};

std::string timeText(double seconds) {
  if (seconds >= 1e-3)
    return fmt::format("{:.3f} ms", seconds * 1e3);
  return fmt::format("{:.2f} us", seconds * 1e6);
}

const SessionRuleInfo &info(std::string_view id) {
  for (const SessionRuleInfo &r : kSessionRules)
    if (r.id == id)
      return r;
  throw std::logic_error("unknown session rule");
}

Finding finding(std::string_view id, const Timeline &tl, double fixedSeconds) {
  const SessionRuleInfo &r = info(id);
  Finding f;
  f.rule = std::string(r.id);
  f.priority = r.priority;
  f.category = Category::System;
  f.guide = std::string(r.guide);
  f.gainSeconds = std::max(0.0, tl.totalSeconds - fixedSeconds);
  f.gainFraction = tl.totalSeconds > 0 ? f.gainSeconds / tl.totalSeconds : 0;
  return f;
}

double rerun(const Timeline &tl, const Session &session) {
  return system::simulate(tl.config, session).totalSeconds;
}

/// The same session with every host buffer page-locked.
Session pinned(const Session &s) {
  Session out = s;
  for (SessionOp &op : out.ops)
    op.hostMemory = system::HostMemory::Pinned;
  return out;
}

/// A stream of one device: streams are numbered per device, and each device has its own stream 0.
using StreamKey = std::pair<unsigned, unsigned>; // (device, stream)
StreamKey streamOf(const SessionOp &op) {
  return {op.device, op.stream};
}

/// Runs of at least `count` small copies of one kind made in a row on one stream (nothing else on
/// that stream between them), merged into one copy each. Event indices are remapped.
Session batched(const Session &s, uint64_t smallBytes, size_t count, size_t &runs, size_t &merged) {
  std::vector<std::vector<size_t>> groups; // op indices merged into the first
  std::map<StreamKey, std::vector<size_t>> open;
  auto close = [&](StreamKey stream) {
    auto it = open.find(stream);
    if (it != open.end() && it->second.size() >= count)
      groups.push_back(it->second);
    if (it != open.end())
      open.erase(it);
  };
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const SessionOp &op = s.ops[i];
    const bool small = op.isCopy() && op.bytes < smallBytes && op.rows == 1;
    if (!op.isGpuWork() && op.kind != OpKind::EventRecord && op.kind != OpKind::StreamWaitEvent) {
      for (auto &[stream, run] : std::map(open))
        close(stream); // the host waits here: nothing merges across
      continue;
    }
    // Stream-0 work orders everything on its device: it ends every run there, and other streams' work
    // ends stream 0's.
    if (op.stream == 0) {
      for (auto &[stream, run] : std::map(open))
        if (stream.first == op.device && stream.second != 0)
          close(stream);
    } else {
      close({op.device, 0});
    }
    auto it = open.find(streamOf(op));
    if (small && it != open.end() && !it->second.empty()) {
      const SessionOp &first = s.ops[it->second.front()];
      if (first.kind == op.kind && first.hostMemory == op.hostMemory) {
        it->second.push_back(i);
        continue;
      }
    }
    close(streamOf(op));
    if (small)
      open[streamOf(op)] = {i};
  }
  for (auto &[stream, run] : std::map(open))
    close(stream);
  runs = groups.size();
  merged = 0;
  std::vector<bool> drop(s.ops.size(), false);
  Session out = s;
  for (const std::vector<size_t> &g : groups) {
    for (size_t k = 1; k < g.size(); ++k) {
      out.ops[g.front()].bytes += s.ops[g[k]].bytes;
      drop[g[k]] = true;
    }
    merged += g.size();
  }
  std::vector<size_t> newIndex(s.ops.size(), system::kNoOp);
  Session compact;
  for (size_t i = 0; i < out.ops.size(); ++i)
    if (!drop[i]) {
      newIndex[i] = compact.ops.size();
      compact.ops.push_back(out.ops[i]);
    }
  for (SessionOp &op : compact.ops)
    if (op.event != system::kNoOp)
      op.event = newIndex[op.event];
  return compact;
}

/// The same work issued breadth-first: between two points where the host waits (or a stream-0
/// operation orders everything), the first operation of every stream, then every stream's second,
/// and so on. Empty when events tie streams together (reordering could put a wait before its record).
std::optional<Session> breadthFirst(const Session &s) {
  Session out;
  std::vector<size_t> segment;
  bool ok = true;
  auto flush = [&] {
    std::map<StreamKey, size_t> rankOnStream;
    std::vector<std::pair<size_t, size_t>> order; // (rank, index)
    for (size_t i : segment)
      order.emplace_back(rankOnStream[streamOf(s.ops[i])]++, i);
    std::stable_sort(order.begin(), order.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    for (auto [rank, i] : order)
      out.ops.push_back(s.ops[i]);
    segment.clear();
  };
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const SessionOp &op = s.ops[i];
    if (op.kind == OpKind::EventRecord || op.kind == OpKind::StreamWaitEvent)
      ok = false;
    if (op.isGpuWork() && op.stream != 0) {
      segment.push_back(i);
      continue;
    }
    flush();
    out.ops.push_back(op);
  }
  flush();
  if (!ok)
    return std::nullopt;
  return out;
}

/// Per device: how long its copy engines and its SMs are busy, and for how long at the same time.
struct DeviceBusy {
  double copies = 0, h2d = 0, d2h = 0, compute = 0, together = 0;
};

std::map<unsigned, DeviceBusy> busyPerDevice(const Timeline &tl) {
  using system::unionLength;
  struct Spans {
    std::vector<std::pair<double, double>> copies, h2d, d2h, compute;
  };
  std::map<unsigned, Spans> spans;
  for (const system::TimelineEntry &e : tl.entries) {
    const SessionOp &op = tl.session.ops[e.op];
    Spans &d = spans[op.device];
    if (e.engine == system::Engine::Compute)
      d.compute.emplace_back(e.start, e.end);
    else if (op.usesCopyEngine()) {
      d.copies.emplace_back(e.start, e.end);
      (e.engine == system::Engine::CopyD2H ? d.d2h : d.h2d).emplace_back(e.start, e.end);
    }
  }
  std::map<unsigned, DeviceBusy> out;
  for (auto &[device, d] : spans) {
    DeviceBusy &b = out[device];
    b.copies = unionLength(d.copies);
    b.h2d = unionLength(d.h2d);
    b.d2h = unionLength(d.d2h);
    b.compute = unionLength(d.compute);
    std::vector<std::pair<double, double>> both = d.copies;
    both.insert(both.end(), d.compute.begin(), d.compute.end());
    b.together = b.copies + b.compute - unionLength(both); // |copies ∩ compute|
  }
  return out;
}

std::set<StreamKey> gpuStreams(const Session &s) {
  std::set<StreamKey> streams;
  for (const SessionOp &op : s.ops)
    if (op.isGpuWork())
      streams.insert(streamOf(op));
  return streams;
}

} // namespace

std::span<const SessionRuleInfo> sessionRules() {
  return kSessionRules;
}

std::vector<Finding> adviseSession(const Timeline &tl, const SessionThresholds &t) {
  std::vector<Finding> out;
  const Session &s = tl.session;
  const double total = tl.totalSeconds;
  if (total <= 0)
    return out;
  const double copySeconds = tl.h2d.busySeconds + tl.d2h.busySeconds + tl.peer.busySeconds;
  // An OpenCL program's advice in OpenCL's terms: command queues, not streams ([BPG] 3.1).
  const bool cl = s.api == system::HostApi::OpenCL;
  const char *streamWord = cl ? "command queue" : "stream";
  const double kernelBusy = tl.compute.busySeconds;

  // Pageable memory: the same session with pinned buffers.
  size_t pageable = 0;
  uint64_t pageableBytes = 0;
  for (const SessionOp &op : s.ops)
    if (op.isCopy() && op.hostMemory == system::HostMemory::Pageable) {
      ++pageable;
      pageableBytes += op.bytes;
    }
  if (pageable) {
    Finding f = finding("pageable-transfers", tl, rerun(tl, pinned(s)));
    f.title = fmt::format("{} cop{} from pageable host memory", pageable, pageable == 1 ? "y" : "ies");
    f.evidence = fmt::format("{:.4g} MB staged through a pinned buffer at {:.2f}/{:.2f} GB/s (H2D/D2H) instead of "
                             "{:.2f} GB/s, each call holding the host until its bytes are through",
                             pageableBytes / 1e6, tl.config.pageableH2DBytesPerSecond / 1e9,
                             tl.config.pageableD2HBytesPerSecond / 1e9, tl.config.pinnedBytesPerSecond / 1e9);
    f.fix = cl ? "copy from pinned memory: create a buffer with CL_MEM_ALLOC_HOST_PTR, map it "
                 "(clEnqueueMapBuffer), fill it through the mapped pointer and pass that pointer to "
                 "clEnqueueWriteBuffer / clEnqueueReadBuffer ([BPG] 3.1.1); pinned memory is scarce, so pin what is "
                 "copied often"
               : "allocate the host buffers with cudaMallocHost / cudaHostAlloc (or cudaHostRegister them); pinned "
                 "memory is scarce, so pin what is copied often";
    out.push_back(std::move(f));
  }

  // Transfers dominating: a bound, not a re-run (the fix is to copy less).
  if (copySeconds > kernelBusy && copySeconds > t.transferShare * total && tl.kernelSeconds > 0) {
    Finding f = finding("transfers-dominate", tl, total);
    f.title = fmt::format("PCIe copies busy {} against {} of kernels", timeText(copySeconds), timeText(kernelBusy));
    f.evidence = fmt::format("{:.4g} MB in, {:.3g} MB out{}; the kernels are {:.0f}% of the one-stream run, so faster "
                             "kernels alone could speed the session up at most {:.2f}x",
                             tl.h2d.bytes / 1e6, tl.d2h.bytes / 1e6,
                             tl.peer.bytes ? fmt::format(", {:.3g} MB between devices", tl.peer.bytes / 1e6) : "",
                             100 * tl.kernelShare, tl.amdahlBound);
    f.fix = "keep intermediate data on the device and copy only inputs and results; run even kernels that are no "
            "faster than the host on the GPU when that saves a round trip over PCIe";
    out.push_back(std::move(f));
  }

  // Small copies in a row: merged.
  size_t runs = 0, merged = 0;
  Session batch = batched(s, t.smallCopyBytes, t.smallCopyCount, runs, merged);
  if (runs) {
    Finding f = finding("small-transfers", tl, rerun(tl, batch));
    f.title =
        fmt::format("{} small copies in {} run{} that could each be one copy", merged, runs, runs == 1 ? "" : "s");
    f.evidence =
        fmt::format("each copy costs about {} of call and {} of engine setup besides its bytes",
                    timeText(tl.config.costs.copyIssueSeconds), timeText(tl.config.costs.copyEngineSetupSeconds));
    f.fix = cl ? "gather the pieces into one contiguous host buffer (or use clEnqueueWriteBufferRect for strided "
                 "pieces) and copy it once"
               : "gather the pieces into one contiguous host buffer (or use cudaMemcpy2D for strided pieces) and copy "
                 "it once";
    out.push_back(std::move(f));
  }

  // 2D copies of short, spread-out host rows: the same session with the host rows packed.
  size_t gapped = 0;
  Session packed = s;
  for (SessionOp &op : packed.ops) {
    if (op.isCopy() && op.rows > 1 && tl.config.costs.gappedHostRowPenalty(op.bytes / op.rows, op.hostPitch) > 0) {
      op.hostPitch = op.bytes / op.rows;
      ++gapped;
    }
  }
  if (gapped) {
    Finding f = finding("gapped-host-rows", tl, rerun(tl, packed));
    f.title = fmt::format("{} 2D cop{} of short rows spread over host memory", gapped, gapped == 1 ? "y" : "ies");
    f.evidence =
        fmt::format("host rows shorter than {} KiB more than {:.0f} times their width apart slow down, down to {:.0f}% "
                    "of the link's rate plus {:.1f} ns a row from a {} KiB pitch on (measured: the host pitch decides "
                    "it, not the device pitch)",
                    tl.config.costs.gappedHostRowFullSpeedBytes >> 10, tl.config.costs.gappedHostRowOnsetRatio,
                    100 * tl.config.costs.gappedHostRowBandwidthFraction, tl.config.costs.gappedHostRowSeconds * 1e9,
                    tl.config.costs.gappedHostRowFullPitchBytes >> 10);
    f.fix = "pack the rows into a contiguous host buffer (host pitch = width) before copying, or copy rows of at "
            "least 64 KiB";
    out.push_back(std::move(f));
  }

  // No overlap: copies and kernels both matter, the GPU could overlap them, and on no device did they
  // run at the same time (devices working side by side are not a device overlapping its copies).
  const bool overlapPossible = tl.config.copyEngines >= 1;
  double together = 0, bound = 0;
  for (const auto &[device, b] : busyPerDevice(tl)) {
    together += b.together;
    // What overlapping could at best reach on the device: its busiest engine alone.
    bound = std::max(bound, std::max(tl.config.copyEngines >= 2 ? std::max(b.h2d, b.d2h) : b.copies, b.compute));
  }
  if (overlapPossible && copySeconds > t.overlapShare * total && kernelBusy > t.overlapShare * total &&
      together < 0.05 * std::min(copySeconds, kernelBusy)) {
    Finding f = finding("no-copy-compute-overlap", tl, bound);
    f.title = "copies and kernels do not overlap";
    f.evidence = fmt::format("copies {} and kernels {} of a {} session, {} of them at the same time on a device; {} "
                             "copy engine{} per GPU could run copies beside the kernels (gain: the bound where the "
                             "busiest engine never waits)",
                             timeText(copySeconds), timeText(kernelBusy), timeText(total), timeText(together),
                             tl.config.copyEngines, tl.config.copyEngines == 1 ? "" : "s");
    f.fix = cl ? "split the data into chunks and give each chunk its copy-in, kernel and copy-out on its own command "
                 "queue (non-blocking clEnqueueWriteBuffer from pinned memory), issued staggered ([BPG] 3.1.2)"
               : "split the data into chunks and give each chunk its copy-in, kernel and copy-out on its own stream "
                 "(cudaMemcpyAsync from pinned memory), issued staggered as the guide's sample does";
    out.push_back(std::move(f));
  }

  // Serialized streams: more streams than hardware queues.
  const std::set<StreamKey> streams = gpuStreams(s);
  // Connections go to a device's streams round-robin in first-use order (SystemModel.cpp).
  std::map<unsigned, int> streamsOnDevice;
  for (const StreamKey &k : streams)
    ++streamsOnDevice[k.first];
  int independentStreams = 0;
  for (const auto &[device, count] : streamsOnDevice)
    independentStreams = std::max(independentStreams, count);
  if (independentStreams > tl.config.computeQueues) {
    std::optional<Session> breadth = breadthFirst(s);
    double best = total;
    std::string fix;
    if (breadth) {
      best = rerun(tl, *breadth);
      fix = fmt::format("issue the {0}s' work breadth-first: the first operation of every {0}, then every {0}'s "
                        "second, and so on",
                        streamWord);
    }
    if (tl.config.computeQueues > 1) { // Hyper-Q: more connections
      system::SystemConfig more = tl.config;
      more.computeQueues = std::min(32, std::max(independentStreams, tl.config.computeQueues));
      double withMore = system::simulate(more, s).totalSeconds;
      if (withMore < best) {
        best = withMore;
        fix = fmt::format("set CUDA_DEVICE_MAX_CONNECTIONS={} (the driver opens {} connections; the GPU has up to "
                          "32), or issue the {}s' work breadth-first",
                          more.computeQueues, tl.config.computeQueues, streamWord);
      }
    }
    if (!fix.empty()) {
      Finding f = finding("serialized-streams", tl, best);
      f.title = fmt::format("{} {}s share {} hardware queue{}", independentStreams, streamWord, tl.config.computeQueues,
                            tl.config.computeQueues == 1 ? "" : "s");
      f.evidence = tl.config.computeQueues == 1
                       ? "before GK110 every stream's kernels go through one queue in issue order: a kernel waiting "
                         "for its stream's previous work holds back the other streams' kernels behind it"
                       : "streams beyond the connections share them in issue order, with the false dependencies "
                         "of a single queue";
      f.fix = fix;
      out.push_back(std::move(f));
    }
  }

  // Idle devices: the streams spread over every device, when there are streams to spread; else the
  // bound of the kernels' time shared by all devices.
  std::set<unsigned> used;
  for (const SessionOp &op : s.ops)
    if (op.isGpuWork())
      used.insert(op.device);
  const auto devices = static_cast<unsigned>(tl.config.devices());
  if (devices > 1 && !used.empty() && used.size() < devices) {
    std::map<StreamKey, unsigned> placed;
    Session spread = s;
    bool movable = false;
    for (SessionOp &op : spread.ops) {
      if (op.stream == 0 || op.kind == OpKind::CopyPeer)
        continue;
      auto [it, added] = placed.try_emplace(streamOf(op), static_cast<unsigned>(placed.size() % devices));
      op.device = it->second;
      movable = movable || it->second != 0;
    }
    // Host waits for a device wait for all of them once its streams are spread.
    std::vector<SessionOp> ops;
    for (const SessionOp &op : spread.ops) {
      if (op.kind != OpKind::Synchronize || !movable) {
        ops.push_back(op);
        continue;
      }
      for (unsigned d = 0; d < devices; ++d) {
        ops.push_back(op);
        ops.back().device = d;
      }
    }
    std::vector<size_t> newIndex;
    for (size_t i = 0, j = 0; i < spread.ops.size(); ++i) {
      newIndex.push_back(j);
      j += spread.ops[i].kind == OpKind::Synchronize && movable ? devices : 1;
    }
    for (SessionOp &op : ops)
      if (op.event != system::kNoOp)
        op.event = newIndex[op.event];
    spread.ops = std::move(ops);
    const double bound = total - tl.compute.busySeconds * (1 - 1.0 / devices);
    Finding f = finding("idle-devices", tl, movable ? std::min(total, rerun(tl, spread)) : bound);
    f.title = fmt::format("the work runs on {} of the system's {} GPUs", used.size(), devices);
    f.evidence = fmt::format(
        "{}: each device has its own copy engines, queues and SMs; {}", tl.config.gpu,
        movable
            ? fmt::format("with the {} streams spread over the devices the model gives the saving above", placed.size())
            : "the work is on one stream, so the saving above is a bound: the kernels' time shared by all devices");
    f.fix = cl ? "split the data and give each device its share (a command queue per device of the context, with "
                 "its own buffers and launches); the GPUs of one board share its PCIe link"
               : "split the data and give each device its share (cudaSetDevice, then its own buffers, streams and "
                 "launches), gathering results with cudaMemcpyPeer; the GPUs of one board share its PCIe link";
    out.push_back(std::move(f));
  }

  std::erase_if(out,
                [&](const Finding &f) { return f.rule != "transfers-dominate" && f.gainFraction < t.minGainFraction; });
  std::stable_sort(out.begin(), out.end(), [](const Finding &a, const Finding &b) {
    if (a.priority != b.priority)
      return a.priority < b.priority;
    return a.gainSeconds > b.gainSeconds;
  });
  return out;
}

} // namespace ptxray::advisor
