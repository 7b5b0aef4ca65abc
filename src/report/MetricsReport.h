// Views of the performance model's launch profiles: a text summary per launch with its hottest
// source lines, and the JSON document of `ptxray run --metrics-json`.
#pragma once

#include "model/PerformanceModel.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ptxray::report {

/// The launch's key metrics, the time estimate with its dominant bound, and the `hottestLines`
/// source lines (by issue cost) with their memory behaviour.
std::string metricsText(const model::LaunchProfile &launch, size_t hottestLines = 10);

/// {"launches": [{"kernel", "grid", "block", "arch", "metrics": {NAME: number}, "time": {...},
///   "lines": [{"file", "line", "metrics": {...}}],
///   "instructions": [{"function", "pc", "ptx", "ptx_location", "file", "line", "metrics": {...}}]}]}
nlohmann::json metricsJson(const std::vector<model::LaunchProfile> &launches);

} // namespace ptxray::report
