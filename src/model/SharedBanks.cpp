// Shared-memory bank conflicts and constant-cache serialization of one warp-wide access.
//
// Sources: [BPG] OpenCL Best Practices Guide §3.2.2.1, §3.2.5; [KTG] Kepler Tuning Guide §1.4.3.1;
// [PG4.2] CUDA C Programming Guide 4.2: appendix F (F.3.3 CC 1.x, F.4.3 CC 2.x) and §5.3.2 (constant
// memory requests);
// [PG] Programming Guide shared-memory sections of CC 3.x (64-bit and 32-bit bank modes) and 5.x;
// [NCU] Nsight Compute's shared-memory wavefronts.
//
// One model serves every family. An access wider than the hardware handles natively is split into
// passes (32-bit on 1.x, 128-bit after); each pass is served per group of lanes whose bytes fill
// the banks exactly once (1.x: half-warp; 2.0+: warp for <= 32-bit, half-warp for 64-bit, quarter-warp
// for 128-bit; Kepler's 8-byte mode doubles the bytes a group may cover). A group takes as many
// wavefronts as the largest number of different bank rows any one bank must deliver; lanes that
// share a row share its delivery (multicast). CC 1.x reads differ: only one word is broadcast per
// step. Kepler's banks are 64 bits wide, so in 4-byte mode the words i and i + 32 of a 64-word
// segment sit in one row and do not conflict ([PG] 3.x, 32-bit mode). Fermi's 128-bit accesses take
// one pass more per quarter-warp ([PG4.2] F.4.3.2). Ideal wavefronts: one per group with an active lane.
#include "model/SharedBanks.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <functional>

