// SIMT reconvergence points: the immediate post-dominator of each branch's block, where the paths a
// divergent branch splits a warp into meet again.
#pragma once

#include "ptx/Ir.h"

#include <cstdint>
#include <vector>

namespace ptxray::vm {

/// For every instruction of `fn`: the instruction where paths leaving its block reconverge (the
/// first instruction of the block's immediate post-dominator), or ptx::kNone when they only meet at
/// function exit.
std::vector<uint32_t> reconvergencePoints(const ptx::Module &module, const ptx::Function &fn);

} // namespace ptxray::vm
