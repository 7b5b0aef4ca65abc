#include "model/PerformanceModel.h"

#include "model/SharedBanks.h"
#include "ptx/Demangle.h"
#include "ptx/LineTable.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <utility>

namespace ptxray::model {

void InstructionCounters::scale(double f) {
  for (auto field : fields())
    this->*field = static_cast<uint64_t>(static_cast<double>(this->*field) * f + 0.5);
}

namespace {

/// Distinct sectors a worker's accesses touched: what the DRAM traffic would be with perfect reuse.
/// Each sector also keeps which of its bytes were touched (one bit per byte of a 32-byte sector; per
/// 1/32 of a larger one): the bytes the algorithm reads or writes, once each ([BPG] 2.2.2's effective
/// bandwidth). Kept in pages of 256 consecutive sectors (a presence bit and the touched-byte bits
/// each) found through a small hash directory: a kernel's accesses walk through memory, so most land
/// in the page of the one before, and a footprint costs an eighth of its size (a hash set of sectors
/// cost 24 bytes a 32-byte sector, and most of a large-footprint launch's time went into zero-filling
/// and rehashing it).
class SectorSet {
public:
  /// True when `sector` is new.
  bool insert(uint64_t sector, uint32_t bytes = 0) {
    Page &p = pageFor(sector >> kPageBits);
    const uint32_t i = static_cast<uint32_t>(sector & kPageMask);
    p.bytes[i] |= bytes;
    uint64_t &word = p.present[i >> 6];
    const uint64_t bit = uint64_t{1} << (i & 63);
    if (word & bit)
      return false;
    word |= bit;
    ++size_;
    return true;
  }
  bool contains(uint64_t sector) const {
    const Page *p = findPage(sector >> kPageBits);
    const uint32_t i = static_cast<uint32_t>(sector & kPageMask);
    return p && (p->present[i >> 6] >> (i & 63) & 1);
  }
  /// The sector's touched-byte bits (0 when absent).
  uint32_t bytesOf(uint64_t sector) const {
    const Page *p = findPage(sector >> kPageBits);
    return p ? p->bytes[sector & kPageMask] : 0;
  }
  uint64_t size() const { return size_; }
  /// Adds every sector of `other`, with its touched bytes.
  void merge(const SectorSet &other) {
    for (size_t k = 0; k < other.pages_.size(); ++k) {
      const Page &from = *other.pages_[k];
      Page &to = pageFor(other.pageKeys_[k]);
      for (int w = 0; w < kPresenceWords; ++w) {
        size_ += static_cast<uint64_t>(std::popcount(from.present[w] & ~to.present[w]));
        to.present[w] |= from.present[w];
      }
      for (uint32_t i = 0; i < kPageSectors; ++i)
        to.bytes[i] |= from.bytes[i];
    }
  }
  template <class F> void forEach(F &&f) const {
    forEachWithBytes([&](uint64_t s, uint32_t) { f(s); });
  }
  /// f(sector, touched-byte bits)
  template <class F> void forEachWithBytes(F &&f) const {
    for (size_t k = 0; k < pages_.size(); ++k) {
      const Page &p = *pages_[k];
      const uint64_t base = pageKeys_[k] << kPageBits;
      for (int w = 0; w < kPresenceWords; ++w)
        for (uint64_t bits = p.present[w]; bits; bits &= bits - 1) {
          const uint32_t i = static_cast<uint32_t>(w * 64 + std::countr_zero(bits));
          f(base | i, p.bytes[i]);
        }
    }
  }

private:
  static constexpr unsigned kPageBits = 8;
  static constexpr uint32_t kPageSectors = 1u << kPageBits;
  static constexpr uint64_t kPageMask = kPageSectors - 1;
  static constexpr int kPresenceWords = kPageSectors / 64;
  struct Page {
    uint64_t present[kPresenceWords] = {};
    uint32_t bytes[kPageSectors] = {};
  };
  static size_t slotOf(uint64_t key, size_t mask) { return ((key + 1) * 0x9E3779B97F4A7C15ull >> 20) & mask; }
  const Page *findPage(uint64_t key) const {
    if (key == lastKey_ && lastPage_)
      return lastPage_;
    if (directory_.empty())
      return nullptr;
    const size_t mask = directory_.size() - 1;
    for (size_t i = slotOf(key, mask);; i = (i + 1) & mask) {
      const uint32_t slot = directory_[i];
      if (slot == kEmpty)
        return nullptr;
      if (pageKeys_[slot] == key) {
        lastKey_ = key;
        lastPage_ = pages_[slot].get();
        return lastPage_;
      }
    }
  }
  Page &pageFor(uint64_t key) {
    if (const Page *p = findPage(key))
      return *const_cast<Page *>(p);
    if ((pages_.size() + 1) * 2 > directory_.size())
      growDirectory();
    const size_t mask = directory_.size() - 1;
    size_t i = slotOf(key, mask);
    while (directory_[i] != kEmpty)
      i = (i + 1) & mask;
    directory_[i] = static_cast<uint32_t>(pages_.size());
    pages_.push_back(std::make_unique<Page>());
    pageKeys_.push_back(key);
    lastKey_ = key;
    lastPage_ = pages_.back().get();
    return *pages_.back();
  }
  void growDirectory() {
    directory_.assign(std::max<size_t>(64, directory_.size() * 2), kEmpty);
    const size_t mask = directory_.size() - 1;
    for (uint32_t slot = 0; slot < pages_.size(); ++slot) {
      size_t i = slotOf(pageKeys_[slot], mask);
      while (directory_[i] != kEmpty)
        i = (i + 1) & mask;
      directory_[i] = slot;
    }
  }
  static constexpr uint32_t kEmpty = ~uint32_t{0};
  std::vector<uint32_t> directory_; ///< open addressing over page keys: an index into pages_, or kEmpty
  std::vector<std::unique_ptr<Page>> pages_;
  std::vector<uint64_t> pageKeys_; ///< the first sector of pages_[k], >> kPageBits
  /// The page of the last lookup (worker-owned: no other thread looks up meanwhile).
  mutable uint64_t lastKey_ = 0;
  mutable const Page *lastPage_ = nullptr;
  uint64_t size_ = 0;
};

/// The L2 cycles of global atomics per atomic unit (address range): open addressing over a
/// power-of-two table, grown at half load (the serialization bound).
class RegionCycles {
public:
  void add(uint64_t region, double cycles) {
    if ((size_ + 1) * 2 > slots_.size())
      grow();
    addTo(slots_, region, cycles);
  }
  double hottest() const {
    double most = 0;
    for (const Slot &s : slots_)
      most = std::max(most, s.cycles);
    return most;
  }
  template <class F> void forEach(F &&f) const {
    for (const Slot &s : slots_)
      if (s.used)
        f(s.region, s.cycles);
  }

private:
  struct Slot {
    uint64_t region = 0;
    double cycles = 0;
    bool used = false;
  };
  void addTo(std::vector<Slot> &slots, uint64_t region, double cycles) {
    const size_t mask = slots.size() - 1;
    for (size_t i = (region * 0x9E3779B97F4A7C15ull) >> 20 & mask;; i = (i + 1) & mask) {
      if (!slots[i].used) {
        slots[i] = {region, cycles, true};
        ++size_;
        return;
      }
      if (slots[i].region == region) {
        slots[i].cycles += cycles;
        return;
      }
    }
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(std::max<size_t>(64, old.size() * 2), Slot{});
    size_ = 0;
    for (const Slot &slot : old)
      if (slot.used)
        addTo(slots_, slot.region, slot.cycles);
  }
  std::vector<Slot> slots_;
  uint64_t size_ = 0;
};

/// The most lanes of `mask` that name one address (1 when all differ).
int sameAddressLanes(const std::array<uint64_t, vm::kWarpSize> &addresses, uint32_t mask) {
  std::array<uint64_t, vm::kWarpSize> a;
  int n = 0;
  for (uint32_t m = mask; m; m &= m - 1)
    a[static_cast<size_t>(n++)] = addresses[static_cast<size_t>(std::countr_zero(m))];
  std::sort(a.begin(), a.begin() + n);
  int most = n ? 1 : 0, run = 1;
  for (int i = 1; i < n; ++i) {
    run = a[static_cast<size_t>(i)] == a[static_cast<size_t>(i - 1)] ? run + 1 : 1;
    most = std::max(most, run);
  }
  return most;
}

/// What a warp's global atomic costs the L2 atomic units: per sector it updates, the sector cost and
/// the same-address cost of each lane beyond the first on one address; added to the sector's unit.
void chargeAtomic(const arch::ComputeCapability &cc, const std::array<uint64_t, vm::kWarpSize> &addresses,
                  uint32_t mask, uint64_t sectorBytes, RegionCycles &units) {
  std::array<uint64_t, vm::kWarpSize> a;
  int n = 0;
  for (uint32_t m = mask; m; m &= m - 1)
    a[static_cast<size_t>(n++)] = addresses[static_cast<size_t>(std::countr_zero(m))];
  std::sort(a.begin(), a.begin() + n);
  const uint64_t region = static_cast<uint64_t>(std::max(cc.memory.atomicRegionBytes, 1));
  const uint64_t sector = std::max<uint64_t>(sectorBytes, 1);
  for (int i = 0; i < n;) {
    const uint64_t s = a[static_cast<size_t>(i)] / sector;
    int most = 1, run = 1, j = i + 1;
    for (; j < n && a[static_cast<size_t>(j)] / sector == s; ++j) {
      run = a[static_cast<size_t>(j)] == a[static_cast<size_t>(j - 1)] ? run + 1 : 1;
      most = std::max(most, run);
    }
    units.add(a[static_cast<size_t>(i)] / region,
              cc.latency.atomicSectorCycles + (most - 1) * cc.latency.sameAddressAtomicCycles);
    i = j;
  }
}

/// A group of 8 consecutive sectors (256 bytes of 32-byte sectors) and which of them: the CTA tables
/// below keep one slot a group, so a coalesced request's sectors cost one lookup, not four.
constexpr unsigned kGroupShift = 3;
inline uint64_t groupOf(uint64_t sector) {
  return sector >> kGroupShift;
}
inline uint32_t bitInGroup(uint64_t sector) {
  return 1u << (sector & ((1u << kGroupShift) - 1));
}

/// Calls f(group, mask) for each run of `sectors` (sorted, distinct) in one group.
template <class Sectors, class F> void forEachGroup(const Sectors &sectors, F &&f) {
  auto it = sectors.begin();
  const auto end = sectors.end();
  while (it != end) {
    const uint64_t group = groupOf(*it);
    uint32_t mask = 0;
    for (; it != end && groupOf(*it) == group; ++it)
      mask |= bitInGroup(*it);
    f(group, mask);
  }
}

/// Open addressing over a power-of-two table of slots that are empty unless they carry the current
/// generation, so clearing at each CTA is one increment. Slot: a key (`matches`), the generation and
/// an 8-bit sector mask.
template <class Slot> class GenerationTable {
public:
  void clear() {
    size_ = 0;
    if (++generation_ == 0) { // wrapped: stale slots could match again
      for (Slot &slot : slots_)
        slot.generation = 0;
      generation_ = 1;
    }
  }
  /// The slot of `key` (made empty with `key` when absent), or nullptr when absent and !create.
  template <class Key> Slot *find(const Key &key, uint64_t hash, bool create) {
    if (create && (size_ + 1) * 2 > slots_.size())
      grow();
    if (slots_.empty())
      return nullptr;
    const size_t mask = slots_.size() - 1;
    for (size_t i = (hash >> 20) & mask;; i = (i + 1) & mask) {
      Slot &slot = slots_[i];
      if (slot.generation != generation_) {
        if (!create)
          return nullptr;
        slot = Slot::make(key, generation_);
        ++size_;
        return &slot;
      }
      if (slot.matches(key))
        return &slot;
    }
  }

private:
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(std::max<size_t>(256, old.size() * 2), Slot{});
    size_ = 0;
    for (const Slot &slot : old)
      if (slot.generation == generation_ && slot.mask)
        *find(slot.key(), slot.hash(), true) = slot;
  }
  std::vector<Slot> slots_;
  uint64_t size_ = 0;
  uint32_t generation_ = 1;
};

/// The (site, sector) pairs of the CTA a worker is running, a slot per (site, group of sectors).
class CtaSectorSet {
public:
  void clear() { table_.clear(); }
  /// How many of the group's sectors in `mask` are new for `site` in this CTA.
  uint32_t insert(uint64_t site, uint64_t group, uint32_t mask) {
    Slot *slot = table_.find(Key{site, group}, Slot::hashOf(Key{site, group}), true);
    const uint32_t fresh = mask & ~slot->mask;
    slot->mask |= mask;
    return static_cast<uint32_t>(laneCount(fresh));
  }

private:
  struct Key {
    uint64_t site, group;
  };
  struct Slot {
    uint64_t site = 0, group = 0;
    uint32_t generation = 0; ///< 0 never matches: generations start at 1
    uint32_t mask = 0;
    static uint64_t hashOf(const Key &k) { return (k.group ^ k.site * 0xC2B2AE3D27D4EB4Full) * 0x9E3779B97F4A7C15ull; }
    static Slot make(const Key &k, uint32_t generation) { return {k.site, k.group, generation, 0}; }
    bool matches(const Key &k) const { return group == k.group && site == k.site; }
    Key key() const { return {site, group}; }
    uint64_t hash() const { return hashOf(key()); }
  };
  GenerationTable<Slot> table_;
};

/// The sectors the running CTA's L1 holds: loads through L1 bring a sector in, global stores and
/// atomics take it out (L1 is write-through and does not keep what is written: a load of data the
/// CTA wrote goes to L2; measured: validation/model latency#11-12, a single-block LU). A slot per
/// group of sectors.
class CtaL1 {
public:
  void clear() { table_.clear(); }
  /// Of the group's sectors in `mask`, those it held (hits); it holds all of them from now on.
  uint32_t load(uint64_t group, uint32_t mask) {
    Slot *slot = table_.find(group, Slot::hashOf(group), true);
    const uint32_t hits = mask & slot->mask;
    slot->mask |= mask;
    return hits;
  }
  /// Sectors it does not hold stay out of the table (stores evict every sector they write).
  void evict(uint64_t group, uint32_t mask) {
    if (Slot *slot = table_.find(group, Slot::hashOf(group), false))
      slot->mask &= ~mask;
  }

private:
  struct Slot {
    uint64_t group = 0;
    uint32_t generation = 0;
    uint32_t mask = 0; ///< the sectors held
    static uint64_t hashOf(uint64_t g) { return g * 0x9E3779B97F4A7C15ull; }
    static Slot make(uint64_t g, uint32_t generation) { return {g, generation, 0}; }
    bool matches(uint64_t g) const { return group == g; }
    uint64_t key() const { return group; }
    uint64_t hash() const { return hashOf(group); }
  };
  GenerationTable<Slot> table_;
};

/// A block size for addresses, as a shift when it is a power of two (a 64-bit division per lane
/// would dominate the cost of the hot path).
struct Granule {
  uint64_t bytes = 1;
  int shift = 0; ///< -1 when `bytes` is not a power of two
  explicit Granule(uint64_t size)
      : bytes(std::max<uint64_t>(size, 1)), shift((bytes & (bytes - 1)) == 0 ? std::countr_zero(bytes) : -1) {}
  uint64_t indexOf(uint64_t address) const { return shift >= 0 ? address >> shift : address / bytes; }
};

/// Whether lane k's address is lane 0's plus k elements, for every lane (branch-free: it vectorizes).
bool lanesAreConsecutive(const std::array<uint64_t, vm::kWarpSize> &addresses, uint64_t elementBytes) {
  bool consecutive = true;
  for (size_t lane = 1; lane < vm::kWarpSize; ++lane)
    consecutive &= addresses[lane] - addresses[lane - 1] == elementBytes;
  return consecutive;
}

/// The distance between the first two active lanes' addresses, per lane of distance (0 when fewer
/// than two lanes are active or it is not a whole number of bytes a lane): the stride of a column
/// read, also when a warp spans two or more rows of a block.
uint64_t neighbourLaneStride(const std::array<uint64_t, vm::kWarpSize> &addresses, uint32_t mask) {
  if (laneCount(mask) < 2)
    return 0;
  const int first = std::countr_zero(mask);
  mask &= mask - 1;
  const int second = std::countr_zero(mask);
  const int64_t delta =
      static_cast<int64_t>(addresses[static_cast<size_t>(second)] - addresses[static_cast<size_t>(first)]);
  if (delta % (second - first) != 0)
    return 0;
  const int64_t stride = delta / (second - first);
  return static_cast<uint64_t>(stride < 0 ? -stride : stride);
}

/// Bytes per touched-byte bit of a granule (SectorSet keeps 32 bits a granule).
uint64_t bytesPerTouchedBit(Granule granule) {
  return std::max<uint64_t>((granule.bytes + 31) / 32, 1);
}

/// Local memory's sectors are keyed per warp with this bit (a global sector index never has it).
constexpr uint64_t kLocalSectorBit = uint64_t{1} << 62;
bool isLocalSector(uint64_t sector) {
  return (sector & kLocalSectorBit) != 0;
}

/// The touched-byte bits of a whole granule.
uint32_t fullTouchedBits(Granule granule) {
  const uint64_t bits = (granule.bytes + bytesPerTouchedBit(granule) - 1) / bytesPerTouchedBit(granule);
  return bits >= 32 ? ~uint32_t{0} : (uint32_t{1} << bits) - 1;
}

/// The granules the lanes of `mask` touch ([address, address + bytes) each) with the bits of the
/// bytes they touch (bytesPerTouchedBit), merged over neighbouring lanes on one granule: f(granule,
/// bits) once per run, in lane order.
template <class F>
void forEachTouchedGranule(const std::array<uint64_t, vm::kWarpSize> &addresses, uint32_t mask, uint32_t bytes,
                           Granule granule, F &&f) {
  const uint64_t perBit = bytesPerTouchedBit(granule);
  uint64_t current = ~uint64_t{0};
  uint32_t bits = 0;
  // Bits lo..hi (inclusive) of granule g; a run of lanes on one granule is reported once.
  auto touch = [&](uint64_t g, uint64_t lo, uint64_t hi) {
    if (g != current) {
      if (current != ~uint64_t{0})
        f(current, bits);
      current = g;
      bits = 0;
    }
    bits |= hi - lo >= 31 ? ~uint32_t{0} : ((uint32_t{1} << (hi - lo + 1)) - 1) << lo;
  };
  if (perBit == 1 && granule.shift >= 0) {
    // The usual case, 32-byte sectors (or smaller granules): a bit a byte, shifts only.
    const uint64_t within = granule.bytes - 1;
    while (mask) {
      const int lane = std::countr_zero(mask);
      mask &= mask - 1;
      const uint64_t address = addresses[static_cast<size_t>(lane)], last = address + bytes - 1;
      const uint64_t first = address >> granule.shift, lastGranule = last >> granule.shift;
      if (first == lastGranule) {
        touch(first, address & within, last & within);
        continue;
      }
      for (uint64_t g = first; g <= lastGranule; ++g) {
        const uint64_t base = g << granule.shift;
        touch(g, std::max(address, base) - base, std::min(last, base + within) - base);
      }
    }
  } else {
    while (mask) {
      const int lane = std::countr_zero(mask);
      mask &= mask - 1;
      const uint64_t address = addresses[static_cast<size_t>(lane)], end = address + bytes;
      const uint64_t first = granule.indexOf(address), last = granule.indexOf(end - 1);
      for (uint64_t g = first; g <= last; ++g) {
        const uint64_t base = g * granule.bytes;
        touch(g, (std::max(address, base) - base) / perBit, (std::min(end, base + granule.bytes) - base - 1) / perBit);
      }
    }
  }
  if (current != ~uint64_t{0})
    f(current, bits);
}

/// Granule indices of one access (or of one texture fetch's footprint): a buffer that only grows, so
/// that filling it costs plain stores (no zeroing, no per-element capacity checks).
class GranuleList {
public:
  void clear() { size_ = 0; }
  size_t size() const { return size_; }
  uint64_t *begin() { return data_.get(); }
  uint64_t *end() { return data_.get() + size_; }
  const uint64_t *begin() const { return data_.get(); }
  const uint64_t *end() const { return data_.get() + size_; }

