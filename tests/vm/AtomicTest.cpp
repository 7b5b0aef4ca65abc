// atom and red: every operation against host-computed results, global atomics across worker threads
// (exact counts), the VM's lane-order determinism with one worker, shared and generic addresses, the
// half and vector forms, faults and memory events.
#include "support/VmHarness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace ptxray::test {
namespace {

/// Global thread index in %r0, its 4-byte offset in %rd0.
const char *kPrologue = R"(
  mov.u32 %r0, %tid.x;
  mov.u32 %r10, %ctaid.x;
  mov.u32 %r11, %ntid.x;
  mad.lo.s32 %r0, %r10, %r11, %r0;
  mul.wide.u32 %rd0, %r0, 4;
)";

TEST(Atomic, HistogramAcrossWorkersIsExact) {
  VmHarness h;
  h.options.threads = 4;
  auto &m = h.load(sm90Module(std::string(R"(
.visible .entry hist(.param .u64 data, .param .u64 bins, .param .u32 n, .param .u32 nbins)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [data];
  ld.param.u64 %rd2, [bins];
  ld.param.u32 %r1, [n];
  ld.param.u32 %r2, [nbins];
)") + kPrologue + R"(
  setp.ge.u32 %p1, %r0, %r1;
  @%p1 bra DONE;
  add.s64 %rd3, %rd1, %rd0;
  ld.global.u32 %r3, [%rd3];
  rem.u32 %r4, %r3, %r2;
  mul.wide.u32 %rd4, %r4, 4;
  add.s64 %rd5, %rd2, %rd4;
  atom.global.add.u32 %r5, [%rd5], 1;
DONE:
  ret;
}
)"));
  const uint32_t n = 200000, nbins = 37;
  std::vector<uint32_t> data(n);
  uint32_t x = 12345;
  for (auto &v : data) {
    x = x * 1664525u + 1013904223u;
    v = (x >> 8) % 1000 < 300 ? 5 : x >> 4; // a hot bin plus noise: heavy contention
  }
  std::vector<uint32_t> expect(nbins, 0);
  for (uint32_t v : data)
    ++expect[v % nbins];
  uint64_t dData = h.upload(data);
  uint64_t dBins = h.upload(std::vector<uint32_t>(nbins, 0));
  auto r = h.launch(m, "hist", {(n + 255) / 256, 1, 1}, {256, 1, 1}, dData, dBins, n, nbins);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(h.download<uint32_t>(dBins, nbins), expect);
}

TEST(Atomic, CasLoopCountersHandOutEveryTicketOnce) {
  VmHarness h;
  h.options.threads = 4;
  // Lock-free increment with a CAS retry loop; each thread records the ticket it won.
  auto &m = h.load(sm90Module(std::string(R"(
.visible .entry tickets(.param .u64 ctr, .param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [ctr];
  ld.param.u64 %rd2, [out];
)") + kPrologue + R"(
  atom.global.or.b32 %r1, [%rd1], 0;
RETRY:
  add.u32 %r2, %r1, 1;
  atom.global.cas.b32 %r3, [%rd1], %r1, %r2;
  setp.ne.u32 %p1, %r3, %r1;
  mov.u32 %r1, %r3;
  @%p1 bra RETRY;
  add.s64 %rd3, %rd2, %rd0;
  st.global.u32 [%rd3], %r1;
  ret;
}
)"));
  const uint32_t ctas = 40, block = 96, n = ctas * block;
  uint64_t ctr = h.upload(std::vector<uint32_t>{0});
  uint64_t out = h.zeros<uint32_t>(n);
  auto r = h.launch(m, "tickets", {ctas, 1, 1}, {block, 1, 1}, ctr, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(h.download<uint32_t>(ctr, 1)[0], n);
  auto t = h.download<uint32_t>(out, n);
  std::sort(t.begin(), t.end());
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(t[i], i);
}

TEST(Atomic, Cas64AndExchangeInLaneOrder) {
  VmHarness h;
  auto &m = h.load(sm90Module(R"(
.visible .entry k(.param .u64 buf, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [buf];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd3, %r1;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd2, %rd4;
  // exch: every lane swaps its id + 0x100000000 in; lane k sees lane k-1's value.
  add.s64 %rd6, %rd3, 4294967296;
  atom.global.exch.b64 %rd7, [%rd1], %rd6;
  st.global.u64 [%rd5], %rd7;
  // cas: only the lane whose compare value matches (lane 7) swaps.
  add.s64 %rd8, %rd3, 1000;
  atom.global.cas.b64 %rd9, [%rd1+8], %rd8, %rd3;
  st.global.u64 [%rd5+256], %rd9;
  ret;
}
)"));
  uint64_t buf = h.upload(std::vector<uint64_t>{77, 1007});
  uint64_t out = h.zeros<uint64_t>(64);
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, buf, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto o = h.download<uint64_t>(out, 64);
  auto b = h.download<uint64_t>(buf, 2);
  uint64_t mem = 77, mem2 = 1007;
  for (uint64_t lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(o[lane], mem) << lane;
    mem = lane + (uint64_t{1} << 32);
    EXPECT_EQ(o[32 + lane], mem2) << lane;
    if (mem2 == lane + 1000)
      mem2 = lane;
  }
  EXPECT_EQ(b[0], mem);
  EXPECT_EQ(b[1], 7u);
}

TEST(Atomic, IncDecWrapInLaneOrder) {
  VmHarness h;
  auto &m = h.load(sm90Module(R"(
.visible .entry k(.param .u64 buf, .param .u64 out, .param .u32 bi, .param .u32 bd)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [buf];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r5, [bi];
  ld.param.u32 %r6, [bd];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  atom.global.inc.u32 %r2, [%rd1], %r5;
  atom.global.dec.u32 %r3, [%rd1+4], %r6;
  st.global.u32 [%rd4], %r2;
  st.global.u32 [%rd4+256], %r3;
  ret;
}
)"));
  const uint32_t bi = 4, bd = 5;
  // Starting values outside [0, b] too: inc resets to 0 from anything >= b, dec reloads b above it.
  for (uint32_t start : {0u, 2u, 9u}) {
    uint64_t buf = h.upload(std::vector<uint32_t>{start, start});
    uint64_t out = h.zeros<uint32_t>(128);
    auto r = h.launch(m, "k", {1, 1, 1}, {64, 1, 1}, buf, out, bi, bd);
    ASSERT_TRUE(r.ok()) << describe(r);
    auto o = h.download<uint32_t>(out, 128);
    uint32_t inc = start, dec = start;
    for (int i = 0; i < 64; ++i) {
      EXPECT_EQ(o[i], inc) << "inc " << start << " " << i;
      EXPECT_EQ(o[64 + i], dec) << "dec " << start << " " << i;
      inc = inc >= bi ? 0 : inc + 1;
      dec = (dec == 0 || dec > bd) ? bd : dec - 1;
    }
    auto b = h.download<uint32_t>(buf, 2);
    EXPECT_EQ(b[0], inc);
    EXPECT_EQ(b[1], dec);
  }
}

TEST(Atomic, IncDecAcrossWorkersEndInTheModularCount) {
  VmHarness h;
  h.options.threads = 4;
  auto &m = h.load(sm90Module(R"(
.visible .entry k(.param .u64 buf)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf];
  red.global.inc.u32 [%rd1], 99;
  atom.global.dec.u32 %r1, [%rd1+4], 99;
  ret;
}
)"));
  uint64_t buf = h.upload(std::vector<uint32_t>{0, 0});
  const uint32_t ctas = 64, block = 128, n = ctas * block;
  auto r = h.launch(m, "k", {ctas, 1, 1}, {block, 1, 1}, buf);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto b = h.download<uint32_t>(buf, 2);
  EXPECT_EQ(b[0], n % 100);
  EXPECT_EQ(b[1], (100 - n % 100) % 100);
}

const char *kFloatAdd = R"(
.visible .entry k(.param .u64 acc, .param .u64 vals, .param .u64 old)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<4>;
  .reg .f64 %fd<4>;
  ld.param.u64 %rd1, [acc];
  ld.param.u64 %rd2, [vals];
  ld.param.u64 %rd5, [old];
PROLOGUE
  add.s64 %rd3, %rd2, %rd0;
  ld.global.f32 %f1, [%rd3];
  atom.global.add.f32 %f2, [%rd1], %f1;
  add.s64 %rd6, %rd5, %rd0;
  st.global.f32 [%rd6], %f2;
  cvt.f64.f32 %fd1, %f1;
  red.global.add.f64 [%rd1+8], %fd1;
  ret;
}
)";

TEST(Atomic, FloatAddIsExactInLaneOrderWithOneWorker) {
  VmHarness h;
  auto &m = h.load(sm90Module(replaceAll(kFloatAdd, "PROLOGUE", kPrologue)));
  const uint32_t ctas = 8, block = 64, n = ctas * block;
  std::vector<float> vals(n);
  for (uint32_t i = 0; i < n; ++i)
    vals[i] = std::ldexp(static_cast<float>((i * 2654435761u) % 1000) - 400.0f, -static_cast<int>(i % 9)) + 0.1f;
  uint64_t acc = h.upload(std::vector<double>{0.0, 0.0});
  uint64_t dv = h.upload(vals), old = h.zeros<float>(n);
  auto r = h.launch(m, "k", {ctas, 1, 1}, {block, 1, 1}, acc, dv, old);
  ASSERT_TRUE(r.ok()) << describe(r);
  // One worker: CTAs in order, a CTA's warps in order, a warp's lanes in ascending order.
  float sum = 0.0f;
  double sum64 = 0.0;
  auto o = h.download<float>(old, n);
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(std::bit_cast<uint32_t>(o[i]), std::bit_cast<uint32_t>(sum)) << i;
    sum += vals[i];
    sum64 += static_cast<double>(vals[i]);
  }
  auto accBytes = h.download<uint8_t>(acc, 16);
  float got;
  double got64;
  std::memcpy(&got, accBytes.data(), 4);
  std::memcpy(&got64, accBytes.data() + 8, 8);
  EXPECT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(sum));
  EXPECT_EQ(got64, sum64);
}

