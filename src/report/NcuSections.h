// Nsight Compute's sections and sets (`ncu --section NAME`, `--set basic|detailed|full`) on the
// performance model: the same identifiers, display names and metric names, values in base units as
// `ncu --csv` writes them (ns, cycle, hz, %, byte), computed from a launch's profile and its time
// estimate. What the model has no counterpart for (stall reasons, scheduler statistics, NVLink, the
// roofline charts, PM sampling) is named as such instead of being invented.
//
// The sets' contents are ncu 2025's (`ncu --list-sets`, validation/conventions/results).
#pragma once

#include "model/PerformanceModel.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::report {

struct NcuSectionInfo {
  std::string_view identifier;  ///< `--section` spelling: "SpeedOfLight"
  std::string_view displayName; ///< the CSV's Section Name: "GPU Speed Of Light Throughput"
  bool modeled = false;         ///< the model fills it
  std::string_view missing;     ///< when not modeled: what the model lacks, for the warning
};

/// Every section identifier ncu 2025 lists, modeled or not.
std::span<const NcuSectionInfo> ncuSections();

/// The sections `--set` and `--section` choose, in ncu's order, each once. `set`: "" (none), basic,
/// detailed or full; `sections`: identifiers, or `regex:EXPR` matched against them. Throws
/// std::invalid_argument naming an unknown set or section (and the known ones). The chosen sections
/// the model cannot fill go to `unmodeled` (a set's silently, an explicit --section's for a warning).
std::vector<const NcuSectionInfo *> selectSections(std::string_view set, const std::vector<std::string> &sections,
                                                   std::vector<const NcuSectionInfo *> *unmodeledExplicit);

struct SectionMetric {
  std::string name; ///< ncu's display name: "Duration"
  std::string unit; ///< base unit: "ns", "%", "cycle"
  double value = 0;
};

/// A modeled section's metrics for `launch`, in ncu's order.
std::vector<SectionMetric> sectionMetrics(const NcuSectionInfo &section, const model::LaunchProfile &launch);

/// ncu's text page for the launch: the launch's line, then per section "Section: NAME" and a table of
/// Metric Name, Metric Unit, Metric Value.
std::string sectionsText(const model::LaunchProfile &launch, std::span<const NcuSectionInfo *const> sections);
/// The rows of `metricsCsvHeader()`'s layout, Section Name the display name.
std::string sectionsCsvRows(const model::LaunchProfile &launch, size_t id,
                            std::span<const NcuSectionInfo *const> sections);

} // namespace ptxray::report