  /// Appends the granules each lane of `mask` touches ([address, address + bytes)), in lane order,
  /// skipping a repeat of the previous one (neighbouring lanes mostly share one).
  void append(const std::array<uint64_t, vm::kWarpSize> &addresses, uint32_t mask, uint32_t bytes, Granule granule) {
    reserve(size_ + static_cast<size_t>(laneCount(mask)) * (granule.indexOf(bytes - 1) + 2));
    uint64_t *next = data_.get() + size_;
    uint64_t previous = ~uint64_t{0};
    while (mask) {
      const int lane = std::countr_zero(mask);
      mask &= mask - 1;
      const uint64_t address = addresses[static_cast<size_t>(lane)];
      const uint64_t first = granule.indexOf(address), last = granule.indexOf(address + bytes - 1);
      for (uint64_t g = first; g <= last; ++g)
        if (g != previous) {
          *next++ = g;
          previous = g;
        }
    }
    size_ = static_cast<size_t>(next - data_.get());
  }

  /// As append, with each granule's touched-byte bits (bitsAt; forEachTouchedGranule's), merged over
  /// neighbouring lanes: one pass over the lanes for both.
  void appendTouched(const std::array<uint64_t, vm::kWarpSize> &addresses, uint32_t mask, uint32_t bytes,
                     Granule granule) {
    reserve(size_ + static_cast<size_t>(laneCount(mask)) * (granule.indexOf(bytes - 1) + 2));
    size_t n = size_;
    forEachTouchedGranule(addresses, mask, bytes, granule, [&](uint64_t g, uint32_t bits) {
      data_[n] = g;
      bits_[n++] = bits;
    });
    size_ = n;
  }
  uint32_t bitsAt(size_t i) const { return bits_[i]; }

