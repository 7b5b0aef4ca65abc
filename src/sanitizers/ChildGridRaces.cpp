#include "sanitizers/ChildGridRaces.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace ptxray::sanitizers {

void ChildGridRaces::beginGrid(const vm::LaunchInfo &info, unsigned slots) {
  launch_ = info;
  blockThreads_ = std::max<uint64_t>(info.block.count(), 1);
  if (info.depth == 0) {
    grids_.clear();
    records_.clear();
    byWord_.clear();
    truncated_ = false;
    reported_.clear();
  }
  if (grids_.size() <= info.treeGrid)
    grids_.resize(info.treeGrid + 1);
  Grid &g = grids_[info.treeGrid];
  g.parent = info.parentGrid;
  g.depth = info.depth;
  g.blockThreads = blockThreads_;
  g.kernel = info.kernel->name;
  g.launchSequence = info.origin.launchSequence;
  g.tail = info.origin.stream == vm::GridOrigin::kTailLaunchStream;
  if (info.depth > 0 && info.parentGrid < grids_.size())
    g.launchingThread = info.origin.launchingCta * grids_[info.parentGrid].blockThreads + info.origin.launchingThread;
  workers_.clear();
  workers_.resize(std::max(slots, 1u));
  launching_.store(false, std::memory_order_relaxed);
}

ChildGridRaces::Worker &ChildGridRaces::worker(unsigned slot) {
  // Slots are fixed at the grid's beginning (vm::LaunchInfo::slots), each used by one worker at a time.
  if (!workers_[slot])
    workers_[slot] = std::make_unique<Worker>();
  return *workers_[slot];
}

void ChildGridRaces::onChildLaunch(const vm::WarpRef &warp, uint32_t lanes) {
  launching_.store(true, std::memory_order_relaxed);
  Worker &w = worker(warp.worker);
  const uint64_t cta = ctaLinear(warp.cta, launch_.grid);
  for (uint32_t m = lanes; m; m &= m - 1)
    ++w.launched[cta * blockThreads_ + warp.warp * vm::kWarpSize + static_cast<uint32_t>(std::countr_zero(m))];
}

bool ChildGridRaces::above(const Record &record) const {
  uint64_t grid = launch_.treeGrid;
  while (grid < grids_.size() && grids_[grid].depth > 0) {
    const Grid &g = grids_[grid];
    // The launch edge below the record's grid: an access after the launch call, of a grid that is
    // not a tail launch (which begins after its parent grid ends).
    if (g.parent == record.grid)
      return g.launchingThread == record.thread && !g.tail && record.launchesBefore > g.launchSequence;
    grid = g.parent;
  }
  return false;
}

void ChildGridRaces::onMemory(const vm::WarpRef &warp, const vm::MemoryEvent &e) {
  if (e.space != vm::Space::Global || e.isSynchronization || e.path != vm::MemoryPath::LoadStore || e.width == 0)
    return;
  if (launch_.depth == 0 && !launching_.load(std::memory_order_relaxed))
    return; // a host-launched grid none of whose threads launched yet: nothing to record or check
  const bool strong = e.op == vm::MemoryOp::Atomic || e.op == vm::MemoryOp::Reduction;
  const bool write = e.op != vm::MemoryOp::Load;
  const uint32_t bytes = uint32_t{e.width} * e.vec;
  Worker *w = nullptr;
  const uint64_t cta = ctaLinear(warp.cta, launch_.grid);
  for (uint32_t m = e.mask; m; m &= m - 1) {
    const int lane = std::countr_zero(m);
    const uint64_t thread = cta * blockThreads_ + warp.warp * vm::kWarpSize + static_cast<uint32_t>(lane);
    const uint64_t address = e.addresses[lane];
    if (address - launch_.parameterBuffersBase < launch_.parameterBuffersBytes)
      continue; // a parameter buffer: the launch's own, whoever filled it before
    // A grid below a launching thread: its accesses against what the thread did after the launch.
    if (launch_.depth > 0 && !byWord_.empty() && !strong) {
      for (uint64_t word = address / 4; word <= (address + bytes - 1) / 4; ++word) {
        auto it = byWord_.find(word);
        if (it == byWord_.end())
          continue;
        for (uint32_t r : it->second) {
          const Record &rec = records_[r];
          if (!(rec.write || write) || rec.address >= address + bytes || address >= rec.address + rec.bytes ||
              !above(rec))
            continue;
          if (!w)
            w = &worker(warp.worker);
          Found &f = w->found[{rec.site, Site{warp.function, e.instruction}, rec.write, write}];
          if (f.count++ == 0 || std::tie(rec.thread, thread) < std::tie(f.parentThread, f.childThread)) {
            f.address = std::max(address, rec.address);
            f.parentThread = rec.thread;
            f.childThread = thread;
            f.parentKernel = grids_[rec.grid].kernel;
          }
        }
      }
    }
    // A thread that launched: what it accesses from now on races with its children.
    if (!w)
      w = &worker(warp.worker);
    if (strong)
      continue;
    if (auto it = w->launched.find(thread); it != w->launched.end())
      w->records.push_back(
          {launch_.treeGrid, thread, address, bytes, it->second, write, Site{warp.function, e.instruction}});
  }
}

