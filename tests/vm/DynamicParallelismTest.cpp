// Dynamic parallelism (CDP2) in the VM: grids that launch grids (what nvcc 13 -rdc=true emits for
// <<<>>> in device code: cudaGetParameterBufferV2, cudaLaunchDeviceV2), the nesting depth and
// pending-launch limits and the errors cudaGetLastError gives for them, determinism.
#include "support/VmHarness.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

// __global__ void recurse(int *out, int depth, int last) {
//   out[depth] = depth;
//   if (depth < last) {
//     recurse<<<1, 1>>>(out, depth + 1, last);
//     out[64 + depth] = static_cast<int>(cudaGetLastError());
//   }
// }
// nvcc 13 -rdc=true -arch=compute_90 -ptx.
const char *kRecurse = R"(.version 9.0
.target sm_90
.address_size 64
.extern .func  (.param .b32 func_retval0) __cudaCDP2GetLastError
()
;
.extern .func  (.param .b64 func_retval0) __cudaCDP2GetParameterBufferV2
(
  .param .b64 __cudaCDP2GetParameterBufferV2_param_0,
  .param .align 4 .b8 __cudaCDP2GetParameterBufferV2_param_1[12],
  .param .align 4 .b8 __cudaCDP2GetParameterBufferV2_param_2[12],
  .param .b32 __cudaCDP2GetParameterBufferV2_param_3
)
;
.extern .func  (.param .b32 func_retval0) __cudaCDP2LaunchDeviceV2
(
  .param .b64 __cudaCDP2LaunchDeviceV2_param_0,
  .param .b64 __cudaCDP2LaunchDeviceV2_param_1
)
;
.visible .entry _Z7recursePiii(
  .param .u64 _Z7recursePiii_param_0,
  .param .u32 _Z7recursePiii_param_1,
  .param .u32 _Z7recursePiii_param_2
)
{
  .reg .pred   %p<3>;
  .reg .b32   %r<6>;
  .reg .b64   %rd<7>;
  ld.param.u64   %rd3, [_Z7recursePiii_param_0];
  ld.param.u32   %r1, [_Z7recursePiii_param_1];
  ld.param.u32   %r2, [_Z7recursePiii_param_2];
  cvta.to.global.u64   %rd4, %rd3;
  mul.wide.s32   %rd5, %r1, 4;
  add.s64   %rd1, %rd4, %rd5;
  st.global.u32   [%rd1], %r1;
  setp.ge.s32   %p1, %r1, %r2;
  @%p1 bra   $L__BB0_4;
  mov.u64   %rd6, _Z7recursePiii;
  { // callseq 0, 0
  .reg .b32 temp_param_reg;
  .param .b64 param0;
  st.param.b64   [param0+0], %rd6;
  .param .align 4 .b8 param1[12];
  st.param.b32   [param1+0], 1;
  st.param.b32   [param1+4], 1;
  st.param.b32   [param1+8], 1;
  .param .align 4 .b8 param2[12];
  st.param.b32   [param2+0], 1;
  st.param.b32   [param2+4], 1;
  st.param.b32   [param2+8], 1;
  .param .b32 param3;
  st.param.b32   [param3+0], 0;
  .param .b64 retval0;
  call.uni (retval0), 
  __cudaCDP2GetParameterBufferV2, 
  (
  param0, 
  param1, 
  param2, 
  param3
  );
  ld.param.b64   %rd2, [retval0+0];
  } // callseq 0
  setp.eq.s64   %p2, %rd2, 0;
  @%p2 bra   $L__BB0_3;
  add.s32   %r3, %r1, 1;
  st.u64   [%rd2], %rd3;
  st.u32   [%rd2+8], %r3;
  st.u32   [%rd2+12], %r2;
  { // callseq 1, 0
  .reg .b32 temp_param_reg;
  .param .b64 param0;
  st.param.b64   [param0+0], %rd2;
  .param .b64 param1;
  st.param.b64   [param1+0], 0;
  .param .b32 retval0;
  call.uni (retval0), 
  __cudaCDP2LaunchDeviceV2, 
  (
  param0, 
  param1
  );
  ld.param.b32   %r4, [retval0+0];
  } // callseq 1
$L__BB0_3:
  { // callseq 2, 0
  .reg .b32 temp_param_reg;
  .param .b32 retval0;
  call.uni (retval0), 
  __cudaCDP2GetLastError, 
  (
  );
  ld.param.b32   %r5, [retval0+0];
  } // callseq 2
  st.global.u32   [%rd1+256], %r5;
$L__BB0_4:
  ret;
}
)";