  /// The granules of one contiguous range [address, address + bytes) with their touched-byte bits, in
  /// order: what appendTouched gives for a warp whose lanes read consecutive elements (the usual
  /// coalesced access), without a pass over the lanes. Granules of a power-of-two size, a bit a byte.
  void appendRange(uint64_t address, uint64_t bytes, Granule granule) {
    const uint64_t last = address + bytes - 1, within = granule.bytes - 1;
    const uint64_t first = address >> granule.shift, lastGranule = last >> granule.shift;
    reserve(size_ + static_cast<size_t>(lastGranule - first + 1));
    for (uint64_t g = first; g <= lastGranule; ++g) {
      const uint64_t base = g << granule.shift;
      const uint64_t lo = std::max(address, base) - base, hi = std::min(last, base + within) - base;
      data_[size_] = g;
      bits_[size_++] = hi - lo >= 31 ? ~uint32_t{0} : ((uint32_t{1} << (hi - lo + 1)) - 1) << lo;
    }
  }

  /// Sorts the granules and drops repeats; usually they are already ascending (a coalesced access).
  /// `withBits`: the list came from appendTouched, and a repeat's bits join the kept one's.
  void makeDistinct(bool withBits = false) {
    if (std::adjacent_find(begin(), end(), std::greater_equal<>()) == end())
      return;
    if (!withBits) {
      std::sort(begin(), end());
      size_ = static_cast<size_t>(std::unique(begin(), end()) - begin());
      return;
    }
    pairs_.clear();
    for (size_t i = 0; i < size_; ++i)
      pairs_.emplace_back(data_[i], bits_[i]);
    std::sort(pairs_.begin(), pairs_.end());
    size_t n = 0;
    for (const auto &[g, bits] : pairs_)
      if (n && data_[n - 1] == g)
        bits_[n - 1] |= bits;
      else {
        data_[n] = g;
        bits_[n++] = bits;
      }
    size_ = n;
  }

private:
  void reserve(size_t capacity) {
    if (capacity <= capacity_)
      return;
    capacity_ = std::max<size_t>(capacity, 2 * capacity_);
    auto grown = std::make_unique_for_overwrite<uint64_t[]>(capacity_);
    std::copy(begin(), end(), grown.get());
    data_ = std::move(grown);
    auto grownBits = std::make_unique_for_overwrite<uint32_t[]>(capacity_);
    std::copy(bits_.get(), bits_.get() + size_, grownBits.get());
    bits_ = std::move(grownBits);
  }
  std::unique_ptr<uint64_t[]> data_;
  std::unique_ptr<uint32_t[]> bits_;
  std::vector<std::pair<uint64_t, uint32_t>> pairs_; ///< scratch of makeDistinct(true)
  size_t size_ = 0, capacity_ = 0;
};

/// What reuse inside a CTA is keyed by: the instruction's innermost source line (file and line of its
/// .loc), so that the loads of one line share their sectors (a loop unrolled into one load per
/// iteration reads the same data with different instructions); the instruction itself when it has no
/// line information.
/// The longest reorder window the per-warp timing keeps (arch::Latencies::reorderWindow).
constexpr uint32_t kMaxReorderWindow = 16;

uint64_t reuseSite(const vm::DecodedFunction &function, uint32_t instruction) {
  const ptx::Instruction &inst = function.source->instructions[instruction];
  if (inst.line != ptx::kNone) {
    const ptx::LineEntry &position = function.module->lines[inst.line];
    return uint64_t{1} << 63 | uint64_t{position.file} << 32 | position.line;
  }
  return uint64_t{function.index} << 32 | instruction;
}

} // namespace

struct PerformanceModel::Worker {
  /// Counters per PTX function (by function index), allocated on the first event from it.
  std::vector<std::vector<InstructionCounters>> byFunction;
  const vm::DecodedFunction *lastFunction = nullptr;
  InstructionCounters *last = nullptr;
  SectorSet loadSectors;   ///< loads, texture fetches, surface loads
  SectorSet atomicSectors; ///< atomics and reductions (each reads its sector into L2 and writes it)
  SectorSet writeSectors;  ///< stores, surface stores
  CtaSectorSet ctaSectors; ///< (reuseSite, sector) pairs the running CTA's global loads touched
  CtaL1 l1;                ///< what the running CTA's L1 holds (the per-warp timing's hits)
  GranuleList granules;    ///< scratch: the granules of one access
  GranuleList texels;      ///< texture granules of the footprint parts seen so far of one fetch

  // The per-warp critical path (WarpTiming.h), on this slot's own timeline: a CTA starts where the
  // slot's previous CTA ended, so the ready times an earlier CTA left behind never delay it (no
  // clearing per CTA).
  struct WarpClock {
    uint64_t next = 0;              ///< the earliest cycle the warp's next instruction can issue
    uint64_t lastIssue = 0;         ///< when its last instruction issued
    uint64_t done = 0;              ///< when everything it issued has completed
    uint64_t floor = 0;             ///< nothing issues before this (a barrier's release)
    uint64_t sharedStoreIssued = 0; ///< the latest shared store's issue: later loads may read what it wrote
    uint64_t globalStoreIssued = 0; ///< the same for global and local memory
    const InstructionTiming *last = nullptr;
    const uint32_t *lastRegisters = nullptr;
    std::array<uint64_t, kMaxReorderWindow> recent{}; ///< latest issue cycle up to each of the last instructions
    uint32_t head = 0;                                ///< where the next issue cycle goes in `recent`
  };
  struct BarrierWait {
    uint64_t waiting = 0;     ///< warps that arrived and wait
    uint64_t lastArrival = 0; ///< the latest arrival's issue cycle
  };
  std::vector<std::unique_ptr<FunctionTiming>> timing; ///< per PTX function index, built on first use
  const vm::DecodedFunction *lastTimingFunction = nullptr;
  const FunctionTiming *lastTiming = nullptr;
  std::vector<WarpClock> warps;
  std::vector<uint64_t> ready; ///< per warp, per register: the cycle its value is ready
  std::array<BarrierWait, 16> barriers{};
  // The running CTA's phase: what its warps asked of the SM's pipes and issue slots since its last
  // CTA-wide barrier (or its start), which began at phaseStart. A phase lasts at least as long as
  // its SM needs to issue that (phaseFloor), however short each warp's own path.
  std::array<double, kInstructionClasses> phasePipeCycles{};
  double phaseIssueSlots = 0;
  uint64_t phaseStart = 0;
  uint64_t ctaStart = 0, slotEnd = 0;
  uint64_t ctasTimed = 0;
  double pathCyclesSum = 0;
  uint64_t pathCyclesMax = 0;
  uint64_t l2Sectors = 0;
  uint64_t splitBytesMoved = 0; ///< bytes of global requests split into one transaction per thread
  uint64_t l1LineReplays = 0;   ///< 128-byte lines global requests touched beyond one a request
  uint64_t sharedAtomicConflicts = 0;
  uint64_t printfCalls = 0, printfThreads = 0, heapThreads = 0;
  RegionCycles atomicUnits; ///< global atomics' and reductions' L2 cycles per atomic unit
};

PerformanceModel::PerformanceModel(const arch::ArchTarget &target, ModelOptions options)
    : target_(target), cc_(*target.computeCapability), options_(options),
      // The footprint is counted in the smallest unit DRAM traffic comes in: L2 sectors, or the
      // smallest transaction before there was an L2 (CC 1.x).
      footprintGranule_(cc_.global.l2SectorBytes > 0          ? cc_.global.l2SectorBytes
                        : cc_.global.transactionBytes.empty() ? 1
                                                              : *std::min_element(cc_.global.transactionBytes.begin(),
                                                                                  cc_.global.transactionBytes.end())),
      textureGranule_(cc_.textureTransactionBytes > 0 ? static_cast<uint64_t>(cc_.textureTransactionBytes)
                                                      : footprintGranule_),
      l2Bytes_(target.board() ? static_cast<uint64_t>(std::max(target.board()->l2CacheBytes, 0)) : 0),
      fullSectorBits_(fullTouchedBits(Granule(footprintGranule_))),
      sectorsAreGranules_(cc_.global.requestPerInstruction && cc_.global.l2SectorBytes > 0 &&
                          footprintGranule_ == static_cast<uint64_t>(cc_.global.l2SectorBytes)),
      memoryPipeCyclesPerReplay_(warpInstructionsPerClock(cc_, InstructionClass::LoadStore) > 0
                                     ? 1.0 / warpInstructionsPerClock(cc_, InstructionClass::LoadStore)
                                     : 0.0) {}

