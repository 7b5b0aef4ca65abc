// The ABI checker (src/abi/AbiChecker.h): one deliberately broken PTX file per rule gives exactly
// the findings its `// expect-abi: LINE:COL: substring` comments announce, and the clean nvcc and
// clang corpus gives none.
//
// Broken files may also say
//   // abi-link: OTHER.ptx      check together with OTHER.ptx (same folder), as modules linked together
//   // abi-no-verify            parse without the verifier (for checks the verifier already rejects)
#include "abi/AbiChecker.h"
#include "ptx/Parser.h"
#include "support/TestFiles.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

namespace ptxray {
namespace {

using abi::AbiFinding;
using abi::AbiRule;
using test::filesUnder;
using test::readFile;
using test::sourceDir;

std::string testName(const ::testing::TestParamInfo<std::string> &info) {
  std::string name;
  for (char c : info.param)
    name.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return name;
}

std::vector<std::string> relativeFiles(const std::filesystem::path &dir) {
  std::vector<std::string> out;
  for (const auto &p : filesUnder(dir, ".ptx"))
    out.push_back(std::filesystem::relative(p, sourceDir()).string());
  return out;
}

std::string describe(const ptx::Module &m, const AbiFinding &f) {
  ptx::LineColumn lc = m.sources.lineColumn(f.loc);
  return std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": " + f.message;
}

// ---------------------------------------------------------------------------------------------
// Clean corpus: no findings.

/// Rules a corpus file legitimately breaks, by file name suffix.
const std::map<std::string, std::set<AbiRule>> &corpusExclusions() {
  // Each of these is one translation unit of a program linked with code that is not in the corpus:
  // nvcc -rdc's library functions (_Z9lib_scalei...), clang's extern helpers, and the OpenCL
  // built-ins (get_global_id, barrier, vload4, read_imagef...) that libclc provides at link time.
  // Checked alone, their `.extern` functions are unresolved by construction.
  static const std::map<std::string, std::set<AbiRule>> exclusions = {
      {"nvcc/compute_75/rdc_linkage.ptx", {AbiRule::UnresolvedExtern}},
      {"nvcc/compute_90/rdc_linkage.ptx", {AbiRule::UnresolvedExtern}},
      {"nvcc/compute_100/rdc_linkage.ptx", {AbiRule::UnresolvedExtern}},
      {"clang/extern_calls_sm30_ptx40.ptx", {AbiRule::UnresolvedExtern}},
      {"clang/opencl_cuda32_sm30.ptx", {AbiRule::UnresolvedExtern}},
  };
  return exclusions;
}

std::vector<std::string> cleanCorpus() {
  // Producer output (nvcc 13, clang), the guide's own example, the ISA fixtures and the examples.
  std::vector<std::string> out;
  for (const char *dir :
       {"tests/corpus/nvcc", "tests/corpus/clang", "tests/corpus/handwritten", "tests/corpus/isa", "examples"})
    for (auto &f : relativeFiles(sourceDir() / dir))
      out.push_back(f);
  return out;
}

class AbiCheckCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(AbiCheckCorpus, CleanProducerOutputHasNoFindings) {
  const std::string path = GetParam();
  ptx::ParseResult parsed = ptx::parseModule(path, readFile(sourceDir() / path));
  ASSERT_TRUE(parsed.ok()) << parsed.diagnostics.render(parsed.module->sources);
  std::set<AbiRule> excluded;
  for (const auto &[suffix, rules] : corpusExclusions())
    if (path.ends_with(suffix))
      excluded = rules;
  std::vector<AbiFinding> findings = abi::checkAbi(*parsed.module);
  std::vector<AbiFinding> unexpected;
  for (const AbiFinding &f : findings)
    if (!excluded.contains(f.rule))
      unexpected.push_back(f);
  const ptx::Module *mods[] = {parsed.module.get()};
  EXPECT_TRUE(unexpected.empty()) << abi::renderFindings(mods, unexpected);
}

INSTANTIATE_TEST_SUITE_P(AbiCheckCorpus, AbiCheckCorpus, ::testing::ValuesIn(cleanCorpus()), testName);

TEST(AbiCheckCorpusInventory, CoversNvccAndClang) {
  auto files = cleanCorpus();
  EXPECT_GT(std::count_if(files.begin(), files.end(), [](auto &f) { return f.find("/nvcc/") != f.npos; }), 20);
  EXPECT_GT(std::count_if(files.begin(), files.end(), [](auto &f) { return f.find("/clang/") != f.npos; }), 5);
}

TEST(AbiCheckCorpusExclusions, AreNeededAndOnlyForUnresolvedExterns) {
  // An exclusion that no longer matches a finding is stale: each excluded file does report the rule,
  // and checked together with nothing else but with the rule off it is clean.
  for (const auto &[suffix, rules] : corpusExclusions()) {
    std::string path = "tests/corpus/" + suffix;
    ptx::ParseResult parsed = ptx::parseModule(path, readFile(sourceDir() / path));
    ASSERT_TRUE(parsed.ok()) << path;
    auto findings = abi::checkAbi(*parsed.module);
    ASSERT_FALSE(findings.empty()) << path;
    for (const AbiFinding &f : findings)
      EXPECT_EQ(f.rule, AbiRule::UnresolvedExtern) << path << ": " << f.message;
    EXPECT_TRUE(abi::checkAbi(*parsed.module, {.reportUnresolvedExterns = false}).empty()) << path;
  }
}

// ---------------------------------------------------------------------------------------------
// Broken files: exactly the announced findings.

struct Expectation {
  uint32_t line = 0, column = 0;
  std::string substring;
};

struct BrokenFile {
  std::vector<Expectation> expected;
  std::vector<std::string> links;
  bool verify = true;
};

BrokenFile readAnnotations(const std::string &text) {
  BrokenFile out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto at = [&](std::string_view key) {
      size_t p = line.find(key);
      return p == std::string::npos ? std::string::npos : p + key.size();
    };
    if (size_t p = at("// expect-abi: "); p != std::string::npos) {
      Expectation e;
      std::istringstream spec(line.substr(p));
      char colon = 0;
      spec >> e.line >> colon >> e.column >> colon;
      std::getline(spec, e.substring);
      e.substring.erase(0, e.substring.find_first_not_of(' '));
      out.expected.push_back(e);
    } else if (size_t p = at("// abi-link: "); p != std::string::npos) {
      out.links.push_back(line.substr(p));
    } else if (line.find("// abi-no-verify") != std::string::npos) {
      out.verify = false;
    }
  }
  return out;
}

std::vector<std::string> brokenFiles() {
  std::vector<std::string> out;
  for (auto &f : relativeFiles(sourceDir() / "tests" / "abi" / "broken"))
    if (!f.ends_with(".link.ptx")) // partners of an abi-link, checked through the file naming them
      out.push_back(f);
  return out;
}

class AbiCheckBroken : public ::testing::TestWithParam<std::string> {};

TEST_P(AbiCheckBroken, GivesExactlyTheAnnouncedFindings) {
  const std::filesystem::path path = sourceDir() / GetParam();
  const std::string text = readFile(path);
  BrokenFile spec = readAnnotations(text);
  ASSERT_FALSE(spec.expected.empty()) << "no // expect-abi: annotation in " << GetParam();

  // The file under test is module 0; the partners it links with follow, with their own annotations.
  std::vector<ptx::ParseResult> parsed;
  std::vector<std::vector<Expectation>> expected;
  parsed.push_back(ptx::parseModule(GetParam(), text, {.verify = spec.verify}));
  expected.push_back(spec.expected);
  for (const std::string &link : spec.links) {
    std::string linked = readFile(path.parent_path() / link);
    parsed.push_back(ptx::parseModule(link, linked));
    expected.push_back(readAnnotations(linked).expected);
  }
  std::vector<const ptx::Module *> modules;
  for (const ptx::ParseResult &p : parsed) {
    // Apart from the ABI, the files are valid PTX.
    ASSERT_TRUE(p.ok()) << p.diagnostics.render(p.module->sources);
    EXPECT_TRUE(p.diagnostics.all().empty()) << p.diagnostics.render(p.module->sources);
    modules.push_back(p.module.get());
  }

  std::vector<AbiFinding> findings = abi::checkAbi(modules);
  for (uint32_t mi = 0; mi < modules.size(); ++mi) {
    std::vector<AbiFinding> own;
    for (const AbiFinding &f : findings)
      if (f.module == mi)
        own.push_back(f);
    std::vector<bool> used(own.size(), false);
    for (const Expectation &e : expected[mi]) {
      bool found = false;
      for (size_t i = 0; i < own.size() && !found; ++i) {
        ptx::LineColumn lc = modules[mi]->sources.lineColumn(own[i].loc);
        if (!used[i] && lc.line == e.line && lc.column == e.column &&
            own[i].message.find(e.substring) != std::string::npos)
          used[i] = found = true;
      }
      EXPECT_TRUE(found) << modules[mi]->sources.name(0) << ": missing finding " << e.line << ":" << e.column << ": "
                         << e.substring << "\nfound:\n"
                         << abi::renderFindings(modules, findings);
    }
    for (size_t i = 0; i < own.size(); ++i)
      EXPECT_TRUE(used[i]) << modules[mi]->sources.name(0) << ": unexpected finding " << describe(*modules[mi], own[i]);
  }
}

INSTANTIATE_TEST_SUITE_P(AbiCheckBroken, AbiCheckBroken, ::testing::ValuesIn(brokenFiles()), testName);

TEST(AbiCheckBrokenInventory, EveryRuleHasABrokenFile) {
  std::set<AbiRule> seen;
  for (const std::string &file : brokenFiles()) {
    const std::filesystem::path path = sourceDir() / file;
    BrokenFile spec = readAnnotations(readFile(path));
    std::vector<ptx::ParseResult> parsed;
    parsed.push_back(ptx::parseModule(file, readFile(path), {.verify = spec.verify}));
    for (const std::string &link : spec.links)
      parsed.push_back(ptx::parseModule(link, readFile(path.parent_path() / link)));
    std::vector<const ptx::Module *> modules;
    for (const ptx::ParseResult &p : parsed)
      modules.push_back(p.module.get());
    for (const AbiFinding &f : abi::checkAbi(modules))
      seen.insert(f.rule);
  }
  for (AbiRule rule : {AbiRule::NarrowInteger, AbiRule::PointerNotGeneric, AbiRule::HalfFloat,
                       AbiRule::AggregateAlignment, AbiRule::CallMismatch, AbiRule::SystemCallPrototype,
                       AbiRule::PtxVersion, AbiRule::AddressSizeMismatch, AbiRule::UnresolvedExtern})
    EXPECT_TRUE(seen.contains(rule)) << "no broken file for " << abi::ruleName(rule);
}

TEST(AbiCheckRobustness, EveryPtxFileOfTheTestsCanBeCheckedEvenWithParseErrors) {
  // Partial modules (negative tests, fuzz regressions) must not crash the checker.
  size_t files = 0;
  for (const auto &path : filesUnder(sourceDir() / "tests", ".ptx")) {
    ptx::ParseResult parsed = ptx::parseModule(path.string(), readFile(path));
    for (const AbiFinding &f : abi::checkAbi(*parsed.module))
      EXPECT_FALSE(f.message.empty()) << path;
    ++files;
  }
  EXPECT_GT(files, 100u);
}

// ---------------------------------------------------------------------------------------------
// API details the command line relies on.

TEST(AbiCheckApi, FindingsRenderAsCompilerDiagnosticsWithTheRule) {
  const char *text = ".version 8.0\n"
                     ".target sm_80\n"
                     ".address_size 64\n"
                     ".func f(.param .u8 x)\n"
                     "{\n"
                     "  ret;\n"
                     "}\n";
  ptx::ParseResult parsed = ptx::parseModule("narrow.ptx", text);
  ASSERT_TRUE(parsed.ok()) << parsed.diagnostics.render(parsed.module->sources);
  auto findings = abi::checkAbi(*parsed.module);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, AbiRule::NarrowInteger);
  EXPECT_EQ(abi::ruleSection(findings[0].rule), "§2.3 note A");
  ptx::Diagnostics diags;
  abi::addFindings(findings, 0, diags);
  EXPECT_TRUE(diags.hasErrors());
  std::string rendered = diags.render(parsed.module->sources);
  EXPECT_NE(rendered.find("narrow.ptx:4:20: error: parameter 'x' of 'f' is .u8"), std::string::npos) << rendered;
  EXPECT_NE(rendered.find("[§2.3 note A]"), std::string::npos) << rendered;
}

