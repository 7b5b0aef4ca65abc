// cp.async (zero-fill, ignore-src, groups), cp.async.bulk with mbarrier completion and bulk groups,
// and mbarrier objects (phases across warps, tx-counts, arrive_drop, pending_count) — each against
// host-computed results — plus the nvcc-compiled kernels of tests/kernels/async_copy.cu.
#include "support/TestFiles.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>

namespace ptxray::test {
namespace {

const char *kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

std::vector<uint8_t> randomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto &b : v)
    b = static_cast<uint8_t>(rng() | 1); // never zero, so zero-filled bytes stand out
  return v;
}

// Every thread fills its 16 shared bytes with 0xff, then copies 16 bytes with src-size tid % 17
// (cg, register operand) and 8 bytes with src-size 5 (ca, immediate); lanes with src-size 0 give a
// null source, which must not be read.
TEST(AsyncCopy, ZeroFillWithSrcSize) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 in, .param .u64 out, .param .u64 out8)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  .reg .pred %p<2>;
  .shared .align 16 .b8 buf[512];
  .shared .align 16 .b8 buf8[256];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u64 %rd9, [out8];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  mov.u32 %r3, buf;
  add.s32 %r4, %r3, %r2;
  mov.u32 %r5, -1;
  st.shared.v4.u32 [%r4], {%r5, %r5, %r5, %r5};
  shl.b32 %r9, %r1, 3;
  mov.u32 %r10, buf8;
  add.s32 %r10, %r10, %r9;
  st.shared.v2.u32 [%r10], {%r5, %r5};
  rem.u32 %r6, %r1, 17;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd4, %rd1, %rd3;
  setp.eq.u32 %p1, %r6, 0;
  selp.b64 %rd5, 0, %rd4, %p1;
  cp.async.cg.shared.global [%r4], [%rd5], 16, %r6;
  cp.async.ca.shared::cta.global [%r10], [%rd4+8], 8, 5;
  cp.async.commit_group;
  cp.async.wait_all;
  bar.sync 0;
  ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [%r4];
  add.s64 %rd6, %rd2, %rd3;
  st.global.v4.u32 [%rd6], {%r5, %r6, %r7, %r8};
  ld.shared.v2.u32 {%r5, %r6}, [%r10];
  cvt.u64.u32 %rd7, %r9;
  add.s64 %rd8, %rd9, %rd7;
  st.global.v2.u32 [%rd8], {%r5, %r6};
  ret;
}
)");
  auto in = randomBytes(512, 1);
  uint64_t din = h.upload(in);
  uint64_t dout = h.zeros<uint8_t>(512);
  uint64_t dout8 = h.zeros<uint8_t>(256);
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, din, dout, dout8);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = h.download<uint8_t>(dout, 512);
  auto out8 = h.download<uint8_t>(dout8, 256);
  for (uint32_t t = 0; t < 32; ++t) {
    const uint32_t n = t % 17;
    for (uint32_t b = 0; b < 16; ++b)
      ASSERT_EQ(out[t * 16 + b], b < n ? in[t * 16 + b] : 0) << t << " " << b;
    for (uint32_t b = 0; b < 8; ++b)
      ASSERT_EQ(out8[t * 8 + b], b < 5 ? in[t * 16 + 8 + b] : 0) << t << " " << b;
  }
}

