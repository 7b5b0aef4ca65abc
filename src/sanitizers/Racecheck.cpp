#include "sanitizers/Racecheck.h"

#include "support/MemoryBudget.h"

#include <algorithm>
#include <bit>
#include <fmt/format.h>
#include <memory>
#include <tuple>
#include <unordered_map>

namespace ptxray::sanitizers {

const char *raceKindName(RaceKind kind) {
  switch (kind) {
  case RaceKind::ReadAfterWrite: return "Read-After-Write";
  case RaceKind::WriteAfterRead: return "Write-After-Read";
  case RaceKind::WriteAfterWrite: return "Write-After-Write";
  }
  return "?";
}

namespace {

constexpr int kNumBarriers = 16;
/// Epochs grow per worker across CTAs (so that shadow entries of earlier CTAs need no clearing);
/// before they could wrap, the shadow is cleared and they start again.
constexpr uint32_t kEpochLimit = 0xf0000000u;

/// kStrong: an atomic, or ld/st with .relaxed/.acquire/.release semantics. Volatile is strong too
/// (relaxed.sys) but kept apart: within a warp it does not exempt a pair (see Racecheck.h).
enum RecordFlags : uint8_t { kAtomic = 1, kVolatile = 2, kStrong = 4 };

/// One access remembered in the shadow of a byte.
struct AccessRecord {
  uint32_t epoch = 0; ///< the warp's barrier epoch; valid only when >= the CTA's first epoch
  uint32_t gen = 0;   ///< the warp's synchronization generation (warp syncs and barriers)
  /// The warp's plain memory instructions since its last barrier, arrive-on, release or fence
  /// (this one included). Strong and volatile accesses do not count: spin loops repeat them as often as the
  /// schedule makes them, and a pair's name must not depend on that.
  uint32_t step = 0;
  uint32_t site = 0; ///< per-worker site id
  uint16_t thread = 0;
  uint8_t flags = 0;
};

struct ByteShadow {
  AccessRecord write;    ///< plain store or atomic (kAtomic)
  AccessRecord reads[2]; ///< reads by two different threads
};

/// The shadow of global memory (racecheck-global), for the bytes the running CTA touched: pages of
/// kPageBytes addresses, made on first touch and emptied when the next CTA begins. Memory grows with
/// what a CTA touches (60 bytes of shadow per byte, a page at least), never with allocation sizes, and
/// is taken from the memory budget: a CTA that touches more than the budget holds ends the launch with
/// a clear fault instead of exhausting the machine.
class GlobalShadow {
public:
  ByteShadow &at(uint64_t address) {
    const uint64_t page = address / kPageBytes;
    if (page != lastPage_ || !last_) [[unlikely]]
      find(page);
    return last_[address % kPageBytes];
  }
  /// Forgets every byte; up to kKeptPages pages stay allocated for the next CTA.
  void clear() {
    uint64_t dropped = 0;
    for (auto &[page, bytes] : pages_)
      if (free_.size() < kKeptPages)
        free_.push_back(std::move(bytes));
      else
        ++dropped;
    pages_.clear();
    last_ = nullptr;
    reservation_.shrink(dropped * kPageShadowBytes); // the kept pages stay reserved
  }

private:
  /// Small pages: a kernel whose threads each touch a word far from the others' pays 15 KB per word,
  /// not a 4 KiB page's 240 KB.
  static constexpr uint64_t kPageBytes = 256;
  static constexpr size_t kKeptPages = 256;
  static constexpr uint64_t kPageShadowBytes = sizeof(ByteShadow) * kPageBytes;

  void find(uint64_t page) {
    auto [it, inserted] = pages_.try_emplace(page);
    if (inserted) {
      if (!free_.empty()) {
        it->second = std::move(free_.back());
        free_.pop_back();
        std::fill_n(it->second.get(), kPageBytes, ByteShadow{});
      } else {
        if (!reservation_.tryGrow(kPageShadowBytes)) {
          pages_.erase(it);
          throw support::MemoryBudgetExceeded(
              fmt::format("racecheck's shadow of global memory ({} bytes per byte a block accesses; {} held by "
                          "this worker)",
                          sizeof(ByteShadow), support::memorySizeText(reservation_.bytes())),
              kPageShadowBytes, support::memoryInUse(), support::memoryBudget());
        }
        it->second = std::make_unique<ByteShadow[]>(kPageBytes);
      }
    }
    lastPage_ = page;
    last_ = it->second.get();
  }