uint64_t PerformanceModel::phaseFloor(const Worker &w) const {
  double cycles = 0;
  if (cc_.independentPipes) {
    for (double c : w.phasePipeCycles)
      cycles = std::max(cycles, c);
    cycles = std::max(cycles, w.phaseIssueSlots / std::max(cc_.registerFilePartitions, 1));
  } else
    for (double c : w.phasePipeCycles)
      cycles += c;
  return static_cast<uint64_t>(cycles);
}

uint64_t PerformanceModel::dramCycles() const {
  const arch::Latencies &l = cc_.latency;
  return static_cast<uint64_t>(l.dramCycles > 0 ? l.dramCycles
                                                : std::max((l.globalMemoryMinCycles + l.globalMemoryMaxCycles) / 2, 1));
}

PerformanceModel::~PerformanceModel() = default;

void PerformanceModel::onLaunchBegin(const vm::LaunchInfo &info) {
  clockWaitCycles_ = 0;
  if (info.depth == 0) {
    if (!treeFinished_) // nobody asked for the last tree's root: finish it as it stands
      finishHostLaunch();
    treeRoot_ = launches_.size();
    treeProfiles_.clear();
    treeFinished_ = false;
  }
  launch_ = info;
  workers_.clear();
  warpsPerCta_ = static_cast<uint32_t>(std::max<uint64_t>((info.block.count() + vm::kWarpSize - 1) / vm::kWarpSize, 1));
  registerStride_ = 1;
  reorderWindow_ = static_cast<uint32_t>(std::clamp<int>(cc_.latency.reorderWindow, 1, kMaxReorderWindow));
  for (const ptx::Function &f : info.kernel->module->functions)
    registerStride_ = std::max<uint32_t>(registerStride_, static_cast<uint32_t>(f.registers.size()));
  // Slots past the workers' own are made when a CTA first uses one (vm::LaunchInfo::slots).
  workers_.resize(std::max({info.slots, info.workers, 1u}));
  for (unsigned w = 0; w < std::max(info.workers, 1u); ++w)
    workers_[w] = makeWorker();
}

std::unique_ptr<PerformanceModel::Worker> PerformanceModel::makeWorker() const {
  auto w = std::make_unique<Worker>();
  w->byFunction.resize(launch_.kernel->module->functions.size());
  w->timing.resize(launch_.kernel->module->functions.size());
  w->warps.resize(warpsPerCta_);
  w->ready.assign(size_t{warpsPerCta_} * registerStride_, 0);
  return w;
}

void PerformanceModel::onCtaBegin(unsigned worker, vm::Dim3) {
  if (!workers_[worker])
    workers_[worker] = makeWorker();
  Worker &w = *workers_[worker];
  w.ctaSectors.clear();
  w.l1.clear();
  w.ctaStart = w.slotEnd;
  w.phasePipeCycles = {};
  w.phaseIssueSlots = 0;
  w.phaseStart = w.ctaStart;
  for (Worker::WarpClock &clock : w.warps) {
    clock = {};
    clock.next = clock.lastIssue = clock.done = clock.floor = w.ctaStart;
    clock.sharedStoreIssued = clock.globalStoreIssued = w.ctaStart;
    clock.recent.fill(w.ctaStart);
  }
  w.barriers = {};
}

void PerformanceModel::onCtaEnd(unsigned worker, vm::Dim3) {
  Worker &w = *workers_[worker];
  uint64_t end = w.ctaStart;
  for (const Worker::WarpClock &clock : w.warps)
    end = std::max({end, clock.done, clock.next, clock.lastIssue + 1});
  end = std::max(end, w.phaseStart + phaseFloor(w));
  const uint64_t path = end - w.ctaStart;
  ++w.ctasTimed;
  w.pathCyclesSum += static_cast<double>(path);
  w.pathCyclesMax = std::max(w.pathCyclesMax, path);
  w.slotEnd = end + 1;
}

const FunctionTiming &PerformanceModel::timing(Worker &w, const vm::DecodedFunction &function) const {
  if (&function != w.lastTimingFunction) {
    std::unique_ptr<FunctionTiming> &t = w.timing[function.index];
    if (!t)
      t = std::make_unique<FunctionTiming>(buildFunctionTiming(cc_, *function.module, *function.source,
                                                               target_.gpu ? target_.gpu->fp64ResultsPerClock() : 0));
    w.lastTimingFunction = &function;
    w.lastTiming = t.get();
  }
  return *w.lastTiming;
}

void PerformanceModel::completeAccess(Worker &w, const vm::WarpRef &warp, uint64_t latency) const {
  Worker::WarpClock &clock = w.warps[warp.warp];
  const uint64_t at = clock.lastIssue + latency;
  if (clock.last && clock.last->result == ResultTiming::Memory) {
    uint64_t *ready = w.ready.data() + size_t{warp.warp} * registerStride_;
    const uint32_t *destinations = clock.lastRegisters + clock.last->sources;
    for (uint32_t i = 0; i < clock.last->destinations; ++i)
      ready[destinations[i]] = std::max(ready[destinations[i]], at);
  }
  clock.done = std::max(clock.done, at);
}

void PerformanceModel::onHeap(const vm::WarpRef &warp, const vm::HeapEvent &e) {
  workers_[warp.worker]->heapThreads += static_cast<uint64_t>(laneCount(e.mask));
}

void PerformanceModel::onBarrier(const vm::WarpRef &warp, const vm::BarrierEvent &e) {
  Worker &w = *workers_[warp.worker];
  Worker::BarrierWait &b = w.barriers[e.barrier & 15];
  if (!e.release) {
    const Worker::WarpClock &clock = w.warps[warp.warp];
    b.lastArrival = std::max(b.lastArrival, clock.lastIssue);
    if (!e.arriveOnly && warp.warp < 64)
      b.waiting |= uint64_t{1} << warp.warp;
    return;
  }
  // The barrier completed: its waiting warps issue again once the last arrival has been seen.
  uint64_t resume = b.lastArrival + static_cast<uint64_t>(std::max(cc_.latency.barrierCycles, 1)) +
                    static_cast<uint64_t>(cc_.latency.barrierWarpCycles * std::popcount(b.waiting));
  if (static_cast<uint32_t>(std::popcount(b.waiting)) >= std::min<uint32_t>(warpsPerCta_, 64)) {
    // Every warp of the CTA waited: the phase before it ends no earlier than its SM could issue it.
    resume = std::max(resume, w.phaseStart + phaseFloor(w));
    w.phasePipeCycles = {};
    w.phaseIssueSlots = 0;
    w.phaseStart = resume;
  }
  for (uint64_t m = b.waiting; m; m &= m - 1) {
    const size_t i = static_cast<size_t>(std::countr_zero(m));
    if (i < w.warps.size()) {
      w.warps[i].floor = std::max(w.warps[i].floor, resume);
      w.warps[i].next = std::max(w.warps[i].next, resume);
    }
  }
  b = {};
}

InstructionCounters &PerformanceModel::counters(const vm::WarpRef &warp, uint32_t instruction) {
  Worker &w = *workers_[warp.worker];
  if (warp.function != w.lastFunction) {
    std::vector<InstructionCounters> &fn = w.byFunction[warp.function->index];
    if (fn.empty())
      fn.resize(warp.function->source->instructions.size());
    w.lastFunction = warp.function;
    w.last = fn.data();
  }
  return w.last[instruction];
}

void PerformanceModel::onInstruction(const vm::WarpRef &warp, const vm::InstructionEvent &e) {
  InstructionCounters &c = counters(warp, e.instruction);
  ++c.warpExecuted;
  c.threadsActive += laneCount(e.activeMask);
  c.threadsPredicatedOn += laneCount(e.executedMask);

  // The warp's critical path: it issues when its operands are ready and its last issue is done.
  Worker &w = *workers_[warp.worker];
  const FunctionTiming &ft = timing(w, *warp.function);
  const InstructionTiming &it = ft.instructions[e.instruction];
  Worker::WarpClock &clock = w.warps[warp.warp];
  uint64_t *ready = w.ready.data() + size_t{warp.warp} * registerStride_;
  const uint32_t *registers = ft.registers.data() + it.firstRegister;
  // In order within the reorder window: no earlier than `window` instructions back, plus one.
  uint64_t at = std::max({clock.next, clock.floor,
                          clock.recent[(clock.head + kMaxReorderWindow - reorderWindow_) % kMaxReorderWindow] + 1});
  for (uint32_t i = 0; i < it.sources; ++i)
    at = std::max(at, ready[registers[i]]);
  if (it.waitsForEarlier) // a barrier or fence: everything before it has issued
    at = std::max(at, clock.recent[(clock.head + kMaxReorderWindow - 1) % kMaxReorderWindow]);
  if (it.orderedLoad & 1)
    at = std::max(at, clock.sharedStoreIssued);
  if (it.orderedLoad & 2)
    at = std::max(at, clock.globalStoreIssued);
  if (it.orderedStore & 1)
    clock.sharedStoreIssued = std::max(clock.sharedStoreIssued, at);
  if (it.orderedStore & 2)
    clock.globalStoreIssued = std::max(clock.globalStoreIssued, at);
  // The ring keeps the latest issue cycle so far at each position: nothing issues before every
  // instruction `window` back or more has issued.
  clock.recent[clock.head] = std::max(at, clock.recent[(clock.head + kMaxReorderWindow - 1) % kMaxReorderWindow]);
  if (it.endsBlock)
    clock.floor = std::max(clock.floor, clock.recent[clock.head]);
  clock.head = (clock.head + 1) % kMaxReorderWindow;
  clock.lastIssue = at;
  clock.next += it.issueCycles; // issue slots: one instruction a clock
  w.phasePipeCycles[it.pipe] += it.pipeCycles;
  w.phaseIssueSlots += it.issueSlots;
  clock.last = &it;
  clock.lastRegisters = registers;
  if (e.executedMask && it.result != ResultTiming::None) {
    // A memory result's time is set when its access is seen, by the level that served it: until
    // then it is the issue (an access no lane made leaves nothing to wait for).
    const uint64_t result = at + (it.result == ResultTiming::Memory ? 0 : it.resultCycles);
    for (uint32_t i = 0; i < it.destinations; ++i)
      ready[registers[it.sources + i]] = result;
    clock.done = std::max(clock.done, result);
  }
  if (it.printf && e.executedMask) {
    ++w.printfCalls;
    w.printfThreads += static_cast<uint64_t>(laneCount(e.executedMask));
  }
}

