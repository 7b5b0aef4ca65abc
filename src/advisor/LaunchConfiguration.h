// The guides' launch-configuration rules ([BPG] chapter 4, [Kepler] 1.4.1): occupancy and what limits
// it, block shape, grid size, shared memory per block. One set of rules over what the occupancy
// calculator knows of a launch (its block, resources and grid): `ptxray occupancy` shows them for the
// calculator's inputs, and `ptxray analyze` runs the same rules on a launch that ran
// (ConfigurationRules.cpp), adding the gain the time model expects from each fix. Their thresholds
// (the 50% plateau, the guides' block and grid sizes) are the advisor's Thresholds; their priorities
// the advisor's catalogue.
#pragma once

#include "advisor/Advisor.h"
#include "advisor/Vocabulary.h"
#include "arch/OccupancyCalculator.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxray::advisor {

/// A launch as the occupancy calculator sees it.
struct ConfigurationView {
  const arch::ComputeCapability *cc = nullptr;
  arch::OccupancyInput input;
  arch::OccupancyResult result;                   ///< arch::computeOccupancy(*cc, input)
  std::optional<uint64_t> gridBlocks;             ///< the grid, when known
  int smCount = 0;                                ///< the GPU's multiprocessors (0: unknown: no grid rules)
  std::string gpu;                                ///< the GPU's name, for messages
  SourceLanguage language = SourceLanguage::Cuda; ///< the kernel's: what the fixes call things
};

/// Which rules apply: the calculator's view adds its notes (occupancy past the plateau, block sizes
/// outside the recommended range); a launch that ran is judged by the time model instead.
enum class ConfigurationScope : uint8_t { Calculator, Launch };

/// The findings of the launch-configuration rules, unranked and without gains.
std::vector<Finding> adviseConfiguration(const ConfigurationView &config, const Thresholds &thresholds,
                                         ConfigurationScope scope);

/// A change of one resource that raises occupancy, and the occupancy it gives: the fix of
/// occupancy-limited (the calculator re-run with the changed resource).
struct OccupancyLift {
  std::string change;
  arch::OccupancyResult result;
};
std::optional<OccupancyLift> bestOccupancyLift(const ConfigurationView &config);

} // namespace ptxray::advisor
