// A kernel launch as a session operation: the performance model's time estimate, and the launch's
// share of the GPU. Shared by run specs' sessions and programs' recorded sessions.
#pragma once

#include "model/PerformanceModel.h"
#include "system/Session.h"

namespace ptxray::system {

/// A launch as a session operation: the model's time estimate, and its share of the GPU (blocks over
/// what the GPU's `smCount` SMs hold at once at the launch's occupancy, at most 1).
SessionOp kernelOperation(const model::LaunchProfile &profile, unsigned stream, int smCount);

} // namespace ptxray::system
