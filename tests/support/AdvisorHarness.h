// Runs a launch under the performance model and the advisor, as `ptxray analyze` does, for tests.
#pragma once

#include "advisor/Advisor.h"
#include "model/PerformanceModel.h"
#include "session/RunSpec.h"

#include <deque>
#include <string>
#include <vector>

namespace ptxray::test {

struct AdvisedLaunch {
  model::LaunchProfile profile; ///< module pointer cleared (the device is gone)
  std::vector<advisor::Finding> findings;
  bool has(std::string_view rule) const {
    for (const advisor::Finding &f : findings)
      if (f.rule == rule)
        return true;
    return false;
  }
  const advisor::Finding *find(std::string_view rule) const {
    for (const advisor::Finding &f : findings)
      if (f.rule == rule)
        return &f;
    return nullptr;
  }
};

/// Every launch of `spec` on `arch`, advised while its module is alive.
inline std::vector<AdvisedLaunch> adviseSpec(const session::RunSpec &spec, const std::string &arch,
                                             const advisor::AdvisorOptions &options = {},
                                             model::ModelOptions modelOptions = {}) {
  const arch::ArchTarget target = *arch::findArch(arch).target;
  model::PerformanceModel perf(target, modelOptions);
  std::vector<AdvisedLaunch> out;
  session::RunOptions run;
  run.target = *arch::findArch(arch).target;
  run.writeOutputs = false;
  run.listener = &perf;
  run.launch.threads = 2;
  run.onLaunch = [&](const session::LaunchReport &r) {
    const model::LaunchProfile *root = r.result.ok() ? perf.finishHostLaunch() : nullptr;
    if (!root)
      return;
    const model::LaunchProfile &L = *root; // with dynamic parallelism, its launch tree's root
    advisor::AnalysisInput in;
    in.target = target;
    in.module = L.module;
    in.kernel = L.kernel;
    in.launch = &L;
    in.modelOptions = modelOptions;
    AdvisedLaunch a{L, advisor::advise(in, options)};
    a.profile.module = nullptr;
    out.push_back(std::move(a));
  };
  session::RunOutcome outcome = session::runSpec(spec, run);
  if (!outcome.ok())
    throw std::runtime_error(outcome.error);
  return out;
}

} // namespace ptxray::test
