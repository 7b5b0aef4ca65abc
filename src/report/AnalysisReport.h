// The views of `ptxray analyze`: a summary of the launch on the modeled GPU (time estimate and its
// dominant bound, occupancy and its limiter, effective vs theoretical bandwidth), the advisor's
// findings with their source lines, and per-line views in the spirit of llvm-mca's (memory, shared
// memory, divergence, instruction mix, hot lines) — as text, as a versioned JSON document, and as one
// self-contained HTML page with an annotated source view.
#pragma once

#include "advisor/Finding.h"
#include "arch/GpuDatabase.h"
#include "arch/OccupancyCalculator.h"
#include "model/PerformanceModel.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptxray::report {

/// What is known about a kernel without running it.
struct KernelStatic {
  std::string kernel;    ///< PTX name
  std::string demangled; ///< C++ name
  int registers = 0;
  std::string registerSource; ///< where the register count came from
  uint64_t staticSharedBytes = 0;
  uint64_t localBytesPerThread = 0; ///< the kernel's .local variables (stack frame)
  /// Theoretical occupancy per block size (warp multiples up to the block limit).
  std::vector<std::pair<int, arch::OccupancyResult>> occupancyByBlockSize;
};

/// A launch the GPU would not start (a block too large for it, more shared memory than it has): what
/// `compare` shows in that GPU's column instead of ending the comparison.
struct LaunchRefusal {
  std::string kernel;    ///< PTX name
  std::string demangled; ///< C++ name
  std::string reason;    ///< the driver's words (vm::LaunchResult::error)
};

/// One analysed kernel: a launch (with the model's profile), the kernel alone, or a launch the GPU
/// refused (`refusal`: no profile, no findings).
struct Analysis {
  arch::ArchTarget target;
  /// The model's profile of the launch (its module pointer cleared: the module does not outlive the
  /// run); shared, so that analyses copy cheaply (compare puts them side by side).
  std::shared_ptr<const model::LaunchProfile> launch;
  std::optional<KernelStatic> kernelStatic; ///< set when there is no launch
  std::optional<LaunchRefusal> refusal;     ///< set when the GPU refused the launch
  std::vector<advisor::Finding> findings;
  /// Where to look for a source file the PTX names by a path that does not exist here (nvcc records
  /// the absolute path it compiled): the file's name in each of these directories.
  std::vector<std::string> sourceDirs;
};

struct TextStyle {
  bool color = false;       ///< ANSI colours (a terminal)
  bool quiet = false;       ///< summary and findings only
  bool verbose = false;     ///< every line in every view, and the time model's explanation
  size_t sourceContext = 1; ///< source lines shown before and after a finding's line
};

std::string analysisText(const Analysis &analysis, const TextStyle &style);

/// {"schema": "ptxray-analysis", "version": 1, "analyses": [...]}; docs/advisor.md describes it.
nlohmann::json analysisJson(const std::vector<Analysis> &analyses);
inline constexpr int kAnalysisSchemaVersion = 1;

/// One standalone page: per analysis the summary, the findings, the per-line views and the occupancy
/// charts; then each source file the launches ran, once, annotated with a column group per launch
/// (its counts per line; the row's heat from the hottest of them).
std::string analysisHtml(const std::vector<Analysis> &analyses);

/// The same launch on several GPUs, side by side (`ptxray compare`): a row per quantity, a column
/// per GPU, then the findings that differ between them.
std::string compareText(const std::vector<Analysis> &analyses, const TextStyle &style);
nlohmann::json compareJson(const std::vector<Analysis> &analyses);
/// One standalone page for `compare --html`: per launch (an entry of `comparisons`, an analysis per
/// GPU) the side-by-side table and the findings by GPU, then each GPU's details as analysisHtml shows
/// them; the annotated source once per file at the end. A GPU that refused a launch says so in its
/// column.
std::string compareHtml(const std::vector<std::vector<Analysis>> &comparisons);
/// The side-by-side table as CSV (`compare --csv`), quoted as ncu quotes: the header ("ID", "Kernel
/// Name", "Quantity", then one column per GPU), then a launch's rows (its index `id`), the findings'
/// rule ids last.
std::string compareCsvHeader(const std::vector<Analysis> &analyses);
std::string compareCsvRows(const std::vector<Analysis> &analyses, size_t id);

} // namespace ptxray::report
