// What the memory models see of one warp-wide memory instruction, independent of the VM's event
// types: which lanes access, at which addresses, how many bytes each. The models are pure functions
// of this and the architecture, so they are tested against the guides' worked examples directly.
#pragma once

#include <array>
#include <cstdint>

namespace ptxray::model {

inline constexpr int kLanes = 32;

/// Lanes in a mask. Spelled out: std::popcount becomes a library call without -mpopcnt, and the
/// model counts lanes several times per warp event.
constexpr uint32_t laneCount(uint32_t mask) {
  mask = mask - ((mask >> 1) & 0x55555555u);
  mask = (mask & 0x33333333u) + ((mask >> 2) & 0x33333333u);
  return (((mask + (mask >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
}
static_assert(laneCount(0) == 0 && laneCount(0xFFFFFFFFu) == 32 && laneCount(0x80000001u) == 2 &&
              laneCount(0x0F0F00F0u) == 12);

struct WarpAccess {
  uint32_t mask = 0;                        ///< lanes that access memory
  std::array<uint64_t, kLanes> addresses{}; ///< per lane (state-space addresses; lanes outside mask ignored)
  uint32_t bytesPerLane = 4;                ///< element width x vector count: 1, 2, 4, 8, 16 (or 32)
  bool isStore = false;                     ///< stores (and reductions/atomics) vs loads
};

} // namespace ptxray::model
