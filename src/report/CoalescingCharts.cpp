#include "report/CoalescingCharts.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>

namespace ptxray::report {
namespace {

LineChart chart(const std::vector<CoalescingSeries> &series, bool byStride, bool bandwidth) {
  LineChart c;
  const char *what = byStride ? "stride" : "offset";
  c.title = bandwidth ? fmt::format("Effective bandwidth vs {} (copy of 4-byte words)", what)
                      : fmt::format("Load transactions per request vs {}", what);
  c.description = fmt::format("{} of the OpenCL Best Practices Guide's {} experiment, one line per GPU",
                              bandwidth ? "Effective bandwidth" : "Transactions per request",
                              byStride ? "strideCopy (3.2.1.4)" : "offsetCopy (3.2.1.3)");
  c.x.label = byStride ? "stride (elements)" : "offset (elements)";
  c.x.ticks = TickStyle::Integer;
  c.y.label = bandwidth ? "GB/s (model)" : "transactions per request";
  c.y.min = 0;
  if (bandwidth) {
    // GPUs a decade or more apart (a GTX 280's 141 GB/s beside an H100's 3352): on a linear axis all
    // but the fastest lie flat along zero; a log axis keeps each line's shape readable.
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (const CoalescingSeries &s : series)
      for (const CoalescingPoint &p : byStride ? s.byStride : s.byOffset)
        if (p.effectiveBandwidthGBps > 0) {
          lo = std::min(lo, p.effectiveBandwidthGBps);
          hi = std::max(hi, p.effectiveBandwidthGBps);
        }
    if (hi > 10 * lo) {
      c.y.logarithmic = true;
      c.y.min.reset();
      c.y.label = "GB/s (model, log scale)";
    }
  }
  for (const CoalescingSeries &s : series) {
    Series line;
    line.name = s.gpu;
    for (const CoalescingPoint &p : byStride ? s.byStride : s.byOffset)
      line.points.push_back(
          {static_cast<double>(p.x), bandwidth ? p.effectiveBandwidthGBps : p.transactionsPerRequest});
    c.series.push_back(std::move(line));
  }
  return c;
}

} // namespace

std::vector<LineChart> coalescingCharts(const std::vector<CoalescingSeries> &series) {
  return {chart(series, false, true), chart(series, false, false), chart(series, true, true),
          chart(series, true, false)};
}

std::string coalescingText(const std::vector<CoalescingSeries> &series) {
  std::string out;
  for (bool byStride : {false, true}) {
    out += byStride ? "\nstrideCopy ([BPG] 3.2.1.4): per GPU, load transactions per request / load efficiency / "
                      "effective GB/s\n"
                    : "offsetCopy ([BPG] 3.2.1.3): per GPU, load transactions per request / load efficiency / "
                      "effective GB/s\n";
    out += fmt::format("  {:>6}", byStride ? "stride" : "offset");
    for (const CoalescingSeries &s : series)
      out += fmt::format("  {:>24}", s.gpu.size() > 24 ? s.gpu.substr(0, 24) : s.gpu);
    out += "\n";
    const size_t rows = series.empty() ? 0 : (byStride ? series[0].byStride : series[0].byOffset).size();
    for (size_t r = 0; r < rows; ++r) {
      out += fmt::format("  {:>6}", (byStride ? series[0].byStride : series[0].byOffset)[r].x);
      for (const CoalescingSeries &s : series) {
        const std::vector<CoalescingPoint> &pts = byStride ? s.byStride : s.byOffset;
        if (r < pts.size())
          out += fmt::format("  {:>8.2f} {:>6.1f}% {:>7.1f}", pts[r].transactionsPerRequest,
                             pts[r].loadEfficiency * 100, pts[r].effectiveBandwidthGBps);
      }
      out += "\n";
    }
  }
  return out;
}

} // namespace ptxray::report