namespace ptxray::model {
namespace {

/// Capacity: the widest access any architecture serves natively (arch::SharedMemoryBanks::widestAccessBytes).
constexpr uint32_t kWidestNativeAccessBytes = 16;

// ---- Implementation capacities (not architectural numbers) ----

/// Banks are tracked in a 64-bit mask; the database has 16 or 32.
constexpr uint32_t kMaxBanks = 64;
/// A lane touches at most one bank per byte of a pass, plus one when the address is misaligned.
constexpr size_t kMaxUnitsPerLane = kWidestNativeAccessBytes + 1;
constexpr uint32_t kAllLanes = ~0u;

/// Where a byte lands: its bank unit (bankWidth bytes), the unit's bank and its physical row.
/// Bank counts and widths are powers of two on every modeled architecture; ShiftMap serves those
/// with shifts and masks, DivideMap anything else.
struct DivideMap {
  uint64_t bankWidth = 1, banks = 1, unitsPerRow = 1;
  uint64_t unit(uint64_t address) const { return address / bankWidth; }
  uint32_t bank(uint64_t unit) const { return static_cast<uint32_t>(unit % banks); }
  uint64_t row(uint64_t unit) const { return unit / unitsPerRow; }
};

struct ShiftMap {
  int unitShift = 0, rowShift = 0;
  uint64_t bankMask = 0;
  explicit ShiftMap(const DivideMap &d)
      : unitShift(std::countr_zero(d.bankWidth)), rowShift(std::countr_zero(d.unitsPerRow)), bankMask(d.banks - 1) {}
  uint64_t unit(uint64_t address) const { return address >> unitShift; }
  uint32_t bank(uint64_t unit) const { return static_cast<uint32_t>(unit & bankMask); }
  uint64_t row(uint64_t unit) const { return unit >> rowShift; }
};

/// Spelled out: std::has_single_bit becomes a library call without -mpopcnt.
constexpr bool isPowerOfTwo(uint64_t x) {
  return x != 0 && (x & (x - 1)) == 0;
}

/// How one shared access is cut up and mapped onto the banks.
struct Layout {
  DivideMap map;                ///< bank units of the selected width; rows of the physical width
  bool powerOfTwoMap = false;   ///< ShiftMap{map} computes the same, faster
  uint32_t passBytes = 0;       ///< bytes per lane served in one pass
  uint32_t passes = 0;          ///< separate accesses the per-lane bytes are split into
  uint32_t groupLanes = 0;      ///< lanes served together (their bytes fill the banks once, or more)
  uint32_t rowBytes = 0;        ///< bytes one wavefront delivers without conflicts
  uint32_t requestLanes = 0;    ///< lanes per request: half-warp on 1.x, warp after
  bool singleBroadcast = false; ///< CC 1.x reads: one broadcast word per step
  uint32_t extraPassesPerGroup = 0;
};

/// Requests go per half-warp only on CC 1.x; that is also where the 1.x-only rules apply.
bool servesHalfWarps(const arch::ComputeCapability &cc) {
  return cc.sharedBanks.threadsPerRequest < cc.warpSize;
}

/// cudaDeviceSetSharedMemConfig has no effect where the width is fixed, so an unsupported request
/// falls back to the default.
uint32_t selectedBankWidth(const arch::SharedMemoryBanks &banks, int requested) {
  if (requested != 0 &&
      std::ranges::find(banks.selectableBankWidthsBytes, requested) != banks.selectableBankWidthsBytes.end())
    return static_cast<uint32_t>(requested);
  return static_cast<uint32_t>(banks.bankWidthBytes);
}

/// The widest selectable mode is the physical width of a bank: Kepler's banks deliver 64 bits even
/// in 4-byte mode ([PG] 3.x: 64 bits per bank per clock).
uint32_t physicalBankWidth(const arch::SharedMemoryBanks &banks) {
  int widest = banks.bankWidthBytes;
  for (int width : banks.selectableBankWidthsBytes)
    widest = std::max(widest, width);
  return static_cast<uint32_t>(widest);
}

Layout layoutFor(const arch::ComputeCapability &cc, uint32_t bytesPerLane, int requestedWidth) {
  const arch::SharedMemoryBanks &sb = cc.sharedBanks;
  assert(sb.banks > 0 && static_cast<uint32_t>(sb.banks) <= kMaxBanks);
  assert(sb.threadsPerRequest > 0 && sb.threadsPerRequest <= kLanes);
  Layout l;
  const uint32_t banks = static_cast<uint32_t>(sb.banks);
  const uint32_t bankWidth = selectedBankWidth(sb, requestedWidth);
  // A physical row spans every bank at its physical width, i.e. this many units of the mode's width.
  l.map = {bankWidth, banks, std::max<uint64_t>(1, uint64_t{banks} * physicalBankWidth(sb) / bankWidth)};
  l.powerOfTwoMap = isPowerOfTwo(l.map.bankWidth) && isPowerOfTwo(l.map.banks) && isPowerOfTwo(l.map.unitsPerRow);
  l.requestLanes = static_cast<uint32_t>(sb.threadsPerRequest);
  l.singleBroadcast = servesHalfWarps(cc);
  const uint32_t widest =
      std::min<uint32_t>(kWidestNativeAccessBytes, static_cast<uint32_t>(std::max(sb.widestAccessBytes, 1)));
  l.passBytes = std::min(bytesPerLane, widest);
  l.passes = (bytesPerLane + l.passBytes - 1) / l.passBytes;
  const uint32_t fill = std::max<uint32_t>(1, banks * bankWidth / l.passBytes);
  l.groupLanes = std::bit_floor(std::min(fill, l.requestLanes));
  l.rowBytes = banks * bankWidth;
  if (l.passBytes == 16) { // a 128-bit pass
    l.extraPassesPerGroup = static_cast<uint32_t>(sb.extraPassesFor128Bit);
    if (sb.lanesPerWideWavefront > 0)
      l.groupLanes = std::bit_floor(std::min(static_cast<uint32_t>(sb.lanesPerWideWavefront), l.requestLanes));
  }
  return l;
}

uint32_t groupMask(uint32_t first, uint32_t lanes) {
  const uint32_t bits = lanes >= kLanes ? kAllLanes : (1u << lanes) - 1;
  return bits << first;
}

uint32_t activeGroups(uint32_t mask, uint32_t lanes) {
  uint32_t groups = 0;
  for (uint32_t first = 0; first < kLanes; first += lanes)
    groups += (mask & groupMask(first, lanes)) != 0;
  return groups;
}

/// A bank and what it must deliver for one lane: a row (or, for 1.x stores, the exact address).
struct BankItem {
  uint32_t bank;
  uint64_t key;
};

bool itemLess(const BankItem &a, const BankItem &b) {
  return a.bank != b.bank ? a.bank < b.bank : a.key < b.key;
}

/// Insertion sort: at most a few dozen items, usually already in bank order (linear access).
template <typename T, typename Less> void smallSort(T *items, size_t n, Less less) {
  for (size_t i = 1; i < n; ++i) {
    const T item = items[i];
    size_t j = i;
    for (; j > 0 && less(item, items[j - 1]); --j)
      items[j] = items[j - 1];
    items[j] = item;
  }
}

/// Calls visit(bank, key) for every bank unit each lane of `mask` touches in `pass`. The key is what
/// the bank must deliver: the physical row, or for 1.x stores the exact address, because only one of
/// several writes to one location is performed ([PG4.2] F.3.3).
template <typename Map, typename Visit>
void forEachBankKey(const WarpAccess &access, uint32_t mask, uint32_t pass, const Layout &l, Map map, Visit visit) {
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    const uint64_t address = access.addresses[std::countr_zero(m)] + uint64_t{pass} * l.passBytes;
    const uint64_t last = map.unit(address + l.passBytes - 1);
    for (uint64_t unit = map.unit(address); unit <= last; ++unit)
      visit(map.bank(unit), l.singleBroadcast ? address : map.row(unit));
  }
}

/// The most different keys any single bank holds, by sorting (bank, key) pairs.
uint32_t busiestBankBySorting(BankItem *items, size_t n) {
  smallSort(items, n, itemLess);
  uint32_t busiest = 0, run = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || items[i].bank != items[i - 1].bank)
      run = 1;
    else if (items[i].key != items[i - 1].key)
      ++run;
    busiest = std::max(busiest, run);
  }
  return busiest;
}

