// Memory spaces and the memory checker: generic addressing into shared and local windows, module
// variables with initializers (including addresses of functions and other variables), constant
// banks, dynamic shared memory, and the faults a checker reports.
#include "support/VmHarness.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

TEST(VmMemory, GenericPointersReachSharedAndLocal) {
  VmHarness h;
  auto &m = h.load(R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b8 s[128];
  .local .align 4 .b8 l[16];
  .reg .b32 %r<8>;
  .reg .b64 %rd<10>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u64 %rd2, s;
  cvta.shared.u64 %rd3, %rd2;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  st.u32 [%rd5], %r1;
  mov.u64 %rd6, l;
  cvta.local.u64 %rd7, %rd6;
  add.s32 %r2, %r1, 500;
  st.u32 [%rd7+8], %r2;
  ld.local.u32 %r3, [l+8];
  add.s64 %rd8, %rd2, %rd4;
  ld.shared.u32 %r4, [%rd8];
  add.s32 %r5, %r3, %r4;
  isspacep.shared %p1, %rd5;
  isspacep.local %p2, %rd7;
  isspacep.global %p3, %rd1;
  and.pred %p1, %p1, %p2;
  and.pred %p1, %p1, %p3;
  selp.u32 %r6, 1, 0, %p1;
  mul.wide.u32 %rd8, %r1, 8;
  add.s64 %rd9, %rd1, %rd8;
  st.global.v2.u32 [%rd9], {%r5, %r6};
  ret;
}
)");
  uint64_t out = h.zeros<uint32_t>(64);
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(out, 64);
  for (uint32_t i = 0; i < 32; ++i) {
    EXPECT_EQ(v[2 * i], 2 * i + 500) << i;
    EXPECT_EQ(v[2 * i + 1], 1u) << i;
  }
}

TEST(VmMemory, AllocationsInTheHighRangeAreGlobalMemory) {
  // With the range below the windows full (an adopted range records it without mapping anything),
  // device allocations go to the high range at 2^56: loads, stores, atomics, cvta and isspacep treat
  // it as global memory, and its bounds are checked.
  VmHarness h;
  vm::DeviceMemory &memory = h.device.memory();
  const uint64_t frontier = memory.allocationFrontier();
  ASSERT_TRUE(memory.adopt(reinterpret_cast<std::byte *>(static_cast<uintptr_t>(frontier)), vm::kGlobalLimit - frontier,
                           vm::AllocationKind::Managed, "the low range"));
  auto &m = h.load(R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 sum)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd6, [sum];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd1, %rd3;
  isspacep.global %p1, %rd4;
  isspacep.local %p2, %rd4;
  selp.u32 %r2, 1, 0, %p1;
  selp.u32 %r3, 2, 0, %p2;
  or.b32 %r2, %r2, %r3;
  add.s32 %r4, %r1, 1000;
  st.v2.u32 [%rd4], {%r4, %r2};
  atom.global.add.u32 %r5, [%rd6], %r1;
  ret;
}
)");
  uint64_t out = h.zeros<uint32_t>(64);
  uint64_t sum = h.zeros<uint32_t>(1);
  ASSERT_GE(out, vm::kHighGlobalBase);
  ASSERT_GE(sum, vm::kHighGlobalBase);
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, out, sum);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(out, 64);
  for (uint32_t i = 0; i < 32; ++i) {
    EXPECT_EQ(v[2 * i], 1000 + i) << i;
    EXPECT_EQ(v[2 * i + 1], 1u) << "isspacep.global and not .local, lane " << i;
  }
  EXPECT_EQ(h.download<uint32_t>(sum, 1)[0], 31u * 32 / 2);
  // One word past the end of `sum` (a 4-byte allocation) is out of bounds, named by the allocation.
  auto past = h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, out, sum + 4);
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.faults[0].kind, vm::FaultKind::OutOfBounds) << describe(past);
}

TEST(VmMemory, ModuleVariablesConstantsAndInitializers) {
  VmHarness h;
  auto &m = h.load(R"(
.version 8.0
.target sm_80
.address_size 64
.const .align 4 .u32 table[4] = {10, 20, 30, 40};
.global .align 4 .u32 counter = 7;
.global .align 8 .u64 where = counter;
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  mov.u64 %rd3, table;
  add.s64 %rd4, %rd3, %rd2;
  ld.const.u32 %r2, [%rd4];
  ld.global.u64 %rd5, [where];
  ld.global.u32 %r3, [%rd5];
  add.s32 %r4, %r2, %r3;
  add.s64 %rd6, %rd1, %rd2;
  st.global.u32 [%rd6], %r4;
  ret;
}
)");
  std::vector<uint32_t> c(1, 1000);
  h.device.writeVariable(m, "counter", std::as_bytes(std::span(c)));
  uint64_t out = h.zeros<uint32_t>(4);
  auto r = h.launch(m, "k", {1, 1, 1}, {4, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(h.download<uint32_t>(out, 4), (std::vector<uint32_t>{1010, 1020, 1030, 1040}));
  std::vector<uint32_t> back(4);
  h.device.readVariable(m, "table", std::as_writable_bytes(std::span(back)));
  EXPECT_EQ(back, (std::vector<uint32_t>{10, 20, 30, 40}));
}

const char *kDynamicShared = R"(
.version 8.0
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r5, [n];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  mov.u64 %rd3, dyn;
  add.s64 %rd4, %rd3, %rd2;
  st.shared.u32 [%rd4], %r1;
  bar.sync 0;
  sub.s32 %r2, %r5, %r1;
  sub.s32 %r2, %r2, 1;
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd3, %rd5;
  ld.shared.u32 %r3, [%rd6];
  add.s64 %rd7, %rd1, %rd2;
  st.global.u32 [%rd7], %r3;
  ret;
}
)";

