// `ptxray run`: runs kernels on the virtual GPU, from a run spec (SPEC.json, see session/RunSpec.h)
// or, for one launch, from a module and a compact command line that is turned into the same spec.
#include "arch/GpuDatabase.h"
#include "cli/Commands.h"
#include "cli/LaunchOptions.h"
#include "report/MetricsReport.h"
#include "report/NcuSections.h"
#include "session/InstrumentedRun.h"
#include "session/ModelSettings.h"
#include "support/InputFile.h"

#include <fmt/format.h>

#include <iostream>
#include <limits>
#include <optional>

namespace ptxray::cli {
namespace {

struct RunCommandOptions {
  std::string input;
  std::string arch = "sm_90";
  unsigned threads = 0;
  bool memcheck = false;
  std::string keepPtx;
  uint64_t maxInstructions = 0;
  bool verbose = false;
  // The performance model.
  bool metrics = false;
  std::vector<std::string> metricNames; ///< --metrics NAME,... (ncu's names); empty: the text report
  bool csv = false;                     ///< --csv: the metrics in ncu's CSV layout
  std::string set;                      ///< --set basic|detailed|full|...: ncu's section sets
  std::vector<std::string> sections;    ///< --section ID or regex:EXPR (ncu's identifiers)
  std::string metricsJson;
  session::ModelSettings model; ///< --clock, --dlcm, --bank-mode
  uint64_t sample = 0;
  // compute-sanitizer's tools (memcheck is --memcheck).
  std::vector<std::string> tools;
  bool racecheckGlobal = false;
  std::string sanitizerJson; ///< FILE: every tool's reports and summaries as one JSON document
  LaunchCommandLine launch;  ///< one launch from the command line
  KernelFilterOptions filter;
  int errorExitCode = 0;              ///< --error-exitcode: the status when a tool found an error (0: 1, as always)
  uint64_t printLimit = 0;            ///< --print-limit: reports printed (0: all)
  session::LaunchOverrides overrides; ///< --block-size, --dynamic-shared
};

const std::string kFooter = R"(
A run spec (SPEC.json) names the module, its buffers, the launches and the outputs; see README.md.
For one launch, give the module and describe the launch on the command line instead:

  ptxray run saxpy.ptx --kernel saxpy --grid 4 --block 256 \
      --buffer x=4096:iota:f32 --buffer y=4096:random:f32:7:-1:1 \
      --arg u32:1024 --arg f32:2.5 --arg buf:x --arg buf:y --output y=y.bin

)" + std::string(kLaunchOptionsHelp) +
                            R"(

--tool racecheck reports shared-memory data races between the threads of a block (with
--racecheck-global also global-memory races inside a block), intra-warp hazards included; --tool
synccheck reports barriers and warp-synchronizing instructions used wrongly; --tool initcheck reports
reads of global, shared and local memory that nothing wrote (a buffer with init "none", or
--buffer NAME=BYTES:none, is allocated without being written); --tool leakcheck reports device-heap
blocks (malloc in a kernel) not freed by the end of the run. See docs/sanitizers.md.

Device printf goes to stdout, faults, errors and sanitizer reports to stderr. Exit status: 0 when
every launch succeeded and no sanitizer found an error, 1 when a launch was refused or failed (or the
module did not load) or a sanitizer found an error (N with --error-exitcode N), 2 for a malformed spec or
command line. -k/--kernel-name, --kernel-name-exclude, --launch-skip and --launch-count choose the
launches of a spec the tools report on and the model's outputs keep, as in ptxray exec.)";

void printVerbose(const session::LaunchReport &r) {
  std::cerr << fmt::format(
      "ptxray: launch {} {} ({},{},{})x({},{},{}): {} threads, {} thread-instructions, {:.3f} ms, {} worker{}{}\n",
      r.index, r.kernel, r.grid.x, r.grid.y, r.grid.z, r.block.x, r.block.y, r.block.z, r.threads(),
      r.result.threadInstructions, r.seconds * 1e3, r.result.workers, r.result.workers == 1 ? "" : "s",
      r.result.ok() ? "" : " (failed)");
}

int runCommand(const RunCommandOptions &o) {
  const bool specMode = o.input.ends_with(".json");
  if (specMode && o.launch.any()) {
    std::cerr << "ptxray: error: --kernel, --grid, --block, --shared, --buffer, --arg and --output describe a "
                 "launch of a .ptx or .cu module; a spec file describes its own launches\n";
    return 2;
  }
  const arch::ArchLookup lookup = arch::findArch(o.arch);
  if (!lookup) {
    std::cerr << "ptxray: error: " << lookup.error << "\n";
    return 2;
  }
  session::RunRequest request;
  request.target = *lookup.target;
  request.tools.tools = session::parseTools(o.tools, "--tool");
  if (o.memcheck && !request.tools.has(session::Tool::Memcheck))
    request.tools.tools.insert(request.tools.tools.begin(), session::Tool::Memcheck);
  request.tools.racecheckGlobal = o.racecheckGlobal;
  session::checkToolOptions(request.tools, !o.sanitizerJson.empty(), true);
  request.tools.model = o.metrics || !o.metricsJson.empty();
  if (request.tools.model)
    request.tools.modelOptions = session::modelOptions(o.model, request.target);
  request.launch.threads = o.threads;
  request.launch.maxInstructions = o.maxInstructions;
  if (request.tools.model)
    request.launch.sampleCtas = o.sample;
  request.keepPtxDirectory = o.keepPtx;
  request.printLimit = o.printLimit;
  if (o.printLimit)
    request.launch.maxFaults = o.printLimit;
  try {
    request.filter = o.filter.filter();
  } catch (const std::invalid_argument &e) {
    std::cerr << "ptxray: error: " << e.what() << "\n";
    return 2;
  }

  std::optional<session::RunSpec> spec = loadSpec(o.input, o.launch);
  if (!spec)
    return 2;
  try {
    session::applyLaunchOverrides(*spec, o.overrides);
  } catch (const session::SpecError &e) {
    std::cerr << specErrorText(e, o.input, o.launch) << "\n";
    return 2;
  }
  if (!outputsWritable({{"--metrics-json", o.metricsJson}, {"--sanitizer-json", o.sanitizerJson}}) ||
      !specOutputsWritable(*spec, o.input, o.launch))
    return 1;
  const bool memcheck = request.tools.has(session::Tool::Memcheck);
  // ncu's --set/--section: the sections the model fills, in ncu's order; those it cannot, named once.
  std::vector<const report::NcuSectionInfo *> sections, unmodeled;
  try {
    sections = report::selectSections(o.set, o.sections, &unmodeled);
  } catch (const std::invalid_argument &e) {
    std::cerr << "ptxray: error: " << e.what() << "\n";
    return 2;
  }
  for (const report::NcuSectionInfo *s : unmodeled)
    std::cerr << fmt::format("ptxray: warning: --section {}: not shown, {}\n", s->identifier, s->missing);
  const bool bySection = !o.set.empty() || !o.sections.empty();
  std::vector<std::string> unknownMetrics;
  // The metrics --metrics names (all without names), each name the model lacks warned about once.
  auto selectNamedMetrics = [&](const model::LaunchProfile &profile) {
    std::vector<std::string> missing;
    model::MetricList m = report::selectMetrics(profile, o.metricNames, &missing);
    for (const std::string &name : missing)
      if (std::find(unknownMetrics.begin(), unknownMetrics.end(), name) == unknownMetrics.end()) {
        unknownMetrics.push_back(name);
        std::cerr << fmt::format("ptxray: warning: --metrics: the model has no metric \"{}\" (docs/metrics.md "
                                 "lists them)\n",
                                 name);
      }
    return m;
  };
  size_t csvLaunches = 0;
  session::RunResult result;
  try {
    result = session::runInstrumented(*spec, request, {std::cout, std::cerr}, [&](const session::LaunchEvent &e) {
      session::printLaunchOutcome(e.report, {std::cout, std::cerr}, false,
                                  memcheck ? std::optional(request.launch.maxFaults) : std::nullopt);
      if (o.verbose)
        printVerbose(e.report);
      if (o.metrics && e.profile && bySection) {
        // The sections, then any metrics named with --metrics, as ncu prints both.
        const model::MetricList named = o.metricNames.empty() ? model::MetricList{} : selectNamedMetrics(*e.profile);
        if (o.csv) {
          if (csvLaunches == 0)
            std::cout << report::metricsCsvHeader();
          std::cout << report::sectionsCsvRows(*e.profile, csvLaunches, sections);
          std::cout << report::metricsCsvRows(*e.profile, csvLaunches, named, "Command line profiler metrics");
          ++csvLaunches;
        } else {
          std::cout << report::sectionsText(*e.profile, sections);
          if (!named.empty())
            std::cout << report::metricsTable(*e.profile, named);
        }
      } else if (o.metrics && e.profile) {
        if (!o.csv && o.metricNames.empty()) {
          std::cout << report::metricsText(*e.profile);
        } else {
          const model::MetricList m = selectNamedMetrics(*e.profile);
          if (!o.csv) {
            std::cout << report::metricsTable(*e.profile, m);
          } else {
            if (csvLaunches == 0)
              std::cout << report::metricsCsvHeader();
            std::cout << report::metricsCsvRows(*e.profile, csvLaunches++, m,
                                                o.metricNames.empty() ? "ptxray metrics"
                                                                      : "Command line profiler metrics");
          }
        }
      }
    });
  } catch (const session::SpecError &e) {
    std::cerr << specErrorText(e, o.input, o.launch) << "\n";
    return 2;
  } catch (const support::InputFileError &) {
    throw; // main reports every unreadable input alike
  } catch (const std::exception &e) {
    // vm::VmError: a module that does not parse or verify, nvcc missing or failing.
    std::string what = e.what();
    std::cerr << "ptxray: error: " << what << (what.ends_with('\n') ? "" : "\n");
    return 1;
  }
  int status = result.status();
  if (result.toolErrors && o.errorExitCode)
    status = o.errorExitCode; // compute-sanitizer's --error-exitcode; a failed launch alone stays 1
  if (!o.metricsJson.empty() && !session::writeMetrics(o.metricsJson, result.selectedProfiles, std::cerr))
    status = 1;
  if (!o.sanitizerJson.empty() &&
      !session::writeOutput(o.sanitizerJson, session::jsonText(result.sanitizerDocument), std::cerr))
    status = 1;
  return status;
}

} // namespace

