// Which scalar shared accesses ptxas merges into vector ones (model/MergedAccesses.h), on PTX cut from
// validation/model's matmul_square.ptx, whose SASS (validation/model/results/sass/matmul_square.sass)
// shows the answer: the 32x32 tile's row reads become LDS.128, the padded [32][33] tile's stay LDS.
// Then the time model: the merged kernel issues fewer instructions and the padded twin is slower.
#include "model/MergedAccesses.h"
#include "arch/GpuDatabase.h"
#include "model/PerformanceModel.h"
#include "ptx/Parser.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>

#include <string>

namespace ptxray::test {
namespace {

using model::MergedRole;

std::unique_ptr<ptx::Module> parse(const std::string &body) {
  std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n" + body;
  ptx::ParseResult r = ptx::parseModule("test.ptx", text);
  EXPECT_TRUE(r.ok()) << r.diagnostics.render(r.module->sources);
  return std::move(r.module);
}

/// A tile product's inner loop as nvcc writes it: row `ty` of `as` (rowBytes apart) read at
/// +0, +4, ..., +4 (n - 1), interleaved with column reads of `bs` (rowBytes apart).
std::string tileKernel(int rowBytes, int n, const std::string &between = "") {
  std::string s = R"(
.visible .entry k(.param .u64 out)
{
  .reg .f32 %f<80>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<3>;
  .shared .align 4 .b8 as[4224];
  .shared .align 4 .b8 bs[4224];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.y;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, as;
  mad.lo.s32 %r4, %r1, )" +
                  std::to_string(rowBytes) +
                  R"(, %r3;
  mov.u32 %r5, bs;
  shl.b32 %r6, %r2, 2;
  add.s32 %r7, %r5, %r6;
  st.shared.f32 [%r4], %f0;
  bar.sync 0;
  mov.f32 %f1, 0f00000000;
)";
  for (int k = 0; k < n; ++k) {
    s += "  ld.shared.f32 %f" + std::to_string(10 + 2 * k) + ", [%r7+" + std::to_string(k * rowBytes) + "];\n";
    s += "  ld.shared.f32 %f" + std::to_string(11 + 2 * k) + ", [%r4+" + std::to_string(4 * k) + "];\n";
    s += "  fma.rn.f32 %f1, %f" + std::to_string(11 + 2 * k) + ", %f" + std::to_string(10 + 2 * k) + ", %f1;\n";
    if (k == 1)
      s += between;
  }
  s += "  cvta.to.global.u64 %rd2, %rd1;\n  st.global.f32 [%rd2], %f1;\n  ret;\n}\n";
  return s;
}

/// The index of %r<k>.
size_t registerR(const ptx::Function &fn, int k) {
  for (size_t i = 0; i < fn.registers.size(); ++i)
    if (fn.registers[i].name == "%r" && fn.registers[i].rangeIndex == k)
      return i;
  ADD_FAILURE() << "no %r" << k;
  return 0;
}

/// The roles of the row reads ([%r4+...]) in program order.
std::vector<model::MergedAccess> rowReads(const ptx::Module &m, int widest = 16) {
  const ptx::Function &fn = m.functions.at(0);
  const std::vector<model::MergedAccess> all = model::mergedSharedAccesses(m, fn, widest);
  std::vector<model::MergedAccess> rows;
  for (size_t i = 0; i < fn.instructions.size(); ++i) {
    const ptx::Instruction &inst = fn.instructions[i];
    if (inst.opcode != ptx::Opcode::ld || inst.space != ptx::StateSpace::Shared)
      continue;
    const ptx::Operand &address = fn.operandsOf(inst)[1];
    if (fn.operands[address.first].id == registerR(fn, 4))
      rows.push_back(all[i]);
  }
  return rows;
}

TEST(MergedAccesses, RowOfAnAlignedTileIsReadWith128BitLoads) {
  auto m = parse(tileKernel(128, 8));
  const auto rows = rowReads(*m);
  ASSERT_EQ(rows.size(), 8u);
  for (int g = 0; g < 2; ++g) {
    EXPECT_EQ(rows[4 * g].role, MergedRole::First);
    EXPECT_EQ(rows[4 * g].bytesPerLane, 16);
    EXPECT_EQ(rows[4 * g].addressAdjust, 0);
    for (int k = 1; k < 4; ++k)
      EXPECT_EQ(rows[4 * g + k].role, MergedRole::Merged);
  }
  // The column reads (128 bytes apart) are never consecutive words.
  const ptx::Function &fn = m->functions[0];
  const auto all = model::mergedSharedAccesses(*m, fn, 16);
  int merged = 0;
  for (const auto &a : all)
    merged += a.role != MergedRole::None;
  EXPECT_EQ(merged, 8);
}

TEST(MergedAccesses, PaddedRowsAreNotAlignedAndStayScalar) {
  // 132-byte rows: row ty starts at 132 ty, a multiple of 4 only.
  auto m = parse(tileKernel(132, 8));
  for (const auto &r : rowReads(*m))
    EXPECT_EQ(r.role, MergedRole::None);
  // The known zero bits say why: as + 132 ty has two.
  const std::vector<uint8_t> bits = model::knownZeroLowBits(*m, m->functions[0]);
  EXPECT_EQ(bits.at(registerR(m->functions[0], 4)), 2);
  auto aligned = parse(tileKernel(128, 8));
  // as at 0, 128 ty: 7
  EXPECT_EQ(model::knownZeroLowBits(*aligned, aligned->functions[0]).at(registerR(aligned->functions[0], 4)), 7);
}

TEST(MergedAccesses, EightByteRowsMergeInPairsAndOnlyUpToTheWidestAccess) {
  // 136-byte rows: 8-aligned, not 16: pairs of words become 64-bit loads.
  auto m = parse(tileKernel(136, 4));
  const auto rows = rowReads(*m);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].role, MergedRole::First);
  EXPECT_EQ(rows[0].bytesPerLane, 8);
  EXPECT_EQ(rows[1].role, MergedRole::Merged);
  EXPECT_EQ(rows[2].role, MergedRole::First);
  EXPECT_EQ(rows[3].role, MergedRole::Merged);
  // A target that merges nothing (CC 1.x: compilerMergedAccessBytes 0).
  auto n = parse(tileKernel(128, 4));
  for (const auto &r : rowReads(*n, 0))
    EXPECT_EQ(r.role, MergedRole::None);
}