  std::unordered_map<uint64_t, std::unique_ptr<ByteShadow[]>> pages_;
  std::vector<std::unique_ptr<ByteShadow[]>> free_;
  support::MemoryReservation reservation_;
  uint64_t lastPage_ = 0;
  ByteShadow *last_ = nullptr;
};

/// Morally strong (PTX memory model): both strong, with scopes that include both threads (every
/// scope includes a CTA's threads). Between lanes of a warp volatile does not count.
bool morallyStrong(const AccessRecord &a, const AccessRecord &b, bool intraWarp) {
  const uint8_t strong = intraWarp ? kStrong : kStrong | kVolatile;
  return (a.flags & strong) && (b.flags & strong);
}

/// The fence kinds of an instruction: what it does for release and acquire patterns.
enum FenceKind : uint8_t { kFenceRelease = 1, kFenceAcquire = 2 };

uint8_t fenceKind(const ptx::Instruction &inst) {
  if (inst.opcode != ptx::Opcode::fence && inst.opcode != ptx::Opcode::membar)
    return 0;
  // Proxy fences order accesses through different proxies of one thread, fence.mbarrier_init only
  // mbarrier.init: neither orders generic accesses between threads.
  if (inst.has(ptx::Mod::proxy) || inst.has(ptx::Mod::mbarrier_init))
    return 0;
  switch (inst.semantics) {
  case ptx::Mod::release: return kFenceRelease;
  case ptx::Mod::acquire: return kFenceAcquire;
  default: return kFenceRelease | kFenceAcquire; // .sc, .acq_rel (the default), membar
  }
}

/// Sync-clock key of the 4-byte word holding `address`: words of different spaces differ.
uint64_t syncKey(vm::Space space, uint64_t address) {
  return (address >> 2) | (uint64_t{static_cast<uint8_t>(space)} << 58);
}

struct HazardKey {
  bool intraWarp = false;
  Severity severity = Severity::Error;
  AccessKind firstKind = AccessKind::Read, secondKind = AccessKind::Read;
  vm::Space space = vm::Space::Shared;
  Site first, second;
  auto tie() const { return std::tuple(first.key(), second.key(), intraWarp, severity, firstKind, secondKind, space); }
  bool operator<(const HazardKey &o) const { return tie() < o.tie(); }
  bool operator==(const HazardKey &o) const { return tie() == o.tie(); }
};

struct HazardExample {
  uint64_t cta = 0;
  vm::Dim3 ctaId;
  uint64_t address = 0;
  uint32_t firstThread = 0, secondThread = 0;
  auto tie() const { return std::tuple(cta, address, firstThread, secondThread); }
};

struct HazardEntry {
  uint64_t count = 0;
  HazardExample example;
};

const char *accessName(AccessKind kind) {
  return kind == AccessKind::Read ? "Read" : kind == AccessKind::Write ? "Write" : "Atomic";
}

AccessKind kindOf(const AccessRecord &r, bool isWrite) {
  return r.flags & kAtomic ? AccessKind::Atomic : isWrite ? AccessKind::Write : AccessKind::Read;
}

RaceKind raceKind(AccessKind first, AccessKind second) {
  if (first == AccessKind::Read)
    return RaceKind::WriteAfterRead;
  return second == AccessKind::Read ? RaceKind::ReadAfterWrite : RaceKind::WriteAfterWrite;
}

bool strongSemantics(ptx::Mod m) {
  return m == ptx::Mod::relaxed || m == ptx::Mod::acquire || m == ptx::Mod::release || m == ptx::Mod::acq_rel ||
         m == ptx::Mod::sc;
}
bool acquireSemantics(ptx::Mod m) {
  return m == ptx::Mod::acquire || m == ptx::Mod::acq_rel || m == ptx::Mod::sc;
}
bool releaseSemantics(ptx::Mod m) {
  return m == ptx::Mod::release || m == ptx::Mod::acq_rel || m == ptx::Mod::sc;
}

} // namespace

struct Racecheck::Worker {
  const RacecheckOptions *options = nullptr;
  uint32_t numWarps = 0;

  // Sites: (function, instruction) -> compact id, per function a table by instruction index.
  std::vector<Site> sites;
  std::unordered_map<const vm::DecodedFunction *, std::vector<uint32_t>> siteIds;
  const vm::DecodedFunction *cachedFunction = nullptr;
  std::vector<uint32_t> *cachedIds = nullptr;

  std::vector<ByteShadow> shared;
  GlobalShadow global;

