// The real-kernel benchmark set (bench/RealKernels.h) computes what a CPU reference computes, with one
// worker and with several, and retires the same thread-instructions either way: the speed measured
// in bench/ is the speed of right answers.
#include "RealKernels.h"

#include "arch/GpuDatabase.h"
#include "support/TestFiles.h"

#include <gtest/gtest.h>

namespace {

using namespace ptxray;

class RealKernels : public ::testing::TestWithParam<size_t> {};

TEST_P(RealKernels, MatchTheCpuReference) {
  const std::string ptx = test::readFile(bench::realKernelsPtxPath());
  uint64_t instructions[2] = {0, 0};
  for (unsigned workers : {1u, 2u}) {
    auto kernel = std::move(bench::realKernels()[GetParam()]);
    vm::Device device(*arch::findArch("sm_90").target->computeCapability, 132);
    auto &module = device.loadModule("real_kernels.ptx", ptx);
    kernel->setUp(device);
    vm::LaunchOptions options;
    options.threads = workers;
    for (const bench::RealLaunch &l : kernel->launches()) {
      vm::LaunchResult r = device.launch(module, l.entry, l.config, l.args, options);
      ASSERT_TRUE(r.ok()) << kernel->name() << ": " << r.error;
      instructions[workers - 1] += r.threadInstructions;
    }
    EXPECT_EQ(kernel->check(device), "") << kernel->name() << " with " << workers << " worker(s)";
  }
  EXPECT_GT(instructions[0], 1'000'000u);
  EXPECT_EQ(instructions[0], instructions[1]);
}

INSTANTIATE_TEST_SUITE_P(Bench, RealKernels, ::testing::Range<size_t>(0, bench::realKernels().size()),
                         [](const ::testing::TestParamInfo<size_t> &info) {
                           return bench::realKernels()[info.param]->name();
                         });

} // namespace
