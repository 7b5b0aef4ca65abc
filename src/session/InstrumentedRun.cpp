#include "session/InstrumentedRun.h"

#include "session/Environment.h"
#include "session/SanitizerLog.h"
#include "session/SessionFromSpec.h"

#include <fmt/format.h>

#include <algorithm>

namespace ptxray::session {

bool hasHostOperations(const RunSpec &spec) {
  return std::any_of(spec.operations.begin(), spec.operations.end(), [](const SpecOperation &op) {
    return op.kind != SpecOperation::Kind::Launch || op.stream != 0 || op.device != 0;
  });
}

system::SystemOptions systemOptions(const RunSpec &spec, const system::SystemOptions &overrides) {
  system::SystemOptions o = overrides;
  if (!o.pcieGeneration)
    o.pcieGeneration = spec.host.pcieGeneration;
  if (!o.pcieLanes)
    o.pcieLanes = spec.host.pcieLanes;
  if (!o.boards)
    o.boards = spec.host.boards;
  if (!o.connections)
    o.connections = hyperQConnectionsFromEnvironment();
  return o;
}

void printDeviceOutput(const vm::LaunchResult &result, Console console, bool quietPrintf) {
  if (!result.printfOutput.empty() && !quietPrintf) {
    console.out << result.printfOutput;
    console.out.flush();
  }
  console.err << result.assertOutput;
  for (const vm::Fault &f : result.faults) {
    if (console.names == ptx::NameStyle::Mangled) {
      console.err << f.describe();
      continue;
    }
    vm::Fault shown = f;
    shown.kernel = ptx::displayName(f.kernel, console.names);
    shown.function = f.function == f.kernel ? shown.kernel : ptx::displayName(f.function, console.names);
    console.err << shown.describe();
  }
}

void printLaunchOutcome(const LaunchReport &r, Console console, bool quietPrintf,
                        std::optional<size_t> memcheckFaultLimit) {
  printDeviceOutput(r.result, console, quietPrintf);
  switch (r.result.status) {
  case vm::LaunchStatus::Success: break;
  case vm::LaunchStatus::Refused:
    console.err << fmt::format("error: launch of {} refused: {}\n", r.kernel, r.result.error);
    break;
  case vm::LaunchStatus::Faulted:
  case vm::LaunchStatus::AssertFailed:
    if (memcheckFaultLimit) {
      // Every error found, also those past the reports kept (10 million, not "100").
      const uint64_t total = std::max<uint64_t>(r.result.faultCount, r.result.faults.size());
      console.err << fmt::format(
          "========= ERROR SUMMARY: {} error{}{}\n", total, total == 1 ? "" : "s",
          total > r.result.faults.size() ? fmt::format(" (the first {} are reported)", r.result.faults.size()) : "");
    }
    console.err << fmt::format("error: launch of {} failed: {}\n", r.kernel, r.result.error);
    break;
  }
}

RunResult runInstrumented(const RunSpec &spec, const RunRequest &request, Console console,
                          const std::function<void(const LaunchEvent &)> &onLaunch) {
  ToolSelection tools = request.tools;
  const bool wantSession = request.session == RunRequest::Session::Always ||
                           (request.session == RunRequest::Session::WhenSpecHasOne && hasHostOperations(spec));
  // Advice and sessions need the model's profiles.
  tools.model = tools.model || request.advice || wantSession;
  // A host the system model cannot build (several boards of an integrated GPU) is refused before
  // anything runs.
  if (wantSession)
    (void)system::SystemConfig::forTarget(request.target, systemOptions(spec, request.system));
  Instruments instruments(request.target, tools);
  SanitizerLog log(instruments, console.err, true, request.printLimit);

  RunResult result;
  RunOptions options;
  options.target = request.target;
  options.launch = request.launch;
  instruments.configure(options.launch);
  options.listener = instruments.listener();
  options.keepPtxDirectory = request.keepPtxDirectory;
  options.writeOutputs = request.writeOutputs;
  KernelFilter filter = request.filter;
  std::vector<size_t> selectedProfiles; // indices: the model's vector of profiles grows (and moves)
  // The tools' counts after the previous launch: those before this one (nothing between launches
  // reports), for taking a left-out launch's counts out of the summaries.
  std::vector<ToolSummary> summariesBefore = instruments.summaries();
  options.onLaunch = [&](const LaunchReport &r) {
    const std::vector<ToolReport> reports = instruments.launchReports(r.result);
    LaunchEvent event{r};
    event.selected = filter.selectNext(r.kernel);
    if (!event.selected) {
      // The tools watched it (initcheck knows what it wrote), but its reports and counts are not the
      // run's, and no output keeps it.
      std::vector<ToolSummary> after = instruments.summaries();
      log.exclude(summariesBefore, after);
      summariesBefore = std::move(after);
      if (onLaunch)
        onLaunch(event);
      return;
    }
    if (filter.active())
      summariesBefore = instruments.summaries();
    if (request.reportTools)
      log.afterLaunch(reports, r.index, r.kernel);
    event.profile = instruments.lastProfile(r.result);
    if (event.profile)
      selectedProfiles.push_back(static_cast<size_t>(event.profile - instruments.model()->launches().data()));
    if (request.advice && r.result.ok() && event.profile) {
      // The module is alive during the callback: advise now, keep a copy of the profile.
      result.analyses.push_back(
          analyzeLaunch(request.target, *event.profile, correctnessReports(reports), *request.advice));
      event.analysis = &result.analyses.back();
    }
    if (onLaunch)
      onLaunch(event);
  };
  options.onModuleWarning = [&](const std::string &warning) { console.err << "ptxray: warning: " << warning << "\n"; };
  result.outcome = runSpec(spec, options);
  // What ended the run early comes before the tools' summaries, which end the output.
  const RunOutcome &outcome = result.outcome;
  if (!outcome.error.empty())
    console.err << "ptxray: error: " << outcome.error << "\n";
  if (!outcome.launches.empty() && !outcome.launches.back().result.ok() && !spec.outputs.empty() &&
      request.writeOutputs)
    console.err << "note: outputs not written: a launch failed\n";

  if (request.reportTools) {
    result.toolErrors = log.finish();
    result.sanitizerDocument = log.document(request.target.displayName());
  } else if (request.advice) {
    // Leaks are known at the end of the run only: each goes to the kernel that allocated.
    attachReports(result.analyses, instruments.leakReports(), request.advice->advisor);
  }
  if (model::PerformanceModel *model = instruments.model()) {
    for (size_t i : selectedProfiles)
      result.selectedProfiles.push_back(model->launches()[i]);
    result.profiles = model->launches();
    for (model::LaunchProfile &p : result.profiles)
      p.module = nullptr; // the run's module is gone
    for (model::LaunchProfile &p : result.selectedProfiles)
      p.module = nullptr;
  }
  if (wantSession) {
    const int smCount = request.target.board() ? request.target.board()->smCount : 1;
    result.session = simulateSession(request.target, systemOptions(spec, request.system),
                                     sessionFromSpec(spec, result.profiles, smCount));
  }
  return result;
}

} // namespace ptxray::session
