// What the model counts for one PTX instruction (summed over every warp that executed it). Plain
// integers, so that per-worker copies merge by addition and every metric is derived afterwards.
// docs/metrics.md defines the metrics built from them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace ptxray::model {

struct InstructionCounters {
  // Execution (every warp-level execution of the instruction).
  uint64_t warpExecuted = 0;        ///< inst_executed
  uint64_t threadsActive = 0;       ///< thread_inst_executed: lanes on the SIMT path
  uint64_t threadsPredicatedOn = 0; ///< not_predicated_off_thread_inst_executed
  // Branches.
  uint64_t branches = 0;          ///< executions of a conditional or indirect branch
  uint64_t divergentBranches = 0; ///< executions that split the warp
  // Global memory.
  uint64_t globalRequests = 0;
  uint64_t globalTransactions = 0; ///< transactions (CC < 5.0) or 32-byte sectors
  uint64_t globalIdealTransactions = 0;
  uint64_t globalBytesRequested = 0;
  uint64_t globalBytesMoved = 0;
  // Global loads (ld, ld.global.nc, ldu): reuse inside a CTA. A granule is the footprint unit, the
  // L2 sector (or the smallest transaction on CC 1.x, which has no L2).
  uint64_t globalWarpSectors = 0; ///< distinct granules of each warp-level access, summed over accesses
  /// Granules that were new to this instruction's source line in the CTA when this instruction
  /// touched them, summed over CTAs: summed over a line's loads, the distinct granules each CTA
  /// loaded with that line, what the line would fetch if every granule were loaded once per CTA
  /// (e.g. staged in shared memory). Without line information the key is the instruction itself.
  uint64_t globalCtaDistinctSectors = 0;
  // Global access patterns: every warp-level global access with an active lane (one request from
  // CC 5.0) falls in one class, from its active lanes' addresses in lane order; see classifyAccess().
  uint64_t globalWarpAccesses = 0;       ///< warp-level accesses classified
  uint64_t globalUnitStrideRequests = 0; ///< consecutive at the access width, aligned
  uint64_t globalMisalignedRequests = 0; ///< consecutive, but more transactions than an aligned start
  uint64_t globalStridedRequests = 0;    ///< a constant lane-to-lane stride wider than the access
  uint64_t globalBroadcastRequests = 0;  ///< every active lane at one address
  uint64_t globalStrideBytesSum = 0;     ///< |stride| summed over the strided accesses
  // Local memory (spills, dynamically indexed arrays).
  uint64_t localRequests = 0;
  uint64_t localTransactions = 0;
  uint64_t localBytesRequested = 0;
  uint64_t localBytesMoved = 0;
  // Shared memory.
  uint64_t sharedRequests = 0;
  uint64_t sharedWavefronts = 0;
  uint64_t sharedIdealWavefronts = 0;
  uint64_t sharedBytesRequested = 0;
  /// Shared requests with bank conflicts, by the stride between their first two active lanes: how
  /// many, and the stride's bytes summed and squared (one stride, or one that changes from one
  /// execution to the next, as an interleaved tree's does: what the padding or indexing fix is).
  uint64_t sharedConflictStridedRequests = 0;
  uint64_t sharedConflictStrideBytes = 0;
  uint64_t sharedConflictStrideBytesSquared = 0;
  // Constant memory and kernel parameters.
  uint64_t constantRequests = 0;
  uint64_t constantTransactions = 0;
  // Texture fetches (tex, tld4) and surface accesses (suld, sust): one request per warp-level
  // instruction, transactions of the arch's texture granule (32-byte sectors) over the union of the
  // texels the active lanes read or wrote (every texel of a filtered fetch's footprint).
  uint64_t textureRequests = 0;
  uint64_t textureSectors = 0;
  uint64_t textureBytesRequested = 0; ///< texels read x texel bytes
  uint64_t surfaceRequests = 0;
  uint64_t surfaceSectors = 0;
  uint64_t surfaceBytesRequested = 0;

  /// Every counter, once: add() and scale() walk this list, so a new counter is added here and in
  /// the declarations above (the static_assert below catches a counter missing from the list).
  static constexpr auto fields() {
    using C = InstructionCounters;
    return std::array{
        &C::warpExecuted,
        &C::threadsActive,
        &C::threadsPredicatedOn,
        &C::branches,
        &C::divergentBranches,
        &C::globalRequests,
        &C::globalTransactions,
        &C::globalIdealTransactions,
        &C::globalBytesRequested,
        &C::globalBytesMoved,
        &C::globalWarpSectors,
        &C::globalCtaDistinctSectors,
        &C::globalWarpAccesses,
        &C::globalUnitStrideRequests,
        &C::globalMisalignedRequests,
        &C::globalStridedRequests,
        &C::globalBroadcastRequests,
        &C::globalStrideBytesSum,
        &C::localRequests,
        &C::localTransactions,
        &C::localBytesRequested,
        &C::localBytesMoved,
        &C::sharedRequests,
        &C::sharedWavefronts,
        &C::sharedIdealWavefronts,
        &C::sharedBytesRequested,
        &C::sharedConflictStridedRequests,
        &C::sharedConflictStrideBytes,
        &C::sharedConflictStrideBytesSquared,
        &C::constantRequests,
        &C::constantTransactions,
        &C::textureRequests,
        &C::textureSectors,
        &C::textureBytesRequested,
        &C::surfaceRequests,
        &C::surfaceSectors,
        &C::surfaceBytesRequested,
    };
  }

  void add(const InstructionCounters &o) {
    for (auto field : fields())
      this->*field += o.*field;
  }
  void scale(double factor); ///< sampling: counts of N simulated CTAs stand for the whole grid
};

namespace detail {
constexpr bool countersListedOnce() {
  constexpr auto fields = InstructionCounters::fields();
  for (size_t i = 0; i < fields.size(); ++i)
    for (size_t j = i + 1; j < fields.size(); ++j)
      if (fields[i] == fields[j])
        return false;
  return true;
}
} // namespace detail

static_assert(sizeof(InstructionCounters) == InstructionCounters::fields().size() * sizeof(uint64_t) &&
                  detail::countersListedOnce(),
              "every InstructionCounters member must be listed in fields(), once");

} // namespace ptxray::model
