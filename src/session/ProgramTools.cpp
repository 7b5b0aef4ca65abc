#include "session/ProgramTools.h"

#include "session/Outputs.h"
#include "support/MemoryBudget.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include <unistd.h>

namespace ptxray::session {

namespace {

ToolSelection selectionFor(const ProgramOptions &options, const arch::ArchTarget &target) {
  ToolSelection s = options.tools;
  // A program's end is its exit: the device memory it never freed is leaked (--leak-check full).
  s.programAllocations = true;
  s.model = options.needsModel() || options.modelOnRequest;
  s.modelOptions = modelOptions(options.model, target, SettingSource::Environment);
  return s;
}

/// compute-sanitizer's --log-file: "%p" is the process id. A file that cannot be opened leaves the
/// output on `err`, with a warning there.
std::unique_ptr<std::ofstream> openLogFile(const std::string &pattern, std::ostream &err) {
  if (pattern.empty())
    return nullptr;
  std::string path;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'p') {
      path += std::to_string(::getpid());
      ++i;
    } else {
      path += pattern[i];
    }
  }
  auto file = std::make_unique<std::ofstream>(path, std::ios::out | std::ios::trunc);
  if (!*file) {
    err << fmt::format("ptxray: warning: {}: cannot write \"{}\"; the tools' output stays on the error stream\n",
                       env::kLogFile, path);
    return nullptr;
  }
  return file;
}

} // namespace

ProgramTools::ProgramTools(const ProgramOptions &options, const arch::ArchTarget &target, std::ostream &err)
    : options_(options), logFile_(openLogFile(options.logFile, err)), err_(logFile_ ? *logFile_ : err),
      instruments_(target, selectionFor(options, target)),
      log_(instruments_, err_, !options.sanitizerJson.empty(), options.printLimit, options.names) {
  advice_.model = instruments_.selection().modelOptions;
  std::error_code ec;
  advice_.sourceDirs = {std::filesystem::current_path(ec).string()};
  try {
    filter_ = KernelFilter(options.kernelNames, options.kernelNamesExclude, options.launchSkip, options.launchCount);
  } catch (const std::invalid_argument &e) {
    err << fmt::format("ptxray: warning: {}; every launch is checked\n", e.what());
  }
  if (!options.timeline.empty() || !options.trace.empty() || options.modelClock)
    recorder_.emplace(target.board() ? target.board()->smCount : 0);
  if (options.modelClock && target.board()) {
    system::SystemOptions system;
    system.connections = options.connections;
    system.boards = options.boards;
    try {
      system_ = system::SystemConfig::forTarget(target, system);
    } catch (const std::invalid_argument &) {
      // No system to place the session on (an integrated GPU on several boards): the host's time.
    }
  }
}

const system::Timeline *ProgramTools::timeline() {
  if (!options_.modelClock || !system_ || !recorder_)
    return nullptr;
  const system::Session &session = recorder_->session();
  if (simulated_ && simulatedOps_ == session.ops.size())
    return &*simulated_;
  simulatedOps_ = session.ops.size();
  // Place what follows the checkpoint, from the checkpoint's time, the streams keeping their
  // connections; waits for events recorded before it wait for nothing (those are complete).
  const size_t from = checkpointOp_;
  system::Session rest;
  rest.api = session.api;
  rest.startSeconds = checkpointSeconds_;
  rest.streamOrder = streamOrder_;
  rest.ops.assign(session.ops.begin() + static_cast<std::ptrdiff_t>(from), session.ops.end());
  for (system::SessionOp &op : rest.ops)
    if (op.kind == system::OpKind::StreamWaitEvent) {
      if (op.event == system::kNoOp || op.event < from)
        op.kind = system::OpKind::EventRecord; // a marker on its stream, as the wait now is
      else
        op.event -= from;
    }
  system::Timeline placed;
  try {
    placed = system::place(*system_, rest);
  } catch (const std::invalid_argument &) {
    simulated_.reset(); // the timeline at exit says why
    return nullptr;
  }
  if (!simulated_)
    simulated_.emplace();
  simulated_->entries.resize(from);
  for (system::TimelineEntry e : placed.entries) {
    e.op += from;
    simulated_->entries.push_back(e);
  }
  // The next checkpoint: the last operation issued when everything before it had completed.
  const std::vector<system::TimelineEntry> &entries = simulated_->entries;
  double done = checkpointSeconds_;
  size_t quiet = from;
  for (size_t i = from; i + 1 < entries.size(); ++i) {
    done = std::max(done, entries[i].end);
    if (entries[i + 1].issue >= done)
      quiet = i + 1;
  }
  for (size_t i = from; i < quiet; ++i) {
    const system::SessionOp &op = session.ops[i];
    if ((op.isGpuWork() || op.kind == system::OpKind::CopyD2D || op.kind == system::OpKind::Memset) &&
        streamsSeen_.insert({op.device, op.stream}).second)
      streamOrder_.emplace_back(op.device, op.stream);
  }
  if (quiet > from) {
    checkpointOp_ = quiet;
    checkpointSeconds_ = entries[quiet].issue;
  }
  return &*simulated_;
}