TEST(Atomic, FloatAddAcrossWorkersMatchesWithinRounding) {
  VmHarness h;
  h.options.threads = 4;
  auto &m = h.load(sm90Module(replaceAll(kFloatAdd, "PROLOGUE", kPrologue)));
  const uint32_t ctas = 64, block = 128, n = ctas * block;
  std::vector<float> vals(n);
  double exact = 0.0;
  for (uint32_t i = 0; i < n; ++i) {
    vals[i] = 0.25f + static_cast<float>(i % 17) * 0.125f; // exactly summable in f32 and f64
    exact += vals[i];
  }
  uint64_t acc = h.upload(std::vector<double>{0.0, 0.0});
  uint64_t dv = h.upload(vals), old = h.zeros<float>(n);
  auto r = h.launch(m, "k", {ctas, 1, 1}, {block, 1, 1}, acc, dv, old);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto accBytes = h.download<uint8_t>(acc, 16);
  float got;
  double got64;
  std::memcpy(&got, accBytes.data(), 4);
  std::memcpy(&got64, accBytes.data() + 8, 8);
  EXPECT_NEAR(got, exact, exact * 1e-6);
  EXPECT_EQ(got64, exact); // every partial sum is exact in f64
  // Every old value is a distinct partial sum: sorted, they are strictly increasing.
  auto o = h.download<float>(old, n);
  std::sort(o.begin(), o.end());
  EXPECT_EQ(o[0], 0.0f);
  for (uint32_t i = 1; i < n; ++i)
    ASSERT_LT(o[i - 1], o[i]) << i;
}

