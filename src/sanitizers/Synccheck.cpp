#include "sanitizers/Synccheck.h"

#include <algorithm>
#include <bit>
#include <fmt/format.h>
#include <map>
#include <optional>

namespace ptxray::sanitizers {

namespace {

constexpr int kNumBarriers = 16;

enum class Check : uint8_t {
  PartialBarrier,    ///< an all-thread barrier released with threads that exited instead of arriving
  BarrierDeadlock,   ///< a barrier that never completes: the missing threads wait elsewhere or exited
  DifferentBarriers, ///< one phase of an aligned barrier reached through different instructions
  CountMismatch,     ///< one phase of a barrier with different thread counts
  DivergentWarp,     ///< a warp arriving with only some of its live lanes
  LaneNotInMask,     ///< an executing lane missing from its own membermask
  MaskLanesAbsent,   ///< membermask lanes that are alive but do not execute the instruction
  MaskLanesExited,   ///< membermask lanes that have exited (or do not exist)
  ShflBadSource,     ///< shfl reading a lane that does not execute it or is outside the membermask
};

struct CheckKey {
  Check check = Check::PartialBarrier;
  Site site;  ///< the instruction reported
  Site other; ///< the other place involved (where threads went), or none
  auto tie() const { return std::tuple(site.key(), check, other.key()); }
  bool operator<(const CheckKey &o) const { return tie() < o.tie(); }
};

struct CheckExample {
  uint64_t cta = 0;
  uint32_t warp = 0;
  std::string detail; ///< what happened there, in words (sites are named at the end of the launch)
  auto tie() const { return std::tuple(cta, warp); }
};

struct CheckEntry {
  uint64_t count = 0;
  CheckExample example;
};

struct Arrival {
  uint32_t warp = 0;
  uint32_t mask = 0;
  Site site;
  uint32_t threadCount = 0;
  bool arriveOnly = false;
};

bool isAlignedBarrier(const Site &site) {
  if (!site.function || !site.function->source || site.instruction >= site.function->source->instructions.size())
    return true;
  const ptx::Instruction &inst = site.function->source->instructions[site.instruction];
  // bar.sync and bar.arrive are barrier.*.aligned; barrier.sync without .aligned may be reached
  // through different instructions.
  return inst.opcode == ptx::Opcode::bar || inst.aligned;
}

} // namespace

struct Synccheck::Worker {
  vm::LaunchInfo launch;
  vm::Dim3 cta;
  uint64_t ctaIndex = 0;
  struct WarpState {
    uint32_t initialMask = 0;
    uint32_t liveMask = 0;
    bool done = false;
    int waitingBarrier = -1;
    Site waitingSite;
    Site exitSite[vm::kWarpSize];
  };
  std::vector<WarpState> warps;
  std::vector<Arrival> phases[kNumBarriers];
  std::map<CheckKey, CheckEntry> found;

  void report(Check check, Site site, Site other, uint32_t warp, std::string detail) {
    CheckKey key{check, site, other};
    CheckExample example{ctaIndex, warp, std::move(detail)};
    auto [it, inserted] = found.try_emplace(key, CheckEntry{0, example});
    ++it->second.count;
    if (!inserted && example.tie() < it->second.example.tie())
      it->second.example = std::move(example);
  }

  /// "threads (64,0,0)-(127,0,0)" for the lanes of each warp in `masks` (linear thread order).
  std::string threads(const std::vector<uint32_t> &masks) const {
    std::vector<std::pair<uint64_t, uint64_t>> runs;
    for (uint32_t w = 0; w < masks.size(); ++w)
      for (uint32_t m = masks[w]; m; m &= m - 1) {
        uint64_t t = uint64_t{w} * vm::kWarpSize + static_cast<uint64_t>(std::countr_zero(m));
        if (!runs.empty() && runs.back().second + 1 == t)
          runs.back().second = t;
        else
          runs.push_back({t, t});
      }
    uint64_t total = 0;
    std::string out;
    for (size_t i = 0; i < runs.size(); ++i) {
      total += runs[i].second - runs[i].first + 1;
      if (i == 4) {
        out += ", ...";
        continue;
      }
      if (i > 4)
        continue;
      if (i)
        out += ", ";
      out += dimText(threadOf(runs[i].first, launch.block));
      if (runs[i].second != runs[i].first) {
        out += '-'; // appended apart: GCC 12's -Wrestrict misfires on "-" + std::string at -O3
        out += dimText(threadOf(runs[i].second, launch.block));
      }
    }
    return fmt::format("{} thread{} {}", total, total == 1 ? "" : "s", out);
  }

