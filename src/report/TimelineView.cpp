#include "report/TimelineView.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace ptxray::report {

namespace {

using system::Engine;
using system::OpKind;
using system::Timeline;

std::string timeText(double seconds) {
  if (seconds >= 1)
    return fmt::format("{:.3f} s", seconds);
  if (seconds >= 1e-3)
    return fmt::format("{:.3f} ms", seconds * 1e3);
  return fmt::format("{:.2f} us", seconds * 1e6);
}

std::string linkText(const system::SystemConfig &c) {
  if (!c.link)
    return "integrated (no PCIe)";
  return fmt::format("PCIe {}.0 x{}: {:.2f} GB/s pinned, {:.2f}/{:.2f} GB/s pageable H2D/D2H", c.link->generation,
                     c.link->lanes, c.pinnedBytesPerSecond / 1e9, c.pageableH2DBytesPerSecond / 1e9,
                     c.pageableD2HBytesPerSecond / 1e9);
}

/// The glyph an operation is drawn with: its index in base 36, the last digit.
char glyph(size_t op) {
  constexpr std::string_view digits = "0123456789abcdefghijklmnopqrstuvwxyz";
  return digits[op % digits.size()];
}

double bandwidth(const system::SessionOp &op, const system::TimelineEntry &e) {
  const double d = e.end - e.start;
  return op.bytes && d > 0 ? static_cast<double>(op.bytes) / d : 0;
}

} // namespace

std::string timelineText(const Timeline &tl, const std::vector<advisor::Finding> &findings,
                         const TimelineTextOptions &options) {
  const system::SystemConfig &c = tl.config;
  std::string out;
  out += fmt::format("== session on {} ({}; {} copy engine{}, {} concurrent kernels, {} hardware queue{})\n", c.gpu,
                     linkText(c), c.copyEngines, c.copyEngines == 1 ? "" : "s", c.maxConcurrentKernels, c.computeQueues,
                     c.computeQueues == 1 ? "" : "s");
  out += fmt::format("  total {}   one stream {}   overlap {:.1f}%   peak concurrent kernels {}\n",
                     timeText(tl.totalSeconds), timeText(tl.serialSeconds), 100 * tl.overlapFraction,
                     tl.peakConcurrentKernels);
  auto engineLine = [&](const char *name, const system::EngineTotals &t) {
    if (!t.operations)
      return;
    out += fmt::format("  {:<8} {} busy, {} operation{}", name, timeText(t.busySeconds), t.operations,
                       t.operations == 1 ? "" : "s");
    if (t.bytes)
      out += fmt::format(", {:.4g} MB at {:.2f} GB/s", static_cast<double>(t.bytes) / 1e6,
                         t.busySeconds > 0 ? static_cast<double>(t.bytes) / t.busySeconds / 1e9 : 0);
    out += "\n";
  };
  engineLine("H2D", tl.h2d);
  engineLine("D2H", tl.d2h);
  engineLine("compute", tl.compute);
  engineLine("host", tl.host);
  if (tl.kernelSeconds > 0)
    out += fmt::format("  kernels  {:.1f}% of the one-stream run: faster kernels alone speed the session up at most "
                       "{:.2f}x ([KTG] 1.3, Amdahl)\n",
                       100 * tl.kernelShare, tl.amdahlBound);

  if (!findings.empty())
    out += "\n";
  for (const advisor::Finding &f : findings) {
    out += fmt::format("  [{}] {}: {}", advisor::priorityName(f.priority), f.rule, f.title);
    if (f.gainSeconds > 0)
      out += fmt::format(" (saves about {}, {:.0f}%)", timeText(f.gainSeconds), 100 * f.gainFraction);
    out += fmt::format("\n      {}\n      fix: {}\n      see {}\n", f.evidence, f.fix, f.guide);
  }

  // The chart: engines first, then streams.
  const int width = std::max(10, options.width);
  const double span = tl.totalSeconds > 0 ? tl.totalSeconds : 1;
  struct Lane {
    std::string name;
    std::string cells;
  };
  std::vector<Lane> lanes;
  auto paint = [&](Lane &lane, size_t op, double start, double end) {
    // Rounded, so that back-to-back operations meet without sharing a cell.
    int a = static_cast<int>(std::lround(start / span * width));
    int b = static_cast<int>(std::lround(end / span * width));
    a = std::clamp(a, 0, width - 1);
    b = std::clamp(std::max(b, a + 1), 1, width);
    for (int x = a; x < b; ++x)
      lane.cells[x] = lane.cells[x] == ' ' || lane.cells[x] == glyph(op) ? glyph(op) : '#';
  };
  std::map<Engine, size_t> engineLane;
  for (Engine e : {Engine::CopyH2D, Engine::Copy, Engine::CopyD2H, Engine::Compute, Engine::Host})
    for (const system::TimelineEntry &entry : tl.entries)
      if (entry.engine == e) {
        engineLane[e] = lanes.size();
        lanes.push_back({system::engineName(e), std::string(width, ' ')});
        break;
      }
  std::set<unsigned> streams;
  for (const system::SessionOp &op : tl.session.ops)
    if (op.isGpuWork())
      streams.insert(op.stream);
  std::map<unsigned, size_t> streamLane;
  for (unsigned s : streams) {
    streamLane[s] = lanes.size();
    lanes.push_back({fmt::format("stream {}", s), std::string(width, ' ')});
  }
  for (const system::TimelineEntry &e : tl.entries) {
    const system::SessionOp &op = tl.session.ops[e.op];
    if (e.engine == Engine::None || e.end <= e.start)
      continue;
    paint(lanes[engineLane[e.engine]], e.op, e.start, e.end);
    if (op.isGpuWork())
      paint(lanes[streamLane[op.stream]], e.op, e.start, e.end);
  }
  out += fmt::format("\n  {:<10} 0{:>{}}\n", "", timeText(tl.totalSeconds), width);
  for (const Lane &lane : lanes)
    out += fmt::format("  {:<10}|{}|\n", lane.name, lane.cells);
  out += "  (each operation is drawn with the last digit of its number in base 36; # where several overlap)\n";

  if (options.operations) {
    out += fmt::format("\n  {:>3}  {:<18} {:>6}  {:<8} {:>11} {:>11} {:>11}  {}\n", "#", "operation", "stream",
                       "engine", "issued", "start", "end", "what");
    for (const system::TimelineEntry &e : tl.entries) {
      const system::SessionOp &op = tl.session.ops[e.op];
      std::string what = op.label;
      if (double bw = bandwidth(op, e); bw > 0 && op.isCopy())
        what +=
            fmt::format(", {:.2f} GB/s{}", bw / 1e9, op.hostMemory == system::HostMemory::Pageable ? " pageable" : "");
      out += fmt::format("  {:>3}  {:<18} {:>6}  {:<8} {:>11} {:>11} {:>11}  {}\n", e.op, system::opKindName(op.kind),
                         op.kind == OpKind::Synchronize ? std::string("-") : std::to_string(op.stream),
                         system::engineName(e.engine), timeText(e.issue), timeText(e.start), timeText(e.end), what);
    }
  }
  return out;
}

