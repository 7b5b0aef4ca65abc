// Redundant global loads inside a CTA and the access-pattern classes on real launches, hand-derived
// from the kernels below: the OpenCL Best Practices Guide's unoptimized C = AB (§3.2.2.2, written with
// its loop kept, one load instruction per operand, and as nvcc compiles it, unrolled), loads of one
// source line sharing their sectors, and a strided copy (§3.2.1.4).
#include "model/Metrics.h"
#include "model/PerformanceModel.h"
#include "session/RunSpec.h"
#include "support/TestFiles.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>

#include <map>

namespace ptxray::test {
namespace {

// simpleMultiply with TILE_DIM 16: row = ctaid.y * 16 + tid.y, col = ctaid.x * 16 + tid.x,
// sum += a[row * 16 + i] * b[i * N + col] for i < 16 (line 21), c[row * N + col] = sum (line 22).
const char *kSimpleMultiply = R"(
.version 6.0
.target sm_30
.address_size 64
.file 1 "mm.cu"
.visible .entry simpleMultiply(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
  .reg .b32 %r<16>; .reg .f32 %f<4>; .reg .b64 %rd<10>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.y;
  mov.u32 %r3, %ntid.y;
  mov.u32 %r4, %tid.y;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  mov.u32 %r6, %ctaid.x;
  mov.u32 %r7, %ntid.x;
  mov.u32 %r8, %tid.x;
  mad.lo.s32 %r9, %r6, %r7, %r8;
  mov.f32 %f1, 0f00000000;
  mov.u32 %r10, 0;
LOOP:
  shl.b32 %r11, %r5, 4;
  add.s32 %r11, %r11, %r10;
  mul.wide.u32 %rd4, %r11, 4;
  add.s64 %rd5, %rd1, %rd4;
  .loc 1 21 5
  ld.global.f32 %f2, [%rd5];
  mad.lo.s32 %r12, %r10, %r1, %r9;
  mul.wide.u32 %rd6, %r12, 4;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.f32 %f3, [%rd7];
  fma.rn.f32 %f1, %f2, %f3, %f1;
  add.s32 %r10, %r10, 1;
  setp.lt.u32 %p1, %r10, 16;
  @%p1 bra LOOP;
  .loc 1 22 3
  mad.lo.s32 %r13, %r5, %r1, %r9;
  mul.wide.u32 %rd8, %r13, 4;
  add.s64 %rd9, %rd3, %rd8;
  st.global.f32 [%rd9], %f1;
  ret;
}
)";

// out[i] = in[i * stride], i = ctaid.x * ntid.x + tid.x.
const char *kStrideCopy = R"(
.version 6.0
.target sm_30
.address_size 64
.visible .entry strideCopy(.param .u64 out, .param .u64 in, .param .u32 stride)
{
  .reg .b32 %r<8>; .reg .f32 %f<2>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.param.u32 %r1, [stride];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  mul.lo.s32 %r6, %r5, %r1;
  mul.wide.u32 %rd3, %r6, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd1, %rd5;
  st.global.f32 [%rd6], %f1;
  ret;
}
)";

std::map<std::string, double> metricMap(const model::MetricList &list) {
  std::map<std::string, double> m;
  for (const auto &[name, value] : list)
    m[name] = value;
  return m;
}

/// The counters of the global load at `ptxText` (exact text of its PTX line).
const model::InstructionCounters &loadAt(const model::LaunchProfile &L, const std::string &ptxText) {
  for (const model::InstructionProfile &p : L.instructions)
    if (p.ptxText == ptxText)
      return p.counters;
  throw std::runtime_error("no instruction " + ptxText);
}

class SimpleMultiplyReuse : public ::testing::TestWithParam<const char *> {};