void PerformanceModel::onBranch(const vm::WarpRef &warp, const vm::BranchEvent &e) {
  InstructionCounters &c = counters(warp, e.instruction);
  ++c.branches;
  c.divergentBranches += e.divergent;
}

GlobalPath PerformanceModel::globalPath(const vm::MemoryEvent &e) const {
  const arch::GlobalMemoryRules &g = cc_.global;
  if (g.defaultLoadCaching == arch::GlobalLoadCaching::Uncached)
    return GlobalPath::Uncached; // CC 1.x: no cache for global memory
  if (e.op != vm::MemoryOp::Load)
    return GlobalPath::L2; // stores, atomics and reductions are not cached in L1 (CC 2.x-3.x)
  if (e.nonCoherent && g.readOnlyDataCache)
    return GlobalPath::ReadOnly;
  const bool l1Allowed = g.defaultLoadCaching == arch::GlobalLoadCaching::L1 ||
                         (target_.gpu ? target_.gpu->l1CachingOptIn() : g.l1CachingOptIn);
  switch (e.cache) {
  case ptx::Mod::ca: return l1Allowed ? GlobalPath::L1 : GlobalPath::L2;
  case ptx::Mod::cg:
  case ptx::Mod::cs:
  case ptx::Mod::cv: return GlobalPath::L2;
  default: break;
  }
  if (options_.loadCaching)
    return *options_.loadCaching == arch::GlobalLoadCaching::L1 && l1Allowed ? GlobalPath::L1 : GlobalPath::L2;
  return g.defaultLoadCaching == arch::GlobalLoadCaching::L1 ? GlobalPath::L1 : GlobalPath::L2;
}

void PerformanceModel::globalAccess(const vm::WarpRef &warp, const vm::MemoryEvent &e, const WarpAccess &a,
                                    InstructionCounters &c) {
  const GlobalPath path = globalPath(e);
  Worker &w = *workers_[warp.worker];
  GranuleList &granules = w.granules;
  granules.clear();
  const Granule granule(footprintGranule_);
  if (e.mask == ~0u && granule.shift >= 0 && bytesPerTouchedBit(granule) == 1 &&
      lanesAreConsecutive(e.addresses, a.bytesPerLane))
    granules.appendRange(e.addresses[0], uint64_t{vm::kWarpSize} * a.bytesPerLane, granule);
  else {
    granules.appendTouched(e.addresses, e.mask, a.bytesPerLane, granule);
    granules.makeDistinct(true);
  }
  // From CC 5.0 a request is an instruction and its transactions are the sectors it touches: the
  // granules just listed (globalAccessCost would sort the lanes again to count them).
  GlobalCost cost;
  if (sectorsAreGranules_) {
    cost.requests = 1;
    cost.transactions = static_cast<uint32_t>(granules.size());
    cost.bytesMoved = granules.size() * footprintGranule_;
    cost.bytesRequested = static_cast<uint64_t>(laneCount(a.mask)) * a.bytesPerLane;
    cost.idealTransactions = static_cast<uint32_t>((cost.bytesRequested + footprintGranule_ - 1) / footprintGranule_);
  } else
    cost = globalAccessCost(cc_, a, path);
  c.globalRequests += cost.requests;
  c.globalTransactions += cost.transactions;
  c.globalIdealTransactions += cost.idealTransactions;
  c.globalBytesRequested += cost.bytesRequested;
  c.globalBytesMoved += cost.bytesMoved;

  const AccessShape shape = classifyAccess(cc_, a, path);
  ++c.globalWarpAccesses;
  switch (shape.pattern) {
  case AccessPattern::UnitStride: ++c.globalUnitStrideRequests; break;
  case AccessPattern::Misaligned: ++c.globalMisalignedRequests; break;
  case AccessPattern::Strided:
    ++c.globalStridedRequests;
    c.globalStrideBytesSum += shape.strideBytes;
    break;
  case AccessPattern::Broadcast: ++c.globalBroadcastRequests; break;
  case AccessPattern::Scattered: break;
  }

  if (cc_.memory.l1LinesPerClock > 0 && footprintGranule_ <= 128 && 128 % footprintGranule_ == 0) {
    // L1 looks a request's lines up one after another (the granules are sorted).
    const uint64_t perLine = 128 / footprintGranule_;
    uint64_t lines = 0, previous = ~uint64_t{0};
    for (uint64_t g : granules)
      if (g / perLine != previous) {
        previous = g / perLine;
        ++lines;
      }
    w.l1LineReplays += lines > cost.requests ? lines - cost.requests : 0;
  }
  SectorSet &footprint = e.op == vm::MemoryOp::Load    ? w.loadSectors
                         : e.op == vm::MemoryOp::Store ? w.writeSectors
                                                       : w.atomicSectors;
  // A sector this worker's CTAs have not touched yet in the launch comes from DRAM (the caches start
  // cold, as Nsight Compute's cache control makes them); one touched before hits in L2 while the
  // launch's footprint fits there, and in L1 when this CTA loaded it before through L1.
  bool cold = false;
  uint64_t partialStores = 0; // sectors this store writes only part of
  for (size_t k = 0; k < granules.size(); ++k) {
    const uint64_t g = granules.begin()[k];
    const uint32_t bits = granules.bitsAt(k);
    partialStores += bits != fullSectorBits_;
    if (footprint.insert(g, bits) && !cold) // new to this kind of access: new to L2 unless another kind brought it
      cold = (&footprint == &w.loadSectors || !w.loadSectors.contains(g)) &&
             (&footprint == &w.writeSectors || !w.writeSectors.contains(g)) &&
             (&footprint == &w.atomicSectors || !w.atomicSectors.contains(g));
  }
  const bool throughL1 = e.op == vm::MemoryOp::Load && (path == GlobalPath::L1 || path == GlobalPath::ReadOnly);
  uint64_t missedL1 = granules.size();
  if (throughL1) {
    missedL1 = 0;
    forEachGroup(granules,
                 [&](uint64_t group, uint32_t mask) { missedL1 += laneCount(mask & ~w.l1.load(group, mask)); });
  } else if (e.op != vm::MemoryOp::Load) {
    forEachGroup(granules, [&](uint64_t group, uint32_t mask) { w.l1.evict(group, mask); });
  }
  w.l2Sectors += missedL1;
  // L2 merges a partial sector write into the line it holds: more than one slot of its bandwidth.
  if (e.op == vm::MemoryOp::Store && cc_.memory.partialSectorWriteL2Slots > 1)
    w.l2Sectors +=
        static_cast<uint64_t>(static_cast<double>(partialStores) * (cc_.memory.partialSectorWriteL2Slots - 1));
  // CC 1.0/1.1: a request the coalescing rules could not serve whole became one transaction a thread.
  if (cc_.global.requiresInOrderAlignedAccess && cost.transactions > cost.requests &&
      cost.transactions > cost.idealTransactions)
    w.splitBytesMoved += cost.bytesMoved;
  if (e.op == vm::MemoryOp::Load) {
    c.globalWarpSectors += granules.size();
    const uint64_t site = reuseSite(*warp.function, e.instruction);
    forEachGroup(granules, [&](uint64_t group, uint32_t mask) {
      c.globalCtaDistinctSectors += w.ctaSectors.insert(site, group, mask);
    });
  }
  const arch::Latencies &l = cc_.latency;
  const uint64_t touched =
      (w.loadSectors.size() + w.writeSectors.size() + w.atomicSectors.size()) * footprintGranule_ * workerCount();
  const bool thrashing = l2Bytes_ > 0 && touched > l2Bytes_;
  uint64_t latency = cold || thrashing || l.l2HitCycles <= 0 ? dramCycles()
                     : throughL1 && missedL1 == 0            ? static_cast<uint64_t>(std::max(l.l1HitCycles, 1))
                                                             : static_cast<uint64_t>(l.l2HitCycles);
  if (e.op == vm::MemoryOp::Atomic || e.op == vm::MemoryOp::Reduction) {
    // Atomics are performed in L2, one after another on an address; a warp-uniform one (the same
    // address and operand in every lane, known at compile time) is combined into one update.
    const Worker::WarpClock &issued = w.warps[warp.warp];
    const uint32_t lanes =
        issued.last && issued.last->warpUniformAtomic ? e.mask & (~e.mask + 1) : e.mask; // lowest lane only
    const int same = sameAddressLanes(e.addresses, lanes);
    latency = latency - std::min<uint64_t>(latency, static_cast<uint64_t>(std::max(l.l2HitCycles, 0))) +
              static_cast<uint64_t>(std::max(l.atomicCycles, l.l2HitCycles)) +
              static_cast<uint64_t>(l.sameAddressAtomicCycles * (same - 1));
    chargeAtomic(cc_, e.addresses, lanes, footprintGranule_, w.atomicUnits);
  }
  // The sectors beyond a request's first leave L1 one a clock.
  latency += cost.transactions > cost.requests ? cost.transactions - cost.requests : 0;
  completeAccess(w, warp, latency);
}

