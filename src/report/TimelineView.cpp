#include "report/TimelineView.h"

#include "report/HtmlPage.h"
#include "report/SvgChart.h"

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
std::string bytesText(uint64_t bytes) {
  if (bytes >= 1'000'000)
    return fmt::format("{:.4g} MB", static_cast<double>(bytes) / 1e6);
  if (bytes >= 1'000)
    return fmt::format("{:.4g} kB", static_cast<double>(bytes) / 1e3);
  return fmt::format("{} B", bytes);
}

char glyph(size_t op) {
  constexpr std::string_view digits = "0123456789abcdefghijklmnopqrstuvwxyz";
  return digits[op % digits.size()];
}

struct ChartLane {
  std::string name;
  std::vector<size_t> entries; ///< indices into Timeline::entries
};

/// The chart's lanes: each device's engines that ran something, the host's waits, then each device's
/// streams. With several devices the names say which ("gpu1 copy H2D", "gpu1 stream 2").
std::vector<ChartLane> chartLanes(const Timeline &tl) {
  const bool several = tl.config.devices() > 1;
  auto named = [&](unsigned device, std::string name) {
    return several ? fmt::format("gpu{} {}", device, name) : name;
  };
  auto ran = [&](size_t i) { return tl.entries[i].end > tl.entries[i].start; };
  std::vector<ChartLane> lanes;
  std::map<std::pair<unsigned, Engine>, ChartLane> engines;
  ChartLane host{"host", {}};
  std::map<std::pair<unsigned, unsigned>, ChartLane> streams;
  for (size_t i = 0; i < tl.entries.size(); ++i) {
    const system::TimelineEntry &e = tl.entries[i];
    const system::SessionOp &op = tl.session.ops[e.op];
    if (!ran(i) || e.engine == Engine::None)
      continue;
    if (e.engine == Engine::Host) {
      host.entries.push_back(i);
      continue;
    }
    ChartLane &lane = engines[{op.device, e.engine}];
    lane.name = named(op.device, system::engineName(e.engine));
    lane.entries.push_back(i);
    if (op.isGpuWork()) {
      ChartLane &stream = streams[{op.device, op.stream}];
      stream.name = named(
          op.device, fmt::format("{} {}", tl.session.api == system::HostApi::OpenCL ? "queue" : "stream", op.stream));
      stream.entries.push_back(i);
    }
  }
  // Engines in the order data flows: in, both ways, out, the SMs (Engine's order).
  for (auto &[key, lane] : engines)
    lanes.push_back(std::move(lane));
  if (!host.entries.empty())
    lanes.push_back(std::move(host));
  for (auto &[key, lane] : streams)
    lanes.push_back(std::move(lane));
  return lanes;
}

double bandwidth(const system::SessionOp &op, const system::TimelineEntry &e) {
  const double d = e.end - e.start;
  return op.bytes && d > 0 ? static_cast<double>(op.bytes) / d : 0;
}

std::string operationTable(const Timeline &tl) {
  const bool several = tl.config.devices() > 1;
  std::string out = fmt::format("\n  {:>3}  {:<18} {}{:>6}  {:<8} {:>11} {:>11} {:>11}  {}\n", "#", "operation",
                                several ? "gpu " : "", "stream", "engine", "issued", "start", "end", "what");
  for (const system::TimelineEntry &e : tl.entries) {
    const system::SessionOp &op = tl.session.ops[e.op];
    std::string what = op.label;
    if (double bw = bandwidth(op, e); bw > 0 && op.usesCopyEngine())
      what += fmt::format(", {:.2f} GB/s{}", bw / 1e9,
                          op.isCopy() && op.hostMemory == system::HostMemory::Pageable ? " pageable" : "");
    out += fmt::format("  {:>3}  {:<18} {}{:>6}  {:<8} {:>11} {:>11} {:>11}  {}\n", e.op, system::opKindName(op.kind),
                       several ? fmt::format("{:>3} ", op.device) : "",
                       op.kind == OpKind::Synchronize ? std::string("-") : std::to_string(op.stream),
                       system::engineName(e.engine), timeText(e.issue), timeText(e.start), timeText(e.end), what);
  }
  return out;
}

std::string devicesText(const system::SystemConfig &c) {
  if (c.devices() == 1)
    return "";
  return fmt::format("; {} devices: {} board{} of {} GPU{}", c.devices(), c.boards, c.boards == 1 ? "" : "s",
                     c.gpusPerBoard, c.gpusPerBoard == 1 ? "" : "s");
}

} // namespace

