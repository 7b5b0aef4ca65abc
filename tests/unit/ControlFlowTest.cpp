// Control-flow graph and register-pressure estimate on small functions whose answers are worked out
// by hand in the comments.
#include "ptx/ControlFlowGraph.h"
#include "ptx/Parser.h"
#include "ptx/RegisterPressure.h"

#include <gtest/gtest.h>

namespace ptxray::ptx {
namespace {

std::unique_ptr<Module> parse(const std::string &body) {
  std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n" + body;
  ParseResult r = parseModule("test.ptx", text);
  EXPECT_TRUE(r.ok()) << r.diagnostics.render(r.module->sources);
  return std::move(r.module);
}

const char *kLoop = R"(
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
$L_loop:
  add.s32 %r3, %r3, %r2;
  add.s32 %r2, %r2, 1;
  setp.lt.s32 %p1, %r2, %r1;
  @%p1 bra $L_loop;
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r3;
  ret;
}
)";

TEST(ControlFlowGraph, LoopHasBackEdgeAndFallThrough) {
  auto m = parse(kLoop);
  ControlFlowGraph cfg(*m, m->functions[0]);
  // Blocks: [0,4) entry, [4,8) loop body ending in the guarded branch, [8,11) exit.
  ASSERT_EQ(cfg.blocks().size(), 3u);
  EXPECT_EQ(cfg.blocks()[0].firstInstruction, 0u);
  EXPECT_EQ(cfg.blocks()[1].firstInstruction, 4u);
  EXPECT_EQ(cfg.blocks()[2].firstInstruction, 8u);
  EXPECT_EQ(cfg.blocks()[0].successors, std::vector<uint32_t>({1}));
  EXPECT_EQ(cfg.blocks()[1].successors, std::vector<uint32_t>({1, 2})); // taken, then fall-through
  EXPECT_TRUE(cfg.blocks()[2].successors.empty());
  EXPECT_TRUE(cfg.blocks()[2].endsFunction);
  EXPECT_EQ(cfg.blocks()[1].predecessors, std::vector<uint32_t>({0, 1}));
  EXPECT_EQ(cfg.blockOf(6), 1u);
}

TEST(RegisterAccess, DestinationIsWrittenAddressIsRead) {
  auto m = parse(kLoop);
  const Function &fn = m->functions[0];
  // st.global.u32 [%rd2], %r3 writes no register and reads %rd2 and %r3.
  RegisterAccess st = registerAccess(fn, fn.instructions[9]);
  EXPECT_TRUE(st.defs.empty());
  EXPECT_EQ(st.uses.size(), 2u);
  // @%p1 bra reads the guard.
  RegisterAccess bra = registerAccess(fn, fn.instructions[7]);
  EXPECT_TRUE(bra.defs.empty());
  ASSERT_EQ(bra.uses.size(), 1u);
  EXPECT_EQ(fn.registers[bra.uses[0]].displayName(), "%p1");
}

TEST(RegisterPressure, LoopCarriesFiveSlots) {
  auto m = parse(kLoop);
  RegisterPressure p = estimateRegisterPressure(*m, m->functions[0]);
  // In the loop %rd1 (2 slots), %r1, %r2, %r3 are all live: 5 slots. The predicate %p1 lives from
  // the setp to the branch and takes no slot. Nothing else overlaps more.
  EXPECT_EQ(p.maxLive32, 5u);
  EXPECT_EQ(p.maxLivePredicates, 1u);
}

TEST(RegisterPressure, GuardedWriteDoesNotEndALiveRange) {
  auto m = parse(R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 7;
  setp.ne.s32 %p1, %r1, 0;
  @%p1 mov.u32 %r1, 9;
  st.global.u32 [%rd1], %r1;
  ret;
}
)");
  RegisterPressure p = estimateRegisterPressure(*m, m->functions[0]);
  // %rd1 (2) + %r1 (1): the guarded mov does not kill %r1 before it.
  EXPECT_EQ(p.maxLive32, 3u);
}

TEST(RegisterPressure, SixtyFourBitAndVectorRegistersCountTheirSlots) {
  auto m = parse(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b64 %rd<3>;
  .reg .f32 %f<5>;
  ld.param.u64 %rd1, [out];
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];
  st.global.v4.f32 [%rd1+16], {%f1, %f2, %f3, %f4};
  ret;
}
)");
  RegisterPressure p = estimateRegisterPressure(*m, m->functions[0]);
  EXPECT_EQ(p.maxLive32, 6u); // %rd1 (2) + four floats
  EXPECT_EQ(registerSlots(m->functions[0].registers[0]), 2u);
}

} // namespace
} // namespace ptxray::ptx