  // The running CTA's clocks.
  vm::Dim3 cta;
  uint64_t ctaIndex = 0;
  uint32_t epochBase = 1, nextEpoch = 1;
  std::vector<uint32_t> epoch, gen, step;
  std::vector<uint32_t> knows; ///< knows[w * numWarps + v]: v's accesses of epochs below it happened before w's
  struct Phase {
    std::vector<uint32_t> clock; ///< join of the arrivals' clocks
    uint64_t waiters = 0;        ///< warps that wait for the release
  };
  Phase barriers[kNumBarriers];
  /// mbarrier objects by shared offset: the join of the current phase's arrivals, and of the last
  /// completed phase of each parity.
  struct MbarrierClocks {
    std::vector<uint32_t> current, completed[2];
  };
  std::unordered_map<uint64_t, MbarrierClocks> mbarriers;

  /// Release/acquire through memory. A word a release wrote has a slot: syncClocks[slot * numWarps
  /// + v] is what its release sequence published of warp v (valid while syncLive[slot]).
  std::unordered_map<uint64_t, uint32_t> syncSlots;
  std::vector<uint32_t> syncClocks;
  std::vector<uint8_t> syncLive;
  /// Per warp (rows of numWarps): the clock as of its last releasing fence, for the strong stores
  /// after it of the lanes in fenceLanes; and what its lanes in pendingLanes read with strong loads
  /// that a later fence turns into an acquire.
  std::vector<uint32_t> fenceClock, pendingAcquire;
  std::vector<uint32_t> fenceLanes, pendingLanes;

  /// Per function, the fence kind of each instruction (empty: no fence in the function). Every
  /// instruction asks: the running function's table is cached as a bare pointer and size.
  std::unordered_map<const vm::DecodedFunction *, std::vector<uint8_t>> fenceKinds;
  const vm::DecodedFunction *cachedFenceFunction = nullptr;
  const uint8_t *cachedFences = nullptr;
  size_t cachedFenceCount = 0;

  std::map<HazardKey, HazardEntry> hazards;
  /// Keys already counted for the lane being processed: an occurrence is one thread access.
  std::vector<HazardKey> laneKeys;

  uint32_t siteOf(const vm::DecodedFunction *fn, uint32_t instruction) {
    if (fn != cachedFunction) {
      std::vector<uint32_t> &ids = siteIds[fn];
      if (ids.empty())
        ids.assign(fn && fn->source ? fn->source->instructions.size() + 1 : 1, UINT32_MAX);
      cachedFunction = fn;
      cachedIds = &ids;
    }
    std::vector<uint32_t> &ids = *cachedIds;
    if (instruction >= ids.size())
      ids.resize(instruction + 1, UINT32_MAX);
    if (ids[instruction] == UINT32_MAX) {
      ids[instruction] = static_cast<uint32_t>(sites.size());
      sites.push_back({fn, instruction});
    }
    return ids[instruction];
  }

  void beginCta(vm::Dim3 id, uint64_t linear) {
    cta = id;
    ctaIndex = linear;
    if (nextEpoch >= kEpochLimit) {
      std::fill(shared.begin(), shared.end(), ByteShadow{});
      nextEpoch = 1;
    }
    global.clear();
    epochBase = nextEpoch;
    std::fill(epoch.begin(), epoch.end(), epochBase);
    std::fill(gen.begin(), gen.end(), 1u);
    std::fill(step.begin(), step.end(), 0u);
    std::fill(knows.begin(), knows.end(), epochBase);
    for (Phase &p : barriers) {
      std::fill(p.clock.begin(), p.clock.end(), 0u);
      p.waiters = 0;
    }
    mbarriers.clear();
    syncSlots.clear();
    syncClocks.clear();
    syncLive.clear();
    std::fill(fenceLanes.begin(), fenceLanes.end(), 0u);
    std::fill(pendingLanes.begin(), pendingLanes.end(), 0u);
    std::fill(pendingAcquire.begin(), pendingAcquire.end(), 0u);
  }

  [[gnu::noinline]] void maybeFence(const vm::WarpRef &warp, const vm::InstructionEvent &e) {
    if (warp.function != cachedFenceFunction)
      cacheFences(warp.function);
    if (e.instruction < cachedFenceCount)
      if (const uint8_t kind = cachedFences[e.instruction]; kind && e.executedMask)
        fence(warp.warp, e.executedMask, kind);
  }

