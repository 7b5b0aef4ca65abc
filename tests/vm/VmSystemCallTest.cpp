// vprintf, malloc/free and __assertfail through the .param calling sequence of
// ptx-interoperability.md §3, written the way nvcc emits them.
#include "support/VmHarness.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <sstream>

namespace ptxray::test {
namespace {

const char *kPrintf = R"(
.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 $str[37] = {116, 105, 100, 32, 37, 100, 32, 104, 101, 120, 32, 37, 48, 56, 120, 32, 119, 105, 100, 101, 32, 37, 108, 108, 100, 32, 115, 61, 37, 115, 32, 37, 99, 37, 37, 10, 0};
.global .align 1 .b8 $name[3] = {111, 107, 0};
.visible .entry k()
{
  .local .align 8 .b8 __local_depot0[32];
  .reg .b64 %SP;
  .reg .b64 %SPL;
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  mov.u64 %SPL, __local_depot0;
  cvta.local.u64 %SP, %SPL;
  mov.u32 %r1, %tid.x;
  mul.lo.s32 %r2, %r1, 4096;
  add.s32 %r2, %r2, 10;
  cvt.u64.u32 %rd1, %r1;
  mul.lo.s64 %rd1, %rd1, -1000000000000;
  st.local.u32 [%SPL], %r1;
  st.local.u32 [%SPL+4], %r2;
  st.local.u64 [%SPL+8], %rd1;
  mov.u64 %rd2, $name;
  cvta.global.u64 %rd3, %rd2;
  st.local.u64 [%SPL+16], %rd3;
  mov.u32 %r3, 90;
  st.local.u32 [%SPL+24], %r3;
  mov.u64 %rd4, $str;
  cvta.global.u64 %rd5, %rd4;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd5;
  .param .b64 param1;
  st.param.b64 [param1], %SP;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  ld.param.b32 %r4, [retval0];
  }
  ret;
}
)";

TEST(VmSystemCalls, PrintfFormatsEveryLaneLikeCuda) {
  VmHarness h;
  auto &m = h.load(kPrintf);
  auto r = h.launch(m, "k", {1, 1, 1}, {3, 1, 1});
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(r.printfOutput, "tid 0 hex 0000000a wide 0 s=ok Z%\n"
                            "tid 1 hex 0000100a wide -1000000000000 s=ok Z%\n"
                            "tid 2 hex 0000200a wide -2000000000000 s=ok Z%\n");
}

const char *kMalloc = R"(
.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) malloc (.param .b64 malloc_param_0);
.extern .func free (.param .b64 free_param_0);
.visible .entry k(.param .u64 out, .param .u64 bytes)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<10>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd9, [bytes];
  mov.u32 %r1, %tid.x;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd9;
  .param .b64 retval0;
  call.uni (retval0), malloc, (param0);
  ld.param.b64 %rd2, [retval0];
  }
  setp.eq.s64 %p1, %rd2, 0;
  @%p1 bra NULL;
  st.u32 [%rd2], %r1;
  ld.u32 %r2, [%rd2];
  add.s32 %r2, %r2, 100;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd2;
  call.uni free, (param0);
  }
  bra.uni STORE;
NULL:
  mov.u32 %r2, 0xffffffff;
STORE:
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r2;
  ret;
}
)";

TEST(VmSystemCalls, MallocWriteReadFree) {
  VmHarness h;
  auto &m = h.load(kMalloc);
  uint64_t out = h.zeros<uint32_t>(64);
  auto r = h.launch(m, "k", {1, 1, 1}, {64, 1, 1}, out, uint64_t{64});
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(out, 64);
  for (uint32_t i = 0; i < 64; ++i)
    EXPECT_EQ(v[i], i + 100);
}

TEST(VmSystemCalls, MallocReturnsNullWhenTheHeapIsExhausted) {
  VmHarness h;
  h.device.setHeapBytes(1024);
  auto &m = h.load(kMalloc);
  uint64_t out = h.zeros<uint32_t>(32);
  // 32 threads x 100 bytes (rounded to 112) do not fit in 1 KiB: the first 9 succeed, the rest get null.
  auto r = h.launch(m, "k", {1, 1, 1}, {32, 1, 1}, out, uint64_t{100});
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(out, 32);
  int nulls = static_cast<int>(std::count(v.begin(), v.end(), 0xffffffffu));
  EXPECT_EQ(nulls, 32 - 9);
}

// One thread mallocs `bytes`, optionally frees the block, then stores a word at `offset` into it;
// `second` != 0 mallocs 16 more bytes and writes the two addresses to out[0] and out[1] instead.
const char *kHeapAccess = R"(
.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) malloc (.param .b64 malloc_param_0);
.extern .func free (.param .b64 free_param_0);
.visible .entry k(.param .u64 out, .param .u64 bytes, .param .u64 offset, .param .u32 freeFirst, .param .u32 second)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<10>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [bytes];
  ld.param.u64 %rd3, [offset];
  ld.param.u32 %r1, [freeFirst];
  ld.param.u32 %r2, [second];
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd2;
  .param .b64 retval0;
  call.uni (retval0), malloc, (param0);
  ld.param.b64 %rd4, [retval0];
  }
  setp.ne.s32 %p2, %r2, 0;
  @%p2 bra SECOND;
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra STORE;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd4;
  call.uni free, (param0);
  }
STORE:
  add.s64 %rd5, %rd4, %rd3;
  st.global.u32 [%rd5], 7;
  ret;
