// Global memory coalescing against the guides' worked examples. Every expectation is derived by hand
// from the rules (OpenCL Best Practices Guide §3.2.1, Kepler Tuning Guide §1.4.4, CUDA Programming
// Guide global memory sections, Nsight Compute sector counting); the derivations are in the comments.
// Unless noted: a full warp of 4-byte floats, arrays aligned to 256 bytes (kBase), lane i reads
// word i + offset (offsetCopy) or word i * stride (strideCopy).
#include "model/GlobalCoalescing.h"

#include "arch/ComputeCapability.h"

#include <gtest/gtest.h>

#include <functional>
#include <tuple>

namespace ptxray::model {
namespace {

constexpr uint64_t kBase = 0x10000; // 256-byte aligned, like cudaMalloc / clCreateBuffer
constexpr uint32_t kFullWarp = 0xFFFFFFFFu;
constexpr uint32_t kLowHalfWarp = 0x0000FFFFu;
constexpr uint32_t kHighHalfWarp = 0xFFFF0000u;

const arch::ComputeCapability &cc(int major, int minor) {
  const arch::ComputeCapability *found = arch::findComputeCapability(major, minor);
  EXPECT_NE(found, nullptr) << major << "." << minor;
  return *found;
}

WarpAccess access(uint32_t width, const std::function<uint64_t(uint32_t)> &addressOf, uint32_t mask = kFullWarp,
                  bool isStore = false) {
  WarpAccess a;
  a.mask = mask;
  a.bytesPerLane = width;
  a.isStore = isStore;
  for (uint32_t lane = 0; lane < kLanes; ++lane)
    a.addresses[lane] = addressOf(lane);
  return a;
}

WarpAccess offsetCopy(uint32_t offset, uint32_t mask = kFullWarp, bool isStore = false) {
  return access(
      4, [&](uint32_t lane) { return kBase + 4 * (lane + offset); }, mask, isStore);
}

WarpAccess strideCopy(uint32_t stride, uint32_t mask = kFullWarp) {
  return access(
      4, [&](uint32_t lane) { return kBase + 4ull * lane * stride; }, mask);
}

/// Consecutive `width`-byte elements starting `offset` bytes past kBase.
WarpAccess consecutive(uint32_t width, uint64_t offset = 0, uint32_t mask = kFullWarp, bool isStore = false) {
  return access(
      width, [&](uint32_t lane) { return kBase + offset + uint64_t{width} * lane; }, mask, isStore);
}

struct Expected {
  uint32_t requests = 0;
  uint32_t transactions = 0;
  uint64_t bytesMoved = 0;
  uint32_t ideal = 0;
};

testing::AssertionResult costIs(const GlobalCost &got, const Expected &want) {
  if (got.requests == want.requests && got.transactions == want.transactions && got.bytesMoved == want.bytesMoved &&
      got.idealTransactions == want.ideal)
    return testing::AssertionSuccess();
  return testing::AssertionFailure() << "got {requests " << got.requests << ", transactions " << got.transactions
                                     << ", bytes " << got.bytesMoved << ", ideal " << got.idealTransactions
                                     << "}, want {" << want.requests << ", " << want.transactions << ", "
                                     << want.bytesMoved << ", " << want.ideal << "}";
}

GlobalCost cost(int major, int minor, const WarpAccess &a, GlobalPath path) {
  return globalAccessCost(cc(major, minor), a, path);
}

// --- offsetCopy, offsets 0..32 ------------------------------------------------------------------

// CC 1.0: a half-warp coalesces into one 64-byte transaction only when lane k reads word k of a
// 64-byte aligned segment, i.e. offset % 16 == 0; otherwise 16 transactions of 32 bytes each
// (the guide's "16 transactions ... 32 bytes, the minimum transaction size").
Expected offsetCopyCc10(uint32_t offset) {
  return offset % 16 == 0 ? Expected{2, 2, 2 * 64, 2} : Expected{2, 32, 32 * 32, 2};
}

// CC 1.3, per half-warp (guide §3.2.1.3). Half-warp h reads bytes [64h + 4o, 64h + 4o + 64).
//  o = 0:  [0,64) and [64,128): each the lower/upper half of segment 0 -> 64 + 64.
//  o = 1:  hw0 [4,68) crosses byte 64 of segment 0 -> 128. hw1 [68,132): segment 0 part [68,128) is
//          the upper half and crosses 96 -> 64; segment 1 part [128,132) -> 64 -> 32. Total 128+64+32.
//  o = 8:  hw0 [32,96) -> 128. hw1 [96,160): segment 0 part [96,128) -> 32, segment 1 part [128,160)
//          -> 32: the guide's "two 32-byte transactions".
//  o = 9..15: hw0 -> 128; hw1's segment 0 part starts at >= 100 -> 32, segment 1 part crosses 160 -> 64.
//  o = 16 + p: the half-warps swap roles (hw0 is split, hw1 one 128); o = 32 is o = 0 one segment on.
// Ideal: one 64-byte transaction per half-warp.
Expected offsetCopyCc13(uint32_t offset) {
  if (offset % 16 == 0)
    return {2, 2, 64 + 64, 2};
  if (offset % 16 == 8)
    return {2, 3, 128 + 32 + 32, 2};
  return {2, 3, 128 + 64 + 32, 2};
}

// CC 2.0 L1 path: one request; [4o, 4o + 128) touches one 128-byte line when o % 32 == 0, else two.
Expected offsetCopyCc20L1(uint32_t offset) {
  return offset % 32 == 0 ? Expected{1, 1, 128, 1} : Expected{1, 2, 256, 1};
}

// 32-byte granularity (2.x L2, 3.x, 5.0+): [4o, 4o + 128) touches 4 sectors when o % 8 == 0, else 5.
Expected offsetCopySectors(uint32_t offset) {
  return offset % 8 == 0 ? Expected{1, 4, 4 * 32, 4} : Expected{1, 5, 5 * 32, 4};
}

TEST(GlobalCoalescing, OffsetCopyCc10) {
  for (uint32_t o = 0; o <= 32; ++o)
    EXPECT_TRUE(costIs(cost(1, 0, offsetCopy(o), GlobalPath::Uncached), offsetCopyCc10(o))) << "offset " << o;
}

TEST(GlobalCoalescing, OffsetCopyCc13) {
  for (uint32_t o = 0; o <= 32; ++o)
    EXPECT_TRUE(costIs(cost(1, 3, offsetCopy(o), GlobalPath::Uncached), offsetCopyCc13(o))) << "offset " << o;
}

TEST(GlobalCoalescing, OffsetCopyCc20) {
  for (uint32_t o = 0; o <= 32; ++o) {
    EXPECT_TRUE(costIs(cost(2, 0, offsetCopy(o), GlobalPath::L1), offsetCopyCc20L1(o))) << "offset " << o;
    EXPECT_TRUE(costIs(cost(2, 0, offsetCopy(o), GlobalPath::L2), offsetCopySectors(o))) << "offset " << o;
  }
}

TEST(GlobalCoalescing, OffsetCopyCc35) {
  for (uint32_t o = 0; o <= 32; ++o) {
    EXPECT_TRUE(costIs(cost(3, 5, offsetCopy(o), GlobalPath::L2), offsetCopySectors(o))) << "offset " << o;
    EXPECT_TRUE(costIs(cost(3, 5, offsetCopy(o), GlobalPath::ReadOnly), offsetCopySectors(o))) << "offset " << o;
  }
}

TEST(GlobalCoalescing, OffsetCopyCc90EveryPath) {
  for (uint32_t o = 0; o <= 32; ++o)
    for (GlobalPath path : {GlobalPath::L1, GlobalPath::L2, GlobalPath::ReadOnly})
      EXPECT_TRUE(costIs(cost(9, 0, offsetCopy(o), path), offsetCopySectors(o))) << "offset " << o;
}

// --- strideCopy, strides 1..32 ------------------------------------------------------------------

// CC 1.0: only stride 1 has lane k on word k; any other stride is 16 transactions per half-warp.
Expected strideCopyCc10(uint32_t stride) {
  return stride == 1 ? Expected{2, 2, 128, 2} : Expected{2, 32, 32 * 32, 2};
}

// CC 1.3. Lane i is at byte 4si, in 128-byte segment floor(si/32); for s <= 32 the warp touches
// segments 0..s-1, every one of them. Lanes 15 (byte 60s) and 16 (byte 64s) share a segment exactly
// when s is odd and s < 16, and that segment then costs two transactions (one per half-warp).
//  s <= 16: every segment holds lanes in both of its halves -> 128 bytes, except the shared one:
//           hw1's part is the whole upper half (64 bytes); hw0's part ends at offset 64 - 4s, which
//           also reaches the lower quarter for s <= 7 (64 bytes) but not for s = 9..15 (32 bytes).
//           s = 2 -> 2 x 128 (the guide's figure 3.8); s = 3 -> 128, 64 | 64, 128.
//  17 <= s < 32: stride > 64 bytes, so a segment holds one lane (32 bytes) or two lanes in opposite
//           halves (128 bytes); s segments for 32 lanes -> 32 - s pairs and 2s - 32 single lanes.
//  s = 32:  every lane in its own segment -> 32 x 32 bytes.
Expected strideCopyCc13(uint32_t stride) {
  uint32_t s = stride;
  if (s <= 16) {
    bool odd = s % 2 == 1;
    return {2, s + (odd ? 1u : 0u), 128ull * s - (odd && s >= 9 ? 32 : 0), 2};
  }
  if (s < 32)
    return {2, s, 128ull * (32 - s) + 32ull * (2 * s - 32), 2};
  return {2, 32, 32 * 32, 2};
}

// CC 2.0 L1: lanes touch lines floor(si/32), i = 0..31, which for s <= 32 are all of 0..s-1.
Expected strideCopyCc20L1(uint32_t stride) {
  return {1, stride, 128ull * stride, 1};
}

// 32-byte sectors: lanes touch sectors floor(si/8): all of 0..4s-1 for s <= 8, one each beyond.
Expected strideCopySectors(uint32_t stride) {
  uint32_t sectors = std::min(4 * stride, 32u);
  return {1, sectors, 32ull * sectors, 4};
}

TEST(GlobalCoalescing, StrideCopyCc10) {
  for (uint32_t s = 1; s <= 32; ++s)
    EXPECT_TRUE(costIs(cost(1, 0, strideCopy(s), GlobalPath::Uncached), strideCopyCc10(s))) << "stride " << s;
}

TEST(GlobalCoalescing, StrideCopyCc13) {
  for (uint32_t s = 1; s <= 32; ++s)
    EXPECT_TRUE(costIs(cost(1, 3, strideCopy(s), GlobalPath::Uncached), strideCopyCc13(s))) << "stride " << s;
}

TEST(GlobalCoalescing, StrideCopyCc13RepresentativeTransactions) {
  // s = 3, per half-warp: hw0 reads bytes 0..183: segment 0 (both halves) 128, segment 1 [132,184)
  // 64; hw1 reads 192..375: segment 1 [192,256) 64, segment 2 [264,376) 128.
  EXPECT_TRUE(costIs(cost(1, 3, strideCopy(3, kLowHalfWarp), GlobalPath::Uncached), {1, 2, 128 + 64, 1}));
  EXPECT_TRUE(costIs(cost(1, 3, strideCopy(3, kHighHalfWarp), GlobalPath::Uncached), {1, 2, 64 + 128, 1}));
  // s = 9: hw0's last lane (byte 540) is alone in the lower quarter of segment 4 -> 32.
  EXPECT_TRUE(costIs(cost(1, 3, strideCopy(9), GlobalPath::Uncached), {2, 10, 9 * 128 - 32, 2}));
  // s = 20: stride 80 bytes: 12 pairs (128) and 8 single lanes (32).
  EXPECT_TRUE(costIs(cost(1, 3, strideCopy(20), GlobalPath::Uncached), {2, 20, 12 * 128 + 8 * 32, 2}));
}

TEST(GlobalCoalescing, StrideCopyCc20) {
  for (uint32_t s = 1; s <= 32; ++s) {
    EXPECT_TRUE(costIs(cost(2, 0, strideCopy(s), GlobalPath::L1), strideCopyCc20L1(s))) << "stride " << s;
    EXPECT_TRUE(costIs(cost(2, 0, strideCopy(s), GlobalPath::L2), strideCopySectors(s))) << "stride " << s;
  }
}

TEST(GlobalCoalescing, StrideCopyCc35) {
  for (uint32_t s = 1; s <= 32; ++s)
    EXPECT_TRUE(costIs(cost(3, 5, strideCopy(s), GlobalPath::L2), strideCopySectors(s))) << "stride " << s;
}

TEST(GlobalCoalescing, StrideCopyCc90) {
  for (uint32_t s = 1; s <= 32; ++s)
    EXPECT_TRUE(costIs(cost(9, 0, strideCopy(s), GlobalPath::L1), strideCopySectors(s))) << "stride " << s;
}

// --- the guide's text, CC 1.3 ---------------------------------------------------------------------

// §3.2.1.3: "For offsets of 0 or 16, each half warp results in a single 64-byte transaction. For
// offsets of 1 through 7 or 9 through 15, even-numbered warps result in a single 128-byte transaction
// and odd-numbered warps result in two transactions: one 64-byte and one 32-byte. For offsets of 8,
// even-numbered warps result in one 128-byte transaction and odd-numbered warps result in two 32-byte
// transactions." ("warps" there are half-warps: the even one is lanes 0-15 of an aligned warp.)
TEST(GlobalCoalescing, GuideOffsetCopyTextCc13) {
  for (uint32_t o : {0u, 16u}) {
    EXPECT_TRUE(costIs(cost(1, 3, offsetCopy(o, kLowHalfWarp), GlobalPath::Uncached), {1, 1, 64, 1})) << o;
    EXPECT_TRUE(costIs(cost(1, 3, offsetCopy(o, kHighHalfWarp), GlobalPath::Uncached), {1, 1, 64, 1})) << o;
  }
  for (uint32_t o = 1; o <= 15; ++o) {
    if (o == 8)
      continue;
    EXPECT_TRUE(costIs(cost(1, 3, offsetCopy(o, kLowHalfWarp), GlobalPath::Uncached), {1, 1, 128, 1})) << o;
    EXPECT_TRUE(costIs(cost(1, 3, offsetCopy(o, kHighHalfWarp), GlobalPath::Uncached), {1, 2, 64 + 32, 1})) << o;
  }
  EXPECT_TRUE(costIs(cost(1, 3, offsetCopy(8, kLowHalfWarp), GlobalPath::Uncached), {1, 1, 128, 1}));
  EXPECT_TRUE(costIs(cost(1, 3, offsetCopy(8, kHighHalfWarp), GlobalPath::Uncached), {1, 2, 32 + 32, 1}));
  // Figures 3.5 and 3.6 are offsets 1 and 17 seen from the first half-warp.
  EXPECT_TRUE(costIs(cost(1, 3, offsetCopy(1, kLowHalfWarp), GlobalPath::Uncached), {1, 1, 128, 1}));
  EXPECT_TRUE(costIs(cost(1, 3, offsetCopy(17, kLowHalfWarp), GlobalPath::Uncached), {1, 2, 64 + 32, 1}));
}

// §3.2.1.1 / figure 3.4: all threads but one read their own word of a segment -> one 64-byte
// transaction on every device; permuted within the segment -> still one on 1.2+, 16 on 1.0/1.1.
TEST(GlobalCoalescing, GuideSimpleAndPermutedPattern) {
  uint32_t allButOne = kLowHalfWarp & ~(1u << 5);
  for (int minor : {0, 3})
    EXPECT_TRUE(costIs(cost(1, minor, offsetCopy(0, allButOne), GlobalPath::Uncached), {1, 1, 64, 1}));
  WarpAccess permuted = access(
      4, [](uint32_t lane) { return kBase + 4 * ((lane * 7) % 16); }, kLowHalfWarp);
  EXPECT_TRUE(costIs(cost(1, 3, permuted, GlobalPath::Uncached), {1, 1, 64, 1}));
  EXPECT_TRUE(costIs(cost(1, 1, permuted, GlobalPath::Uncached), {1, 16, 16 * 32, 1}));
}

// §3.2.1.4 / figure 3.8: stride 2 is one 128-byte transaction per half-warp with half of it unused:
// 50% efficiency on 1.3; on 1.0 any non-unit stride is 16 transactions per half-warp.
TEST(GlobalCoalescing, GuideStrideTwoHalfEfficiencyCc13) {
  GlobalCost c = cost(1, 3, strideCopy(2), GlobalPath::Uncached);
  EXPECT_TRUE(costIs(c, {2, 2, 256, 2}));
  EXPECT_EQ(c.bytesRequested, 128u);
  EXPECT_DOUBLE_EQ(static_cast<double>(c.bytesRequested) / static_cast<double>(c.bytesMoved), 0.5);
  EXPECT_TRUE(costIs(cost(1, 0, strideCopy(2, kLowHalfWarp), GlobalPath::Uncached), {1, 16, 16 * 32, 1}));
}

// --- word sizes -------------------------------------------------------------------------------

// 2.x/3.x split 8-byte accesses into two half-warp requests and 16-byte ones into four quarter-warp
// requests of 128 bytes each; 5.0+ counts one request per instruction.
TEST(GlobalCoalescing, WideWordsSplitRequests) {
  EXPECT_TRUE(costIs(cost(2, 0, consecutive(8), GlobalPath::L1), {2, 2, 256, 2}));
  EXPECT_TRUE(costIs(cost(2, 0, consecutive(16), GlobalPath::L1), {4, 4, 512, 4}));
  EXPECT_TRUE(costIs(cost(2, 0, consecutive(8), GlobalPath::L2), {2, 8, 256, 8}));
  EXPECT_TRUE(costIs(cost(3, 5, consecutive(8), GlobalPath::L2), {2, 8, 256, 8}));
  EXPECT_TRUE(costIs(cost(3, 5, consecutive(16), GlobalPath::ReadOnly), {4, 16, 512, 16}));
  EXPECT_TRUE(costIs(cost(9, 0, consecutive(8), GlobalPath::L1), {1, 8, 256, 8}));
  EXPECT_TRUE(costIs(cost(9, 0, consecutive(16), GlobalPath::L1), {1, 16, 512, 16}));
  // Offset by one double: request r covers [8 + 128r, 136 + 128r), two lines each; line 1 is
  // fetched by both requests.
  EXPECT_TRUE(costIs(cost(2, 0, consecutive(8, 8), GlobalPath::L1), {2, 4, 512, 2}));
  // Opt-in L1 on Kepler (3.7) behaves like Fermi.
  EXPECT_TRUE(costIs(cost(3, 7, consecutive(16), GlobalPath::L1), {4, 4, 512, 4}));
}

// 1.x: 8-byte words coalesce into one 128-byte transaction per half-warp, 16-byte words into two.
TEST(GlobalCoalescing, WideWordsCc1x) {
  for (int minor : {0, 3}) {
    EXPECT_TRUE(costIs(cost(1, minor, consecutive(8), GlobalPath::Uncached), {2, 2, 256, 2})) << minor;
    EXPECT_TRUE(costIs(cost(1, minor, consecutive(16), GlobalPath::Uncached), {2, 4, 512, 4})) << minor;
  }
}

// 1.2+: 1-byte words use 32-byte segments, 2-byte words 64-byte ones reduced to 32 when half used;
// 1.0/1.1 cannot coalesce them at all.
TEST(GlobalCoalescing, NarrowWordsCc1x) {
  EXPECT_TRUE(costIs(cost(1, 3, consecutive(1), GlobalPath::Uncached), {2, 2, 64, 2}));
  EXPECT_TRUE(costIs(cost(1, 3, consecutive(2), GlobalPath::Uncached), {2, 2, 64, 2}));
  EXPECT_TRUE(costIs(cost(1, 0, consecutive(1), GlobalPath::Uncached), {2, 32, 32 * 32, 32}));
}

// --- active lanes -------------------------------------------------------------------------------

TEST(GlobalCoalescing, InactiveLanes) {
  // No active lane: nothing issued, nothing requested.
  GlobalCost none = cost(9, 0, offsetCopy(0, 0), GlobalPath::L1);
  EXPECT_TRUE(costIs(none, {0, 0, 0, 0}));
  EXPECT_EQ(none.bytesRequested, 0u);
  // Every other lane on its own word: 1.0 still coalesces (inactive lanes allowed) and fetches the
  // full 64-byte segments; 1.3 reduces nothing either (both 32-byte quarters used).
  for (int minor : {0, 3}) {
    GlobalCost c = cost(1, minor, offsetCopy(0, 0x55555555u), GlobalPath::Uncached);
    EXPECT_TRUE(costIs(c, {2, 2, 128, 2})) << minor;
    EXPECT_EQ(c.bytesRequested, 64u);
  }
  // A half-warp without active lanes issues no request.
  EXPECT_TRUE(costIs(cost(1, 3, offsetCopy(0, kHighHalfWarp), GlobalPath::Uncached), {1, 1, 64, 1}));
  EXPECT_TRUE(costIs(cost(2, 0, consecutive(8, 0, kLowHalfWarp), GlobalPath::L1), {1, 1, 128, 1}));
  // 1.3, lanes 0..7: bytes [0,32) -> 128 reduced to 64 reduced to 32.
  EXPECT_TRUE(costIs(cost(1, 3, offsetCopy(0, 0xFFu), GlobalPath::Uncached), {1, 1, 32, 1}));
  // One lane on 9.0: one sector, one request.
  EXPECT_TRUE(costIs(cost(9, 0, offsetCopy(3, 1u << 5), GlobalPath::L1), {1, 1, 32, 1}));
}

// All lanes read the same word. 1.0/1.1 have no broadcast (only lane 0 is on its own word); the
// others fetch the block once. Transactions can fall below ideal here: ideal assumes distinct words.
TEST(GlobalCoalescing, Broadcast) {
  WarpAccess same = access(4, [](uint32_t) { return kBase + 0x40; });
  EXPECT_TRUE(costIs(cost(1, 0, same, GlobalPath::Uncached), {2, 32, 32 * 32, 2}));
  EXPECT_TRUE(costIs(cost(1, 3, same, GlobalPath::Uncached), {2, 2, 2 * 32, 2}));
  EXPECT_TRUE(costIs(cost(2, 0, same, GlobalPath::L1), {1, 1, 128, 1}));
  EXPECT_TRUE(costIs(cost(2, 0, same, GlobalPath::L2), {1, 1, 32, 4}));
  EXPECT_TRUE(costIs(cost(3, 5, same, GlobalPath::ReadOnly), {1, 1, 32, 4}));
  EXPECT_TRUE(costIs(cost(9, 0, same, GlobalPath::L1), {1, 1, 32, 4}));
  EXPECT_EQ(cost(9, 0, same, GlobalPath::L1).bytesRequested, 128u);
}

// --- misaligned vectors ---------------------------------------------------------------------------

TEST(GlobalCoalescing, MisalignedVectorsStraddleBlocks) {
  // One 8-byte lane at byte 28 covers sectors 0 and 1.
  WarpAccess one = consecutive(8, 28, 1u);
  EXPECT_TRUE(costIs(cost(9, 0, one, GlobalPath::L1), {1, 2, 64, 1}));
  EXPECT_TRUE(costIs(cost(3, 5, one, GlobalPath::L2), {1, 2, 64, 1}));
  // 1.0: not on its own word -> per-lane 32-byte transactions, both blocks.
  EXPECT_TRUE(costIs(cost(1, 0, one, GlobalPath::Uncached), {1, 2, 64, 1}));
  // 1.3: an 8-byte lane at byte 124 has parts in segments 0 and 1, each reduced to 32.
  EXPECT_TRUE(costIs(cost(1, 3, consecutive(8, 124, 1u), GlobalPath::Uncached), {1, 2, 64, 1}));
  // A warp of 16-byte vectors at byte 8 covers [8, 520): sectors 0..16.
  WarpAccess warp = consecutive(16, 8);
  EXPECT_TRUE(costIs(cost(9, 0, warp, GlobalPath::L1), {1, 17, 17 * 32, 16}));
  // 3.5: quarter-warp request r covers [8 + 128r, 136 + 128r): 5 sectors each.
  EXPECT_TRUE(costIs(cost(3, 5, warp, GlobalPath::L2), {4, 20, 20 * 32, 16}));
  // 2.0 L1: two lines per request.
  EXPECT_TRUE(costIs(cost(2, 0, warp, GlobalPath::L1), {4, 8, 8 * 128, 4}));
}

// --- stores ---------------------------------------------------------------------------------------

// Stores on 2.x/3.x go to L2 in 32-byte segments whatever path the loads would take.
TEST(GlobalCoalescing, StoresUse32ByteSegments) {
  for (uint32_t o : {0u, 1u, 8u, 17u}) {
    WarpAccess store = offsetCopy(o, kFullWarp, true);
    EXPECT_TRUE(costIs(cost(2, 0, store, GlobalPath::L1), offsetCopySectors(o))) << o;
    EXPECT_TRUE(costIs(cost(3, 5, store, GlobalPath::L2), offsetCopySectors(o))) << o;
    EXPECT_TRUE(costIs(cost(3, 7, store, GlobalPath::L1), offsetCopySectors(o))) << o;
    EXPECT_TRUE(costIs(cost(9, 0, store, GlobalPath::L1), offsetCopySectors(o))) << o;
    // 1.x stores coalesce like loads.
    EXPECT_TRUE(costIs(cost(1, 3, store, GlobalPath::Uncached), offsetCopyCc13(o))) << o;
  }
  // An 8-byte store on 2.0 is still split into half-warp requests.
  EXPECT_TRUE(costIs(cost(2, 0, consecutive(8, 0, kFullWarp, true), GlobalPath::L1), {2, 8, 256, 8}));
}

// 1.x has no caches: the path argument changes nothing.
TEST(GlobalCoalescing, PathIgnoredOnCc1x) {
  for (GlobalPath path : {GlobalPath::L1, GlobalPath::L2, GlobalPath::ReadOnly})
    EXPECT_TRUE(costIs(cost(1, 3, offsetCopy(1), path), offsetCopyCc13(1)));
}

// --- access patterns ---------------------------------------------------------------------------

AccessShape shape(int major, int minor, const WarpAccess &a, GlobalPath path) {
  return classifyAccess(cc(major, minor), a, path);
}

TEST(AccessPattern, UnitStrideAndMisalignmentPerArchitecture) {
  // Aligned copy: lane i reads word i from a 256-byte boundary.
  for (auto [major, minor, path] : {std::tuple{9, 0, GlobalPath::L1}, std::tuple{2, 0, GlobalPath::L1},
                                    std::tuple{1, 3, GlobalPath::Uncached}, std::tuple{1, 0, GlobalPath::Uncached}})
    EXPECT_EQ(shape(major, minor, offsetCopy(0), path).pattern, AccessPattern::UnitStride) << major << minor;
  // One word off: [4, 132) touches 5 sectors (ideal 4), 2 lines (ideal 1), 2 128-byte segments on 1.3,
  // 3 64-byte half-warp segments on 1.0 (ideal 2).
  for (auto [major, minor, path] : {std::tuple{9, 0, GlobalPath::L1}, std::tuple{2, 0, GlobalPath::L1},
                                    std::tuple{1, 3, GlobalPath::Uncached}, std::tuple{1, 0, GlobalPath::Uncached}})
    EXPECT_EQ(shape(major, minor, offsetCopy(1), path).pattern, AccessPattern::Misaligned) << major << minor;
  // 8 words (32 bytes) off: [32, 160) is 4 whole sectors on 9.0, but straddles two 128-byte lines on
  // 2.0 through L1; through L2 (32-byte segments) it is aligned.
  EXPECT_EQ(shape(9, 0, offsetCopy(8), GlobalPath::L1).pattern, AccessPattern::UnitStride);
  EXPECT_EQ(shape(2, 0, offsetCopy(8), GlobalPath::L1).pattern, AccessPattern::Misaligned);
  EXPECT_EQ(shape(3, 5, offsetCopy(8), GlobalPath::L2).pattern, AccessPattern::UnitStride);
  // 16 words (64 bytes) off: the 1.0 half-warp segment is 16 x 4 = 64 bytes, so [64, 192) is aligned
  // there; 1.2/1.3 fetch 128-byte segments for 4-byte words: two instead of one.
  EXPECT_EQ(shape(1, 0, offsetCopy(16), GlobalPath::Uncached).pattern, AccessPattern::UnitStride);
  EXPECT_EQ(shape(1, 3, offsetCopy(16), GlobalPath::Uncached).pattern, AccessPattern::Misaligned);
}

TEST(AccessPattern, InactiveLanesAndDirection) {
  // Lanes 0 and 31 only: their stride is (124 bytes / 31 lanes) = 4, the span [0, 128) is aligned.
  WarpAccess ends = offsetCopy(0, 0x80000001u);
  EXPECT_EQ(shape(9, 0, ends, GlobalPath::L1).pattern, AccessPattern::UnitStride);
  // Every other lane, 8 bytes apart: 4 bytes per lane index, consecutive.
  WarpAccess even = offsetCopy(0, 0x55555555u);
  EXPECT_EQ(shape(9, 0, even, GlobalPath::L1).pattern, AccessPattern::UnitStride);
  // Reversed: lane i reads word 31 - i; the span is [0, 128).
  WarpAccess reversed = access(4, [](uint32_t lane) { return kBase + 4ull * (31 - lane); });
  EXPECT_EQ(shape(9, 0, reversed, GlobalPath::L1).pattern, AccessPattern::UnitStride);
  // Reversed from word 1: [4, 132), 5 sectors.
  WarpAccess reversedOff = access(4, [](uint32_t lane) { return kBase + 4ull * (32 - lane); });
  EXPECT_EQ(shape(9, 0, reversedOff, GlobalPath::L1).pattern, AccessPattern::Misaligned);
  // 16-byte vectors, consecutive: unit stride at the access width.
  EXPECT_EQ(shape(9, 0, consecutive(16), GlobalPath::L1).pattern, AccessPattern::UnitStride);
}

TEST(AccessPattern, StridedBroadcastScattered) {
  AccessShape strided = shape(9, 0, strideCopy(2), GlobalPath::L1);
  EXPECT_EQ(strided.pattern, AccessPattern::Strided);
  EXPECT_EQ(strided.strideBytes, 8u);
  EXPECT_EQ(shape(9, 0, strideCopy(32), GlobalPath::L1).strideBytes, 128u);
  EXPECT_EQ(shape(9, 0, strideCopy(0), GlobalPath::L1).pattern, AccessPattern::Broadcast);
  // One active lane: trivially every lane at one address.
  EXPECT_EQ(shape(9, 0, offsetCopy(3, 1u << 7), GlobalPath::L1).pattern, AccessPattern::Broadcast);
  // A permutation (word 7i mod 32): no constant stride.
  WarpAccess permuted = access(4, [](uint32_t lane) { return kBase + 4ull * ((7 * lane) % 32); });
  EXPECT_EQ(shape(9, 0, permuted, GlobalPath::L1).pattern, AccessPattern::Scattered);
  // Two half-warps each reading one word (a row of a 16-wide tile per half-warp): not one stride.
  WarpAccess rows = access(4, [](uint32_t lane) { return kBase + 64ull * (lane / 16); });
  EXPECT_EQ(shape(9, 0, rows, GlobalPath::L1).pattern, AccessPattern::Scattered);
  // Stride narrower than the access (8-byte words 4 bytes apart): overlapping lanes.
  WarpAccess overlapping = access(8, [](uint32_t lane) { return kBase + 4ull * lane; });
  EXPECT_EQ(shape(9, 0, overlapping, GlobalPath::L1).pattern, AccessPattern::Scattered);
}

} // namespace
} // namespace ptxray::model