namespace {

/// The NVTX ranges: each name's total host time and count (nsys's nvtx_sum, the ten largest), and
/// with `every` each range and mark in the order they began, indented by nesting.
std::string nvtxText(const Timeline &tl, bool every) {
  if (tl.ranges.empty())
    return {};
  auto fullName = [&](const system::NvtxRange &r) { return r.domain.empty() ? r.name : r.domain + ":" + r.name; };
  std::map<std::string, std::pair<double, size_t>> byName;
  size_t marks = 0;
  for (const system::TimelineRange &r : tl.ranges) {
    const system::NvtxRange &range = tl.session.ranges[r.range];
    if (range.mark) {
      ++marks;
      continue;
    }
    auto &[seconds, count] = byName[fullName(range)];
    seconds += r.end - r.start;
    ++count;
  }
  std::vector<std::pair<std::string, std::pair<double, size_t>>> rows(byName.begin(), byName.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto &a, const auto &b) { return a.second.first > b.second.first; });
  std::string out = fmt::format("  NVTX     {} range{}, {} mark{}", tl.ranges.size() - marks,
                                tl.ranges.size() - marks == 1 ? "" : "s", marks, marks == 1 ? "" : "s");
  for (size_t i = 0; i < rows.size() && i < 10; ++i)
    out += fmt::format("{}{} {} ({}x)", i ? ", " : ": ", rows[i].first, timeText(rows[i].second.first),
                       rows[i].second.second);
  if (rows.size() > 10)
    out += fmt::format(", {} more", rows.size() - 10);
  out += "\n";
  if (!every)
    return out;
  std::vector<const system::TimelineRange *> ordered;
  for (const system::TimelineRange &r : tl.ranges)
    ordered.push_back(&r);
  std::stable_sort(ordered.begin(), ordered.end(), [&](const auto *a, const auto *b) {
    return a->start != b->start ? a->start < b->start
                                : tl.session.ranges[a->range].depth < tl.session.ranges[b->range].depth;
  });
  for (const system::TimelineRange *r : ordered) {
    const system::NvtxRange &range = tl.session.ranges[r->range];
    const std::string indent(2 * range.depth, ' ');
    if (range.mark)
      out += fmt::format("    {}mark {} at {}\n", indent, fullName(range), timeText(r->start));
    else
      out += fmt::format("    {}{} {} to {} ({}), operations {}\n", indent, fullName(range), timeText(r->start),
                         timeText(r->end), timeText(r->end - r->start),
                         range.end > range.begin ? fmt::format("{}-{}", range.begin, range.end - 1) : "none");
  }
  return out;
}

} // namespace

