// initcheck as a VM listener: reads of device memory that nothing wrote, reported in
// compute-sanitizer's style, one report per memory space and reading instruction.
//
//   - global memory: a byte of a device allocation that no host copy, memset or kernel store wrote
//     since the allocation was made (a run-spec buffer with "init": "none" is a bare cudaMalloc), or
//     a byte of a device-heap block that no store wrote since malloc returned it. Module variables
//     and constant banks start out initialized (static storage is zero-initialized).
//   - shared memory: a byte that no thread of the CTA wrote.
//   - local memory: a byte of a thread's local memory that the thread did not write.
//
// Shadow state is one bit per byte: per allocation for global memory (it lives as long as the
// allocation, across launches, fed by the device memory's host-side events: the listener's memory channel),
// per worker for the shared memory of the CTA it runs and the local memory of that CTA's threads.
// Loads are checked; stores set bits; atom and red do both (they read the old value). Kernel
// parameters and a function's .param variables are written by the launch and the call sequence:
// never checked. Cost O(bytes accessed) per access.
#pragma once

#include "sanitizers/Report.h"
#include "vm/Events.h"
#include "vm/Memory.h"

#include <memory>
#include <vector>

namespace ptxray::sanitizers {

class Initcheck : public vm::Listener {
public:
  Initcheck();
  ~Initcheck() override;

  /// The reports of the last launch (sorted by space and instruction), and the total of all launches.
  const std::vector<Hazard> &launchHazards() const { return launchHazards_; }
  uint64_t errors() const { return errors_; }

  // Device memory, from the host (attach with vm::Device::setListener before anything is allocated).
  void onAllocate(const vm::Allocation &allocation) override;
  void onRelease(const vm::Allocation &allocation) override;
  void onHostWrite(uint64_t address, uint64_t bytes) override;

  // Kernels.
  void onLaunchBegin(const vm::LaunchInfo &info) override;
  void onLaunchEnd() override;
  void onCtaBegin(unsigned worker, vm::Dim3 cta) override;
  void onWarpBegin(const vm::WarpRef &warp, uint32_t liveMask) override;
  void onMemory(const vm::WarpRef &warp, const vm::MemoryEvent &e) override;
  void onHeap(const vm::WarpRef &warp, const vm::HeapEvent &e) override;

  struct TrackedAllocation;
  struct Worker;
  std::unique_ptr<Worker> makeWorker() const;

private:
  TrackedAllocation *findAllocation(uint64_t address) const;

  std::vector<std::unique_ptr<TrackedAllocation>> allocations_; ///< sorted by base
  vm::LaunchInfo launch_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<Hazard> launchHazards_;
  uint64_t errors_ = 0;
};

} // namespace ptxray::sanitizers
