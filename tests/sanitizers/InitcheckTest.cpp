// initcheck on small PTX kernels: what counts as written (memset, kernel stores, module variables,
// the call sequence's .param values), device-heap blocks, atomics and partly written vector loads.
#include "sanitizers/Initcheck.h"
#include "support/VmHarness.h"
#include "vm/Device.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

/// A device with initcheck listening from before the module loads.
struct InitcheckRun {
  VmHarness vm;
  sanitizers::Initcheck initcheck;
  vm::LoadedModule *module = nullptr;

  explicit InitcheckRun(const std::string &body) {
    vm.device.setListener(&initcheck);
    module = &vm.load(sm90Module(body));
  }
  template <class... Args>
  std::vector<sanitizers::Hazard> launch(const std::string &kernel, uint32_t threads, Args... args) {
    vm::LaunchResult r = vm.launch(*module, kernel, {1, 1, 1}, {threads, 1, 1}, args...);
    EXPECT_TRUE(r.ok()) << describe(r);
    return initcheck.launchHazards();
  }
};

std::string describeAll(const std::vector<sanitizers::Hazard> &hazards) {
  std::string out;
  for (const sanitizers::Hazard &h : hazards)
    out += h.describe();
  return out;
}

/// out[tid] = in[tid] (u32).
const std::string kCopy = R"(
.visible .entry copy(.param .u64 in, .param .u64 out) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r2;
  ret;
}
)";

TEST(Initcheck, MemsetAndCopiesCountAsWrittenBareAllocationsDoNot) {
  InitcheckRun run(kCopy);
  const uint64_t set = run.vm.device.allocate(128, "memset buffer");
  run.vm.device.memset(set, 7, 128);
  const uint64_t copied = run.vm.upload(std::vector<uint32_t>(32, 1));
  const uint64_t bare = run.vm.device.allocate(128, "bare buffer");
  const uint64_t out = run.vm.device.allocate(128);
  EXPECT_TRUE(run.launch("copy", 32, set, out).empty());
  EXPECT_TRUE(run.launch("copy", 32, copied, out).empty());
  std::vector<sanitizers::Hazard> hazards = run.launch("copy", 32, bare, out);
  ASSERT_EQ(hazards.size(), 1u) << describeAll(hazards);
  EXPECT_EQ(hazards[0].occurrences, 32u);
  EXPECT_NE(hazards[0].describe().find("is byte 0 of bare buffer at 0x"), std::string::npos) << hazards[0].describe();
  // The first launch's stores into `out` made it written: copying it back is clean.
  EXPECT_TRUE(run.launch("copy", 32, out, bare).empty());
  EXPECT_TRUE(run.launch("copy", 32, bare, out).empty());
  EXPECT_EQ(run.initcheck.errors(), 1u);
}

TEST(Initcheck, PartlyWrittenMemoryCountsOncePerThreadAccess) {
  // A 16-byte vector load per thread of memory in which only the first int of each 16 was written.
  InitcheckRun run(R"(
.visible .entry wide(.param .u64 in, .param .u64 out) {
  .reg .b32 %r<6>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r1;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];
  add.s32 %r2, %r2, %r5;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r2;
  ret;
}
)");
  const uint64_t in = run.vm.device.allocate(32 * 16), out = run.vm.device.allocate(32 * 4);
  std::vector<sanitizers::Hazard> hazards = run.launch("wide", 32, in, out);
  ASSERT_EQ(hazards.size(), 1u) << describeAll(hazards);
  EXPECT_TRUE(hazards[0].headline.starts_with("Uninitialized __global__ memory read of size 16 bytes at "))
      << hazards[0].headline;
  EXPECT_EQ(hazards[0].occurrences, 32u);
}

TEST(Initcheck, AtomicsReadTheValueTheyReplace) {
  InitcheckRun run(R"(
.visible .entry count(.param .u64 counter) {
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [counter];
  atom.global.add.u32 %r1, [%rd1], 1;
  red.global.add.u32 [%rd1], 1;
  ret;
}
)");
  const uint64_t bare = run.vm.device.allocate(4);
  std::vector<sanitizers::Hazard> hazards = run.launch("count", 32, bare);
  // The atom of lane 0 reads the unwritten counter and writes it; everything after that is written.
  ASSERT_EQ(hazards.size(), 1u) << describeAll(hazards);
  EXPECT_EQ(hazards[0].occurrences, 1u);
  EXPECT_NE(hazards[0].describe().find("atom.global.add.u32"), std::string::npos) << hazards[0].describe();
  const uint64_t zeroed = run.vm.device.allocate(4);
  run.vm.device.memset(zeroed, 0, 4);
  EXPECT_TRUE(run.launch("count", 32, zeroed).empty());
}

TEST(Initcheck, ModuleVariablesStartWritten) {
  InitcheckRun run(R"(
.global .align 4 .b32 table[32];
.visible .entry fromTable(.param .u64 out) {
  .reg .b32 %r<3>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  mov.u64 %rd3, table;
  add.s64 %rd3, %rd3, %rd2;
  ld.global.u32 %r2, [%rd3];
  add.s64 %rd4, %rd1, %rd2;
  st.global.u32 [%rd4], %r2;
  ret;
}
)");
  EXPECT_TRUE(run.launch("fromTable", 32, run.vm.device.allocate(128)).empty());
}

/// Each thread mallocs 16 bytes, optionally stores to them, reads them back and frees them. The
/// pointer comes back through the call sequence's return value (a .param the VM fills).
const std::string kHeap = R"(
.extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);
.extern .func free(.param .b64 free_param_0);
.visible .entry heap(.param .u64 out, .param .u32 store) {
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r3, [store];
  {
    .param .b64 param0;
    st.param.b64 [param0], 16;
    .param .b64 retval0;
    call.uni (retval0), malloc, (param0);
    ld.param.b64 %rd2, [retval0];
  }
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r3, 0;
  @%p1 st.u32 [%rd2], %r1;
  ld.u32 %r2, [%rd2];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r2;
  {
    .param .b64 param0;
    st.param.b64 [param0], %rd2;
    call.uni free, (param0);
  }
  ret;
}
)";

TEST(Initcheck, HeapBlocksStartUnwrittenAtEveryMalloc) {
  InitcheckRun run(kHeap);
  const uint64_t out = run.vm.device.allocate(128);
  EXPECT_TRUE(run.launch("heap", 32, out, uint32_t{1}).empty()) << describeAll(run.initcheck.launchHazards());
  // Same blocks again (first fit), now read before anything is stored: the earlier launch's writes
  // do not count for a new block.
  std::vector<sanitizers::Hazard> hazards = run.launch("heap", 32, out, uint32_t{0});
  ASSERT_EQ(hazards.size(), 1u) << describeAll(hazards);
  EXPECT_EQ(hazards[0].occurrences, 32u);
  EXPECT_NE(hazards[0].describe().find("no store wrote it since malloc returned its block"), std::string::npos)
      << hazards[0].describe();
}

} // namespace
} // namespace ptxray::test