std::string timelineText(const Timeline &tl, const std::vector<advisor::Finding> &findings,
                         const TimelineTextOptions &options) {
  const system::SystemConfig &c = tl.config;
  std::string out;
  out += fmt::format("== session on {} ({}; {} copy engine{}, {} concurrent kernels, {} hardware queue{}{})\n", c.gpu,
                     linkText(c), c.copyEngines, c.copyEngines == 1 ? "" : "s", c.maxConcurrentKernels, c.computeQueues,
                     c.computeQueues == 1 ? "" : "s", devicesText(c));
  out += fmt::format("  total {}   one stream {}   overlap {:.1f}%   peak concurrent kernels {}\n",
                     timeText(tl.totalSeconds), timeText(tl.serialSeconds), 100 * tl.overlapFraction,
                     tl.peakConcurrentKernels);
  auto engineLine = [&](const char *name, const system::EngineTotals &t) {
    if (!t.operations)
      return;
    out += fmt::format("  {:<8} {} busy, {} operation{}", name, timeText(t.busySeconds), t.operations,
                       t.operations == 1 ? "" : "s");
    if (t.bytes)
      out += fmt::format(", {} at {:.2f} GB/s", bytesText(t.bytes),
                         t.busySeconds > 0 ? static_cast<double>(t.bytes) / t.busySeconds / 1e9 : 0);
    out += "\n";
  };
  engineLine("H2D", tl.h2d);
  engineLine("D2H", tl.d2h);
  engineLine("peer", tl.peer);
  engineLine("compute", tl.compute);
  engineLine("host", tl.host);
  if (tl.kernelSeconds > 0)
    out += fmt::format("  kernels  {:.1f}% of the one-stream run: faster kernels alone speed the session up at most "
                       "{:.2f}x ([KTG] 1.3, Amdahl)\n",
                       100 * tl.kernelShare, tl.amdahlBound);

  out += nvtxText(tl, options.operations);
  if (!findings.empty())
    out += "\n";
  for (const advisor::Finding &f : findings) {
    out += fmt::format("  [{}] {}: {}", advisor::priorityName(f.priority), f.rule, f.title);
    if (f.gainSeconds > 0)
      out += fmt::format(" (saves about {}, {:.0f}%)", timeText(f.gainSeconds), 100 * f.gainFraction);
    out += fmt::format("\n      {}\n      fix: {}\n      see {}\n", f.evidence, f.fix, f.guide);
  }

  if (!options.chart) {
    if (options.operations)
      out += operationTable(tl);
    return out;
  }
  // The chart: engines first, then streams.
  const int width = std::max(10, options.width);
  const double span = tl.totalSeconds > 0 ? tl.totalSeconds : 1;
  size_t nameWidth = 10;
  std::vector<std::string> cells;
  const std::vector<ChartLane> lanes = chartLanes(tl);
  for (const ChartLane &lane : lanes) {
    nameWidth = std::max(nameWidth, lane.name.size());
    std::string row(static_cast<size_t>(width), ' ');
    for (size_t i : lane.entries) {
      const system::TimelineEntry &e = tl.entries[i];
      // Rounded, so that back-to-back operations meet without sharing a cell.
      int a = static_cast<int>(std::lround(e.start / span * width));
      int b = static_cast<int>(std::lround(e.end / span * width));
      a = std::clamp(a, 0, width - 1);
      b = std::clamp(std::max(b, a + 1), 1, width);
      for (int x = a; x < b; ++x)
        row[x] = row[x] == ' ' || row[x] == glyph(e.op) ? glyph(e.op) : '#';
    }
    cells.push_back(std::move(row));
  }
  out += fmt::format("\n  {:<{}} 0{:>{}}\n", "", nameWidth, timeText(tl.totalSeconds), width);
  for (size_t l = 0; l < lanes.size(); ++l)
    out += fmt::format("  {:<{}}|{}|\n", lanes[l].name, nameWidth, cells[l]);
  out += "  (each operation is drawn with the last digit of its number in base 36; # where several overlap)\n";

  if (options.operations)
    out += operationTable(tl);
  return out;
}

namespace {

/// Fill colour by kind: the copy directions, kernels, other device work, host waits.
const char *kindColour(const system::SessionOp &op, Engine engine) {
  if (engine == Engine::Host)
    return "#c7c7c7";
  switch (op.kind) {
  case OpKind::CopyH2D: return "#1f77b4";
  case OpKind::CopyD2H: return "#ff7f0e";
  case OpKind::CopyPeer: return "#8c564b";
  case OpKind::Kernel: return "#2ca02c";
  default: return "#9467bd";
  }
}

} // namespace

