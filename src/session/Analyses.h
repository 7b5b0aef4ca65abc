// How a launch's results become an analysis (report::Analysis): the performance model's profile
// advised on while its module is alive, with the sanitizers' reports as correctness findings, the
// analysis owning its copy of the profile. Shared by `ptxray analyze`/`compare` (every launch) and
// programs' reports (`ptxray exec --report`: each kernel's costliest launch).
#pragma once

#include "advisor/Advisor.h"
#include "report/AnalysisReport.h"
#include "session/Tools.h"

#include <span>
#include <string>
#include <vector>

namespace ptxray::session {

/// The advisor's options as users give them (`--only`, `--ignore`, `--threshold NAME=VALUE`; each
/// entry one item or a comma-separated list). Throws std::invalid_argument for an unknown rule or
/// threshold, or a value that is not a non-negative number.
advisor::AdvisorOptions advisorOptions(const std::vector<std::string> &only, const std::vector<std::string> &ignore,
                                       const std::vector<std::string> &thresholds);

/// A sanitizer's report as the advisor takes it (the tool's correctness rule; its sites' source
/// positions as references). Memcheck's faults have no rule: nullopt.
std::optional<advisor::CorrectnessReport> correctnessReport(const ToolReport &report);
/// Those of `reports` that become findings.
std::vector<advisor::CorrectnessReport> correctnessReports(std::span<const ToolReport> reports);

/// What advising a launch needs besides the launch.
struct AdviceSettings {
  advisor::AdvisorOptions advisor;
  model::ModelOptions model;           ///< the options the profile was made with (what-ifs re-estimate)
  std::vector<std::string> sourceDirs; ///< where the report looks for the sources the PTX names
};

/// Advises on `profile` (its module alive: call from the launch's callback) with the sanitizers'
/// `hazards`; the analysis keeps a copy of the profile without the module pointer.
report::Analysis analyzeLaunch(const arch::ArchTarget &target, const model::LaunchProfile &profile,
                               std::vector<advisor::CorrectnessReport> hazards, const AdviceSettings &settings);

/// Reports not made with their launch's analysis (leaks, known at the end of a run; a program's
/// reports of launches other than the one its report shows) as findings: each on the last analysis of
/// the kernel it happened in, once (a finding already there is not repeated), as --only and --ignore
/// allow; the findings ranked again. A kernel with no analysis (its launches all faulted) gets one of
/// its own on `target` (else on the first analysis's GPU); a report of no kernel goes to the last.
void attachReports(std::vector<report::Analysis> &analyses, std::span<const ToolReport> reports,
                   const advisor::AdvisorOptions &options, const arch::ArchTarget *target = nullptr);

/// A program's report: per kernel, the analysis of its costliest launch so far (a program may launch
/// a kernel thousands of times; the report shows each kernel once), in first-launch order.
class KernelAnalyses {
public:
  /// Whether a launch of `kernel` taking `seconds` would replace what is kept (call analyzeLaunch
  /// only then: advising costs more than the launch's comparison).
  bool wants(const std::string &kernel, double seconds) const;
  void keep(report::Analysis analysis);
  const std::vector<report::Analysis> &analyses() const { return analyses_; }

private:
  std::vector<report::Analysis> analyses_;
};

} // namespace ptxray::session
