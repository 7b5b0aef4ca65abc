// Warp-level instructions: shfl (legacy and .sync) in every mode with clamp and segment masks, vote,
// match, redux, activemask and elect — each against host computations, under divergence and guards.
#include "support/VmHarness.h"

#include <gtest/gtest.h>

#include <bit>
#include <functional>

namespace ptxray::test {
namespace {

// ---------------------------------------------------------------------------------------------
// shfl

/// The value every lane contributes: distinct per lane.
uint32_t shflValue(int lane) {
  return static_cast<uint32_t>(lane) * 100 + 7;
}

struct ShflResult {
  int source; ///< lane the value comes from
  bool inRange;
};

/// The ISA's semantics of shfl.sync for arbitrary b and c, written out directly.
ShflResult isaShfl(const std::string &mode, int lane, uint32_t b, uint32_t c) {
  const int bval = b & 0x1f, cval = c & 0x1f, segmask = (c >> 8) & 0x1f;
  const int maxLane = (lane & segmask) | (cval & ~segmask);
  const int minLane = lane & segmask;
  int j;
  bool p;
  if (mode == "up") {
    j = lane - bval;
    p = j >= maxLane;
  } else if (mode == "down") {
    j = lane + bval;
    p = j <= maxLane;
  } else if (mode == "bfly") {
    j = lane ^ bval;
    p = j <= maxLane;
  } else {
    j = minLane | (bval & ~segmask);
    p = j <= maxLane;
  }
  return {p ? j : lane, p};
}

/// CUDA's __shfl_*_sync with a width (a power of two): which lane a value comes from. The c operand
/// CUDA passes is ((32 - width) << 8) for up and ((32 - width) << 8) | 0x1f for the others.
ShflResult cudaShfl(const std::string &mode, int lane, uint32_t b, int width) {
  const int segStart = lane / width * width;
  if (mode == "up") {
    const int src = lane - static_cast<int>(b & 31);
    return src >= segStart ? ShflResult{src, true} : ShflResult{lane, false};
  }
  if (mode == "down") {
    const int src = lane + static_cast<int>(b & 31);
    return src < segStart + width ? ShflResult{src, true} : ShflResult{lane, false};
  }
  if (mode == "bfly") {
    const int src = lane ^ static_cast<int>(b & 31);
    return src < segStart + width ? ShflResult{src, true} : ShflResult{lane, false};
  }
  return {segStart + static_cast<int>(b & 31) % width, true};
}

uint32_t cudaC(const std::string &mode, int width) {
  return (static_cast<uint32_t>(32 - width) << 8) | (mode == "up" ? 0u : 0x1fu);
}

const char *kShflKernel = R"(
.visible .entry k(.param .u64 out, .param .u32 b, .param .u32 c)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r5, [b];
  ld.param.u32 %r6, [c];
  mov.u32 %r1, %tid.x;
  mad.lo.s32 %r2, %r1, 100, 7;
  SHFL
  selp.u32 %r4, 1, 0, %p1;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  st.global.u32 [%rd3+4], %r4;
  ret;
}
)";

class ShflRunner {
public:
  ShflRunner(VmHarness &h, const std::string &shfl)
      : h_(h), module_(h.load(sm90Module(replaceAll(kShflKernel, "SHFL", shfl)), "shfl" + std::to_string(counter_++))) {
  }

  /// Runs with b and c; returns lane -> {value, predicate}.
  std::vector<std::pair<uint32_t, uint32_t>> run(uint32_t b, uint32_t c) {
    uint64_t out = h_.zeros<uint32_t>(64);
    auto r = h_.launch(module_, "k", {1, 1, 1}, {32, 1, 1}, out, b, c);
    EXPECT_TRUE(r.ok()) << describe(r);
    auto v = h_.download<uint32_t>(out, 64);
    std::vector<std::pair<uint32_t, uint32_t>> res(32);
    for (int lane = 0; lane < 32; ++lane)
      res[lane] = {v[2 * lane], v[2 * lane + 1]};
    return res;
  }

private:
  VmHarness &h_;
  const vm::LoadedModule &module_;
  static inline int counter_ = 0;
};

