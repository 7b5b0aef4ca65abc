// `ptxray run`: runs kernels on the virtual GPU, from a run spec (SPEC.json, see vm/host/RunSpec.h)
// or, for one launch, from a module and a compact command line that is turned into the same spec.
#include "arch/GpuDatabase.h"
#include "cli/ClockOption.h"
#include "cli/Commands.h"
#include "cli/LaunchOptions.h"
#include "model/PerformanceModel.h"
#include "report/MetricsReport.h"
#include "sanitizers/Initcheck.h"
#include "sanitizers/Leakcheck.h"
#include "sanitizers/Racecheck.h"
#include "sanitizers/Synccheck.h"
#include "vm/ListenerGroup.h"
#include "vm/host/RunSpec.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>

namespace ptxray::cli {
namespace {

using nlohmann::json;

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
  std::string metricsJson;
  std::string dlcm;
  int bankMode = 0;
  std::string clock;
  uint64_t sample = 0;
  // compute-sanitizer's tools (memcheck is --memcheck).
  std::vector<std::string> tools;
  bool racecheckGlobal = false;
  std::string sanitizerJson; ///< FILE: every tool's reports and summaries as one JSON document
  LaunchCommandLine launch;  ///< one launch from the command line
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
module did not load) or a sanitizer found an error, 2 for a malformed spec or command line.)";

const char *severityName(sanitizers::Severity severity) {
  return severity == sanitizers::Severity::Error ? "error" : "warning";
}

json siteJson(const sanitizers::SiteText &site) {
  return {{"source_line", site.sourceLine},
          {"ptx_location", site.ptxLocation},
          {"ptx_text", site.ptxText},
          {"function", site.function}};
}

/// One report of --sanitizer-json; `launch` is null for reports made at the end of the run (leaks).
json hazardJson(const char *tool, const sanitizers::Hazard &h, const vm::LaunchReport *launch) {
  json sites = json::array();
  for (const sanitizers::SiteText &site : h.sites)
    sites.push_back(siteJson(site));
  return {{"tool", tool},
          {"launch", launch ? json(launch->index) : json(nullptr)},
          {"kernel", launch ? json(launch->kernel) : json(nullptr)},
          {"severity", severityName(h.severity)},
          {"headline", h.headline},
          {"details", h.details},
          {"occurrences", h.occurrences},
          {"sites", std::move(sites)}};
}

/// A memory error as a memcheck report of --sanitizer-json: the first line of its compute-sanitizer
/// report is the headline, the others are the details.
json faultJson(const vm::Fault &f, const vm::LaunchReport &launch) {
  std::vector<std::string> lines;
  const std::string text = f.describe();
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    std::string line = text.substr(start, end - start);
    line.erase(0, line.find_first_not_of("= "));
    lines.push_back(std::move(line));
    start = end == std::string::npos ? text.size() : end + 1;
  }
  sanitizers::Hazard h;
  h.headline = lines.front();
  h.details.assign(lines.begin() + 1, lines.end());
  h.occurrences = 1;
  h.sites.push_back({f.sourceLine, f.ptxLocation, f.instructionText, f.function});
  return hazardJson("memcheck", h, &launch);
}

void printLaunch(const vm::LaunchReport &r, const RunCommandOptions &o, bool memcheck, size_t maxFaults) {
  if (!r.result.printfOutput.empty()) {
    std::cout << r.result.printfOutput;
    std::cout.flush();
  }
  std::cerr << r.result.assertOutput;
  switch (r.result.status) {
  case vm::LaunchStatus::Success: break;
  case vm::LaunchStatus::Refused:
    std::cerr << fmt::format("error: launch of {} refused: {}\n", r.kernel, r.result.error);
    break;
  case vm::LaunchStatus::Faulted:
  case vm::LaunchStatus::AssertFailed:
    for (const vm::Fault &f : r.result.faults)
      std::cerr << f.describe();
    if (memcheck)
      std::cerr << fmt::format("========= ERROR SUMMARY: {} error{}{}\n", r.result.faults.size(),
                               r.result.faults.size() == 1 ? "" : "s",
                               r.result.faults.size() >= maxFaults ? " (reports stop there)" : "");
    std::cerr << fmt::format("error: launch of {} failed: {}\n", r.kernel, r.result.error);
    break;
  }
  if (o.verbose)
    std::cerr << fmt::format(
        "ptxray: launch {} {} ({},{},{})x({},{},{}): {} threads, {} thread-instructions, {:.3f} ms, "
        "{} worker{}{}\n",
        r.index, r.kernel, r.grid.x, r.grid.y, r.grid.z, r.block.x, r.block.y, r.block.z, r.threads(),
        r.result.threadInstructions, r.seconds * 1e3, r.result.workers, r.result.workers == 1 ? "" : "s",
        r.result.ok() ? "" : " (failed)");
}

