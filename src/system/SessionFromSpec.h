// A run spec's host operations as a session: copies and memsets with their bytes and host memory,
// launches with the performance model's duration and their share of the GPU.
#pragma once

#include "model/PerformanceModel.h"
#include "system/Session.h"
#include "vm/host/RunSpec.h"

#include <span>

namespace ptxray::system {

/// A launch as a session operation: the model's time estimate, and its share of the GPU (blocks over
/// what the GPU's `smCount` SMs hold at once at the launch's occupancy, at most 1).
SessionOp kernelOperation(const model::LaunchProfile &profile, unsigned stream, int smCount);

/// profiles[i] is the model's profile of spec.launches[i]. The session ends before the first launch
/// without one (a run that stopped at a failed launch). `smCount` is the modeled GPU's.
Session sessionFromSpec(const vm::RunSpec &spec, std::span<const model::LaunchProfile> profiles, int smCount);

} // namespace ptxray::system
