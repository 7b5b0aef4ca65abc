#include "session/Outputs.h"

#include "advisor/SessionRules.h"
#include "report/FindingsCsv.h"
#include "report/MetricsReport.h"
#include "report/TimelineStats.h"
#include "support/OutputFile.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace ptxray::session {

OutputFormat outputFormat(std::string_view path) {
  if (path.ends_with(".json"))
    return OutputFormat::Json;
  if (path.ends_with(".html") || path.ends_with(".htm"))
    return OutputFormat::Html;
  if (path.ends_with(".csv"))
    return OutputFormat::Csv;
  return OutputFormat::Text;
}

bool writeOutput(const std::string &path, std::string_view contents, std::ostream &err) {
  if (path == "-") {
    err << contents;
    return true;
  }
  try {
    support::writeOutputFile(path, contents);
    return true;
  } catch (const support::OutputFileError &e) {
    err << "ptxray: error: " << e.what() << "\n";
    return false;
  }
}

std::string jsonText(const nlohmann::json &document) {
  return document.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

SimulatedSession simulateSession(const arch::ArchTarget &target, const system::SystemOptions &options,
                                 const system::Session &session) {
  SimulatedSession out;
  out.timeline = system::simulate(system::SystemConfig::forTarget(target, options), session);
  out.findings = advisor::adviseSession(out.timeline);
  return out;
}

std::string renderAnalyses(OutputFormat format, const std::vector<report::Analysis> &analyses,
                           const report::TextStyle &style, const SimulatedSession *session) {
  switch (format) {
  case OutputFormat::Trace: // no trace of analyses: their JSON
  case OutputFormat::Json: {
    nlohmann::json document = report::analysisJson(analyses);
    if (session)
      document["session"] = report::timelineJson(session->timeline, session->findings);
    return jsonText(document);
  }
  case OutputFormat::Html: return report::analysisHtml(analyses);
  case OutputFormat::Csv: return report::findingsCsv(analyses);
  case OutputFormat::Text: break;
  }
  std::string text;
  if (session) {
    // The session first: the guides rank transfers above everything in the kernels. Its summary and
    // findings; the chart is `ptxray timeline`'s.
    report::TimelineTextOptions options;
    options.chart = style.verbose;
    options.operations = style.verbose;
    text += report::timelineText(session->timeline, session->findings, options) + "\n";
  }
  for (size_t i = 0; i < analyses.size(); ++i) {
    if (i)
      text += '\n';
    text += report::analysisText(analyses[i], style);
  }
  return text;
}

std::string renderTimeline(OutputFormat format, const SimulatedSession &session,
                           const report::TimelineTextOptions &text) {
  switch (format) {
  case OutputFormat::Json: return jsonText(report::timelineJson(session.timeline, session.findings));
  case OutputFormat::Trace: // compact: traces of long sessions are large
    return report::timelineTrace(session.timeline).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
           "\n";
  case OutputFormat::Html: return report::timelineHtml(session.timeline, session.findings);
  case OutputFormat::Csv: return report::timelineStatsCsv(session.timeline, "cuda_gpu_kern_sum");
  case OutputFormat::Text: break;
  }
  return report::timelineText(session.timeline, session.findings, text);
}

bool writeMetrics(const std::string &path, const std::vector<model::LaunchProfile> &launches, std::ostream &err) {
  return writeOutput(path, jsonText(report::metricsJson(launches)), err);
}

} // namespace ptxray::session
