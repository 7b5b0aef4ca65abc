// The leak check as a VM listener, like compute-sanitizer's --leak-check full: device-heap blocks
// (malloc in a kernel) that no free released by the end of the run, and, for a program, the device
// memory it allocated (cudaMalloc, cuMemAlloc, clCreateBuffer...) and never freed. Blocks may be
// freed by a later launch than the one that allocated them, so only the end of the run decides: one
// report per malloc instruction (and kernel), with the number of blocks and bytes it leaked, and one
// per leaked allocation, as compute-sanitizer gives it ("Leaked 1,024 bytes at 0x...").
#pragma once

#include "sanitizers/Report.h"
#include "vm/Events.h"

#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace ptxray::sanitizers {

class Leakcheck : public vm::Listener {
public:
  /// `deviceAllocations`: also the device allocations made by the host (AllocationKind::Device) not
  /// released by the end: a program's, whose end is its exit (not a run spec's buffers, which the run
  /// itself owns).
  explicit Leakcheck(bool deviceAllocations = false) : deviceAllocations_(deviceAllocations) {}

  /// The leaks as reports, one per malloc site: what is still allocated now (call at the end of the run).
  std::vector<Hazard> leaks() const;
  uint64_t leakedBlocks() const;
  uint64_t leakedBytes() const;

  void onLaunchBegin(const vm::LaunchInfo &info) override;
  void onLaunchEnd() override;
  void onHeap(const vm::WarpRef &warp, const vm::HeapEvent &e) override;
  void onAllocate(const vm::Allocation &allocation) override;
  void onRelease(const vm::Allocation &allocation) override;

private:
  struct LiveBlock {
    uint64_t bytes = 0;
    Site site;                                ///< valid until the launch ends (the program may go away after the run)
    std::tuple<uint32_t, uint32_t> siteOrder; ///< PTX function and instruction index
    SiteText siteText;                        ///< filled in at the end of its launch
    std::string kernel;
    uint64_t launch = 0; ///< 1 for the run's first launch
    vm::Dim3 cta, thread;
  };
  vm::LaunchInfo launch_;
  uint64_t launches_ = 0;
  mutable std::mutex mutex_;           ///< workers malloc and free concurrently
  std::map<uint64_t, LiveBlock> live_; ///< by device address
  struct LiveAllocation {
    uint64_t bytes = 0;
    std::string label; ///< "cudaMalloc of 1024 bytes"
  };
  bool deviceAllocations_ = false;
  std::map<uint64_t, LiveAllocation> allocations_; ///< the host's device allocations, by address
};

} // namespace ptxray::sanitizers
