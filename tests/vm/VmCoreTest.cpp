// The execution core: special registers, SIMT divergence and reconvergence, loops, barriers and
// shared memory, calls and recursion, and the launch checks — each against host-computed results.
#include "support/VmHarness.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

const char *kHeader = ".version 8.0\n.target sm_80\n.address_size 64\n";

TEST(VmCore, GlobalIndexAndArithmetic) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.lo.s32 %r6, %r5, 3;
  add.s32 %r6, %r6, 7;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r6;
DONE:
  ret;
}
)");
  const uint32_t n = 1000;
  uint64_t out = h.zeros<uint32_t>(n);
  auto r = h.launch(m, "k", {8, 1, 1}, {128, 1, 1}, out, n);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(out, n);
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(v[i], i * 3 + 7) << i;
}

TEST(VmCore, DivergentIfElseAndLoopReconverge) {
  VmHarness h;
  // out[i] = (i odd) ? sum(0..i) : -i ; then every lane adds 1000 after reconvergence.
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra EVEN;
  mov.u32 %r3, 0;
  mov.u32 %r4, 0;
LOOP:
  add.s32 %r3, %r3, %r4;
  add.s32 %r4, %r4, 1;
  setp.le.u32 %p2, %r4, %r1;
  @%p2 bra LOOP;
  bra JOIN;
EVEN:
  neg.s32 %r3, %r1;
JOIN:
  add.s32 %r3, %r3, 1000;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)");
  uint64_t out = h.zeros<int32_t>(64);
  auto r = h.launch(m, "k", {1, 1, 1}, {64, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<int32_t>(out, 64);
  for (int i = 0; i < 64; ++i) {
    int expect = (i % 2) ? i * (i + 1) / 2 : -i;
    EXPECT_EQ(v[i], expect + 1000) << i;
  }
}

TEST(VmCore, BarrierAndSharedMemoryReverse) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 data)
{
  .shared .align 4 .b8 tile[1024];
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [data];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r3, [%rd3];
  mov.u64 %rd4, tile;
  add.s64 %rd5, %rd4, %rd2;
  st.shared.u32 [%rd5], %r3;
  bar.sync 0;
  sub.s32 %r4, %r2, %r1;
  sub.s32 %r4, %r4, 1;
  mul.wide.u32 %rd6, %r4, 4;
  add.s64 %rd7, %rd4, %rd6;
  ld.shared.u32 %r5, [%rd7];
  st.global.u32 [%rd3], %r5;
  ret;
}
)");
  std::vector<uint32_t> in(256);
  for (uint32_t i = 0; i < 256; ++i)
    in[i] = i * 11 + 1;
  uint64_t data = h.upload(in);
  auto r = h.launch(m, "k", {1, 1, 1}, {256, 1, 1}, data);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(data, 256);
  for (uint32_t i = 0; i < 256; ++i)
    EXPECT_EQ(v[i], in[255 - i]) << i;
}

TEST(VmCore, RecursiveCallThroughParams) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.func (.param .b32 ret) fib(.param .b32 n)
{
  .reg .b32 %r<8>;
  .reg .pred %p<2>;
  ld.param.b32 %r1, [n];
  setp.lt.u32 %p1, %r1, 2;
  @%p1 bra BASE;
  sub.s32 %r2, %r1, 1;
  {
  .param .b32 a;
  .param .b32 b;
  st.param.b32 [a], %r2;
  call (b), fib, (a);
  ld.param.b32 %r3, [b];
  }
  sub.s32 %r2, %r1, 2;
  {
  .param .b32 a;
  .param .b32 b;
  st.param.b32 [a], %r2;
  call (b), fib, (a);
  ld.param.b32 %r4, [b];
  }
  add.s32 %r5, %r3, %r4;
  st.param.b32 [ret], %r5;
  ret;
BASE:
  st.param.b32 [ret], %r1;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  {
  .param .b32 a;
  .param .b32 b;
  st.param.b32 [a], %r1;
  call (b), fib, (a);
  ld.param.b32 %r2, [b];
  }
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)");
  uint64_t out = h.zeros<uint32_t>(20);
  auto r = h.launch(m, "k", {1, 1, 1}, {20, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(out, 20);
  uint32_t f[20] = {0, 1};
  for (int i = 2; i < 20; ++i)
    f[i] = f[i - 1] + f[i - 2];
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(v[i], f[i]) << i;
}

// A recursion whose frames hold a 128-byte local array: ptxas cannot size its stack, so the launch
// gets cudaLimitStackSize (1024 bytes by default) per thread, as an H200 does
// (validation/conventions/results/stack.txt); a kernel calling the same frames without recursion
// gets what they need.
constexpr const char *kDeepFrames = R"(
.func (.param .b32 ret) down(.param .b32 n)
{
  .local .align 4 .b8 buf[128];
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.b32 %r1, [n];
  mov.u64 %rd1, buf;
  st.local.u32 [%rd1+124], %r1;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra BASE;
  sub.s32 %r2, %r1, 1;
  {
  .param .b32 a;
  .param .b32 b;
  st.param.b32 [a], %r2;
  call (b), down, (a);
  ld.param.b32 %r3, [b];
  }
  ld.local.u32 %r4, [%rd1+124];
  add.s32 %r5, %r3, %r4;
  st.param.b32 [ret], %r5;
  ret;
BASE:
  st.param.b32 [ret], %r1;
  ret;
}
.func (.param .b32 ret) leaf(.param .b32 n)
{
  .local .align 4 .b8 buf[4096];
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [n];
  st.local.u32 [buf+4092], %r1;
  ld.local.u32 %r2, [buf+4092];
  st.param.b32 [ret], %r2;
  ret;
}
.visible .entry deep(.param .u64 out, .param .u32 depth)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [depth];
  {
  .param .b32 a;
  .param .b32 b;
  st.param.b32 [a], %r1;
  call (b), down, (a);
  ld.param.b32 %r2, [b];
  }
  st.global.u32 [%rd1], %r2;
  ret;
}
.visible .entry wide(.param .u64 out, .param .u32 v)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [v];
  {
  .param .b32 a;
  .param .b32 b;
  st.param.b32 [a], %r1;
  call (b), leaf, (a);
  ld.param.b32 %r2, [b];
  }
  st.global.u32 [%rd1], %r2;
  ret;
}
)";