// ignore-src: odd lanes get zeros (and their source is never read), even lanes the data; one form
// with a negated predicate and a cache-policy operand.
TEST(AsyncCopy, IgnoreSrcAndCachePolicy) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  .reg .pred %p<2>;
  .shared .align 16 .b8 a[256];
  .shared .align 16 .b8 b[256];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 3;
  mov.u32 %r3, a;
  add.s32 %r4, %r3, %r2;
  mov.u32 %r9, b;
  add.s32 %r10, %r9, %r2;
  mov.u32 %r5, -1;
  st.shared.v2.u32 [%r4], {%r5, %r5};
  st.shared.v2.u32 [%r10], {%r5, %r5};
  and.b32 %r6, %r1, 1;
  setp.eq.u32 %p1, %r6, 1;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd4, %rd1, %rd3;
  selp.b64 %rd5, 0, %rd4, %p1;
  cp.async.ca.shared.global [%r4], [%rd5], 8, %p1;
  mov.b64 %rd9, 0x1000000000000000;
  cp.async.ca.shared.global.L2::cache_hint [%r10], [%rd4], 8, !%p1, %rd9;
  cp.async.wait_group 0;
  bar.sync 0;
  ld.shared.v2.u32 {%r5, %r6}, [%r4];
  ld.shared.v2.u32 {%r7, %r8}, [%r10];
  shl.b32 %r11, %r1, 4;
  cvt.u64.u32 %rd6, %r11;
  add.s64 %rd7, %rd2, %rd6;
  st.global.v4.u32 [%rd7], {%r5, %r6, %r7, %r8};
  ret;
}
)");
  auto in = randomBytes(256, 2);
  uint64_t din = h.upload(in);
  uint64_t dout = h.zeros<uint8_t>(512);
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, din, dout);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = h.download<uint8_t>(dout, 512);
  for (uint32_t t = 0; t < 32; ++t)
    for (uint32_t i = 0; i < 8; ++i) {
      const bool odd = t & 1;
      ASSERT_EQ(out[t * 16 + i], odd ? 0 : in[t * 8 + i]) << t;
      ASSERT_EQ(out[t * 16 + 8 + i], odd ? in[t * 8 + i] : 0) << t;
    }
}

TEST(AsyncCopy, MisalignedCopyFaults) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 in)
{
  .reg .b64 %rd<2>;
  .shared .align 16 .b8 a[64];
  ld.param.u64 %rd1, [in];
  cp.async.cg.shared.global [a+8], [%rd1], 16;
  ret;
}
)");
  uint64_t din = h.zeros<uint8_t>(64);
  auto r = h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, din);
  ASSERT_FALSE(r.ok());
  ASSERT_FALSE(r.faults.empty());
  EXPECT_EQ(r.faults[0].kind, vm::FaultKind::Misaligned) << describe(r);
}

// A producer warp and a consumer warp hand 32-int tiles over through a full and an empty mbarrier
// for 6 phases; the consumer waits with try_wait.parity, the producer with test_wait.parity (plus
// nanosleep), as CUTLASS pipelines do. The first producer wait (parity 1 on a fresh barrier)
// returns true at once.
TEST(AsyncCopy, ProducerConsumerPhases) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 in, .param .u64 out, .param .u32 phases)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<12>;
  .reg .pred %p<6>;
  .shared .align 8 .b64 full;
  .shared .align 8 .b64 empty;
  .shared .align 16 .b32 tile[32];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r10, [phases];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  shr.u32 %r3, %r1, 5;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INITED;
  mbarrier.init.shared.b64 [full], 32;
  mbarrier.init.shared::cta.b64 [empty], 32;
INITED:
  bar.sync 0;
  shl.b32 %r4, %r2, 2;
  mov.u32 %r5, tile;
  add.s32 %r5, %r5, %r4;
  mov.u32 %r6, 0;
  setp.ne.u32 %p2, %r3, 0;
  @%p2 bra CONSUMER;
PRODUCE:
  and.b32 %r7, %r6, 1;
  xor.b32 %r7, %r7, 1;
PWAIT:
  mbarrier.test_wait.parity.shared.b64 %p3, [empty], %r7;
  @!%p3 nanosleep.u32 10;
  @!%p3 bra PWAIT;
  shl.b32 %r8, %r6, 5;
  add.s32 %r8, %r8, %r2;
  mul.wide.u32 %rd3, %r8, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r9, [%rd4];
  mul.lo.s32 %r9, %r9, 2;
  st.shared.u32 [%r5], %r9;
  mbarrier.arrive.release.cta.shared.b64 _, [full];
  add.s32 %r6, %r6, 1;
  setp.lt.u32 %p4, %r6, %r10;
  @%p4 bra PRODUCE;
  bra DONE;
CONSUMER:
  and.b32 %r7, %r6, 1;