TEST(Atomic, F32AddFlushesSubnormalsOnGlobalNotShared) {
  VmHarness h;
  auto &m = h.load(sm90Module(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<8>;
  .shared .align 4 .f32 s;
  ld.param.u64 %rd1, [out];
  mov.f32 %f1, 0f00000010;
  st.shared.f32 [s], 0f00000000;
  atom.shared.add.f32 %f2, [s], %f1;
  ld.shared.f32 %f3, [s];
  st.global.f32 [%rd1], %f3;
  atom.global.add.f32 %f4, [%rd1+4], %f1;
  ld.global.f32 %f5, [%rd1+4];
  st.global.f32 [%rd1+8], %f5;
  ret;
}
)"));
  uint64_t out = h.upload(std::vector<uint32_t>{0, 0, 0});
  auto r = h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto o = h.download<uint32_t>(out, 3);
  EXPECT_EQ(o[0], 0x10u);
  EXPECT_EQ(o[2], 0u);
}

TEST(Atomic, SharedHistogramThenGlobalReduction) {
  VmHarness h;
  h.options.threads = 4;
  auto &m = h.load(sm90Module(std::string(R"(
.visible .entry k(.param .u64 data, .param .u64 bins)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  .shared .align 4 .b32 sh[16];
  ld.param.u64 %rd1, [data];
  ld.param.u64 %rd2, [bins];
  mov.u32 %r12, %tid.x;
  setp.lt.u32 %p1, %r12, 16;
  mov.u32 %r13, sh;
  mad.lo.s32 %r14, %r12, 4, %r13;
  @%p1 st.shared.u32 [%r14], 0;
  bar.sync 0;
)") + kPrologue + R"(
  add.s64 %rd3, %rd1, %rd0;
  ld.global.u32 %r3, [%rd3];
  and.b32 %r4, %r3, 15;
  mad.lo.s32 %r5, %r4, 4, %r13;
  atom.shared.add.u32 %r6, [%r5], 1;
  bar.sync 0;
  @!%p1 bra DONE;
  ld.shared.u32 %r7, [%r14];
  mul.wide.u32 %rd4, %r12, 4;
  add.s64 %rd5, %rd2, %rd4;
  red.global.add.u32 [%rd5], %r7;
DONE:
  ret;
}
)"));
  const uint32_t ctas = 50, block = 128, n = ctas * block;
  std::vector<uint32_t> data(n);
  std::vector<uint32_t> expect(16, 0);
  for (uint32_t i = 0; i < n; ++i) {
    data[i] = (i * 7919u) ^ (i >> 3);
    ++expect[data[i] & 15];
  }
  uint64_t dd = h.upload(data), bins = h.upload(std::vector<uint32_t>(16, 0));
  auto r = h.launch(m, "k", {ctas, 1, 1}, {block, 1, 1}, dd, bins);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(h.download<uint32_t>(bins, 16), expect);
}

TEST(Atomic, SharedMinMaxReturnOldValuesInLaneOrder) {
  VmHarness h;
  auto &m = h.load(sm90Module(R"(
.visible .entry k(.param .u64 vals, .param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  .shared .align 8 .b64 sh[2];
  ld.param.u64 %rd1, [vals];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.shared.u32 [sh], 0;
  @%p1 st.shared.u32 [sh+4], 0;
  @%p1 st.shared.u64 [sh+8], 0;
  bar.sync 0;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.s32 %r2, [%rd4];
  atom.shared.min.s32 %r3, [sh], %r2;
  atom.shared.max.u32 %r4, [sh+4], %r2;
  cvt.s64.s32 %rd6, %r2;
  atom.shared.max.s64 %rd7, [sh+8], %rd6;
  add.s64 %rd5, %rd2, %rd3;
  st.global.s32 [%rd5], %r3;
  st.global.u32 [%rd5+128], %r4;
  cvt.u32.u64 %r5, %rd7;
  st.global.u32 [%rd5+256], %r5;
  ret;
}
)"));
  std::vector<int32_t> vals(32);
  for (int i = 0; i < 32; ++i)
    vals[i] = ((i * 37) % 23 - 11) * (1 + i);
  uint64_t dv = h.upload(vals), out = h.zeros<int32_t>(96);
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, dv, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto o = h.download<int32_t>(out, 96);
  int32_t mn = 0;
  uint32_t mx = 0;
  int64_t mx64 = 0;
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(o[i], mn) << i;
    EXPECT_EQ(static_cast<uint32_t>(o[32 + i]), mx) << i;
    EXPECT_EQ(o[64 + i], static_cast<int32_t>(mx64)) << i;
    mn = std::min(mn, vals[i]);
    mx = std::max(mx, static_cast<uint32_t>(vals[i]));
    mx64 = std::max<int64_t>(mx64, vals[i]);
  }
}

TEST(Atomic, ReductionsOfEveryOperation) {
  VmHarness h;
  h.options.threads = 4;
  auto &m = h.load(sm90Module(std::string(R"(
.visible .entry k(.param .u64 w, .param .u64 d)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [w];
  ld.param.u64 %rd2, [d];
)") + kPrologue + R"(
  and.b32 %r1, %r0, 31;
  mov.u32 %r2, 1;
  shl.b32 %r3, %r2, %r1;
  red.global.or.b32 [%rd1], %r3;
  not.b32 %r4, %r3;
  red.global.and.b32 [%rd1+4], %r4;
  red.global.xor.b32 [%rd1+8], %r0;
  sub.s32 %r5, %r0, 5000;
  mul.lo.s32 %r5, %r5, 3;
  red.global.min.s32 [%rd1+12], %r5;
  red.global.max.s32 [%rd1+16], %r5;
  red.global.min.u32 [%rd1+20], %r5;
  red.global.max.u32 [%rd1+24], %r5;
  red.global.add.s32 [%rd1+28], %r5;
  cvt.s64.s32 %rd3, %r5;
  mul.lo.s64 %rd3, %rd3, 1000003;
  red.global.add.u64 [%rd2], %rd3;
  red.global.min.s64 [%rd2+8], %rd3;
  red.global.max.s64 [%rd2+16], %rd3;
  red.global.min.u64 [%rd2+24], %rd3;
  red.global.max.u64 [%rd2+32], %rd3;
  red.global.and.b64 [%rd2+40], %rd3;
  red.global.or.b64 [%rd2+48], %rd3;
  red.global.xor.b64 [%rd2+56], %rd3;
  ret;
}
)"));
  const uint32_t ctas = 40, block = 256, n = ctas * block;
  std::vector<uint32_t> w{0, 0xffffffffu, 0, 0x7fffffff, 0x80000000u, 0xffffffffu, 0, 0};
  std::vector<uint64_t> d{0, uint64_t(INT64_MAX), uint64_t(INT64_MIN), UINT64_MAX, 0, UINT64_MAX, 0, 0};
  uint64_t dw = h.upload(w), dd = h.upload(d);
  for (uint32_t i = 0; i < n; ++i) {
    int32_t v = (static_cast<int32_t>(i) - 5000) * 3;
    w[0] |= 1u << (i & 31);
    w[1] &= ~(1u << (i & 31));
    w[2] ^= i;
    w[3] = static_cast<uint32_t>(std::min(static_cast<int32_t>(w[3]), v));
    w[4] = static_cast<uint32_t>(std::max(static_cast<int32_t>(w[4]), v));
    w[5] = std::min(w[5], static_cast<uint32_t>(v));
    w[6] = std::max(w[6], static_cast<uint32_t>(v));
    w[7] += static_cast<uint32_t>(v);
    int64_t v64 = static_cast<int64_t>(v) * 1000003;
    uint64_t u64 = static_cast<uint64_t>(v64);
    d[0] += u64;
    d[1] = static_cast<uint64_t>(std::min(static_cast<int64_t>(d[1]), v64));
    d[2] = static_cast<uint64_t>(std::max(static_cast<int64_t>(d[2]), v64));
    d[3] = std::min(d[3], u64);
    d[4] = std::max(d[4], u64);
    d[5] &= u64;
    d[6] |= u64;
    d[7] ^= u64;
  }
  auto r = h.launch(m, "k", {ctas, 1, 1}, {block, 1, 1}, dw, dd);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(h.download<uint32_t>(dw, 8), w);
  EXPECT_EQ(h.download<uint64_t>(dd, 8), d);
}

TEST(Atomic, GenericAddressesReachGlobalAndShared) {
  VmHarness h;
  auto &m = h.load(sm90Module(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  .shared .align 4 .b32 s;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.shared.u32 [s], 100;
  bar.sync 0;
  cvta.shared.u64 %rd2, s;
  atom.add.u32 %r2, [%rd2], %r1;
  atom.max.s32 %r3, [%rd1+4], %r1;
  bar.sync 0;
  @!%p1 bra DONE;
  ld.shared.u32 %r4, [s];
  st.global.u32 [%rd1], %r4;
DONE:
  ret;
}
)"));
  uint64_t out = h.upload(std::vector<int32_t>{0, -5});
  auto r = h.launch(m, "k", {1, 1, 1}, {64, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto o = h.download<int32_t>(out, 2);
  EXPECT_EQ(o[0], 100 + 63 * 64 / 2);
  EXPECT_EQ(o[1], 63);
}

TEST(Atomic, HalfAndPackedHalfAdd) {
  VmHarness h;
  auto &m = h.load(sm90Module(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b16 %h<8>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.b16 %h1, 0x3c00;
  atom.global.add.noftz.f16 %h2, [%rd1], %h1;
  mov.b16 %h3, 0x3f80;
  red.global.add.noftz.bf16 [%rd1+2], %h3;
  mov.b32 %r1, 0x40003c00;
  atom.global.add.noftz.f16x2 %r2, [%rd1+4], %r1;
  mov.b32 %r3, 0x40003f80;
  atom.add.noftz.bf16x2 %r4, [%rd1+8], %r3;
  atom.global.cas.b16 %h4, [%rd1+12], 0x1234, 0x5678;
  mov.u32 %r5, %tid.x;
  mul.wide.u32 %rd2, %r5, 2;
  add.s64 %rd3, %rd1, %rd2;
  st.global.b16 [%rd3+16], %h2; // element 8 + lane
  ret;
}
)"));
  uint64_t out = h.upload(std::vector<uint16_t>(16 + 32, 0));
  {
    std::vector<uint16_t> init(48, 0);
    init[6] = 0x1234;
    h.device.copyToDevice(out, std::as_bytes(std::span(init)));
  }
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto o = h.download<uint16_t>(out, 48);
  EXPECT_EQ(o[0], 0x5000); // 32.0 in f16
  EXPECT_EQ(o[1], 0x4200); // 32.0 in bf16
  EXPECT_EQ(o[2], 0x5000); // low half: 32 x 1.0
  EXPECT_EQ(o[3], 0x5400); // high half: 32 x 2.0 = 64.0
  EXPECT_EQ(o[4], 0x4200);
  EXPECT_EQ(o[5], 0x4280); // 64.0 in bf16
  EXPECT_EQ(o[6], 0x5678);
  // Old values of the f16 add in lane order: 0, 1, 2, ... 31 as f16.
  const uint16_t f16Ints[] = {0x0000, 0x3c00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600, 0x4700};
  for (int lane = 0; lane < 8; ++lane)
    EXPECT_EQ(o[8 + lane], f16Ints[lane]) << lane;
}

TEST(Atomic, VectorF32Add) {
  VmHarness h;
  auto &m = h.load(replaceAll(sm90Module(R"(
.visible .entry k(.param .u64 out)
{
  .reg .f32 %f<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0f40000000;
  mov.f32 %f3, 0f40400000;
  mov.f32 %f4, 0f40800000;
  atom.global.v4.f32.add {%f5, %f6, %f7, %f8}, [%rd1], {%f1, %f2, %f3, %f4};
  red.global.v2.f32.add [%rd1+16], {%f1, %f2};
  st.global.f32 [%rd1+24], %f8;
  ret;
}
)"),
                              ".version 8.0", ".version 8.1"));
  uint64_t out = h.upload(std::vector<float>(8, 0.0f));
  auto r = h.launch(m, "k", {1, 1, 1}, {10, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto o = h.download<float>(out, 8);
  EXPECT_EQ(o[0], 10.0f);
  EXPECT_EQ(o[1], 20.0f);
  EXPECT_EQ(o[2], 30.0f);
  EXPECT_EQ(o[3], 40.0f);
  EXPECT_EQ(o[4], 10.0f);
  EXPECT_EQ(o[5], 20.0f);
  EXPECT_EQ(o[6], 36.0f); // the last lane (9) saw 9 x 4.0
}

TEST(Atomic, MisalignedAndSharedOutOfBoundsFault) {
  VmHarness h;
  auto &m = h.load(sm90Module(R"(
.visible .entry mis(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  atom.global.add.u32 %r1, [%rd1+2], 1;
  ret;
}
.visible .entry oob(.param .u64 out)
{
  .reg .b32 %r<4>;
  .shared .align 4 .b32 s[4];
  atom.shared.add.u32 %r1, [s+16], 1;
  ret;
}
)"));
  uint64_t out = h.zeros<uint32_t>(4);
  auto r = h.launch(m, "mis", {1, 1, 1}, {1, 1, 1}, out);
  ASSERT_FALSE(r.ok());
  ASSERT_FALSE(r.faults.empty());
  EXPECT_EQ(r.faults[0].kind, vm::FaultKind::Misaligned);
  auto r2 = h.launch(m, "oob", {1, 1, 1}, {1, 1, 1}, out);
  ASSERT_FALSE(r2.ok());
  ASSERT_FALSE(r2.faults.empty());
  EXPECT_EQ(r2.faults[0].kind, vm::FaultKind::OutOfBounds);
}

struct AtomicEvents : vm::Listener {
  std::vector<vm::MemoryEvent> events;
  void onMemory(const vm::WarpRef &, const vm::MemoryEvent &e) override { events.push_back(e); }
};

TEST(Atomic, ListenerSeesAtomicAndReductionEvents) {
  VmHarness h;
  AtomicEvents listener;
  h.device.setListener(&listener);
  auto &m = h.load(sm90Module(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 8 .b64 s;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  atom.global.exch.b32 %r2, [%rd3], %r1;
  red.shared.add.u64 [s], 1;
  ret;
}
)"));
  uint64_t out = h.zeros<uint32_t>(8);
  auto r = h.launch(m, "k", {1, 1, 1}, {8, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  std::vector<vm::MemoryEvent> atomics;
  for (auto &e : listener.events)
    if (e.op == vm::MemoryOp::Atomic || e.op == vm::MemoryOp::Reduction)
      atomics.push_back(e);
  ASSERT_EQ(atomics.size(), 2u);
  EXPECT_EQ(atomics[0].op, vm::MemoryOp::Atomic);
  EXPECT_EQ(atomics[0].space, vm::Space::Global);
  EXPECT_EQ(atomics[0].width, 4);
  EXPECT_EQ(atomics[0].mask, 0xffu);
  for (int lane = 0; lane < 8; ++lane)
    EXPECT_EQ(atomics[0].addresses[lane], out + 4 * lane);
  EXPECT_EQ(atomics[1].op, vm::MemoryOp::Reduction);
  EXPECT_EQ(atomics[1].space, vm::Space::Shared);
  EXPECT_EQ(atomics[1].width, 8);
}

} // namespace
} // namespace ptxray::test
