#include "session/ProgramTools.h"

#include "session/Outputs.h"

#include <fmt/format.h>

#include <filesystem>

namespace ptxray::session {

namespace {

ToolSelection selectionFor(const ProgramOptions &options, const arch::ArchTarget &target) {
  ToolSelection s = options.tools;
  s.model = options.needsModel();
  s.modelOptions = modelOptions(options.model, target);
  return s;
}

} // namespace

ProgramTools::ProgramTools(const ProgramOptions &options, const arch::ArchTarget &target, std::ostream &err)
    : options_(options), err_(err), instruments_(target, selectionFor(options, target)),
      log_(instruments_, err, !options.sanitizerJson.empty()) {
  advice_.model = instruments_.selection().modelOptions;
  advice_.sourceDirs = {std::filesystem::current_path().string()};
  if (!options.timeline.empty())
    recorder_.emplace(target.board() ? target.board()->smCount : 0);
}

std::optional<double> ProgramTools::afterLaunch(const vm::LaunchResult &result, const std::string &kernel,
                                                StreamRef stream) {
  const std::vector<ToolReport> reports = instruments_.launchReports(result);
  log_.afterLaunch(reports, launches_++, kernel);
  const model::LaunchProfile *profile = instruments_.lastProfile(result);
  if (!profile)
    return std::nullopt;
  if (!options_.report.empty() && result.ok() && analyses_.wants(profile->kernel, profile->time.seconds))
    analyses_.keep(analyzeLaunch(instruments_.target(), *profile, correctnessReports(reports), advice_));
  if (recorder_)
    recorder_->launch(*profile, stream);
  return profile->time.seconds;
}

bool ProgramTools::finish() {
  bool ok = true;
  const std::vector<ToolReport> leaks = instruments_.leakReports();
  log_.finish();
  if (!options_.sanitizerJson.empty())
    ok &= writeOutput(options_.sanitizerJson, log_.document(instruments_.target().displayName()).dump(1) + "\n", err_);
  if (!options_.report.empty()) {
    std::vector<report::Analysis> analyses = analyses_.analyses();
    if (!analyses.empty() && !leaks.empty()) {
      // A leak belongs to the kernel whose code called malloc, when one of the reported kernels did.
      report::Analysis *owner = &analyses.back();
      for (report::Analysis &a : analyses)
        if (!leaks.front().hazard.sites.empty() && a.launch->kernel == leaks.front().hazard.sites.front().function)
          owner = &a;
      addRunEndFindings(*owner, leaks, advice_.advisor);
    }
    const std::string &path = options_.report;
    if (writeOutput(path, renderAnalyses(outputFormat(path), analyses), err_))
      err_ << fmt::format("ptxray: the advisor's report of {} kernel{} is in {}\n", analyses.size(),
                          analyses.size() == 1 ? "" : "s", path);
    else
      ok = false;
  }
  if (recorder_) {
    system::SystemOptions system;
    system.connections = options_.connections;
    system.boards = options_.boards;
    std::optional<SimulatedSession> simulated;
    try {
      simulated = simulateSession(instruments_.target(), system, recorder_->session());
    } catch (const std::invalid_argument &e) {
      err_ << fmt::format("ptxray: error: {}: {}\n", env::kTimeline, e.what());
      ok = false;
    }
    for (const std::string &path : options_.timeline) {
      if (!simulated)
        break;
      if (!writeOutput(path, renderTimeline(path == "-" ? OutputFormat::Text : outputFormat(path), *simulated), err_))
        ok = false;
      else if (path != "-")
        err_ << fmt::format("ptxray: the timeline of {} operation{} is in {}\n", recorder_->session().ops.size(),
                            recorder_->session().ops.size() == 1 ? "" : "s", path);
    }
  }
  if (model::PerformanceModel *model = instruments_.model(); model && !options_.metricsJson.empty())
    ok &= writeMetrics(options_.metricsJson, model->launches(), err_);
  return ok;
}

} // namespace ptxray::session