CWAIT:
  mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p3, [full], %r7, 1000;
  @!%p3 bra CWAIT;
  sub.s32 %r11, 31, %r2;
  shl.b32 %r11, %r11, 2;
  mov.u32 %r12, tile;
  add.s32 %r12, %r12, %r11;
  ld.shared.u32 %r9, [%r12];
  add.s32 %r9, %r9, %r6;
  shl.b32 %r8, %r6, 5;
  add.s32 %r8, %r8, %r2;
  mul.wide.u32 %rd3, %r8, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r9;
  mbarrier.arrive.shared.b64 %rd5, [empty];
  add.s32 %r6, %r6, 1;
  setp.lt.u32 %p4, %r6, %r10;
  @%p4 bra CONSUMER;
DONE:
  ret;
}
)");
  const uint32_t phases = 6;
  std::mt19937 rng(3);
  std::vector<int32_t> in(32 * phases);
  for (auto &v : in)
    v = static_cast<int32_t>(rng() % 100000);
  uint64_t din = h.upload(in);
  uint64_t dout = h.zeros<int32_t>(in.size());
  auto r = h.launch(m, "k", {1, 1, 1}, {64, 1, 1}, din, dout, phases);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = h.download<int32_t>(dout, in.size());
  for (uint32_t k = 0; k < phases; ++k)
    for (uint32_t l = 0; l < 32; ++l)
      ASSERT_EQ(out[k * 32 + l], in[k * 32 + (31 - l)] * 2 + static_cast<int32_t>(k)) << k << " " << l;
}

// Thread 0 arrives with expect_tx(1024) on a barrier of one arrival, then issues a bulk copy that
// completes the transaction bytes; every thread waits on parity 0 and writes the tile reversed back
// through a bulk_group store. flags records test_wait before and after the copy and the tx-only
// sequence expect_tx / complete_tx on a second barrier.
TEST(AsyncCopy, ExpectTxAndBulkCopy) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 in, .param .u64 out, .param .u64 flags)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<12>;
  .reg .pred %p<6>;
  .shared .align 8 .b64 bar;
  .shared .align 8 .b64 bar2;
  .shared .align 16 .b8 tile[1024];
  .shared .align 16 .b8 rev[1024];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u64 %rd3, [flags];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra WAIT;
  mbarrier.init.shared.b64 [bar], 1;
  mbarrier.arrive.expect_tx.shared.b64 %rd4, [bar], 1024;
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd4;
  selp.u32 %r2, 1, 0, %p2;
  st.global.u32 [%rd3], %r2;
  mov.u32 %r3, tile;
  mov.u32 %r4, bar;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd1], 1024, [%r4];
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd4;
  selp.u32 %r2, 1, 0, %p2;
  st.global.u32 [%rd3+4], %r2;
  mbarrier.init.shared.b64 [bar2], 1;
  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar2], 64;
  mbarrier.arrive.shared.b64 %rd5, [bar2];
  mbarrier.test_wait.parity.shared.b64 %p2, [bar2], 0;
  selp.u32 %r2, 1, 0, %p2;
  st.global.u32 [%rd3+8], %r2;
  mbarrier.complete_tx.shared.b64 [bar2], 32;
  mbarrier.test_wait.parity.shared.b64 %p2, [bar2], 0;
  selp.u32 %r2, 1, 0, %p2;
  st.global.u32 [%rd3+12], %r2;
  mbarrier.complete_tx.shared.b64 [bar2], 32;
  mbarrier.test_wait.parity.shared.b64 %p2, [bar2], 0;
  selp.u32 %r2, 1, 0, %p2;
  st.global.u32 [%rd3+16], %r2;
  mbarrier.test_wait.shared.b64 %p2, [bar2], %rd5;
  selp.u32 %r2, 1, 0, %p2;
  st.global.u32 [%rd3+20], %r2;
WAIT:
  bar.sync 0;
SPIN:
  mbarrier.try_wait.parity.shared.b64 %p3, [bar], 0;
  @!%p3 bra SPIN;
  sub.u32 %r5, 63, %r1;
  shl.b32 %r5, %r5, 4;
  mov.u32 %r6, tile;
  add.s32 %r6, %r6, %r5;
  ld.shared.v4.u32 {%r7, %r8, %r9, %r10}, [%r6];
  shl.b32 %r11, %r1, 4;
  mov.u32 %r12, rev;
  add.s32 %r12, %r12, %r11;
  st.shared.v4.u32 [%r12], {%r7, %r8, %r9, %r10};
  fence.proxy.async.shared::cta;
  bar.sync 0;
  @%p1 bra DONE;
  cp.async.bulk.global.shared::cta.bulk_group [%rd2], [rev], 1024;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
  cp.async.bulk.wait_group 0;
  cp.async.bulk.prefetch.L2.global [%rd1], 1024;
