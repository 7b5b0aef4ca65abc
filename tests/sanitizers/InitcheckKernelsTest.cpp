// initcheck's and the leak check's planted bugs (tests/kernels/sanitizers/initcheck.cu, leaks.cu):
// each bug is reported once, at the line written into its CUDA source, with a hand-counted number of
// occurrences; each clean twin gives no report.
#include "sanitizers/SanitizerHarness.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

const std::string kInit = "/tmp/ptxray-sanitizer-kernels/initcheck.cu";
const std::string kLeaks = "/tmp/ptxray-sanitizer-kernels/leaks.cu";

std::string place(const std::string &file, int line) {
  return file + ":" + std::to_string(line);
}

bool mentions(const sanitizers::Hazard &h, const std::string &text) {
  return h.describe().find(text) != std::string::npos;
}

/// The one initcheck report of a spec, after checking that it is the only report of any tool.
const sanitizers::Hazard &onlyInitReport(const ToolReports &r) {
  EXPECT_TRUE(r.outcome.ok()) << r.outcome.error;
  EXPECT_EQ(r.initcheck.size(), 1u) << describeAll(r.initcheck);
  EXPECT_TRUE(r.leaks.empty()) << describeAll(r.leaks);
  EXPECT_EQ(r.initErrors, r.initcheck.size());
  static const sanitizers::Hazard none;
  return r.initcheck.empty() ? none : r.initcheck[0];
}

TEST(InitcheckKernels, GlobalBufferNothingWrote) {
  ToolReports r = runWithTools(sanitizerSpec("init_global"));
  const sanitizers::Hazard &h = onlyInitReport(r);
  EXPECT_EQ(h.severity, sanitizers::Severity::Error);
  EXPECT_EQ(h.headline, "Uninitialized __global__ memory read of size 4 bytes at " + place(kInit, 8));
  EXPECT_EQ(h.occurrences, 128u); // every thread of 2 blocks of 64 reads one int
  EXPECT_TRUE(mentions(h, "by thread (0,0,0) in block (0,0,0) at ")) << h.describe();
  EXPECT_TRUE(mentions(h, "ld.global.u32")) << h.describe();
  EXPECT_TRUE(mentions(h, "is byte 0 of buffer in (512 bytes) at 0x")) << h.describe();
}

TEST(InitcheckKernels, GlobalShadowLastsAcrossLaunches) {
  // fillGlobal writes in[0..31] in the first launch; copyGlobal reads in[0..127]: 96 reads of
  // elements nobody wrote, the first by thread 32 of block 0 at byte 128.
  ToolReports r = runWithTools(sanitizerSpec("init_global_partly_filled"));
  ASSERT_EQ(r.outcome.launches.size(), 2u);
  const sanitizers::Hazard &h = onlyInitReport(r);
  EXPECT_EQ(h.headline, "Uninitialized __global__ memory read of size 4 bytes at " + place(kInit, 8));
  EXPECT_EQ(h.occurrences, 96u);
  EXPECT_TRUE(mentions(h, "by thread (32,0,0) in block (0,0,0)")) << h.describe();
  EXPECT_TRUE(mentions(h, "is byte 128 of buffer in (512 bytes)")) << h.describe();
}

TEST(InitcheckKernels, SharedTileHalfFilled) {
  // Only warp 0 writes tile[0..31]; warp 1 reads tile[32..63]: 32 reads per block, two blocks.
  ToolReports r = runWithTools(sanitizerSpec("init_shared"));
  const sanitizers::Hazard &h = onlyInitReport(r);
  EXPECT_EQ(h.headline, "Uninitialized __shared__ memory read of size 4 bytes at " + place(kInit, 24));
  EXPECT_EQ(h.occurrences, 64u);
  EXPECT_TRUE(mentions(h, "by thread (32,0,0) in block (0,0,0)")) << h.describe();
  EXPECT_TRUE(mentions(h, "address 0x80 (shared), _ZZ16sharedHalfFilledPiE4tile+128: no thread of the block wrote it"))
      << h.describe();
}

TEST(InitcheckKernels, SharedMemoryIsPerBlock) {
  // Block 0 writes the tile; blocks 1 and 2 only read it (the worker's memory still holds block 0's
  // values): 64 reads each.
  for (unsigned workers : {1u, 3u}) {
    ToolReports r = runWithTools(sanitizerSpec("init_shared_other_block"), "sm_90", workers);
    const sanitizers::Hazard &h = onlyInitReport(r);
    EXPECT_EQ(h.headline, "Uninitialized __shared__ memory read of size 4 bytes at " + place(kInit, 43));
    EXPECT_EQ(h.occurrences, 128u) << workers;
    EXPECT_TRUE(mentions(h, "by thread (0,0,0) in block (1,0,0)")) << h.describe();
  }
}

