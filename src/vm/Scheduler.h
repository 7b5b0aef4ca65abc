// Which CTA each worker runs. CTAs start in grid order from one shared queue; a worker runs one to
// completion unless it polls memory (its warps spin on a flag, a lock or a grid barrier). Then the
// worker starts another CTA, as long as the GPU could keep that many resident (occupancy x SMs),
// and switches between its resident CTAs until the one polling sees what it waits for. A worker
// whose resident CTAs all poll while nothing else in the launch changes reports a hang.
#pragma once

#include "vm/Exec.h"

#include <atomic>
#include <optional>

namespace ptxray::vm {

/// The CTAs of a launch, handed out in order: all of them, or `runs` spread evenly over the grid
/// (first and last included) when sampling.
class CtaQueue {
public:
  CtaQueue(uint64_t ctas, uint64_t runs) : ctas_(ctas), runs_(runs) {}
  /// The next CTA's linear id; nullopt once every CTA has started.
  std::optional<uint64_t> next();
  /// CTAs not started yet.
  uint64_t remaining() const;

private:
  uint64_t ctas_, runs_;
  std::atomic<uint64_t> next_{0};
};

/// Runs CTAs from `queue` on `worker` until none is left or the launch aborts.
void runWorker(LaunchState &launch, unsigned worker, CtaQueue &queue);

} // namespace ptxray::vm
