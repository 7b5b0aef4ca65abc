// racecheck as a VM listener: shared-memory data races between threads of a CTA (and, on request,
// races on global memory between threads of the same CTA), reported in compute-sanitizer's style.
//
// Two accesses to the same byte by different threads, at least one of them a write, race unless
// something orders them:
//   - threads of different warps: a CTA barrier both took part in (bar.sync / barrier.sync, named
//     barriers with their thread counts, bar.red; bar.arrive orders the arriving warp's earlier
//     accesses before the waiters' later ones). Tracked with a vector clock per warp: a warp's
//     accesses between two of its barrier arrivals share an epoch, and a warp knows, for every
//     other warp, the epochs before which that warp's accesses happened before its own.
//   - an mbarrier phase (cuda::barrier, cuda::pipeline, asynchronous copies): what a thread did before
//     its arrive-on (or before the complete-tx of its bulk copy) happens before what a thread does
//     after a test_wait/try_wait that saw that phase complete. The object keeps the join of its
//     arrivals' clocks per phase; the mbarrier word's own accesses are synchronization, not data.
//   - lanes of the same warp: a __syncwarp (bar.warp.sync), a .sync warp intrinsic (shfl, vote,
//     match, redux, elect) or a CTA barrier between them. Lanes of a warp communicating without one
//     are an intra-warp hazard: an error from sm_70 on (independent thread scheduling), a warning
//     before it (the lock-step assumption, unsafe without volatile), nothing before it when both
//     accesses are volatile (the pre-Volta warp-synchronous model).
//   - release/acquire through memory (cuda::barrier and cuda::pipeline as libcu++ builds them from
//     atomics for compute_75, cuda::atomic, flags): a release publishes the warp's clock on the
//     word it writes, an acquire that reads the word joins what is published there. Releases:
//     st.release, atom/red .release/.acq_rel, and a strong store or atomic by a thread that ran a
//     fence (fence.sc/.acq_rel/.release, membar) before it, which publishes the clock as of the
//     fence. Acquires: ld.acquire, atom .acquire/.acq_rel, and a strong load or atomic followed by
//     the thread's fence (fence.sc/.acq_rel/.acquire, membar), which joins at the fence. Atomic
//     read-modify-writes continue a release sequence (the word keeps what was published); any other
//     store to the word ends it. Like mbarrier phases this works per warp: a lane's release
//     publishes its whole warp's accesses, and after an acquire every lane of the warp is ordered
//     after what it joined (lanes of one warp handing data over this way too). fence.sc's
//     total order (which depends on the schedule) does not synchronize by itself. Only words a
//     release wrote get a clock, in a hash map; a fence is found from a per-function table: kernels
//     without releases or fences pay two compares per instruction and a test per plain access.
// Two strong accesses (atomics; ld/st .relaxed/.acquire/.release; volatile, which the PTX memory
// model treats as relaxed.sys) to the same byte are morally strong and do not race: every scope
// includes the threads of one CTA, the only pairs racecheck compares. (The model also asks that
// they overlap completely; racecheck, as it always did for atomics, asks only that they overlap.)
// An atomic and a plain access do race. Within a warp volatile alone stays a hazard: on sm_70 and
// later it is the lock-step idiom the intra-warp class exists to find.
//
// Shadow state per byte: the last write and up to two reads (two distinct threads are enough to
// find a read by some thread other than a later writer), each with thread, instruction, epoch,
// warp-sync generation and the warp's access count since its last barrier. Cost O(bytes accessed).
// A RAW/WAR pair is named by the order of the two accesses within their barrier intervals (which
// of them its warp performed after fewer plain shared accesses: strong and volatile ones, which spin
// loops repeat as often as the schedule makes them, do not count), not by the order the VM happened
// to run warps in, so reports do not depend on warp order or worker count.
#pragma once

#include "sanitizers/ChildGridRaces.h"
#include "sanitizers/Report.h"
#include "vm/Events.h"

#include <map>
#include <memory>
#include <vector>

namespace ptxray::sanitizers {

struct RacecheckOptions {
  int smVersion = 90;        ///< major*10+minor of the modeled GPU: intra-warp hazards are errors from 70 on
  bool globalMemory = false; ///< also global memory, between threads of the same CTA
};

enum class AccessKind : uint8_t { Read, Write, Atomic };
enum class RaceKind : uint8_t { ReadAfterWrite, WriteAfterRead, WriteAfterWrite };
const char *raceKindName(RaceKind kind); ///< "Read-After-Write" ...

class Racecheck : public vm::Listener {
public:
  explicit Racecheck(RacecheckOptions options = {});
  ~Racecheck() override;

  /// The reports of the last launch (sorted; empty before the first), and the totals of all launches.
  const std::vector<Hazard> &launchHazards() const { return launchHazards_; }
  uint64_t errors() const { return errors_; }
  uint64_t warnings() const { return warnings_; }

  void onLaunchBegin(const vm::LaunchInfo &info) override;
  void onLaunchEnd() override;
  void onCtaBegin(unsigned worker, vm::Dim3 cta) override;
  void onCtaEnd(unsigned worker, vm::Dim3 cta) override;
  void onInstruction(const vm::WarpRef &warp, const vm::InstructionEvent &e) override;
  void onMemory(const vm::WarpRef &warp, const vm::MemoryEvent &e) override;
  void onBarrier(const vm::WarpRef &warp, const vm::BarrierEvent &e) override;
  void onWarpSync(const vm::WarpRef &warp, const vm::WarpSyncEvent &e) override;
  void onMbarrier(const vm::WarpRef &warp, const vm::MbarrierEvent &e) override;
  void onChildLaunch(const vm::WarpRef &warp, uint32_t lanes) override;

  struct Worker;
  std::unique_ptr<Worker> makeWorker() const;

private:
  RacecheckOptions options_;
  vm::LaunchInfo launch_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<Hazard> launchHazards_;
  uint64_t errors_ = 0, warnings_ = 0;
  ChildGridRaces childGrids_; ///< dynamic parallelism: parents against their child grids
};

} // namespace ptxray::sanitizers
