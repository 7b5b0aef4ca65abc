// Several listeners on one device: a device takes one listener, and a run may want the performance
// model, racecheck and initcheck at once. Every event of both channels (execution and memory) goes to
// each member in the order they were added; members keep their own per-worker state, so the group
// needs no locks.
#pragma once

#include "vm/Events.h"

#include <vector>

namespace ptxray::vm {

class ListenerGroup : public Listener {
public:
  void add(Listener *listener) {
    if (listener)
      members_.push_back(listener);
  }
  bool empty() const { return members_.empty(); }
  /// The one member when there is only one (no forwarding cost), else the group; nullptr when empty.
  Listener *single() { return members_.empty() ? nullptr : members_.size() == 1 ? members_.front() : this; }

  void onLaunchBegin(const LaunchInfo &info) override {
    for (Listener *m : members_)
      m->onLaunchBegin(info);
  }
  void onLaunchEnd() override {
    for (Listener *m : members_)
      m->onLaunchEnd();
  }
  void onCtaBegin(unsigned worker, Dim3 cta) override {
    for (Listener *m : members_)
      m->onCtaBegin(worker, cta);
  }
  void onCtaEnd(unsigned worker, Dim3 cta) override {
    for (Listener *m : members_)
      m->onCtaEnd(worker, cta);
  }
  void onWarpBegin(const WarpRef &warp, uint32_t liveMask) override {
    for (Listener *m : members_)
      m->onWarpBegin(warp, liveMask);
  }
  void onWarpEnd(const WarpRef &warp) override {
    for (Listener *m : members_)
      m->onWarpEnd(warp);
  }
  void onInstruction(const WarpRef &warp, const InstructionEvent &e) override {
    for (Listener *m : members_)
      m->onInstruction(warp, e);
  }
  void onMemory(const WarpRef &warp, const MemoryEvent &e) override {
    for (Listener *m : members_)
      m->onMemory(warp, e);
  }
  void onBranch(const WarpRef &warp, const BranchEvent &e) override {
    for (Listener *m : members_)
      m->onBranch(warp, e);
  }
  void onBarrier(const WarpRef &warp, const BarrierEvent &e) override {
    for (Listener *m : members_)
      m->onBarrier(warp, e);
  }
  void onCall(const WarpRef &warp, const CallEvent &e) override {
    for (Listener *m : members_)
      m->onCall(warp, e);
  }
  void onWarpSync(const WarpRef &warp, const WarpSyncEvent &e) override {
    for (Listener *m : members_)
      m->onWarpSync(warp, e);
  }
  void onExit(const WarpRef &warp, const ExitEvent &e) override {
    for (Listener *m : members_)
      m->onExit(warp, e);
  }
  void onHeap(const WarpRef &warp, const HeapEvent &e) override {
    for (Listener *m : members_)
      m->onHeap(warp, e);
  }
  void onMbarrier(const WarpRef &warp, const MbarrierEvent &e) override {
    for (Listener *m : members_)
      m->onMbarrier(warp, e);
  }
  void onChildLaunch(const WarpRef &warp, uint32_t lanes) override {
    for (Listener *m : members_)
      m->onChildLaunch(warp, lanes);
  }
  void onClockWait(uint64_t cycles) override {
    for (Listener *m : members_)
      m->onClockWait(cycles);
  }
  void onAllocate(const Allocation &allocation) override {
    for (Listener *m : members_)
      m->onAllocate(allocation);
  }
  void onRelease(const Allocation &allocation) override {
    for (Listener *m : members_)
      m->onRelease(allocation);
  }
  void onHostWrite(uint64_t address, uint64_t bytes) override {
    for (Listener *m : members_)
      m->onHostWrite(address, bytes);
  }

private:
  std::vector<Listener *> members_;
};

} // namespace ptxray::vm
