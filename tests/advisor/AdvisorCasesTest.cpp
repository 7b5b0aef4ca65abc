// Every rule on a kernel of this project that triggers it and on a fixed variant that does not, on
// the GPUs where the guides say it matters (tests/advisor/cases.json; kernels/*.cu, PTX by
// kernels/regen.sh). A case lists the rules that must appear and the ones that must not. The cases of
// the guide's kernels run again written in OpenCL C (examples/opencl, kernels/opencl), compiled by
// clang and libclc: the same findings, as the guide would have them for either language.
#include "support/AdvisorHarness.h"
#include "support/TestFiles.h"
#include "toolchain/Compilers.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>

namespace ptxray::test {
namespace {

struct Case {
  std::string name;
  std::string arch;
  nlohmann::json spec;
  std::vector<std::string> expect, absent;
};

std::vector<Case> loadCases() {
  nlohmann::json cases = nlohmann::json::parse(readFile(sourceDir() / "tests/advisor/cases.json"));
  std::vector<Case> out;
  std::set<std::string> archsSeen;
  for (const nlohmann::json &c : cases)
    for (const nlohmann::json &arch : c.at("arch")) {
#ifdef PTXRAY_SANITIZER_BUILD
      // Under the sanitizers, each case on its first GPU and each GPU at least once: a rule runs the
      // same code on the others, which the Release tree checks (all 218 took 67 s under ASan).
      if (&arch != &c.at("arch").front() && archsSeen.count(arch.get<std::string>()))
        continue;
#endif
      archsSeen.insert(arch.get<std::string>());
      out.push_back({c.at("name"), arch.get<std::string>(), c.at("spec"), c.at("expect"), c.at("absent")});
    }
  return out;
}

/// The cases whose kernels have an OpenCL C twin, with the twin as their module.
std::vector<Case> openclCases() {
  static const std::pair<const char *, const char *> kTwins[] = {
      {"kernels/coalescing.ptx", "../../examples/opencl/copy.cl"},
      {"kernels/matmul_ab.ptx", "../../examples/opencl/multiply.cl"},
      {"kernels/matmul_aat.ptx", "kernels/opencl/matmul_aat.cl"},
  };
  std::vector<Case> out;
  for (Case c : loadCases())
    for (auto [ptx, cl] : kTwins)
      if (c.spec.at("module") == ptx) {
        c.spec["module"] = cl;
        c.name += "_opencl";
        out.push_back(std::move(c));
        break;
      }
  return out;
}

void PrintTo(const Case &c, std::ostream *os) {
  *os << c.name << " on " << c.arch;
}

class AdvisorCase : public ::testing::TestWithParam<Case> {};

TEST_P(AdvisorCase, ExpectedFindingsAndNoOthersListed) {
  const Case &c = GetParam();
  if (std::string(c.spec.at("module")).ends_with(".cl"))
    if (std::string why = toolchain::openclUnavailableReason(); !why.empty())
      GTEST_SKIP() << why;
  session::RunSpec spec = session::parseRunSpec(c.spec, c.name, sourceDir() / "tests/advisor");
  std::vector<AdvisedLaunch> launches = adviseSpec(spec, c.arch);
  ASSERT_FALSE(launches.empty());
  std::set<std::string> rules;
  for (const AdvisedLaunch &l : launches)
    for (const advisor::Finding &f : l.findings)
      rules.insert(f.rule);
  std::string got;
  for (const std::string &r : rules)
    got += " " + r;
  for (const std::string &rule : c.expect)
    EXPECT_TRUE(rules.count(rule)) << rule << " missing; got:" << got;
  for (const std::string &rule : c.absent)
    EXPECT_FALSE(rules.count(rule)) << rule << " reported; got:" << got;
}

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  std::string name = info.param.name + "_" + info.param.arch;
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, AdvisorCase, ::testing::ValuesIn(loadCases()), caseName);
INSTANTIATE_TEST_SUITE_P(OpenCLCases, AdvisorCase, ::testing::ValuesIn(openclCases()), caseName);

} // namespace
} // namespace ptxray::test