DONE:
  ret;
}
)");
  auto in = randomBytes(1024, 4);
  uint64_t din = h.upload(in);
  uint64_t dout = h.zeros<uint8_t>(1024);
  uint64_t dflags = h.upload(std::vector<uint32_t>(6, 7));
  auto r = h.launch(m, "k", {1, 1, 1}, {64, 1, 1}, din, dout, dflags);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = h.download<uint8_t>(dout, 1024);
  for (uint32_t t = 0; t < 64; ++t)
    for (uint32_t b = 0; b < 16; ++b)
      ASSERT_EQ(out[t * 16 + b], in[(63 - t) * 16 + b]) << t;
  auto flags = h.download<uint32_t>(dflags, 6);
  EXPECT_EQ(flags, (std::vector<uint32_t>{0, 1, 0, 0, 1, 1}));
}

// Warp 1 drops out with arrive_drop (expected count 64 -> 32) and exits; warp 0 then completes two
// phases on its own. Tokens of arrive (generic address, with a count) carry the pending count before arriving.
TEST(AsyncCopy, ArriveDropAndPendingCount) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  .reg .pred %p<6>;
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INITED;
  mbarrier.init.shared.b64 [bar], 64;
INITED:
  bar.sync 0;
  setp.lt.u32 %p2, %r1, 32;
  @%p2 bra STAY;
  mbarrier.arrive_drop.shared.b64 _, [bar];
  exit;
STAY:
  mov.u32 %r9, bar;
  cvt.u64.u32 %rd9, %r9;
  cvta.shared.u64 %rd9, %rd9;
  mbarrier.arrive.b64 %rd2, [%rd9], 1;
  mbarrier.pending_count.b64 %r2, %rd2;
W0:
  mbarrier.try_wait.shared.b64 %p3, [bar], %rd2;
  @!%p3 bra W0;
  mbarrier.arrive.shared.b64 %rd3, [bar];
  mbarrier.pending_count.b64 %r3, %rd3;
W1:
  mbarrier.try_wait.parity.shared.b64 %p3, [bar], 1;
  @!%p3 bra W1;
  mbarrier.test_wait.parity.shared.b64 %p4, [bar], 0;
  selp.u32 %r4, 1, 0, %p4;
  mul.wide.u32 %rd4, %r1, 12;
  add.s64 %rd5, %rd1, %rd4;
  st.global.u32 [%rd5], %r2;
  st.global.u32 [%rd5+4], %r3;
  st.global.u32 [%rd5+8], %r4;
  @%p1 bra DONE;
  mbarrier.inval.shared.b64 [bar];
DONE:
  ret;
}
)");
  uint64_t dout = h.zeros<uint32_t>(96);
  auto r = h.launch(m, "k", {1, 1, 1}, {64, 1, 1}, dout);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = h.download<uint32_t>(dout, 96);
  // Phase 0: either warp may arrive first (64 - l before the drops, 32 - l after them).
  const bool warp0First = out[0] == 64;
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(out[l * 3], (warp0First ? 64u : 32u) - l) << l;
    EXPECT_EQ(out[l * 3 + 1], 32u - l) << l; // phase 1: only warp 0 remains expected
    EXPECT_EQ(out[l * 3 + 2], 0u) << l;      // phase 2 (parity 0) is still open
  }
}

// cp.async.mbarrier.arrive: without .noinc the barrier counts only the threads' own arrivals; with
// .noinc its initial count includes one arrival per thread from the copies.
TEST(AsyncCopy, CpAsyncMbarrierArrive) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  .reg .pred %p<6>;
  .shared .align 8 .b64 a;
  .shared .align 8 .b64 b;
  .shared .align 16 .b32 sa[32];
  .shared .align 16 .b32 sb[32];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INITED;
  mbarrier.init.shared.b64 [a], 32;
  mbarrier.init.shared.b64 [b], 64;