std::string timelineSvg(const Timeline &tl) {
  const std::vector<ChartLane> lanes = chartLanes(tl);
  const double left = 110, right = 20, top = 20, laneHeight = 26, axis = 40, width = 1100;
  const double height = top + laneHeight * static_cast<double>(lanes.size()) + axis;
  const double plot = width - left - right;
  const double spanUs = std::max(tl.totalSeconds * 1e6, 1e-3);
  const Ticks ticks = niceTicks(0, spanUs, 8);
  const double axisMax = std::max(ticks.max, spanUs);
  auto x = [&](double seconds) { return left + seconds * 1e6 / axisMax * plot; };
  std::string svg = fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" )"
                                R"(viewBox="0 0 {0} {1}" font-family="sans-serif" font-size="12">)",
                                width, height);
  svg += fmt::format(R"(<rect x="0" y="0" width="{}" height="{}" fill="#ffffff"/>)", width, height);
  for (size_t l = 0; l < lanes.size(); ++l) {
    const double y = top + laneHeight * static_cast<double>(l);
    if (l % 2)
      svg += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="#f4f4f4"/>)", left, y, plot, laneHeight);
    svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="end">{}</text>)", left - 8, y + laneHeight / 2 + 4,
                       escapeXml(lanes[l].name));
    for (size_t i : lanes[l].entries) {
      const system::TimelineEntry &e = tl.entries[i];
      const system::SessionOp &op = tl.session.ops[e.op];
      const double x0 = x(e.start), w = std::max(1.0, x(e.end) - x0);
      svg += fmt::format(R"(<rect x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="{}" stroke="#ffffff" )"
                         R"(stroke-width="0.5"><title>#{} {} ({}stream {}): {}, {} to {}</title></rect>)",
                         x0, y + 3, w, laneHeight - 6, kindColour(op, e.engine), e.op, system::opKindName(op.kind),
                         tl.config.devices() > 1 ? fmt::format("device {}, ", op.device) : "", op.stream,
                         escapeXml(op.label), escapeXml(timeText(e.start)), escapeXml(timeText(e.end)));
      if (w > 24)
        svg += fmt::format(R"(<text x="{:.2f}" y="{:.2f}" fill="#ffffff" font-size="10">{}</text>)", x0 + 3,
                           y + laneHeight / 2 + 4, e.op);
      // Grids the kernel launched (dynamic parallelism): a thin bar each along the bottom of its
      // kernel, a row per depth (the third and deeper share the last), when it ran.
      for (const system::SessionOp::ChildGridSlice &g : op.childGrids) {
        const double g0 = x(e.start + g.startSeconds), gw = std::max(1.0, x(e.start + g.endSeconds) - g0);
        const double gy = y + laneHeight - 3 - 4 * std::min<double>(g.depth, 3);
        svg += fmt::format(R"(<rect x="{:.2f}" y="{:.2f}" width="{:.2f}" height="3" fill="#0b3d0b" )"
                           R"(fill-opacity="0.75"><title>child grid {} (depth {}, launched by {}): {} to {}</title>)"
                           R"(</rect>)",
                           g0, gy, gw, escapeXml(g.label), g.depth, escapeXml(g.launchedBy),
                           escapeXml(timeText(e.start + g.startSeconds)), escapeXml(timeText(e.start + g.endSeconds)));
      }
    }
  }
  const double axisY = top + laneHeight * static_cast<double>(lanes.size());
  svg += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#333333"/>)", left, axisY, left + plot, axisY);
  for (double v : ticks.values) {
    const double tx = left + v / axisMax * plot;
    svg += fmt::format(R"(<line x1="{0:.2f}" y1="{1}" x2="{0:.2f}" y2="{2}" stroke="#333333"/>)", tx, axisY, axisY + 5);
    svg += fmt::format(R"(<text x="{:.2f}" y="{}" text-anchor="middle">{}</text>)", tx, axisY + 18,
                       formatFixed(v, ticks.decimals));
  }
  svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">time (us)</text>)", left + plot / 2, axisY + 34);
  svg += "</svg>";
  return svg;
}