  void cacheFences(const vm::DecodedFunction *fn) {
    auto [it, inserted] = fenceKinds.try_emplace(fn);
    if (inserted && fn && fn->source) {
      const auto &instructions = fn->source->instructions;
      for (size_t i = 0; i < instructions.size(); ++i)
        if (uint8_t kind = fenceKind(instructions[i])) {
          it->second.resize(instructions.size(), 0);
          it->second[i] = kind;
        }
    }
    cachedFenceFunction = fn;
    cachedFences = it->second.data();
    cachedFenceCount = it->second.size();
  }

  uint32_t *row(std::vector<uint32_t> &clocks, uint32_t w) { return clocks.data() + uint64_t{w} * numWarps; }

  /// A new epoch for warp w: its accesses from now on are not covered by what it published so far.
  void nextWarpEpoch(uint32_t w) {
    ++epoch[w];
    step[w] = 0;
  }

  /// The slot of a word, created on request (nullptr when it has none).
  uint32_t *syncSlot(uint64_t key, bool create) {
    if (!create) {
      auto it = syncSlots.find(key);
      return it == syncSlots.end() ? nullptr : &it->second;
    }
    auto [it, inserted] = syncSlots.try_emplace(key, static_cast<uint32_t>(syncLive.size()));
    if (inserted) {
      syncLive.push_back(0);
      syncClocks.resize(syncClocks.size() + numWarps, 0u);
    }
    return &it->second;
  }

  /// Publishes `clock` on a word: replacing what it held (a store heads a new release sequence) or
  /// joining it (a read-modify-write continues the sequence).
  void publish(uint32_t slot, const uint32_t *clock, bool replace) {
    uint32_t *c = syncClocks.data() + uint64_t{slot} * numWarps;
    if (replace || !syncLive[slot])
      std::copy(clock, clock + numWarps, c);
    else
      for (uint32_t v = 0; v < numWarps; ++v)
        c[v] = std::max(c[v], clock[v]);
    syncLive[slot] = 1;
  }

  /// A release operation by warp w: what the warp did so far, up to and including the current
  /// instruction (its accesses have epoch[w], the warp moves to the next epoch afterwards).
  void publishRelease(uint32_t slot, uint32_t w, bool replace) {
    uint32_t *mine = row(knows, w);
    const uint32_t saved = mine[w];
    mine[w] = std::max(saved, epoch[w] + 1);
    publish(slot, mine, replace);
    mine[w] = saved;
  }

  void join(uint32_t *clock, uint32_t slot) {
    const uint32_t *c = syncClocks.data() + uint64_t{slot} * numWarps;
    for (uint32_t v = 0; v < numWarps; ++v)
      clock[v] = std::max(clock[v], c[v]);
  }

  /// A fence by the lanes `mask` of warp w: strong loads before it become acquires, and strong
  /// stores after it releases of what the warp did before it.
  void fence(uint32_t w, uint32_t mask, uint8_t kind) {
    uint32_t *mine = row(knows, w);
    if ((kind & kFenceAcquire) && (pendingLanes[w] & mask)) {
      uint32_t *pending = row(pendingAcquire, w);
      for (uint32_t v = 0; v < numWarps; ++v) {
        mine[v] = std::max(mine[v], pending[v]);
        pending[v] = 0;
      }
      pendingLanes[w] = 0;
      ++gen[w];
    }
    if (kind & kFenceRelease) {
      uint32_t *snapshot = row(fenceClock, w);
      std::copy(mine, mine + numWarps, snapshot);
      snapshot[w] = std::max(snapshot[w], epoch[w] + 1);
      nextWarpEpoch(w);
      fenceLanes[w] |= mask;
    }
  }

  MbarrierClocks &mbarrier(uint64_t address) {
    MbarrierClocks &m = mbarriers[address];
    if (m.current.empty()) {
      m.current.assign(numWarps, 0u);
      m.completed[0].assign(numWarps, 0u);
      m.completed[1].assign(numWarps, 0u);
    }
    return m;
  }

  /// An arrive-on: like a barrier arrival, what the warp did so far is released to the phase.
  void mbarrierArrive(uint32_t w, uint64_t address) {
    MbarrierClocks &m = mbarrier(address);
    const uint32_t *mine = knows.data() + uint64_t{w} * numWarps;
    for (uint32_t v = 0; v < numWarps; ++v)
      m.current[v] = std::max(m.current[v], mine[v]);
    m.current[w] = std::max(m.current[w], epoch[w] + 1);
    ++epoch[w];
    ++gen[w];
    step[w] = 0;
  }

