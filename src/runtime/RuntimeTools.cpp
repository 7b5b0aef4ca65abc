#include "runtime/RuntimeTools.h"

#include "advisor/Advisor.h"
#include "model/PerformanceModel.h"
#include "report/AnalysisReport.h"
#include "report/MetricsReport.h"
#include "sanitizers/Initcheck.h"
#include "sanitizers/Leakcheck.h"
#include "sanitizers/Racecheck.h"
#include "sanitizers/Report.h"
#include "sanitizers/Synccheck.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

namespace ptxray::runtime {

RuntimeTools::RuntimeTools(const RuntimeConfig &config, const arch::ArchTarget &target, vm::Device &device)
    : config_(config), target_(target) {
  const arch::ComputeCapability &cc = *target.computeCapability;
  for (const std::string &tool : config.tools) {
    if (tool == "memcheck")
      memcheck_ = true;
    else if (tool == "racecheck" && !racecheck_)
      racecheck_ =
          std::make_unique<sanitizers::Racecheck>(sanitizers::RacecheckOptions{cc.major * 10 + cc.minor, false});
    else if (tool == "synccheck" && !synccheck_)
      synccheck_ = std::make_unique<sanitizers::Synccheck>();
    else if (tool == "initcheck" && !initcheck_)
      initcheck_ = std::make_unique<sanitizers::Initcheck>();
    else if (tool == "leakcheck" && !leakcheck_)
      leakcheck_ = std::make_unique<sanitizers::Leakcheck>();
    else if (tool != "racecheck" && tool != "synccheck" && tool != "initcheck" && tool != "leakcheck")
      throw std::invalid_argument(
          fmt::format("PTXRAY_TOOL: unknown tool \"{}\" (memcheck, racecheck, synccheck, initcheck, leakcheck)", tool));
  }
  if (racecheck_)
    listeners_.add(racecheck_.get());
  if (synccheck_)
    listeners_.add(synccheck_.get());
  if (initcheck_) {
    listeners_.add(initcheck_.get());
    device.memory().setListener(initcheck_.get());
  }
  if (leakcheck_)
    listeners_.add(leakcheck_.get());
  if (!config.timeline.empty())
    session_ = std::make_unique<SessionRecorder>(target.board() ? target.board()->smCount : 0, config.boards);
  if (!config.metricsJson.empty() || !config.report.empty() || session_) {
    model_ = std::make_unique<model::PerformanceModel>(target, model::ModelOptions{});
    listeners_.add(model_.get());
  }
}

RuntimeTools::~RuntimeTools() = default;

std::optional<double> RuntimeTools::afterLaunch(const vm::LaunchResult &result, StreamRef stream) {
  if (result.status == vm::LaunchStatus::Refused)
    return std::nullopt;
  auto print = [](const std::vector<sanitizers::Hazard> &hazards) {
    for (const sanitizers::Hazard &h : hazards)
      std::cerr << h.describe();
  };
  if (racecheck_)
    print(racecheck_->launchHazards());
  if (synccheck_)
    print(synccheck_->launchHazards());
  if (initcheck_)
    print(initcheck_->launchHazards());
  if (memcheck_)
    memcheckErrors_ += result.faultCount;
  if (!model_ || model_->launches().empty())
    return std::nullopt;
  if (!config_.report.empty() && result.ok())
    advise(target_);
  if (session_)
    session_->launch(model_->launches().back(), stream);
  return model_->launches().back().time.seconds;
}

void RuntimeTools::advise(const arch::ArchTarget &target) {
  const model::LaunchProfile &L = model_->launches().back();
  size_t slot = 0;
  while (slot < analyses_.size() && analyses_[slot].launch->kernel != L.kernel)
    ++slot;
  if (slot < analyses_.size() && L.time.seconds <= analyses_[slot].launch->time.seconds)
    return;
  // The module is alive while the program runs: advise now, on a copy of the profile.
  advisor::AnalysisInput in;
  in.target = target;
  in.module = L.module;
  in.kernel = L.kernel;
  in.launch = &L;
  report::Analysis a;
  a.target = target;
  a.findings = advisor::advise(in, advisor::AdvisorOptions{});
  a.sourceDirs = {std::filesystem::current_path().string()};
  auto profile = std::make_unique<model::LaunchProfile>(L);
  profile->module = nullptr;
  a.launch = profile.get();
  if (slot < analyses_.size()) {
    profiles_[slot] = std::move(profile);
    analyses_[slot] = std::move(a);
  } else {
    profiles_.push_back(std::move(profile));
    analyses_.push_back(std::move(a));
  }
}

void RuntimeTools::finish() {
  if (memcheck_)
    std::cerr << "========= " << sanitizers::errorSummaryLine("MEMCHECK", memcheckErrors_) << "\n";
  if (racecheck_)
    std::cerr << "========= " << sanitizers::summaryLine("RACECHECK", racecheck_->errors(), racecheck_->warnings())
              << "\n";
  if (synccheck_)
    std::cerr << "========= " << sanitizers::summaryLine("SYNCCHECK", synccheck_->errors(), synccheck_->warnings())
              << "\n";
  if (initcheck_)
    std::cerr << "========= " << sanitizers::errorSummaryLine("INITCHECK", initcheck_->errors()) << "\n";
  if (leakcheck_) {
    const std::vector<sanitizers::Hazard> leaks = leakcheck_->leaks();
    for (const sanitizers::Hazard &h : leaks)
      std::cerr << h.describe();
    std::cerr << "========= " << sanitizers::errorSummaryLine("LEAKCHECK", leaks.size()) << "\n";
  }
  if (!config_.report.empty()) {
    const std::string &path = config_.report;
    std::string text;
    if (path.ends_with(".html") || path.ends_with(".htm"))
      text = report::analysisHtml(analyses_);
    else if (path.ends_with(".json"))
      text = report::analysisJson(analyses_).dump(1) + "\n";
    else
      for (size_t i = 0; i < analyses_.size(); ++i) {
        if (i)
          text += '\n';
        text += report::analysisText(analyses_[i], report::TextStyle{});
      }
    std::ofstream out(path);
    out << text;
    if (!out)
      std::cerr << fmt::format("ptxray: error: cannot write {}\n", path);
    else
      std::cerr << fmt::format("ptxray: the advisor's report of {} kernel{} is in {}\n", analyses_.size(),
                               analyses_.size() == 1 ? "" : "s", path);
  }
  if (session_)
    session_->write(target_, config_.connections, config_.timeline);
  if (model_ && !config_.metricsJson.empty()) {
    std::ofstream out(config_.metricsJson);
    out << report::metricsJson(model_->launches()).dump(1) << "\n";
    if (!out)
      std::cerr << fmt::format("ptxray: error: cannot write {}\n", config_.metricsJson);
  }
}

} // namespace ptxray::runtime
