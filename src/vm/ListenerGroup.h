// Several listeners on one launch: LaunchOptions takes one listener, and `ptxray run` may want the
// performance model, racecheck and synccheck at once. Every event goes to each member in the order
// they were added; members keep their own per-worker state, so the group needs no locks.
#pragma once

#include "vm/Events.h"

#include <vector>

namespace ptxray::vm {

class ListenerGroup : public ExecutionListener {
public:
  void add(ExecutionListener *listener) {
    if (listener)
      members_.push_back(listener);
  }
  bool empty() const { return members_.empty(); }
  /// The one member when there is only one (no forwarding cost), else the group; nullptr when empty.
  ExecutionListener *single() { return members_.empty() ? nullptr : members_.size() == 1 ? members_.front() : this; }

  void onLaunchBegin(const LaunchInfo &info) override {
    for (ExecutionListener *m : members_)
      m->onLaunchBegin(info);
  }
  void onLaunchEnd() override {
    for (ExecutionListener *m : members_)
      m->onLaunchEnd();
  }
  void onCtaBegin(unsigned worker, Dim3 cta) override {
    for (ExecutionListener *m : members_)
      m->onCtaBegin(worker, cta);
  }
  void onCtaEnd(unsigned worker, Dim3 cta) override {
    for (ExecutionListener *m : members_)
      m->onCtaEnd(worker, cta);
  }
  void onWarpBegin(const WarpRef &warp, uint32_t liveMask) override {
    for (ExecutionListener *m : members_)
      m->onWarpBegin(warp, liveMask);
  }
  void onWarpEnd(const WarpRef &warp) override {
    for (ExecutionListener *m : members_)
      m->onWarpEnd(warp);
  }
  void onInstruction(const WarpRef &warp, const InstructionEvent &e) override {
    for (ExecutionListener *m : members_)
      m->onInstruction(warp, e);
  }
  void onMemory(const WarpRef &warp, const MemoryEvent &e) override {
    for (ExecutionListener *m : members_)
      m->onMemory(warp, e);
  }
  void onBranch(const WarpRef &warp, const BranchEvent &e) override {
    for (ExecutionListener *m : members_)
      m->onBranch(warp, e);
  }
  void onBarrier(const WarpRef &warp, const BarrierEvent &e) override {
    for (ExecutionListener *m : members_)
      m->onBarrier(warp, e);
  }
  void onCall(const WarpRef &warp, const CallEvent &e) override {
    for (ExecutionListener *m : members_)
      m->onCall(warp, e);
  }
  void onWarpSync(const WarpRef &warp, const WarpSyncEvent &e) override {
    for (ExecutionListener *m : members_)
      m->onWarpSync(warp, e);
  }
  void onExit(const WarpRef &warp, const ExitEvent &e) override {
    for (ExecutionListener *m : members_)
      m->onExit(warp, e);
  }
  void onHeap(const WarpRef &warp, const HeapEvent &e) override {
    for (ExecutionListener *m : members_)
      m->onHeap(warp, e);
  }
  void onMbarrier(const WarpRef &warp, const MbarrierEvent &e) override {
    for (ExecutionListener *m : members_)
      m->onMbarrier(warp, e);
  }

private:
  std::vector<ExecutionListener *> members_;
};

} // namespace ptxray::vm
