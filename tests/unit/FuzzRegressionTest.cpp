// Inputs the fuzzer once crashed on (fuzz/regressions/). Each must now either be rejected with
// located diagnostics or parse and round-trip; under the sanitizer build this also proves the
// memory errors are gone.
#include "ptx/Parser.h"
#include "ptx/Printer.h"
#include "support/TestFiles.h"

#include <gtest/gtest.h>

namespace ptxray {
namespace {

std::vector<std::string> regressionFiles() {
  std::vector<std::string> out;
  for (const auto &p : test::filesUnder(test::sourceDir() / "fuzz" / "regressions", ".ptx"))
    out.push_back(p.filename().string());
  return out;
}

class FuzzRegressionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzRegressionTest, RejectedWithLocatedErrorsOrRoundTrips) {
  std::string text = test::readFile(test::sourceDir() / "fuzz" / "regressions" / GetParam());
  ptx::ParseResult result = ptx::parseModule(GetParam(), text);
  if (!result.ok()) {
    ASSERT_FALSE(result.diagnostics.all().empty());
    for (const ptx::Diagnostic &d : result.diagnostics.all())
      EXPECT_LE(d.loc.offset, text.size()) << d.message;
    EXPECT_FALSE(result.diagnostics.render(result.module->sources).empty());
    return;
  }
  std::string printed = ptx::printModule(*result.module);
  ptx::ParseResult again = ptx::parseModule("printed", printed);
  ASSERT_TRUE(again.ok()) << again.diagnostics.render(again.module->sources);
  EXPECT_TRUE(result.module->sameIr(*again.module));
}

INSTANTIATE_TEST_SUITE_P(Regressions, FuzzRegressionTest, ::testing::ValuesIn(regressionFiles()), [](const auto &info) {
  std::string name;
  for (char c : info.param)
    name.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return name;
});

TEST(FuzzRegressions, CallOfUnresolvedTargetIsAnErrorNotACrash) {
  std::string text = test::readFile(test::sourceDir() / "fuzz" / "regressions" / "call-unresolved-target.ptx");
  ptx::ParseResult result = ptx::parseModule("call-unresolved-target.ptx", text);
  ASSERT_FALSE(result.ok());
  bool undeclared = false;
  for (const ptx::Diagnostic &d : result.diagnostics.all())
    undeclared |= d.message.find("undeclared identifier") != std::string::npos;
  EXPECT_TRUE(undeclared);
}

} // namespace
} // namespace ptxray
