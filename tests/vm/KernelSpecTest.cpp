// End to end: every run spec of tests/kernels/vm (the guides' kernels, compiled by nvcc 13 for
// compute_75 and compute_90) runs in the VM and must give, byte for byte, what the CPU references
// compute — the same references a real H200 matched on all 35 runs (validation/vm/results).
#include "kernels/vm/Reference.h"
#include "session/RunSpec.h"
#include "support/TestFiles.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

struct SpecCase {
  std::filesystem::path spec;
  std::filesystem::path module; ///< the PTX to run (the spec's own or the other target's)
  std::string label;
};

std::vector<SpecCase> specCases() {
  std::vector<SpecCase> cases;
  const auto root = sourceDir() / "tests/kernels/vm";
  for (const auto &spec : filesUnder(root / "specs", ".json")) {
    session::RunSpec parsed = session::loadRunSpec(spec);
    std::string name = spec.stem().string();
    cases.push_back({spec, parsed.module, name});
    // The same kernels compiled for the other target, where the source was compiled for both.
    std::string arch = parsed.module.parent_path().filename().string();
    for (const char *other : {"compute_75", "compute_90"}) {
      auto alt = root / "ptx" / other / parsed.module.filename();
      if (arch != other && std::filesystem::exists(alt))
        cases.push_back({spec, alt, name + "_" + other});
    }
  }
  return cases;
}

void PrintTo(const SpecCase &c, std::ostream *os) {
  *os << c.label;
}

class KernelSpec : public ::testing::TestWithParam<SpecCase> {};

TEST_P(KernelSpec, MatchesTheCpuReference) {
  const SpecCase &c = GetParam();
  session::RunSpec spec = session::loadRunSpec(c.spec);
  spec.module = c.module;
  session::RunOptions options;
  options.writeOutputs = false;
  options.keepBuffers = true;
  options.launch.threads = 2;
  session::RunOutcome outcome = session::runSpec(spec, options);
  vm::ref::Expected expected = vm::ref::runReference(c.spec);
  if (expected.error) {
    EXPECT_FALSE(outcome.ok()) << "the reference says a launch fails: " << *expected.error;
    return;
  }
  ASSERT_TRUE(outcome.ok()) << outcome.error << "\n"
                            << (outcome.launches.empty() || outcome.launches.back().result.faults.empty()
                                    ? std::string()
                                    : outcome.launches.back().result.faults.front().describe());
  for (const auto &[name, bytes] : expected.outputs) {
    auto it = outcome.buffers.find(name);
    ASSERT_NE(it, outcome.buffers.end()) << name;
    ASSERT_EQ(it->second.size(), bytes.size()) << name;
    size_t mismatches = 0, first = bytes.size();
    for (size_t i = 0; i < bytes.size(); ++i)
      if (std::to_integer<unsigned char>(it->second[i]) != bytes[i]) {
        ++mismatches;
        first = std::min(first, i);
      }
    EXPECT_EQ(mismatches, 0u) << name << ": first differing byte at offset " << first;
  }
  EXPECT_EQ(vm::ref::sortedLines(outcome.printfOutput), expected.stdoutLines);
}

INSTANTIATE_TEST_SUITE_P(Specs, KernelSpec, ::testing::ValuesIn(specCases()),
                         [](const ::testing::TestParamInfo<SpecCase> &info) { return info.param.label; });

} // namespace
} // namespace ptxray::test
