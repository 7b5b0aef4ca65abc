// The protocol between `ptxray exec` (or a user's shell) and ptxray's API libraries loaded into a
// program (the CUDA runtime and driver now, OpenCL next): what the program runs under travels in
// environment variables, named here once. ProgramOptions is their content; the command line writes
// it (toEnvironment) and the libraries read it (fromEnvironment), with the same names, formats and
// checks on both sides.
#pragma once

#include "ptx/Demangle.h"
#include "session/ModelSettings.h"
#include "session/Tools.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxray::session {

namespace env {
inline constexpr const char *kArch = "PTXRAY_ARCH";                        ///< the modeled GPU (default H100)
inline constexpr const char *kThreads = "PTXRAY_THREADS";                  ///< worker threads (default: all cores)
inline constexpr const char *kBoards = "PTXRAY_BOARDS";                    ///< boards of the GPU in the host
inline constexpr const char *kTool = "PTXRAY_TOOL";                        ///< sanitizers, comma-separated
inline constexpr const char *kRacecheckGlobal = "PTXRAY_RACECHECK_GLOBAL"; ///< "1": racecheck checks global memory
inline constexpr const char *kSanitizerJson = "PTXRAY_SANITIZER_JSON";     ///< FILE: the reports as JSON
inline constexpr const char *kMetricsJson = "PTXRAY_METRICS_JSON";         ///< FILE: the model's metrics
inline constexpr const char *kReport = "PTXRAY_REPORT"; ///< FILE: the advisor's report (.html, .json, text)
inline constexpr const char *kTimeline =
    "PTXRAY_TIMELINE"; ///< FILE[,FILE...] (\, for a comma in a name): the session's timeline
inline constexpr const char *kTrace =
    "PTXRAY_TRACE"; ///< FILE: the timeline in the Trace Event Format (Perfetto, chrome://tracing)
inline constexpr const char *kClock = "PTXRAY_CLOCK";        ///< the model's SM clock (ModelSettings::clock)
inline constexpr const char *kDlcm = "PTXRAY_DLCM";          ///< ca | cg
inline constexpr const char *kBankMode = "PTXRAY_BANK_MODE"; ///< 4 | 8
inline constexpr const char *kLog = "PTXRAY_LOG";            ///< api: trace every API call; procs: cuGetProcAddress too
inline constexpr const char *kModel = "PTXRAY_MODEL";        ///< off: no modeled clock (ProgramOptions::modelClock)
inline constexpr const char *kPtx = "PTXRAY_PTX";            ///< strict: refuse programs without runnable PTX
inline constexpr const char *kMaxInstructions = "PTXRAY_MAX_INSTRUCTIONS"; ///< budget per launch
/// The largest thread-instruction budget a launch may be given (--max-instructions,
/// PTXRAY_MAX_INSTRUCTIONS): weeks of the VM's time; larger values are refused, not taken as "none".
inline constexpr uint64_t kMaxInstructionBudget = 1'000'000'000'000'000ull;
/// The process's memory budget (support/MemoryBudget.h): bytes, K/M/G/T, or a percentage of the machine's.
inline constexpr const char *kMaxMemory = "PTXRAY_MAX_MEMORY";
/// compute-sanitizer's options, as `exec` passes them (docs/sanitizers.md).
inline constexpr const char *kPrintLimit = "PTXRAY_PRINT_LIMIT"; ///< reports printed at most (0: all)
inline constexpr const char *kLogFile = "PTXRAY_LOG_FILE";       ///< FILE: the tools' output (%p: the pid)
inline constexpr const char *kDemangle = "PTXRAY_DEMANGLE";      ///< full | simple | no: kernel names in reports
/// The launches the tools report on and the outputs keep (session/KernelFilter.h): filters
/// separated by commas ("\," in one), the skip and the count of matching launches.
inline constexpr const char *kKernelName = "PTXRAY_KERNEL_NAME";
inline constexpr const char *kKernelNameExclude = "PTXRAY_KERNEL_NAME_EXCLUDE";
inline constexpr const char *kLaunchSkip = "PTXRAY_LAUNCH_SKIP";
inline constexpr const char *kLaunchCount = "PTXRAY_LAUNCH_COUNT";
/// The descriptor `exec` reads the tools' error count from at the program's end (--error-exitcode).
inline constexpr const char *kErrorCountFd = "PTXRAY_ERROR_COUNT_FD";
inline constexpr const char *kCudaLibDir = "PTXRAY_CUDA_LIB_DIR";     ///< where `exec` finds the CUDA libraries
inline constexpr const char *kOpenCLLibDir = "PTXRAY_OPENCL_LIB_DIR"; ///< where `exec` finds libptxray-opencl.so
/// CUDA's own: Hyper-Q connections a program's streams are spread over.
inline constexpr const char *kMaxConnections = "CUDA_DEVICE_MAX_CONNECTIONS";
} // namespace env

