// The advisor's findings as CSV (`analyze --csv`, `--report FILE.csv`): one row per finding of every
// analysed launch or kernel, laid out as Nsight Compute writes its rule results with `--csv` (the
// launch's identity first, then the rule's name, type and description, and the estimated speedup),
// with ptxray's own columns (priority, category, guide section, source lines, fix) beside them, so a
// spreadsheet or a CI script can sort, filter and diff them.
#pragma once

#include "report/AnalysisReport.h"

#include <string>
#include <vector>

namespace ptxray::report {

/// The header, then a row per finding, in the order the text report lists them. An analysis with no
/// finding still has one row (empty rule), so every launch is present.
std::string findingsCsv(const std::vector<Analysis> &analyses);

} // namespace ptxray::report