std::optional<double> ProgramTools::eventSeconds(const void *event) {
  if (!modeledClock())
    return std::nullopt;
  const std::optional<size_t> op = recorder_->lastRecordOf(event);
  const system::Timeline *t = op ? timeline() : nullptr;
  if (!t || *op >= t->entries.size())
    return std::nullopt;
  return t->entries[*op].end;
}

double ProgramTools::hostSeconds() {
  const system::Timeline *t = modeledClock() ? timeline() : nullptr;
  if (!t)
    return 0;
  // The host issues in order: its time is its last issue, or the end of a wait it made (before the
  // checkpoint, everything ended by the checkpoint's time).
  double host = checkpointSeconds_;
  for (size_t i = checkpointOp_; i < t->entries.size(); ++i) {
    const system::TimelineEntry &e = t->entries[i];
    host = std::max(host, e.engine == system::Engine::Host ? e.end : e.issue);
  }
  return host;
}

void ProgramTools::setLaunchClock(vm::LaunchOptions &options, StreamRef stream) {
  if (!modeledClock())
    return;
  const system::Timeline *t = timeline();
  double start = hostSeconds();
  if (t) {
    const std::vector<system::SessionOp> &ops = recorder_->session().ops;
    for (size_t i = checkpointOp_; i < t->entries.size(); ++i) {
      const system::SessionOp &op = ops[t->entries[i].op];
      if (op.device == stream.device && (op.stream == stream.stream || op.stream == 0 || stream.stream == 0) &&
          op.isGpuWork())
        start = std::max(start, t->entries[i].end);
    }
  }
  options.clock.startNanoseconds = static_cast<uint64_t>(start * 1e9);
  options.clock.startCycles = static_cast<uint64_t>(start * options.clock.smClockHz);
}

void ProgramTools::configure(vm::LaunchOptions &options, std::string_view kernel) {
  selected_ = !filter_.active() || filter_.selectNext(kernel);
  instruments_.configure(options);
  // memcheck reports every fault and runs on only in the launches it checks; the others stop at the
  // first fault, as without it. Of one launch, as many reports as --print-limit prints (0: all, within
  // reason).
  options.continueOnError = options.continueOnError && selected_;
  options.maxFaults = options_.printLimit ? options_.printLimit : 1'000'000;
  if (!selected_)
    summariesBefore_ = instruments_.summaries();
}

void ProgramTools::beforeLaunch(bool modelWanted) {
  if (!device_ || !instruments_.model())
    return;
  const bool model = modelWanted || options_.needsModel();
  if (model != modelRunning_)
    device_->setListener(model ? instruments_.listener() : instruments_.listenerWithoutModel());
  modelRunning_ = model;
}

std::optional<double> ProgramTools::afterLaunch(const vm::LaunchResult &result, const std::string &kernel,
                                                StreamRef stream, double loadSeconds) {
  const std::vector<ToolReport> reports = instruments_.launchReports(result);
  const size_t launch = launches_++;
  if (!selected_) {
    // Filtered out (--kernel-name, --launch-skip...): the tools watched it (so that initcheck knows
    // what it wrote) but its reports and counts are not the program's, and no output keeps it.
    log_.exclude(summariesBefore_, instruments_.summaries());
    const model::LaunchProfile *profile = modelRunning_ ? instruments_.lastProfile(result) : nullptr;
    if (!profile)
      return std::nullopt;
    if (recorder_)
      recorder_->launch(*profile, stream, loadSeconds);
    return profile->seconds();
  }
  log_.afterLaunch(reports, launch, kernel);
  if (!options_.report.empty())
    for (const ToolReport &r : reports)
      if (std::none_of(reports_.begin(), reports_.end(), [&](const ToolReport &kept) {
            return kept.tool == r.tool && kept.hazard.kernel == r.hazard.kernel &&
                   kept.hazard.headline == r.hazard.headline;
          }))
        reports_.push_back(r);
  const model::LaunchProfile *profile = modelRunning_ ? instruments_.lastProfile(result) : nullptr;
  if (!profile)
    return std::nullopt;
  if (filter_.active()) {
    // The host launch and its child grids (dynamic parallelism), which follow it.
    const auto &all = instruments_.model()->launches();
    const size_t root = static_cast<size_t>(profile - all.data());
    for (size_t i = root; i < all.size(); ++i)
      keptProfiles_.push_back(i);
  }
  if (!options_.report.empty() && result.ok() && analyses_.wants(profile->kernel, profile->seconds()))
    analyses_.keep(analyzeLaunch(instruments_.target(), *profile, {}, advice_));
  if (recorder_)
    recorder_->launch(*profile, stream, loadSeconds);
  return profile->seconds();
}