TEST(AbiCheckApi, UnresolvedExternsAreWarningsAndCanBeTurnedOff) {
  const char *text = ".version 8.0\n"
                     ".target sm_80\n"
                     ".address_size 64\n"
                     ".extern .func g(.param .b32 x);\n";
  ptx::ParseResult parsed = ptx::parseModule("ext.ptx", text);
  ASSERT_TRUE(parsed.ok()) << parsed.diagnostics.render(parsed.module->sources);
  auto findings = abi::checkAbi(*parsed.module);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, AbiRule::UnresolvedExtern);
  EXPECT_EQ(findings[0].severity, ptx::Severity::Warning);
  EXPECT_TRUE(abi::checkAbi(*parsed.module, {.reportUnresolvedExterns = false}).empty());
}

TEST(AbiCheckApi, EveryRuleHasASectionAndAName) {
  std::set<std::string_view> names;
  for (AbiRule rule : {AbiRule::NarrowInteger, AbiRule::PointerNotGeneric, AbiRule::HalfFloat,
                       AbiRule::AggregateAlignment, AbiRule::CallMismatch, AbiRule::SystemCallPrototype,
                       AbiRule::PtxVersion, AbiRule::AddressSizeMismatch, AbiRule::UnresolvedExtern}) {
    EXPECT_TRUE(abi::ruleSection(rule).starts_with("§")) << abi::ruleName(rule);
    EXPECT_TRUE(names.insert(abi::ruleName(rule)).second);
  }
}

} // namespace
} // namespace ptxray
