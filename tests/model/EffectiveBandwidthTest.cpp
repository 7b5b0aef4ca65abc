// The guide's effective bandwidth ([BPG] 2.2.2: the bytes the algorithm reads and writes, once each,
// over the time) against hand-derived byte counts, next to the bytes requested and moved; and the
// generations' global atomics ([KTG] 1.4.4.4: Kepler's same-address atomics nine times Fermi's).
#include "arch/GpuDatabase.h"
#include "model/PerformanceModel.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>

#include <string>

namespace ptxray::test {
namespace {

model::LaunchProfile runOne(const char *gpu, const std::string &body, uint32_t ctas, uint32_t threads,
                            uint64_t bufferWords) {
  const std::string ptx = ".version 7.0\n.target sm_35\n.address_size 64\n" + body;
  VmHarness vm("sm_35");
  model::PerformanceModel perf(*arch::findArch(gpu).target);
  vm.device.setListener(&perf);
  auto &m = vm.load(ptx);
  const uint64_t in = vm.zeros<float>(bufferWords);
  const uint64_t out = vm.zeros<float>(bufferWords);
  auto r = vm.launch(m, "k", {ctas, 1, 1}, {threads, 1, 1}, in, out);
  EXPECT_TRUE(r.ok()) << describe(r);
  return perf.launches().at(0);
}

// out[i] = in[stride * i]: each thread reads one word and writes one.
std::string strideCopy(int stride) {
  return ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
         "  .reg .b32 %r<4>;\n  .reg .f32 %f<2>;\n  .reg .b64 %rd<8>;\n"
         "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n"
         "  mov.u32 %r1, %ctaid.x;\n  mov.u32 %r2, %ntid.x;\n  mov.u32 %r3, %tid.x;\n"
         "  mad.lo.s32 %r1, %r1, %r2, %r3;\n"
         "  mul.wide.s32 %rd3, %r1, " +
         std::to_string(4 * stride) +
         ";\n  add.s64 %rd4, %rd1, %rd3;\n  ld.global.f32 %f1, [%rd4];\n"
         "  mul.wide.s32 %rd5, %r1, 4;\n  add.s64 %rd6, %rd2, %rd5;\n  st.global.f32 [%rd6], %f1;\n  ret;\n}\n";
}

TEST(EffectiveBandwidth, StridedCopyCountsTheWordsUsedNotTheSectors) {
  // 4 CTAs of 128 threads, stride 2: 512 words read (2048 B) spread over 4096 B, 2048 B written. The
  // sectors read cover 4096 B; the algorithm's bytes are 2048 + 2048.
  const model::LaunchProfile p = runOne("k20x", strideCopy(2), 4, 128, 1024);
  EXPECT_EQ(p.uniqueBytesRead, 2048u);
  EXPECT_EQ(p.uniqueBytesWritten, 2048u);
  EXPECT_EQ(p.readFootprintBytes, 4096u);
  EXPECT_EQ(p.timeInputs.uniqueBytes, 4096u);
  EXPECT_EQ(p.timeInputs.bytesRequested, 4096u);
  EXPECT_NEAR(p.time.effectiveBandwidthGBps, 4096 / 1e9 / p.time.seconds, 1e-9);
  EXPECT_NEAR(p.time.dramBandwidthGBps, static_cast<double>(p.time.dramBytes) / 1e9 / p.time.seconds, 1e-9);
}

TEST(EffectiveBandwidth, RepeatedReadsCountOnce) {
  // Every thread of 2 CTAs reads the same 8 words in turn (a broadcast per load), then writes its own.
  std::string body = ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
                     "  .reg .b32 %r<4>;\n  .reg .f32 %f<12>;\n  .reg .b64 %rd<8>;\n"
                     "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n  mov.f32 %f0, 0f00000000;\n";
  for (int i = 0; i < 8; ++i)
    body += "  ld.global.f32 %f" + std::to_string(i + 1) + ", [%rd1+" + std::to_string(4 * i) +
            "];\n  add.f32 %f0, %f0, %f" + std::to_string(i + 1) + ";\n";
  body += "  mov.u32 %r1, %ctaid.x;\n  mov.u32 %r2, %ntid.x;\n  mov.u32 %r3, %tid.x;\n"
          "  mad.lo.s32 %r1, %r1, %r2, %r3;\n  mul.wide.s32 %rd5, %r1, 4;\n  add.s64 %rd6, %rd2, %rd5;\n"
          "  st.global.f32 [%rd6], %f0;\n  ret;\n}\n";
  const model::LaunchProfile p = runOne("k20x", body, 2, 64, 128);
  EXPECT_EQ(p.uniqueBytesRead, 32u);     // 8 words, however many threads read them
  EXPECT_EQ(p.uniqueBytesWritten, 512u); // 128 threads x 4 bytes
  EXPECT_EQ(p.timeInputs.bytesRequested, 128u * 8 * 4 + 512);
  EXPECT_LT(p.time.effectiveBandwidthGBps, p.time.requestedBandwidthGBps);
}

TEST(EffectiveBandwidth, UnalignedWideAccessesCoverTheirBytesAcrossSectors) {
  // 32 threads each read 8 bytes at 4 + 8 i (straddling every 32-byte sector boundary): 256 bytes
  // from offset 4, over 9 sectors; they write 8 bytes each at 8 i.
  const std::string body = ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
                           "  .reg .b32 %r<2>;\n  .reg .b64 %rd<8>;\n"
                           "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n"
                           "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd3, %r1, 8;\n"
                           "  add.s64 %rd4, %rd1, %rd3;\n  ld.global.u32 %r1, [%rd4+4];\n"
                           "  ld.global.u32 %r1, [%rd4+8];\n"
                           "  add.s64 %rd5, %rd2, %rd3;\n  st.global.v2.u32 [%rd5], {%r1, %r1};\n  ret;\n}\n";
  const model::LaunchProfile p = runOne("k20x", body, 1, 32, 128);
  EXPECT_EQ(p.uniqueBytesRead, 256u);
  EXPECT_EQ(p.uniqueBytesWritten, 256u);
  EXPECT_EQ(p.readFootprintBytes, 9u * 32);
}

TEST(EffectiveBandwidth, AtomicsReadAndWriteTheirWordOnce) {
  // 256 threads add to one word: 4 bytes read, 4 written.
  const std::string body = ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
                           "  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;\n"
                           "  ld.param.u64 %rd1, [out];\n  red.global.add.u32 [%rd1], 1;\n  ret;\n}\n";
  const model::LaunchProfile p = runOne("k20x", body, 2, 128, 16);
  EXPECT_EQ(p.uniqueBytesRead, 4u);
  EXPECT_EQ(p.uniqueBytesWritten, 4u);
}

// [KTG] 1.4.4.4, [WP] GK110: same-address atomics nine times faster on Kepler than on Fermi. The
// serialization the model charges to the word's L2 unit, in SM cycles.
TEST(GenerationAtomics, SameAddressAtomicsAreNineTimesFasterOnKeplerThanFermi) {
  const std::string body = ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
                           "  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [out];\n"
                           "  mov.u32 %r1, %tid.x;\n  red.global.add.u32 [%rd1], %r1;\n  ret;\n}\n";
  const model::LaunchProfile fermi = runOne("gtx480", body, 64, 256, 16);
  const model::LaunchProfile kepler = runOne("k20x", body, 64, 256, 16);
  const double lanes = 64.0 * 256; // 512 warps of 32 lanes on one word: 31 further lanes each
  EXPECT_NEAR(fermi.timeInputs.hottestAtomicRegionCycles, 512 * (1.2 + 31 * 9), 1e-6 * lanes);
  EXPECT_NEAR(kepler.timeInputs.hottestAtomicRegionCycles, 512 * (1.2 + 31 * 1), 1e-6 * lanes);
  EXPECT_EQ(fermi.time.dominant, model::Bound::Serialization);
  // Seconds: Fermi's serialization in its own clock, several times Kepler's.
  EXPECT_GT(fermi.time.serializationSeconds, 4 * kepler.time.serializationSeconds);
}

} // namespace
} // namespace ptxray::test
