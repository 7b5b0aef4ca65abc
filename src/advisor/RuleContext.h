// What every rule family sees: the input, the architecture, the thresholds, the launch's source
// lines, and the helpers that turn counts into findings (a finding pre-filled from the catalogue,
// the gain of a what-if on the time model, the PTX instruction behind a profile entry).
#pragma once

#include "advisor/Advisor.h"
#include "advisor/Vocabulary.h"
#include "model/Metrics.h"
#include "ptx/LineTable.h"

#include <functional>
#include <optional>

namespace ptxray::advisor {

class RuleContext {
public:
  RuleContext(const AnalysisInput &input, const AdvisorOptions &options);

  const AnalysisInput &input;
  const AdvisorOptions &options;
  const Thresholds &t;
  const arch::ComputeCapability &cc;
  const model::LaunchProfile *launch;    ///< nullptr in static analysis
  const Vocabulary &words;               ///< the kernel's language's (CUDA or OpenCL C)
  std::vector<model::LineProfile> lines; ///< the launch's source lines (empty in static analysis)
  const ptx::Function *kernel = nullptr;
  std::vector<const ptx::Function *> functions; ///< the kernel and every function it calls, transitively
  std::optional<ptx::LineTable> lineTable;

  /// One instruction the instruction rules look at: with a launch, every instruction that ran (with
  /// its counts); without, every instruction of the kernel and its callees, counted once.
  struct Site {
    const ptx::Function *function = nullptr;
    uint32_t index = 0;
    const model::InstructionProfile *profile = nullptr; ///< null in static analysis
    uint64_t executions = 1;                            ///< warp executions (1 in static analysis)
    const ptx::Instruction &instruction() const { return function->instructions[index]; }
  };
  std::vector<Site> sites;

  /// A finding of `rule` with priority, category and guide section from the catalogue.
  Finding make(std::string_view rule) const;
  /// Seconds the launch would save if `change` applied to its time-model inputs (0 without a launch).
  double gain(const std::function<void(model::TimeInputs &)> &change) const;
  /// Sets gainSeconds and gainFraction.
  void setGain(Finding &f, double seconds) const;
  /// The PTX instruction a profile entry counts.
  const ptx::Instruction &instruction(const model::InstructionProfile &p) const;
  const ptx::Function &function(const model::InstructionProfile &p) const;
  /// A source reference for a line: the PTX position and text of the line's instruction with the
  /// largest `key` (its first instruction without a key or when every key is 0).
  SourceRef ref(const model::LineProfile &line, std::string evidence, double weight,
                const std::function<uint64_t(const model::InstructionCounters &)> &key = {}) const;
  SourceRef ref(const model::InstructionProfile &p, std::string evidence, double weight) const;
  SourceRef ref(const Site &site, std::string evidence, double weight) const;
  /// The innermost source position of a site ("" and 0 without line information).
  std::pair<std::string, uint32_t> sourceOf(const Site &site) const;
  /// Keeps the heaviest `options.maxLinesPerFinding` references, heaviest first.
  void trim(std::vector<SourceRef> &refs) const;
  /// The launch's total warp instructions (1 in static analysis, to avoid dividing by zero).
  double warpInstructions() const;
};

/// "1.23x", "45.6%", byte counts with units: the advisor's number formats.
std::string bytes(double b);
std::string percent(double fraction);

void memoryRules(const RuleContext &ctx, std::vector<Finding> &out);
void configurationRules(const RuleContext &ctx, std::vector<Finding> &out);
void instructionRules(const RuleContext &ctx, std::vector<Finding> &out);
void controlFlowRules(const RuleContext &ctx, std::vector<Finding> &out);
void abiRules(const RuleContext &ctx, std::vector<Finding> &out);
void launchTreeRules(const RuleContext &ctx, std::vector<Finding> &out);

} // namespace ptxray::advisor
