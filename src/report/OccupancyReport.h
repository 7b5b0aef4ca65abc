// The CUDA Occupancy Calculator's three graphs (active warps vs threads per block, vs registers per
// thread, vs shared memory per block, the launch being analysed marked) and the page that shows them.
#pragma once

#include "advisor/Finding.h"
#include "arch/OccupancyCalculator.h"
#include "report/SvgChart.h"

#include <string>
#include <string_view>
#include <vector>

namespace ptxray::report {

/// The three charts, in the spreadsheet's order. Each varies one input and keeps the others.
std::vector<LineChart> occupancyCharts(const arch::ComputeCapability &cc, const arch::OccupancyInput &input,
                                       std::string_view archName);

/// The three charts side by side in one standalone SVG document.
std::string occupancySvg(const arch::ComputeCapability &cc, const arch::OccupancyInput &input,
                         std::string_view archName);

/// A standalone HTML page: the launch, its result and limiters, the advice, and the three charts.
std::string occupancyHtml(const arch::ComputeCapability &cc, const arch::OccupancyInput &input,
                          const arch::OccupancyResult &result, const std::vector<advisor::Finding> &advice,
                          std::string_view archName);

/// The calculator's result in Nsight Compute's CSV layout (`ncu --csv`, its Launch Statistics and
/// Occupancy sections' names): the header, then one row per metric for the GPU `device` (`occupancy
/// --csv`; with --compare, one block of rows per GPU).
std::string occupancyCsvHeader();
std::string occupancyCsvRows(std::string_view device, const arch::ComputeCapability &cc,
                             const arch::OccupancyInput &input, const arch::OccupancyResult &result);

} // namespace ptxray::report
