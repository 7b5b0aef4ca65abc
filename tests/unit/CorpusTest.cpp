// Every PTX file of the corpus parses without a diagnostic, prints to canonical PTX that re-parses to
// the same IR, and printing is a fixed point.
#include "ptx/Parser.h"
#include "ptx/Printer.h"
#include "support/TestFiles.h"

#include <gtest/gtest.h>

namespace ptxray {
namespace {

using test::filesUnder;
using test::readFile;
using test::sourceDir;

std::vector<std::string> corpusFiles() {
  std::vector<std::string> out;
  for (const auto &p : filesUnder(sourceDir() / "tests" / "corpus", ".ptx"))
    out.push_back(std::filesystem::relative(p, sourceDir()).string());
  for (const auto &p : filesUnder(sourceDir() / "examples", ".ptx"))
    out.push_back(std::filesystem::relative(p, sourceDir()).string());
  return out;
}

class CorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusTest, ParsesRoundTripsAndIsAFixedPoint) {
  std::string path = GetParam();
  ptx::ParseResult first = ptx::parseModule(path, readFile(sourceDir() / path));
  ASSERT_TRUE(first.ok()) << first.diagnostics.render(first.module->sources);
  EXPECT_TRUE(first.diagnostics.all().empty()) << first.diagnostics.render(first.module->sources);

  std::string printed = ptx::printModule(*first.module);
  ptx::ParseResult second = ptx::parseModule(path + " (printed)", printed);
  ASSERT_TRUE(second.ok()) << second.diagnostics.render(second.module->sources);
  EXPECT_TRUE(first.module->sameIr(*second.module)) << "re-parsed IR differs for " << path;

  std::string reprinted = ptx::printModule(*second.module);
  EXPECT_EQ(printed, reprinted) << "printing is not a fixed point for " << path;
}

std::string testName(const ::testing::TestParamInfo<std::string> &info) {
  std::string name;
  for (char c : info.param)
    name.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusTest, ::testing::ValuesIn(corpusFiles()), testName);

TEST(CorpusInventory, CoversEveryProducer) {
  auto files = corpusFiles();
  auto count = [&](std::string_view dir) {
    return std::count_if(files.begin(), files.end(),
                         [&](const std::string &f) { return f.find(dir) != std::string::npos; });
  };
  EXPECT_GT(count("corpus/nvcc/compute_75/"), 5);
  EXPECT_GT(count("corpus/nvcc/compute_90/"), 5);
  EXPECT_GT(count("corpus/nvcc/compute_100/"), 5);
  EXPECT_GT(count("corpus/isa/"), 5);
}

} // namespace
} // namespace ptxray