  std::vector<uint32_t> emptyMasks() const { return std::vector<uint32_t>(warps.size(), 0); }

  void beginCta(vm::Dim3 id, uint64_t linear) {
    cta = id;
    ctaIndex = linear;
    for (WarpState &w : warps)
      w = WarpState{};
    for (auto &p : phases)
      p.clear();
  }

  void arrive(uint32_t warp, const vm::BarrierEvent &e, Site site) {
    WarpState &ws = warps[warp];
    if (e.mask != ws.liveMask)
      report(Check::DivergentWarp, site, {}, warp,
             fmt::format("warp {} of block {} arrived with lanes {} while its live lanes {} did not", warp,
                         dimText(cta), laneList(e.mask), laneList(ws.liveMask & ~e.mask)));
    std::vector<Arrival> &phase = phases[e.barrier];
    if (!phase.empty() && phase.front().threadCount != e.threadCount) {
      auto count = [](uint32_t c) { return c ? fmt::format("{} threads", c) : std::string("all threads"); };
      report(Check::CountMismatch, phase.front().site, site, warp,
             fmt::format("barrier {} in block {}: warp {} expects {}, warp {} expects {}", e.barrier, dimText(cta),
                         phase.front().warp, count(phase.front().threadCount), warp, count(e.threadCount)));
    }
    if (!e.arriveOnly && isAlignedBarrier(site)) {
      auto first = std::find_if(phase.begin(), phase.end(), [](const Arrival &a) { return !a.arriveOnly; });
      if (first != phase.end() && first->site != site)
        report(Check::DifferentBarriers, first->site, site, warp,
               fmt::format("barrier {} in block {}: warp {} waits here, warp {} at the other instruction", e.barrier,
                           dimText(cta), first->warp, warp));
    }
    phase.push_back({warp, e.mask, site, e.threadCount, e.arriveOnly});
    if (!e.arriveOnly) {
      ws.waitingBarrier = static_cast<int>(e.barrier);
      ws.waitingSite = site;
    }
  }

  void release(uint32_t id) {
    std::vector<Arrival> &phase = phases[id];
    bool allThreads =
        !phase.empty() && std::all_of(phase.begin(), phase.end(), [](const Arrival &a) { return a.threadCount == 0; });
    if (allThreads) {
      // The VM released an all-thread barrier: every thread that did not arrive has exited.
      std::vector<uint32_t> arrived = emptyMasks();
      for (const Arrival &a : phase)
        arrived[a.warp] |= a.mask;
      std::map<Site, std::vector<uint32_t>> exitedAt;
      for (uint32_t w = 0; w < warps.size(); ++w)
        for (uint32_t m = warps[w].initialMask & ~arrived[w] & ~warps[w].liveMask; m; m &= m - 1) {
          int lane = std::countr_zero(m);
          auto [it, inserted] = exitedAt.try_emplace(warps[w].exitSite[lane], emptyMasks());
          it->second[w] |= 1u << lane;
        }
      const Site &barrier = phase.front().site;
      for (const auto &[exitSite, masks] : exitedAt)
        report(
            Check::PartialBarrier, barrier, exitSite, phase.front().warp,
            fmt::format("in block {}: {} arrived; {} exited instead", dimText(cta), threads(arrived), threads(masks)));
    }
    for (const Arrival &a : phase)
      if (!a.arriveOnly && warps[a.warp].waitingBarrier == static_cast<int>(id))
        warps[a.warp].waitingBarrier = -1;
    phase.clear();
  }

  void endCta() {
    // Barriers still waiting at the end of a CTA whose remaining warps all wait: a deadlock (a CTA
    // stopped for another reason has warps still running; nothing is concluded then).
    for (const WarpState &w : warps)
      if (!w.done && w.waitingBarrier < 0)
        return;
    for (uint32_t id = 0; id < kNumBarriers; ++id) {
      const std::vector<Arrival> &phase = phases[id];
      if (phase.empty())
        continue;
      std::vector<uint32_t> arrived = emptyMasks();
      for (const Arrival &a : phase)
        arrived[a.warp] |= a.mask;
      std::map<Site, std::vector<uint32_t>> waitingAt, exitedAt;
      for (uint32_t w = 0; w < warps.size(); ++w) {
        const WarpState &ws = warps[w];
        if (arrived[w])
          continue;
        if (ws.waitingBarrier >= 0 && ws.waitingBarrier != static_cast<int>(id))
          waitingAt.try_emplace(ws.waitingSite, emptyMasks()).first->second[w] |= ws.liveMask;
        for (uint32_t m = ws.initialMask & ~ws.liveMask; m; m &= m - 1) {
          int lane = std::countr_zero(m);
          exitedAt.try_emplace(ws.exitSite[lane], emptyMasks()).first->second[w] |= 1u << lane;
        }
      }
      const Site &barrier = phase.front().site;
      for (const auto &[other, masks] : waitingAt)
        report(Check::BarrierDeadlock, barrier, other, phase.front().warp,
               fmt::format("in block {}: {} wait here; {} wait at another barrier instead", dimText(cta),
                           threads(arrived), threads(masks)));
      for (const auto &[other, masks] : exitedAt)
        report(Check::BarrierDeadlock, barrier, other, phase.front().warp,
               fmt::format("in block {}: {} wait here; {} exited instead", dimText(cta), threads(arrived),
                           threads(masks)));
    }
  }