bool ProgramTools::finish() {
  bool ok = true;
  const std::vector<ToolReport> leaks = instruments_.leakReports();
  log_.finish();
  err_.flush();
  if (options_.errorCountFd >= 0) {
    // For `exec --error-exitcode`, which waits for the program: its exit status is then the one asked for.
    const std::string count = fmt::format("{}\n", log_.errorCount());
    [[maybe_unused]] ssize_t written = ::write(options_.errorCountFd, count.data(), count.size());
  }
  if (!options_.sanitizerJson.empty())
    ok &= writeOutput(options_.sanitizerJson, jsonText(log_.document(instruments_.target().displayName())), err_);
  if (!options_.report.empty()) {
    std::vector<report::Analysis> analyses = analyses_.analyses();
    // Every launch's reports and the leaks, each on its kernel's analysis.
    attachReports(analyses, reports_, advice_.advisor, &instruments_.target());
    attachReports(analyses, leaks, advice_.advisor, &instruments_.target());
    const std::string &path = options_.report;
    if (!writeOutput(path, renderAnalyses(path == "-" ? OutputFormat::Text : outputFormat(path), analyses), err_))
      ok = false;
    else if (path != "-")
      err_ << fmt::format("ptxray: the advisor's report of {} kernel{} is in {}\n", analyses.size(),
                          analyses.size() == 1 ? "" : "s", path);
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
    if (simulated && !options_.trace.empty()) {
      if (!writeOutput(options_.trace, renderTimeline(OutputFormat::Trace, *simulated), err_))
        ok = false;
      else if (options_.trace != "-")
        err_ << fmt::format("ptxray: the trace of {} operation{} is in {} (open it in ui.perfetto.dev)\n",
                            recorder_->session().ops.size(), recorder_->session().ops.size() == 1 ? "" : "s",
                            options_.trace);
    }
  }
  if (model::PerformanceModel *model = instruments_.model(); model && !options_.metricsJson.empty()) {
    if (!filter_.active()) {
      ok &= writeMetrics(options_.metricsJson, model->launches(), err_);
    } else {
      std::vector<model::LaunchProfile> kept;
      for (size_t i : keptProfiles_)
        kept.push_back(model->launches()[i]);
      ok &= writeMetrics(options_.metricsJson, kept, err_);
    }
  }
  return ok;
}

ProgramSetup setUpProgram(std::ostream &err, bool modelOnRequest) {
  ProgramSetup setup;
  std::vector<std::string> warnings;
  setup.options = ProgramOptions::fromEnvironment(warnings);
  setup.options.modelOnRequest = modelOnRequest;
  for (const std::string &w : warnings)
    err << "ptxray: warning: " << w << "\n";
  if (setup.options.maxMemory)
    support::setMemoryBudget(setup.options.maxMemory);
  arch::ArchLookup lookup = arch::findArch(setup.options.archOrDefault());
  if (!lookup) {
    err << fmt::format("ptxray: warning: {}: {}; the {}\n", env::kArch, lookup.error, ProgramOptions::kDefaultArch);
    lookup = arch::findArch(ProgramOptions::kDefaultArch);
  }
  setup.target = *lookup.target;
  try {
    setup.tools = std::make_unique<ProgramTools>(setup.options, setup.target, err);
  } catch (const std::invalid_argument &e) {
    // A model setting this GPU cannot take (PTXRAY_CLOCK=base without a board): that one at its default.
    err << "ptxray: warning: " << e.what() << "; the default\n";
    setup.options.model.clock.clear();
    setup.tools = std::make_unique<ProgramTools>(setup.options, setup.target, err);
  }
  return setup;
}

void ProgramTools::setLaunchConfiguration(int bankWidthBytes, arch::CacheConfig cacheConfig) {
  if (model::PerformanceModel *model = instruments_.model())
    model->setLaunchConfiguration(
        bankWidthBytes ? bankWidthBytes : instruments_.selection().modelOptions.bankWidthBytes, cacheConfig);
}

} // namespace ptxray::session
