// The time model's per-warp critical path (model/WarpTiming.h) and its serialization bounds, on
// hand-written PTX whose cycles follow from the sm_90 architecture entry: 4-cycle dependent FMAs,
// one issue a clock, a barrier's release, the store-to-load order, atomics in L2.
#include "arch/GpuDatabase.h"
#include "model/PerformanceModel.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>

#include <string>

namespace ptxray::test {
namespace {

const arch::ComputeCapability &sm90() {
  return *arch::findArch("sm_90").target->computeCapability;
}

model::LaunchProfile runOne(const std::string &body, uint32_t threads, uint64_t bufferWords = 64) {
  const std::string ptx = ".version 7.8\n.target sm_90\n.address_size 64\n" + body;
  VmHarness vm("sm_90");
  model::PerformanceModel perf(*arch::findArch("h100").target);
  vm.device.setListener(&perf);
  auto &m = vm.load(ptx);
  const uint64_t buffer = vm.zeros<float>(bufferWords);
  auto r = vm.launch(m, "k", {1, 1, 1}, {threads, 1, 1}, buffer);
  EXPECT_TRUE(r.ok()) << describe(r);
  return perf.launches().at(0);
}

/// A kernel of `fmas` fma.rn.f32 in the order given: chain c's k-th FMA reads its (k-1)-th.
std::string fmaKernel(int chains, int perChain, bool interleaved) {
  std::string body = ".visible .entry k(.param .u64 out)\n{\n  .reg .f32 %f<" + std::to_string(chains + 2) +
                     ">;\n  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [out];\n";
  for (int c = 0; c < chains; ++c)
    body += "  mov.f32 %f" + std::to_string(c) + ", 0f3F800000;\n";
  auto fma = [&](int c) {
    const std::string r = "%f" + std::to_string(c);
    body += "  fma.rn.f32 " + r + ", " + r + ", " + r + ", " + r + ";\n";
  };
  if (interleaved)
    for (int k = 0; k < perChain; ++k)
      for (int c = 0; c < chains; ++c)
        fma(c);
  else
    for (int c = 0; c < chains; ++c)
      for (int k = 0; k < perChain; ++k)
        fma(c);
  body += "  st.global.f32 [%rd1], %f0;\n  ret;\n}\n";
  return body;
}

TEST(CriticalPath, DependentFmasTakeTheirLatencyEach) {
  const int raw = sm90().latency.registerReadAfterWriteCycles;
  ASSERT_EQ(raw, 4);
  const model::LaunchProfile p = runOne(fmaKernel(1, 64, true), 32);
  // 64 dependent FMAs: 64 x 4 cycles, plus the parameter load before, the store and ret after.
  EXPECT_GE(p.timeInputs.ctaPathCycles, 64.0 * raw);
  EXPECT_LE(p.timeInputs.ctaPathCycles, 64.0 * raw + 700); // the store's trip to DRAM ends the CTA
  EXPECT_EQ(p.timeInputs.ctaPathCycles, p.timeInputs.ctaPathCyclesMax);
}

TEST(CriticalPath, IndependentChainsIssueOneAClock) {
  // 4 chains of 16: 64 instructions that can issue one a clock (each chain's next FMA is 4 issues
  // later), against one chain of 64 at 4 cycles each.
  const model::LaunchProfile serial = runOne(fmaKernel(1, 64, true), 32);
  const model::LaunchProfile interleaved = runOne(fmaKernel(4, 16, true), 32);
  const double saved = 64.0 * 4 - 64.0; // what 4-way ILP saves over one chain: 3 cycles an FMA
  EXPECT_NEAR(serial.timeInputs.ctaPathCycles - interleaved.timeInputs.ctaPathCycles, saved, 8);
}

TEST(CriticalPath, TheReorderWindowInterleavesChainsWrittenOneAfterTheOther) {
  // Two chains of 8 written chain after chain fit in the 16-instruction window: ptxas (and the model)
  // interleave them, so they take as long as when written interleaved; with 4 chains of 16 the third
  // chain is out of reach until the first has issued.
  ASSERT_EQ(sm90().latency.reorderWindow, 16);
  EXPECT_NEAR(runOne(fmaKernel(2, 8, false), 32).timeInputs.ctaPathCycles,
              runOne(fmaKernel(2, 8, true), 32).timeInputs.ctaPathCycles, 2);
  EXPECT_GT(runOne(fmaKernel(4, 16, false), 32).timeInputs.ctaPathCycles,
            runOne(fmaKernel(4, 16, true), 32).timeInputs.ctaPathCycles + 32);
}

TEST(CriticalPath, ABarrierReleasesEveryWarpAfterTheLastArrival) {
  // Warp 0 runs 32 dependent FMAs before bar.sync, warp 1 none: both leave at the same time.
  const std::string body = R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<2>; .reg .f32 %f<2>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 32;
  mov.f32 %f1, 0f3F800000;
  @%p1 bra AFTER;
)" + [] {
    std::string chain;
    for (int i = 0; i < 32; ++i)
      chain += "  fma.rn.f32 %f1, %f1, %f1, %f1;\n";
    return chain;
  }() + R"(
AFTER:
  bar.sync 0;
  ret;
}
)";
  const model::LaunchProfile p = runOne(body, 64);
  const auto &l = sm90().latency;
  // The path ends with the barrier: warp 0 arrives when its last FMA has issued (31 x 4 cycles into
  // the chain; bar.sync does not read the result), then the release (2 warps).
  const double release = 31.0 * 4 + l.barrierCycles + 2 * l.barrierWarpCycles;
  EXPECT_GE(p.timeInputs.ctaPathCycles, release);
  EXPECT_LE(p.timeInputs.ctaPathCycles, release + 40);
}