CommandRunner addRunCommand(CLI::App &app) {
  auto o = std::make_shared<RunCommandOptions>();
  CLI::App *cmd = app.add_subcommand("run", "Run kernels on the virtual GPU (a run spec, or one launch)");
  cmd->add_option("input", o->input, "SPEC.json, or a .ptx/.cu module with --kernel, --grid, --block, --arg...")
      ->required();
  cmd->add_option("--arch", o->arch, "GPU or compute capability of the device (default sm_90)");
  // Unsigned options read "-1" as 2^64-1: ranges make negative values command-line errors.
  const CLI::Range nonNegative(0LL, std::numeric_limits<long long>::max(), "NONNEGATIVE");
  cmd->add_option("--threads", o->threads, "Worker threads running CTAs (default: all cores)")
      ->check(CLI::Range(0LL, 4096LL, "WORKERS"));
  cmd->add_flag("--memcheck", o->memcheck, "Report every memory error and keep running (compute-sanitizer style)");
  cmd->add_option("--keep-ptx", o->keepPtx, "DIR: a .cu module's PTX is written there as NAME.cu.ptx")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--max-instructions", o->maxInstructions,
                  "Thread-instruction budget per launch (0: the default, 10^10; at most 10^15)")
      ->check(CLI::Range(uint64_t{0}, session::env::kMaxInstructionBudget));
  cmd->add_flag("-v,--verbose", o->verbose, "A summary line per launch on stderr (threads, instructions, time)");
  cmd->add_flag("--metrics", o->metrics,
                "The performance model: per launch, what the GPU of --arch would do (memory transactions, bank "
                "conflicts, divergence, occupancy, a time estimate) and the hottest source lines; --metrics "
                "NAME,NAME... (Nsight Compute's names, docs/metrics.md) prints those alone");
  cmd->add_option("--metrics-list", o->metricNames)
      ->delimiter(',')
      ->allow_extra_args(false)
      ->group(""); // --metrics NAME,NAME... or --metrics=NAME,... (main.cpp turns it into this)
  cmd->add_flag("--csv", o->csv,
                "With --metrics: every launch's metrics (those named, else all) in Nsight Compute's CSV layout "
                "(ncu --csv: ID, kernel, block, grid, device, CC, section, metric name, unit, value)");
  cmd->add_option("--set", o->set,
                  "NAME: Nsight Compute's section set (basic, detailed, full; ncu --list-sets): each launch's "
                  "sections the model fills, with ncu's section and metric names (docs/metrics.md)");
  cmd->add_option("--section", o->sections,
                  "ID: an Nsight Compute section (SpeedOfLight, LaunchStats, Occupancy, MemoryWorkloadAnalysis, "
                  "ComputeWorkloadAnalysis, InstructionStats, SourceCounters), or regex:EXPR; repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--metrics-json", o->metricsJson, "FILE: every launch's metrics, per line and per instruction");
  cmd->add_option("--dlcm", o->model.dlcm, "Global loads cached in L1 (ca) or L2 only (cg), as -Xptxas -dlcm")
      ->check(CLI::IsMember({"ca", "cg"}));
  cmd->add_option("--sample", o->sample,
                  "N: run only N CTAs spread over the grid (first and last included) and scale the counts; the "
                  "kernel's results are then incomplete")
      ->check(CLI::Range(uint64_t{2}, std::numeric_limits<uint64_t>::max(), "AT LEAST 2"));
  cmd->add_option("--clock", o->model.clock, session::kClockHelp);
  cmd->add_option("--bank-mode", o->model.bankMode, "Kepler shared-memory bank width in bytes (4 or 8)")
      ->check(CLI::IsMember({4, 8}));
  cmd->add_option("--tool", o->tools,
                  "Sanitizer tools, repeatable or comma-separated: racecheck (shared-memory races, intra-warp "
                  "hazards), synccheck (barrier and warp-synchronization errors), initcheck (reads of memory "
                  "nothing wrote), leakcheck (device-heap blocks never freed), memcheck (as --memcheck)")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_flag("--racecheck-global", o->racecheckGlobal,
                "racecheck also checks global memory for races between threads of the same block");
  cmd->add_option("--error-exitcode", o->errorExitCode,
                  "N: the exit status when a tool found an error (default 1), as compute-sanitizer's")
      ->check(CLI::Range(1, 255));
  cmd->add_option("--print-limit", o->printLimit,
                  "N: the tools print at most N reports (memcheck: per launch) and count the rest (default: all)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{std::numeric_limits<int32_t>::max()}));
  addKernelFilterOptions(*cmd, o->filter,
                         "The launches of a spec the tools report on, --metrics shows and --metrics-json keeps (the "
                         "others run and print as usual)");
  cmd->add_option("--sanitizer-json", o->sanitizerJson,
                  "FILE: every report of every tool (memcheck included) and the summaries, as one JSON document "
                  "(schema ptxray-sanitizers, version 1; see docs/sanitizers.md)");
  cmd->add_option("--block-size", o->overrides.blockSize,
                  "N: every launch runs with N threads per block along x, its grid along x resized to cover the "
                  "same threads (rounded up), as in a sweep")
      ->check(CLI::Range(1, 1 << 30));
  cmd->add_option("--dynamic-shared", o->overrides.dynamicSharedBytes,
                  "BYTES: every launch's dynamic shared memory per block")
      ->check(CLI::Range(uint64_t{0}, uint64_t{std::numeric_limits<uint32_t>::max()}));
  addLaunchOptions(*cmd, o->launch);
  cmd->footer(kFooter);
  return [cmd, o]() -> int {
    if (!cmd->parsed())
      return -1;
    try {
      // --csv, a list of metric names and ncu's sections are ways of printing --metrics.
      o->metrics = o->metrics || o->csv || !o->metricNames.empty() || !o->set.empty() || !o->sections.empty();
      return runCommand(*o);
    } catch (const std::invalid_argument &e) {
      std::cerr << "ptxray: error: " << e.what() << "\n";
      return 2;
    }
  };
}

} // namespace ptxray::cli