TEST(DynamicParallelism, ChildGridsRunAndNest) {
  VmHarness h;
  vm::LoadedModule &m = h.load(kRecurse);
  uint64_t out = h.upload(std::vector<int32_t>(128, -1));
  vm::LaunchResult r = h.launch(m, "_Z7recursePiii", {1, 1, 1}, {1, 1, 1}, out, int32_t{0}, int32_t{5});
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(r.childGrids, 5u);
  std::vector<int32_t> got = h.download<int32_t>(out, 128);
  for (int d = 0; d <= 5; ++d)
    EXPECT_EQ(got[d], d) << "depth " << d;
  for (int d = 0; d < 5; ++d)
    EXPECT_EQ(got[64 + d], 0) << "the launch from depth " << d << " succeeded";
  EXPECT_EQ(got[6], -1);
}

TEST(DynamicParallelism, NestingDepthLimitIsAnErrorForTheLauncher) {
  VmHarness h;
  vm::LoadedModule &m = h.load(kRecurse);
  uint64_t out = h.upload(std::vector<int32_t>(128, -1));
  h.options.maxNestingDepth = 4; // grids at depths 0 to 3
  vm::LaunchResult r = h.launch(m, "_Z7recursePiii", {1, 1, 1}, {1, 1, 1}, out, int32_t{0}, int32_t{10});
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(r.childGrids, 3u);
  std::vector<int32_t> got = h.download<int32_t>(out, 128);
  EXPECT_EQ(got[3], 3);
  EXPECT_EQ(got[4], -1);
  EXPECT_EQ(got[64 + 2], 0);
  EXPECT_EQ(got[64 + 3], 65) << "cudaErrorLaunchMaxDepthExceeded";
}

TEST(DynamicParallelism, PendingLaunchLimitIsAnErrorForTheLauncher) {
  for (uint32_t limit : {2048u, 3u}) {
    VmHarness h;
    vm::LoadedModule &m = h.load(kRecurse);
    uint64_t out = h.upload(std::vector<int32_t>(128, -1));
    h.options.pendingLaunchLimit = limit;
    // 8 threads, each launching one child (depth 1, which launches nothing).
    vm::LaunchResult r = h.launch(m, "_Z7recursePiii", {1, 1, 1}, {8, 1, 1}, out, int32_t{0}, int32_t{1});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.childGrids, limit == 3 ? 3u : 8u);
    if (limit == 3) { // the last thread's launch was refused: cudaErrorLaunchPendingCountExceeded
      EXPECT_EQ(h.download<int32_t>(out, 128)[64], 69);
    }
  }
}

TEST(DynamicParallelism, AChildsFaultFailsTheLaunch) {
  VmHarness h;
  vm::LoadedModule &m = h.load(kRecurse);
  // 8 ints: the grid at depth 8 writes out of bounds.
  uint64_t out = h.upload(std::vector<int32_t>(8, -1));
  vm::LaunchResult r = h.launch(m, "_Z7recursePiii", {1, 1, 1}, {1, 1, 1}, out, int32_t{0}, int32_t{8});
  EXPECT_EQ(r.status, vm::LaunchStatus::Faulted);
  ASSERT_FALSE(r.faults.empty());
  EXPECT_EQ(r.faults.front().kind, vm::FaultKind::OutOfBounds);
}

} // namespace
} // namespace ptxray::test
