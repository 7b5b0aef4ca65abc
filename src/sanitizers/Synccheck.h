// synccheck as a VM listener: barriers and warp-synchronizing instructions used in ways whose
// outcome the hardware does not define, reported in compute-sanitizer's style.
//
// CTA barriers (bar.sync / barrier.sync, bar.arrive, bar.red):
//   - a barrier for all threads that only part of the CTA reaches: the others exited (where) or, at a
//     deadlock, wait at another barrier (where);
//   - threads of one phase of an aligned barrier (bar.sync, barrier.sync.aligned) waiting at
//     different barrier instructions with the same id;
//   - arrivals at one phase of a named barrier with different thread counts;
//   - a warp arriving with only some of its live lanes (the VM reports this as a fault and stops the
//     launch unless --memcheck lets it go on; synccheck reports it when the arrival happens).
// Warp level (bar.warp.sync, shfl/vote/match/redux/elect .sync):
//   - an executing lane missing from its own membermask;
//   - membermask lanes that do not execute the instruction with it: on another path, or exited;
//   - shfl.sync reading a lane that does not execute it or is outside the reader's membermask.
#pragma once

#include "sanitizers/Report.h"
#include "vm/Events.h"

#include <memory>
#include <vector>

namespace ptxray::sanitizers {

class Synccheck : public vm::Listener {
public:
  Synccheck();
  ~Synccheck() override;

  /// The reports of the last launch (sorted; empty before the first), and the totals of all launches.
  const std::vector<Hazard> &launchHazards() const { return launchHazards_; }
  uint64_t errors() const { return errors_; }
  uint64_t warnings() const { return 0; }

  void onLaunchBegin(const vm::LaunchInfo &info) override;
  void onLaunchEnd() override;
  void onCtaBegin(unsigned worker, vm::Dim3 cta) override;
  void onCtaEnd(unsigned worker, vm::Dim3 cta) override;
  void onWarpBegin(const vm::WarpRef &warp, uint32_t liveMask) override;
  void onWarpEnd(const vm::WarpRef &warp) override;
  void onBarrier(const vm::WarpRef &warp, const vm::BarrierEvent &e) override;
  void onWarpSync(const vm::WarpRef &warp, const vm::WarpSyncEvent &e) override;
  void onExit(const vm::WarpRef &warp, const vm::ExitEvent &e) override;

  struct Worker;
  std::unique_ptr<Worker> makeWorker() const;

private:
  vm::LaunchInfo launch_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<Hazard> launchHazards_;
  uint64_t errors_ = 0;
};

} // namespace ptxray::sanitizers
