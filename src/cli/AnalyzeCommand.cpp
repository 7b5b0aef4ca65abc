// `ptxray analyze`: runs a launch with the performance model and turns its counts into ranked
// findings (the advisor), with the summary, the source lines and the per-line views; without a
// launch, the static subset from the PTX alone. `ptxray compare`: the same launch on several GPUs.
#include "advisor/Advisor.h"
#include "arch/GpuDatabase.h"
#include "cli/Commands.h"
#include "cli/LaunchOptions.h"
#include "report/AnalysisReport.h"
#include "session/InstrumentedRun.h"
#include "session/ModelSettings.h"
#include "session/StaticAnalysis.h"
#include "support/InputFile.h"
#include "toolchain/Compilers.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>

namespace ptxray::cli {
namespace {

struct AnalyzeOptions {
  std::string input;
  std::string arch = "sm_90";
  std::string html;
  std::string json;
  std::vector<std::string> only, ignore, thresholds;
  bool listRules = false;
  bool quiet = false, verbose = false;
  std::string color = "auto";
  session::ModelSettings model; ///< --clock, --dlcm, --bank-mode
  uint64_t sample = 0;
  unsigned threads = 0;
  uint64_t maxInstructions = 0;
  std::string keepPtx;
  bool check = false; ///< the sanitizers too: their hazards become correctness findings
  bool csv = false;   ///< --csv: analyze's findings, compare's side-by-side table, as CSV instead of text
  LaunchCommandLine launch;
  KernelFilterOptions filter;
};

advisor::AdvisorOptions advisorOptions(const AnalyzeOptions &o) {
  return session::advisorOptions(o.only, o.ignore, o.thresholds);
}

bool useColor(const AnalyzeOptions &o) {
  if (o.color == "always")
    return true;
  if (o.color == "never" || std::getenv("NO_COLOR"))
    return false;
  return isatty(fileno(stdout));
}

void listRules() {
  std::cout << "Rules (priority, category, guide section):\n";
  for (const advisor::RuleInfo &r : advisor::rules())
    std::cout << fmt::format("  {:<26} {:<6} {:<24} {}{}\n    {}\n", r.id, advisor::priorityName(r.priority),
                             advisor::categoryName(r.category), r.guide,
                             r.needsLaunch ? "" : " (also without a launch)", r.summary);
  std::cout << "\nThresholds (--threshold NAME=VALUE):\n";
  const advisor::Thresholds defaults;
  for (const advisor::ThresholdInfo &t : advisor::thresholdInfos())
    std::cout << fmt::format("  {:<24} {:<8} {}\n", t.name, defaults.*(t.member), t.meaning);
}

/// What analyze and compare produce for one GPU: the analyses and, for a session, its timeline.
struct Analyzed {
  std::vector<report::Analysis> analyses;
  std::optional<session::SimulatedSession> session;
  int status = 0;
};

/// Runs the spec on `target` with the model attached (and the sanitizers with --check), advising on
/// every launch that completed.
Analyzed analyzeLaunches(const session::RunSpec &spec, const AnalyzeOptions &o, const arch::ArchTarget &target,
                         const advisor::AdvisorOptions &ao) {
  session::RunRequest request;
  request.target = target;
  request.tools.model = true;
  request.tools.modelOptions = session::modelOptions(o.model, target);
  if (o.check)
    request.tools.tools = {session::Tool::Racecheck, session::Tool::Synccheck, session::Tool::Initcheck,
                           session::Tool::Leakcheck};
  request.reportTools = false; // their hazards become findings
  request.launch.threads = o.threads;
  request.launch.maxInstructions = o.maxInstructions;
  request.launch.sampleCtas = o.sample;
  request.keepPtxDirectory = o.keepPtx;
  request.filter = o.filter.filter();
  request.advice = session::AdviceSettings{ao, request.tools.modelOptions, {spec.module.parent_path().string()}};
  // A session (operations beyond launches): the transfers and streams too ([BPG] 3.1 comes first).
  request.session = session::RunRequest::Session::WhenSpecHasOne;
  const session::Console console{std::cout, std::cerr};
  session::RunResult result = session::runInstrumented(spec, request, console, [&](const session::LaunchEvent &e) {
    session::printLaunchOutcome(e.report, console, o.quiet);
  });
  return {std::move(result.analyses), std::move(result.session), result.status()};
}

/// The static subset: every kernel of the module (or --kernel), from the PTX alone.
Analyzed analyzeStatically(const AnalyzeOptions &o, const arch::ArchTarget &target, const advisor::AdvisorOptions &ao) {
  session::StaticAnalysisRequest request;
  request.module = o.input;
  request.kernel = o.launch.kernel;
  request.keepPtx = o.keepPtx;
  request.buildOptions = toolchain::splitBuildOptions(o.launch.buildOptions);
  request.model = session::modelOptions(o.model, target);
  request.advisor = ao;
  session::StaticAnalysisResult result = session::analyzeStatically(target, request);
  for (const std::string &e : result.errors)
    std::cerr << "ptxray: error: " << e << "\n";
  return {std::move(result.analyses), std::nullopt, result.errors.empty() ? 0 : 1};
}

report::TextStyle textStyle(const AnalyzeOptions &o) {
  report::TextStyle style;
  style.color = useColor(o);
  style.quiet = o.quiet;
  style.verbose = o.verbose;
  return style;
}

int analyzeCommand(const AnalyzeOptions &o) {
  if (o.listRules) {
    listRules();
    return 0;
  }
  if (o.input.empty()) {
    std::cerr << "ptxray: error: analyze needs an input (SPEC.json, FILE.cu or FILE.ptx)\n";
    return 2;
  }
  const arch::ArchLookup lookup = arch::findArch(o.arch);
  if (!lookup) {
    std::cerr << "ptxray: error: " << lookup.error << "\n";
    return 2;
  }
  const bool specMode = o.input.ends_with(".json");
  if (specMode && o.launch.any()) {
    std::cerr << "ptxray: error: --kernel, --grid, --block, --shared, --buffer, --arg and --output describe a "
                 "launch of a .ptx or .cu module; a spec file describes its own launches\n";
    return 2;
  }
  if (!outputsWritable({{"--json", o.json}, {"--html", o.html}}))
    return 1;
  const advisor::AdvisorOptions ao = advisorOptions(o);
  // Without a grid (and without a spec) there is no launch: the static subset.
  const bool staticOnly = !specMode && o.launch.grid.empty() && o.launch.block.empty() && o.launch.args.empty() &&
                          o.launch.buffers.empty() && o.launch.globalOffset.empty();
  Analyzed result;
  try {
    if (staticOnly) {
      result = analyzeStatically(o, *lookup.target, ao);
    } else {
      std::optional<session::RunSpec> spec = loadSpec(o.input, o.launch);
      if (!spec)
        return 2;
      if (!specOutputsWritable(*spec, o.input, o.launch))
        return 1;
      result = analyzeLaunches(*spec, o, *lookup.target, ao);
    }
  } catch (const session::SpecError &e) {
    std::cerr << specErrorText(e, o.input, o.launch) << "\n";
    return 2;
  } catch (const std::invalid_argument &e) {
    std::cerr << "ptxray: error: " << e.what() << "\n";
    return 2;
  } catch (const support::InputFileError &) {
    throw; // main reports every unreadable input alike
  } catch (const std::exception &e) {
    std::string what = e.what();
    std::cerr << "ptxray: error: " << what << (what.ends_with('\n') ? "" : "\n");
    return 1;
  }
  const session::SimulatedSession *simulated = result.session ? &*result.session : nullptr;
  std::cout << session::renderAnalyses(o.csv ? session::OutputFormat::Csv : session::OutputFormat::Text,
                                       result.analyses, textStyle(o), simulated);
  if (!o.json.empty() &&
      !session::writeOutput(
          o.json, session::renderAnalyses(session::OutputFormat::Json, result.analyses, {}, simulated), std::cerr))
    return 1;
  if (!o.html.empty() &&
      !session::writeOutput(o.html, session::renderAnalyses(session::OutputFormat::Html, result.analyses), std::cerr))
    return 1;
  return result.status;
}

int compareCommand(const AnalyzeOptions &o, const std::vector<std::string> &archs) {
  if (archs.size() < 1) {
    std::cerr << "ptxray: error: compare needs --arch with one or more GPUs (sm_20,sm_35,k40,...)\n";
    return 2;
  }
  std::vector<arch::ArchTarget> targets;
  for (const std::string &a : archs) {
    arch::ArchLookup lookup = arch::findArch(a);
    if (!lookup) {
      std::cerr << "ptxray: error: " << lookup.error << "\n";
      return 2;
    }
    targets.push_back(*lookup.target);
  }
  try {
    (void)o.filter.filter();
  } catch (const std::invalid_argument &e) {
    std::cerr << "ptxray: error: " << e.what() << "\n";
    return 2;
  }
  const bool specMode = o.input.ends_with(".json");
  if (!specMode && o.launch.grid.empty()) {
    std::cerr << "ptxray: error: compare runs a launch: give a spec file, or --grid/--block and the arguments\n";
    return 2;
  }
  if (!outputsWritable({{"--json", o.json}, {"--html", o.html}}))
    return 1;
  const advisor::AdvisorOptions ao = advisorOptions(o);
  std::optional<session::RunSpec> spec = loadSpec(o.input, o.launch);
  if (!spec)
    return 2;
  if (!specOutputsWritable(*spec, o.input, o.launch))
    return 1;
  std::vector<Analyzed> runs;
  std::vector<report::Analysis> analyses;
  int status = 0;
  try {
    for (const arch::ArchTarget &target : targets) {
      runs.push_back(analyzeLaunches(*spec, o, target, ao));
      status = std::max(status, runs.back().status);
    }
  } catch (const session::SpecError &e) {
    std::cerr << specErrorText(e, o.input, o.launch) << "\n";
    return 2;
  } catch (const support::InputFileError &) {
    throw; // main reports every unreadable input alike
  } catch (const std::exception &e) {
    std::cerr << "ptxray: error: " << e.what() << "\n";
    return 1;
  }
  // Launch by launch: the i-th launch of every GPU's run side by side (a launch that failed on one
  // GPU ends the comparison there).
  size_t launches = runs.empty() ? 0 : runs.front().analyses.size();
  for (const Analyzed &r : runs)
    launches = std::min(launches, r.analyses.size());
  const report::TextStyle style = textStyle(o);
  nlohmann::json comparisons = nlohmann::json::array();
  for (size_t i = 0; i < launches; ++i) {
    std::vector<report::Analysis> side;
    for (Analyzed &r : runs)
      side.push_back(r.analyses[i]);
    if (o.csv)
      std::cout << (i ? "" : report::compareCsvHeader(side)) << report::compareCsvRows(side, i);
    else
      std::cout << (i ? "\n" : "") << report::compareText(side, style);
    comparisons.push_back(report::compareJson(side));
    analyses.insert(analyses.end(), side.begin(), side.end());
  }
  if (!o.json.empty() &&
      !session::writeOutput(
          o.json,
          session::jsonText(nlohmann::json{{"schema", "ptxray-compare"}, {"version", 1}, {"comparisons", comparisons}}),
          std::cerr))
    return 1;
  if (!o.html.empty() &&
      !session::writeOutput(o.html, session::renderAnalyses(session::OutputFormat::Html, analyses), std::cerr))
    return 1;
  return status;
}

void addCommonOptions(CLI::App &cmd, AnalyzeOptions &o) {
  const CLI::Range nonNegative(0LL, std::numeric_limits<long long>::max(), "NONNEGATIVE");
  cmd.add_option("--json", o.json, "FILE: the analysis as JSON (schema ptxray-analysis, docs/advisor.md)");
  cmd.add_option("--html", o.html, "FILE: one self-contained HTML report");
  cmd.add_option("--only", o.only, "Rule ids to report (comma-separated or repeated)")->allow_extra_args(false);
  cmd.add_option("--ignore", o.ignore, "Rule ids not to report")->allow_extra_args(false);
  cmd.add_option("--threshold", o.thresholds, "NAME=VALUE: change when a rule speaks up (--list-rules)")
      ->allow_extra_args(false);
  cmd.add_flag("-q,--quiet", o.quiet, "Summary and findings only");
  cmd.add_flag("-v,--verbose", o.verbose, "Every line of every view, and the time model's explanation");
  cmd.add_option("--color", o.color, "auto (a terminal), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd.add_option("--clock", o.model.clock, session::kClockHelp);
  cmd.add_option("--dlcm", o.model.dlcm, "Global loads cached in L1 (ca) or L2 only (cg), as -Xptxas -dlcm")
      ->check(CLI::IsMember({"ca", "cg"}));
  cmd.add_option("--bank-mode", o.model.bankMode, "Kepler shared-memory bank width in bytes (4 or 8)")
      ->check(CLI::IsMember({4, 8}));
  cmd.add_option("--sample", o.sample, "N: simulate N blocks spread over the grid and scale the counts")
      ->check(CLI::Range(uint64_t{2}, std::numeric_limits<uint64_t>::max(), "AT LEAST 2"));
  cmd.add_option("--threads", o.threads, "Worker threads running CTAs (default: all cores)")
      ->check(CLI::Range(0LL, 4096LL, "WORKERS"));
  cmd.add_option("--max-instructions", o.maxInstructions,
                 "Thread-instruction budget per launch (0: the default, 10^10; at most 10^15)")
      ->check(CLI::Range(uint64_t{0}, session::env::kMaxInstructionBudget));
  cmd.add_flag("--check", o.check,
               "Also run racecheck, synccheck, initcheck and leakcheck: their hazards become correctness findings");
  addKernelFilterOptions(cmd, o.filter,
                         "The launches of a spec analyzed (the others run and print as usual; a session's timeline "
                         "has them all)");
  cmd.add_option("--keep-ptx", o.keepPtx, "DIR: a .cu module's PTX is written there as NAME.cu.ptx")
      ->check(CLI::ExistingDirectory);
  addLaunchOptions(cmd, o.launch);
}

} // namespace

CommandRunner addAnalyzeCommand(CLI::App &app) {
  auto o = std::make_shared<AnalyzeOptions>();
  CLI::App *cmd = app.add_subcommand(
      "analyze", "Why a kernel is slow on a GPU and what to change first: the performance model's counts, ranked "
                 "findings from the guides, per-line views");
  cmd->add_option("input", o->input, "SPEC.json, or a .ptx/.cu module (with --grid/--block... for a launch)");
  cmd->add_option("--arch", o->arch, "GPU or compute capability (default sm_90)");
  cmd->add_flag("--list-rules", o->listRules, "List the rules and thresholds, then exit");
  cmd->add_flag("--csv", o->csv,
                "The findings as CSV on stdout instead of the text report: a row per finding, with Nsight "
                "Compute's rule columns (Rule Name, Rule Type, Rule Description, Estimated Speedup) and ptxray's "
                "(priority, category, guide, source lines, evidence, fix); --report FILE.csv under exec writes "
                "the same");
  addCommonOptions(*cmd, *o);
  cmd->footer(std::string(R"(
With a spec file, or a module and a launch (--grid, --block, --buffer, --arg), the launch runs on the
virtual GPU with the performance model of --arch attached, and the advisor ranks what the guides say
to fix. With a module alone, the static subset: registers, shared and local memory, occupancy per
block size, and the findings the PTX shows by itself.

  ptxray analyze examples/guide/offset_copy.json --arch k20x
  ptxray analyze kernel.cu --arch sm_35 --grid 256 --block 128 --buffer in=1M:iota:f32 \
      --buffer out=1M --arg buf:out --arg buf:in --html report.html

)") + kLaunchOptionsHelp +
              R"(

Exit status: 0 when the analysis ran, 1 when a launch failed or the module did not load, 2 for a
malformed command line or spec.)");
  return [cmd, o]() -> int {
    if (!cmd->parsed())
      return -1;
    try {
      return analyzeCommand(*o);
    } catch (const std::invalid_argument &e) {
      std::cerr << "ptxray: error: " << e.what() << "\n";
      return 2;
    }
  };
}

CommandRunner addCompareCommand(CLI::App &app) {
  auto o = std::make_shared<AnalyzeOptions>();
  auto archs = std::make_shared<std::vector<std::string>>();
  CLI::App *cmd = app.add_subcommand("compare", "The same launch on several GPUs, side by side, with the findings "
                                                "that differ");
  cmd->add_option("input", o->input, "SPEC.json, or a .ptx/.cu module with a launch (--grid, --block, ...)")
      ->required();
  cmd->add_option("--arch", *archs, "GPUs or compute capabilities, comma-separated (sm_20,sm_35,k40,h100)")
      ->required()
      ->delimiter(',');
  addCommonOptions(*cmd, *o);
  cmd->add_flag("--csv", o->csv,
                "Print the side-by-side table as CSV (ID, Kernel Name, Quantity, a column per GPU; quoted as ncu "
                "--csv quotes)");
  cmd->footer(std::string("\n") + kLaunchOptionsHelp);
  return [cmd, o, archs]() -> int {
    if (!cmd->parsed())
      return -1;
    try {
      return compareCommand(*o, *archs);
    } catch (const std::invalid_argument &e) {
      std::cerr << "ptxray: error: " << e.what() << "\n";
      return 2;
    }
  };
}

} // namespace ptxray::cli
