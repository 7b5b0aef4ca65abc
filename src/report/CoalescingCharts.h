// The charts of the OpenCL Best Practices Guide's coalescing experiments (§3.2.1.3, Figure 3.7:
// effective bandwidth against the offset of a copy; §3.2.1.4, Figure 3.9: against the stride), for
// any GPUs, one series per GPU, plus the memory transactions per request behind them.
#pragma once

#include "report/SvgChart.h"

#include <string>
#include <vector>

namespace ptxray::report {

struct CoalescingPoint {
  int x = 0;                         ///< offset or stride, in elements
  double transactionsPerRequest = 0; ///< global load transactions (sectors from CC 5.0) per request
  double loadEfficiency = 0;         ///< bytes used over bytes moved, 0-1
  double effectiveBandwidthGBps = 0; ///< [BPG] §2.2.2 from the model's time estimate
  double nanoseconds = 0;
};

struct CoalescingSeries {
  std::string gpu;
  std::vector<CoalescingPoint> byOffset;
  std::vector<CoalescingPoint> byStride;
};

/// Four charts: bandwidth vs offset, transactions vs offset, bandwidth vs stride, transactions vs stride.
/// A bandwidth axis is logarithmic when the GPUs' values span more than a decade.
std::vector<LineChart> coalescingCharts(const std::vector<CoalescingSeries> &series);

/// A table per experiment: one row per offset or stride, one column pair per GPU.
std::string coalescingText(const std::vector<CoalescingSeries> &series);

} // namespace ptxray::report
