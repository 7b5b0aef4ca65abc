#include "session/Analyses.h"

#include <algorithm>

namespace ptxray::session {

std::optional<advisor::CorrectnessReport> correctnessReport(const ToolReport &report) {
  const std::string_view rule = toolInfo(report.tool).rule;
  if (rule.empty())
    return std::nullopt;
  const sanitizers::Hazard &h = report.hazard;
  advisor::CorrectnessReport r;
  r.rule = std::string(rule);
  r.error = h.severity == sanitizers::Severity::Error;
  r.headline = h.headline;
  r.details = h.details;
  r.occurrences = h.occurrences;
  for (const sanitizers::SiteText &site : h.sites) {
    advisor::SourceRef ref;
    ref.file = site.file;
    ref.line = site.line;
    ref.ptxLocation = site.ptxLocation;
    ref.ptxText = site.ptxText;
    ref.evidence = r.lines.empty() ? "reported here" : "and here";
    r.lines.push_back(std::move(ref));
  }
  return r;
}

std::vector<advisor::CorrectnessReport> correctnessReports(std::span<const ToolReport> reports) {
  std::vector<advisor::CorrectnessReport> out;
  for (const ToolReport &r : reports)
    if (std::optional<advisor::CorrectnessReport> c = correctnessReport(r))
      out.push_back(std::move(*c));
  return out;
}

report::Analysis analyzeLaunch(const arch::ArchTarget &target, const model::LaunchProfile &profile,
                               std::vector<advisor::CorrectnessReport> hazards, const AdviceSettings &settings) {
  advisor::AnalysisInput in;
  in.target = target;
  in.module = profile.module;
  in.kernel = profile.kernel;
  in.launch = &profile;
  in.modelOptions = settings.model;
  in.hazards = std::move(hazards);
  report::Analysis a;
  a.target = target;
  a.findings = advisor::advise(in, settings.advisor);
  auto copy = std::make_shared<model::LaunchProfile>(profile);
  copy->module = nullptr; // the module does not outlive the run
  a.launch = std::move(copy);
  a.sourceDirs = settings.sourceDirs;
  return a;
}

void addRunEndFindings(report::Analysis &analysis, std::span<const ToolReport> reports,
                       const advisor::AdvisorOptions &options) {
  auto listed = [](const std::vector<std::string> &list, const std::string &rule) {
    return std::find(list.begin(), list.end(), rule) != list.end();
  };
  bool added = false;
  for (advisor::Finding &f : advisor::correctnessFindings(correctnessReports(reports)))
    if ((options.only.empty() || listed(options.only, f.rule)) && !listed(options.ignore, f.rule)) {
      analysis.findings.push_back(std::move(f));
      added = true;
    }
  if (added)
    advisor::rankFindings(analysis.findings);
}

bool KernelAnalyses::wants(const std::string &kernel, double seconds) const {
  auto kept = std::find_if(analyses_.begin(), analyses_.end(),
                           [&](const report::Analysis &a) { return a.launch->kernel == kernel; });
  return kept == analyses_.end() || seconds > kept->launch->time.seconds;
}

void KernelAnalyses::keep(report::Analysis analysis) {
  auto kept = std::find_if(analyses_.begin(), analyses_.end(),
                           [&](const report::Analysis &a) { return a.launch->kernel == analysis.launch->kernel; });
  if (kept == analyses_.end())
    analyses_.push_back(std::move(analysis));
  else
    *kept = std::move(analysis);
}

} // namespace ptxray::session