INITED:
  bar.sync 0;
  shl.b32 %r2, %r1, 2;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r3, sa;
  add.s32 %r3, %r3, %r2;
  mov.u32 %r4, sb;
  add.s32 %r4, %r4, %r2;
  cp.async.ca.shared.global [%r3], [%rd4], 4;
  cp.async.mbarrier.arrive.shared.b64 [a];
  cp.async.ca.shared.global [%r4], [%rd4+128], 4;
  cp.async.mbarrier.arrive.noinc.shared::cta.b64 [b];
  mbarrier.arrive.shared.b64 %rd5, [a];
  mbarrier.arrive.shared.b64 %rd6, [b];
  mbarrier.pending_count.b64 %r5, %rd5;
  mbarrier.pending_count.b64 %r6, %rd6;
WA:
  mbarrier.test_wait.shared.b64 %p2, [a], %rd5;
  @!%p2 bra WA;
WB:
  mbarrier.test_wait.shared.b64 %p2, [b], %rd6;
  @!%p2 bra WB;
  sub.u32 %r7, 31, %r1;
  shl.b32 %r7, %r7, 2;
  mov.u32 %r8, sa;
  add.s32 %r8, %r8, %r7;
  ld.shared.u32 %r9, [%r8];
  mov.u32 %r8, sb;
  add.s32 %r8, %r8, %r7;
  ld.shared.u32 %r10, [%r8];
  mul.wide.u32 %rd7, %r1, 16;
  add.s64 %rd8, %rd2, %rd7;
  st.global.v4.u32 [%rd8], {%r9, %r10, %r5, %r6};
  ret;
}
)");
  std::vector<uint32_t> in(64);
  std::mt19937 rng(5);
  for (auto &v : in)
    v = rng();
  uint64_t din = h.upload(in);
  uint64_t dout = h.zeros<uint32_t>(128);
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, din, dout);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = h.download<uint32_t>(dout, 128);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(out[l * 4], in[31 - l]) << l;
    EXPECT_EQ(out[l * 4 + 1], in[32 + 31 - l]) << l;
    EXPECT_EQ(out[l * 4 + 2], 32 - l) << l;
    EXPECT_EQ(out[l * 4 + 3], 32 - l) << l; // the 32 .noinc arrivals came first
  }
}

TEST(AsyncCopy, UninitializedMbarrierFaults) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k()
{
  .reg .b64 %rd<2>;
  .shared .align 8 .b64 bar;
  mbarrier.arrive.shared.b64 %rd1, [bar];
  ret;
}
)");
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1});
  ASSERT_FALSE(r.ok());
  ASSERT_FALSE(r.faults.empty());
  EXPECT_EQ(r.faults[0].kind, vm::FaultKind::IllegalInstruction) << describe(r);
}

struct MemoryLog : vm::Listener {
  std::vector<vm::MemoryEvent> events;
  void onMemory(const vm::WarpRef &, const vm::MemoryEvent &e) override { events.push_back(e); }
};