TEST(VmCore, RecursionGetsTheStackLimitAndNoMore) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + kDeepFrames);
  uint64_t out = h.zeros<uint32_t>(1);
  auto shallow = h.launch(m, "deep", {1, 1, 1}, {32, 1, 1}, out, 3u);
  ASSERT_TRUE(shallow.ok()) << describe(shallow);
  EXPECT_EQ(h.download<uint32_t>(out, 1)[0], 3u + 2 + 1);
  // Eight frames of more than 128 bytes are past 1024.
  auto deep = h.launch(m, "deep", {1, 1, 1}, {32, 1, 1}, out, 8u);
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.faults[0].kind, vm::FaultKind::StackOverflow) << describe(deep);
  EXPECT_NE(deep.faults[0].detail.find("its stack is the stack-size limit, 1024 bytes"), std::string::npos)
      << deep.faults[0].detail;
  // cudaDeviceSetLimit(cudaLimitStackSize, 4096) in the runtime's terms.
  h.options.stackLimitBytes = 4096;
  auto raised = h.launch(m, "deep", {1, 1, 1}, {32, 1, 1}, out, 20u);
  ASSERT_TRUE(raised.ok()) << describe(raised);
  EXPECT_EQ(h.download<uint32_t>(out, 1)[0], 20u * 21 / 2);
  // No recursion: a 4 KiB frame runs under a 1 KiB limit, as the driver sizes its stack from ptxas's.
  h.options.stackLimitBytes = 1024;
  auto wide = h.launch(m, "wide", {1, 1, 1}, {32, 1, 1}, out, 77u);
  ASSERT_TRUE(wide.ok()) << describe(wide);
  EXPECT_EQ(h.download<uint32_t>(out, 1)[0], 77u);
}

TEST(VmCore, OutOfBoundsStoreIsReportedWithThreadAndAllocation) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)");
  uint64_t out = h.zeros<uint32_t>(30);
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, out);
  ASSERT_EQ(r.status, vm::LaunchStatus::Faulted);
  ASSERT_EQ(r.faults.size(), 1u);
  const vm::Fault &f = r.faults[0];
  EXPECT_EQ(f.kind, vm::FaultKind::OutOfBounds);
  EXPECT_EQ(f.thread.x, 30u);
  EXPECT_EQ(f.address, out + 120);
  EXPECT_TRUE(f.isWrite);
  EXPECT_NE(f.detail.find("0 bytes past the end"), std::string::npos) << f.detail;
  EXPECT_NE(f.ptxLocation.find("test.ptx:"), std::string::npos);
  // memcheck mode reports both lanes and keeps going.
  h.options.continueOnError = true;
  r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, out);
  ASSERT_EQ(r.faults.size(), 2u) << describe(r);
  EXPECT_EQ(r.faults[1].thread.x, 31u);
}

TEST(VmCore, BarrierInDivergentCodeIsReported) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra SKIP;
  bar.sync 0;
SKIP:
  ret;
}
)");
  auto r = h.launch(m, "k", {1, 1, 1}, {64, 1, 1});
  ASSERT_EQ(r.status, vm::LaunchStatus::Faulted) << describe(r);
  EXPECT_EQ(r.faults[0].kind, vm::FaultKind::BarrierDivergence);
}