std::string timelineHtml(const Timeline &tl, const std::vector<advisor::Finding> &findings) {
  const system::SystemConfig &c = tl.config;
  HtmlPage page("ptxray timeline: " + c.gpu);
  page.addTable(
      {{"system", linkText(c)},
       {"engines", fmt::format("{} copy engine{}, {} concurrent kernels, {} hardware queue{}{}", c.copyEngines,
                               c.copyEngines == 1 ? "" : "s", c.maxConcurrentKernels, c.computeQueues,
                               c.computeQueues == 1 ? "" : "s", devicesText(c))},
       {"total", timeText(tl.totalSeconds)},
       {"one stream", timeText(tl.serialSeconds)},
       {"overlap", fmt::format("{:.1f}%", 100 * tl.overlapFraction)},
       {"H2D busy", fmt::format("{} ({})", timeText(tl.h2d.busySeconds), bytesText(tl.h2d.bytes))},
       {"D2H busy", fmt::format("{} ({})", timeText(tl.d2h.busySeconds), bytesText(tl.d2h.bytes))},
       {"peer busy", fmt::format("{} ({})", timeText(tl.peer.busySeconds), bytesText(tl.peer.bytes))},
       {"compute busy", timeText(tl.compute.busySeconds)},
       {"Amdahl bound", fmt::format("kernels {:.1f}% of the one-stream run: at most {:.2f}x from faster kernels",
                                    100 * tl.kernelShare, tl.amdahlBound)}},
      "Session");
  if (!findings.empty()) {
    page.addHeading("Findings");
    for (const advisor::Finding &f : findings)
      page.addParagraph(fmt::format(
          "[{}] {}: {}{}. {}. Fix: {} ({})", advisor::priorityName(f.priority), f.rule, f.title,
          f.gainSeconds > 0 ? fmt::format(" (saves about {}, {:.0f}%)", timeText(f.gainSeconds), 100 * f.gainFraction)
                            : "",
          f.evidence, f.fix, f.guide));
  }
  page.addHeading("Timeline");
  page.addSvg(timelineSvg(tl), "blue: host to device, orange: device to host, brown: between devices, green: "
                               "kernels, purple: device copies and memsets, grey: the host waiting");
  DataTable table;
  table.caption = "Operations in issue order";
  table.headers = {"#", "operation", "device", "stream", "engine", "issued", "start", "end", "what"};
  for (const system::TimelineEntry &e : tl.entries) {
    const system::SessionOp &op = tl.session.ops[e.op];
    table.rows.push_back({std::to_string(e.op), system::opKindName(op.kind), std::to_string(op.device),
                          std::to_string(op.stream), system::engineName(e.engine), timeText(e.issue), timeText(e.start),
                          timeText(e.end), op.label});
  }
  page.addDataTable(std::move(table));
  return page.render();
}

namespace {

/// What the JSON document and the trace both say of an operation besides its times: bytes, host
/// memory, the devices of a peer copy, the copy's bandwidth, a kernel's own time and GPU share.
void addOperationDetails(nlohmann::json &o, const system::SessionOp &op, const system::TimelineEntry &e) {
  if (op.bytes)
    o["bytes"] = op.bytes;
  if (op.isCopy())
    o["host_memory"] = op.hostMemory == system::HostMemory::Pinned ? "pinned" : "pageable";
  if (op.kind == OpKind::CopyPeer) {
    o["from_device"] = op.fromDevice;
    o["to_device"] = op.toDevice;
  }
  if (op.usesCopyEngine())
    o["gbps"] = bandwidth(op, e) / 1e9;
  if (op.kind == OpKind::Kernel) {
    o["kernel_us"] = op.kernelSeconds * 1e6;
    o["gpu_share"] = op.gpuShare;
    if (!op.childGrids.empty()) {
      nlohmann::json grids = nlohmann::json::array();
      for (const system::SessionOp::ChildGridSlice &g : op.childGrids)
        grids.push_back({{"name", g.label},
                         {"launched_by", g.launchedBy},
                         {"depth", g.depth},
                         {"start_us", g.startSeconds * 1e6},
                         {"end_us", g.endSeconds * 1e6}});
      o["child_grids"] = std::move(grids);
    }
  }
}

} // namespace

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
  system["devices"] = c.devices();
  system["boards"] = c.boards;
  system["gpus_per_board"] = c.gpusPerBoard;
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
                 {"peer", totals(tl.peer)},
                 {"compute", totals(tl.compute)},
                 {"host", totals(tl.host)}};
  json ops = json::array();
  for (const system::TimelineEntry &e : tl.entries) {
    const system::SessionOp &op = tl.session.ops[e.op];
    json o = {{"index", e.op},
              {"op", system::opKindName(op.kind)},
              {"device", op.device},
              {"stream", op.stream},
              {"label", op.label},
              {"where", op.where},
              {"engine", system::engineName(e.engine)},
              {"queue", e.queue},
              {"issue_us", e.issue * 1e6},
              {"start_us", e.start * 1e6},
              {"end_us", e.end * 1e6}};
    addOperationDetails(o, op, e);
    ops.push_back(std::move(o));
  }
  j["operations"] = std::move(ops);
  json ranges = json::array();
  for (const system::TimelineRange &r : tl.ranges) {
    const system::NvtxRange &range = tl.session.ranges[r.range];
    json o = {{"name", range.name},
              {"domain", range.domain},
              {"kind", range.mark      ? "mark"
                       : range.pushPop ? "push_pop"
                                       : "start_end"},
              {"depth", range.depth},
              {"thread", range.thread},
              {"start_us", r.start * 1e6},
              {"end_us", r.end * 1e6},
              {"first_operation", range.begin},
              {"operations", range.end - range.begin}};
    if (range.color)
      o["color"] = fmt::format("#{:06x}", range.color & 0xffffff);
    ranges.push_back(std::move(o));
  }
  j["nvtx"] = std::move(ranges);
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

