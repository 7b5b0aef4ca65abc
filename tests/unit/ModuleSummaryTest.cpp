// The module summary on a hand-written module; every expected number is worked out by hand in the
// comments next to the declarations.
#include "ptx/ModuleSummary.h"
#include "ptx/Parser.h"

#include <gtest/gtest.h>

namespace ptxray {
namespace {

using namespace ptx;

constexpr const char *kModule = R"(.version 8.0
.target sm_90
.address_size 64
.file 1 "sum.cu"
.file 7 "inc/sum.h"

.global .align 4 .b8 gbuf[10];     // global:  0 .. 10
.global .f64 gd;                    // align 8: 16 .. 24
.global .v4 .f32 gv;                // align 16: 32 .. 48
.extern .global .u32 gext;          // not defined here: not counted
.const .align 4 .u32 cc[3];         // const:   0 .. 12
.const .u16 ch;                     // align 2: 12 .. 14
.shared .align 8 .b8 smem_a[100];   // shared:  0 .. 100
.shared .u32 smem_b[5];             // align 4: 100 .. 120

.extern .func ext(.param .b32 a);

.func (.param .b32 ret) _Z6helperPKdS0_(.param .b64 p, .param .align 16 .b8 blob[24])
{
  .reg .b32 %r<2>;
  ld.shared.u32 %r1, [smem_b];
  st.param.b32 [ret], %r1;
  ret;
}

.visible .entry _Z4kernPfj(.param .u64 .ptr .global .align 16 out, .param .u32 n, .param .align 4 .b8 cfg[12])
.maxntid 256, 1, 1
.minnctapersm 2
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b32 %tmp, %tmp2;
  .reg .b64 %rd<4>;
  .reg .f32 %f<5>;
  .reg .v2 .f32 %vf;
  .local .align 8 .b8 stack[20];    // local:  0 .. 20
  .local .u32 lone;                  // align 4: 20 .. 24
  .shared .align 4 .f32 tile[64];    // shared: 0 .. 256
  .shared .u64 flag;                 // align 8: 256 .. 264
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra $L_end;
  ld.shared.u32 %r3, [smem_a+4];     // module shared smem_a: align 8, 264 .. 364
  ld.shared.u32 %r4, [smem_b];       // module shared smem_b: align 4, 364 .. 384
  ld.shared.u32 %r4, [smem_b+4];     // the same variable again: counted once
  st.shared.f32 [tile], %f1;
  st.local.u32 [lone], %r4;
$L_end:
  ret;
}
)";

class ModuleSummaryTest : public ::testing::Test {
protected:
  void SetUp() override {
    ParseResult r = parseModule("sum.ptx", kModule);
    ASSERT_TRUE(r.ok()) << r.diagnostics.render(r.module->sources);
    module_ = std::move(r.module);
    summary_ = summarize(*module_);
    ASSERT_EQ(summary_.functions.size(), 3u);
  }
  const FunctionSummary &ext() const { return summary_.functions[0]; }
  const FunctionSummary &helper() const { return summary_.functions[1]; }
  const FunctionSummary &kern() const { return summary_.functions[2]; }
  std::unique_ptr<Module> module_;
  ModuleSummary summary_;
};

TEST_F(ModuleSummaryTest, ModuleFacts) {
  EXPECT_EQ(summary_.version, "8.0");
  EXPECT_EQ(summary_.target, (std::vector<std::string>{"sm_90"}));
  EXPECT_EQ(summary_.addressSize, 64u);
  EXPECT_EQ(summary_.files, (std::vector<std::pair<uint32_t, std::string>>{{1, "sum.cu"}, {7, "inc/sum.h"}}));
  EXPECT_EQ(summary_.globalBytes, 48u);
  EXPECT_EQ(summary_.constBytes, 14u);
  EXPECT_EQ(summary_.sharedBytes, 120u);
  EXPECT_EQ(summary_.instructions, 14u); // 3 in the helper, 11 in the kernel
}

TEST_F(ModuleSummaryTest, FunctionIdentity) {
  EXPECT_EQ(ext().name, "ext");
  EXPECT_EQ(ext().demangled, "ext");
  EXPECT_FALSE(ext().defined);
  EXPECT_FALSE(ext().isEntry);
  EXPECT_EQ(ext().linkage, "extern");
  EXPECT_EQ(ext().instructions, 0u);

  EXPECT_EQ(helper().demangled, "helper(double const*, double const*)");
  EXPECT_TRUE(helper().defined);
  EXPECT_EQ(helper().linkage, "internal");

  EXPECT_EQ(kern().name, "_Z4kernPfj");
  EXPECT_EQ(kern().demangled, "kern(float*, unsigned int)");
  EXPECT_TRUE(kern().isEntry);
  EXPECT_TRUE(kern().defined);
  EXPECT_EQ(kern().linkage, "visible");
}