TEST(VmCore, RunawayLoopStopsAtBudget) {
  VmHarness h;
  // The counter changes every iteration: no livelock to see, only the budget stops it.
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, 0;
LOOP:
  add.u32 %r1, %r1, 1;
  bra.uni LOOP;
}
.visible .entry still()
{
LOOP:
  bra.uni LOOP;
}
)");
  h.options.maxInstructions = 1'000'000;
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1});
  ASSERT_EQ(r.status, vm::LaunchStatus::Faulted);
  EXPECT_EQ(r.faults[0].kind, vm::FaultKind::InstructionLimit);
  // A loop whose state never changes is a hang, known as one long before the budget runs out.
  r = h.launch(m, "still", {1, 1, 1}, {32, 1, 1});
  ASSERT_EQ(r.status, vm::LaunchStatus::Faulted);
  EXPECT_EQ(r.faults[0].kind, vm::FaultKind::Livelock);
  EXPECT_LT(r.threadInstructions, 1'000'000u);
}

TEST(VmCore, LaunchChecksLikeTheDriver) {
  VmHarness h;
  auto &m = h.load(std::string(kHeader) + ".visible .entry k(.param .u32 a) .maxntid 128, 1, 1 { ret; }\n");
  auto r = h.launch(m, "k", {1, 1, 1}, {2048, 1, 1}, 1u);
  EXPECT_EQ(r.status, vm::LaunchStatus::Refused);
  EXPECT_NE(r.error.find("1024"), std::string::npos) << r.error;
  r = h.launch(m, "k", {1, 1, 1}, {256, 1, 1}, 1u);
  EXPECT_EQ(r.status, vm::LaunchStatus::Refused);
  EXPECT_NE(r.error.find(".maxntid"), std::string::npos) << r.error;
  r = h.launch(m, "k", {1, 1, 1}, {128, 1, 1}, uint64_t{1});
  EXPECT_EQ(r.status, vm::LaunchStatus::Refused);
  EXPECT_NE(r.error.find("parameter 0"), std::string::npos) << r.error;
  r = h.launch(m, "k", {1, 1, 1}, {128, 1, 1}, 1u);
  EXPECT_TRUE(r.ok()) << describe(r);
}

// %clock64 and %globaltimer read the modeled clock (LaunchClock): the launch's start plus the warp's
// own instructions at the dependent-issue latency (4 cycles on 9.0), in nanoseconds at the SM clock.
// A warp that waits on the clock for 200000 cycles issues about 50000 instructions, and the launch
// says how long it waited.
TEST(VmCore, ClockRegistersReadTheModeledClock) {
  VmHarness h("sm_90");
  auto &m = h.load(std::string(kHeader) + R"(
.visible .entry k(.param .u64 out, .param .u64 wait)
{
  .reg .b64 %rd<10>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [wait];
  mov.u64 %rd3, %clock64;
  mov.u64 %rd4, %globaltimer;
  mov.u64 %rd5, %clock64;
  mov.u64 %rd6, %rd5;
SPIN:
  mov.u64 %rd6, %clock64;
  sub.s64 %rd7, %rd6, %rd5;
  setp.lt.s64 %p1, %rd7, %rd2;
  @%p1 bra SPIN;
  st.global.u64 [%rd1], %rd3;
  st.global.u64 [%rd1+8], %rd4;
  st.global.u64 [%rd1+16], %rd5;
  st.global.u64 [%rd1+24], %rd6;
  ret;
}
)");
  uint64_t out = h.zeros<uint64_t>(4);
  h.options.clock.startCycles = 1'000'000;
  h.options.clock.startNanoseconds = 5'000'000'000;
  h.options.clock.smClockHz = 2e9;
  const uint64_t wait = 200'000;
  auto r = h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, out, wait);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint64_t>(out, 4);
  // A read counts the instructions issued up to and including its own: the first is the third
  // instruction (after two ld.param), 3 x 4 cycles.
  EXPECT_EQ(v[0], 1'000'000u + 3 * 4);
  // The fourth instruction: 4 x 4 cycles = 16 cycles at 2 GHz = 8 ns.
  EXPECT_EQ(v[1], 5'000'000'000u + 8);
  EXPECT_EQ(v[2], 1'000'000u + 5 * 4);
  // The loop (4 instructions, 16 cycles a turn) ends at the first read at least `wait` later.
  EXPECT_GE(v[3] - v[2], wait);
  EXPECT_LT(v[3] - v[2], wait + 16);
  // The launch waited until that last read: the read at instruction count (v[3] - start) / 4.
  EXPECT_EQ(r.clockCycles, v[3] - 1'000'000u);
  // Deterministic: the same values on every run and with any number of workers.
  h.options.threads = 4;
  auto again = h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, out, wait);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(h.download<uint64_t>(out, 4), v);
}

} // namespace
} // namespace ptxray::test
