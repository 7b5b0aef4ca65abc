// Static shared memory belongs to one kernel: a CTA holds exactly the .shared variables its kernel and
// the functions it can call declare or name, laid out as ptxas lays them out (ptx/SharedLayout.h), then
// the dynamic area. Checked against ptxas's own figures for every kernel of the nvcc corpus, and by
// running kernels whose results depend on each kernel having its own layout.
#include "ptx/SharedLayout.h"
#include "ptx/Parser.h"
#include "support/TestFiles.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

namespace ptxray::test {
namespace {

std::string sm35Module(const std::string &body) {
  return ".version 6.0\n.target sm_35\n.address_size 64\n" + body;
}

// Two kernels of 32 KB static shared memory each: together they exceed sm_35's 48 KB per block,
// but each CTA holds only its own array.
const char *kTwoBigKernels = R"(
.visible .entry k1(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<6>;
  .shared .align 4 .b8 big1[32768];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, big1;
  add.u32 %r3, %r3, %r2;
  st.shared.u32 [%r3], %r1;
  bar.sync 0;
  ld.shared.u32 %r1, [%r3];
  cvt.u64.u32 %rd2, %r2;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
.visible .entry k2(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<6>;
  .shared .align 4 .b8 big2[32768];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, big2;
  add.u32 %r3, %r3, %r2;
  st.shared.u32 [%r3], %r1;
  ret;
}
)";

TEST(SharedLayout, TwoKernelsOfThirtyTwoKilobytesEachRunOnSm35) {
  VmHarness vm("sm_35");
  auto &m = vm.load(sm35Module(kTwoBigKernels));
  EXPECT_EQ(m.findKernel("k1")->staticSharedBytes, 32768u);
  EXPECT_EQ(m.findKernel("k2")->staticSharedBytes, 32768u);
  uint64_t out = vm.zeros<uint32_t>(64);
  auto r = vm.launch(m, "k1", {1, 1, 1}, {64, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto got = vm.download<uint32_t>(out, 64);
  for (uint32_t i = 0; i < 64; ++i)
    EXPECT_EQ(got[i], i);
}

TEST(SharedLayout, OneKernelsOverrunFaultsInsteadOfLandingInAnothersArray) {
  // __shared__ int s[64] written by 128 threads; the module's other kernel has an array that, with one
  // module-wide layout, sat right behind s and absorbed the overrun.
  const std::string ptx = sm90Module(R"(
.visible .entry other(.param .u64 out)
{
  .reg .b32 %r<4>;
  .shared .align 4 .b8 t[256];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, t;
  add.u32 %r3, %r3, %r2;
  st.shared.u32 [%r3], %r1;
  ret;
}
.visible .entry overrun(.param .u64 out)
{
  .reg .b32 %r<4>;
  .shared .align 4 .b8 s[256];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.u32 %r3, %r3, %r2;
  st.shared.u32 [%r3], %r1;
  ret;
}
)");
  VmHarness vm;
  vm.options.continueOnError = true;
  auto &m = vm.load(ptx);
  auto r = vm.launch(m, "overrun", {1, 1, 1}, {128, 1, 1}, uint64_t{0});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.faultCount, 64u);
  ASSERT_FALSE(r.faults.empty());
  const vm::Fault &f = r.faults.front();
  EXPECT_EQ(f.kind, vm::FaultKind::OutOfBounds);
  EXPECT_EQ(f.space, vm::Space::Shared);
  EXPECT_EQ(f.thread.x, 64u);
  EXPECT_NE(f.detail.find("past the end of s (offset 0, 256 bytes)"), std::string::npos) << f.detail;
}

// A function called by two kernels names a module-scope shared array that sits at a different offset in
// each kernel's CTA (after k1's own array, at 0 in k2), once through a direct call and once through a
// function pointer. Each kernel must see its own placement: k1's array survives the callee's stores.
const char *kCalleeOfTwoKernels = R"(
.shared .align 4 .b8 common_s[128];
.func (.param .b32 ret) helper(.param .b32 tid)
{
  .reg .b32 %r<8>;
  ld.param.b32 %r1, [tid];
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, common_s;
  add.u32 %r4, %r3, %r2;
  add.u32 %r5, %r1, 100;
  st.shared.u32 [%r4], %r5;
  bar.sync 0;
  sub.u32 %r6, 31, %r1;
  shl.b32 %r6, %r6, 2;
  add.u32 %r6, %r3, %r6;
  ld.shared.u32 %r7, [%r6];
  st.param.b32 [ret], %r7;
  ret;
}
.visible .entry k1(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<8>;
  .shared .align 4 .b8 own[32];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 7;
  shl.b32 %r2, %r2, 2;
  mov.u32 %r3, own;
  add.u32 %r3, %r3, %r2;
  add.u32 %r4, %r1, 1000;
  st.shared.u32 [%r3], %r4;
  mov.u64 %rd5, helper;
  {
    .param .b32 a; .param .b32 r;
    st.param.b32 [a], %r1;
    proto: .callprototype (.param .b32 _) _ (.param .b32 _);
    call (r), %rd5, (a), proto;
    ld.param.b32 %r5, [r];
  }
  bar.sync 0;
  ld.shared.u32 %r6, [%r3];
  mul.wide.u32 %rd2, %r1, 8;
  add.u64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r5, %r6};
  ret;
}
.visible .entry k2(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  {
    .param .b32 a; .param .b32 r;
    st.param.b32 [a], %r1;
    call (r), helper, (a);
    ld.param.b32 %r5, [r];
  }
  mov.u32 %r6, %total_smem_size;
  mul.wide.u32 %rd2, %r1, 8;
  add.u64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r5, %r6};
  ret;
}
)";

