// memcheck's planted bugs (tests/kernels/sanitizers/memcheck.cu): each is one thread's access, reported
// once, at the line written into its CUDA source, with the address and what it missed; each clean twin
// gives no fault; the other tools stay silent on all of them.
#include "sanitizers/SanitizerHarness.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

const std::string kMemcheck = "/tmp/ptxray-sanitizer-kernels/memcheck.cu";

std::string place(int line) {
  return kMemcheck + ":" + std::to_string(line);
}

/// The one memory error of a spec run with --memcheck (launches go on after an error), after
/// checking that it is the only report of any tool.
vm::Fault onlyFault(const ToolReports &r) {
  EXPECT_FALSE(r.outcome.ok());
  EXPECT_TRUE(r.racecheck.empty()) << describeAll(r.racecheck);
  EXPECT_TRUE(r.synccheck.empty()) << describeAll(r.synccheck);
  EXPECT_TRUE(r.initcheck.empty()) << describeAll(r.initcheck);
  EXPECT_TRUE(r.leaks.empty()) << describeAll(r.leaks);
  if (r.outcome.launches.size() != 1) {
    ADD_FAILURE() << r.outcome.launches.size() << " launches ran";
    return {};
  }
  const vm::LaunchResult &result = r.outcome.launches[0].result;
  EXPECT_EQ(result.faults.size(), 1u) << describe(result);
  return result.faults.empty() ? vm::Fault{} : result.faults[0];
}

TEST(MemcheckKernels, OverrunInsideTheAlignmentPadding) {
  // Thread 99 reads in[100]: byte 400 of the 400-byte buffer, still inside the 512 bytes the
  // allocation occupies at 256-byte granularity.
  ToolReports r = runWithTools(sanitizerSpec("mem_padding_overrun"), "sm_90", 1, false, true);
  vm::Fault f = onlyFault(r);
  EXPECT_EQ(f.kind, vm::FaultKind::OutOfBounds);
  EXPECT_EQ(f.sourceLine, place(12));
  EXPECT_EQ(f.thread, (vm::Dim3{99, 0, 0}));
  EXPECT_EQ(f.block, (vm::Dim3{0, 0, 0}));
  EXPECT_FALSE(f.isWrite);
  EXPECT_EQ(f.size, 4u);
  EXPECT_EQ(f.space, vm::Space::Global);
  EXPECT_EQ(f.instructionText, "ld.global.u32 \t%r6, [%rd6+4];");
  EXPECT_EQ(f.detail, fmt::format("the address is 0 bytes past the end of buffer in (400 bytes) (0x{:x}, 400 bytes)",
                                  f.address - 400))
      << f.describe();
}

TEST(MemcheckKernels, ReadThatLandsInTheNeighbouringAllocation) {
  // Thread 0 reads in[-1]. `before` (512 bytes) is allocated first; ptxray leaves one empty 256-byte
  // granule after each allocation, so `in` starts 768 bytes after `before` and in[-1] is 252 bytes
  // past the end of `before`, 4 before the start of `in` (on the GPU: the last int of `before`).
  ToolReports r = runWithTools(sanitizerSpec("mem_neighbour_read"), "sm_90", 1, false, true);
  vm::Fault f = onlyFault(r);
  EXPECT_EQ(f.kind, vm::FaultKind::OutOfBounds);
  EXPECT_EQ(f.sourceLine, place(26));
  EXPECT_EQ(f.thread, (vm::Dim3{0, 0, 0}));
  EXPECT_FALSE(f.isWrite);
  EXPECT_EQ(f.size, 4u);
  const uint64_t in = f.address + 4, before = in - 768;
  EXPECT_EQ(f.detail, fmt::format("the address is 252 bytes past the end of buffer before (512 bytes) (0x{:x}, 512 "
                                  "bytes) and 4 bytes before the start of buffer in (512 bytes) (0x{:x}, 512 bytes)",
                                  before, in))
      << f.describe();
}

TEST(MemcheckKernels, LocalArrayOverrun) {
  // Thread 8 looks up exponent 8 in its 8-int table: offset 32 of its 32 bytes of local memory.
  ToolReports r = runWithTools(sanitizerSpec("mem_local_overrun"), "sm_90", 1, false, true);
  vm::Fault f = onlyFault(r);
  EXPECT_EQ(f.kind, vm::FaultKind::OutOfBounds);
  EXPECT_EQ(f.sourceLine, place(45));
  EXPECT_EQ(f.thread, (vm::Dim3{8, 0, 0}));
  EXPECT_FALSE(f.isWrite);
  EXPECT_EQ(f.space, vm::Space::Local);
  EXPECT_EQ(f.address, 32u);
  EXPECT_EQ(f.detail, "the local window is 32 bytes; the access of 4 bytes is at offset 32") << f.describe();
}

TEST(MemcheckKernels, WithoutMemcheckTheLaunchStopsAtTheSameError) {
  for (const char *name : {"mem_padding_overrun", "mem_neighbour_read", "mem_local_overrun"}) {
    ToolReports stopped = runWithTools(sanitizerSpec(name), "sm_90", 1, false, false);
    ToolReports continued = runWithTools(sanitizerSpec(name), "sm_90", 1, false, true);
    ASSERT_EQ(stopped.outcome.launches.size(), 1u) << name;
    ASSERT_EQ(stopped.outcome.launches[0].result.faults.size(), 1u) << name;
    ASSERT_EQ(continued.outcome.launches[0].result.faults.size(), 1u) << name;
    EXPECT_EQ(stopped.outcome.launches[0].result.faults[0].describe(),
              continued.outcome.launches[0].result.faults[0].describe())
        << name;
  }
}

TEST(MemcheckKernels, CleanTwinsGiveNoReport) {
  for (const char *name : {"mem_padding_overrun_clean", "mem_neighbour_read_clean", "mem_local_overrun_clean"}) {
    ToolReports r = runWithTools(sanitizerSpec(name), "sm_90", 2, false, true);
    EXPECT_TRUE(r.outcome.ok()) << name << ": " << r.outcome.error;
    ASSERT_EQ(r.outcome.launches.size(), 1u) << name;
    EXPECT_TRUE(r.outcome.launches[0].result.faults.empty()) << name << describe(r.outcome.launches[0].result);
    EXPECT_TRUE(r.racecheck.empty() && r.synccheck.empty() && r.initcheck.empty() && r.leaks.empty()) << name;
  }
}

TEST(MemcheckKernels, TheSameErrorsFromTheOtherTargets) {
  // compute_75 (nvcc) and sm_35 (clang 14): the same thread, line and kind of error.
  for (const char *name : {"mem_padding_overrun", "mem_neighbour_read", "mem_local_overrun"}) {
    vm::Fault hopper = onlyFault(runWithTools(sanitizerSpec(name), "sm_90", 1, false, true));
    for (auto [target, arch] : {std::pair{"compute_75", "sm_75"}, std::pair{"clang_sm35", "sm_35"}}) {
      vm::Fault other = onlyFault(runWithTools(sanitizerSpecFor(name, target), arch, 1, false, true));
      EXPECT_EQ(other.kind, hopper.kind) << name << " " << target;
      EXPECT_EQ(other.sourceLine, hopper.sourceLine) << name << " " << target;
      EXPECT_EQ(other.thread, hopper.thread) << name << " " << target;
      EXPECT_EQ(other.space, hopper.space) << name << " " << target;
      EXPECT_EQ(other.detail, hopper.detail) << name << " " << target;
    }
  }
}

} // namespace
} // namespace ptxray::test
