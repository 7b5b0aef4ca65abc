// The tools a program runs under, for ptxray's API libraries (`ptxray exec`: the CUDA runtime and
// driver; OpenCL's ICD next): the sanitizers and the performance model listening to every launch,
// their reports on the error stream as the program goes, the session its API calls make, and at
// exit the summaries and every output asked for (sanitizer JSON, metrics, the advisor's report with
// the sanitizers' findings in it, the timeline). The same pipeline as `ptxray run` and `analyze`.
#pragma once

#include "session/Analyses.h"
#include "session/Environment.h"
#include "session/KernelFilter.h"
#include "session/SanitizerLog.h"
#include "session/SessionRecorder.h"
#include "session/Tools.h"
#include "system/Timeline.h"

#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::session {

class ProgramTools {
public:
  /// Throws std::invalid_argument for settings the target cannot take (a --clock of a GPU without
  /// a board in the database, say).
  ProgramTools(const ProgramOptions &options, const arch::ArchTarget &target, std::ostream &err);

  bool memcheck() const { return instruments_.memcheck(); }
  /// Attaches the tools to the program's device, before it allocates anything.
  void attach(vm::Device &device) {
    device_ = &device;
    instruments_.attach(device);
  }
  /// Before a launch, with ProgramOptions::modelOnRequest: whether the performance model times it
  /// (it always does when an output needs the model). The plain VM runs the others at full speed.
  void beforeLaunch(bool modelWanted);
  /// Launch options the tools need, for the launch of `kernel` (its PTX name) about to run; decides
  /// whether the kernel filters select it (ProgramOptions::kernelNames...).
  void configure(vm::LaunchOptions &options, std::string_view kernel);

  /// After a launch of `kernel` (its module alive) on `stream`: prints its reports, advises on it for
  /// the report, records it in the session. Returns the modeled kernel time in seconds when the
  /// model ran it.
  /// `loadSeconds`: host time the launch call spent loading code (CUDA's lazy loading), for the session.
  std::optional<double> afterLaunch(const vm::LaunchResult &result, const std::string &kernel, StreamRef stream = {},
                                    double loadSeconds = 0);
  /// The session being recorded (the modeled clock or PTXRAY_TIMELINE), or null.
  SessionRecorder *recorder() { return recorder_ ? &*recorder_ : nullptr; }

  // The modeled clock (ProgramOptions::modelClock): the session recorded so far, placed in time by
  // the system model exactly as the timeline at exit places it (work issued later never moves work
  // the host already waited for), in seconds from the program's first call.
  bool modeledClock() const { return options_.modelClock && recorder_ && system_; }
  /// When the last record of `event` completed; nullopt without the modeled clock, for an event
  /// never recorded, or for a session the system model cannot place.
  std::optional<double> eventSeconds(const void *event);
  /// Where the host thread is on the modeled clock: its last call issued or its last wait ended.
  double hostSeconds();
  /// The clock a launch about to start on `stream` reads (%clock64, %globaltimer): the modeled time
  /// its stream is free (the host's time at least), at the SM clock of the model.
  void setLaunchClock(vm::LaunchOptions &options, StreamRef stream);
  /// The modeled clock's timeline of the session so far (re-simulated when it grew); null without
  /// the modeled clock or for a session the system model cannot place.
  const system::Timeline *timeline();
  /// At exit: leaks and summaries, then the files, and the error count to PTXRAY_ERROR_COUNT_FD
  /// (`exec --error-exitcode`). False when a file could not be written.
  bool finish();
  /// What the program configured for its next launches (cudaDeviceSetSharedMemConfig,
  /// cudaFuncSetCacheConfig...), for the performance model: Kepler's bank width in bytes (0: the
  /// driver's default, or PTXRAY_BANK_MODE's) and the cache preference its occupancy takes.
  void setLaunchConfiguration(int bankWidthBytes, arch::CacheConfig cacheConfig);

  /// Where the tools' text goes: the error stream, or the --log-file (PTXRAY_LOG_FILE).
  std::ostream &toolStream() { return err_; }
  /// How the tools' reports name kernels (--demangle).
  ptx::NameStyle names() const { return options_.names; }

private:
  const ProgramOptions options_;
  /// PTXRAY_LOG_FILE, open from the start (before err_, which refers to it).
  std::unique_ptr<std::ofstream> logFile_;
  std::ostream &err_;
  Instruments instruments_;
  SanitizerLog log_;
  AdviceSettings advice_;
  KernelAnalyses analyses_;
  /// Every launch's reports, each once (a kernel launched a thousand times reports a race once): the
  /// report shows one launch per kernel, and all of them.
  std::vector<ToolReport> reports_;
  std::optional<SessionRecorder> recorder_;
  size_t launches_ = 0;
  vm::Device *device_ = nullptr;
  bool modelRunning_ = true; ///< the model listens to the launch under way
  /// The modeled clock's system and the timeline of the session's first `simulatedOps_` operations.
  std::optional<system::SystemConfig> system_;
  std::optional<system::Timeline> simulated_;
  size_t simulatedOps_ = 0;
  /// The latest quiet point of the session (every operation before `checkpointOp_` complete when the
  /// host issues it): the timeline before it is final, so each new placement starts there, and a
  /// program that times each of many iterations costs each of them the same.
  size_t checkpointOp_ = 0;
  double checkpointSeconds_ = 0;
  std::vector<std::pair<unsigned, unsigned>> streamOrder_; ///< of the operations before the checkpoint
  std::set<std::pair<unsigned, unsigned>> streamsSeen_;
  /// The kernel filters, whether they selected the launch under way, the tools' counts before it (an
  /// unselected launch's are taken out of the summaries), and the model's profiles of the selected.
  KernelFilter filter_;
  bool selected_ = true;
  std::vector<ToolSummary> summariesBefore_;
  std::vector<size_t> keptProfiles_;
};

/// What a library serving a program (ptxray's CUDA libraries, its OpenCL platform) starts from: the
/// options the environment sets, the GPU they name and the tools made for it. Warnings go to `err`:
/// a value that does not parse, a GPU the database does not know (the default instead), a model
/// setting the GPU cannot take (dropped).
struct ProgramSetup {
  ProgramOptions options;
  arch::ArchTarget target;
  std::unique_ptr<ProgramTools> tools;
};
/// `modelOnRequest`: ProgramOptions::modelOnRequest (the front end asks for modeled launches).
ProgramSetup setUpProgram(std::ostream &err, bool modelOnRequest = false);

} // namespace ptxray::session
