// How results are written, by output type: a file's extension chooses the view (.json: the versioned
// JSON document, .html/.htm: one self-contained page, .csv: a table, anything else: text), "-" means the error
// stream, and a file that cannot be written completely is an error that says so. One place for the
// analyses (`analyze`, `compare`, `exec --report`), session timelines (`timeline`, `analyze` of a
// session, `exec --timeline`), metrics and the sanitizers' JSON.
#pragma once

#include "advisor/Finding.h"
#include "arch/GpuDatabase.h"
#include "model/PerformanceModel.h"
#include "report/AnalysisReport.h"
#include "report/TimelineView.h"
#include "system/SystemConfig.h"
#include "system/Timeline.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::session {

/// Trace: the Trace Event Format of Perfetto and chrome://tracing (timelines only; elsewhere JSON).
/// Csv: the tables a spreadsheet reads (analyses: the findings, report/FindingsCsv.h; timelines:
/// `nsys stats`' kernel summary, report/TimelineStats.h).
enum class OutputFormat : uint8_t { Text, Json, Html, Trace, Csv };
/// By the file's extension: .json, .html or .htm, .csv, else text (never Trace: asked for by name).
OutputFormat outputFormat(std::string_view path);

/// Writes `contents` to `path` (replacing it), or to `err` for "-". False, after an error line on
/// `err` naming the file and the reason, when it could not be written completely (a full disk too).
bool writeOutput(const std::string &path, std::string_view contents, std::ostream &err);

/// A JSON document as ptxray writes it: one space of indent, a final newline, and any byte that is not
/// UTF-8 (a name in a program's PTX, say) replaced rather than thrown about.
std::string jsonText(const nlohmann::json &document);

/// A session placed in time on the modeled system, and the advisor's findings on it.
struct SimulatedSession {
  system::Timeline timeline;
  std::vector<advisor::Finding> findings;
};
/// Simulates `session` on `target`'s system (throws std::invalid_argument for a host it cannot
/// model: several boards of an integrated GPU, say) and advises on it.
SimulatedSession simulateSession(const arch::ArchTarget &target, const system::SystemOptions &options,
                                 const system::Session &session);

/// The analyses as `format` shows them; `session`, when given, comes first in text and JSON.
std::string renderAnalyses(OutputFormat format, const std::vector<report::Analysis> &analyses,
                           const report::TextStyle &style = {}, const SimulatedSession *session = nullptr);
std::string renderTimeline(OutputFormat format, const SimulatedSession &session,
                           const report::TimelineTextOptions &text = {});
/// The performance model's metrics of every launch, as `--metrics-json` writes them.
bool writeMetrics(const std::string &path, const std::vector<model::LaunchProfile> &launches, std::ostream &err);

} // namespace ptxray::session