TEST(VmMemory, DynamicSharedMemoryIsSizedByTheLaunch) {
  VmHarness h;
  auto &m = h.load(kDynamicShared);
  uint64_t out = h.zeros<uint32_t>(96);
  h.dynamicShared = 96 * 4;
  auto r = h.launch(m, "k", {1, 1, 1}, {96, 1, 1}, out, 96u);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(out, 96);
  for (uint32_t i = 0; i < 96; ++i)
    EXPECT_EQ(v[i], 95 - i);
  // Too little dynamic shared memory: the shared-window check reports the overrun.
  h.dynamicShared = 64 * 4;
  r = h.launch(m, "k", {1, 1, 1}, {96, 1, 1}, out, 96u);
  ASSERT_EQ(r.status, vm::LaunchStatus::Faulted);
  EXPECT_EQ(r.faults[0].kind, vm::FaultKind::OutOfBounds);
  EXPECT_EQ(r.faults[0].space, vm::Space::Shared);
  EXPECT_EQ(r.faults[0].thread.x, 64u);
}

const char *kLoad = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  ld.global.u32 %r1, [%rd1];
  ret;
}
)";

TEST(VmMemory, UseAfterFreeMisalignedAndNullAreReported) {
  VmHarness h;
  auto &m = h.load(kLoad);
  uint64_t a = h.zeros<uint32_t>(16);
  h.device.free(a);
  auto r = h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, a);
  ASSERT_EQ(r.status, vm::LaunchStatus::Faulted);
  EXPECT_EQ(r.faults[0].kind, vm::FaultKind::UseAfterFree);
  uint64_t b = h.zeros<uint32_t>(16);
  r = h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, b + 2);
  EXPECT_EQ(r.faults.at(0).kind, vm::FaultKind::Misaligned);
  r = h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, uint64_t{0});
  EXPECT_EQ(r.faults.at(0).kind, vm::FaultKind::OutOfBounds);
  EXPECT_NE(r.faults[0].detail.find("null"), std::string::npos) << r.faults[0].detail;
}

// Block 0 works a while before it writes through a null pointer; every other block does so at once.
// However the workers race, the launch reports block 0's fault (the lowest block's, as its error
// stops only the blocks after it), and the same one on every run.
TEST(VmMemory, TheFaultReportedIsTheLowestBlocksOnEveryRun) {
  VmHarness h;
  h.options.threads = 8;
  auto &m = h.load(R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u32 spins)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  .reg .pred %p<3>;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r5, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra FAULT;
  ld.param.u32 %r2, [spins];
  mov.u32 %r3, 0;
LOOP:
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p2, %r3, %r2;
  @%p2 bra LOOP;
FAULT:
  mov.u64 %rd1, 0;
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r5;
  ret;
}
)");
  for (int run = 0; run < 5; ++run) {
    auto r = h.launch(m, "k", {64, 1, 1}, {64, 1, 1}, uint32_t{200000});
    ASSERT_EQ(r.status, vm::LaunchStatus::Faulted);
    ASSERT_EQ(r.faults.size(), 1u);
    EXPECT_EQ(r.faults[0].kind, vm::FaultKind::OutOfBounds);
    EXPECT_EQ(r.faults[0].block.x, 0u) << "run " << run;
    EXPECT_EQ(r.faults[0].thread.x, 0u) << "run " << run;
  }
}

TEST(VmMemory, ThirtyTwoBitModules) {
  VmHarness h;
  auto &m = h.load(R"(
.version 4.0
.target sm_30
.address_size 32
.visible .entry k(.param .u32 out)
{
  .reg .b32 %r<8>;
  ld.param.u32 %r1, [out];
  mov.u32 %r2, %tid.x;
  shl.b32 %r3, %r2, 2;
  add.s32 %r4, %r1, %r3;
  mul.lo.s32 %r5, %r2, %r2;
  st.global.u32 [%r4], %r5;
  ret;
}
)");
  uint64_t out = h.zeros<uint32_t>(32);
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, static_cast<uint32_t>(out));
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(out, 32);
  for (uint32_t i = 0; i < 32; ++i)
    EXPECT_EQ(v[i], i * i);
}

} // namespace
} // namespace ptxray::test
