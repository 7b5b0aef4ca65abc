// Global (and local) memory coalescing: how the modeled GPU turns one warp-wide access into memory
// requests and transactions, per compute capability (OpenCL Best Practices Guide §3.2.1, Kepler
// Tuning Guide §1.4.4, CUDA Programming Guide "Compute Capabilities" global-memory sections, and
// Nsight Compute's request/sector counting for CC >= 5.0). Every size comes from
// arch::GlobalMemoryRules.
#pragma once

#include "arch/ComputeCapability.h"
#include "model/WarpAccess.h"

namespace ptxray::model {

/// The path a global access takes through the cache hierarchy (decided per instruction from the
/// arch, the cache operator, `.nc` and the user's -dlcm choice).
enum class GlobalPath : uint8_t {
  Uncached, ///< CC 1.x: straight to DRAM, segment transactions
  L1,       ///< cached in L1: 128-byte lines (CC 2.x, 3.x opt-in; 32-byte sectors of 128-byte lines on 5.0+)
  L2,       ///< L2 only (-dlcm=cg, Kepler's default, every store): 32-byte segments
  ReadOnly, ///< ld.global.nc / __ldg through the read-only (texture) cache, CC 3.5+: 32-byte segments
};

/// What one warp-wide access costs.
struct GlobalCost {
  uint32_t requests = 0;       ///< requests issued: per half-warp on 1.x; per warp, or per half/quarter warp
                               ///< for 64/128-bit accesses on 2.x-3.x; one per instruction on 5.0+
  uint32_t transactions = 0;   ///< memory transactions (1.x-3.x) or 32-byte sectors (5.0+)
  uint64_t bytesMoved = 0;     ///< bytes those transactions move
  uint64_t bytesRequested = 0; ///< bytes the active lanes asked for (popcount(mask) x bytesPerLane)
  /// Fewest transactions that could move the requested bytes: per request, what this hardware issues
  /// when the same number of active lanes read consecutive words from an aligned boundary, i.e.
  /// ceil(active x bytesPerLane / granularity) with granularity the 1.2/1.3 segment for the word size,
  /// the 128-byte line (2.x/3.x L1 loads) or the 32-byte segment/sector (everything else); on 1.0/1.1
  /// the coalesced 1 (2 for 16-byte words) per half-warp, or one per lane for uncoalescible 1/2-byte
  /// words. Lanes sharing addresses (broadcast) can need fewer transactions than this.
  uint32_t idealTransactions = 0;
};

/// Cost of `access` on `cc` along `path`.
GlobalCost globalAccessCost(const arch::ComputeCapability &cc, const WarpAccess &access, GlobalPath path);

/// The shape of a warp-wide access, from its active lanes' addresses in lane order (lanes without
/// an access skipped; the stride is per lane index, so lanes 0 and 2 at 8 bytes apart are 4 apart).
enum class AccessPattern : uint8_t {
  UnitStride, ///< consecutive lanes at consecutive elements (|stride| = bytes per lane), aligned
  Misaligned, ///< unit stride, but the lanes' span starts off a transaction boundary and needs one
              ///< transaction more than the same span from a boundary
  Strided,    ///< a constant stride wider than the access
  Broadcast,  ///< every active lane at one address (also a single active lane)
  Scattered,  ///< anything else: no constant stride, or one narrower than the access
};

struct AccessShape {
  AccessPattern pattern = AccessPattern::Scattered;
  uint64_t strideBytes = 0; ///< |lane-to-lane stride| when the stride is constant
};

/// Classifies `access` (at least one active lane). The transaction boundary of Misaligned is the
/// block the coalescing rules of `cc` fetch along `path`: the 32-byte sector from CC 5.0, the 128-byte
/// L1 line or 32-byte segment on 2.x/3.x, the segment of the word size on 1.2/1.3 and the half-warp's
/// 16-word segment on 1.0/1.1.
AccessShape classifyAccess(const arch::ComputeCapability &cc, const WarpAccess &access, GlobalPath path);

} // namespace ptxray::model