uint64_t ChildGridRaces::endGrid(std::vector<Hazard> &out) {
  // This grid's launching threads' records join the tree's.
  std::map<FoundKey, Found> found;
  for (const auto &w : workers_) {
    if (!w)
      continue;
    for (const Record &r : w->records) {
      if (records_.size() >= kMaxRecords) {
        truncated_ = true;
        break;
      }
      const auto index = static_cast<uint32_t>(records_.size());
      records_.push_back(r);
      for (uint64_t word = r.address / 4; word <= (r.address + r.bytes - 1) / 4; ++word)
        byWord_[word].push_back(index);
    }
    for (const auto &[key, f] : w->found) {
      auto [it, inserted] = found.try_emplace(key, f);
      if (!inserted) {
        it->second.count += f.count;
        if (std::tie(f.parentThread, f.childThread) < std::tie(it->second.parentThread, it->second.childThread)) {
          const uint64_t count = it->second.count;
          it->second = f;
          it->second.count = count;
        }
      }
    }
  }
  workers_.clear();
  uint64_t errors = 0;
  for (const auto &[key, f] : found) {
    if (auto it = reported_.find(key); it != reported_.end() && it->second < out.size()) {
      out[it->second].occurrences += f.count;
      continue;
    }
    reported_[key] = out.size();
    const auto &[parentSite, childSite, parentWrote, childWrote] = key;
    const SiteText parent = describeSite(parentSite), child = describeSite(childSite);
    Hazard h;
    h.severity = Severity::Error;
    h.occurrences = f.count;
    h.kernel = launch_.kernel->name;
    h.sites = {parent, child};
    const char *what = !parentWrote ? "reads what its child grid writes"
                       : childWrote ? "writes what its child grid writes"
                                    : "writes what its child grid reads";
    h.headline = fmt::format("Race reported between a parent grid's {} access at {} after it launched a child grid "
                             "and the child's {} access at {} (dynamic parallelism: the parent {})",
                             parentWrote ? "Write" : "Read", parent.shortPlace(), childWrote ? "Write" : "Read",
                             child.shortPlace(), what);
    h.details.push_back(
        fmt::format("in kernel {}, launched (at some depth) by kernel {}", launch_.kernel->name, f.parentKernel));
    h.details.push_back(fmt::format("{} by the launching thread after its launch at {}  {}",
                                    parentWrote ? "Write" : "Read", parent.ptxLocation, parent.ptxText));
    h.details.push_back(
        fmt::format("{} by the child grid's thread {} of block {} at {}  {}", childWrote ? "Write" : "Read",
                    dimText(threadOf(f.childThread % blockThreads_, launch_.block)),
                    dimText(threadOf(f.childThread / blockThreads_, launch_.grid)), child.ptxLocation, child.ptxText));
    h.details.push_back(fmt::format("address 0x{:x} (global)", f.address));
    h.details.push_back(
        "a parent cannot wait for its child grids in CUDA 12 (cudaDeviceSynchronize in device code is refused): "
        "read the results in a grid launched after them (a tail launch, cudaStreamTailLaunch) or in a later kernel "
        "the host launches");
    if (truncated_)
      h.details.push_back(
          fmt::format("(only the first {} accesses of the launching threads were checked)", kMaxRecords));
    ++errors;
    out.push_back(std::move(h));
  }
  return errors;
}

} // namespace ptxray::sanitizers
