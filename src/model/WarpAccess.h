// What the memory models see of one warp-wide memory instruction, independent of the VM's event
// types: which lanes access, at which addresses, how many bytes each. The models are pure functions
// of this and the architecture, so they are tested against the guides' worked examples directly.
#pragma once

#include <array>
#include <cstdint>

namespace ptxray::model {

inline constexpr int kLanes = 32;

struct WarpAccess {
  uint32_t mask = 0;                        ///< lanes that access memory
  std::array<uint64_t, kLanes> addresses{}; ///< per lane (state-space addresses; lanes outside mask ignored)
  uint32_t bytesPerLane = 4;                ///< element width x vector count: 1, 2, 4, 8, 16 (or 32)
  bool isStore = false;                     ///< stores (and reductions/atomics) vs loads
};

} // namespace ptxray::model