/// Multicast model (2.0+, and 1.x stores): lanes needing the same row of a bank share it, so a
/// group takes as many wavefronts as the busiest bank has different rows. Most accesses give each
/// bank one row (linear, broadcast, padded tiles); a first-row table settles those in one pass and
/// only conflicting accesses are sorted.
template <typename Map>
uint32_t multicastWavefronts(const WarpAccess &access, uint32_t mask, uint32_t pass, const Layout &l, Map map) {
  std::array<uint64_t, kMaxBanks> firstKey;
  uint64_t used = 0;
  bool repeated = false;
  forEachBankKey(access, mask, pass, l, map, [&](uint32_t bank, uint64_t key) {
    const uint64_t bit = uint64_t{1} << bank;
    if ((used & bit) == 0)
      firstKey[bank] = key;
    else
      repeated |= firstKey[bank] != key;
    used |= bit;
  });
  if (!repeated)
    return used != 0;
  std::array<BankItem, kLanes * kMaxUnitsPerLane> items;
  size_t n = 0;
  forEachBankKey(access, mask, pass, l, map, [&](uint32_t bank, uint64_t key) {
    if (n < items.size())
      items[n++] = {bank, key};
  });
  return busiestBankBySorting(items.data(), n);
}

/// CC 1.x reads ([PG4.2] F.3.3.2): each step broadcasts one word to every lane reading it and serves
/// one further lane in each other bank. Which word and lanes the hardware picks is unspecified; the
/// model takes the lowest pending lane, as a priority encoder would.
template <typename Map>
uint32_t singleBroadcastSteps(const WarpAccess &access, uint32_t mask, uint32_t pass, const Layout &l, Map map) {
  std::array<uint64_t, kLanes> word;
  std::array<uint32_t, kLanes> bank;
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    const int lane = std::countr_zero(m);
    word[lane] = map.unit(access.addresses[lane] + uint64_t{pass} * l.passBytes);
    bank[lane] = map.bank(word[lane]);
  }
  uint32_t steps = 0;
  for (uint32_t pending = mask; pending != 0; ++steps) {
    const int first = std::countr_zero(pending);
    uint64_t busyBanks = uint64_t{1} << bank[first];
    uint32_t served = 0;
    for (uint32_t m = pending; m != 0; m &= m - 1) {
      const int lane = std::countr_zero(m);
      const uint64_t bankBit = uint64_t{1} << bank[lane];
      if (word[lane] == word[first] || (busyBanks & bankBit) == 0) {
        served |= 1u << lane;
        busyBanks |= bankBit;
      }
    }
    pending &= ~served;
  }
  return steps;
}

