#include "report/TimelineStats.h"

#include "report/MetricsReport.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>
#include <vector>

namespace ptxray::report {
namespace {

constexpr std::array<std::string_view, 4> kReports = {"cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum",
                                                      "cuda_gpu_mem_size_sum", "nvtx_sum"};

/// nsys's names of the memory operations ("" for what is not one).
std::string_view memoryOperationName(system::OpKind kind) {
  switch (kind) {
  case system::OpKind::CopyH2D: return "[CUDA memcpy Host-to-Device]";
  case system::OpKind::CopyD2H: return "[CUDA memcpy Device-to-Host]";
  case system::OpKind::CopyD2D: return "[CUDA memcpy Device-to-Device]";
  case system::OpKind::CopyPeer: return "[CUDA memcpy Peer-to-Peer]";
  case system::OpKind::Memset: return "[CUDA memset]";
  default: return "";
  }
}

/// A kernel's name in its label ("hypot<<<128, 256>>>": system/KernelOperation.cpp).
std::string kernelName(const std::string &label) {
  const size_t launch = label.find("<<<");
  return launch == std::string::npos ? label : label.substr(0, launch);
}

struct Summary {
  std::string name;
  double total = 0, average = 0, median = 0, minimum = 0, maximum = 0, deviation = 0;
  size_t count = 0;
};

Summary summarize(std::string name, std::vector<double> values) {
  Summary s;
  s.name = std::move(name);
  s.count = values.size();
  std::sort(values.begin(), values.end());
  for (double v : values)
    s.total += v;
  s.average = s.total / static_cast<double>(s.count);
  const size_t middle = s.count / 2;
  s.median = s.count % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
  s.minimum = values.front();
  s.maximum = values.back();
  if (s.count > 1) { // the sample standard deviation, as nsys reports it
    double squares = 0;
    for (double v : values)
      squares += (v - s.average) * (v - s.average);
    s.deviation = std::sqrt(squares / static_cast<double>(s.count - 1));
  }
  return s;
}

} // namespace

std::span<const std::string_view> timelineStatsReports() {
  return kReports;
}

namespace {

/// nsys stats' nvtx_sum: the NVTX ranges (marks have no duration) by style and name, a domain's
/// names prefixed with it ("solver:iteration"), largest total first.
std::string nvtxSummaryCsv(const system::Timeline &timeline) {
  std::map<std::pair<std::string, std::string>, std::vector<double>> groups; // (style, name)
  for (const system::TimelineRange &r : timeline.ranges) {
    const system::NvtxRange &range = timeline.session.ranges[r.range];
    if (range.mark)
      continue;
    const std::string name = range.domain.empty() ? range.name : range.domain + ":" + range.name;
    groups[{range.pushPop ? "PushPop" : "StartEnd", name}].push_back((r.end - r.start) * 1e9);
  }
  std::vector<std::pair<std::string, Summary>> rows;
  double all = 0;
  for (auto &[key, values] : groups) {
    rows.emplace_back(key.first, summarize(key.second, std::move(values)));
    all += rows.back().second.total;
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto &a, const auto &b) { return a.second.total > b.second.total; });
  std::string csv =
      "\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Avg (ns)\",\"Med (ns)\",\"Min (ns)\",\"Max (ns)\","
      "\"StdDev (ns)\",\"Style\",\"Range\"\n";
  for (const auto &[style, s] : rows)
    csv += fmt::format("{:.1f},{:.0f},{},{:.1f},{:.1f},{:.0f},{:.0f},{:.1f},{},{}\n",
                       all > 0 ? 100 * s.total / all : 0.0, s.total, s.count, s.average, s.median, s.minimum, s.maximum,
                       s.deviation, csvField(style), csvField(s.name));
  return csv;
}

} // namespace

std::string timelineStatsCsv(const system::Timeline &timeline, std::string_view report) {
  if (report == kReports[3])
    return nvtxSummaryCsv(timeline);
  const bool kernels = report == kReports[0];
  const bool sizes = report == kReports[2];
  if (!kernels && report != kReports[1] && !sizes)
    throw std::invalid_argument(fmt::format("unknown report \"{}\" ({}, {}, {}, {})", report, kReports[0], kReports[1],
                                            kReports[2], kReports[3]));
  std::map<std::string, std::vector<double>> groups;
  for (const system::TimelineEntry &e : timeline.entries) {
    const system::SessionOp &op = timeline.session.ops[e.op];
    if (kernels) {
      if (op.kind == system::OpKind::Kernel)
        groups[kernelName(op.label)].push_back((e.end - e.start) * 1e9);
    } else if (std::string_view name = memoryOperationName(op.kind); !name.empty()) {
      groups[std::string(name)].push_back(sizes ? static_cast<double>(op.bytes) / 1e6 : (e.end - e.start) * 1e9);
    }
  }
  std::vector<Summary> rows;
  double all = 0;
  for (auto &[name, values] : groups) {
    rows.push_back(summarize(name, std::move(values)));
    all += rows.back().total;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Summary &a, const Summary &b) { return a.total > b.total; });

  std::string csv;
  if (sizes) {
    csv =
        "\"Total (MB)\",\"Count\",\"Avg (MB)\",\"Med (MB)\",\"Min (MB)\",\"Max (MB)\",\"StdDev (MB)\",\"Operation\"\n";
    for (const Summary &s : rows)
      csv += fmt::format("{:.3f},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{}\n", s.total, s.count, s.average, s.median,
                         s.minimum, s.maximum, s.deviation, csvField(s.name));
    return csv;
  }
  csv = fmt::format("\"Time (%)\",\"Total Time (ns)\",\"{}\",\"Avg (ns)\",\"Med (ns)\",\"Min (ns)\",\"Max (ns)\","
                    "\"StdDev (ns)\",\"{}\"\n",
                    kernels ? "Instances" : "Count", kernels ? "Name" : "Operation");
  for (const Summary &s : rows)
    csv += fmt::format("{:.1f},{:.0f},{},{:.1f},{:.1f},{:.0f},{:.0f},{:.1f},{}\n", all > 0 ? 100 * s.total / all : 0.0,
                       s.total, s.count, s.average, s.median, s.minimum, s.maximum, s.deviation, csvField(s.name));
  return csv;
}

} // namespace ptxray::report