SECOND:
  {
  .param .b64 param0;
  st.param.b64 [param0], 16;
  .param .b64 retval0;
  call.uni (retval0), malloc, (param0);
  ld.param.b64 %rd6, [retval0];
  }
  st.global.u64 [%rd1], %rd4;
  st.global.u64 [%rd1+8], %rd6;
  ret;
}
)";

// compute-sanitizer reports these on an H200 (issue #31): the heap is one allocation, but its blocks
// are what a kernel may touch.
TEST(VmSystemCalls, HeapAccessesAreCheckedAgainstTheBlocksMallocReturned) {
  VmHarness h;
  auto &m = h.load(kHeapAccess);
  uint64_t out = h.zeros<uint64_t>(2);
  auto run = [&](uint64_t bytes, uint64_t offset, uint32_t freeFirst) {
    return h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, out, bytes, offset, freeFirst, uint32_t{0});
  };
  auto inside = run(16, 12, 0);
  EXPECT_TRUE(inside.ok()) << describe(inside);
  auto past = run(16, 16, 0);
  ASSERT_EQ(past.faults.size(), 1u);
  EXPECT_EQ(past.faults[0].kind, vm::FaultKind::OutOfBounds);
  EXPECT_NE(past.faults[0].detail.find("after the 16-byte block malloc returned"), std::string::npos)
      << past.faults[0].detail;
  // Past the bytes asked for, inside the 16-byte rounding: still outside the block.
  auto rounding = run(10, 8, 0);
  ASSERT_EQ(rounding.faults.size(), 1u);
  EXPECT_EQ(rounding.faults[0].kind, vm::FaultKind::OutOfBounds);
  auto zero = run(0, 0, 0);
  ASSERT_EQ(zero.faults.size(), 1u);
  EXPECT_EQ(zero.faults[0].kind, vm::FaultKind::OutOfBounds);
  auto afterFree = run(16, 0, 1);
  ASSERT_EQ(afterFree.faults.size(), 1u);
  EXPECT_EQ(afterFree.faults[0].kind, vm::FaultKind::UseAfterFree);
}

TEST(VmSystemCalls, MallocOfMoreThanTheHeapFailsWithoutWrapping) {
  VmHarness h;
  auto &m = h.load(kHeapAccess);
  uint64_t out = h.zeros<uint64_t>(2);
  auto r = h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, out, UINT64_MAX, uint64_t{0}, uint32_t{0}, uint32_t{1});
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint64_t>(out, 2);
  EXPECT_EQ(v[0], 0u); // malloc(SIZE_MAX) rounded up to 0 bytes once, and shared its address with the next
  EXPECT_NE(v[1], 0u);
}

TEST(VmSystemCalls, ManySmallMallocsAreNotQuadratic) {
  // 131072 threads x malloc(16) then free: a linear scan per call made 524288 of them take 52 s.
  VmHarness h;
  h.device.setHeapBytes(uint64_t{64} << 20);
  auto &m = h.load(kMalloc);
  const uint32_t threads = 131072;
  uint64_t out = h.zeros<uint32_t>(threads);
  auto r = h.launch(m, "k", {threads / 256, 1, 1}, {256, 1, 1}, out, uint64_t{16});
  ASSERT_TRUE(r.ok()) << describe(r);
  auto v = h.download<uint32_t>(out, threads);
  EXPECT_EQ(std::count(v.begin(), v.end(), 0xffffffffu), 0);
}

const char *kAssert = R"(
.version 8.0
.target sm_80
.address_size 64
.extern .func __assertfail (.param .b64 p0, .param .b64 p1, .param .b32 p2, .param .b64 p3, .param .b64 p4);
.global .align 1 .b8 $msg[6] = {120, 32, 60, 32, 53, 0};
.global .align 1 .b8 $file[8] = {107, 46, 99, 117, 0, 0, 0, 0};
.global .align 1 .b8 $fn[12] = {118, 111, 105, 100, 32, 107, 40, 105, 110, 116, 41, 0};
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 5;
  @%p1 bra OK;
  mov.u64 %rd1, $msg;
  cvta.global.u64 %rd2, %rd1;
  mov.u64 %rd3, $file;
  cvta.global.u64 %rd4, %rd3;
  mov.u64 %rd5, $fn;
  cvta.global.u64 %rd6, %rd5;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd2;
  .param .b64 param1;
  st.param.b64 [param1], %rd4;
  .param .b32 param2;
  st.param.b32 [param2], 17;
  .param .b64 param3;
  st.param.b64 [param3], %rd6;
  .param .b64 param4;
  st.param.b64 [param4], 1;
  call.uni __assertfail, (param0, param1, param2, param3, param4);
  }
OK:
  ret;
}
)";

TEST(VmSystemCalls, AssertFailsTheLaunchAndPrintsLikeCuda) {
  VmHarness h;
  auto &m = h.load(kAssert);
  auto r = h.launch(m, "k", {2, 1, 1}, {8, 1, 1});
  EXPECT_EQ(r.status, vm::LaunchStatus::AssertFailed);
  EXPECT_NE(r.assertOutput.find("k.cu:17: void k(int): block: [0,0,0], thread: [5,0,0] Assertion `x < 5` failed."),
            std::string::npos)
      << r.assertOutput;
  EXPECT_EQ(r.printfOutput, ""); // a GPU prints assertions on stderr, not with printf's output
  EXPECT_EQ(r.faults.front().kind, vm::FaultKind::AssertFailed);
}

} // namespace
} // namespace ptxray::test