  void mbarrierComplete(uint64_t address, bool parity) {
    MbarrierClocks &m = mbarrier(address);
    m.completed[parity ? 1 : 0] = m.current;
    std::fill(m.current.begin(), m.current.end(), 0u);
  }

  /// A wait that saw the phase complete acquires what its arrivals released.
  void mbarrierAcquire(uint32_t w, uint64_t address, bool parity) {
    MbarrierClocks &m = mbarrier(address);
    uint32_t *clock = knows.data() + uint64_t{w} * numWarps;
    const std::vector<uint32_t> &released = m.completed[parity ? 1 : 0];
    for (uint32_t v = 0; v < numWarps; ++v)
      clock[v] = std::max(clock[v], released[v]);
    ++gen[w];
  }

  void endCta() { nextEpoch = *std::max_element(epoch.begin(), epoch.end()) + 1; }

  /// A warp's barrier arrival: everything it did so far happens before what the waiters do after
  /// the release; what it does from now on is a new epoch.
  void arrive(uint32_t w, uint32_t id, bool waits) {
    Phase &p = barriers[id];
    const uint32_t *mine = knows.data() + uint64_t{w} * numWarps;
    for (uint32_t v = 0; v < numWarps; ++v)
      p.clock[v] = std::max(p.clock[v], mine[v]);
    p.clock[w] = std::max(p.clock[w], epoch[w] + 1);
    ++epoch[w];
    ++gen[w];
    step[w] = 0;
    if (waits)
      p.waiters |= uint64_t{1} << w;
  }

  void release(uint32_t id) {
    Phase &p = barriers[id];
    for (uint32_t w = 0; w < numWarps; ++w) {
      if (!((p.waiters >> w) & 1))
        continue;
      uint32_t *clock = knows.data() + uint64_t{w} * numWarps;
      for (uint32_t v = 0; v < numWarps; ++v)
        clock[v] = std::max(clock[v], p.clock[v]);
    }
    std::fill(p.clock.begin(), p.clock.end(), 0u);
    p.waiters = 0;
  }

  /// What a memory instruction of warp w does for release/acquire through memory, lane by lane
  /// (lanes run in order: a lane's acquire sees what an earlier lane's release published).
  void synchronize(uint32_t w, const vm::MemoryEvent &e, bool strong, bool isWrite, uint32_t bytes) {
    const bool rmw = e.op == vm::MemoryOp::Atomic || e.op == vm::MemoryOp::Reduction;
    const bool reads = e.op == vm::MemoryOp::Load || e.op == vm::MemoryOp::Atomic;
    const bool acquire = strong && reads && acquireSemantics(e.semantics);
    const bool release = strong && isWrite && releaseSemantics(e.semantics);
    bool acquired = false, released = false;
    for (uint32_t mask = e.mask; mask; mask &= mask - 1) {
      const int lane = std::countr_zero(mask);
      const uint32_t bit = uint32_t{1} << lane;
      const uint64_t first = syncKey(e.space, e.addresses[lane]);
      const uint64_t last = syncKey(e.space, e.addresses[lane] + bytes - 1);
      for (uint64_t key = first; key <= last; ++key) {
        if (!strong) {
          // A plain store: later reads of the word read it, not what a release wrote.
          if (const uint32_t *slot = syncSlot(key, false))
            syncLive[*slot] = 0;
          continue;
        }
        if (reads)
          if (const uint32_t *slot = syncSlot(key, false); slot && syncLive[*slot]) {
            if (acquire) {
              join(row(knows, w), *slot);
              acquired = true;
            } else {
              // A strong load that a later fence of the thread may make an acquire.
              join(row(pendingAcquire, w), *slot);
              pendingLanes[w] |= bit;
            }
          }
        if (!isWrite)
          continue;
        if (release) {
          publishRelease(*syncSlot(key, true), w, !rmw);
          released = true;
        } else if (fenceLanes[w] & bit) {
          publish(*syncSlot(key, true), row(fenceClock, w), !rmw);
        } else if (!rmw) {
          // A strong store that is no release ends the word's release sequence.
          if (const uint32_t *slot = syncSlot(key, false))
            syncLive[*slot] = 0;
        }
      }
    }
    // What the warp does after a release is not covered by it; after an acquire its lanes are
    // ordered after what was published (lanes of one warp synchronizing through memory too).
    if (acquired)
      ++gen[w];
    if (released)
      nextWarpEpoch(w);
  }