TEST_P(SimpleMultiplyReuse, EveryLoadedSectorIsRequestedEightTimesPerCta) {
  // 32 x 16 A, 16 x 32 B (N = 32), 2 x 2 CTAs of 16 x 16 threads; the footprint granule is 32 bytes on
  // both GPUs (the L2 sector; the smallest transaction on 1.3). Warp w of a CTA holds tile rows 2w and
  // 2w + 1, 16 lanes each.
  //   A: in iteration i a warp reads a[row * 16 + i] of its two rows, one word per row: 2 sectors
  //      (a 64-byte row is 2 sectors). Per CTA: 16 iterations x 8 warps x 2 = 256 sectors requested;
  //      distinct: 16 rows x 2 sectors = 32.
  //   B: in iteration i both rows of a warp read b[i * 32 + 16 * ctaid.x .. + 15], 64 bytes: 2 sectors.
  //      Per CTA: 16 x 8 x 2 = 256 requested; distinct: 16 rows of B x 2 = 32.
  VmHarness vm(GetParam());
  model::PerformanceModel perf(*arch::findArch(GetParam()).target);
  vm.device.setListener(&perf);
  auto &m = vm.load(kSimpleMultiply);
  uint64_t a = vm.zeros<float>(32 * 16), b = vm.zeros<float>(16 * 32), c = vm.zeros<float>(32 * 32);
  auto r = vm.launch(m, "simpleMultiply", {2, 2, 1}, {16, 16, 1}, a, b, c, 32);
  ASSERT_TRUE(r.ok()) << describe(r);
  const model::LaunchProfile &L = perf.launches().at(0);
  const model::InstructionCounters &la = loadAt(L, "ld.global.f32 %f2, [%rd5];");
  const model::InstructionCounters &lb = loadAt(L, "ld.global.f32 %f3, [%rd7];");
  EXPECT_EQ(la.globalWarpSectors, 4u * 256);
  EXPECT_EQ(la.globalCtaDistinctSectors, 4u * 32);
  EXPECT_EQ(lb.globalWarpSectors, 4u * 256);
  EXPECT_EQ(lb.globalCtaDistinctSectors, 4u * 32);
  // Line 21 holds both loads: redundancy 8. The store is not a load: no reuse counted.
  for (const model::LineProfile &line : model::lineProfiles(L)) {
    auto metrics = metricMap(model::metricsOf(line.inputs));
    if (line.line == 21) {
      EXPECT_DOUBLE_EQ(metrics.at("ptxray__global_ld_cta_redundancy"), 8);
    } else if (line.line == 22) {
      EXPECT_EQ(metrics.at("ptxray__global_ld_cta_distinct_sectors"), 0);
    }
  }
  // Each half-warp reads one row: neither a single stride nor one address per warp.
  EXPECT_EQ(la.globalWarpAccesses, 4u * 8 * 16);
  EXPECT_EQ(la.globalBroadcastRequests + la.globalUnitStrideRequests + la.globalStridedRequests, 0u);
}

INSTANTIATE_TEST_SUITE_P(Gpus, SimpleMultiplyReuse, ::testing::Values("sm_90", "gtx280"));

// Two loads on line 5 (an unrolled loop: a[tid] and a[tid + 1]) and one on line 6 (a[tid] again).
const char *kUnrolled = R"(
.version 6.0
.target sm_30
.address_size 64
.file 1 "unrolled.cu"
.visible .entry unrolled(.param .u64 a, .param .u64 out)
{
  .reg .b32 %r<3>; .reg .f32 %f<5>; .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  .loc 1 5 3
  ld.global.f32 %f1, [%rd4];
  ld.global.f32 %f2, [%rd4+4];
  .loc 1 6 3
  ld.global.f32 %f3, [%rd4];
  add.f32 %f4, %f1, %f2;
  add.f32 %f4, %f4, %f3;
  add.s64 %rd5, %rd2, %rd3;
  st.global.f32 [%rd5], %f4;
  ret;
}
)";