nlohmann::json timelineTrace(const Timeline &tl) {
  using nlohmann::json;
  const bool opencl = tl.session.api == system::HostApi::OpenCL;
  constexpr int kHostPid = 1;
  constexpr int kHostTid = 1;
  auto devicePid = [](unsigned device) { return 2 + static_cast<int>(device); };
  json events = json::array();
  auto metadata = [&](const char *what, int pid, int tid, json args) {
    json m = {{"ph", "M"}, {"name", what}, {"pid", pid}, {"args", std::move(args)}};
    if (tid >= 0)
      m["tid"] = tid;
    events.push_back(std::move(m));
  };
  metadata("process_name", kHostPid, -1, {{"name", "Host"}});
  metadata("process_sort_index", kHostPid, -1, {{"sort_index", 0}});
  metadata("thread_name", kHostPid, kHostTid, {{"name", "host thread"}});
  std::set<unsigned> devices;
  std::set<std::pair<unsigned, unsigned>> streams;
  for (const system::SessionOp &op : tl.session.ops) {
    devices.insert(op.device);
    if (op.kind != OpKind::StreamSynchronize && op.kind != OpKind::Synchronize)
      streams.insert({op.device, op.stream});
  }
  for (unsigned d : devices) {
    metadata("process_name", devicePid(d), -1,
             {{"name", fmt::format("GPU {}: {} (modeled by ptxray)", d, tl.config.gpu)}});
    metadata("process_sort_index", devicePid(d), -1, {{"sort_index", 1 + static_cast<int>(d)}});
  }
  for (const auto &[d, stream] : streams) {
    std::string name = opencl        ? fmt::format("command queue {}", stream)
                       : stream == 0 ? std::string("default stream")
                                     : fmt::format("stream {}", stream);
    metadata("thread_name", devicePid(d), static_cast<int>(stream), {{"name", std::move(name)}});
    metadata("thread_sort_index", devicePid(d), static_cast<int>(stream), {{"sort_index", stream}});
  }

  auto category = [](OpKind kind) {
    switch (kind) {
    case OpKind::Kernel: return "kernel";
    case OpKind::Memset: return "memset";
    case OpKind::EventRecord:
    case OpKind::StreamWaitEvent: return "event";
    case OpKind::StreamSynchronize:
    case OpKind::Synchronize: return "synchronize";
    default: return "memcpy";
    }
  };
  std::map<unsigned, std::vector<std::pair<double, int>>> running; // per device: (time, +1 start / -1 end)
  for (const system::TimelineEntry &e : tl.entries) {
    const system::SessionOp &op = tl.session.ops[e.op];
    json args = {{"index", e.op}, {"op", system::opKindName(op.kind)}, {"issue_us", e.issue * 1e6}};
    if (!op.where.empty())
      args["where"] = op.where;
    if (e.engine != Engine::None)
      args["engine"] = system::engineName(e.engine);
    addOperationDetails(args, op, e);
    if (op.kind == OpKind::Kernel)
      args["queue"] = e.queue;
    if (!op.childGrids.empty())
      args["child_grids"] = op.childGrids.size(); // each is a slice of its own, below
    const bool hostWait = e.engine == Engine::Host;
    json ev = {{"name", op.label.empty() ? std::string(system::opKindName(op.kind)) : op.label},
               {"cat", category(op.kind)},
               {"ts", e.start * 1e6},
               {"pid", hostWait ? kHostPid : devicePid(op.device)},
               {"tid", hostWait ? kHostTid : static_cast<int>(op.stream)},
               {"args", std::move(args)}};
    if (e.engine == Engine::None) {
      ev["ph"] = "i";
      ev["s"] = "t";
    } else {
      ev["ph"] = "X";
      ev["dur"] = std::max(0.0, e.end - e.start) * 1e6;
    }
    events.push_back(std::move(ev));
    if (op.kind == OpKind::Kernel) {
      running[op.device].push_back({e.start, +1});
      running[op.device].push_back({e.end, -1});
    }
    // Grids the kernel's threads launched (dynamic parallelism): async slices on its stream's track,
    // where siblings that run at once each get a row.
    for (size_t c = 0; c < op.childGrids.size(); ++c) {
      const system::SessionOp::ChildGridSlice &g = op.childGrids[c];
      const std::string id = fmt::format("{}.{}", e.op, c);
      json begin = {
          {"name", g.label},
          {"cat", "child grid"},
          {"ph", "b"},
          {"id", id},
          {"ts", (e.start + g.startSeconds) * 1e6},
          {"pid", devicePid(op.device)},
          {"tid", static_cast<int>(op.stream)},
          {"args",
           {{"launched_by", g.launchedBy}, {"depth", g.depth}, {"kernel_us", (g.endSeconds - g.startSeconds) * 1e6}}}};
      json end = {{"name", g.label},
                  {"cat", "child grid"},
                  {"ph", "e"},
                  {"id", id},
                  {"ts", (e.start + g.endSeconds) * 1e6},
                  {"pid", devicePid(op.device)},
                  {"tid", static_cast<int>(op.stream)}};
      events.push_back(std::move(begin));
      events.push_back(std::move(end));
    }
  }
  // NVTX: push/pop ranges nest on a track per host thread, start/end ranges (which may overlap) are
  // async slices, marks instants.
  std::set<uint64_t> nvtxThreads;
  for (const system::TimelineRange &r : tl.ranges) {
    const system::NvtxRange &range = tl.session.ranges[r.range];
    const std::string name = range.domain.empty() ? range.name : range.domain + ":" + range.name;
    json args = {{"first_operation", range.begin}, {"operations", range.end - range.begin}};
    if (!range.domain.empty())
      args["domain"] = range.domain;
    const int tid = 1000 + static_cast<int>(std::distance(nvtxThreads.begin(), nvtxThreads.insert(range.thread).first));
    json ev = {{"name", name}, {"cat", "nvtx"}, {"ts", r.start * 1e6}, {"pid", kHostPid}, {"args", std::move(args)}};
    if (range.mark) {
      ev["ph"] = "i";
      ev["s"] = "t";
      ev["tid"] = tid;
      events.push_back(std::move(ev));
    } else if (range.pushPop) {
      ev["ph"] = "X";
      ev["dur"] = std::max(0.0, r.end - r.start) * 1e6;
      ev["tid"] = tid;
      events.push_back(std::move(ev));
    } else {
      ev["ph"] = "b";
      ev["id"] = r.range;
      ev["tid"] = kHostTid;
      json endEvent = {{"name", name},      {"cat", "nvtx"},   {"ph", "e"},      {"id", r.range},
                       {"ts", r.end * 1e6}, {"pid", kHostPid}, {"tid", kHostTid}};
      events.push_back(std::move(ev));
      events.push_back(std::move(endEvent));
    }
  }
  for (size_t i = 0; i < nvtxThreads.size(); ++i)
    metadata("thread_name", kHostPid, 1000 + static_cast<int>(i),
             {{"name", nvtxThreads.size() == 1 ? std::string("NVTX") : fmt::format("NVTX (host thread {})", i + 1)}});
  // Kernels running at once on each device: a counter track (ends before starts at one instant).
  for (auto &[device, edges] : running) {
    std::sort(edges.begin(), edges.end());
    int now = 0;
    for (size_t i = 0; i < edges.size(); ++i) {
      now += edges[i].second;
      if (i + 1 < edges.size() && edges[i + 1].first == edges[i].first)
        continue;
      events.push_back({{"ph", "C"},
                        {"name", "kernels running"},
                        {"pid", devicePid(device)},
                        {"ts", edges[i].first * 1e6},
                        {"args", {{"kernels", now}}}});
    }
  }
  json trace;
  trace["traceEvents"] = std::move(events);
  trace["displayTimeUnit"] = "ns";
  trace["otherData"] = {{"generator", "ptxray"},
                        {"gpu", tl.config.gpu},
                        {"total_us", tl.totalSeconds * 1e6},
                        {"one_stream_us", tl.serialSeconds * 1e6},
                        {"overlap", tl.overlapFraction}};
  return trace;
}

} // namespace ptxray::report
