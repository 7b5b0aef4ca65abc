// What the model counts for one PTX instruction (summed over every warp that executed it). Plain
// integers, so that per-worker copies merge by addition and every metric is derived afterwards.
#pragma once

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
  // Constant memory and kernel parameters.
  uint64_t constantRequests = 0;
  uint64_t constantTransactions = 0;

  void add(const InstructionCounters &o) {
    warpExecuted += o.warpExecuted;
    threadsActive += o.threadsActive;
    threadsPredicatedOn += o.threadsPredicatedOn;
    branches += o.branches;
    divergentBranches += o.divergentBranches;
    globalRequests += o.globalRequests;
    globalTransactions += o.globalTransactions;
    globalIdealTransactions += o.globalIdealTransactions;
    globalBytesRequested += o.globalBytesRequested;
    globalBytesMoved += o.globalBytesMoved;
    localRequests += o.localRequests;
    localTransactions += o.localTransactions;
    localBytesRequested += o.localBytesRequested;
    localBytesMoved += o.localBytesMoved;
    sharedRequests += o.sharedRequests;
    sharedWavefronts += o.sharedWavefronts;
    sharedIdealWavefronts += o.sharedIdealWavefronts;
    sharedBytesRequested += o.sharedBytesRequested;
    constantRequests += o.constantRequests;
    constantTransactions += o.constantTransactions;
  }
  void scale(double factor); ///< sampling: counts of N simulated CTAs stand for the whole grid
};

} // namespace ptxray::model
