// A run spec's host operations as a session: copies and memsets with their bytes and host memory,
// launches with the performance model's duration and their share of the GPU.
#pragma once

#include "model/PerformanceModel.h"
#include "session/RunSpec.h"
#include "system/Session.h"

#include <span>

namespace ptxray::session {

/// profiles[i] is the model's profile of spec.launches[i]. The session ends before the first launch
/// without one (a run that stopped at a failed launch). `smCount` is the modeled GPU's.
system::Session sessionFromSpec(const RunSpec &spec, std::span<const model::LaunchProfile> profiles, int smCount);

} // namespace ptxray::session