template <typename Map>
uint32_t groupWavefronts(const WarpAccess &access, uint32_t mask, uint32_t pass, const Layout &l, Map map) {
  const bool broadcastReads = l.singleBroadcast && !access.isStore;
  const uint32_t base = broadcastReads ? singleBroadcastSteps(access, mask, pass, l, map)
                                       : multicastWavefronts(access, mask, pass, l, map);
  return base + l.extraPassesPerGroup;
}

/// Wavefronts and ideal wavefronts of every pass and group of lanes.
template <typename Map> void addGroups(const WarpAccess &access, const Layout &l, Map map, SharedCost &cost) {
  for (uint32_t pass = 0; pass < l.passes; ++pass) {
    for (uint32_t first = 0; first < kLanes; first += l.groupLanes) {
      const uint32_t mask = access.mask & groupMask(first, l.groupLanes);
      if (mask == 0)
        continue;
      const uint32_t wavefronts = groupWavefronts(access, mask, pass, l, map);
      // Without conflicts a group takes one wavefront a row of its bytes (more than one where the
      // group is wider than a row: lanesPerWideWavefront), or fewer when lanes share words.
      const uint32_t bytes = laneCount(mask) * l.passBytes;
      const uint32_t rows = std::max<uint32_t>(1, (bytes + l.rowBytes - 1) / std::max<uint32_t>(l.rowBytes, 1));
      cost.idealWavefronts += std::min(rows, std::max<uint32_t>(wavefronts, 1));
      cost.wavefronts += wavefronts;
    }
  }
}

uint32_t distinctAddresses(const WarpAccess &access, uint32_t mask) {
  std::array<uint64_t, kLanes> addresses;
  size_t n = 0;
  for (uint32_t m = mask; m != 0; m &= m - 1)
    addresses[n++] = access.addresses[std::countr_zero(m)];
  smallSort(addresses.data(), n, std::less<uint64_t>{});
  uint32_t distinct = 0;
  for (size_t i = 0; i < n; ++i)
    distinct += i == 0 || addresses[i] != addresses[i - 1];
  return distinct;
}

/// Constant requests per half-warp on 1.x and per warp after (arch::SharedMemoryBanks).
uint32_t constantRequestLanes(const arch::ComputeCapability &cc) {
  return static_cast<uint32_t>(cc.sharedBanks.constantThreadsPerRequest);
}

} // namespace

SharedCost sharedAccessCost(const arch::ComputeCapability &cc, const WarpAccess &access, int bankWidthBytes) {
  if (access.mask == 0 || access.bytesPerLane == 0)
    return {};
  const Layout l = layoutFor(cc, access.bytesPerLane, bankWidthBytes);
  SharedCost cost;
  cost.requests = l.passes * activeGroups(access.mask, l.requestLanes);
  if (l.powerOfTwoMap)
    addGroups(access, l, ShiftMap(l.map), cost);
  else
    addGroups(access, l, l.map, cost);
  return cost;
}

ConstantCost constantAccessCost(const arch::ComputeCapability &cc, const WarpAccess &access) {
  const uint32_t lanes = constantRequestLanes(cc);
  assert(lanes > 0 && lanes <= kLanes);
  ConstantCost cost;
  for (uint32_t first = 0; first < kLanes; first += lanes) {
    const uint32_t mask = access.mask & groupMask(first, lanes);
    if (mask == 0)
      continue;
    ++cost.requests;
    cost.transactions += distinctAddresses(access, mask);
  }
  return cost;
}

} // namespace ptxray::model
