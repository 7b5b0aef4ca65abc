// A run spec run with tools listening, and what their results become: the one pipeline behind
// `ptxray run`, `analyze`, `compare` and `timeline`. The front end says what it wants (tools, model,
// advice, the session on the modeled system) and how to show each launch; the pipeline wires the
// listeners, reports the sanitizers' findings in compute-sanitizer's style, advises on each launch
// while its module is alive, and places the session in time.
#pragma once

#include "session/Analyses.h"
#include "session/KernelFilter.h"
#include "session/Outputs.h"
#include "session/RunSpec.h"
#include "session/Tools.h"

#include "ptx/Demangle.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <ostream>
#include <vector>

namespace ptxray::session {

/// Where a front end's output goes: the program's (device printf) and the diagnostics'.
struct Console {
  std::ostream &out;
  std::ostream &err;
  ptx::NameStyle names = ptx::NameStyle::Full; ///< how reports name kernels (compute-sanitizer's --demangle)
};

struct RunRequest {
  arch::ArchTarget target = RunOptions::defaultTarget();
  ToolSelection tools;
  vm::LaunchOptions launch;
  std::string keepPtxDirectory;
  bool writeOutputs = true;
  /// Print the sanitizers' reports and summaries (compute-sanitizer's style) and keep them as JSON;
  /// false: they only become findings (`analyze --check`).
  bool reportTools = true;
  /// Advise on every launch that completes (`analyze`): RunResult::analyses.
  std::optional<AdviceSettings> advice;
  /// Place the spec's session in time on the modeled system: when it has host operations beyond
  /// its launches (`analyze`), or always (`timeline`).
  enum class Session : uint8_t { Never, WhenSpecHasOne, Always } session = Session::Never;
  /// The modeled host; what is unset comes from the spec's "host", then the GPU's entry.
  system::SystemOptions system;
  /// The launches the tools report on, advice covers and the model's outputs keep (-k, -s, -c, as
  /// ncu and compute-sanitizer select them). The others still run, print and fail as they do; the
  /// session (a timeline) has them all.
  KernelFilter filter;
  /// The tools print at most this many reports and count the rest (0: all; compute-sanitizer's
  /// --print-limit). Memcheck's per-launch limit is LaunchOptions::maxFaults.
  uint64_t printLimit = 0;
};

/// One launch as it ends, for the front end to show.
struct LaunchEvent {
  const LaunchReport &report;
  const model::LaunchProfile *profile = nullptr; ///< the model's, when it ran the launch
  const report::Analysis *analysis = nullptr;    ///< RunRequest::advice, for a launch that completed
  /// Whether RunRequest::filter selected it (else `profile` and `analysis` are null: show only what
  /// the kernel printed and whether it failed).
  bool selected = true;
};

struct RunResult {
  RunOutcome outcome;
  std::vector<report::Analysis> analyses;
  std::optional<SimulatedSession> session;
  std::vector<model::LaunchProfile> profiles; ///< the model's, of every launch it ran
  /// The profiles of the launches RunRequest::filter selected (all of `profiles` without a filter):
  /// what --metrics-json writes.
  std::vector<model::LaunchProfile> selectedProfiles;
  bool toolErrors = false;          ///< a sanitizer reported an error
  nlohmann::json sanitizerDocument; ///< schema ptxray-sanitizers (RunRequest::reportTools)
  /// 0: every launch succeeded and no tool found an error; 1 otherwise.
  int status() const { return outcome.ok() && !toolErrors ? 0 : 1; }
};

/// Whether a spec is a session: host operations beyond a plain list of launches on one stream.
bool hasHostOperations(const RunSpec &spec);
/// The modeled host of a spec: `overrides` first, then the spec's "host", then
/// CUDA_DEVICE_MAX_CONNECTIONS for the Hyper-Q connections.
system::SystemOptions systemOptions(const RunSpec &spec, const system::SystemOptions &overrides);

/// Runs `spec` as asked; `onLaunch` (may be empty) after each launch, after its sanitizer reports.
/// At the end, on the error stream: what stopped the run early ("ptxray: error: ..."), that outputs
/// were not written, then the tools' summaries. Throws what runSpec throws (SpecError, vm::VmError)
/// before the first launch, std::invalid_argument for a host the system model cannot build.
RunResult runInstrumented(const RunSpec &spec, const RunRequest &request, Console console,
                          const std::function<void(const LaunchEvent &)> &onLaunch = {});

/// What a kernel printed: device printf on `out` (unless `quietPrintf`), failed assertions and the
/// fault reports on `err`. What every front end shows of a launch, a CUDA program's included.
void printDeviceOutput(const vm::LaunchResult &result, Console console, bool quietPrintf = false);

/// A launch's own output as ptxray's commands show it: device printf on `out` (unless `quietPrintf`),
/// failed assertions, faults and the launch's error on `err`. With memcheck, an ERROR SUMMARY line
/// of the launch's faults.
void printLaunchOutcome(const LaunchReport &report, Console console, bool quietPrintf = false,
                        std::optional<size_t> memcheckFaultLimit = std::nullopt);

} // namespace ptxray::session