const std::vector<std::string> kModes{"up", "down", "bfly", "idx"};

TEST(WarpOps, ShflSyncEveryModeAndWidthMatchesCuda) {
  VmHarness h;
  for (const std::string &mode : kModes) {
    ShflRunner run(h, "shfl.sync." + mode + ".b32 %r3|%p1, %r2, %r5, %r6, 0xffffffff;");
    for (int width : {32, 16, 8, 4, 2, 1}) {
      for (uint32_t b : {0u, 1u, 2u, 3u, 5u, 7u, 8u, 15u, 16u, 31u, 33u}) {
        auto res = run.run(b, cudaC(mode, width));
        for (int lane = 0; lane < 32; ++lane) {
          ShflResult want = cudaShfl(mode, lane, b, width);
          ASSERT_EQ(res[lane].first, shflValue(want.source))
              << mode << " width " << width << " b " << b << " lane " << lane;
          ASSERT_EQ(res[lane].second, want.inRange ? 1u : 0u)
              << mode << " width " << width << " b " << b << " lane " << lane;
        }
      }
    }
  }
}

TEST(WarpOps, ShflSyncArbitraryClampAndSegmentMasks) {
  VmHarness h;
  uint32_t seed = 99;
  auto next = [&] {
    seed = seed * 1103515245u + 12345u;
    return seed >> 8;
  };
  std::vector<uint32_t> cs{0x0, 0x1f, 0x0f, 0x03, 0x1e, 0x101f, 0x1f00, 0x1f1f, 0x0a15, 0x1c07, 0x0300, 0xffffffff};
  for (int i = 0; i < 12; ++i)
    cs.push_back(next());
  for (const std::string &mode : kModes) {
    ShflRunner run(h, "shfl.sync." + mode + ".b32 %r3|%p1, %r2, %r5, %r6, 0xffffffff;");
    for (uint32_t c : cs) {
      for (uint32_t b : {0u, 1u, 4u, 13u, 31u, 0xffffffe2u}) {
        auto res = run.run(b, c);
        for (int lane = 0; lane < 32; ++lane) {
          ShflResult want = isaShfl(mode, lane, b, c);
          ASSERT_EQ(res[lane].first, shflValue(want.source)) << mode << " c " << c << " b " << b << " lane " << lane;
          ASSERT_EQ(res[lane].second, want.inRange ? 1u : 0u) << mode << " c " << c << " b " << b << " lane " << lane;
        }
      }
    }
  }
}

TEST(WarpOps, LegacyShflWithoutSync) {
  VmHarness h;
  for (const std::string &mode : kModes) {
    ShflRunner run(h, "shfl." + mode + ".b32 %r3|%p1, %r2, %r5, %r6;");
    for (uint32_t c : {0x0u, 0x1fu, 0x181fu, 0x1c00u, 0x0007u}) {
      for (uint32_t b : {1u, 2u, 6u}) {
        auto res = run.run(b, c);
        for (int lane = 0; lane < 32; ++lane) {
          ShflResult want = isaShfl(mode, lane, b, c);
          ASSERT_EQ(res[lane].first, shflValue(want.source)) << mode << " c " << c << " b " << b << " lane " << lane;
          ASSERT_EQ(res[lane].second, want.inRange ? 1u : 0u);
        }
      }
    }
  }
}

