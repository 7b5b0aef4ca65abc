// Shared-memory bank conflicts and constant-cache serialization against the guides' rules and worked
// examples. Every expected value is derived by hand in the comment beside it.
//
// Notation: "word w" is the 32-bit word at byte address 4w; on 1.x bank = w mod 16, on 2.0+ bank =
// w mod 32 (4-byte banks). Results are (requests, wavefronts, idealWavefronts).
#include "model/SharedBanks.h"

#include "arch/ComputeCapability.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

namespace ptxray::model {
namespace {

constexpr uint32_t kFullWarp = 0xFFFFFFFFu;
constexpr uint32_t kLowerHalfWarp = 0x0000FFFFu;
constexpr uint32_t kUpperHalfWarp = 0xFFFF0000u;

using Cost = std::tuple<uint32_t, uint32_t, uint32_t>;

const arch::ComputeCapability &cc(int major, int minor) {
  const arch::ComputeCapability *found = arch::findComputeCapability(major, minor);
  EXPECT_NE(found, nullptr) << major << "." << minor;
  return *found;
}

/// Lane l accesses `bytesPerLane` bytes at base + l * strideBytes.
WarpAccess strided(uint64_t strideBytes, uint32_t bytesPerLane = 4, uint32_t mask = kFullWarp, uint64_t base = 0) {
  WarpAccess access;
  access.mask = mask;
  access.bytesPerLane = bytesPerLane;
  for (int lane = 0; lane < kLanes; ++lane)
    access.addresses[lane] = base + static_cast<uint64_t>(lane) * strideBytes;
  return access;
}

/// Lane l accesses the 32-bit word wordOf(l).
template <typename WordOf> WarpAccess words(WordOf wordOf, uint32_t mask = kFullWarp) {
  WarpAccess access;
  access.mask = mask;
  for (int lane = 0; lane < kLanes; ++lane)
    access.addresses[lane] = 4 * static_cast<uint64_t>(wordOf(lane));
  return access;
}

WarpAccess asStore(WarpAccess access) {
  access.isStore = true;
  return access;
}

Cost shared(int major, int minor, const WarpAccess &access, int bankWidthBytes = 0) {
  const SharedCost c = sharedAccessCost(cc(major, minor), access, bankWidthBytes);
  EXPECT_EQ(c.bankConflicts(), c.wavefronts - c.idealWavefronts);
  return {c.requests, c.wavefronts, c.idealWavefronts};
}

struct Version {
  int major;
  int minor;
};

// Families with the Fermi/Maxwell-style 32 x 4-byte banks and multicast (Kepler is tested apart).
const std::vector<Version> kMulticastFamilies = {{2, 0}, {2, 1}, {5, 0}, {5, 2}, {6, 0}, {6, 1},
                                                 {7, 0}, {7, 5}, {8, 0}, {8, 6}, {8, 9}, {9, 0}};
const std::vector<Version> kTeslaFamilies = {{1, 0}, {1, 1}, {1, 2}, {1, 3}};
const std::vector<Version> kKeplerFamilies = {{3, 0}, {3, 2}, {3, 5}, {3, 7}};

// ---- 32-bit accesses ----

TEST(SharedBanks, LinearWordsAreConflictFreeOnEveryFamily) {
  // Lane l reads word l: every bank of a request holds one word.
  for (auto [major, minor] : kTeslaFamilies) // two half-warp requests, one transaction each
    EXPECT_EQ(shared(major, minor, strided(4)), (Cost{2, 2, 2})) << major << "." << minor;
  for (auto [major, minor] : kMulticastFamilies) // one request, one wavefront
    EXPECT_EQ(shared(major, minor, strided(4)), (Cost{1, 1, 1})) << major << "." << minor;
  for (auto [major, minor] : kKeplerFamilies) {
    EXPECT_EQ(shared(major, minor, strided(4)), (Cost{1, 1, 1})) << major << "." << minor;
    // 8-byte mode: lanes 2k and 2k+1 share 64-bit word k of bank k: no conflict ([PG] 3.x 64-bit mode).
    EXPECT_EQ(shared(major, minor, strided(4), 8), (Cost{1, 1, 1})) << major << "." << minor;
  }
}

TEST(SharedBanks, StridedWordsConflictAsManyWaysAsTheStrideOnCc2AndLater) {
  // Lane l reads word s*l, bank (s*l) mod 32: with d = gcd(s, 32), 32/d banks are used by d lanes
  // each, every lane a different word, so the access is d-way ([PG4.2] F.4.3.1). s = 3: odd, 1-way.
  const std::vector<std::pair<uint64_t, uint32_t>> strideWays = {{1, 1}, {2, 2},   {3, 1},  {4, 4},
                                                                 {8, 8}, {16, 16}, {32, 32}};
  for (auto [major, minor] : kMulticastFamilies)
    for (auto [stride, ways] : strideWays)
      EXPECT_EQ(shared(major, minor, strided(4 * stride)), (Cost{1, ways, 1}))
          << major << "." << minor << " stride " << stride;
}

TEST(SharedBanks, StridedWordsOnCc1xConflictWithinEachHalfWarp) {
  // Per half-warp of 16 lanes on 16 banks: d = gcd(s, 16) lanes per used bank, so d steps; stride 32
  // puts all 16 lanes on bank 0 (16 steps). Two half-warps: 2 requests, 2*d transactions, ideal 2.
  const std::vector<std::pair<uint64_t, uint32_t>> strideWays = {{1, 1}, {2, 2},   {3, 1},  {4, 4},
                                                                 {8, 8}, {16, 16}, {32, 16}};
  for (auto [major, minor] : kTeslaFamilies)
    for (auto [stride, ways] : strideWays)
      EXPECT_EQ(shared(major, minor, strided(4 * stride)), (Cost{2, 2 * ways, 2}))
          << major << "." << minor << " stride " << stride;
}

TEST(SharedBanks, KeplerPairsWordsIAndIPlus32OfA64WordSegment) {
  // [PG] 3.x, 32-bit mode: words i and i+32 of one 64-word segment share a 64-bit bank row, so
  // only different 64-word segments in one bank conflict. Lane l reads word s*l:
  //   s=2:  words 0..62, bank b holds b and b+32, both in segment 0       -> 1-way
  //   s=4:  bank 0 holds 0, 32, 64, 96: segments 0, 0, 1, 1               -> 2-way
  //   s=8:  bank 0 holds 0, 32, ..., 224: segments 0..3, two words each   -> 4-way
  //   s=16: bank 0 holds 0, 32, ..., 480: segments 0..7                   -> 8-way
  //   s=32: all 32 lanes in bank 0, words 32l: segments 0..15             -> 16-way
  // 64-bit mode: lane l reads 64-bit word q = s*l/2 in bank q mod 32, row q/32:
  //   s=2: q = l, one per bank -> 1; s=4: q = 2l, bank b holds b and b+32 -> 2; s=8: q = 4l, bank 0
  //   holds 0, 32, 64, 96 -> 4; s=16: q = 8l, bank 0 holds 8 rows -> 8; s=32: q = 16l, banks 0 and
  //   16 hold 16 rows each -> 16.
  const std::vector<std::pair<uint64_t, uint32_t>> strideWays = {{1, 1}, {2, 1}, {4, 2}, {8, 4}, {16, 8}, {32, 16}};
  for (auto [major, minor] : kKeplerFamilies)
    for (int mode : {4, 8})
      for (auto [stride, ways] : strideWays)
        EXPECT_EQ(shared(major, minor, strided(4 * stride), mode), (Cost{1, ways, 1}))
            << major << "." << minor << " mode " << mode << " stride " << stride;
}

// ---- The OpenCL Best Practices Guide's tiles ----

/// The C = AA^T kernel's `transposedTile[x][y] = ...` ([BPG] §3.2.2.3) for the warp of a 16x16 block
/// holding threads y = 0 (lanes 0..15, x = lane) and y = 1 (lanes 16..31): word x*pitch + y.
WarpAccess transposedTileColumn(int pitch) {
  return asStore(words([pitch](int lane) { return (lane % 16) * pitch + lane / 16; }));
}

TEST(SharedBanks, OpenClGuideTransposedTileIs16WayOnCc1x) {
  // Pitch 16: half-warp y reads words 16x + y, x = 0..15, all in bank y: 16 different addresses in
  // one bank, 16 transactions per half-warp, 32 in all against 2 ideal: the guide's 16-way conflict.
  for (auto [major, minor] : kTeslaFamilies)
    EXPECT_EQ(shared(major, minor, transposedTileColumn(16)), (Cost{2, 32, 2})) << major << "." << minor;
  // Pitch 17: word 17x + y is in bank (x + y) mod 16, distinct for x = 0..15: conflict-free.
  for (auto [major, minor] : kTeslaFamilies)
    EXPECT_EQ(shared(major, minor, transposedTileColumn(17)), (Cost{2, 2, 2})) << major << "." << minor;
  // The same column read (not written) serializes the same way: 16 different words in one bank.
  WarpAccess read = transposedTileColumn(16);
  read.isStore = false;
  EXPECT_EQ(shared(1, 3, read), (Cost{2, 32, 2}));
}

TEST(SharedBanks, OpenClGuideTileRowReadsAndBroadcastsAreConflictFreeOnCc1x) {
  // `transposedTile[i][x]` with i fixed (i = 3): half-warp reads words 3*16 + x, x = 0..15: unit stride.
  EXPECT_EQ(shared(1, 3, words([](int lane) { return 3 * 16 + lane % 16; })), (Cost{2, 2, 2}));
  // `aTile[y][i]` (i = 5): every lane of half-warp y reads word 16y + 5: one broadcast per half-warp.
  EXPECT_EQ(shared(1, 3, words([](int lane) { return 16 * (lane / 16) + 5; })), (Cost{2, 2, 2}));
}

/// A warp reads column 5 of a 32-wide tile of floats: lane x reads word x*pitch + 5.
WarpAccess tileColumn32(int pitch) {
  return words([pitch](int lane) { return lane * pitch + 5; });
}

TEST(SharedBanks, ThirtyTwoWideTileColumnIs32WayOnCc2AndLaterAndPaddingRemovesIt) {
  for (auto [major, minor] : kMulticastFamilies) {
    // Pitch 32: words 32x + 5 all in bank 5, 32 different words: 32 wavefronts.
    EXPECT_EQ(shared(major, minor, tileColumn32(32)), (Cost{1, 32, 1})) << major << "." << minor;
    // Pitch 33: bank (33x + 5) mod 32 = (x + 5) mod 32, distinct: conflict-free.
    EXPECT_EQ(shared(major, minor, tileColumn32(33)), (Cost{1, 1, 1})) << major << "." << minor;
  }
}

TEST(SharedBanks, ThirtyTwoWideTileColumnOnKepler) {
  // Pitch 32, lane x reads word 32x + 5 (byte 128x + 20).
  //   4-byte mode: all in bank 5; segments (32x + 5)/64 = x/2 give 16 rows: 16-way.
  //   8-byte mode: 64-bit word 16x + 2, bank 2 (x even) or 18 (x odd), row x/2: 16 rows each: 16-way.
  // Pitch 33, lane x reads word 33x + 5 (byte 132x + 20).
  //   4-byte mode: bank (x + 5) mod 32, all distinct: 1-way.
  //   8-byte mode: 64-bit word q = 16x + (x + 5)/2. x = 2k: q = 32k + k + 2, bank k + 2 (2..17);
  //   x = 2k+1: q = 32k + 16 + k + 3, bank (k + 19) mod 32 (19..31, 0, 1, 2). Bank 2 holds q = 2
  //   (row 0, x = 0) and q = 514 (row 16, x = 31): 2-way; padding by one 4-byte word is not enough.
  for (auto [major, minor] : kKeplerFamilies) {
    EXPECT_EQ(shared(major, minor, tileColumn32(32)), (Cost{1, 16, 1})) << major << "." << minor;
    EXPECT_EQ(shared(major, minor, tileColumn32(32), 8), (Cost{1, 16, 1})) << major << "." << minor;
    EXPECT_EQ(shared(major, minor, tileColumn32(33)), (Cost{1, 1, 1})) << major << "." << minor;
    EXPECT_EQ(shared(major, minor, tileColumn32(33), 8), (Cost{1, 2, 1})) << major << "." << minor;
  }
}

// ---- Broadcast and multicast ----

TEST(SharedBanks, EveryLaneReadingOneWordIsABroadcast) {
  const WarpAccess same = words([](int) { return 10; });
  for (auto [major, minor] : kTeslaFamilies) // one broadcast per half-warp
    EXPECT_EQ(shared(major, minor, same), (Cost{2, 2, 2})) << major << "." << minor;
  for (auto [major, minor] : kMulticastFamilies)
    EXPECT_EQ(shared(major, minor, same), (Cost{1, 1, 1})) << major << "." << minor;
  for (auto [major, minor] : kKeplerFamilies)
    for (int mode : {4, 8})
      EXPECT_EQ(shared(major, minor, same, mode), (Cost{1, 1, 1})) << major << "." << minor;
}

TEST(SharedBanks, Cc1xBroadcastsOneWordPerStepWhereCc2MulticastsEvery) {
  // One half-warp: lanes 0..7 read word 0 (bank 0), lanes 8..15 read word 1 (bank 1).
  const WarpAccess twoWords = words([](int lane) { return lane / 8; }, kLowerHalfWarp);
  // 1.x: step 1 broadcasts word 0 (lanes 0..7) and serves one lane of bank 1 (lane 8); step 2
  // broadcasts word 1 to lanes 9..15: 2 transactions where 1 would do ([PG4.2] F.3.3.2).
  EXPECT_EQ(shared(1, 0, twoWords), (Cost{1, 2, 1}));
  EXPECT_EQ(shared(1, 3, twoWords), (Cost{1, 2, 1}));
  // 2.0+: any number of words are broadcast in one transaction ([PG4.2] F.4.3).
  EXPECT_EQ(shared(2, 0, twoWords), (Cost{1, 1, 1}));
  EXPECT_EQ(shared(9, 0, twoWords), (Cost{1, 1, 1}));
  // 1.x stores: several writes to one location are performed once, so two locations in two banks
  // take one transaction ([PG4.2] F.3.3).
  EXPECT_EQ(shared(1, 3, asStore(twoWords)), (Cost{1, 1, 1}));
}

TEST(SharedBanks, CharArrayConflictsOnCc1xOnly) {
  // `char c = shared[tid]`: lanes 4k..4k+3 read bytes of word k. 1.x half-warp 0 uses words 0..3
  // (banks 0..3, four lanes each): step 1 broadcasts word 0 and serves lanes 4, 8, 12; step 2
  // broadcasts word 1 (lanes 5..7) and serves 9, 13; step 3 broadcasts word 2 (10, 11) and serves
  // 14; step 4 serves 15: 4 steps. Half-warp 1 (words 4..7) likewise: 8 in all ([PG4.2] F.3.3.3).
  const WarpAccess chars = strided(1, 1);
  for (auto [major, minor] : kTeslaFamilies)
    EXPECT_EQ(shared(major, minor, chars), (Cost{2, 8, 2})) << major << "." << minor;
  // 2.0+: lanes reading within one word never conflict: 8 words in 8 banks ([PG4.2] F.4.3).
  for (auto [major, minor] : kMulticastFamilies)
    EXPECT_EQ(shared(major, minor, chars), (Cost{1, 1, 1})) << major << "." << minor;
  // `shared[4 * tid]` gives each lane its own word: conflict-free on 1.x too.
  EXPECT_EQ(shared(1, 0, strided(4, 1)), (Cost{2, 2, 2}));
  // Char stores on 1.x: 4 different byte addresses in each of 4 banks per half-warp -> 4 each.
  EXPECT_EQ(shared(1, 3, asStore(chars)), (Cost{2, 8, 2}));
  EXPECT_EQ(shared(2, 0, asStore(chars)), (Cost{1, 1, 1}));
}

// ---- 64- and 128-bit accesses ----

TEST(SharedBanks, DoublesOnCc1xAreTwo2WayRequestsPerHalfWarp) {
  // [PG4.2] F.3.3.4: a double is read as two 32-bit requests with a stride of two words. Lane l's
  // halves are words 2l and 2l+1; within a half-warp words 2l (l = 0..15) fill banks 0, 2, .., 14
  // twice: 2 steps per 32-bit request. 2 half-warps x 2 requests = 4 requests, 8 transactions,
  // 4 ideal (one per 32-bit request).
  for (auto [major, minor] : kTeslaFamilies)
    EXPECT_EQ(shared(major, minor, strided(8, 8)), (Cost{4, 8, 4})) << major << "." << minor;
  // float4: four 32-bit requests per half-warp, words 4l + p: 4 lanes per used bank -> 4 steps each:
  // 8 requests, 32 transactions, 8 ideal.
  EXPECT_EQ(shared(1, 3, strided(16, 16)), (Cost{8, 32, 8}));
}

TEST(SharedBanks, ConsecutiveDoublesNeedTwoPassesInKeplerFourByteModeAndOneInEightByteMode) {
  // Lane l reads the double at 8l. 4-byte mode: served per half-warp (16 x 8 B = 128 B = all banks
  // once), conflict-free: 2 wavefronts, ideal 2. 8-byte mode: 64-bit word l in bank l: the whole
  // warp in 1 ([KTG] §1.4.3.1: twice the bandwidth for 64-bit accesses).
  for (auto [major, minor] : kKeplerFamilies) {
    EXPECT_EQ(shared(major, minor, strided(8, 8)), (Cost{1, 2, 2})) << major << "." << minor;
    EXPECT_EQ(shared(major, minor, strided(8, 8), 4), (Cost{1, 2, 2})) << major << "." << minor;
    EXPECT_EQ(shared(major, minor, strided(8, 8), 8), (Cost{1, 1, 1})) << major << "." << minor;
  }
  // Fermi: conflict-free per half-warp ([PG4.2] F.4.3.2); its banks have no 8-byte mode, so asking
  // for one changes nothing.
  EXPECT_EQ(shared(2, 0, strided(8, 8)), (Cost{1, 2, 2}));
  EXPECT_EQ(shared(2, 0, strided(8, 8), 8), (Cost{1, 2, 2}));
}

TEST(SharedBanks, StrideTwoDoublesOnFermiAndKepler) {
  // Lane l reads the double at 16l (words 4l, 4l+1). Per half-warp, words 0..61:
  //   2.0: bank b holds words b and b+32: 2-way per half-warp -> 4 wavefronts, ideal 2.
  //   3.x 4-byte mode: b and b+32 are in one 64-word segment: no conflict -> 2, ideal 2.
  //   3.x 8-byte mode: whole warp, 64-bit words 2l = 0..62: bank b holds b and b+32 -> 2, ideal 1.
  EXPECT_EQ(shared(2, 0, strided(16, 8)), (Cost{1, 4, 2}));
  EXPECT_EQ(shared(3, 5, strided(16, 8), 4), (Cost{1, 2, 2}));
  EXPECT_EQ(shared(3, 5, strided(16, 8), 8), (Cost{1, 2, 1}));
}

TEST(SharedBanks, WideAccessesFromMaxwellOnAreServedPerHalfAndQuarterWarp) {
  for (Version v : {Version{5, 0}, Version{7, 0}, Version{8, 0}, Version{9, 0}}) {
    const auto [major, minor] = v;
    // Consecutive doubles: each half-warp covers 128 B once: 2 wavefronts, ideal 2.
    EXPECT_EQ(shared(major, minor, strided(8, 8)), (Cost{1, 2, 2})) << major << "." << minor;
    // Consecutive float4: each quarter-warp covers 128 B once: 4 wavefronts, ideal 4.
    EXPECT_EQ(shared(major, minor, strided(16, 16)), (Cost{1, 4, 4})) << major << "." << minor;
    // float4 at stride 32 B: quarter-warp lanes l and l+4 share banks (words 8l..8l+3 mod 32):
    // 2-way in each quarter-warp -> 8, ideal 4.
    EXPECT_EQ(shared(major, minor, strided(32, 16)), (Cost{1, 8, 4})) << major << "." << minor;
    // Doubles at stride 128 B: half-warp lanes all on banks 0 and 1, 16 different doubles: 16-way
    // in each half-warp -> 32, ideal 2.
    EXPECT_EQ(shared(major, minor, strided(128, 8)), (Cost{1, 32, 2})) << major << "." << minor;
    // One double read by every lane: one wavefront per half-warp, no conflict.
    EXPECT_EQ(shared(major, minor, strided(0, 8)), (Cost{1, 2, 2})) << major << "." << minor;
    // Only the lower half-warp active: one group.
    EXPECT_EQ(shared(major, minor, strided(8, 8, kLowerHalfWarp)), (Cost{1, 1, 1})) << major << "." << minor;
  }
}

TEST(SharedBanks, Fermi128BitAccessesTakeOneExtraPassPerQuarterWarp) {
  // [PG4.2] F.4.3.2: ways = 1 + the most different addresses in one bank within a quarter-warp.
  // Consecutive float4: 1 per bank -> 2 per quarter-warp, 8 in all against 4 ideal.
  EXPECT_EQ(shared(2, 0, strided(16, 16)), (Cost{1, 8, 4}));
  EXPECT_EQ(shared(2, 1, strided(16, 16)), (Cost{1, 8, 4}));
  // Stride 32 B: 2 per bank -> 3 per quarter-warp, 12 in all.
  EXPECT_EQ(shared(2, 0, strided(32, 16)), (Cost{1, 12, 4}));
  // Kepler states no such penalty: 4-byte mode quarter-warps -> 4; 8-byte mode half-warps
  // (16 x 16 B = 256 B = 32 banks x 8 B) -> 2.
  EXPECT_EQ(shared(3, 5, strided(16, 16)), (Cost{1, 4, 4}));
  EXPECT_EQ(shared(3, 5, strided(16, 16), 8), (Cost{1, 2, 2}));
}

TEST(SharedBanks, AccessesWiderThan128BitsAreSplit) {
  // 32 B per lane on 9.0: two 128-bit accesses (bytes 0..15, then 16..31 of each lane), each with
  // lanes 32 B apart: 2-way per quarter-warp as above -> 8 wavefronts each: 2 requests, 16, ideal 8.
  EXPECT_EQ(shared(9, 0, strided(32, 32)), (Cost{2, 16, 8}));
}

TEST(SharedBanks, BankCountsThatAreNotPowersOfTwoMapByDivision) {
  // A hypothetical 9.0 with 24 banks: groups are bit_floor(min(24 banks x 4 B / 4 B, 32)) = 16 lanes.
  arch::ComputeCapability odd = cc(9, 0);
  odd.sharedBanks.banks = 24;
  auto cost = [&](const WarpAccess &access) {
    const SharedCost c = sharedAccessCost(odd, access);
    return Cost{c.requests, c.wavefronts, c.idealWavefronts};
  };
  // Lane l reads word l: 16 consecutive words per group fall in 16 different banks: 1 each.
  EXPECT_EQ(cost(strided(4)), (Cost{1, 2, 2}));
  // Stride 24 words: every lane of a group in bank 0, 16 different words: 16 each.
  EXPECT_EQ(cost(strided(4 * 24)), (Cost{1, 32, 2}));
  // Stride 25 words: bank (25l) mod 24 = l mod 24, distinct within 16 lanes: 1 each.
  EXPECT_EQ(cost(strided(4 * 25)), (Cost{1, 2, 2}));
}

// ---- Masks ----

TEST(SharedBanks, InactiveLanesAreIgnored) {
  EXPECT_EQ(shared(9, 0, strided(4, 4, 0)), (Cost{0, 0, 0}));
  EXPECT_EQ(shared(1, 3, strided(4, 4, 0)), (Cost{0, 0, 0}));
  // Only the upper half-warp on 1.x: one request.
  EXPECT_EQ(shared(1, 3, strided(4, 4, kUpperHalfWarp)), (Cost{1, 1, 1}));
  // Stride 32 words (all lanes in bank 0) with only lanes 0 and 1 active: 2-way, not 32-way.
  EXPECT_EQ(shared(9, 0, strided(128, 4, 0x3)), (Cost{1, 2, 1}));
  // Inactive lanes' addresses do not count even when they would conflict.
  WarpAccess access = strided(4, 4, kLowerHalfWarp);
  for (int lane = 16; lane < kLanes; ++lane)
    access.addresses[lane] = 128 * static_cast<uint64_t>(lane);
  EXPECT_EQ(shared(9, 0, access), (Cost{1, 1, 1}));
}

// ---- Constant memory ----

ConstantCost constant(int major, int minor, const WarpAccess &access) {
  return constantAccessCost(cc(major, minor), access);
}

Cost constantCost(int major, int minor, const WarpAccess &access) {
  const ConstantCost c = constant(major, minor, access);
  return {c.requests, c.transactions, 0};
}

TEST(ConstantMemory, OneAddressForAllLanesIsOneTransactionPerRequest) {
  const WarpAccess same = strided(0);
  for (auto [major, minor] : kTeslaFamilies) // one request per half-warp ([BPG] §3.2.5)
    EXPECT_EQ(constantCost(major, minor, same), (Cost{2, 2, 0})) << major << "." << minor;
  for (Version v : {Version{2, 0}, Version{3, 5}, Version{5, 2}, Version{7, 0}, Version{9, 0}})
    EXPECT_EQ(constantCost(v.major, v.minor, same), (Cost{1, 1, 0})) << v.major << "." << v.minor;
}

TEST(ConstantMemory, DistinctAddressesSerialize) {
  // Lane l reads word l mod k: k distinct addresses in the warp.
  for (uint32_t k : {1u, 2u, 5u, 16u, 32u}) {
    const WarpAccess access = words([k](int lane) { return static_cast<uint32_t>(lane) % k; });
    // 2.0+: one request with k addresses.
    EXPECT_EQ(constantCost(9, 0, access), (Cost{1, k, 0})) << k;
    EXPECT_EQ(constantCost(2, 0, access), (Cost{1, k, 0})) << k;
    // 1.x: 16 consecutive lanes take min(k, 16) residues mod k, in each half-warp.
    const uint32_t perHalf = k < 16 ? k : 16;
    EXPECT_EQ(constantCost(1, 3, access), (Cost{2, 2 * perHalf, 0})) << k;
  }
}

TEST(ConstantMemory, OnCc1xEachHalfWarpIsItsOwnRequest) {
  // Lanes 0..15 read word 0, lanes 16..31 word 1: two addresses, but one per half-warp.
  const WarpAccess halves = words([](int lane) { return lane / 16; });
  EXPECT_EQ(constantCost(1, 0, halves), (Cost{2, 2, 0}));
  EXPECT_EQ(constantCost(2, 0, halves), (Cost{1, 2, 0}));
  // Only one half-warp active, 3 addresses among its lanes: one request, 3 transactions.
  const WarpAccess three = words([](int lane) { return lane % 3; }, kLowerHalfWarp);
  EXPECT_EQ(constantCost(1, 1, three), (Cost{1, 3, 0}));
  EXPECT_EQ(constantCost(1, 1, strided(4, 4, 0)), (Cost{0, 0, 0}));
}

TEST(ConstantMemory, WideReadsCountAddresses) {
  // Every lane reads the double at 64: one address.
  EXPECT_EQ(constantCost(9, 0, strided(0, 8, kFullWarp, 64)), (Cost{1, 1, 0}));
  // Lane l reads the double at 8 * (l mod 4): 4 addresses.
  WarpAccess access = strided(0, 8);
  for (int lane = 0; lane < kLanes; ++lane)
    access.addresses[lane] = 8 * static_cast<uint64_t>(lane % 4);
  EXPECT_EQ(constantCost(9, 0, access), (Cost{1, 4, 0}));
}

} // namespace
} // namespace ptxray::model