nlohmann::json timelineJson(const Timeline &tl, const std::vector<advisor::Finding> &findings) {
  using nlohmann::json;
  const system::SystemConfig &c = tl.config;
  json j;
  j["schema"] = "ptxray-timeline";
  j["version"] = 1;
  json system;
  system["gpu"] = c.gpu;
  if (c.link)
    system["pcie"] = {{"generation", c.link->generation}, {"lanes", c.link->lanes}};
  else
    system["pcie"] = nullptr;
  system["pinned_gbps"] = c.pinnedBytesPerSecond / 1e9;
  system["pageable_h2d_gbps"] = c.pageableH2DBytesPerSecond / 1e9;
  system["pageable_d2h_gbps"] = c.pageableD2HBytesPerSecond / 1e9;
  system["copy_engines"] = c.copyEngines;
  system["max_concurrent_kernels"] = c.maxConcurrentKernels;
  system["hardware_queues"] = c.computeQueues;
  j["system"] = system;
  auto totals = [](const system::EngineTotals &t) {
    return json{{"busy_us", t.busySeconds * 1e6}, {"bytes", t.bytes}, {"operations", t.operations}};
  };
  j["totals"] = {{"total_us", tl.totalSeconds * 1e6},
                 {"one_stream_us", tl.serialSeconds * 1e6},
                 {"overlap", tl.overlapFraction},
                 {"kernel_us", tl.kernelSeconds * 1e6},
                 {"kernel_share", tl.kernelShare},
                 {"amdahl_bound", tl.amdahlBound},
                 {"peak_concurrent_kernels", tl.peakConcurrentKernels},
                 {"h2d", totals(tl.h2d)},
                 {"d2h", totals(tl.d2h)},
                 {"compute", totals(tl.compute)},
                 {"host", totals(tl.host)}};
  json ops = json::array();
  for (const system::TimelineEntry &e : tl.entries) {
    const system::SessionOp &op = tl.session.ops[e.op];
    json o = {{"index", e.op},
              {"op", system::opKindName(op.kind)},
              {"stream", op.stream},
              {"label", op.label},
              {"where", op.where},
              {"engine", system::engineName(e.engine)},
              {"queue", e.queue},
              {"issue_us", e.issue * 1e6},
              {"start_us", e.start * 1e6},
              {"end_us", e.end * 1e6}};
    if (op.bytes)
      o["bytes"] = op.bytes;
    if (op.isCopy()) {
      o["host_memory"] = op.hostMemory == system::HostMemory::Pinned ? "pinned" : "pageable";
      o["gbps"] = bandwidth(op, e) / 1e9;
    }
    if (op.kind == OpKind::Kernel) {
      o["kernel_us"] = op.kernelSeconds * 1e6;
      o["gpu_share"] = op.gpuShare;
    }
    ops.push_back(std::move(o));
  }
  j["operations"] = std::move(ops);
  json advice = json::array();
  for (const advisor::Finding &f : findings)
    advice.push_back({{"rule", f.rule},
                      {"priority", advisor::priorityName(f.priority)},
                      {"title", f.title},
                      {"guide", f.guide},
                      {"evidence", f.evidence},
                      {"fix", f.fix},
                      {"gain_us", f.gainSeconds * 1e6},
                      {"gain_fraction", f.gainFraction}});
  j["findings"] = std::move(advice);
  return j;
}

} // namespace ptxray::report
