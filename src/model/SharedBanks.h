// Shared-memory bank conflicts and constant-cache serialization for one warp-wide access (OpenCL
// Best Practices Guide §3.2.2.1 and §3.2.5, Kepler Tuning Guide §1.4.3.1, CUDA Programming Guide
// shared-memory sections per compute capability, Nsight Compute's wavefront counting on 5.0+).
// Bank counts, widths and request granularity come from arch::SharedMemoryBanks.
#pragma once

#include "arch/ComputeCapability.h"
#include "model/WarpAccess.h"

namespace ptxray::model {

struct SharedCost {
  uint32_t requests = 0;        ///< per half-warp on 1.x, per warp after; times the separate accesses a
                                ///< wide access is split into (32-bit on 1.x, 128-bit after)
  uint32_t wavefronts = 0;      ///< transactions / wavefronts the banks need to serve the access
  uint32_t idealWavefronts = 0; ///< the same bytes without any conflict
  uint32_t bankConflicts() const { return wavefronts - idealWavefronts; }
};

/// Cost of a shared-memory access. `bankWidthBytes` is Kepler's bank mode (4 or 8); 0 means the
/// architecture's default, as does a width the architecture cannot select. The rules per family are
/// described in SharedBanks.cpp.
SharedCost sharedAccessCost(const arch::ComputeCapability &cc, const WarpAccess &access, int bankWidthBytes = 0);

struct ConstantCost {
  uint32_t requests = 0;     ///< per half-warp on 1.x, per warp after
  uint32_t transactions = 0; ///< one per distinct address (lane start address) within a request:
                             ///< divergent addresses serialize
};

/// Cost of a constant-memory (or kernel-parameter) read.
ConstantCost constantAccessCost(const arch::ComputeCapability &cc, const WarpAccess &access);

} // namespace ptxray::model