  void warpSync(uint32_t warp, const vm::WarpSyncEvent &e, Site site) {
    const uint32_t exec = e.executedMask;
    const bool isShfl = e.op == vm::WarpSyncOp::Shfl;
    if (e.hasMemberMask) {
      uint32_t notInOwnMask = 0, members = 0;
      for (uint32_t m = exec; m; m &= m - 1) {
        int lane = std::countr_zero(m);
        if (!((e.memberMasks[lane] >> lane) & 1))
          notInOwnMask |= 1u << lane;
        members |= e.memberMasks[lane];
      }
      if (notInOwnMask)
        report(Check::LaneNotInMask, site, {}, warp,
               fmt::format("warp {} of block {}: lanes {} execute it but are not in their membermask (0x{:08x})", warp,
                           dimText(cta), laneList(notInOwnMask),
                           e.memberMasks[static_cast<size_t>(std::countr_zero(notInOwnMask))]));
      const uint32_t absent = members & ~exec & e.liveMask;
      const uint32_t exited = members & ~exec & ~e.liveMask;
      if (absent)
        report(Check::MaskLanesAbsent, site, {}, warp,
               fmt::format("warp {} of block {}: lanes {} execute it; membermask lanes {} are on another path or "
                           "predicated off and never arrive",
                           warp, dimText(cta), laneList(exec), laneList(absent)));
      if (exited)
        report(Check::MaskLanesExited, site, {}, warp,
               fmt::format("warp {} of block {}: lanes {} execute it; membermask lanes {} have exited or do not "
                           "exist",
                           warp, dimText(cta), laneList(exec), laneList(exited)));
    }
    if (isShfl) {
      uint32_t badReaders = 0;
      int exampleReader = -1, exampleSource = -1;
      for (uint32_t m = exec; m; m &= m - 1) {
        int lane = std::countr_zero(m);
        int source = e.sourceLanes[lane];
        if (source == lane)
          continue;
        bool sourceExecutes = (exec >> source) & 1;
        bool sourceIsMember = !e.hasMemberMask || ((e.memberMasks[lane] >> source) & 1);
        if (sourceExecutes && sourceIsMember)
          continue;
        badReaders |= 1u << lane;
        if (exampleReader < 0) {
          exampleReader = lane;
          exampleSource = source;
        }
      }
      if (badReaders)
        report(Check::ShflBadSource, site, {}, warp,
               fmt::format("warp {} of block {}: lanes {} read lanes that do not take part (lane {} reads lane {}, "
                           "which is {})",
                           warp, dimText(cta), laneList(badReaders), exampleReader, exampleSource,
                           !((exec >> exampleSource) & 1) ? "not executing the shuffle" : "outside its membermask"));
    }
  }
};

Synccheck::Synccheck() = default;
Synccheck::~Synccheck() = default;

void Synccheck::onLaunchBegin(const vm::LaunchInfo &info) {
  launch_ = info;
  // A launch tree's child grids (dynamic parallelism) are heard after their parent: their hazards
  // are the host launch's too.
  if (info.depth == 0)
    launchHazards_.clear();
  workers_.clear();
  // Slots past the workers' own are made when a CTA first uses one (vm::LaunchInfo::slots).
  workers_.resize(std::max({info.slots, info.workers, 1u}));
  for (unsigned i = 0; i < std::max(info.workers, 1u); ++i)
    workers_[i] = makeWorker();
}

std::unique_ptr<Synccheck::Worker> Synccheck::makeWorker() const {
  auto w = std::make_unique<Worker>();
  w->launch = launch_;
  w->warps.resize(static_cast<uint32_t>((launch_.block.count() + vm::kWarpSize - 1) / vm::kWarpSize));
  return w;
}

void Synccheck::onCtaBegin(unsigned worker, vm::Dim3 cta) {
  if (!workers_[worker])
    workers_[worker] = makeWorker();
  workers_[worker]->beginCta(cta, ctaLinear(cta, launch_.grid));
}

void Synccheck::onCtaEnd(unsigned worker, vm::Dim3) {
  workers_[worker]->endCta();
}

void Synccheck::onWarpBegin(const vm::WarpRef &warp, uint32_t liveMask) {
  Worker::WarpState &w = workers_[warp.worker]->warps[warp.warp];
  w.initialMask = w.liveMask = liveMask;
}

void Synccheck::onWarpEnd(const vm::WarpRef &warp) {
  workers_[warp.worker]->warps[warp.warp].done = true;
}

void Synccheck::onExit(const vm::WarpRef &warp, const vm::ExitEvent &e) {
  Worker::WarpState &w = workers_[warp.worker]->warps[warp.warp];
  w.liveMask &= ~e.mask;
  for (uint32_t m = e.mask; m; m &= m - 1)
    w.exitSite[std::countr_zero(m)] = {warp.function, e.instruction};
}

void Synccheck::onBarrier(const vm::WarpRef &warp, const vm::BarrierEvent &e) {
  if (e.barrier >= kNumBarriers)
    return;
  Worker &w = *workers_[warp.worker];
  if (e.release)
    w.release(e.barrier);
  else
    w.arrive(warp.warp, e, {warp.function, e.instruction});
}

void Synccheck::onWarpSync(const vm::WarpRef &warp, const vm::WarpSyncEvent &e) {
  workers_[warp.worker]->warpSync(warp.warp, e, {warp.function, e.instruction});
}

namespace {

std::string headline(Check check, const SiteText &site, const SiteText &other) {
  switch (check) {
  case Check::PartialBarrier:
    return fmt::format("Barrier error: not every thread of the block reaches the barrier at {}; the others exited "
                       "at {}",
                       site.shortPlace(), other.shortPlace());
  case Check::BarrierDeadlock:
    return fmt::format("Barrier error: the barrier at {} never completes; the threads it waits for are at {}",
                       site.shortPlace(), other.shortPlace());
  case Check::DifferentBarriers:
    return fmt::format("Barrier error: threads of one block wait at different barriers, {} and {}", site.shortPlace(),
                       other.shortPlace());
  case Check::CountMismatch:
    return fmt::format("Barrier error: mismatched thread counts for one barrier at {} and {}", site.shortPlace(),
                       other.shortPlace());
  case Check::DivergentWarp: return fmt::format("Barrier error: divergent threads in warp at {}", site.shortPlace());
  case Check::LaneNotInMask:
    return fmt::format("Invalid arguments: executing lanes are not in the membermask at {}", site.shortPlace());
  case Check::MaskLanesAbsent:
    return fmt::format("Warp synchronization error: membermask lanes never arrive at {}", site.shortPlace());
  case Check::MaskLanesExited:
    return fmt::format("Warp synchronization error: membermask names exited lanes at {}", site.shortPlace());
  case Check::ShflBadSource:
    return fmt::format("Invalid arguments: shfl reads an inactive lane or one outside its membermask at {}",
                       site.shortPlace());
  }
  return "?";
}

} // namespace

void Synccheck::onLaunchEnd() {
  std::erase(workers_, nullptr);
  std::map<CheckKey, CheckEntry> merged;
  for (const auto &w : workers_)
    for (const auto &[key, entry] : w->found) {
      auto [it, inserted] = merged.try_emplace(key, entry);
      if (inserted)
        continue;
      it->second.count += entry.count;
      if (entry.example.tie() < it->second.example.tie())
        it->second.example = entry.example;
    }
  const vm::DecodedFunction &kernel = *launch_.kernel;
  for (const auto &[key, entry] : merged) {
    const SiteText site = describeSite(key.site);
    const SiteText other = key.other.function ? describeSite(key.other) : SiteText{};
    Hazard h;
    h.sites = {site};
    if (key.other.function)
      h.sites.push_back(other);
    h.severity = Severity::Error;
    h.occurrences = entry.count;
    h.headline = headline(key.check, site, other);
    h.kernel = kernel.name;
    h.details.push_back(fmt::format("in kernel {}", kernel.name));
    h.details.push_back(fmt::format("at {}  {}", site.ptxLocation, site.ptxText));
    if (key.other.function)
      h.details.push_back(fmt::format("and {}  {}", other.ptxLocation, other.ptxText));
    h.details.push_back(entry.example.detail);
    ++errors_;
    launchHazards_.push_back(std::move(h));
  }
  workers_.clear();
}

} // namespace ptxray::sanitizers