TEST(WarpOps, ShflPerLaneSourceAndWarpSum) {
  VmHarness h;
  auto &m = h.load(sm90Module(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mad.lo.s32 %r2, %r1, 100, 7;
  // idx with a per-lane source (a register b), no predicate output
  mad.lo.s32 %r3, %r1, 7, 3;
  shfl.sync.idx.b32 %r4, %r2, %r3, 0x1f, 0xffffffff;
  // butterfly sum: every lane ends with the warp total; d overwrites a
  mov.u32 %r5, %r1;
  shfl.sync.bfly.b32 %r6, %r5, 16, 0x1f, 0xffffffff;
  add.u32 %r5, %r5, %r6;
  shfl.sync.bfly.b32 %r6, %r5, 8, 0x1f, 0xffffffff;
  add.u32 %r5, %r5, %r6;
  shfl.sync.bfly.b32 %r6, %r5, 4, 0x1f, 0xffffffff;
  add.u32 %r5, %r5, %r6;
  shfl.sync.bfly.b32 %r6, %r5, 2, 0x1f, 0xffffffff;
  add.u32 %r5, %r5, %r6;
  shfl.sync.bfly.b32 %r6, %r5, 1, 0x1f, 0xffffffff;
  add.u32 %r5, %r5, %r6;
  // a shuffle whose destination is its own source
  mov.u32 %r7, %r1;
  shfl.sync.down.b32 %r7, %r7, 1, 0x1f, 0xffffffff;
  mul.wide.u32 %rd2, %r1, 12;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  st.global.u32 [%rd3+4], %r5;
  st.global.u32 [%rd3+8], %r7;
  ret;
}
)"));
  uint64_t out = h.zeros<uint32_t>(96);
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(out, 96);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(v[3 * lane], shflValue((lane * 7 + 3) % 32)) << lane;
    EXPECT_EQ(v[3 * lane + 1], 31u * 32 / 2) << lane;
    EXPECT_EQ(v[3 * lane + 2], lane == 31 ? 31u : lane + 1) << lane;
  }
}

TEST(WarpOps, ShflFromInactiveLaneReadsItsCurrentRegister) {
  VmHarness h;
  // Odd lanes skip the shuffle; even lanes read their odd neighbour, which did not execute it: the VM
  // defines the result as that lane's current register value.
  auto &m = h.load(sm90Module(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.lo.s32 %r2, %r1, 3;
  mov.u32 %r3, 0xdead;
  and.b32 %r4, %r1, 1;
  setp.ne.u32 %p1, %r4, 0;
  @%p1 bra SKIP;
  add.u32 %r2, %r2, 1000;
  xor.b32 %r5, %r1, 1;
  shfl.sync.idx.b32 %r3|%p2, %r2, %r5, 0x1f, 0x55555555;
SKIP:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)"));
  uint64_t out = h.zeros<uint32_t>(32);
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(out, 32);
  for (uint32_t lane = 0; lane < 32; ++lane)
    EXPECT_EQ(v[lane], lane % 2 ? 0xdeadu : (lane + 1) * 3) << lane;
}

// ---------------------------------------------------------------------------------------------
// vote

/// Per lane: ballot(q), ballot(!q), all, any, uni, all(!q); 0xdead where the lane did not execute.
const char *kVoteKernel = R"(
.visible .entry k(.param .u64 out, .param .u32 gate, .param .u32 mask, .param .u32 modulus)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .reg .pred %p<10>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r10, [gate];
  ld.param.u32 %r11, [mask];
  ld.param.u32 %r12, [modulus];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, %r12;
  setp.eq.u32 %p2, %r2, 0;
  setp.lt.u32 %p1, %r1, %r10;
  mov.u32 %r3, 0xdead;
  mov.u32 %r4, 0xdead;
  mov.u32 %r5, 0xdead;
  mov.u32 %r6, 0xdead;
  mov.u32 %r7, 0xdead;
  mov.u32 %r8, 0xdead;
  BODY
  mul.wide.u32 %rd2, %r1, 24;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  st.global.u32 [%rd3+4], %r4;
  st.global.u32 [%rd3+8], %r5;
  st.global.u32 [%rd3+12], %r6;
  st.global.u32 [%rd3+16], %r7;
  st.global.u32 [%rd3+20], %r8;
  ret;
}
)";