TEST(SharedLayout, CalleesUseTheirKernelsPlacement) {
  VmHarness vm;
  auto &m = vm.load(sm90Module(kCalleeOfTwoKernels));
  const vm::DecodedFunction *k1 = m.findKernel("k1");
  const vm::DecodedFunction *k2 = m.findKernel("k2");
  ASSERT_TRUE(k1 && k2);
  EXPECT_EQ(k1->staticSharedBytes, 32u + 128u);
  EXPECT_EQ(k2->staticSharedBytes, 128u);
  ASSERT_EQ(k1->sharedSlots.size(), 2u);
  EXPECT_EQ(k1->sharedSlots[0].name, "own");
  EXPECT_EQ(k1->sharedSlots[1].name, "common_s");
  EXPECT_EQ(k1->sharedSlots[1].offset, 32u);
  EXPECT_EQ(k2->sharedSlots.at(0).offset, 0u);
  for (const char *kernel : {"k1", "k2"}) {
    SCOPED_TRACE(kernel);
    uint64_t out = vm.zeros<uint32_t>(64);
    auto r = vm.launch(m, kernel, {2, 1, 1}, {32, 1, 1}, out);
    ASSERT_TRUE(r.ok()) << describe(r);
    auto got = vm.download<uint32_t>(out, 64);
    for (uint32_t t = 0; t < 32; ++t) {
      EXPECT_EQ(got[2 * t], 100 + (31 - t)) << "thread " << t;
      if (std::string(kernel) == "k1")
        EXPECT_EQ(got[2 * t + 1], 1000 + 24 + (t & 7)) << "own[] of k1 overwritten, thread " << t;
      else
        EXPECT_EQ(got[2 * t + 1], 128u) << "%total_smem_size of k2";
    }
  }
}

