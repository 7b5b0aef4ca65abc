// racecheck's view of dynamic parallelism (CDP2). After a thread launches a grid, nothing orders the
// thread's later accesses with the child's: the child sees what its parent wrote before the launch
// call, but CUDA 12 has no way for the parent to wait for a child (cudaDeviceSynchronize in device
// code is refused), so the parent never sees what its children write. A launching thread's global
// access after its launch call and an access of the child grid (or of the grids it launches) to the
// same byte, one of them a write, race: a parent reading its child's results too early, or writing
// what the child may or may not see.
//
// The launching threads' global accesses after their first launch are recorded per launch tree (at
// most kMaxRecords; past them the rest go unchecked, said in the report), and every global access
// of a grid below them is looked up in them. The VM runs a grid's children after it (vm::Device::
// runChildGrids), so the parent's accesses are all known when a child runs. Per-worker state merged
// at each grid's end; nothing is recorded in a tree without device-side launches.
#pragma once

#include "sanitizers/Report.h"
#include "vm/Events.h"

#include <atomic>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ptxray::sanitizers {

class ChildGridRaces {
public:
  static constexpr size_t kMaxRecords = size_t{1} << 20;

  void beginGrid(const vm::LaunchInfo &info, unsigned slots);
  /// The grid's hazards, appended to `out` (the tree's reports: a pair reported for an earlier grid of
  /// the tree counts its occurrences there); returns how many new reports are errors.
  uint64_t endGrid(std::vector<Hazard> &out);
  void onChildLaunch(const vm::WarpRef &warp, uint32_t lanes);
  void onMemory(const vm::WarpRef &warp, const vm::MemoryEvent &e);

private:
  /// A launching thread's access after its launch call.
  struct Record {
    uint64_t grid = 0;   ///< vm::LaunchInfo::treeGrid
    uint64_t thread = 0; ///< CTA x block threads + thread, in that grid
    uint64_t address = 0;
    uint32_t bytes = 0;
    uint32_t launchesBefore = 0; ///< the thread's launches before the access
    bool write = false;
    Site site;
  };
  /// A grid of the tree: who launched it.
  struct Grid {
    uint64_t parent = 0;
    uint64_t launchingThread = 0; ///< in the parent: CTA x its block threads + thread
    uint32_t launchSequence = 0;  ///< the launching thread's earlier launches
    bool tail = false;            ///< a tail launch: after its parent grid, ordered with it
    uint32_t depth = 0;
    uint64_t blockThreads = 0;
    std::string kernel;
  };
  struct Found {
    uint64_t count = 0;
    uint64_t address = 0;
    uint64_t parentThread = 0, childThread = 0;
    std::string parentKernel;
  };
  using FoundKey = std::tuple<Site, Site, bool, bool>; // parent site, child site, parent wrote, child wrote
  struct Worker {
    std::unordered_map<uint64_t, uint32_t> launched; ///< threads of this grid that launched grids: how many
    std::vector<Record> records;
    std::map<FoundKey, Found> found;
  };
  Worker &worker(unsigned slot);
  /// Whether `record` was made by an ancestor launch point of the running grid.
  bool above(const Record &record) const;

  vm::LaunchInfo launch_;
  uint64_t blockThreads_ = 1;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<Grid> grids_; ///< the tree's grids, by LaunchInfo::treeGrid
  std::vector<Record> records_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> byWord_; ///< address / 4 -> records touching it
  bool truncated_ = false;
  /// The tree's reports so far, by their key: where in endGrid's `out` (the host launch's reports) each
  /// is, so that the same pair found in another child grid adds to its occurrences.
  std::map<FoundKey, size_t> reported_;
  /// A thread of this grid launched a grid (set by any worker; the grid's accesses are looked at
  /// only once one has, or in a child grid).
  std::atomic<bool> launching_{false};
};

} // namespace ptxray::sanitizers