// The listener sees a cp.async as a global load of the source bytes and a shared store of cp-size
// bytes (lanes with src-size 0 read nothing), a bulk copy as 16-byte pieces, mbarrier updates as
// shared atomics.
TEST(AsyncCopy, MemoryEvents) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 in)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 buf[1024];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [in];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  cvt.u64.u32 %rd2, %r2;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r3, buf;
  add.s32 %r4, %r3, %r2;
  and.b32 %r5, %r1, 1;
  shl.b32 %r5, %r5, 4;
  cp.async.cg.shared.global [%r4], [%rd3], 16, %r5;
  mbarrier.init.shared.b64 [bar], 32;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 1024, [bar];
  ret;
}
)");
  uint64_t din = h.zeros<uint8_t>(1024);
  MemoryLog log;
  h.device.setListener(&log);
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, din);
  ASSERT_TRUE(r.ok()) << describe(r);
  std::erase_if(log.events, [](const vm::MemoryEvent &e) { return e.space == vm::Space::KernelParam; });
  ASSERT_GE(log.events.size(), 3u);
  const vm::MemoryEvent &load = log.events[0];
  EXPECT_EQ(load.op, vm::MemoryOp::Load);
  EXPECT_EQ(load.space, vm::Space::Global);
  EXPECT_EQ(load.mask, 0xaaaaaaaau); // odd lanes have src-size 16, even lanes 0
  EXPECT_EQ(load.width, 16);
  EXPECT_EQ(load.addresses[1], din + 16);
  const vm::MemoryEvent &store = log.events[1];
  EXPECT_EQ(store.op, vm::MemoryOp::Store);
  EXPECT_EQ(store.space, vm::Space::Shared);
  EXPECT_EQ(store.mask, 0xffffffffu);
  EXPECT_EQ(store.width, 16);
  // Each of the 32 lanes issues the bulk copy: two 512-byte loads and stores per lane, then the
  // complete-tx on the barrier.
  size_t bulkLoads = 0, bulkStores = 0, atomics = 0;
  for (size_t i = 2; i < log.events.size(); ++i) {
    const vm::MemoryEvent &e = log.events[i];
    if (e.op == vm::MemoryOp::Atomic)
      ++atomics;
    else if (e.op == vm::MemoryOp::Load && e.space == vm::Space::Global && e.mask == 0xffffffffu)
      ++bulkLoads;
    else if (e.op == vm::MemoryOp::Store && e.space == vm::Space::Shared && e.mask == 0xffffffffu)
      ++bulkStores;
  }
  EXPECT_EQ(bulkLoads, 64u);
  EXPECT_EQ(bulkStores, 64u);
  EXPECT_EQ(atomics, 1u + 32u); // mbarrier.init, then one complete-tx per lane
}

// ---------------------------------------------------------------------------------------------
// The nvcc-compiled kernels of tests/kernels/async_copy.cu

struct CorpusCase {
  const char *dir;
  const char *arch;
};

class AsyncCopyCorpus : public ::testing::TestWithParam<CorpusCase> {
protected:
  void SetUp() override {
    path = sourceDir() / "tests/corpus/nvcc" / GetParam().dir / "async_copy.ptx";
    if (!std::filesystem::exists(path))
      GTEST_SKIP() << path << " is not in the corpus";
  }
  std::filesystem::path path;
};

template <class T> std::vector<T> randomInts(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (auto &x : v)
    x = static_cast<T>(static_cast<int32_t>(rng() % 200001) - 100000);
  return v;
}

TEST_P(AsyncCopyCorpus, PipelinePrimitives) {
  VmHarness h(GetParam().arch);
  auto &m = h.load(readFile(path), path.string());
  for (int tiles : {1, 2, 5, 8}) {
    std::vector<float> in(static_cast<size_t>(tiles) * 128 * 4);
    std::mt19937 rng(static_cast<uint32_t>(tiles));
    for (auto &v : in)
      v = static_cast<float>(rng() % 10000) / 8.0f;
    uint64_t din = h.upload(in);
    uint64_t dout = h.zeros<float>(in.size());
    auto r = h.launch(m, "pipeline_primitives", {1, 1, 1}, {128, 1, 1}, din, dout, tiles);
    ASSERT_TRUE(r.ok()) << describe(r);
    auto out = h.download<float>(dout, in.size());
    for (int k = 0; k < tiles; ++k)
      for (int t = 0; t < 128; ++t) {
        const size_t o = (static_cast<size_t>(k) * 128 + t) * 4;
        const size_t i = (static_cast<size_t>(k) * 128 + ((t + 1) & 127)) * 4;
        ASSERT_EQ(out[o], in[i] * 2.0f) << tiles << " " << k << " " << t;
        ASSERT_EQ(out[o + 1], in[i + 1]);
        ASSERT_EQ(out[o + 2], in[i + 2]);
        ASSERT_EQ(out[o + 3], in[i + 3]);
      }
  }
}

TEST_P(AsyncCopyCorpus, SmallAsyncCopies) {
  VmHarness h(GetParam().arch);
  auto &m = h.load(readFile(path), path.string());
  auto in = randomInts<int32_t>(1280, 6);
  uint64_t din = h.upload(in);
  uint64_t dout = h.zeros<int32_t>(256);
  auto r = h.launch(m, "small_async_copies", {1, 1, 1}, {256, 1, 1}, din, dout);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = h.download<int32_t>(dout, 256);
  // Each warp copies s4[t] = in[t] and then zero-fills s4[(t + 128) & 255]; the VM runs the warps
  // in order up to the barrier, so warps 4-7 zero s4[0..127] after warps 0-3 copied it and copy
  // s4[128..255] after warps 0-3 zeroed it (the copies are unordered in the ISA: this is one legal
  // outcome).
  std::vector<int32_t> s4(256);
  for (int i = 0; i < 256; ++i)
    s4[i] = i >= 128 ? in[i] : 0;
  for (int t = 0; t < 256; ++t)
    ASSERT_EQ(out[t], s4[255 - t] + in[2 * t + 512]) << t;
}