TEST(SharedLayout, DynamicAreaFollowsEachKernelsStaticPart) {
  const std::string ptx = sm90Module(R"(
.extern .shared .align 16 .b8 dyn[];
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<6>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 small[20];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, dyn;
  mov.u32 %r2, small;
  mov.u32 %r3, %dynamic_smem_size;
  mov.u32 %r4, %total_smem_size;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  ret;
}
.visible .entry nodyn(.param .u64 out)
{
  .reg .b32 %r<2>;
  .shared .align 4 .b8 other[1000];
  mov.u32 %r1, other;
  ret;
}
)");
  VmHarness vm;
  vm.dynamicShared = 64;
  auto &m = vm.load(ptx);
  EXPECT_EQ(m.findKernel("k")->staticSharedBytes, 32u); // 20 rounded up to the extern array's 16
  // ptxas rounds every kernel of a module that declares an extern array, even one that never uses it.
  EXPECT_EQ(m.findKernel("nodyn")->staticSharedBytes, 1008u);
  uint64_t out = vm.zeros<uint32_t>(4);
  auto r = vm.launch(m, "k", {1, 1, 1}, {1, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(vm.download<uint32_t>(out, 4), (std::vector<uint32_t>{32, 0, 64, 96}));

  // Past the end of the dynamic area.
  vm.options.continueOnError = true;
  const std::string overrun = sm90Module(R"(
.extern .shared .align 4 .b8 dyn[];
.visible .entry k()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, 7;
  st.shared.u32 [dyn+64], %r1;
  ret;
}
)");
  auto &m2 = vm.load(overrun, "overrun.ptx");
  auto r2 = vm.launch(m2, "k", {1, 1, 1}, {1, 1, 1});
  ASSERT_EQ(r2.faults.size(), 1u);
  EXPECT_NE(r2.faults[0].detail.find("0 bytes past the end of the dynamic area (offset 0, 64 bytes)"),
            std::string::npos)
      << r2.faults[0].detail;
}

TEST(SharedLayout, LocalMemoryBeyondTheArchitecturesLimitIsRefused) {
  const std::string ptx = sm90Module(R"(
.visible .entry huge()
{
  .local .align 4 .b8 arr[1000000000];
  ret;
}
)");
  VmHarness vm;
  auto &m = vm.load(ptx);
  auto r = vm.launch(m, "huge", {1, 1, 1}, {32, 1, 1});
  EXPECT_EQ(r.status, vm::LaunchStatus::Refused);
  EXPECT_NE(r.error.find("1000000000 bytes of local memory per thread, more than the 524288 bytes sm_90 allows"),
            std::string::npos)
      << r.error;
}

// ptxas's `smem` for every kernel of the nvcc corpus and the layout fixtures, recorded by
// scripts/gen-ptxas-smem.sh: the front end's layout and the VM's CTA must both give it.
TEST(SharedLayout, EqualsPtxasForEveryCorpusKernel) {
  std::ifstream table(sourceDir() / "tests/corpus/nvcc/ptxas-smem.txt");
  ASSERT_TRUE(table) << "tests/corpus/nvcc/ptxas-smem.txt is missing";
  std::map<std::string, std::vector<std::pair<std::string, uint64_t>>> byFile;
  for (std::string line; std::getline(table, line);) {
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream fields(line);
    std::string file, kernel;
    uint64_t smem = 0;
    fields >> file >> kernel >> smem;
    byFile[file].emplace_back(kernel, smem);
  }
  size_t checked = 0;
  for (const auto &[file, kernels] : byFile) {
    SCOPED_TRACE(file);
    std::string text = readFile(sourceDir() / "tests/corpus" / file);
    ASSERT_FALSE(text.empty());
    ptx::ParseResult parsed = ptx::parseModule(file, text);
    ASSERT_TRUE(parsed.ok());
    const ptx::Module &m = *parsed.module;
    std::unique_ptr<VmHarness> vm;
    vm::LoadedModule *loaded = nullptr;
    try {
      vm = std::make_unique<VmHarness>("sm_90");
      loaded = &vm->load(text, file);
    } catch (const std::exception &e) {
      ADD_FAILURE() << "the VM cannot load it: " << e.what();
    }
    for (const auto &[kernel, smem] : kernels) {
      uint32_t index = ptx::kNone;
      for (uint32_t f = 0; f < m.functions.size(); ++f)
        if (m.functions[f].name == kernel)
          index = f;
      ASSERT_NE(index, ptx::kNone) << kernel;
      EXPECT_EQ(ptx::layoutSharedMemory(m, index).staticBytes, smem) << kernel;
      if (loaded) {
        const vm::DecodedFunction *k = loaded->findKernel(kernel);
        ASSERT_NE(k, nullptr) << kernel;
        EXPECT_EQ(k->staticSharedBytes, smem) << kernel;
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 300u);
}

} // namespace
} // namespace ptxray::test
