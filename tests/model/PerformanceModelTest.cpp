// The performance model attached to real launches: counts per instruction and per source line,
// hand-derived from the kernels below (not from the model's own functions).
#include "model/PerformanceModel.h"
#include "model/Metrics.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>

#include <map>

namespace ptxray::test {
namespace {

// dst[i] = src[i + offset], i = ctaid.x * ntid.x + tid.x; the load is line 10, the store line 11.
const char *kOffsetCopy = R"(
.file 1 "copy.cu"
.visible .entry offset_copy(.param .u64 dst, .param .u64 src, .param .u32 offset)
{
  .reg .b32 %r<8>; .reg .f32 %f<2>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [dst];
  ld.param.u64 %rd2, [src];
  ld.param.u32 %r5, [offset];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  add.s32 %r6, %r4, %r5;
  mul.wide.u32 %rd3, %r6, 4;
  add.s64 %rd4, %rd2, %rd3;
  .loc 1 10 3
  ld.global.f32 %f1, [%rd4];
  mul.wide.u32 %rd5, %r4, 4;
  add.s64 %rd6, %rd1, %rd5;
  .loc 1 11 3
  st.global.f32 [%rd6], %f1;
  ret;
}
)";

std::map<std::string, double> metricMap(const model::LaunchProfile &launch) {
  std::map<std::string, double> metrics;
  for (const auto &[name, value] : model::launchMetrics(launch))
    metrics[name] = value;
  return metrics;
}

struct ModelRun {
  model::LaunchProfile profile;
  std::map<std::string, double> metrics;
  double metric(const std::string &name) const {
    auto it = metrics.find(name);
    if (it == metrics.end())
      throw std::runtime_error("no metric " + name);
    return it->second;
  }
};

ModelRun offsetCopy(const char *arch, uint32_t offset, bool inPlace = false) {
  std::string ptx = std::string(".version 6.0\n.target sm_30\n.address_size 64\n") + kOffsetCopy;
  VmHarness vm(arch);
  model::PerformanceModel perf(*arch::findArch(arch).target);
  vm.device.setListener(&perf);
  auto &m = vm.load(ptx);
  uint64_t dst = vm.zeros<float>(4096), src = vm.zeros<float>(4096 + 64);
  auto r = vm.launch(m, "offset_copy", {4, 1, 1}, {256, 1, 1}, inPlace ? src : dst, src, offset);
  EXPECT_TRUE(r.ok()) << describe(r);
  ModelRun run;
  run.profile = perf.launches().at(0);
  run.metrics = metricMap(run.profile);
  return run;
}

TEST(PerformanceModel, OffsetCopySectorsOnSm90) {
  // 4 x 256 threads = 32 warps; device allocations are 256-byte aligned. Offset 0: each warp reads 128
  // contiguous aligned bytes = 4 sectors; offset 1 shifts by 4 bytes: 5 sectors.
  ModelRun aligned = offsetCopy("sm_90", 0);
  EXPECT_EQ(aligned.metric("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), 32);
  EXPECT_EQ(aligned.metric("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), 128);
  EXPECT_EQ(aligned.metric("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), 32);
  EXPECT_EQ(aligned.metric("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), 128);
  EXPECT_DOUBLE_EQ(aligned.metric("gld_efficiency"), 100);
  ModelRun shifted = offsetCopy("sm_90", 1);
  EXPECT_EQ(shifted.metric("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), 160);
  EXPECT_DOUBLE_EQ(shifted.metric("gld_efficiency"), 80); // 4096 bytes asked, 160 x 32 moved
  EXPECT_EQ(shifted.metric("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), 128);
  // 15 instructions per warp (3 parameter loads, 3 sreg moves, mad, add, 2 x (mul.wide, add), ld, st,
  // ret), every lane active.
  EXPECT_EQ(aligned.metric("smsp__inst_executed.sum"), 32 * 15);
  EXPECT_EQ(aligned.metric("smsp__thread_inst_executed.sum"), 32 * 15 * 32);
  EXPECT_DOUBLE_EQ(aligned.metric("warp_execution_efficiency"), 100);
  // Kernel parameters are constant-bank reads of one address per warp.
  EXPECT_EQ(aligned.metric("ptxray__constant_requests"), 3 * 32);
  EXPECT_EQ(aligned.metric("ptxray__constant_transactions"), 3 * 32);
}

TEST(PerformanceModel, OffsetCopyTransactionsOnCc13) {
  // CC 1.3, per half-warp: offset 0 -> one 64-byte transaction (64 half-warps); offset 1 -> per warp one
  // 128-byte transaction for one half-warp and 64 + 32 bytes for the other (OpenCL BPG §3.2.1.2).
  ModelRun aligned = offsetCopy("sm_13", 0);
  EXPECT_EQ(aligned.metric("gld_requests"), 64);
  EXPECT_EQ(aligned.metric("gld_transactions"), 64);
  EXPECT_EQ(aligned.metric("ptxray__global_bytes_moved"), 64 * 64 + 64 * 64); // loads and stores alike
  ModelRun shifted = offsetCopy("sm_13", 1);
  EXPECT_EQ(shifted.metric("gld_transactions"), 32 * 3);
  double movedPerWarp = 128 + 64 + 32;
  EXPECT_DOUBLE_EQ(shifted.metric("gld_efficiency"), 100 * 128 / movedPerWarp);
}

TEST(PerformanceModel, CountsAreAttributedToSourceLines) {
  ModelRun run = offsetCopy("sm_90", 1);
  std::map<uint32_t, const model::LineProfile *> byLine;
  auto lines = model::lineProfiles(run.profile);
  for (const model::LineProfile &l : lines)
    byLine[l.line] = &l;
  ASSERT_TRUE(byLine.count(10) && byLine.count(11));
  EXPECT_EQ(byLine[10]->file, "copy.cu");
  EXPECT_EQ(byLine[10]->inputs.loads.globalTransactions, 160u);
  EXPECT_EQ(byLine[10]->inputs.stores.globalTransactions, 0u);
  EXPECT_EQ(byLine[11]->inputs.stores.globalTransactions, 128u);
  // The instructions before the first .loc have no line.
  ASSERT_TRUE(byLine.count(0));
  EXPECT_EQ(byLine[0]->file, "");
}

// Odd lanes take one path, even lanes the other: every execution of the branch diverges. The second
// branch is uniform (on the CTA index).
const char *kDivergence = R"(
.version 6.0
.target sm_30
.address_size 64
.visible .entry diverge(.param .u64 out)
{
  .reg .b32 %r<6>; .reg .b64 %rd<4>; .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  mov.u32 %r3, 7;
  @%p1 bra EVEN;
  mov.u32 %r3, 9;
EVEN:
  mov.u32 %r4, %ctaid.x;
  setp.eq.u32 %p2, %r4, 100;
  @%p2 bra DONE;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
DONE:
  ret;
}
)";

TEST(PerformanceModel, BranchAndWarpExecutionEfficiency) {
  VmHarness vm("sm_90");
  model::PerformanceModel perf(*arch::findArch("sm_90").target);
  vm.device.setListener(&perf);
  auto &m = vm.load(kDivergence);
  uint64_t out = vm.zeros<uint32_t>(64);
  auto r = vm.launch(m, "diverge", {1, 1, 1}, {64, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  std::map<std::string, double> metrics = metricMap(perf.launches().at(0));
  // Two warps, two conditional branches each: the first diverges every time, the second never.
  EXPECT_EQ(metrics["branch"], 4);
  EXPECT_EQ(metrics["divergent_branch"], 2);
  EXPECT_DOUBLE_EQ(metrics["branch_efficiency"], 50);
  // Per warp: 14 instructions, of which `mov.u32 %r3, 9` runs with the 16 odd lanes only.
  EXPECT_EQ(metrics["inst_executed"], 2 * 14);
  EXPECT_EQ(metrics["thread_inst_executed"], 2 * (13 * 32 + 16));
  EXPECT_DOUBLE_EQ(metrics["warp_execution_efficiency"], 100.0 * (13 * 32 + 16) / (14 * 32));
  // `@%p1 bra` is executed by all 32 lanes, with the guard true for 16.
  // 11 unguarded full-warp instructions, `mov.u32 %r3, 9` with 16 lanes, `@%p1 bra` with its guard true
  // for the 16 even lanes, `@%p2 bra` with its guard true for none.
  EXPECT_EQ(metrics["not_predicated_off_thread_inst_executed"], 2 * (11 * 32 + 16 + 16));
}

// A 32x32 float tile written row-wise and read column-wise: with 32 columns every column read hits
// one bank 32 times; with 33 columns (padding) the 32 words fall in 32 banks.
std::string tileKernel(int columns) {
  return replaceAll(R"(
.version 6.0
.target sm_30
.address_size 64
.visible .entry tile(.param .u64 out)
{
  .reg .b32 %r<12>; .reg .f32 %f<2>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 t[COLS4x32];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mad.lo.s32 %r3, %r2, COLS, %r1;
  shl.b32 %r4, %r3, 2;
  mov.u32 %r5, t;
  add.s32 %r6, %r5, %r4;
  cvt.rn.f32.u32 %f1, %r3;
  st.shared.f32 [%r6], %f1;
  bar.sync 0;
  mad.lo.s32 %r7, %r1, COLS, %r2;
  shl.b32 %r8, %r7, 2;
  add.s32 %r9, %r5, %r8;
  ld.shared.f32 %f1, [%r9];
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f1;
  ret;
}
)",
                    "COLS4x32", std::to_string(columns * 4 * 32));
}

TEST(PerformanceModel, SharedTileConflictsAndPadding) {
  for (int columns : {32, 33}) {
    SCOPED_TRACE(columns);
    std::string ptx = replaceAll(tileKernel(columns), "COLS", std::to_string(columns));
    VmHarness vm("sm_90");
    model::PerformanceModel perf(*arch::findArch("sm_90").target);
    vm.device.setListener(&perf);
    auto &m = vm.load(ptx);
    uint64_t out = vm.zeros<float>(32 * 33);
    auto r = vm.launch(m, "tile", {1, 1, 1}, {32, 32, 1}, out);
    ASSERT_TRUE(r.ok()) << describe(r);
    std::map<std::string, double> metrics = metricMap(perf.launches().at(0));
    // 32 warps, each one row: the row-wise store is conflict-free (1 wavefront per warp) either way.
    EXPECT_EQ(metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"], 32);
    EXPECT_EQ(metrics["smsp__inst_executed_op_shared_ld.sum"], 32);
    EXPECT_EQ(metrics["smsp__inst_executed_op_shared_st.sum"], 32);
    if (columns == 32) {
      EXPECT_EQ(metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"], 32 * 32);
      EXPECT_EQ(metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"], 32 * 31);
    } else {
      EXPECT_EQ(metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"], 32);
      EXPECT_EQ(metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"], 0);
    }
  }
}

TEST(PerformanceModel, InstructionMixAndTimeEstimate) {
  ModelRun run = offsetCopy("h100", 0);
  const model::LaunchProfile &L = run.profile;
  // The classes of the copy's 15 instructions, per warp.
  auto cls = [&](model::InstructionClass c) { return L.warpInstructionsByClass[static_cast<int>(c)]; };
  EXPECT_EQ(cls(model::InstructionClass::LoadStore), 32u * 5); // 3 ld.param, ld.global, st.global
  EXPECT_EQ(cls(model::InstructionClass::Control), 32u * 1);   // ret
  // mad.lo.s32 multiplies; the two mul.wide.s32 by 4 (the addresses) are shifts once ptxas is done.
  EXPECT_EQ(cls(model::InstructionClass::Int32Multiply), 32u * 1);
  EXPECT_EQ(cls(model::InstructionClass::Int32), 32u * 8);
  EXPECT_GT(L.time.seconds, 0);
  EXPECT_EQ(L.time.gpu, "H100 SXM5 80GB");
  EXPECT_NE(L.time.explanation.find("SMs"), std::string::npos);
  // 4 CTAs of 8 warps: too small to be anything but launch-overhead bound on an H100.
  EXPECT_EQ(L.time.dominant, model::Bound::LaunchOverhead);
  EXPECT_DOUBLE_EQ(run.metric("gpu__time_duration.sum"), L.time.seconds * 1e9);
}

// Per-thread arrays indexed dynamically live in local memory, interleaved so that the same offset
// of consecutive threads is contiguous: a warp's 4-byte local access is 128 contiguous bytes.
TEST(PerformanceModel, LocalMemoryIsInterleavedPerThread) {
  const char *ptx = R"(
.version 6.0
.target sm_30
.address_size 64
.visible .entry spill(.param .u64 out)
{
  .local .align 4 .b8 arr[64];
  .reg .b32 %r<8>; .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 15;
  shl.b32 %r3, %r2, 2;
  mov.u64 %rd1, arr;
  cvt.u64.u32 %rd2, %r3;
  add.s64 %rd3, %rd1, %rd2;
  st.local.u32 [%rd3], %r1;
  ld.local.u32 %r4, [arr];
  ld.param.u64 %rd4, [out];
  st.global.u32 [%rd4], %r4;
  ret;
}
)";
  VmHarness vm("sm_90");
  model::PerformanceModel perf(*arch::findArch("sm_90").target);
  vm.device.setListener(&perf);
  auto &m = vm.load(ptx);
  uint64_t out = vm.zeros<uint32_t>(1);
  auto r = vm.launch(m, "spill", {1, 1, 1}, {32, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  std::map<std::string, double> metrics = metricMap(perf.launches().at(0));
  // The load reads offset 0 of every thread: 32 x 4 contiguous bytes = 4 sectors.
  EXPECT_EQ(metrics["local_load_transactions"], 4);
  EXPECT_EQ(metrics["local_load_requests"], 1);
  EXPECT_EQ(metrics["local_store_requests"], 1);
  // Store: lane l writes row (l % 16) at column l: address row*128 + l*4 -> sector (row*128 + l*4)/32.
  // Distinct sectors: for l in 0..31, (l%16)*4 + l/8 -> all 32 values distinct.
  EXPECT_EQ(metrics["local_store_transactions"], 32);
}

TEST(PerformanceModel, FootprintsAndTheirOverlap) {
  // 1024 threads; allocations are 256-byte aligned. Offset 1 reads src[1..1024], bytes [4, 4100): sectors
  // 0..128, 129 x 32 bytes; the store writes dst[0..1023], 128 sectors. Different buffers: no overlap.
  ModelRun copy = offsetCopy("sm_90", 1);
  EXPECT_EQ(copy.profile.readFootprintBytes, 129u * 32);
  EXPECT_EQ(copy.profile.writeFootprintBytes, 128u * 32);
  EXPECT_EQ(copy.profile.readWriteOverlapBytes, 0u);
  EXPECT_EQ(copy.metric("ptxray__read_footprint_bytes"), 129 * 32);
  // In place (dst = src, offset 0): the 128 sectors read are the 128 written.
  ModelRun inPlace = offsetCopy("sm_90", 0, true);
  EXPECT_EQ(inPlace.profile.readFootprintBytes, 128u * 32);
  EXPECT_EQ(inPlace.profile.writeFootprintBytes, 128u * 32);
  EXPECT_EQ(inPlace.profile.readWriteOverlapBytes, 128u * 32);
  EXPECT_EQ(inPlace.metric("ptxray__read_write_overlap_bytes"), 128 * 32);
}

TEST(PerformanceModel, TimeInputsReproduceTheEstimate) {
  ModelRun copy = offsetCopy("h100", 1);
  const model::TimeInputs &in = copy.profile.timeInputs;
  // 32 load and 32 store requests; 160 + 128 sectors of 32 bytes; 4096 bytes read and 4096 written.
  EXPECT_EQ(in.memoryRequests, 64u);
  EXPECT_EQ(in.bytesMoved, (160u + 128u) * 32);
  EXPECT_EQ(in.bytesRequested, 8192u);
  EXPECT_EQ(in.readFootprintBytes, 129u * 32);
  EXPECT_EQ(in.writeFootprintBytes, 128u * 32);
  EXPECT_EQ(in.ctas, 4u);
  model::TimeEstimate again = model::estimateTime(*arch::findArch("h100").target, in);
  EXPECT_EQ(again.seconds, copy.profile.time.seconds);
  EXPECT_EQ(again.explanation, copy.profile.time.explanation);
  // A what-if: ten times the DRAM traffic only moves the memory bound.
  model::TimeInputs more = in;
  more.readFootprintBytes *= 10;
  EXPECT_GT(model::estimateTime(*arch::findArch("h100").target, more).memorySeconds, again.memorySeconds);
}

// GPU Boost ([KTG] §1.4.6): a K40 runs at its 745 MHz base clock until its 875 MHz boost clock is
// selected; the compute bound scales with the clock, the memory bound does not.
TEST(PerformanceModel, TimeEstimateAtTheSelectedClock) {
  const arch::ArchTarget k40 = *arch::findArch("k40").target;
  model::TimeInputs in;
  in.ctas = 15 * 64;
  in.warpInstructionsByClass[static_cast<size_t>(model::InstructionClass::Fp32)] = 15 * 64 * 100000;
  in.readFootprintBytes = 1 << 20;
  in.occupancy.activeWarpsPerSm = 64;
  const model::TimeEstimate shipped = model::estimateTime(k40, in);
  EXPECT_DOUBLE_EQ(shipped.clockHz, 745e6);
  model::TimeInputs boosted = in;
  boosted.smClockMHz = 875;
  const model::TimeEstimate boost = model::estimateTime(k40, boosted);
  EXPECT_DOUBLE_EQ(boost.clockHz, 875e6);
  EXPECT_NEAR(shipped.computeSeconds / boost.computeSeconds, 875.0 / 745, 1e-9);
  EXPECT_DOUBLE_EQ(shipped.memorySeconds, boost.memorySeconds);
  // Boards whose boost is automatic run at their highest boost clock as shipped.
  EXPECT_DOUBLE_EQ(model::estimateTime(*arch::findArch("k80").target, in).clockHz, 875e6);
  EXPECT_DOUBLE_EQ(model::estimateTime(*arch::findArch("h100").target, in).clockHz, 1980e6);
}

TEST(PerformanceModel, CopyLoadsEachSectorOncePerCta) {
  // Offset 0: every warp's 4 sectors are its own: 128 requested, 128 distinct per CTA, redundancy 1.
  ModelRun aligned = offsetCopy("sm_90", 0);
  EXPECT_EQ(aligned.metric("ptxray__global_ld_warp_sectors"), 128);
  EXPECT_EQ(aligned.metric("ptxray__global_ld_cta_distinct_sectors"), 128);
  EXPECT_DOUBLE_EQ(aligned.metric("ptxray__global_ld_cta_redundancy"), 1);
  // Offset 1: warp w of a CTA reads sectors 4w .. 4w + 4 (relative to the CTA's first), so neighbouring
  // warps share one: 8 x 5 = 40 requested, 33 distinct per CTA.
  ModelRun shifted = offsetCopy("sm_90", 1);
  EXPECT_EQ(shifted.metric("ptxray__global_ld_warp_sectors"), 4 * 40);
  EXPECT_EQ(shifted.metric("ptxray__global_ld_cta_distinct_sectors"), 4 * 33);
  EXPECT_DOUBLE_EQ(shifted.metric("ptxray__global_ld_cta_redundancy"), 40.0 / 33);
}

TEST(PerformanceModel, CopyAccessPatterns) {
  // 32 warps: aligned, every load and store is unit-stride; shifted by a word, the loads are misaligned
  // (5 sectors instead of 4) and the stores still aligned.
  ModelRun aligned = offsetCopy("sm_90", 0);
  EXPECT_EQ(aligned.metric("ptxray__global_ld_warp_accesses"), 32);
  EXPECT_EQ(aligned.metric("ptxray__global_ld_unit_stride_requests"), 32);
  EXPECT_EQ(aligned.metric("ptxray__global_st_unit_stride_requests"), 32);
  EXPECT_EQ(aligned.metric("ptxray__global_ld_misaligned_requests"), 0);
  ModelRun shifted = offsetCopy("sm_90", 1);
  EXPECT_EQ(shifted.metric("ptxray__global_ld_misaligned_requests"), 32);
  EXPECT_EQ(shifted.metric("ptxray__global_ld_unit_stride_requests"), 0);
  EXPECT_EQ(shifted.metric("ptxray__global_st_unit_stride_requests"), 32);
  EXPECT_EQ(shifted.metric("ptxray__global_ld_scattered_requests"), 0);
}

} // namespace
} // namespace ptxray::test