TEST_P(AsyncCopyCorpus, CudaPipelineCopy) {
  VmHarness h(GetParam().arch);
  auto &m = h.load(readFile(path), path.string());
  for (unsigned block : {32u, 128u, 256u}) {
    auto in = randomInts<int32_t>(2 * block, block);
    std::vector<float> fin(in.begin(), in.end());
    uint64_t din = h.upload(fin);
    uint64_t dout = h.zeros<float>(block);
    // Exactly the dynamic bytes the kernel uses: the compute_75 module has 11320 static bytes and
    // smem[] starts at 11328, so the window must count the alignment padding as static memory.
    h.dynamicShared = 2 * block * sizeof(float);
    auto r = h.launch(m, "cuda_pipeline_copy", {1, 1, 1}, {block, 1, 1}, din, dout, static_cast<int>(2 * block));
    ASSERT_TRUE(r.ok()) << describe(r);
    auto out = h.download<float>(dout, block);
    for (unsigned t = 0; t < block; ++t)
      ASSERT_EQ(out[t], fin[t] + fin[block + t]) << block << " " << t;
  }
}

TEST_P(AsyncCopyCorpus, BarrierCopy) {
  VmHarness h(GetParam().arch);
  auto &m = h.load(readFile(path), path.string());
  const unsigned blocks = 3;
  auto in = randomInts<int32_t>(blocks * 256 * 4, 7);
  uint64_t din = h.upload(in);
  uint64_t dout = h.zeros<int32_t>(in.size());
  auto r = h.launch(m, "barrier_copy", {blocks, 1, 1}, {256, 1, 1}, din, dout);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = h.download<int32_t>(dout, in.size());
  // After its split arrive a thread increments tile[t].x while another thread may not have read
  // tile[t] yet (the kernel races there): .x may hold the value or the value + 1.
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < 256; ++t)
      for (unsigned c = 0; c < 4; ++c) {
        const int32_t got = out[(b * 256 + t) * 4 + c];
        const int32_t want = in[(b * 256 + 255 - t) * 4 + c];
        if (c == 0 && got == want + 1)
          continue;
        ASSERT_EQ(got, want) << b << " " << t << " " << c;
      }
}

TEST_P(AsyncCopyCorpus, RawMbarrier) {
  VmHarness h(GetParam().arch);
  auto &m = h.load(readFile(path), path.string());
  if (!m.program().findFunction("raw_mbarrier"))
    GTEST_SKIP() << "raw_mbarrier is compiled for sm_80 and later only";
  const unsigned block = 96;
  uint64_t dout = h.zeros<int32_t>(block);
  auto r = h.launch(m, "raw_mbarrier", {2, 1, 1}, {block, 1, 1}, dout);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto out = h.download<int32_t>(dout, block);
  // Every thread gets the pending count before its own arrival: within a warp lanes arrive in
  // ascending order, and the counts of all threads are 1..block in some warp order.
  std::vector<int32_t> sorted(out);
  std::sort(sorted.begin(), sorted.end());
  for (unsigned i = 0; i < block; ++i)
    ASSERT_EQ(sorted[i], static_cast<int32_t>(i + 1));
  for (unsigned t = 0; t < block; ++t) {
    if (t % 32) {
      ASSERT_EQ(out[t], out[t - 1] - 1) << t;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AsyncCopyNvcc, AsyncCopyCorpus,
                         ::testing::Values(CorpusCase{"compute_75", "sm_90"}, CorpusCase{"compute_90", "sm_90"},
                                           CorpusCase{"compute_100", "sm_90"}),
                         [](const auto &info) { return std::string(info.param.dir); });

} // namespace
} // namespace ptxray::test