TEST(CriticalPath, ALoadWaitsForAnEarlierStoreItMayAlias) {
  // Without the store the second load issues beside the first; after it, the load waits for the
  // store, which waits for the first load's data: two trips to DRAM in a row instead of one (the
  // store itself hits L2: its sector was just loaded).
  auto kernel = [](bool store) {
    return std::string(R"(
.visible .entry k(.param .u64 out)
{
  .reg .f32 %f<4>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ld.global.f32 %f1, [%rd1];
)") + (store ? "  st.global.f32 [%rd1+4], %f1;\n" : "") +
           R"(  ld.global.f32 %f2, [%rd1+128];
  add.f32 %f3, %f1, %f2;
  ret;
}
)";
  };
  const double dram = sm90().latency.dramCycles;
  const model::LaunchProfile parallel = runOne(kernel(false), 32);
  const model::LaunchProfile ordered = runOne(kernel(true), 32);
  EXPECT_GE(ordered.timeInputs.ctaPathCycles - parallel.timeInputs.ctaPathCycles, dram * 0.9);
}

TEST(CriticalPath, SameAddressAtomicsSerializeUnlessWarpUniform) {
  // red.global.add from 32 lanes on one word: through a parameter (warp-uniform by construction,
  // combined by ptxas: one update), or through an address computed from %tid (32 updates in a row).
  const std::string uniform = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  red.global.add.u32 [%rd1], 1;
  ret;
}
)";
  const std::string perLane = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 0;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  red.global.add.u32 [%rd3], 1;
  ret;
}
)";
  const auto &l = sm90().latency;
  EXPECT_NEAR(runOne(uniform, 32).timeInputs.hottestAtomicRegionCycles, l.atomicSectorCycles, 1e-9);
  EXPECT_NEAR(runOne(perLane, 32).timeInputs.hottestAtomicRegionCycles,
              l.atomicSectorCycles + 31 * l.sameAddressAtomicCycles, 1e-9);
}

TEST(CriticalPath, WhatIfsScaleThePathWithTheInstructionMix) {
  // Half the FMAs gone: the path (latency-bound, one warp) shrinks with them.
  const model::LaunchProfile p = runOne(fmaKernel(1, 64, true), 32);
  model::TimeInputs fewer = p.timeInputs;
  fewer.warpInstructionsByClass[static_cast<int>(model::InstructionClass::Fp32)] -= 32;
  const double before = model::estimateTime(*arch::findArch("h100").target, p.timeInputs).seconds;
  const double after = model::estimateTime(*arch::findArch("h100").target, fewer).seconds;
  EXPECT_LT(after, before);
  EXPECT_DOUBLE_EQ(before, p.time.seconds);
}

} // namespace
} // namespace ptxray::test