void PerformanceModel::textureAccess(const vm::WarpRef &warp, const vm::MemoryEvent &e, InstructionCounters &c) {
  Worker &w = *workers_[warp.worker];
  const bool surface = e.path == vm::MemoryPath::Surface;
  const uint32_t bytes = std::max<uint32_t>(uint32_t{e.width} * e.vec, 1);
  if (e.footprintPart == 0) {
    ++(surface ? c.surfaceRequests : c.textureRequests);
    w.texels.clear();
  }
  (surface ? c.surfaceBytesRequested : c.textureBytesRequested) += uint64_t(laneCount(e.mask)) * bytes;
  w.texels.append(e.addresses, e.mask, bytes, Granule(textureGranule_));
  if (e.footprintPart + 1 >= e.footprintParts) {
    w.texels.makeDistinct();
    (surface ? c.surfaceSectors : c.textureSectors) += w.texels.size();
  }
  GranuleList &granules = w.granules;
  granules.clear();
  granules.append(e.addresses, e.mask, bytes, Granule(footprintGranule_));
  SectorSet &footprint = e.op == vm::MemoryOp::Load ? w.loadSectors : w.writeSectors;
  bool cold = false;
  forEachTouchedGranule(e.addresses, e.mask, bytes, Granule(footprintGranule_),
                        [&](uint64_t g, uint32_t bits) { cold |= footprint.insert(g, bits); });
  w.l2Sectors += granules.size();
  const arch::Latencies &l = cc_.latency;
  completeAccess(w, warp, cold ? dramCycles() : static_cast<uint64_t>(std::max({l.l1HitCycles, l.l2HitCycles / 2, 1})));
}

void PerformanceModel::onMemory(const vm::WarpRef &warp, const vm::MemoryEvent &e) {
  if (!e.mask)
    return;
  InstructionCounters &c = counters(warp, e.instruction);
  if (e.path != vm::MemoryPath::LoadStore) {
    textureAccess(warp, e, c);
    return;
  }
  // The addresses are copied once, straight from the event (local accesses rewrite them).
  WarpAccess a{e.mask, e.addresses, std::max<uint32_t>(uint32_t{e.width} * e.vec, 1), e.op != vm::MemoryOp::Load};
  switch (e.space) {
  case vm::Space::Global:
  case vm::Space::Generic: {
    globalAccess(warp, e, a, c);
    break;
  }
  case vm::Space::Local: {
    // Call-site and function .param variables live in the VM's frames, but the ABI passes them in
    // registers on the GPU: not local-memory traffic.
    if (warp.function->source->instructions[e.instruction].space == ptx::StateSpace::Param)
      break;
    // Local memory is interleaved so that consecutive threads' accesses at the same offset are
    // adjacent, in units of the access (a v4 of one thread is 16 contiguous bytes): the warp's
    // addresses in that layout.
    const uint64_t unit = a.bytesPerLane;
    for (int lane = 0; lane < kLanes; ++lane) {
      uint64_t offset = e.addresses[lane];
      a.addresses[lane] = (offset / unit) * unit * kLanes + uint64_t(lane) * unit + offset % unit;
    }
    GlobalCost cost = globalAccessCost(
        cc_, a,
        cc_.global.defaultLoadCaching == arch::GlobalLoadCaching::Uncached ? GlobalPath::Uncached : GlobalPath::L1);
    c.localRequests += cost.requests;
    c.localTransactions += cost.transactions;
    c.localBytesRequested += cost.bytesRequested;
    c.localBytesMoved += cost.bytesMoved;
    // Local memory is private to each thread of the grid: its sectors count in the launch's footprint
    // (what a spilling kernel writes back to DRAM once it exceeds L2), keyed by warp.
    {
      Worker &w = *workers_[warp.worker];
      const uint64_t ctaIndex = (uint64_t{warp.cta.z} * launch_.grid.y + warp.cta.y) * launch_.grid.x + warp.cta.x;
      const uint64_t owner = (ctaIndex * warpsPerCta_ + warp.warp) << 24 | kLocalSectorBit;
      SectorSet &footprint = e.op == vm::MemoryOp::Load ? w.loadSectors : w.writeSectors;
      forEachTouchedGranule(a.addresses, e.mask, a.bytesPerLane, Granule(footprintGranule_),
                            [&](uint64_t g, uint32_t bits) { footprint.insert(owner | (g & 0xffffff), bits); });
    }
    // Local memory is cached in L1 (off-chip before Fermi).
    const int l1 = cc_.latency.l1HitCycles;
    completeAccess(*workers_[warp.worker], warp,
                   (l1 > 0 ? static_cast<uint64_t>(l1) : dramCycles()) + cost.transactions - cost.requests);
    break;
  }
  case vm::Space::Shared: {
    Worker &w = *workers_[warp.worker];
    c.sharedBytesRequested += uint64_t(laneCount(e.mask)) * a.bytesPerLane;
    // ptxas merges some scalar accesses into one vector access (MergedAccesses.h): its first access
    // pays the vector's bank cost, the others none.
    const InstructionTiming *issued = w.warps[warp.warp].last;
    SharedCost cost;
    if (issued && issued->merged == MergedRole::First) {
      // The conflicts are those of the accesses as written (a wide access's own extra passes, as
      // Fermi's 128-bit ones take, are the compiler's doing, not the code's).
      const SharedCost written = sharedAccessCost(cc_, a, options_.bankWidthBytes);
      const uint32_t accesses = issued->mergedBytesPerLane / std::max<uint32_t>(a.bytesPerLane, 1);
      a.bytesPerLane = issued->mergedBytesPerLane;
      for (int lane = 0; lane < kLanes; ++lane)
        a.addresses[lane] += static_cast<uint64_t>(static_cast<int64_t>(issued->mergedAddressAdjust));
      cost = sharedAccessCost(cc_, a, options_.bankWidthBytes);
      cost.idealWavefronts = cost.wavefronts - std::min(cost.bankConflicts(), accesses * written.bankConflicts());
    } else if (!issued || issued->merged != MergedRole::Merged)
      cost = sharedAccessCost(cc_, a, options_.bankWidthBytes);
    c.sharedRequests += cost.requests;
    c.sharedWavefronts += cost.wavefronts;
    c.sharedIdealWavefronts += cost.idealWavefronts;
    if (cost.wavefronts > cost.idealWavefronts)
      if (const uint64_t stride = neighbourLaneStride(a.addresses, a.mask)) {
        ++c.sharedConflictStridedRequests;
        c.sharedConflictStrideBytes += stride;
        c.sharedConflictStrideBytesSquared += stride * stride;
      }
    if (cost.wavefronts > cost.requests) // bank-conflict replays hold the memory pipe (TimeEstimate)
      w.phasePipeCycles[static_cast<int>(InstructionClass::LoadStore)] +=
          static_cast<double>(cost.wavefronts - cost.requests) * memoryPipeCyclesPerReplay_;
    uint64_t latency =
        static_cast<uint64_t>(std::max(cc_.latency.sharedLoadCycles, cc_.latency.registerReadAfterWriteCycles)) +
        (cost.wavefronts > cost.requests ? cost.wavefronts - cost.requests : 0);
    if (e.op == vm::MemoryOp::Atomic || e.op == vm::MemoryOp::Reduction) {
      const uint64_t conflicts = static_cast<uint64_t>(sameAddressLanes(e.addresses, e.mask) - 1);
      w.sharedAtomicConflicts += conflicts;
      latency += conflicts * static_cast<uint64_t>(cc_.latency.sharedAtomicConflictCycles);
    }
    completeAccess(w, warp, latency);
    break;
  }
  case vm::Space::Const:
  case vm::Space::KernelParam: {
    ConstantCost cost = constantAccessCost(cc_, a);
    c.constantRequests += cost.requests;
    c.constantTransactions += cost.transactions;
    const double replay = cc_.memory.constantReplayCycles > 0 ? cc_.memory.constantReplayCycles : 1.0;
    completeAccess(
        *workers_[warp.worker], warp,
        static_cast<uint64_t>(std::max(cc_.latency.constantHitCycles, cc_.latency.registerReadAfterWriteCycles)) +
            static_cast<uint64_t>(replay *
                                  static_cast<double>(cost.transactions - std::min(cost.transactions, cost.requests))));
    break;
  }
  }
}

namespace {

MemoryKind memoryKindOf(const ptx::Instruction &inst) {
  switch (inst.opcode) {
  case ptx::Opcode::ld:
  case ptx::Opcode::ldu:
  case ptx::Opcode::tex:
  case ptx::Opcode::tld4:
  case ptx::Opcode::suld:
  case ptx::Opcode::ldmatrix: return MemoryKind::Load;
  case ptx::Opcode::st:
  case ptx::Opcode::sust:
  case ptx::Opcode::stmatrix: return MemoryKind::Store;
  case ptx::Opcode::atom:
  case ptx::Opcode::red:
  case ptx::Opcode::sured: return MemoryKind::Atomic;
  default: return MemoryKind::None;
  }
}

void describe(const ptx::Module &m, const ptx::LineTable &lines, const ptx::Function &fn, InstructionProfile &p) {
  const ptx::Instruction &inst = fn.instructions[p.instruction];
  p.ptxLocation = m.sources.position(inst.loc);
  p.ptxText = std::string(m.sources.trimmedLineText(inst.loc));
  auto chain = lines.chain(inst);
  if (!chain.empty()) {
    p.sourceFile = std::string(chain[0].file);
    p.sourceLine = chain[0].line;
    for (size_t i = 1; i < chain.size(); ++i)
      p.inlinedAt +=
          fmt::format("{}{}:{}", i > 1 ? " " : "", chain[i].file.empty() ? "?" : chain[i].file, chain[i].line);
  }
  p.cls = classify(fn, inst);
  p.memory = memoryKindOf(inst);
}

} // namespace

