// Runs the CTAs of a launch: each CTA's warps in turn on one worker until they finish, wait at a
// barrier, or the launch stops.
#pragma once

#include "vm/Exec.h"

namespace ptxray::vm {

/// Runs one CTA to completion (or until the launch aborts) on `worker`.
void runCta(LaunchState &launch, uint64_t linearCtaId, unsigned worker);

} // namespace ptxray::vm