TEST_F(ModuleSummaryTest, Parameters) {
  const auto &ps = kern().params;
  ASSERT_EQ(ps.size(), 3u);
  EXPECT_EQ(ps[0].name, "out");
  EXPECT_EQ(ps[0].type, ".u64");
  EXPECT_EQ(ps[0].size, 8u);
  EXPECT_EQ(ps[0].align, 8u);
  EXPECT_TRUE(ps[0].isPointer);
  EXPECT_EQ(ps[0].pointeeSpace, "global");
  EXPECT_EQ(ps[0].pointeeAlign, 16u);
  EXPECT_EQ(ps[1].name, "n");
  EXPECT_EQ(ps[1].type, ".u32");
  EXPECT_EQ(ps[1].size, 4u);
  EXPECT_EQ(ps[1].align, 4u);
  EXPECT_FALSE(ps[1].isPointer);
  EXPECT_EQ(ps[2].type, ".b8[12]");
  EXPECT_EQ(ps[2].size, 12u);
  EXPECT_EQ(ps[2].align, 4u);

  const auto &hp = helper().params;
  ASSERT_EQ(hp.size(), 2u);
  EXPECT_EQ(hp[0].type, ".b64");
  EXPECT_EQ(hp[0].size, 8u);
  EXPECT_EQ(hp[0].align, 8u);
  EXPECT_EQ(hp[1].type, ".b8[24]");
  EXPECT_EQ(hp[1].size, 24u);
  EXPECT_EQ(hp[1].align, 16u);
  ASSERT_EQ(helper().returns.size(), 1u);
  EXPECT_EQ(helper().returns[0].name, "ret");
  EXPECT_EQ(helper().returns[0].size, 4u);
  EXPECT_TRUE(kern().returns.empty());
  ASSERT_EQ(ext().params.size(), 1u);
  EXPECT_EQ(ext().params[0].name, "a");
}

TEST_F(ModuleSummaryTest, RegistersPerType) {
  EXPECT_EQ(kern().registers,
            (std::map<std::string, uint64_t>{{".pred", 3}, {".b32", 12}, {".b64", 4}, {".f32", 5}, {".v2 .f32", 1}}));
  EXPECT_EQ(helper().registers, (std::map<std::string, uint64_t>{{".b32", 2}}));
  EXPECT_TRUE(ext().registers.empty());
}

TEST_F(ModuleSummaryTest, StaticMemory) {
  EXPECT_EQ(kern().sharedBytes, 384u);
  EXPECT_EQ(kern().localBytes, 24u);
  EXPECT_EQ(helper().sharedBytes, 20u); // smem_b only
  EXPECT_EQ(helper().localBytes, 0u);
  EXPECT_EQ(ext().sharedBytes, 0u);
}

TEST_F(ModuleSummaryTest, InstructionsAndDirectives) {
  EXPECT_EQ(kern().instructions, 11u);
  EXPECT_EQ(helper().instructions, 3u);
  using Directives = std::vector<std::pair<std::string, std::vector<uint32_t>>>;
  EXPECT_EQ(kern().directives, (Directives{{".maxntid", {256, 1, 1}}, {".minnctapersm", {2}}}));
  EXPECT_TRUE(helper().directives.empty());
}

TEST(ModuleSummaryDefaults, NoAddressSizeMeans32) {
  ParseResult r = parseModule("t.ptx", ".version 7.0\n.target sm_80, debug\n");
  ASSERT_TRUE(r.ok()) << r.diagnostics.render(r.module->sources);
  ModuleSummary s = summarize(*r.module);
  EXPECT_EQ(s.version, "7.0");
  EXPECT_EQ(s.target, (std::vector<std::string>{"sm_80", "debug"}));
  EXPECT_EQ(s.addressSize, 32u);
  EXPECT_TRUE(s.functions.empty());
  EXPECT_EQ(s.instructions, 0u);
  EXPECT_EQ(s.globalBytes + s.constBytes + s.sharedBytes, 0u);
}

} // namespace
} // namespace ptxray