void PerformanceModel::onLaunchEnd() {
  std::erase(workers_, nullptr);
  const vm::DecodedFunction &kernel = *launch_.kernel;
  const ptx::Module &m = *kernel.module;
  LaunchProfile L;
  L.module = &m;
  L.kernel = kernel.name;
  L.demangled = ptx::demangle(kernel.name);
  L.grid = launch_.grid;
  L.block = launch_.block;
  L.staticSharedBytes = kernel.staticSharedBytes;
  L.dynamicSharedBytes = launch_.dynamicSharedBytes;
  L.registersPerThread = launch_.registersPerThread;
  L.arch = target_.displayName();
  L.ctas = launch_.grid.count();

  // Merge the workers, function by function.
  ptx::LineTable lines(m);
  for (uint32_t f = 0; f < m.functions.size(); ++f) {
    std::vector<InstructionCounters> merged;
    for (const auto &w : workers_) {
      const auto &mine = w->byFunction[f];
      if (mine.empty())
        continue;
      if (merged.empty())
        merged.resize(mine.size());
      for (size_t i = 0; i < mine.size(); ++i)
        merged[i].add(mine[i]);
    }
    // Which accesses ptxas merges: the per-warp timing of a worker that ran the function knows.
    const FunctionTiming *timed = nullptr;
    for (const auto &w : workers_)
      if (f < w->timing.size() && w->timing[f]) {
        timed = w->timing[f].get();
        break;
      }
    for (uint32_t i = 0; i < merged.size(); ++i) {
      if (!merged[i].warpExecuted)
        continue;
      InstructionProfile p;
      p.merged = timed && i < timed->instructions.size() ? timed->instructions[i].merged : MergedRole::None;
      p.function = f;
      p.instruction = i;
      p.functionName = std::string(m.functions[f].name);
      p.counters = merged[i];
      describe(m, lines, m.functions[f], p);
      L.total.add(p.counters);
      L.warpInstructionsByClass[static_cast<int>(p.cls)] += p.counters.warpExecuted;
      L.instructions.push_back(std::move(p));
    }
  }
  // The footprints. Read: loaded or atomically updated; written: stored; the overlap: loaded and
  // stored or atomically updated. One worker's sets are used as they are; several are merged.
  SectorSet mergedLoads, mergedAtomics, mergedWrites;
  auto merged = [&](SectorSet Worker::*set, SectorSet &out) -> const SectorSet & {
    if (workers_.size() == 1)
      return (*workers_[0]).*set;
    for (const auto &w : workers_)
      out.merge((*w).*set);
    return out;
  };
  const SectorSet &loaded = merged(&Worker::loadSectors, mergedLoads);
  const SectorSet &atomics = merged(&Worker::atomicSectors, mergedAtomics);
  const SectorSet &written = merged(&Worker::writeSectors, mergedWrites);
  uint64_t readGranules = loaded.size() + atomics.size(), loadedAndModified = 0;
  loaded.forEach([&](uint64_t s) {
    const bool atomic = atomics.contains(s);
    readGranules -= atomic;
    loadedAndModified += atomic || written.contains(s);
  });
  // DRAM reads whole access units (MemoryThroughput::dramAccessBytes): the units the read sectors lie
  // in. Sectors written in part and never read must be filled from DRAM before L2 writes them back.
  uint64_t readUnits = 0, partialFills = 0;
  const uint64_t sectorsPerUnit = cc_.memory.dramAccessBytes > static_cast<int>(footprintGranule_) &&
                                          cc_.memory.dramAccessBytes % static_cast<int>(footprintGranule_) == 0
                                      ? static_cast<uint64_t>(cc_.memory.dramAccessBytes) / footprintGranule_
                                      : 1;
  if (sectorsPerUnit > 1) {
    auto firstOfUnit = [&](uint64_t s) { // s is the lowest read sector of its unit
      for (uint64_t t = s - s % sectorsPerUnit; t < s; ++t)
        if (loaded.contains(t) || atomics.contains(t))
          return false;
      return true;
    };
    loaded.forEach([&](uint64_t s) { readUnits += firstOfUnit(s); });
    atomics.forEach([&](uint64_t s) { readUnits += !loaded.contains(s) && firstOfUnit(s); });
  }
  if (cc_.memory.partialWriteFill)
    written.forEachWithBytes([&](uint64_t s, uint32_t bytes) {
      partialFills += bytes != fullSectorBits_ && !loaded.contains(s) && !atomics.contains(s);
    });
  // The bytes the algorithm read and wrote, once each ([BPG] 2.2.2): the touched bytes of the read and
  // written sectors (an atomic both reads and writes; local memory is not the algorithm's data).
  uint64_t readBits = 0, writtenBits = 0;
  loaded.forEachWithBytes(
      [&](uint64_t s, uint32_t bytes) { readBits += isLocalSector(s) ? 0 : laneCount(bytes | atomics.bytesOf(s)); });
  written.forEachWithBytes(
      [&](uint64_t s, uint32_t bytes) { writtenBits += isLocalSector(s) ? 0 : laneCount(bytes | atomics.bytesOf(s)); });
  atomics.forEachWithBytes([&](uint64_t s, uint32_t bytes) {
    readBits += loaded.contains(s) ? 0 : laneCount(bytes);
    writtenBits += written.contains(s) ? 0 : laneCount(bytes);
  });
  // Sampling: the CTAs that ran stand for the whole grid.
  L.ctasSimulated = launch_.ctasRun ? launch_.ctasRun : L.ctas;
  if (L.ctasSimulated < L.ctas) {
    const double factor = static_cast<double>(L.ctas) / static_cast<double>(L.ctasSimulated);
    L.total = {};
    L.warpInstructionsByClass = {};
    for (InstructionProfile &p : L.instructions) {
      p.counters.scale(factor);
      L.total.add(p.counters);
      L.warpInstructionsByClass[static_cast<int>(p.cls)] += p.counters.warpExecuted;
    }
  }

  arch::OccupancyInput occ;
  occ.threadsPerBlock = static_cast<int>(std::min<uint64_t>(launch_.block.count(), INT32_MAX));
  occ.registersPerThread = static_cast<int>(launch_.registersPerThread);
  occ.staticSharedBytes = kernel.staticSharedBytes;
  occ.dynamicSharedBytes = launch_.dynamicSharedBytes;
  occ.cacheConfig = cacheConfig_;
  try {
    L.occupancy = arch::computeOccupancy(cc_, occ);
  } catch (const std::invalid_argument &) {
    // A launch the VM ran always has a valid block; keep the empty result otherwise.
  }

  const double sampleScale = static_cast<double>(L.ctas) / static_cast<double>(L.ctasSimulated);
  auto footprintBytes = [&](uint64_t granules) {
    return static_cast<uint64_t>(static_cast<double>(granules) * static_cast<double>(footprintGranule_) * sampleScale);
  };
  L.readFootprintBytes = footprintBytes(readGranules);
  L.writeFootprintBytes = footprintBytes(written.size());
  L.readWriteOverlapBytes = footprintBytes(loadedAndModified);
  const double perBit = static_cast<double>(bytesPerTouchedBit(Granule(footprintGranule_)));
  L.uniqueBytesRead = static_cast<uint64_t>(static_cast<double>(readBits) * perBit * sampleScale);
  L.uniqueBytesWritten = static_cast<uint64_t>(static_cast<double>(writtenBits) * perBit * sampleScale);

  // The critical paths and what the timing saw, over the workers.
  uint64_t ctasTimed = 0, pathMax = 0, l2Sectors = 0, splitBytes = 0, l1LineReplays = 0, sharedAtomicConflicts = 0,
           printfCalls = 0, printfThreads = 0, heapThreads = 0;
  double pathSum = 0;
  RegionCycles atomicUnits;
  for (const auto &w : workers_) {
    ctasTimed += w->ctasTimed;
    pathSum += w->pathCyclesSum;
    pathMax = std::max(pathMax, w->pathCyclesMax);
    l2Sectors += w->l2Sectors;
    splitBytes += w->splitBytesMoved;
    l1LineReplays += w->l1LineReplays;
    sharedAtomicConflicts += w->sharedAtomicConflicts;
    printfCalls += w->printfCalls;
    printfThreads += w->printfThreads;
    heapThreads += w->heapThreads;
  }
  double hottestAtomicUnit = 0;
  if (workers_.size() == 1)
    hottestAtomicUnit = workers_[0]->atomicUnits.hottest();
  else {
    for (const auto &w : workers_)
      w->atomicUnits.forEach([&](uint64_t unit, double cycles) { atomicUnits.add(unit, cycles); });
    hottestAtomicUnit = atomicUnits.hottest();
  }

  const InstructionCounters &t = L.total;
  TimeInputs in;
  in.ctaPathCycles = ctasTimed ? pathSum / static_cast<double>(ctasTimed) : 0;
  in.ctaPathCyclesMax = static_cast<double>(pathMax);
  in.l2Sectors = static_cast<uint64_t>(static_cast<double>(l2Sectors) * sampleScale);
  in.l2SectorBytes = footprintGranule_;
  in.splitBytesMoved = static_cast<uint64_t>(static_cast<double>(splitBytes) * sampleScale);
  in.l1LineReplays = static_cast<uint64_t>(static_cast<double>(l1LineReplays) * sampleScale);
  in.dramReadUnitExtraBytes =
      sectorsPerUnit > 1
          ? footprintBytes(readUnits * sectorsPerUnit - std::min(readUnits * sectorsPerUnit, readGranules))
          : 0;
  in.partialWriteFillBytes = footprintBytes(partialFills);
  in.sharedAtomicConflicts = static_cast<uint64_t>(static_cast<double>(sharedAtomicConflicts) * sampleScale);
  in.printfCalls = static_cast<uint64_t>(static_cast<double>(printfCalls) * sampleScale);
  in.printfThreads = static_cast<uint64_t>(static_cast<double>(printfThreads) * sampleScale);
  in.heapThreads = static_cast<uint64_t>(static_cast<double>(heapThreads) * sampleScale);
  // A sampled grid's busiest atomic unit took a share of the whole grid's atomics in proportion.
  in.hottestAtomicRegionCycles = hottestAtomicUnit * sampleScale;
  // What the SMs issue: the PTX's instructions less the shared accesses ptxas merges into others.
  in.warpInstructionsByClass = L.warpInstructionsByClass;
  for (const InstructionProfile &p : L.instructions)
    if (p.merged == MergedRole::Merged) {
      uint64_t &n = in.warpInstructionsByClass[static_cast<int>(p.cls)];
      n -= std::min(n, p.counters.warpExecuted);
    }
  in.ctas = L.ctas;
  in.memoryRequests = t.globalRequests + t.localRequests + t.textureRequests + t.surfaceRequests;
  in.replays = t.sharedWavefronts - std::min(t.sharedWavefronts, t.sharedRequests);
  in.constantReplays = t.constantTransactions - std::min(t.constantTransactions, t.constantRequests);
  in.bytesMoved = t.globalBytesMoved + t.localBytesMoved + (t.textureSectors + t.surfaceSectors) * textureGranule_;
  in.readFootprintBytes = L.readFootprintBytes;
  in.writeFootprintBytes = L.writeFootprintBytes;
  in.bytesRequested = t.globalBytesRequested + t.textureBytesRequested + t.surfaceBytesRequested;
  in.uniqueBytes = L.uniqueBytesRead + L.uniqueBytesWritten;
  in.occupancy = L.occupancy;
  in.smClockMHz = options_.smClockMHz;
  in.pathBasis = pathBasisOf(cc_, in);
  in.l2BasisBytesMoved = in.bytesMoved;
  L.timeInputs = in;
  L.time = estimateTime(target_, in);
  noteClockWait(L, std::exchange(clockWaitCycles_, 0));
  // Its place in the launch tree (dynamic parallelism).
  const size_t index = launches_.size();
  if (treeProfiles_.size() <= launch_.treeGrid)
    treeProfiles_.resize(launch_.treeGrid + 1, -1);
  treeProfiles_[launch_.treeGrid] = static_cast<int64_t>(index);
  L.depth = launch_.depth;
  if (launch_.depth > 0 && launch_.parentGrid < treeProfiles_.size())
    L.parentProfile = treeProfiles_[launch_.parentGrid];
  if (launch_.depth > 0 && treeRoot_ < index) {
    ChildGrid c;
    c.profile = index;
    c.depth = launch_.depth;
    const std::vector<ChildGrid> &siblings = launches_[treeRoot_].childGrids;
    for (size_t i = siblings.size(); i-- > 0;)
      if (static_cast<int64_t>(siblings[i].profile) == L.parentProfile) {
        c.parent = static_cast<int64_t>(i);
        break;
      }
    c.origin = launch_.origin;
    c.kernel = L.demangled;
    c.grid = L.grid;
    c.block = L.block;
    c.ownSeconds = L.time.seconds;
    launches_[treeRoot_].childGrids.push_back(std::move(c));
  }
  launches_.push_back(std::move(L));
  workers_.clear();
}