  bool valid(const AccessRecord &r) const { return r.epoch >= epochBase; }

  enum class Relation : uint8_t { Ordered, Race, IntraWarp };

  /// How an earlier access relates to the current one (`me`, by warp `w`).
  Relation relation(const AccessRecord &r, const AccessRecord &me, uint32_t w) const {
    if (r.thread == me.thread)
      return Relation::Ordered;
    uint32_t rw = r.thread / vm::kWarpSize;
    if (rw == w) {
      if (r.gen < me.gen)
        return Relation::Ordered;
      // Lanes of one instruction execution do not race with each other here (a warp's store of one
      // value from many lanes is a PTX-defined outcome, not a hazard between instructions).
      return r.step == me.step && r.site == me.site ? Relation::Ordered : Relation::IntraWarp;
    }
    return r.epoch < knows[uint64_t{w} * numWarps + rw] ? Relation::Ordered : Relation::Race;
  }

  void hazard(Relation rel, const AccessRecord &earlier, bool earlierWrite, const AccessRecord &me, bool meWrite,
              vm::Space space, uint64_t address) {
    if (morallyStrong(earlier, me, rel == Relation::IntraWarp))
      return;
    AccessKind earlierKind = kindOf(earlier, earlierWrite), meKind = kindOf(me, meWrite);
    HazardKey key;
    key.intraWarp = rel == Relation::IntraWarp;
    if (key.intraWarp && options->smVersion < 70) {
      // Before Volta a warp's lanes run in lock-step: with volatile accesses (no value kept in a
      // register) the warp-synchronous idiom works; without, it is a latent bug.
      if ((earlier.flags & kVolatile) && (me.flags & kVolatile))
        return;
      key.severity = Severity::Warning;
    }
    // Name the pair by the order of the accesses within their warps' barrier intervals (then by
    // code order): the same for every warp schedule.
    const Site &earlierSite = sites[earlier.site], &meSite = sites[me.site];
    bool earlierFirst = std::tuple(earlier.step, earlierSite.key()) <= std::tuple(me.step, meSite.key());
    const AccessRecord &first = earlierFirst ? earlier : me, &second = earlierFirst ? me : earlier;
    key.firstKind = earlierFirst ? earlierKind : meKind;
    key.secondKind = earlierFirst ? meKind : earlierKind;
    key.first = sites[first.site];
    key.second = sites[second.site];
    key.space = space;
    if (std::find(laneKeys.begin(), laneKeys.end(), key) != laneKeys.end())
      return;
    laneKeys.push_back(key);
    HazardExample example{ctaIndex, cta, address, first.thread, second.thread};
    auto [it, inserted] = hazards.try_emplace(key, HazardEntry{0, example});
    ++it->second.count;
    if (!inserted && example.tie() < it->second.example.tie())
      it->second.example = example;
  }