int runCommand(const RunCommandOptions &o) {
  bool specMode = o.input.ends_with(".json");
  bool launchOptions = o.launch.any();
  if (specMode && launchOptions) {
    std::cerr << "ptxray: error: --kernel, --grid, --block, --shared, --buffer, --arg and --output describe a "
                 "launch of a .ptx or .cu module; a spec file describes its own launches\n";
    return 2;
  }
  if (arch::ArchLookup lookup = arch::findArch(o.arch); !lookup) {
    std::cerr << "ptxray: error: " << lookup.error << "\n";
    return 2;
  }
  vm::RunSpec spec;
  try {
    if (specMode)
      spec = vm::loadRunSpec(o.input);
    else
      spec = vm::parseRunSpec(commandLineSpec(o.input, o.launch), o.input, {});
  } catch (const vm::SpecError &e) {
    if (specMode)
      std::cerr << e.what() << "\n";
    else
      std::cerr << fmt::format("ptxray: error: {}: {}\n", commandLinePlace(o.launch, e.path()), e.message());
    return 2;
  } catch (const std::invalid_argument &e) {
    std::cerr << "ptxray: error: " << e.what() << "\n";
    return 2;
  }

  bool racecheck = false, synccheck = false, initcheck = false, leakcheck = false;
  for (const std::string &tool : o.tools) {
    if (tool == "racecheck")
      racecheck = true;
    else if (tool == "synccheck")
      synccheck = true;
    else if (tool == "initcheck")
      initcheck = true;
    else if (tool == "leakcheck")
      leakcheck = true;
    else if (tool != "memcheck") {
      std::cerr << fmt::format(
          "ptxray: error: --tool: unknown tool \"{}\" (racecheck, synccheck, initcheck, leakcheck, memcheck)\n", tool);
      return 2;
    }
  }
  if (o.racecheckGlobal && !racecheck) {
    std::cerr << "ptxray: error: --racecheck-global needs --tool racecheck\n";
    return 2;
  }
  const bool memcheck = o.memcheck || std::find(o.tools.begin(), o.tools.end(), "memcheck") != o.tools.end();
  if (!o.sanitizerJson.empty() && !memcheck && !racecheck && !synccheck && !initcheck && !leakcheck) {
    std::cerr << "ptxray: error: --sanitizer-json needs a tool (--tool NAME or --memcheck)\n";
    return 2;
  }

  vm::RunOptions options;
  options.arch = o.arch;
  options.launch.threads = o.threads;
  options.launch.maxInstructions = o.maxInstructions;
  options.launch.continueOnError = memcheck;
  options.keepPtxDirectory = o.keepPtx;
  // Every listener asked for (performance model, sanitizers) hears every launch.
  vm::ListenerGroup listeners;
  std::unique_ptr<sanitizers::Racecheck> racecheckTool;
  std::unique_ptr<sanitizers::Synccheck> synccheckTool;
  if (racecheck) {
    const arch::ComputeCapability &cc = *arch::findArch(o.arch).target->computeCapability;
    racecheckTool = std::make_unique<sanitizers::Racecheck>(
        sanitizers::RacecheckOptions{cc.major * 10 + cc.minor, o.racecheckGlobal});
    listeners.add(racecheckTool.get());
  }
  if (synccheck) {
    synccheckTool = std::make_unique<sanitizers::Synccheck>();
    listeners.add(synccheckTool.get());
  }
  std::unique_ptr<sanitizers::Initcheck> initcheckTool;
  if (initcheck) {
    initcheckTool = std::make_unique<sanitizers::Initcheck>();
    listeners.add(initcheckTool.get());
    options.memoryListener = initcheckTool.get();
  }
  std::unique_ptr<sanitizers::Leakcheck> leakcheckTool;
  if (leakcheck) {
    leakcheckTool = std::make_unique<sanitizers::Leakcheck>();
    listeners.add(leakcheckTool.get());
  }
  // --sanitizer-json: every report, in the order they are printed.
  json reports = json::array();
  uint64_t memcheckErrors = 0;
  auto printHazards = [&](const vm::LaunchReport &r) {
    if (r.result.status == vm::LaunchStatus::Refused)
      return;
    auto print = [&](const char *tool, const std::vector<sanitizers::Hazard> &hazards) {
      for (const sanitizers::Hazard &h : hazards) {
        std::cerr << h.describe();
        if (!o.sanitizerJson.empty())
          reports.push_back(hazardJson(tool, h, &r));
      }
    };
    if (racecheckTool)
      print("racecheck", racecheckTool->launchHazards());
    if (synccheckTool)
      print("synccheck", synccheckTool->launchHazards());
    if (initcheckTool)
      print("initcheck", initcheckTool->launchHazards());
    if (memcheck) {
      memcheckErrors += r.result.faultCount;
      if (!o.sanitizerJson.empty())
        for (const vm::Fault &f : r.result.faults)
          reports.push_back(faultJson(f, r));
    }
  };
  options.onLaunch = [&](const vm::LaunchReport &r) {
    printHazards(r);
    printLaunch(r, o, memcheck, options.launch.maxFaults);
  };
  // The performance model listens to every launch when asked for metrics.
  std::unique_ptr<model::PerformanceModel> perf;
  if (o.metrics || !o.metricsJson.empty()) {
    model::ModelOptions mo;
    if (!o.dlcm.empty())
      mo.loadCaching = o.dlcm == "ca" ? arch::GlobalLoadCaching::L1 : arch::GlobalLoadCaching::L2Only;
    mo.bankWidthBytes = o.bankMode;
    mo.smClockMHz = clockMHz(o.clock, *arch::findArch(o.arch).target);
    perf = std::make_unique<model::PerformanceModel>(*arch::findArch(o.arch).target, mo);
    listeners.add(perf.get());
    options.launch.sampleCtas = o.sample;
    if (o.metrics)
      options.onLaunch = [&](const vm::LaunchReport &r) {
        printHazards(r);
        printLaunch(r, o, memcheck, options.launch.maxFaults);
        if (r.result.status != vm::LaunchStatus::Refused && !perf->launches().empty())
          std::cout << report::metricsText(perf->launches().back());
      };
  }
  options.launch.listener = listeners.single();
  vm::RunOutcome outcome;
  try {
    outcome = vm::runSpec(spec, options);
  } catch (const vm::SpecError &e) {
    if (specMode)
      std::cerr << e.what() << "\n";
    else if (e.path() == "module")
      std::cerr << fmt::format("ptxray: error: {}\n", e.message());
    else
      std::cerr << fmt::format("ptxray: error: {}: {}\n", commandLinePlace(o.launch, e.path()), e.message());
    return 2;
  } catch (const std::exception &e) {
    // vm::VmError: a module that does not parse or verify, nvcc missing or failing.
    std::string what = e.what();
    std::cerr << "ptxray: error: " << what << (what.ends_with('\n') ? "" : "\n");
    return 1;
  }
  if (perf && !o.metricsJson.empty()) {
    std::ofstream out(o.metricsJson);
    out << report::metricsJson(perf->launches()).dump(1) << "\n";
    if (!out) {
      std::cerr << "ptxray: error: cannot write " << o.metricsJson << "\n";
      return 1;
    }
  }
  if (!outcome.error.empty())
    std::cerr << "ptxray: error: " << outcome.error << "\n";
  bool launchFailed = !outcome.launches.empty() && !outcome.launches.back().result.ok();
  if (launchFailed && !spec.outputs.empty())
    std::cerr << "note: outputs not written: a launch failed\n";
  bool hazardErrors = false;
  json summary = json::object();
  if (racecheckTool) {
    summary["racecheck"] = {{"errors", racecheckTool->errors()}, {"warnings", racecheckTool->warnings()}};
    std::cerr << "========= "
              << sanitizers::summaryLine("RACECHECK", racecheckTool->errors(), racecheckTool->warnings()) << "\n";
    hazardErrors |= racecheckTool->errors() > 0;
  }
  if (synccheckTool) {
    summary["synccheck"] = {{"errors", synccheckTool->errors()}, {"warnings", synccheckTool->warnings()}};
    std::cerr << "========= "
              << sanitizers::summaryLine("SYNCCHECK", synccheckTool->errors(), synccheckTool->warnings()) << "\n";
    hazardErrors |= synccheckTool->errors() > 0;
  }
  if (initcheckTool) {
    summary["initcheck"] = {{"errors", initcheckTool->errors()}};
    std::cerr << "========= " << sanitizers::errorSummaryLine("INITCHECK", initcheckTool->errors()) << "\n";
    hazardErrors |= initcheckTool->errors() > 0;
  }
  if (leakcheckTool) {
    // Reported once, at the end: a later launch may free what an earlier one allocated.
    const std::vector<sanitizers::Hazard> leaks = leakcheckTool->leaks();
    for (const sanitizers::Hazard &h : leaks) {
      std::cerr << h.describe();
      reports.push_back(hazardJson("leakcheck", h, nullptr));
    }
    const uint64_t blocks = leakcheckTool->leakedBlocks(), bytes = leakcheckTool->leakedBytes();
    summary["leakcheck"] = {{"errors", leaks.size()}, {"leaked_bytes", bytes}, {"leaked_blocks", blocks}};
    std::cerr << fmt::format("========= {} ({} byte{} leaked in {} block{})\n",
                             sanitizers::errorSummaryLine("LEAKCHECK", leaks.size()), bytes, bytes == 1 ? "" : "s",
                             blocks, blocks == 1 ? "" : "s");
    hazardErrors |= !leaks.empty();
  }
  if (memcheck)
    summary["memcheck"] = {{"errors", memcheckErrors}};
  if (!o.sanitizerJson.empty()) {
    json tools = json::array();
    for (const auto &[name, counts] : summary.items())
      tools.push_back(name);
    json document = {{"schema", "ptxray-sanitizers"}, {"version", 1},       {"arch", o.arch},
                     {"tools", std::move(tools)},     {"reports", reports}, {"summary", summary}};
    std::ofstream out(o.sanitizerJson);
    out << document.dump(1) << "\n";
    if (!out) {
      std::cerr << "ptxray: error: cannot write " << o.sanitizerJson << "\n";
      return 1;
    }
  }
  return outcome.ok() && !hazardErrors ? 0 : 1;
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
  cmd->add_option("--max-instructions", o->maxInstructions, "Thread-instruction budget per launch (0: default)")
      ->check(nonNegative);
  cmd->add_flag("-v,--verbose", o->verbose, "A summary line per launch on stderr (threads, instructions, time)");
  cmd->add_flag("--metrics", o->metrics,
                "The performance model: per launch, what the GPU of --arch would do (memory transactions, bank "
                "conflicts, divergence, occupancy, a time estimate) and the hottest source lines");
  cmd->add_option("--metrics-json", o->metricsJson, "FILE: every launch's metrics, per line and per instruction");
  cmd->add_option("--dlcm", o->dlcm, "Global loads cached in L1 (ca) or L2 only (cg), as -Xptxas -dlcm")
      ->check(CLI::IsMember({"ca", "cg"}));
  cmd->add_option("--sample", o->sample,
                  "N: run only N CTAs spread over the grid (first and last included) and scale the counts; the "
                  "kernel's results are then incomplete")
      ->check(CLI::Range(uint64_t{2}, std::numeric_limits<uint64_t>::max(), "AT LEAST 2"));
  cmd->add_option("--clock", o->clock, kClockHelp);
  cmd->add_option("--bank-mode", o->bankMode, "Kepler shared-memory bank width in bytes (4 or 8)")
      ->check(CLI::IsMember({4, 8}));
  cmd->add_option("--tool", o->tools,
                  "Sanitizer tools, repeatable or comma-separated: racecheck (shared-memory races, intra-warp "
                  "hazards), synccheck (barrier and warp-synchronization errors), initcheck (reads of memory "
                  "nothing wrote), leakcheck (device-heap blocks never freed), memcheck (as --memcheck)")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_flag("--racecheck-global", o->racecheckGlobal,
                "racecheck also checks global memory for races between threads of the same block");
  cmd->add_option("--sanitizer-json", o->sanitizerJson,
                  "FILE: every report of every tool (memcheck included) and the summaries, as one JSON document "
                  "(schema ptxray-sanitizers, version 1; see docs/sanitizers.md)");
  addLaunchOptions(*cmd, o->launch);
  cmd->footer(kFooter);
  return [cmd, o]() -> int {
    if (!cmd->parsed())
      return -1;
    try {
      return runCommand(*o);
    } catch (const std::invalid_argument &e) {
      std::cerr << "ptxray: error: " << e.what() << "\n";
      return 2;
    }
  };
}

} // namespace ptxray::cli