const LaunchProfile *PerformanceModel::finishHostLaunch() {
  if (treeProfiles_.empty() || treeProfiles_[0] != static_cast<int64_t>(treeRoot_) || treeRoot_ >= launches_.size())
    return nullptr;
  LaunchProfile &root = launches_[treeRoot_];
  if (!treeFinished_) {
    treeFinished_ = true;
    scheduleLaunchTree();
  }
  return &root;
}

void PerformanceModel::scheduleLaunchTree() {
  LaunchProfile &root = launches_[treeRoot_];
  std::vector<ChildGrid> &grids = root.childGrids;
  if (grids.empty())
    return;
  // Each grid's own time, and its children in the order they ran (grid 0 the root, i + 1 child i).
  const size_t n = grids.size() + 1;
  std::vector<std::vector<size_t>> children(n);
  std::vector<double> own(n), share(n);
  auto shareOf = [&](const LaunchProfile &p) {
    const double resident =
        static_cast<double>(std::max(p.occupancy.activeBlocksPerSm, 1)) * std::max(p.time.smCount, 1);
    return std::min(1.0, static_cast<double>(std::max<uint64_t>(p.ctas, 1)) / resident);
  };
  own[0] = root.time.seconds;
  share[0] = shareOf(root);
  for (size_t i = 0; i < grids.size(); ++i) {
    own[i + 1] = grids[i].ownSeconds;
    share[i + 1] = shareOf(launches_[grids[i].profile]);
    children[static_cast<size_t>(grids[i].parent + 1)].push_back(i + 1);
  }
  // [CDP] arch::DeviceLaunchCosts, measured on an H200. A grid's children are launched as its threads
  // end (the VM runs them after it; on the GPU they may begin sooner, so this errs long): a thread's
  // k-th launch call is made k calls after its first, and the GPU takes launches one at a time.
  // A child begins firstChild after its call (nestedChild below the root's children), after the grid before it in its
  // stream (the block's own, or one the block created; fire-and-forget grids have none) and once one of the GPU's
  // resident-grid slots is free. Tail launches begin after everything else the grid launched, one
  // after another. Bottom up: a grid's span (its start until it and all it launched are done) needs
  // its children's.
  const arch::DeviceLaunchCosts &d = cc_.deviceLaunch;
  const double call = d.callNanoseconds * 1e-9, streamGap = d.streamGapNanoseconds * 1e-9,
               tailGap = d.tailGapNanoseconds * 1e-9, issue = d.issueNanoseconds * 1e-9,
               firstIssue = d.firstIssueNanoseconds * 1e-9;
  const uint64_t firstIssues = static_cast<uint64_t>(std::max(d.firstIssues, 0));
  const size_t residentGrids = static_cast<size_t>(std::max(cc_.maxResidentGrids, 1));
  std::vector<double> span(n), start(n); // start: after the launching grid's start
  for (size_t g = n; g-- > 0;) {
    span[g] = own[g];
    if (children[g].empty())
      continue;
    const double firstChild = (g == 0 ? d.firstChildNanoseconds : d.nestedChildNanoseconds) * 1e-9;
    std::map<std::pair<uint64_t, uint64_t>, uint32_t> calls;    // (CTA, thread): launch calls so far
    std::map<std::pair<uint64_t, uint64_t>, double> streamEnds; // (CTA or 0, stream): its last grid's end
    std::priority_queue<double, std::vector<double>, std::greater<>> running;
    double lastIssue = -1, end = own[g], work = 0, tailEnd = -1;
    uint64_t issued = 0;
    auto place = [&](size_t c, bool tail) {
      const vm::GridOrigin &k = grids[c - 1].origin;
      uint32_t &made = calls[{k.launchingCta, k.launchingThread}];
      double at = own[g] + made++ * call;
      at = lastIssue < 0 ? at : std::max(at, lastIssue + (issued <= firstIssues ? firstIssue : issue));
      lastIssue = at;
      ++issued;
      double s = at + firstChild;
      if (tail) {
        if (tailEnd >= 0)
          s = std::max(s, tailEnd + tailGap);
      } else if (k.stream != vm::GridOrigin::kFireAndForgetStream) {
        const auto key = std::make_pair(k.stream == 0 ? k.launchingCta : 0, k.stream);
        if (auto it = streamEnds.find(key); it != streamEnds.end())
          s = std::max(s, it->second + streamGap);
      }
      if (!tail) {
        if (running.size() >= residentGrids) {
          s = std::max(s, running.top());
          running.pop();
        }
        running.push(s + span[c]);
        work += span[c] * share[c];
      }
      start[c] = s;
      const double e = s + span[c];
      if (tail)
        tailEnd = e;
      else if (k.stream != vm::GridOrigin::kFireAndForgetStream)
        streamEnds[{k.stream == 0 ? k.launchingCta : 0, k.stream}] = e;
      end = std::max(end, e);
    };
    for (size_t c : children[g])
      if (grids[c - 1].origin.stream != vm::GridOrigin::kTailLaunchStream)
        place(c, false);
    // The GPU's SMs bound grids that fill them, whatever the streams allow.
    end = std::max(end, own[g] + firstChild + work);
    tailEnd = end - tailGap; // the first tail launch begins once everything else is done
    for (size_t c : children[g])
      if (grids[c - 1].origin.stream == vm::GridOrigin::kTailLaunchStream)
        place(c, true);
    span[g] = end;
  }
  // Top down: when each grid begins and ends, after the root began.
  std::vector<double> begin(n, 0);
  for (size_t c = 1; c < n; ++c) {
    const size_t parent = static_cast<size_t>(grids[c - 1].parent + 1);
    begin[c] = begin[parent] + start[c];
    grids[c - 1].gpuShare = share[c];
    grids[c - 1].startSeconds = begin[c];
    grids[c - 1].endSeconds = begin[c] + span[c];
  }
  TimeEstimate &t = root.time;
  t.childGridsSeconds = std::max(0.0, span[0] - t.seconds);
  uint32_t deepest = 0;
  for (const ChildGrid &c : grids)
    deepest = std::max(deepest, c.depth);
  t.explanation +=
      fmt::format("; its threads launched {} grid{} ({} level{} deep, dynamic parallelism): {:.2f} us more "
                  "until the last is done, {:.2f} us in all",
                  grids.size(), grids.size() == 1 ? "" : "s", deepest, deepest == 1 ? "" : "s",
                  t.childGridsSeconds * 1e6, root.seconds() * 1e6);
}

void PerformanceModel::noteClockWait(LaunchProfile &profile, uint64_t cycles) {
  if (cycles == 0)
    return;
  TimeEstimate &t = profile.time;
  if (t.clockHz <= 0)
    return;
  t.clockWaitSeconds = static_cast<double>(cycles) / t.clockHz;
  const double kernel = std::max({t.latencySeconds, t.memorySeconds, t.l2Seconds, t.serializationSeconds});
  t.explanation += fmt::format("; clock wait {:.2f} us (a warp read its clock {} cycles after the launch began)",
                               t.clockWaitSeconds * 1e6, cycles);
  if (t.clockWaitSeconds > kernel) {
    t.seconds = t.clockWaitSeconds + t.launchOverheadSeconds;
    t.dominant = Bound::Latency;
  }
}

} // namespace ptxray::model