  void access(ByteShadow &s, const AccessRecord &me, bool isWrite, uint32_t w, vm::Space space, uint64_t address) {
    // Against the last write (strong accesses do not race with each other: hazard() decides).
    if (valid(s.write)) {
      Relation rel = relation(s.write, me, w);
      if (rel != Relation::Ordered)
        hazard(rel, s.write, true, me, isWrite, space, address);
    }
    if (!isWrite) {
      // A slot keeps its read until a read ordered after it (the same thread's, or one past a
      // barrier) replaces it. The two slots hold different threads, so a later write by either still
      // finds the other's read; of three or more reads unordered with each other the first two are
      // kept: the earliest unsynchronized read is the one a report should name.
      AccessRecord &r0 = s.reads[0], &r1 = s.reads[1];
      if (!valid(r0) || relation(r0, me, w) == Relation::Ordered) {
        r0 = me;
        if (valid(r1) && r1.thread == me.thread)
          r1 = AccessRecord{};
      } else if (!valid(r1) || relation(r1, me, w) == Relation::Ordered) {
        r1 = me;
      }
      return;
    }
    for (AccessRecord &r : s.reads) {
      if (!valid(r))
        continue;
      if (Relation rel = relation(r, me, w); rel != Relation::Ordered)
        hazard(rel, r, false, me, isWrite, space, address);
      // Ordered or reported: later writes are checked against this one instead (one report per
      // read, not one per later write).
      r = AccessRecord{};
    }
    s.write = me;
  }
};

Racecheck::Racecheck(RacecheckOptions options) : options_(options) {}
Racecheck::~Racecheck() = default;

void Racecheck::onLaunchBegin(const vm::LaunchInfo &info) {
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
  childGrids_.beginGrid(info, std::max({info.slots, info.workers, 1u}));
}

void Racecheck::onChildLaunch(const vm::WarpRef &warp, uint32_t lanes) {
  childGrids_.onChildLaunch(warp, lanes);
}

std::unique_ptr<Racecheck::Worker> Racecheck::makeWorker() const {
  const uint32_t numWarps = static_cast<uint32_t>((launch_.block.count() + vm::kWarpSize - 1) / vm::kWarpSize);
  const uint64_t sharedBytes = launch_.kernel->staticSharedBytes + launch_.dynamicSharedBytes;
  auto w = std::make_unique<Worker>();
  w->options = &options_;
  w->numWarps = numWarps;
  w->shared.resize(sharedBytes);
  w->epoch.resize(numWarps);
  w->gen.resize(numWarps);
  w->step.resize(numWarps);
  w->knows.resize(uint64_t{numWarps} * numWarps);
  w->fenceClock.resize(uint64_t{numWarps} * numWarps);
  w->pendingAcquire.resize(uint64_t{numWarps} * numWarps);
  w->fenceLanes.resize(numWarps);
  w->pendingLanes.resize(numWarps);
  for (Worker::Phase &p : w->barriers)
    p.clock.resize(numWarps);
  return w;
}

void Racecheck::onCtaBegin(unsigned worker, vm::Dim3 cta) {
  if (!workers_[worker])
    workers_[worker] = makeWorker();
  workers_[worker]->beginCta(cta, ctaLinear(cta, launch_.grid));
}

void Racecheck::onCtaEnd(unsigned worker, vm::Dim3) {
  workers_[worker]->endCta();
}

void Racecheck::onBarrier(const vm::WarpRef &warp, const vm::BarrierEvent &e) {
  Worker &w = *workers_[warp.worker];
  if (e.barrier >= kNumBarriers)
    return;
  if (e.release)
    w.release(e.barrier);
  else
    w.arrive(warp.warp, e.barrier, !e.arriveOnly);
}

void Racecheck::onWarpSync(const vm::WarpRef &warp, const vm::WarpSyncEvent &e) {
  // __syncwarp and the .sync intrinsics order the accesses of the lanes that take part. The legacy
  // forms (no membermask) promise nothing since Volta.
  if (e.hasMemberMask)
    ++workers_[warp.worker]->gen[warp.warp];
}

void Racecheck::onMbarrier(const vm::WarpRef &warp, const vm::MbarrierEvent &e) {
  Worker &w = *workers_[warp.worker];
  switch (e.op) {
  case vm::MbarrierOp::Arrive: w.mbarrierArrive(warp.warp, e.address); break;
  case vm::MbarrierOp::PhaseComplete: w.mbarrierComplete(e.address, e.parity); break;
  case vm::MbarrierOp::WaitComplete: w.mbarrierAcquire(warp.warp, e.address, e.parity); break;
  }
}

void Racecheck::onInstruction(const vm::WarpRef &warp, const vm::InstructionEvent &e) {
  // Every instruction of every warp comes here: the common path is two compares, without a frame
  // (a function without fences has an empty table).
  Worker &w = *workers_[warp.worker];
  if (warp.function != w.cachedFenceFunction || e.instruction < w.cachedFenceCount) [[unlikely]]
    w.maybeFence(warp, e);
}

void Racecheck::onMemory(const vm::WarpRef &warp, const vm::MemoryEvent &e) {
  if (e.isSynchronization)
    return; // an mbarrier's own word (onMbarrier follows what it orders)
  childGrids_.onMemory(warp, e);
  const bool isShared = e.space == vm::Space::Shared;
  if (!isShared && e.space != vm::Space::Global)
    return;
  if (e.path != vm::MemoryPath::LoadStore || e.width == 0 || e.mask == 0)
    return;
  Worker &w = *workers_[warp.worker];
  const uint32_t wi = warp.warp;
  const bool atomic = e.op == vm::MemoryOp::Atomic || e.op == vm::MemoryOp::Reduction;
  const bool strong = atomic || strongSemantics(e.semantics);
  const bool isWrite = e.op != vm::MemoryOp::Load;
  const uint32_t bytes = uint32_t{e.width} * e.vec;
  if (isShared || options_.globalMemory) {
    AccessRecord me;
    me.epoch = w.epoch[wi];
    me.gen = w.gen[wi];
    me.step = strong || e.isVolatile ? w.step[wi] : ++w.step[wi];
    me.site = w.siteOf(warp.function, e.instruction);
    me.flags = static_cast<uint8_t>((atomic ? kAtomic : 0) | (strong ? kStrong : 0) | (e.isVolatile ? kVolatile : 0));
    const uint64_t sharedSize = w.shared.size();
    for (uint32_t mask = e.mask; mask; mask &= mask - 1) {
      const int lane = std::countr_zero(mask);
      me.thread = static_cast<uint16_t>(wi * vm::kWarpSize + static_cast<uint32_t>(lane));
      w.laneKeys.clear();
      const uint64_t address = e.addresses[lane];
      for (uint32_t b = 0; b < bytes; ++b) {
        const uint64_t at = address + b;
        if (isShared) {
          if (at < sharedSize)
            w.access(w.shared[at], me, isWrite, wi, e.space, at);
        } else {
          w.access(w.global.at(at), me, isWrite, wi, e.space, at);
        }
      }
    }
  }
  // After the accesses: a release covers the instruction's own accesses, an acquire orders only
  // what follows it. Plain loads never synchronize; plain stores matter only to words a release
  // wrote (they end its release sequence).
  if (strong || e.isVolatile || (isWrite && !w.syncSlots.empty()))
    w.synchronize(wi, e, strong || e.isVolatile, isWrite, bytes);
}

void Racecheck::onLaunchEnd() {
  std::erase(workers_, nullptr);
  std::map<HazardKey, HazardEntry> merged;
  for (const auto &w : workers_)
    for (const auto &[key, entry] : w->hazards) {
      auto [it, inserted] = merged.try_emplace(key, entry);
      if (inserted)
        continue;
      it->second.count += entry.count;
      if (entry.example.tie() < it->second.example.tie())
        it->second.example = entry.example;
    }
  const vm::DecodedFunction &kernel = *launch_.kernel;
  for (const auto &[key, entry] : merged) {
    const SiteText first = describeSite(key.first), second = describeSite(key.second);
    const RaceKind kind = raceKind(key.firstKind, key.secondKind);
    Hazard h;
    h.sites = {first, second};
    h.severity = key.severity;
    h.occurrences = entry.count;
    const char *space = vm::spaceName(key.space);
    if (key.intraWarp)
      h.headline = fmt::format("Intra-warp hazard ({}) between {} access at {} and {} access at {} in {} memory",
                               raceKindName(kind), accessName(key.firstKind), first.shortPlace(),
                               accessName(key.secondKind), second.shortPlace(), space);
    else
      h.headline = fmt::format("Race reported between {} access at {} and {} access at {} ({} hazard, {} memory)",
                               accessName(key.firstKind), first.shortPlace(), accessName(key.secondKind),
                               second.shortPlace(), raceKindName(kind), space);
    h.kernel = kernel.name;
    h.details.push_back(fmt::format("in kernel {}", kernel.name));
    auto accessLine = [&](AccessKind k, const SiteText &t, uint32_t thread) {
      std::string line = fmt::format("{} by thread {} at {}  {}", accessName(k),
                                     dimText(threadOf(thread, launch_.block)), t.ptxLocation, t.ptxText);
      if (t.function != kernel.name)
        line += fmt::format(" (in {})", t.function);
      return line;
    };
    h.details.push_back(accessLine(key.firstKind, first, entry.example.firstThread));
    h.details.push_back(accessLine(key.secondKind, second, entry.example.secondThread));
    std::string where =
        fmt::format("in block {}, address 0x{:x} ({})", dimText(entry.example.ctaId), entry.example.address, space);
    if (key.space == vm::Space::Shared)
      if (std::string variable = sharedVariableAt(kernel, entry.example.address); !variable.empty())
        where += fmt::format(", {}", variable);
    h.details.push_back(where);
    if (key.intraWarp)
      h.details.push_back(
          key.severity == Severity::Error
              ? "threads of a warp are not implicitly synchronized since Volta (sm_70): put __syncwarp() "
                "between the accesses, or exchange the values with __shfl_sync()"
              : "correct only under the pre-Volta lock-step assumption and only with volatile accesses; since "
                "Volta it needs __syncwarp()");
    (h.severity == Severity::Error ? errors_ : warnings_)++;
    launchHazards_.push_back(std::move(h));
  }
  workers_.clear();
  errors_ += childGrids_.endGrid(launchHazards_);
}

} // namespace ptxray::sanitizers
