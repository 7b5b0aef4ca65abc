// Turning a warp's addresses into host pointers, with the bounds, alignment and permission checks
// of a memory checker. One call handles all 32 lanes; the common case (every lane in one allocation
// or window) costs a compare per lane.
#pragma once

#include "vm/Exec.h"

namespace ptxray::vm {

struct WarpAccess {
  uint64_t addresses[kWarpSize]; ///< state-space addresses (generic ones after resolution)
  std::byte *host[kWarpSize];
  Space space = Space::Global; ///< resolved space (of the first lane for generic accesses)
  uint32_t mask = 0;           ///< lanes that passed the checks
};

/// Addresses of `op`'s memory operand for the lanes in `mask`.
void computeAddresses(ExecContext &ctx, const MicroOp &op, uint32_t mask, uint64_t *addresses);

/// Checks and translates the accesses of `mask` lanes, `bytes` per lane aligned to `align`. Lanes
/// that fail are reported (and in memcheck mode skipped); the rest are in `access.mask`.
/// What an access of `bytes` at `address` missed (no allocation, past one's end, a freed one), in words.
std::string describeMiss(const DeviceMemory &memory, uint64_t address, uint64_t bytes);

void translate(ExecContext &ctx, Space space, uint32_t mask, uint32_t bytes, uint32_t align, bool write,
               WarpAccess &access);

/// Tells the listener about a warp-wide access (call only when ctx.listener is set).
/// `synchronization`: the access is an mbarrier object's own word (MemoryEvent::isSynchronization).
void emitMemoryEvent(ExecContext &ctx, const MicroOp &op, MemoryOp kind, const WarpAccess &access, uint8_t width,
                     uint8_t vec, bool synchronization = false);

} // namespace ptxray::vm