TEST(InitcheckKernels, LocalArrayReadBeforeWrite) {
  // Each of 32 threads fills a[0..3] and sums a[0..7]: 4 reads of unwritten elements per thread, the
  // first at a[4] (byte 16 of the thread's local memory).
  ToolReports r = runWithTools(sanitizerSpec("init_local"));
  const sanitizers::Hazard &h = onlyInitReport(r);
  EXPECT_EQ(h.headline, "Uninitialized __local__ memory read of size 4 bytes at " + place(kInit, 56));
  EXPECT_EQ(h.occurrences, 128u);
  EXPECT_TRUE(mentions(h, "ld.local.u32")) << h.describe();
  EXPECT_TRUE(mentions(h, "address 0x10 (local): the thread never wrote it")) << h.describe();
}

TEST(InitcheckKernels, CleanTwinsGiveNoReport) {
  for (const char *name : {"init_global_clean", "init_global_filled_by_kernel", "init_shared_clean", "init_local_clean",
                           "leak_per_thread", "leak_per_thread_clean", "leak_kept_blocks", "leak_freed_next_launch"}) {
    ToolReports r = runWithTools(sanitizerSpec(name), "sm_90", 2);
    EXPECT_TRUE(r.outcome.ok()) << name << ": " << r.outcome.error;
    EXPECT_TRUE(r.initcheck.empty()) << name << "\n" << describeAll(r.initcheck);
    EXPECT_EQ(r.initErrors, 0u) << name;
  }
}

TEST(InitcheckKernels, ZeroedBuffersCountAsWritten) {
  // The spec's default ("zero") is a host copy: the same kernel as init_global is clean.
  session::RunSpec spec = sanitizerSpec("init_global");
  spec.buffers[0].init.kind = session::BufferInit::Kind::Zero;
  ToolReports r = runWithTools(spec);
  EXPECT_TRUE(r.initcheck.empty()) << describeAll(r.initcheck);
}

TEST(LeakcheckKernels, MallocWithoutFree) {
  // 2 blocks of 32 threads, 16 ints each: 64 blocks of 64 bytes.
  ToolReports r = runWithTools(sanitizerSpec("leak_per_thread"));
  ASSERT_EQ(r.leaks.size(), 1u) << describeAll(r.leaks);
  const sanitizers::Hazard &h = r.leaks[0];
  EXPECT_EQ(h.severity, sanitizers::Severity::Error);
  EXPECT_EQ(h.headline, "Leaked 4096 bytes in 64 device-heap blocks allocated by malloc at " + place(kLeaks, 6));
  EXPECT_EQ(h.occurrences, 64u);
  EXPECT_TRUE(mentions(h, "in kernel _Z16scratchPerThreadPii")) << h.describe();
  EXPECT_TRUE(mentions(h, "first: 64 bytes at 0x")) << h.describe();
  EXPECT_TRUE(mentions(h, "by thread (0,0,0) in block (0,0,0) of launch 1")) << h.describe();
  EXPECT_EQ(r.leakedBlocks, 64u);
  EXPECT_EQ(r.leakedBytes, 4096u);
}

TEST(LeakcheckKernels, BlocksKeptForALaterLaunch) {
  ToolReports kept = runWithTools(sanitizerSpec("leak_kept_blocks"), "sm_90", 2);
  ASSERT_EQ(kept.leaks.size(), 1u) << describeAll(kept.leaks);
  EXPECT_EQ(kept.leaks[0].headline,
            "Leaked 1024 bytes in 4 device-heap blocks allocated by malloc at " + place(kLeaks, 18));
  // Freed by the second launch, on other workers than those that allocated them: no leak.
  ToolReports freed = runWithTools(sanitizerSpec("leak_freed_next_launch"), "sm_90", 2);
  EXPECT_TRUE(freed.outcome.ok()) << freed.outcome.error;
  EXPECT_TRUE(freed.leaks.empty()) << describeAll(freed.leaks);
  EXPECT_EQ(freed.leakedBytes, 0u);
}

TEST(LeakcheckKernels, FreedBlocksAreNotLeaks) {
  ToolReports r = runWithTools(sanitizerSpec("leak_per_thread_clean"), "sm_90", 2);
  EXPECT_TRUE(r.outcome.ok()) << r.outcome.error;
  EXPECT_TRUE(r.leaks.empty()) << describeAll(r.leaks);
  EXPECT_EQ(r.leakedBlocks, 0u);
}

TEST(InitcheckKernels, ReportsDoNotDependOnWorkerCount) {
  for (const char *name : {"init_global", "init_shared", "init_local", "init_shared_other_block"}) {
    session::RunSpec spec = sanitizerSpec(name);
    ToolReports one = runWithTools(spec, "sm_90", 1), four = runWithTools(spec, "sm_90", 4);
    ASSERT_FALSE(one.initcheck.empty()) << name;
    EXPECT_EQ(describeAll(one.initcheck), describeAll(four.initcheck)) << name;
  }
}

} // namespace
} // namespace ptxray::test
