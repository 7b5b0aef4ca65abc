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
  /// The GPU refused a launch (the run stopped there, as a CUDA context would): `refusal` when the
  /// filter selected that launch, `stoppedByRefusal` either way.
  std::optional<report::LaunchRefusal> refusal;
  bool stoppedByRefusal = false;
  bool toolErrors = false;
};

/// Runs the spec on `target` with the model attached (and the sanitizers with --check), advising on
/// every launch that completed. `comparing`: a refused launch is a note, not an error (compare goes on
/// with the other GPUs and shows the refusal in this one's column).
Analyzed analyzeLaunches(const session::RunSpec &spec, const AnalyzeOptions &o, const arch::ArchTarget &target,
                         const advisor::AdvisorOptions &ao, bool comparing = false) {
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
  Analyzed analyzed;
  session::RunResult result = session::runInstrumented(spec, request, console, [&](const session::LaunchEvent &e) {
    const bool refused = e.report.result.status == vm::LaunchStatus::Refused;
    if (comparing && refused) {
      session::printDeviceOutput(e.report.result, console, o.quiet);
      std::cerr << fmt::format("ptxray: note: {} refused the launch of {}: {}\n", target.displayName(), e.report.kernel,
                               e.report.result.error);
    } else {
      session::printLaunchOutcome(e.report, console, o.quiet);
    }
    if (refused) {
      analyzed.stoppedByRefusal = true;
      if (e.selected)
        analyzed.refusal =
            report::LaunchRefusal{e.report.kernel, ptx::demangle(e.report.kernel), e.report.result.error};
    }
  });
  analyzed.analyses = std::move(result.analyses);
  analyzed.session = std::move(result.session);
  analyzed.status = result.status();
  analyzed.toolErrors = result.toolErrors;
  return analyzed;
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
  Analyzed analyzed;
  analyzed.analyses = std::move(result.analyses);
  analyzed.status = result.errors.empty() ? 0 : 1;
  return analyzed;
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
  try {
    for (const arch::ArchTarget &target : targets)
      runs.push_back(analyzeLaunches(*spec, o, target, ao, true));
  } catch (const session::SpecError &e) {
    std::cerr << specErrorText(e, o.input, o.launch) << "\n";
    return 2;
  } catch (const support::InputFileError &) {
    throw; // main reports every unreadable input alike
  } catch (const std::exception &e) {
    std::cerr << "ptxray: error: " << e.what() << "\n";
    return 1;
  }
  // A GPU that refused a launch does not end the comparison: its column says so. The exit status is
  // a refusal's (1) only when every GPU refused; otherwise the worst of the GPUs that ran (a fault,
  // a sanitizer's error), a refusing GPU counting only its tools' errors.
  int status = 0;
  bool allRefused = true;
  for (const Analyzed &r : runs) {
    status = std::max(status, r.stoppedByRefusal ? (r.toolErrors ? 1 : 0) : r.status);
    allRefused = allRefused && r.stoppedByRefusal;
  }
  if (allRefused)
    status = 1;
  // Launch by launch: the i-th launch of every GPU's run side by side. A launch that failed otherwise
  // (a fault) on one GPU ends the comparison there; a GPU that stopped at a refusal shows it, then
  // the launches after it as not run.
  size_t launches = std::numeric_limits<size_t>::max(), longest = 0;
  for (const Analyzed &r : runs) {
    const size_t entries = r.analyses.size() + (r.refusal ? 1 : 0);
    longest = std::max(longest, entries);
    if (!r.stoppedByRefusal)
      launches = std::min(launches, entries);
  }
  if (launches == std::numeric_limits<size_t>::max())
    launches = longest;
  std::vector<std::vector<report::Analysis>> comparisons;
  for (size_t i = 0; i < launches; ++i) {
    std::vector<report::Analysis> side;
    // The kernel's names, from a GPU that ran this launch or refused it.
    std::string kernel, demangled;
    for (const Analyzed &r : runs)
      if (kernel.empty() && i < r.analyses.size()) {
        kernel = r.analyses[i].launch->kernel;
        demangled = r.analyses[i].launch->demangled;
      } else if (kernel.empty() && i == r.analyses.size() && r.refusal) {
        kernel = r.refusal->kernel;
        demangled = r.refusal->demangled;
      }
    for (size_t g = 0; g < runs.size(); ++g) {
      const Analyzed &r = runs[g];
      if (i < r.analyses.size()) {
        side.push_back(r.analyses[i]);
        continue;
      }
      report::Analysis refused;
      refused.target = targets[g];
      if (i == r.analyses.size() && r.refusal)
        refused.refusal = r.refusal;
      else
        refused.refusal =
            report::LaunchRefusal{kernel, demangled, "not run: an earlier launch of the spec was refused on this GPU"};
      side.push_back(std::move(refused));
    }
    // The i-th launch of every run is the same launch of the spec, which a refusal knows by the
    // spec's name only: the names of a GPU that ran it (the PTX name, the C++ name with its
    // parameters' types) instead.
    auto ran = std::find_if(side.begin(), side.end(), [](const report::Analysis &a) { return a.launch != nullptr; });
    if (ran != side.end())
      for (report::Analysis &a : side)
        if (a.refusal) {
          a.refusal->kernel = ran->launch->kernel;
          a.refusal->demangled = ran->launch->demangled;
        }
    comparisons.push_back(std::move(side));
  }
  const report::TextStyle style = textStyle(o);
  nlohmann::json comparisonsJson = nlohmann::json::array();
  for (size_t i = 0; i < comparisons.size(); ++i) {
    const std::vector<report::Analysis> &side = comparisons[i];
    if (o.csv)
      std::cout << (i ? "" : report::compareCsvHeader(side)) << report::compareCsvRows(side, i);
    else
      std::cout << (i ? "\n" : "") << report::compareText(side, style);
    comparisonsJson.push_back(report::compareJson(side));
  }
  if (!o.json.empty() &&
      !session::writeOutput(o.json,
                            session::jsonText(nlohmann::json{
                                {"schema", "ptxray-compare"}, {"version", 1}, {"comparisons", comparisonsJson}}),
                            std::cerr))
    return 1;
  if (!o.html.empty() && !session::writeOutput(o.html, report::compareHtml(comparisons), std::cerr))
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

  ptxray analyze examples/guide/aat.json --arch k20x
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
  cmd->footer(std::string(R"(
Runs the launch (a spec's launches in order) on each GPU with the performance model of that GPU and
prints a column per GPU. A GPU that refuses a launch (a block larger than it allows, more shared
memory than it has) does not end the comparison: its column says "refused: REASON" in the text, CSV,
JSON and HTML alike, and its later launches did not run.

)") + kLaunchOptionsHelp +
              R"(

Exit status: 0 when the comparison ran, also when some GPUs refused the launch (their columns say
why); 1 when every GPU refused it, a launch failed otherwise or the module did not load; 2 for a
malformed command line or spec.)");
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