/// What a program runs under.
struct ProgramOptions {
  std::string arch;          ///< "": kDefaultArch
  unsigned threads = 0;      ///< 0: all cores
  std::optional<int> boards; ///< 1 to system::kMaxBoards; unset: 1
  ToolSelection tools;       ///< sanitizers; `model` is set when an output needs the performance model
  ModelSettings model;
  std::string sanitizerJson;
  std::string metricsJson;
  std::string report;
  std::vector<std::string> timeline; ///< FILEs; "-": text on the error stream
  std::string trace;                 ///< FILE: the timeline for Perfetto and chrome://tracing
  bool logApi = false;
  /// PTXRAY_LOG=procs: also trace every cuGetProcAddress lookup (NVIDIA's static runtime makes
  /// hundreds at start-up, hidden from the API trace otherwise).
  bool logProcs = false;
  /// The program lives on the modeled GPU's clock (PTXRAY_MODEL, `exec --no-model` turns it off):
  /// the performance model times every launch and the system model places every stream operation
  /// as the timeline does, and events, %clock64 and %globaltimer read that clock. Off, the plain VM
  /// runs launches at full speed and events read the host's time of the simulation.
  bool modelClock = true;
  /// Refuse a program without PTX the modeled GPU could JIT, as the driver does. By default the
  /// oldest PTX runs instead (with a note), so that a program nvcc 13 built (compute_75 and newer
  /// only) can still be studied on a modeled Kepler or Maxwell GPU.
  bool strictPtx = false;
  uint64_t maxInstructions = 0;   ///< 0: the VM's default
  uint64_t maxMemory = 0;         ///< the memory budget in bytes; 0: the default (support::defaultMemoryBudget)
  std::optional<int> connections; ///< CUDA_DEVICE_MAX_CONNECTIONS
  /// compute-sanitizer's --print-limit: the tools' reports printed at most (memcheck's per launch,
  /// the others' over the program); the rest are counted in the summary. 0: every one.
  uint64_t printLimit = 100;
  /// compute-sanitizer's --log-file: the tools' text output goes there instead of the error stream;
  /// "%p" becomes the program's process id.
  std::string logFile;
  /// compute-sanitizer's --demangle: how the tools' reports name kernels.
  ptx::NameStyle names = ptx::NameStyle::Full;
  /// compute-sanitizer's --kernel-name/--kernel-name-exclude and ncu's -k, --launch-skip,
  /// --launch-count: the launches the tools report on and --report and --metrics-json keep (the
  /// timeline and the program's clock have every launch).
  std::vector<std::string> kernelNames, kernelNamesExclude;
  uint64_t launchSkip = 0, launchCount = 0;
  /// Where the program writes how many errors its tools found, when `exec --error-exitcode` waits
  /// for it (a descriptor `exec` made); -1: nowhere.
  int errorCountFd = -1;
  /// Not an environment setting: the front end wants modeled kernel times for some launches of its
  /// own choosing (OpenCL's profiling queues) even when no output needs the model
  /// (ProgramTools::beforeLaunch); the other launches run the plain VM.
  bool modelOnRequest = false;

  /// Whether an output needs the performance model.
  bool needsModel() const {
    return modelClock || !metricsJson.empty() || !report.empty() || !timeline.empty() || !trace.empty();
  }

  /// Reads the variables. Values that do not parse are left at their defaults, each with a line in
  /// `warnings` ("PTXRAY_BOARDS: \"x\" is not 1 to 16; 1 board").
  static ProgramOptions fromEnvironment(std::vector<std::string> &warnings);
  /// Sets the variables of the options given (those not at their defaults) for a program this process
  /// is about to become: the command line overrides the environment, and what it leaves out stays
  /// as the caller's environment has it. Files become absolute paths.
  void toEnvironment() const;

  /// The GPU a program sees when PTXRAY_ARCH does not say.
  static constexpr const char *kDefaultArch = "h100";
  const std::string &archOrDefault() const {
    static const std::string &fallback = *new std::string(kDefaultArch); // never destroyed: read at exit too
    return arch.empty() ? fallback : arch;
  }
};

/// CUDA_DEVICE_MAX_CONNECTIONS, when set to a number.
std::optional<int> hyperQConnectionsFromEnvironment();

} // namespace ptxray::session
