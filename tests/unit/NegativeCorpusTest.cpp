// Every file under tests/negative/ is malformed PTX whose leading comments state exactly which errors
// the front end must report:
//
//   // expect-error: 7:3: unknown instruction 'addd'
//
// (1-based line:column, then a substring of the message). A file passes when parsing fails, every
// expected error is reported at exactly that position with that text, and no other error is reported.
// Notes are not errors and are not counted. `// expect-warning: L:C: text` states a warning that must
// be reported the same way; warnings nobody annotated do not fail a file.
#include "ptx/Parser.h"
#include "support/TestFiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace ptxray {
namespace {

using test::filesUnder;
using test::readFile;
using test::sourceDir;

struct Expectation {
  ptx::Severity severity = ptx::Severity::Error;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;
  int annotationLine = 0; ///< where the annotation itself is, for failure messages
};

/// Reads `// expect-error: L:C: text` and `// expect-warning: L:C: text` annotations; malformed
/// annotations are reported as problems.
std::vector<Expectation> readExpectations(const std::string &text, std::vector<std::string> &problems) {
  static constexpr std::string_view kError = "// expect-error:", kWarning = "// expect-warning:";
  std::vector<Expectation> out;
  std::istringstream in(text);
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    Expectation e;
    size_t at = line.find(kError);
    size_t tagSize = kError.size();
    if (at == std::string::npos) {
      at = line.find(kWarning);
      tagSize = kWarning.size();
      e.severity = ptx::Severity::Warning;
    }
    if (at == std::string::npos)
      continue;
    std::string rest = line.substr(at + tagSize);
    e.annotationLine = lineNo;
    unsigned l = 0, c = 0;
    int consumed = 0;
    if (std::sscanf(rest.c_str(), " %u:%u:%n", &l, &c, &consumed) != 2 || consumed == 0) {
      problems.push_back("malformed annotation on line " + std::to_string(lineNo) + ": " + line);
      continue;
    }
    e.line = l;
    e.column = c;
    e.message = rest.substr(static_cast<size_t>(consumed));
    while (!e.message.empty() && std::isspace(static_cast<unsigned char>(e.message.front())))
      e.message.erase(e.message.begin());
    while (!e.message.empty() && std::isspace(static_cast<unsigned char>(e.message.back())))
      e.message.pop_back();
    if (e.message.empty())
      problems.push_back("annotation without a message on line " + std::to_string(lineNo));
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<std::string> negativeFiles() {
  std::vector<std::string> out;
  for (const auto &p : filesUnder(sourceDir() / "tests" / "negative", ".ptx"))
    out.push_back(p.filename().string());
  return out;
}

class NegativeCorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(NegativeCorpusTest, ReportsExactlyTheAnnotatedErrors) {
  const std::string name = GetParam();
  const std::string text = readFile(sourceDir() / "tests" / "negative" / name);
  ASSERT_FALSE(text.empty()) << name;

  std::vector<std::string> problems;
  std::vector<Expectation> expected = readExpectations(text, problems);
  for (const std::string &p : problems)
    ADD_FAILURE() << name << ": " << p;
  size_t expectedErrors = std::count_if(expected.begin(), expected.end(),
                                        [](const Expectation &e) { return e.severity == ptx::Severity::Error; });
  ASSERT_GT(expectedErrors, 0u) << name << " has no // expect-error: annotation";

  ptx::ParseResult result = ptx::parseModule(name, text);
  const ptx::SourceManager &sources = result.module->sources;
  const std::string rendered = result.diagnostics.render(sources);
  EXPECT_FALSE(result.ok()) << name << " parsed without errors";

  struct Actual {
    ptx::Severity severity;
    ptx::LineColumn lc;
    std::string message;
    bool matched = false;
  };
  std::vector<Actual> actual;
  for (const ptx::Diagnostic &d : result.diagnostics.all())
    if (d.severity != ptx::Severity::Note)
      actual.push_back({d.severity, sources.lineColumn(d.loc), d.message});

  for (const Expectation &e : expected) {
    bool found = false;
    for (Actual &a : actual) {
      if (a.matched || a.severity != e.severity || a.lc.line != e.line || a.lc.column != e.column ||
          a.message.find(e.message) == std::string::npos)
        continue;
      a.matched = found = true;
      break;
    }
    EXPECT_TRUE(found) << name << ": expected " << (e.severity == ptx::Severity::Error ? "error" : "warning") << " at "
                       << e.line << ":" << e.column << " containing '" << e.message << "' (annotation on line "
                       << e.annotationLine << ")\nactual diagnostics:\n"
                       << rendered;
  }
  for (const Actual &a : actual) {
    if (a.severity != ptx::Severity::Error)
      continue;
    EXPECT_TRUE(a.matched) << name << ": unexpected error " << a.lc.line << ":" << a.lc.column << ": " << a.message
                           << "\nactual diagnostics:\n"
                           << rendered;
  }
  EXPECT_EQ(result.diagnostics.errorCount(), expectedErrors) << name << "\n" << rendered;
}

std::string testName(const ::testing::TestParamInfo<std::string> &info) {
  std::string out;
  for (char c : info.param)
    out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

INSTANTIATE_TEST_SUITE_P(Negative, NegativeCorpusTest, ::testing::ValuesIn(negativeFiles()), testName);

TEST(NegativeCorpusInventory, HasEnoughFiles) {
  EXPECT_GE(negativeFiles().size(), 40u);
}

// The harness itself: annotations are read with their positions and messages.
TEST(NegativeCorpusHarness, ReadsAnnotations) {
  std::vector<std::string> problems;
  auto e = readExpectations("// expect-error: 7:3: unknown instruction 'addd'\n"
                            "x\n"
                            "  // expect-error: 12:40:   trailing space  \n"
                            "// expect-warning: 3:1: a warning\n",
                            problems);
  EXPECT_TRUE(problems.empty());
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].line, 7u);
  EXPECT_EQ(e[0].column, 3u);
  EXPECT_EQ(e[0].message, "unknown instruction 'addd'");
  EXPECT_EQ(e[0].annotationLine, 1);
  EXPECT_EQ(e[1].line, 12u);
  EXPECT_EQ(e[1].column, 40u);
  EXPECT_EQ(e[1].message, "trailing space");
  EXPECT_EQ(e[1].annotationLine, 3);
  EXPECT_EQ(e[0].severity, ptx::Severity::Error);
  EXPECT_EQ(e[2].severity, ptx::Severity::Warning);
  EXPECT_EQ(e[2].line, 3u);
  EXPECT_EQ(e[2].message, "a warning");

  readExpectations("// expect-error: seven:3: x\n// expect-error: 1:2:\n", problems);
  EXPECT_EQ(problems.size(), 2u);
}

} // namespace
} // namespace ptxray