/// The votes under a guard (@%p1 on each instruction).
const char *kVoteGuarded = R"(
  @%p1 vote.sync.ballot.b32 %r3, %p2, %r11;
  @%p1 vote.sync.ballot.b32 %r4, !%p2, %r11;
  @%p1 vote.sync.all.pred %p3, %p2, %r11;
  @%p1 vote.sync.any.pred %p4, %p2, %r11;
  @%p1 vote.sync.uni.pred %p5, %p2, %r11;
  @%p1 vote.sync.all.pred %p6, !%p2, %r11;
  @%p1 selp.u32 %r5, 1, 0, %p3;
  @%p1 selp.u32 %r6, 1, 0, %p4;
  @%p1 selp.u32 %r7, 1, 0, %p5;
  @%p1 selp.u32 %r8, 1, 0, %p6;
)";

/// The same votes in a divergent branch.
const char *kVoteBranch = R"(
  @!%p1 bra SKIP;
  vote.sync.ballot.b32 %r3, %p2, %r11;
  vote.sync.ballot.b32 %r4, !%p2, %r11;
  vote.sync.all.pred %p3, %p2, %r11;
  vote.sync.any.pred %p4, %p2, %r11;
  vote.sync.uni.pred %p5, %p2, %r11;
  vote.sync.all.pred %p6, !%p2, %r11;
  selp.u32 %r5, 1, 0, %p3;
  selp.u32 %r6, 1, 0, %p4;
  selp.u32 %r7, 1, 0, %p5;
  selp.u32 %r8, 1, 0, %p6;
SKIP:
)";

/// Legacy vote (no membermask): over the executing lanes.
const char *kVoteLegacy = R"(
  @!%p1 bra SKIP;
  vote.ballot.b32 %r3, %p2;
  vote.ballot.b32 %r4, !%p2;
  vote.all.pred %p3, %p2;
  vote.any.pred %p4, %p2;
  vote.uni.pred %p5, %p2;
  vote.all.pred %p6, !%p2;
  selp.u32 %r5, 1, 0, %p3;
  selp.u32 %r6, 1, 0, %p4;
  selp.u32 %r7, 1, 0, %p5;
  selp.u32 %r8, 1, 0, %p6;
SKIP:
)";

void checkVotes(VmHarness &h, const char *body, bool legacy) {
  auto &m = h.load(sm90Module(replaceAll(kVoteKernel, "BODY", body)), legacy                 ? "legacy"
                                                                      : body == kVoteGuarded ? "g"
                                                                                             : "b");
  for (uint32_t gate : {32u, 20u, 1u, 0u}) {
    for (uint32_t mask : {0xffffffffu, 0x0000ffffu, 0x00f0f0f0u}) {
      for (uint32_t modulus : {3u, 1u}) {
        uint64_t out = h.zeros<uint32_t>(32 * 6);
        auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, out, gate, mask, modulus);
        ASSERT_TRUE(r.ok()) << describe(r);
        auto v = h.download<uint32_t>(out, 32 * 6);
        uint32_t exec = gate >= 32 ? 0xffffffffu : (1u << gate) - 1;
        uint32_t q = 0;
        for (uint32_t lane = 0; lane < 32; ++lane)
          if (lane % modulus == 0)
            q |= 1u << lane;
        for (uint32_t lane = 0; lane < 32; ++lane) {
          const uint32_t *row = &v[lane * 6];
          if (!(exec >> lane & 1)) {
            for (int i = 0; i < 6; ++i)
              ASSERT_EQ(row[i], 0xdeadu) << lane;
            continue;
          }
          const uint32_t part = legacy ? exec : exec & mask;
          const uint32_t yes = q & part, no = ~q & part;
          std::string where = "gate " + std::to_string(gate) + " mask " + std::to_string(mask) + " mod " +
                              std::to_string(modulus) + " lane " + std::to_string(lane);
          EXPECT_EQ(row[0], yes) << where;
          EXPECT_EQ(row[1], no) << where;
          EXPECT_EQ(row[2], yes == part ? 1u : 0u) << where;
          EXPECT_EQ(row[3], yes != 0 ? 1u : 0u) << where;
          EXPECT_EQ(row[4], (yes == 0 || yes == part) ? 1u : 0u) << where;
          EXPECT_EQ(row[5], no == part ? 1u : 0u) << where;
        }
      }
    }
  }
}

