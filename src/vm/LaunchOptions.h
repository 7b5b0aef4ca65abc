// How a launch runs on the virtual GPU: workers, budgets and limits, memcheck mode, sampling. What a
// caller of vm::Device sets per launch; the execution state itself is vm/Exec.h's, inside the VM.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ptxray::vm {

/// The modeled clock a launch's %clock, %clock64 and %globaltimer read: the SM cycle counter and the
/// global nanosecond timer when the launch starts (the front end's modeled session time), the SM
/// clock, and the cycles each warp instruction moves its warp's clock on by. Deterministic: a warp's
/// clock is the start plus its own instructions times that cost, whatever the host's speed, so code
/// that waits on the clock waits modeled time, in a bounded number of instructions.
struct LaunchClock {
  uint64_t startCycles = 0;
  uint64_t startNanoseconds = 0;
  double smClockHz = 1e9;
  /// 0: the architecture's dependent-issue latency (ComputeCapability::latency.
  /// registerReadAfterWriteCycles): a warp waiting on the clock is a chain of dependent instructions.
  uint32_t cyclesPerInstruction = 0;
};

struct LaunchOptions {
  unsigned threads = 0;         ///< workers; 0 = all cores
  uint64_t maxInstructions = 0; ///< thread-instruction budget; 0 = default
  bool continueOnError = false; ///< memcheck mode: report every access error, keep running
  size_t maxFaults = 100;       ///< reports kept in memcheck mode
  /// The most local memory a thread's frames may take in a kernel whose stack ptxas sizes (no
  /// recursion, no call through a pointer): the driver gives such a kernel what its frames need.
  uint64_t stackBytesPerThread = 64 * 1024;
  /// cudaLimitStackSize: a kernel whose stack ptxas cannot size (DecodedFunction::stackSizeIsStatic)
  /// gets this much per thread and no more, as on the GPU; its default is CUDA's (1024 bytes). An
  /// H200 runs 8 frames of 128 bytes under it and faults on the 9th (validation/conventions).
  uint64_t stackLimitBytes = 1024;
  uint32_t maxCallDepth = 1024;
  /// Run only this many CTAs, spread evenly over the grid (first and last included); 0 runs every CTA.
  /// The results are then incomplete: for the performance model's --sample.
  uint64_t sampleCtas = 0;
  /// The device printf FIFO (cudaLimitPrintfFifoSize): bytes of printf output one launch keeps, each
  /// call's text whole; what would overflow it is dropped, as a GPU drops it. 0: CUDA's default for
  /// the GPU (1 MiB, or 64 KiB per SM when that is more).
  uint64_t printfFifoBytes = 0;
  LaunchClock clock;
  /// Dynamic parallelism (CDP2). cudaLimitDevRuntimePendingLaunchCount: child grids launched and not
  /// yet run, over the whole launch tree; a launch past it fails with
  /// cudaErrorLaunchPendingCountExceeded (CUDA's default is 2048).
  uint32_t pendingLaunchLimit = 2048;
  /// The deepest nesting of grids: a grid at this depth (the host's grids are at 0) cannot launch
  /// (cudaErrorLaunchMaxDepthExceeded). The CUDA guide names 24 levels, but an H200 under CUDA 13 ran
  /// a chain 41 grids deep without an error (validation/programs/results/rdc, cdp_launches); ptxray
  /// runs a child grid on the stack of its parent's launch, and stops at 128 levels to bound it.
  uint32_t maxNestingDepth = 128;
};

} // namespace ptxray::vm