TEST(MergedAccesses, AStoreBarrierOrNewBaseInBetweenEndsTheGroup) {
  // After the second row read: a shared store (may alias), a barrier, a redefined base.
  for (const std::string between : {"  st.shared.f32 [%r7], %f1;\n", "  bar.sync 0;\n", "  add.s32 %r4, %r4, 0;\n"}) {
    auto m = parse(tileKernel(128, 4, between));
    const auto rows = rowReads(*m);
    ASSERT_EQ(rows.size(), 4u) << between;
    // Reads at +0, +4 before and +8, +12 after: no aligned 16-byte group, two 8-byte ones.
    EXPECT_EQ(rows[0].role, MergedRole::First) << between;
    EXPECT_EQ(rows[0].bytesPerLane, 8) << between;
    EXPECT_EQ(rows[1].role, MergedRole::Merged) << between;
  }
  // A global store between shared loads does not end it.
  auto m = parse(tileKernel(128, 4, "  st.global.f32 [%rd1], %f1;\n"));
  EXPECT_EQ(rowReads(*m)[0].bytesPerLane, 16);
}

TEST(MergedAccesses, GroupsLedByALaterOffsetPointTheVectorAtTheLowestAddress) {
  auto m = parse(R"(
.visible .entry k()
{
  .reg .f32 %f<5>;
  .reg .b32 %r<3>;
  .shared .align 16 .b8 t[64];
  mov.u32 %r1, t;
  ld.shared.f32 %f1, [%r1+20];
  ld.shared.f32 %f2, [%r1+16];
  ld.shared.f32 %f3, [%r1+28];
  ld.shared.f32 %f4, [%r1+24];
  ret;
}
)");
  const auto a = model::mergedSharedAccesses(*m, m->functions[0], 16);
  ASSERT_EQ(a.size(), 6u);
  EXPECT_EQ(a[1].role, MergedRole::First);
  EXPECT_EQ(a[1].bytesPerLane, 16);
  EXPECT_EQ(a[1].addressAdjust, -4);
  EXPECT_EQ(a[2].role, MergedRole::Merged);
  EXPECT_EQ(a[3].role, MergedRole::Merged);
  EXPECT_EQ(a[4].role, MergedRole::Merged);
}

model::LaunchProfile runTile(int rowBytes) {
  VmHarness vm("sm_90");
  model::PerformanceModel perf(*arch::findArch("h100").target);
  vm.device.setListener(&perf);
  auto &mod = vm.load(".version 8.0\n.target sm_90\n.address_size 64\n" + tileKernel(rowBytes, 32));
  const uint64_t out = vm.zeros<float>(4);
  auto r = vm.launch(mod, "k", {1, 1, 1}, {32, 32, 1}, out);
  EXPECT_TRUE(r.ok()) << describe(r);
  return perf.launches().at(0);
}

TEST(MergedAccesses, TheTimeModelIssuesAMergedGroupOnce) {
  const model::LaunchProfile aligned = runTile(128), padded = runTile(132);
  const auto loadStore = static_cast<int>(model::InstructionClass::LoadStore);
  // The PTX is the same length; the issued loads differ: 64 row and column reads a warp, of which
  // the 32 row reads become 8 vector loads in the aligned tile.
  EXPECT_EQ(aligned.total.warpExecuted, padded.total.warpExecuted);
  const uint64_t warps = 32;
  EXPECT_EQ(padded.timeInputs.warpInstructionsByClass[loadStore] -
                aligned.timeInputs.warpInstructionsByClass[loadStore],
            warps * 24);
  // Row reads are broadcasts (one address a warp): an H100 serves a 128-bit broadcast in two
  // wavefronts, one a half-warp (validation/model matmul_square_512#2), so 8 vector loads take 16
  // where 32 scalar ones take 32.
  EXPECT_EQ(padded.total.sharedWavefronts - aligned.total.sharedWavefronts, warps * 16);
  EXPECT_LT(aligned.timeInputs.ctaPathCycles, padded.timeInputs.ctaPathCycles);
}

} // namespace
} // namespace ptxray::test
