// The session layer against independent references: the tools it wires give the reports the engines
// give wired by hand (SanitizerHarness), the tool names are one catalogue, the environment protocol
// round-trips, outputs by type fail loudly, and every rule the tools name is in the advisor's
// catalogue.
#include "advisor/Advisor.h"
#include "sanitizers/SanitizerHarness.h"
#include "session/Environment.h"
#include "session/InstrumentedRun.h"
#include "session/Outputs.h"
#include "session/SanitizerLog.h"
#include "session/Tools.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

namespace ptxray::test {
namespace {

std::vector<std::string> headlines(const std::vector<sanitizers::Hazard> &hazards) {
  std::vector<std::string> out;
  for (const sanitizers::Hazard &h : hazards)
    out.push_back(h.headline);
  return out;
}

TEST(SessionTools, OneCatalogueOfNames) {
  EXPECT_EQ(session::toolNameList(), "memcheck, racecheck, synccheck, initcheck, leakcheck");
  const std::vector<std::string> names{"leakcheck,racecheck", "racecheck", "memcheck"};
  EXPECT_EQ(session::parseTools(names, "--tool"),
            (std::vector<session::Tool>{session::Tool::Leakcheck, session::Tool::Racecheck, session::Tool::Memcheck}));
  try {
    session::parseTools(std::vector<std::string>{"racecheck,helgrind"}, "PTXRAY_TOOL");
    FAIL() << "an unknown tool was accepted";
  } catch (const std::invalid_argument &e) {
    EXPECT_STREQ(e.what(), "PTXRAY_TOOL: unknown tool \"helgrind\" (memcheck, racecheck, synccheck, initcheck, "
                           "leakcheck)");
  }
}

// A report becomes the finding of a rule the advisor knows; a misspelled rule id is an error, never
// a finding ranked silently last.
TEST(SessionTools, EveryToolRuleIsInTheAdvisorsCatalogue) {
  for (const session::ToolInfo &t : session::toolCatalogue()) {
    if (!t.rule.empty()) {
      EXPECT_NE(advisor::findRule(t.rule), nullptr) << t.name << ": " << t.rule;
    }
  }
  EXPECT_THROW(advisor::catalogued("race-hazzard"), std::logic_error);
  advisor::CorrectnessReport misspelled;
  misspelled.rule = "race-hazzard";
  EXPECT_THROW(advisor::correctnessFindings({misspelled}), std::logic_error);
}

// The pipeline's wiring (one listener attached to both channels) gives the reports the tools give
// when a test wires each of them to the device by hand.
TEST(SessionTools, InstrumentedRunReportsWhatTheToolsReportAlone) {
  for (const char *name : {"race_raw", "init_global", "barrier_in_branch", "leak_kept_blocks"}) {
    const session::RunSpec spec = sanitizerSpec(name);
    const ToolReports alone = runWithTools(spec);
    session::RunRequest request;
    request.tools.tools = {session::Tool::Racecheck, session::Tool::Synccheck, session::Tool::Initcheck,
                           session::Tool::Leakcheck};
    request.launch.threads = 1;
    request.writeOutputs = false;
    std::ostringstream out, err;
    const session::RunResult result = session::runInstrumented(spec, request, {out, err});
    std::vector<std::string> racecheck, synccheck, initcheck, leaks;
    for (const nlohmann::json &r : result.sanitizerDocument.at("reports")) {
      const std::string tool = r.at("tool");
      (tool == "racecheck"   ? racecheck
       : tool == "synccheck" ? synccheck
       : tool == "initcheck" ? initcheck
                             : leaks)
          .push_back(r.at("headline"));
    }
    EXPECT_EQ(racecheck, headlines(alone.racecheck)) << name;
    EXPECT_EQ(synccheck, headlines(alone.synccheck)) << name;
    EXPECT_EQ(initcheck, headlines(alone.initcheck)) << name;
    EXPECT_EQ(leaks, headlines(alone.leaks)) << name;
    EXPECT_EQ(result.toolErrors, !(racecheck.empty() && synccheck.empty() && initcheck.empty() && leaks.empty()))
        << name;
    // The summaries end the error stream, the leak check's with its bytes and blocks.
    EXPECT_NE(err.str().find(fmt::format("LEAKCHECK SUMMARY: {} error{} ({} byte{} leaked in {} block{})",
                                         alone.leaks.size(), alone.leaks.size() == 1 ? "" : "s", alone.leakedBytes,
                                         alone.leakedBytes == 1 ? "" : "s", alone.leakedBlocks,
                                         alone.leakedBlocks == 1 ? "" : "s")),
              std::string::npos)
        << err.str();
  }
}

// Sites carry their file and line as fields: nothing downstream parses "file:line".
TEST(SessionTools, ReportSitesAndFindingsCarryFileAndLine) {
  const session::RunSpec spec = sanitizerSpec("race_raw");
  session::RunRequest request;
  request.tools.tools = {session::Tool::Racecheck};
  request.reportTools = false;
  request.advice = session::AdviceSettings{};
  request.launch.threads = 1;
  request.writeOutputs = false;
  std::ostringstream out, err;
  const session::RunResult result = session::runInstrumented(spec, request, {out, err});
  EXPECT_EQ(err.str(), ""); // reportTools = false: the hazards become findings only
  ASSERT_FALSE(result.analyses.empty());
  const auto &findings = result.analyses.front().findings;
  auto race = std::find_if(findings.begin(), findings.end(), [](const auto &f) { return f.rule == "race-hazard"; });
  ASSERT_NE(race, findings.end());
  ASSERT_FALSE(race->lines.empty());
  EXPECT_TRUE(race->lines.front().file.ends_with("races.cu")) << race->lines.front().file;
  EXPECT_GT(race->lines.front().line, 0u);
}

// memcheck's reports carry the fault itself as data, not only its text.
TEST(SessionTools, MemcheckReportsCarryTheFault) {
  const session::RunSpec spec = sanitizerSpec("mem_neighbour_read");
  session::RunRequest request;
  request.tools.tools = {session::Tool::Memcheck};
  request.launch.threads = 1;
  request.writeOutputs = false;
  std::ostringstream out, err;
  const session::RunResult result = session::runInstrumented(spec, request, {out, err});
  EXPECT_TRUE(result.toolErrors);
  const nlohmann::json &reports = result.sanitizerDocument.at("reports");
  ASSERT_FALSE(reports.empty());
  const nlohmann::json &fault = reports.front().at("fault");
  EXPECT_EQ(fault.at("kind"), "out-of-bounds");
  EXPECT_EQ(fault.at("access"), "read");
  EXPECT_EQ(fault.at("space"), "global");
  EXPECT_EQ(fault.at("size"), 4);
  EXPECT_EQ(reports.front().at("sites").at(0).at("line").get<int>() > 0, true);
  EXPECT_NE(err.str().find("MEMCHECK SUMMARY: "), std::string::npos);
}

class Environment : public ::testing::Test {
protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    using namespace session::env;
    for (const char *name : {kArch, kThreads, kBoards, kTool, kRacecheckGlobal, kSanitizerJson, kMetricsJson, kReport,
                             kTimeline, kClock, kDlcm, kBankMode, kLog, kPtx, kMaxInstructions, kMaxConnections})
      unsetenv(name);
  }
};

TEST_F(Environment, OptionsRoundTripThroughTheVariables) {
  session::ProgramOptions o;
  o.arch = "k40";
  o.threads = 3;
  o.boards = 2;
  o.tools.tools = {session::Tool::Racecheck, session::Tool::Leakcheck};
  o.tools.racecheckGlobal = true;
  o.sanitizerJson = "/tmp/s.json";
  o.metricsJson = "/tmp/m.json";
  o.report = "/tmp/r.html";
  o.timeline = {"-", "/tmp/t.json"};
  o.model.clock = "boost";
  o.model.dlcm = "ca";
  o.model.bankMode = 8;
  o.logApi = true;
  o.strictPtx = true;
  o.maxInstructions = 12345;
  o.connections = 4;
  o.toEnvironment();
  std::vector<std::string> warnings;
  const session::ProgramOptions back = session::ProgramOptions::fromEnvironment(warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(back.arch, o.arch);
  EXPECT_EQ(back.threads, o.threads);
  EXPECT_EQ(back.boards, o.boards);
  EXPECT_EQ(back.tools.tools, o.tools.tools);
  EXPECT_TRUE(back.tools.racecheckGlobal);
  EXPECT_EQ(back.sanitizerJson, o.sanitizerJson);
  EXPECT_EQ(back.metricsJson, o.metricsJson);
  EXPECT_EQ(back.report, o.report);
  EXPECT_EQ(back.timeline, o.timeline);
  EXPECT_EQ(back.model, o.model);
  EXPECT_TRUE(back.logApi);
  EXPECT_TRUE(back.strictPtx);
  EXPECT_EQ(back.maxInstructions, o.maxInstructions);
  EXPECT_EQ(back.connections, o.connections);
  EXPECT_TRUE(back.tools.model); // an output needs the performance model
}

TEST_F(Environment, WhatTheCommandLineLeavesOutStaysAsTheEnvironmentHasIt) {
  setenv(session::env::kBoards, "4", 1);
  session::ProgramOptions o;
  o.arch = "k80";
  o.toEnvironment();
  std::vector<std::string> warnings;
  const session::ProgramOptions back = session::ProgramOptions::fromEnvironment(warnings);
  EXPECT_EQ(back.arch, "k80");
  EXPECT_EQ(back.boards, 4);
  // Given, even the default overrides the environment.
  o.boards = 1;
  o.toEnvironment();
  EXPECT_EQ(session::ProgramOptions::fromEnvironment(warnings).boards, 1);
  EXPECT_EQ(session::ProgramOptions{}.archOrDefault(), session::ProgramOptions::kDefaultArch);
}

TEST_F(Environment, BadValuesAreWarningsThatNameTheVariable) {
  setenv(session::env::kBoards, "99", 1);
  setenv(session::env::kTool, "racecheck,helgrind", 1);
  setenv(session::env::kBankMode, "6", 1);
  setenv(session::env::kRacecheckGlobal, "1", 1); // without racecheck
  setenv(session::env::kClock, "fast", 1);
  setenv(session::env::kMaxConnections, "0", 1);
  std::vector<std::string> warnings;
  const session::ProgramOptions o = session::ProgramOptions::fromEnvironment(warnings);
  ASSERT_EQ(warnings.size(), 6u);
  EXPECT_EQ(warnings[0], "PTXRAY_BOARDS: \"99\" is not 1 to 16; 1 board");
  EXPECT_TRUE(warnings[1].starts_with("PTXRAY_TOOL: unknown tool \"helgrind\"")) << warnings[1];
  EXPECT_TRUE(warnings[2].starts_with("PTXRAY_RACECHECK_GLOBAL")) << warnings[2];
  EXPECT_TRUE(warnings[3].starts_with("PTXRAY_CLOCK: \"fast\" is not default, base, boost")) << warnings[3];
  EXPECT_TRUE(warnings[4].starts_with("PTXRAY_BANK_MODE: unknown value \"6\"")) << warnings[4];
  EXPECT_TRUE(warnings[5].starts_with("CUDA_DEVICE_MAX_CONNECTIONS: \"0\" is not 1 to 1024")) << warnings[5];
  EXPECT_EQ(o.boards, std::nullopt);
  EXPECT_EQ(o.model.clock, "");
  EXPECT_TRUE(o.tools.tools.empty());
  EXPECT_EQ(o.model.bankMode, 0);
}

TEST(SessionOutputs, FormatByExtensionAndFailuresSaySo) {
  EXPECT_EQ(session::outputFormat("a.json"), session::OutputFormat::Json);
  EXPECT_EQ(session::outputFormat("a.html"), session::OutputFormat::Html);
  EXPECT_EQ(session::outputFormat("a.htm"), session::OutputFormat::Html);
  EXPECT_EQ(session::outputFormat("a.txt"), session::OutputFormat::Text);
  std::ostringstream err;
  EXPECT_TRUE(session::writeOutput("-", "to the error stream\n", err));
  EXPECT_EQ(err.str(), "to the error stream\n");
  // A full disk: the bytes do not fit, and the caller hears of it (the last flush fails).
  std::ostringstream full;
  EXPECT_FALSE(session::writeOutput("/dev/full", "a small report", full));
  EXPECT_EQ(full.str(), "ptxray: error: cannot write '/dev/full': no space left on device\n");
  std::ostringstream missing;
  EXPECT_FALSE(session::writeOutput("/nonexistent-dir/report.json", "{}", missing));
  EXPECT_TRUE(missing.str() ==
              "ptxray: error: cannot write '/nonexistent-dir/report.json': no such file or directory\n")
      << missing.str();
}

} // namespace
} // namespace ptxray::test
