// The guides' launch-configuration heuristics, checked against an occupancy result and reported as
// structured advice (kind, severity, message, source) for the CLI and the advisor to render.
#pragma once

#include "arch/OccupancyCalculator.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxray::arch {

/// Rules of thumb the guides give independently of the architecture.
struct GuideHeuristics {
  int minThreadsPerBlock = 64;                  ///< [BPG] §4.4
  int recommendedMinThreadsPerBlock = 128;      ///< [BPG] §4.4 "between 128 and 256"
  int recommendedMaxThreadsPerBlock = 256;      ///< [BPG] §4.4
  long long minGridBlocksToScale = 100;         ///< [BPG] §4.4 "in the hundreds"
  long long gridBlocksAcrossGenerations = 1000; ///< [BPG] §4.4 "thousands of blocks"
  double occupancyPlateau = 0.5;                ///< [BPG] §4.4, §4.5: no gain expected past 50%
};

enum class AdviceKind {
  LaunchFails,
  StaticSharedTooLarge,
  BlockNotWarpMultiple,
  BlockNotRegisterBankMultiple,
  BlockBelowMinimum,
  BlockOutsideRecommendedRange,
  SingleBlockPerSm,
  GridBelowSmCount,
  GridDoesNotFillGpu,
  GridTooSmallToScale,
  OccupancyTooLowForRegisterLatency,
  OccupancyPastPlateau,
  SharedOptInRequired,
  CarveoutIgnored,
};

enum class Severity { Info, Warning, Error };

struct Advice {
  AdviceKind kind;
  Severity severity;
  std::string message;
  std::string source; ///< guide and section the rule comes from
};

/// gridBlocks and smCount are optional: grid advice needs both.
std::vector<Advice> adviseLaunch(const ComputeCapability &cc, const OccupancyInput &input,
                                 const OccupancyResult &result, std::optional<long long> gridBlocks = std::nullopt,
                                 std::optional<int> smCount = std::nullopt, const GuideHeuristics &heuristics = {});

} // namespace ptxray::arch
