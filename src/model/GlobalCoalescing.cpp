// Global memory coalescing per compute capability. Every access is reduced to the same primitive:
// the lanes of one request, sorted by address, each covering [address, address + bytesPerLane), are
// walked once to visit every aligned block (segment, line or sector) they touch together with the
// span of bytes used inside it. The families differ only in how lanes are grouped into requests,
// which block size is walked and what one touched block costs:
//   1.0/1.1  half-warp requests; the whole half-warp is one 64/128/2x128-byte transaction when lane k
//            reads word k of an aligned segment, else one 32-byte transaction per lane (per block touched)
//   1.2/1.3  half-warp requests; each touched segment is one transaction, halved while the used bytes
//            fit in its lower or upper half (OpenCL BPG §3.2.1 protocol)
//   2.x/3.x  128-byte requests (whole warp, half or quarter warp for 8/16-byte words); one transaction
//            per 128-byte L1 line (L1 path) or 32-byte L2 segment (other paths and every store)
//   5.0+     one request per instruction; one transaction per 32-byte sector (Nsight Compute counting)
// Hot path: no allocation, fixed arrays over at most 32 lanes.
#include "model/GlobalCoalescing.h"

#include <algorithm>
#include <bit>
#include <limits>

namespace ptxray::model {
namespace {

/// The lanes of one request: their start addresses in ascending order.
struct SortedLanes {
  std::array<uint64_t, kLanes> start; ///< only the first `count` are written or read: not zeroed per call
  uint32_t count = 0;
};

/// One past the last byte a lane touches; saturates instead of wrapping at the top of the address space.
uint64_t rangeEnd(uint64_t begin, uint32_t bytes) {
  return begin > std::numeric_limits<uint64_t>::max() - bytes ? std::numeric_limits<uint64_t>::max() : begin + bytes;
}

uint64_t ceilDiv(uint64_t value, uint64_t divisor) {
  return (value + divisor - 1) / divisor;
}

/// Block index of an address: a shift for the power-of-two sizes every table entry uses, since a
/// 64-bit division per lane would dominate the cost of the hot path.
struct BlockSize {
  uint64_t bytes;
  int shift; ///< -1 when `bytes` is not a power of two
  explicit BlockSize(uint64_t size)
      : bytes(size), shift(size != 0 && (size & (size - 1)) == 0 ? std::countr_zero(size) : -1) {}
  uint64_t indexOf(uint64_t address) const { return shift >= 0 ? address >> shift : address / bytes; }
};

/// Insertion sort: addresses usually arrive (nearly) in lane order, so this is close to linear.
SortedLanes sortLanes(const WarpAccess &access, uint32_t laneMask) {
  SortedLanes lanes;
  for (uint32_t bits = laneMask; bits != 0; bits &= bits - 1) {
    uint64_t address = access.addresses[static_cast<size_t>(std::countr_zero(bits))];
    uint32_t slot = lanes.count++;
    for (; slot > 0 && lanes.start[slot - 1] > address; --slot)
      lanes.start[slot] = lanes.start[slot - 1];
    lanes.start[slot] = address;
  }
  return lanes;
}

/// Calls visit(blockBase, usedBegin, usedEnd) once per `blockBytes`-aligned block touched by the lanes,
/// in ascending order, with the span of bytes the lanes use inside it. A lane straddling a boundary
/// contributes to both blocks.
template <typename Visit>
void forEachTouchedBlock(const SortedLanes &lanes, uint32_t width, uint64_t blockBytes, Visit &&visit) {
  const BlockSize blocks(blockBytes);
  bool open = false;
  uint64_t block = 0, usedBegin = 0, usedEnd = 0;
  for (uint32_t i = 0; i < lanes.count; ++i) {
    uint64_t begin = lanes.start[i], end = rangeEnd(begin, width);
    uint64_t first = blocks.indexOf(begin), last = blocks.indexOf(end - 1);
    // Starts ascend, so a block before the open one was already covered to its end by an earlier lane.
    if (open)
      first = std::max(first, block);
    for (uint64_t b = first; b <= last; ++b) {
      uint64_t blockBegin = b * blockBytes;
      uint64_t partBegin = std::max(begin, blockBegin), partEnd = std::min(end, blockBegin + blockBytes);
      if (open && b == block) {
        usedBegin = std::min(usedBegin, partBegin), usedEnd = std::max(usedEnd, partEnd);
        continue;
      }
      if (open)
        visit(block * blockBytes, usedBegin, usedEnd);
      open = true, block = b, usedBegin = partBegin, usedEnd = partEnd;
    }
  }
  if (open)
    visit(block * blockBytes, usedBegin, usedEnd);
}

/// Distinct `blockBytes` blocks the lanes touch.
uint32_t touchedBlocks(const SortedLanes &lanes, uint32_t width, uint64_t blockBytes) {
  uint32_t blocks = 0;
  forEachTouchedBlock(lanes, width, blockBytes, [&](uint64_t, uint64_t, uint64_t) { ++blocks; });
  return blocks;
}

uint32_t smallestTransactionBytes(const arch::GlobalMemoryRules &rules) {
  return static_cast<uint32_t>(*std::min_element(rules.transactionBytes.begin(), rules.transactionBytes.end()));
}

uint32_t largestTransactionBytes(const arch::GlobalMemoryRules &rules) {
  return static_cast<uint32_t>(*std::max_element(rules.transactionBytes.begin(), rules.transactionBytes.end()));
}

void addTransactions(GlobalCost &cost, uint32_t count, uint64_t bytesEach) {
  cost.transactions += count;
  cost.bytesMoved += count * bytesEach;
}

// --- CC 1.0 / 1.1 -------------------------------------------------------------------------------

/// The word sizes CC 1.0/1.1 can coalesce (arch::GlobalMemoryRules).
bool coalescibleWordCc1x(const arch::GlobalMemoryRules &rules, uint32_t width) {
  return std::has_single_bit(width) && width >= static_cast<uint32_t>(rules.minCoalescedWordBytes) &&
         width <= static_cast<uint32_t>(rules.maxCoalescedWordBytes);
}

/// The half-warp's coalesced segment is 16 words; it is fetched with transactions of up to the
/// largest size (so 16-byte words take two 128-byte transactions).
uint32_t inOrderTransactionBytes(const arch::GlobalMemoryRules &rules, uint32_t width) {
  return std::min(static_cast<uint32_t>(rules.threadsPerRequest) * width, largestTransactionBytes(rules));
}

uint32_t inOrderTransactions(const arch::GlobalMemoryRules &rules, uint32_t width) {
  return static_cast<uint32_t>(rules.threadsPerRequest) * width / inOrderTransactionBytes(rules, width);
}

/// Lane k of the half-warp (k counted from the half-warp's first lane) reads word k of a segment
/// aligned to 16 words; inactive lanes are allowed.
bool isInOrderAligned(const arch::GlobalMemoryRules &rules, const WarpAccess &access, uint32_t firstLane,
                      uint32_t laneMask) {
  uint32_t width = access.bytesPerLane;
  if (!coalescibleWordCc1x(rules, width))
    return false;
  uint64_t segmentBytes = static_cast<uint64_t>(rules.threadsPerRequest) * width;
  uint32_t lead = static_cast<uint32_t>(std::countr_zero(laneMask));
  uint64_t leadOffset = static_cast<uint64_t>(lead - firstLane) * width;
  if (access.addresses[lead] < leadOffset)
    return false;
  uint64_t segment = access.addresses[lead] - leadOffset;
  if (segment % segmentBytes != 0)
    return false;
  for (uint32_t bits = laneMask; bits != 0; bits &= bits - 1) {
    uint32_t lane = static_cast<uint32_t>(std::countr_zero(bits));
    if (access.addresses[lane] != segment + static_cast<uint64_t>(lane - firstLane) * width)
      return false;
  }
  return true;
}

/// Without coalescing every active lane is served on its own, by one minimum-size transaction per
/// block it touches (two when a misaligned word straddles a boundary). No sharing, not even broadcast.
uint32_t perLaneTransactions(const arch::GlobalMemoryRules &rules, const WarpAccess &access, uint32_t laneMask) {
  const BlockSize blocks(smallestTransactionBytes(rules));
  uint32_t count = 0;
  for (uint32_t bits = laneMask; bits != 0; bits &= bits - 1) {
    uint64_t begin = access.addresses[static_cast<size_t>(std::countr_zero(bits))];
    count +=
        static_cast<uint32_t>(blocks.indexOf(rangeEnd(begin, access.bytesPerLane) - 1) - blocks.indexOf(begin) + 1);
  }
  return count;
}

void inOrderHalfWarp(const arch::GlobalMemoryRules &rules, const WarpAccess &access, uint32_t firstLane,
                     uint32_t laneMask, GlobalCost &cost) {
  uint32_t width = access.bytesPerLane;
  if (isInOrderAligned(rules, access, firstLane, laneMask))
    addTransactions(cost, inOrderTransactions(rules, width), inOrderTransactionBytes(rules, width));
  else
    addTransactions(cost, perLaneTransactions(rules, access, laneMask), smallestTransactionBytes(rules));
  // Ideal: what the same active lanes cost reading consecutive words from an aligned segment.
  bool coalescible = coalescibleWordCc1x(rules, width);
  cost.idealTransactions +=
      coalescible ? inOrderTransactions(rules, width)
                  : laneCount(laneMask) * static_cast<uint32_t>(ceilDiv(width, smallestTransactionBytes(rules)));
}

// --- CC 1.2 / 1.3 -------------------------------------------------------------------------------

/// The guide's reduction: while the used bytes lie in the lower or the upper half of the
/// transaction, and the half is still a transaction size, halve it.
uint32_t reducedTransactionBytes(uint64_t segmentBase, uint64_t segmentBytes, uint64_t usedBegin, uint64_t usedEnd,
                                 uint64_t smallest) {
  uint64_t base = segmentBase, size = segmentBytes;
  while (size / 2 >= smallest) {
    uint64_t middle = base + size / 2;
    if (usedEnd <= middle)
      size /= 2;
    else if (usedBegin >= middle)
      base = middle, size /= 2;
    else
      break;
  }
  return static_cast<uint32_t>(size);
}

/// Serving the lowest active thread's segment first and repeating visits every touched segment once,
/// so walking the segments in address order issues the same transactions.
void segmentProtocolHalfWarp(const arch::GlobalMemoryRules &rules, const WarpAccess &access, uint32_t laneMask,
                             GlobalCost &cost) {
  uint32_t width = access.bytesPerLane;
  uint64_t segmentBytes = static_cast<uint64_t>(rules.segmentBytesForWordSize(static_cast<int>(width)));
  uint64_t smallest = smallestTransactionBytes(rules);
  forEachTouchedBlock(sortLanes(access, laneMask), width, segmentBytes,
                      [&](uint64_t segmentBase, uint64_t usedBegin, uint64_t usedEnd) {
                        addTransactions(
                            cost, 1, reducedTransactionBytes(segmentBase, segmentBytes, usedBegin, usedEnd, smallest));
                      });
  // Ideal: consecutive words from a segment boundary fill ceil(bytes / segment) segments.
  uint64_t requested = static_cast<uint64_t>(laneCount(laneMask)) * width;
  cost.idealTransactions += static_cast<uint32_t>(ceilDiv(requested, segmentBytes));
}

// --- CC 2.x / 3.x ------------------------------------------------------------------------------

/// Fermi/Kepler issue requests of at most one 128-byte line: a warp of up to 4-byte words, a half
/// warp of 8-byte words, a quarter warp of 16-byte words.
uint32_t lanesPerLineRequest(const arch::ComputeCapability &cc, uint32_t width) {
  uint32_t lanes = static_cast<uint32_t>(cc.global.threadsPerRequest);
  if (cc.global.l1LineBytes > 0)
    lanes = std::min(lanes, std::max(1u, static_cast<uint32_t>(cc.global.l1LineBytes) / width));
  return lanes;
}

/// Loads on the L1 path are fetched in whole lines; L2-only, read-only and uncached loads and every
/// store move 32-byte segments.
uint64_t transactionGranularity(const arch::ComputeCapability &cc, const WarpAccess &access, GlobalPath path) {
  bool wholeLines = path == GlobalPath::L1 && !access.isStore && cc.global.l1LineBytes > 0;
  return static_cast<uint64_t>(wholeLines ? cc.global.l1LineBytes : cc.global.l2SectorBytes);
}

/// Transactions and ideal for one request of `laneMask` lanes at `granularity`-byte blocks.
void blockCountedRequest(const WarpAccess &access, uint32_t laneMask, uint64_t granularity, GlobalCost &cost) {
  uint32_t width = access.bytesPerLane;
  addTransactions(cost, touchedBlocks(sortLanes(access, laneMask), width, granularity), granularity);
  // Ideal: the requested bytes packed from a block boundary.
  uint64_t requested = static_cast<uint64_t>(laneCount(laneMask)) * width;
  cost.idealTransactions += static_cast<uint32_t>(ceilDiv(requested, granularity));
}

// --- request grouping ---------------------------------------------------------------------------

uint32_t laneGroupMask(uint32_t firstLane, uint32_t lanes) {
  uint32_t ones = lanes >= static_cast<uint32_t>(kLanes) ? ~0u : (1u << lanes) - 1u;
  return ones << firstLane;
}

/// Splits the warp into consecutive groups of `lanesPerRequest` lanes; each group with an active lane
/// is one request, costed by `costRequest(firstLane, activeMask, cost)`.
template <typename CostRequest>
void forEachRequest(const WarpAccess &access, uint32_t lanesPerRequest, GlobalCost &cost, CostRequest &&costRequest) {
  if (lanesPerRequest == 0)
    lanesPerRequest = static_cast<uint32_t>(kLanes);
  for (uint32_t first = 0; first < static_cast<uint32_t>(kLanes); first += lanesPerRequest) {
    uint32_t active = access.mask & laneGroupMask(first, lanesPerRequest);
    if (active == 0)
      continue; // a (half-)warp without active lanes issues nothing
    ++cost.requests;
    costRequest(first, active, cost);
  }
}

bool requestsPerHalfWarp(const arch::ComputeCapability &cc) {
  return cc.global.threadsPerRequest < kLanes;
}

/// 5.0+: sectors on every path (L1, L2, read-only, stores), one request per instruction.
bool countsSectorsPerInstruction(const arch::ComputeCapability &cc) {
  return cc.global.requestPerInstruction;
}

} // namespace

GlobalCost globalAccessCost(const arch::ComputeCapability &cc, const WarpAccess &access, GlobalPath path) {
  GlobalCost cost;
  if (access.mask == 0 || access.bytesPerLane == 0 || cc.global.transactionBytes.empty())
    return cost;
  cost.bytesRequested = static_cast<uint64_t>(laneCount(access.mask)) * access.bytesPerLane;
  const arch::GlobalMemoryRules &rules = cc.global;

  if (requestsPerHalfWarp(cc)) { // CC 1.x: no caches, the path does not matter
    auto halfWarp = [&](uint32_t firstLane, uint32_t active, GlobalCost &out) {
      if (rules.requiresInOrderAlignedAccess)
        inOrderHalfWarp(rules, access, firstLane, active, out);
      else
        segmentProtocolHalfWarp(rules, access, active, out);
    };
    forEachRequest(access, static_cast<uint32_t>(rules.threadsPerRequest), cost, halfWarp);
    return cost;
  }

  // 2.0 and later: one request per warp (5.0+) or per 128-byte line's worth of lanes (2.x/3.x).
  bool perInstruction = countsSectorsPerInstruction(cc);
  uint32_t lanesPerRequest =
      perInstruction ? static_cast<uint32_t>(kLanes) : lanesPerLineRequest(cc, access.bytesPerLane);
  uint64_t granularity =
      perInstruction ? static_cast<uint64_t>(rules.l2SectorBytes) : transactionGranularity(cc, access, path);
  if (granularity == 0) // no L2 in the table: fall back to the smallest transaction
    granularity = smallestTransactionBytes(rules);
  forEachRequest(access, lanesPerRequest, cost, [&](uint32_t, uint32_t active, GlobalCost &out) {
    blockCountedRequest(access, active, granularity, out);
  });
  return cost;
}

namespace {

/// The block a unit-stride access should start on (classifyAccess's Misaligned).
uint64_t alignmentBlock(const arch::ComputeCapability &cc, const WarpAccess &access, GlobalPath path) {
  const arch::GlobalMemoryRules &rules = cc.global;
  const uint32_t width = access.bytesPerLane;
  if (requestsPerHalfWarp(cc)) {
    if (rules.requiresInOrderAlignedAccess)
      return coalescibleWordCc1x(rules, width) ? static_cast<uint64_t>(rules.threadsPerRequest) * width
                                               : smallestTransactionBytes(rules);
    return static_cast<uint64_t>(rules.segmentBytesForWordSize(static_cast<int>(width)));
  }
  uint64_t block = countsSectorsPerInstruction(cc) ? static_cast<uint64_t>(rules.l2SectorBytes)
                                                   : transactionGranularity(cc, access, path);
  return block ? block : smallestTransactionBytes(rules);
}

} // namespace

AccessShape classifyAccess(const arch::ComputeCapability &cc, const WarpAccess &access, GlobalPath path) {
  AccessShape shape;
  uint32_t bits = access.mask;
  if (bits == 0 || cc.global.transactionBytes.empty())
    return shape;
  const int first = std::countr_zero(bits);
  bits &= bits - 1;
  int previousLane = first, lastLane = first;
  uint64_t previous = access.addresses[static_cast<size_t>(first)];
  int64_t stride = 0;
  bool haveStride = false;
  if (access.mask == ~0u) {
    // Every lane (the common case): one branch-free pass over neighbouring differences.
    stride = static_cast<int64_t>(access.addresses[1] - access.addresses[0]);
    bool constant = true;
    for (size_t lane = 2; lane < static_cast<size_t>(kLanes); ++lane)
      constant &= static_cast<int64_t>(access.addresses[lane] - access.addresses[lane - 1]) == stride;
    if (!constant)
      return shape; // Scattered
    bits = 0, previous = access.addresses[kLanes - 1], lastLane = kLanes - 1;
  }
  for (; bits != 0; bits &= bits - 1) {
    const int lane = std::countr_zero(bits);
    const uint64_t address = access.addresses[static_cast<size_t>(lane)];
    const int64_t delta = static_cast<int64_t>(address - previous);
    const int64_t lanes = lane - previousLane;
    if (lanes != 1 && delta % lanes != 0)
      return shape; // Scattered
    const int64_t step = lanes == 1 ? delta : delta / lanes;
    if (haveStride && step != stride)
      return shape;
    stride = step, haveStride = true;
    previous = address, previousLane = lane, lastLane = lane;
  }
  const uint64_t width = access.bytesPerLane;
  const uint64_t magnitude = stride < 0 ? static_cast<uint64_t>(-stride) : static_cast<uint64_t>(stride);
  shape.strideBytes = magnitude;
  if (magnitude == 0) {
    shape.pattern = AccessPattern::Broadcast;
  } else if (magnitude > width) {
    shape.pattern = AccessPattern::Strided;
  } else if (magnitude == width) {
    // The lanes from the first to the last active one cover [low, high) contiguously.
    const uint64_t firstAddress = access.addresses[static_cast<size_t>(first)];
    const uint64_t low = stride > 0 ? firstAddress : previous;
    const uint64_t high = rangeEnd(low, static_cast<uint32_t>(width * static_cast<uint64_t>(lastLane - first + 1)));
    const BlockSize block(alignmentBlock(cc, access, path));
    const uint64_t touched = block.indexOf(high - 1) - block.indexOf(low) + 1;
    shape.pattern = touched > ceilDiv(high - low, block.bytes) ? AccessPattern::Misaligned : AccessPattern::UnitStride;
  }
  return shape;
}

} // namespace ptxray::model
