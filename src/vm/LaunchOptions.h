// How a launch runs on the virtual GPU: workers, budgets and limits, memcheck mode, sampling. What a
// caller of vm::Device sets per launch; the execution state itself is vm/Exec.h's, inside the VM.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ptxray::vm {

struct LaunchOptions {
  unsigned threads = 0;         ///< workers; 0 = all cores
  uint64_t maxInstructions = 0; ///< thread-instruction budget; 0 = default
  bool continueOnError = false; ///< memcheck mode: report every access error, keep running
  size_t maxFaults = 100;       ///< reports kept in memcheck mode
  uint64_t stackBytesPerThread = 64 * 1024;
  uint32_t maxCallDepth = 1024;
  /// Run only this many CTAs, spread evenly over the grid (first and last included); 0 runs every CTA.
  /// The results are then incomplete: for the performance model's --sample.
  uint64_t sampleCtas = 0;
};

} // namespace ptxray::vm