TEST(GlobalReuse, DistinctSectorsAreCountedPerSourceLine) {
  // One warp: a[tid] is 128 bytes from a 256-byte boundary, sectors 0..3; a[tid + 1] is [4, 132),
  // sectors 0..4, of which only sector 4 is new to line 5. Line 6 is its own key: sectors 0..3 again.
  VmHarness vm("sm_90");
  model::PerformanceModel perf(*arch::findArch("sm_90").target);
  vm.device.setListener(&perf);
  auto &m = vm.load(kUnrolled);
  uint64_t a = vm.zeros<float>(64), out = vm.zeros<float>(32);
  auto r = vm.launch(m, "unrolled", {1, 1, 1}, {32, 1, 1}, a, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  const model::LaunchProfile &L = perf.launches().at(0);
  EXPECT_EQ(loadAt(L, "ld.global.f32 %f1, [%rd4];").globalCtaDistinctSectors, 4u);
  EXPECT_EQ(loadAt(L, "ld.global.f32 %f2, [%rd4+4];").globalWarpSectors, 5u);
  EXPECT_EQ(loadAt(L, "ld.global.f32 %f2, [%rd4+4];").globalCtaDistinctSectors, 1u);
  EXPECT_EQ(loadAt(L, "ld.global.f32 %f3, [%rd4];").globalCtaDistinctSectors, 4u);
  for (const model::LineProfile &line : model::lineProfiles(L)) {
    auto metrics = metricMap(model::metricsOf(line.inputs));
    if (line.line == 5) {
      EXPECT_EQ(metrics.at("ptxray__global_ld_warp_sectors"), 9);
      EXPECT_EQ(metrics.at("ptxray__global_ld_cta_distinct_sectors"), 5);
    } else if (line.line == 6) {
      EXPECT_DOUBLE_EQ(metrics.at("ptxray__global_ld_cta_redundancy"), 1);
    }
  }
}

TEST(GlobalReuse, CompiledGuideMultiplyUnrolledLoop) {
  // nvcc's simpleMultiply (tests/kernels/vm/matmul.cu) unrolls the loop into 16 loads of A and 16 of
  // B, all on line 21; 8 x 8 CTAs, N = 128. Per CTA, each instruction's 8 warps request 2 sectors
  // each (A: one word of each of the warp's two rows; B: 16 words of one row): 32 x 8 x 2 = 512
  // sectors. Distinct per CTA: 16 rows of A x 2 sectors + 16 rows of B x 2 sectors = 64. Ratio 8.
  session::RunSpec spec = session::loadRunSpec(sourceDir() / "tests/kernels/vm/specs/matmul.json");
  spec.launches.resize(1);
  spec.operations.resize(1);
  model::PerformanceModel perf(*arch::findArch("sm_90").target);
  session::RunOptions options;
  options.target = *arch::findArch("sm_90").target;
  options.writeOutputs = false;
  options.listener = &perf;
  session::RunOutcome outcome = session::runSpec(spec, options);
  ASSERT_TRUE(outcome.ok()) << outcome.error;
  const model::LaunchProfile &L = perf.launches().at(0);
  bool found = false;
  for (const model::LineProfile &line : model::lineProfiles(L)) {
    if (line.line != 21)
      continue;
    found = true;
    auto metrics = metricMap(model::metricsOf(line.inputs));
    EXPECT_EQ(metrics.at("ptxray__global_ld_warp_sectors"), 64 * 512);
    EXPECT_EQ(metrics.at("ptxray__global_ld_cta_distinct_sectors"), 64 * 64);
    EXPECT_DOUBLE_EQ(metrics.at("ptxray__global_ld_cta_redundancy"), 8);
  }
  EXPECT_TRUE(found);
}

TEST(GlobalReuse, StridedCopyPatternAndStride) {
  // 2 CTAs of 64 threads, 4 warps; stride 2 words: every load warp is strided by 8 bytes, every store
  // warp unit-stride. No sector is loaded twice: lane k of a warp reads word 2k, 32 lanes
  // cover 256 bytes = 8 sectors, each its own.
  VmHarness vm("sm_90");
  model::PerformanceModel perf(*arch::findArch("sm_90").target);
  vm.device.setListener(&perf);
  auto &m = vm.load(kStrideCopy);
  uint64_t out = vm.zeros<float>(128), in = vm.zeros<float>(1024);
  auto r = vm.launch(m, "strideCopy", {2, 1, 1}, {64, 1, 1}, out, in, 2);
  ASSERT_TRUE(r.ok()) << describe(r);
  auto metrics = metricMap(model::launchMetrics(perf.launches().at(0)));
  EXPECT_EQ(metrics.at("ptxray__global_ld_warp_accesses"), 4);
  EXPECT_EQ(metrics.at("ptxray__global_ld_strided_requests"), 4);
  EXPECT_EQ(metrics.at("ptxray__global_ld_mean_stride_bytes"), 8);
  EXPECT_EQ(metrics.at("ptxray__global_st_unit_stride_requests"), 4);
  EXPECT_EQ(metrics.at("ptxray__global_ld_warp_sectors"), 4 * 8);
  EXPECT_DOUBLE_EQ(metrics.at("ptxray__global_ld_cta_redundancy"), 1);
  // Stride 0: every lane reads in[0]: 4 broadcast loads, one sector each, the same sector for the two
  // warps of a CTA: 4 requested, 2 distinct (one per CTA).
  VmHarness vm0("sm_90");
  model::PerformanceModel perf0(*arch::findArch("sm_90").target);
  vm0.device.setListener(&perf0);
  auto &m0 = vm0.load(kStrideCopy);
  out = vm0.zeros<float>(128), in = vm0.zeros<float>(1024);
  r = vm0.launch(m0, "strideCopy", {2, 1, 1}, {64, 1, 1}, out, in, 0);
  ASSERT_TRUE(r.ok()) << describe(r);
  metrics = metricMap(model::launchMetrics(perf0.launches().at(0)));
  EXPECT_EQ(metrics.at("ptxray__global_ld_broadcast_requests"), 4);
  EXPECT_EQ(metrics.at("ptxray__global_ld_warp_sectors"), 4);
  EXPECT_EQ(metrics.at("ptxray__global_ld_cta_distinct_sectors"), 2);
  EXPECT_DOUBLE_EQ(metrics.at("ptxray__global_ld_cta_redundancy"), 2);
}

} // namespace
} // namespace ptxray::test