TEST(WarpOps, VoteSyncUnderGuard) {
  VmHarness h;
  checkVotes(h, kVoteGuarded, false);
}

TEST(WarpOps, VoteSyncInDivergentBranch) {
  VmHarness h;
  checkVotes(h, kVoteBranch, false);
}

TEST(WarpOps, LegacyVote) {
  VmHarness h;
  checkVotes(h, kVoteLegacy, true);
}

// ---------------------------------------------------------------------------------------------
// match

TEST(WarpOps, MatchAnyAndAll) {
  VmHarness h;
  auto &m = h.load(sm90Module(R"(
.visible .entry k(.param .u64 out, .param .u32 modulus, .param .u32 gate, .param .u32 mask)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<12>;
  .reg .pred %p<6>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r10, [modulus];
  ld.param.u32 %r11, [gate];
  ld.param.u32 %r12, [mask];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, %r10;
  setp.lt.u32 %p1, %r1, %r11;
  mov.u32 %r3, 0xdead;
  mov.u32 %r4, 0xdead;
  mov.u32 %r5, 0xdead;
  mov.u32 %r6, 0xdead;
  mov.u32 %r7, 0xdead;
  mov.u32 %r8, 0xdead;
  // b64 keys: the residue in the high word, the same low word everywhere
  cvt.u64.u32 %rd4, %r2;
  shl.b64 %rd4, %rd4, 40;
  or.b64 %rd4, %rd4, 77;
  @%p1 match.any.sync.b32 %r3, %r2, %r12;
  @%p1 match.all.sync.b32 %r4|%p2, %r2, %r12;
  @%p1 selp.u32 %r5, 1, 0, %p2;
  @%p1 match.any.sync.b64 %r6, %rd4, %r12;
  @%p1 match.all.sync.b64 %r7|%p3, %rd4, %r12;
  @%p1 selp.u32 %r8, 1, 0, %p3;
  @%p1 match.all.sync.b32 _|%p4, %r2, %r12;
  mul.wide.u32 %rd2, %r1, 24;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  st.global.u32 [%rd3+4], %r4;
  st.global.u32 [%rd3+8], %r5;
  st.global.u32 [%rd3+12], %r6;
  st.global.u32 [%rd3+16], %r7;
  st.global.u32 [%rd3+20], %r8;
  ret;
}
)"));
  for (uint32_t modulus : {1u, 2u, 4u, 7u, 32u}) {
    for (uint32_t gate : {32u, 9u}) {
      for (uint32_t mask : {0xffffffffu, 0x00ff00ffu}) {
        uint64_t out = h.zeros<uint32_t>(32 * 6);
        auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, out, modulus, gate, mask);
        ASSERT_TRUE(r.ok()) << describe(r);
        auto v = h.download<uint32_t>(out, 32 * 6);
        const uint32_t exec = gate >= 32 ? 0xffffffffu : (1u << gate) - 1;
        const uint32_t part = exec & mask;
        bool allSame = true;
        for (uint32_t k = 0; k < 32; ++k)
          for (uint32_t l = 0; l < 32; ++l)
            if ((part >> k & 1) && (part >> l & 1) && k % modulus != l % modulus)
              allSame = false;
        for (uint32_t lane = 0; lane < 32; ++lane) {
          const uint32_t *row = &v[lane * 6];
          if (!(exec >> lane & 1) || !(mask >> lane & 1))
            continue; // not executing, or not a member (undefined)
          uint32_t same = 0;
          for (uint32_t k = 0; k < 32; ++k)
            if ((part >> k & 1) && k % modulus == lane % modulus)
              same |= 1u << k;
          std::string where =
              "mod " + std::to_string(modulus) + " gate " + std::to_string(gate) + " lane " + std::to_string(lane);
          EXPECT_EQ(row[0], same) << where;
          EXPECT_EQ(row[1], allSame ? part : 0u) << where;
          EXPECT_EQ(row[2], allSame ? 1u : 0u) << where;
          EXPECT_EQ(row[3], same) << where;
          EXPECT_EQ(row[4], allSame ? part : 0u) << where;
          EXPECT_EQ(row[5], allSame ? 1u : 0u) << where;
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// redux

TEST(WarpOps, ReduxSyncEveryOperation) {
  VmHarness h;
  struct Case {
    const char *op;
    std::function<uint32_t(uint32_t, uint32_t)> f;
  };
  const std::vector<Case> cases{
      {"add.u32", [](uint32_t a, uint32_t b) { return a + b; }},
      {"add.s32", [](uint32_t a, uint32_t b) { return a + b; }},
      {"min.u32", [](uint32_t a, uint32_t b) { return std::min(a, b); }},
      {"max.u32", [](uint32_t a, uint32_t b) { return std::max(a, b); }},
      {"min.s32",
       [](uint32_t a, uint32_t b) {
         return static_cast<uint32_t>(std::min(static_cast<int32_t>(a), static_cast<int32_t>(b)));
       }},
      {"max.s32",
       [](uint32_t a, uint32_t b) {
         return static_cast<uint32_t>(std::max(static_cast<int32_t>(a), static_cast<int32_t>(b)));
       }},
      {"and.b32", [](uint32_t a, uint32_t b) { return a & b; }},
      {"or.b32", [](uint32_t a, uint32_t b) { return a | b; }},
      {"xor.b32", [](uint32_t a, uint32_t b) { return a ^ b; }},
  };
  for (const Case &c : cases) {
    // Each half-warp reduces over its own membermask (a per-lane register); lanes >= gate do not execute.
    auto &m = h.load(sm90Module(replaceAll(R"(
.visible .entry k(.param .u64 vals, .param .u64 out, .param .u32 gate)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [vals];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r10, [gate];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  setp.lt.u32 %p1, %r1, 16;
  selp.b32 %r3, 0x0000ffff, 0xffff0000, %p1;
  setp.lt.u32 %p2, %r1, %r10;
  mov.u32 %r4, 0xdead;
  @%p2 redux.sync.OP %r4, %r2, %r3;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r4;
  ret;
}
)",
                                           "OP", c.op)),
                     c.op);
    std::vector<uint32_t> vals(32);
    for (uint32_t i = 0; i < 32; ++i)
      vals[i] = ((i * 2654435761u) >> 3) ^ (i % 3 == 0 ? 0x80000000u : 0u);
    uint64_t dv = h.upload(vals);
    for (uint32_t gate : {32u, 21u, 5u}) {
      uint64_t out = h.zeros<uint32_t>(32);
      auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, dv, out, gate);
      ASSERT_TRUE(r.ok()) << describe(r);
      auto v = h.download<uint32_t>(out, 32);
      for (uint32_t lane = 0; lane < 32; ++lane) {
        if (lane >= gate) {
          EXPECT_EQ(v[lane], 0xdeadu);
          continue;
        }
        const uint32_t lo = lane < 16 ? 0 : 16, hi = std::min(lo + 16, gate);
        uint32_t acc = vals[lo];
        for (uint32_t k = lo + 1; k < hi; ++k)
          acc = c.f(acc, vals[k]);
        EXPECT_EQ(v[lane], acc) << c.op << " gate " << gate << " lane " << lane;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// activemask, elect

TEST(WarpOps, ActivemaskInsideDivergentBranch) {
  VmHarness h;
  auto &m = h.load(sm90Module(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 12;
  add.s64 %rd3, %rd1, %rd2;
  rem.u32 %r2, %r1, 3;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra SKIP;
  activemask.b32 %r3;
  st.global.u32 [%rd3], %r3;
SKIP:
  activemask.b32 %r4;
  st.global.u32 [%rd3+4], %r4;
  setp.lt.u32 %p2, %r2, 2;
  @%p2 activemask.b32 %r5;
  @%p2 st.global.u32 [%rd3+8], %r5;
  ret;
}
)"));
  const uint32_t n = 40; // a full warp and a warp of 8 lanes
  uint64_t out = h.upload(std::vector<uint32_t>(3 * n, 0xdead));
  auto r = h.launch(m, "k", {1, 1, 1}, {n, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(out, 3 * n);
  for (uint32_t warp = 0; warp < 2; ++warp) {
    uint32_t live = 0, third = 0, guard = 0;
    for (uint32_t lane = 0; lane < 32 && warp * 32 + lane < n; ++lane) {
      const uint32_t t = warp * 32 + lane;
      live |= 1u << lane;
      if (t % 3 == 0)
        third |= 1u << lane;
      if (t % 3 < 2)
        guard |= 1u << lane;
    }
    for (uint32_t lane = 0; lane < 32 && warp * 32 + lane < n; ++lane) {
      const uint32_t t = warp * 32 + lane;
      EXPECT_EQ(v[3 * t], t % 3 == 0 ? third : 0xdeadu) << t;
      EXPECT_EQ(v[3 * t + 1], live) << t;
      EXPECT_EQ(v[3 * t + 2], t % 3 < 2 ? guard : 0xdeadu) << t;
    }
  }
}

TEST(WarpOps, ElectSync) {
  VmHarness h;
  auto &m = h.load(sm90Module(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 24;
  add.s64 %rd3, %rd1, %rd2;
  elect.sync %r2|%p1, 0xffffffff;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd3], %r2;
  st.global.u32 [%rd3+4], %r3;
  mov.u32 %r4, 0xf0;
  elect.sync %r5|%p2, %r4;
  selp.u32 %r6, 1, 0, %p2;
  st.global.u32 [%rd3+8], %r5;
  st.global.u32 [%rd3+12], %r6;
  and.b32 %r7, %r1, 1;
  setp.eq.u32 %p3, %r7, 0;
  @%p3 bra SKIP;
  elect.sync _|%p4, 0xffffffff;
  selp.u32 %r8, 1, 0, %p4;
  elect.sync %r9|%p5, 0xffffffff;
  st.global.u32 [%rd3+16], %r8;
  st.global.u32 [%rd3+20], %r9;
SKIP:
  ret;
}
)"));
  uint64_t out = h.upload(std::vector<uint32_t>(32 * 6, 0xdead));
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(out, 32 * 6);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const uint32_t *row = &v[lane * 6];
    EXPECT_EQ(row[0], 0u) << lane;
    EXPECT_EQ(row[1], lane == 0 ? 1u : 0u) << lane;
    if (lane >= 4 && lane < 8) {
      EXPECT_EQ(row[2], 4u) << lane;
      EXPECT_EQ(row[3], lane == 4 ? 1u : 0u) << lane;
    }
    if (lane % 2) {
      EXPECT_EQ(row[4], lane == 1 ? 1u : 0u) << lane;
      EXPECT_EQ(row[5], 1u) << lane;
    } else {
      EXPECT_EQ(row[4], 0xdeadu) << lane;
      EXPECT_EQ(row[5], 0xdeadu) << lane;
    }
  }
}

} // namespace
} // namespace ptxray::test
