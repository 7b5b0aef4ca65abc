// Views of the performance model's launch profiles: a text summary per launch with its hottest
// source lines, and the JSON document of `ptxray run --metrics-json`.
#pragma once

#include "model/Metrics.h"
#include "model/PerformanceModel.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace ptxray::report {

/// The launch's key metrics, the time estimate with its dominant bound, and the `hottestLines`
/// source lines (by issue cost) with their memory behaviour.
std::string metricsText(const model::LaunchProfile &launch, size_t hottestLines = 10);

/// Why a global load or store efficiency (bytes requested / bytes moved) is above 100%, for the
/// reports to say next to it: the warp's lanes asked for the same bytes more than once (a broadcast,
/// or a stencil's neighbours), which one sector carries once. Empty at 100% or below.
std::string efficiencyAboveFullNote(double efficiency);
/// Why the guide's effective bandwidth ([BPG] 2.2.2: distinct bytes read and written / time) is above
/// the theoretical DRAM bandwidth: the time model has fewer bytes crossing DRAM than the kernel's
/// distinct bytes (the rest hit in L2), so the ratio is not a DRAM figure. Empty when it is not above.
std::string bandwidthAboveTheoreticalNote(const model::LaunchProfile &launch);

/// A metric's unit as Nsight Compute names it ("ns", "byte", "sector", "%", "GB/s", "inst"...; ""
/// for counts without one), from its name (docs/metrics.md).
std::string metricUnit(std::string_view name);

/// The metrics `names` of a launch (every metric when empty), in the order asked; names the model
/// does not have go to `missing`.
model::MetricList selectMetrics(const model::LaunchProfile &launch, const std::vector<std::string> &names,
                                std::vector<std::string> *missing = nullptr);

/// ncu's number format: thousands separated, two decimals when not whole.
std::string ncuNumber(double value);
/// A CSV field as ncu writes every one: quoted, inner quotes doubled.
std::string csvField(std::string_view text);
/// ncu's CC column ("9.0") from a GPU's display name ("H100 SXM (sm_90)"); empty when it names none.
std::string computeCapabilityOf(const std::string &arch);

/// Nsight Compute's CSV layout (`ncu --csv --metrics ...`): the header, then one row per metric of a
/// launch ("ID","Kernel Name","Block Size","Grid Size","Device","CC","Section Name","Metric Name",
/// "Metric Unit","Metric Value"), values written as ncu writes them (thousands separated).
std::string metricsCsvHeader();
std::string metricsCsvRows(const model::LaunchProfile &launch, size_t id, const model::MetricList &metrics,
                           const std::string &section);
/// One row of that layout.
std::string metricCsvRow(const model::LaunchProfile &launch, size_t id, std::string_view section, std::string_view name,
                         std::string_view unit, double value);
/// The same metrics as ncu's text page: a table of name, unit and value under the launch's line.
std::string metricsTable(const model::LaunchProfile &launch, const model::MetricList &metrics);

/// {"launches": [{"kernel", "grid", "block", "arch", "metrics": {NAME: number}, "time": {...},
///   "lines": [{"file", "line", "metrics": {...}}],
///   "instructions": [{"function", "pc", "ptx", "ptx_location", "file", "line", "metrics": {...}}]}]}
nlohmann::json metricsJson(const std::vector<model::LaunchProfile> &launches);

} // namespace ptxray::report
