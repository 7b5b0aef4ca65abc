// The model's counts under the names programmers know: Nsight Compute's for CC >= 5.0 where one
// exists (l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum, ...), nvprof's for every compute capability
// (gld_transactions, shared_efficiency, ...), and ptxray__ names for what neither tool counts.
// docs/metrics.md defines each: unit, compute capabilities and how it is computed.
#pragma once

#include "model/PerformanceModel.h"

#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ptxray::model {

using MetricList = std::vector<std::pair<std::string, double>>;

/// Counts of a set of instructions (a launch, a source line, one instruction), split the way the
/// metrics need them.
struct MetricInputs {
  InstructionCounters loads, stores, atomics, other, all;
  std::array<uint64_t, kInstructionClasses> threadsByClass{}; ///< non-predicated-off threads per class
  uint64_t sharedLoadInstructions = 0;                        ///< warp executions of shared loads
  uint64_t sharedStoreInstructions = 0;                       ///< warp executions of shared stores

  void add(const InstructionProfile &p);
};

/// Metrics of a set of instructions.
MetricList metricsOf(const MetricInputs &in);
/// Every metric of a launch: metricsOf() of all its instructions, plus occupancy and time.
MetricList launchMetrics(const LaunchProfile &launch);

/// A CUDA source line's instructions (innermost position; instructions without line information
/// are grouped under an empty file and line 0).
struct LineProfile {
  std::string file;
  uint32_t line = 0;
  MetricInputs inputs;
  std::vector<const InstructionProfile *> instructions;
};
std::vector<LineProfile> lineProfiles(const LaunchProfile &launch);

/// Issue cost of a set of instructions used to rank lines and instructions: warp instructions plus
/// the memory transactions (global, local, texture, surface), wavefronts and serialized constant
/// reads they cause.
uint64_t hotness(const InstructionCounters &c);

} // namespace ptxray::model
