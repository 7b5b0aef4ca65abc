// The advisor: rules that read the performance model's counts for one launch (or, without a launch,
// the kernel's PTX and resources) and return ranked findings tied to source lines. Each rule comes
// from a section of the guides, keeps its priority, states its evidence in numbers, estimates the
// gain by re-running the time model with the problem removed, and says what to change.
#pragma once

#include "advisor/Finding.h"
#include "advisor/Vocabulary.h"
#include "arch/GpuDatabase.h"
#include "model/PerformanceModel.h"
#include "ptx/Ir.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::advisor {

/// When a rule speaks up. Defaults are documented in docs/advisor.md; `--threshold NAME=VALUE`.
struct Thresholds {
  double minLineShare = 0.01;         ///< lines below this share of the launch's cost stay silent
  double uncoalescedRatio = 1.25;     ///< global transactions over the ideal count
  double redundancyFactor = 4;        ///< sector requests per distinct sector within a CTA
  double bankConflictRatio = 1.25;    ///< shared wavefronts over the ideal count
  double constantSerialization = 1.5; ///< constant transactions per request
  double atomicContention = 0.2;      ///< share of the launch's time its atomics spend serialized in L2
  double localShare = 0.01;           ///< local transactions over all global and local transactions
  double divergentBranchShare = 0.05; ///< divergent executions over all executions of a branch
  double divergenceMinGain = 0.01;    ///< with a launch, divergent branches need this estimated gain
  double warpEfficiency = 0.8;        ///< active lanes over 32 per warp instruction
  double occupancyPlateau = 0.5;      ///< [BPG] §4.4, §4.5: beyond this no gain is expected
  double minBlockThreads = 64;        ///< [BPG] §4.4: at least 64 threads per block
  double recommendedBlockMin = 128;   ///< [BPG] §4.4: "between 128 and 256 threads per block"
  double recommendedBlockMax = 256;   ///< [BPG] §4.4
  double gridBlocksToScale = 100;     ///< [BPG] §4.4: blocks per launch "in the hundreds" to scale
  double tailWaveShare = 0.5;         ///< a last wave below this share of a full wave is a tail
  double tailWaveIdle = 0.1;          ///< ... when it idles at least this share of the launch's SM time
  double keplerIlp = 2;               ///< independent instructions per dependency step the hot code needs on Kepler
  double fp64Share = 0.05;            ///< fp64 warp instructions over all, on slow-fp64 GPUs
  double instructionShare = 0.01;     ///< instruction findings ignore lines below this share
  double instructionMinGain = 0.01;   ///< with a launch, instruction findings need this estimated gain
  double minGainFraction = 0;         ///< findings expected to save less than this share are dropped
};

struct ThresholdInfo {
  std::string_view name;
  double Thresholds::*member;
  std::string_view meaning;
};
std::span<const ThresholdInfo> thresholdInfos();

struct AdvisorOptions {
  Thresholds thresholds;
  std::vector<std::string> only;   ///< rule ids to keep (empty: all)
  std::vector<std::string> ignore; ///< rule ids to drop
  size_t maxLinesPerFinding = 5;
};

/// A correctness problem a sanitizer found in the launch (racecheck, synccheck, initcheck, leakcheck),
/// handed to the advisor so that it ranks with the performance findings.
struct CorrectnessReport {
  std::string rule;  ///< race-hazard, sync-hazard, uninitialized-read or memory-leak
  bool error = true; ///< false: a warning (an intra-warp hazard before sm_70, say)
  std::string headline;
  std::vector<std::string> details;
  uint64_t occurrences = 0;
  std::vector<SourceRef> lines; ///< the instructions involved, the reporting one first
};

/// What a rule reads.
struct AnalysisInput {
  arch::ArchTarget target;
  const ptx::Module *module = nullptr;
  std::string kernel;                           ///< PTX name of the kernel
  const model::LaunchProfile *launch = nullptr; ///< nullptr: static analysis of the kernel alone
  model::ModelOptions modelOptions;             ///< the options the launch was modeled with
  int registersPerThread = 0;                   ///< static analysis: the kernel's registers
  std::vector<CorrectnessReport> hazards;       ///< from the sanitizers, when they ran
};

/// The catalogue: every rule's stable id, priority, category, guide section and whether it needs a
/// launch (a rule that reads counts) or also runs on the PTX alone.
struct RuleInfo {
  std::string_view id;
  Priority priority;
  Category category;
  std::string_view guide;
  std::string_view summary;
  bool needsLaunch;
};
std::span<const RuleInfo> rules();
const RuleInfo *findRule(std::string_view id);
/// The catalogue's entry of a rule that makes findings; throws std::logic_error for an id that is
/// not there (a misspelling in the code, never user input).
const RuleInfo &catalogued(std::string_view id);
/// A finding of `rule` with its priority, category and guide section from the catalogue (throws as
/// catalogued() does for an id that is not there).
Finding findingOf(std::string_view rule);

/// A finding per correctness report (priority high for errors, medium for warnings).
std::vector<Finding> correctnessFindings(const std::vector<CorrectnessReport> &reports,
                                         SourceLanguage language = SourceLanguage::Cuda);

/// Orders findings by priority, then by estimated gain, then by rule id (what advise() returns).
void rankFindings(std::vector<Finding> &findings);

/// Every finding for the input, ordered by priority, then by estimated gain, then by rule id.
/// Throws std::invalid_argument for an unknown id in `only`/`ignore`.
std::vector<Finding> advise(const AnalysisInput &input, const AdvisorOptions &options = {});

} // namespace ptxray::advisor
