#include "session/Analyses.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace ptxray::session {

namespace {

/// "a,b" and repeated options alike.
std::vector<std::string> splitList(const std::vector<std::string> &items) {
  std::vector<std::string> out;
  for (const std::string &item : items) {
    size_t start = 0;
    for (;;) {
      size_t comma = item.find(',', start);
      std::string part = item.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!part.empty())
        out.push_back(part);
      if (comma == std::string::npos)
        break;
      start = comma + 1;
    }
  }
  return out;
}

} // namespace

advisor::AdvisorOptions advisorOptions(const std::vector<std::string> &only, const std::vector<std::string> &ignore,
                                       const std::vector<std::string> &thresholds) {
  advisor::AdvisorOptions a;
  a.only = splitList(only);
  a.ignore = splitList(ignore);
  for (const std::string &id : a.only)
    if (!advisor::findRule(id))
      throw std::invalid_argument(fmt::format("--only: unknown rule '{}' (--list-rules shows them)", id));
  for (const std::string &id : a.ignore)
    if (!advisor::findRule(id))
      throw std::invalid_argument(fmt::format("--ignore: unknown rule '{}' (--list-rules shows them)", id));
  for (const std::string &t : thresholds) {
    const size_t eq = t.find('=');
    const std::string name = t.substr(0, eq);
    const advisor::ThresholdInfo *info = nullptr;
    for (const advisor::ThresholdInfo &ti : advisor::thresholdInfos())
      if (ti.name == name)
        info = &ti;
    if (eq == std::string::npos || !info)
      throw std::invalid_argument(
          fmt::format("--threshold '{}': expected NAME=VALUE with a NAME from --list-rules", t));
    try {
      size_t used = 0;
      const double v = std::stod(t.substr(eq + 1), &used);
      if (used != t.size() - eq - 1 || !(v >= 0))
        throw std::invalid_argument("");
      a.thresholds.*(info->member) = v;
    } catch (const std::exception &) {
      throw std::invalid_argument(fmt::format("--threshold '{}': the value must be a non-negative number", t));
    }
  }
  return a;
}

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

void attachReports(std::vector<report::Analysis> &analyses, std::span<const ToolReport> reports,
                   const advisor::AdvisorOptions &options, const arch::ArchTarget *target) {
  if (analyses.empty() && !target)
    return;
  auto listed = [](const std::vector<std::string> &list, const std::string &rule) {
    return std::find(list.begin(), list.end(), rule) != list.end();
  };
  std::vector<bool> changed(analyses.size(), false);
  for (const ToolReport &r : reports) {
    std::optional<advisor::CorrectnessReport> c = correctnessReport(r);
    if (!c)
      continue;
    // The report's kernel's analysis; a kernel without one (its launches faulted, say) gets one of
    // its own, holding the reports; a report of no kernel goes to the last analysis.
    auto kernelOf = [](const report::Analysis &a) -> const std::string * {
      return a.launch ? &a.launch->kernel : a.kernelStatic ? &a.kernelStatic->kernel : nullptr;
    };
    size_t owner = analyses.empty() ? 0 : analyses.size() - 1;
    bool found = r.hazard.kernel.empty() && !analyses.empty();
    for (size_t i = analyses.size(); !found && i-- > 0;)
      if (const std::string *k = kernelOf(analyses[i]); k && *k == r.hazard.kernel) {
        owner = i;
        found = true;
      }
    if (!found) {
      report::Analysis a;
      a.target = target ? *target : analyses.front().target;
      if (!analyses.empty())
        a.sourceDirs = analyses.front().sourceDirs;
      a.kernelStatic.emplace();
      a.kernelStatic->kernel = r.hazard.kernel.empty() ? "(no kernel)" : r.hazard.kernel;
      a.kernelStatic->demangled = a.kernelStatic->kernel;
      analyses.push_back(std::move(a));
      changed.push_back(false);
      owner = analyses.size() - 1;
    }
    advisor::SourceLanguage language = advisor::SourceLanguage::Cuda;
    if (const model::LaunchProfile *L = analyses[owner].launch.get())
      for (const model::InstructionProfile &p : L->instructions)
        if (p.sourceFile.ends_with(".cl"))
          language = advisor::SourceLanguage::OpenCL;
    for (const sanitizers::SiteText &site : r.hazard.sites)
      if (site.file.ends_with(".cl"))
        language = advisor::SourceLanguage::OpenCL;
    for (advisor::Finding &f : advisor::correctnessFindings({*c}, language)) {
      if ((!options.only.empty() && !listed(options.only, f.rule)) || listed(options.ignore, f.rule))
        continue;
      std::vector<advisor::Finding> &findings = analyses[owner].findings;
      if (std::any_of(findings.begin(), findings.end(),
                      [&](const advisor::Finding &g) { return g.rule == f.rule && g.title == f.title; }))
        continue;
      findings.push_back(std::move(f));
      changed[owner] = true;
    }
  }
  for (size_t i = 0; i < analyses.size(); ++i)
    if (changed[i])
      advisor::rankFindings(analyses[i].findings);
}

bool KernelAnalyses::wants(const std::string &kernel, double seconds) const {
  auto kept = std::find_if(analyses_.begin(), analyses_.end(),
                           [&](const report::Analysis &a) { return a.launch->kernel == kernel; });
  return kept == analyses_.end() || seconds > kept->launch->seconds();
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
