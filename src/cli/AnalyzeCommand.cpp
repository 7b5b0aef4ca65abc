// `ptxray analyze`: runs a launch with the performance model and turns its counts into ranked
// findings (the advisor), with the summary, the source lines and the per-line views; without a
// launch, the static subset from the PTX alone. `ptxray compare`: the same launch on several GPUs.
#include "advisor/Advisor.h"
#include "advisor/SessionRules.h"
#include "arch/GpuDatabase.h"
#include "arch/OccupancyCalculator.h"
#include "cli/ClockOption.h"
#include "cli/Commands.h"
#include "cli/KernelResources.h"
#include "cli/LaunchOptions.h"
#include "model/PerformanceModel.h"
#include "ptx/Demangle.h"
#include "ptx/ModuleSummary.h"
#include "report/AnalysisReport.h"
#include "report/TimelineView.h"
#include "sanitizers/Initcheck.h"
#include "sanitizers/Leakcheck.h"
#include "sanitizers/Racecheck.h"
#include "sanitizers/Synccheck.h"
#include "system/SessionFromSpec.h"
#include "vm/Device.h"
#include "vm/ListenerGroup.h"
#include "vm/host/RunSpec.h"

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
  std::string dlcm;
  std::string clock; ///< --clock
  int bankMode = 0;
  uint64_t sample = 0;
  unsigned threads = 0;
  uint64_t maxInstructions = 0;
  std::string keepPtx;
  bool check = false; ///< the sanitizers too: their hazards become correctness findings
  LaunchCommandLine launch;
};

/// "a,b" and repeated options alike.
std::vector<std::string> splitList(const std::vector<std::string> &items) {
  std::vector<std::string> out;
  for (const std::string &item : items) {
    size_t start = 0;
    for (;;) {
      size_t comma = item.find(',', start);
      std::string part = item.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!part.empty())
        out.push_back(part);
      if (comma == std::string::npos)
        break;
      start = comma + 1;
    }
  }
  return out;
}

advisor::AdvisorOptions advisorOptions(const AnalyzeOptions &o) {
  advisor::AdvisorOptions a;
  a.only = splitList(o.only);
  a.ignore = splitList(o.ignore);
  for (const std::string &id : a.only)
    if (!advisor::findRule(id))
      throw std::invalid_argument(fmt::format("--only: unknown rule '{}' (--list-rules shows them)", id));
  for (const std::string &id : a.ignore)
    if (!advisor::findRule(id))
      throw std::invalid_argument(fmt::format("--ignore: unknown rule '{}' (--list-rules shows them)", id));
  for (const std::string &t : o.thresholds) {
    size_t eq = t.find('=');
    const std::string name = t.substr(0, eq);
    const advisor::ThresholdInfo *info = nullptr;
    for (const advisor::ThresholdInfo &ti : advisor::thresholdInfos())
      if (ti.name == name)
        info = &ti;
    if (eq == std::string::npos || !info)
      throw std::invalid_argument(
          fmt::format("--threshold '{}': expected NAME=VALUE with a NAME from --list-rules", t));
    try {
      size_t used = 0;
      double v = std::stod(t.substr(eq + 1), &used);
      if (used != t.size() - eq - 1 || !(v >= 0))
        throw std::invalid_argument("");
      a.thresholds.*(info->member) = v;
    } catch (const std::exception &) {
      throw std::invalid_argument(fmt::format("--threshold '{}': the value must be a non-negative number", t));
    }
  }
  return a;
}

model::ModelOptions modelOptions(const AnalyzeOptions &o, const arch::ArchTarget &target) {
  model::ModelOptions mo;
  mo.smClockMHz = clockMHz(o.clock, target);
  if (!o.dlcm.empty())
    mo.loadCaching = o.dlcm == "ca" ? arch::GlobalLoadCaching::L1 : arch::GlobalLoadCaching::L2Only;
  mo.bankWidthBytes = o.bankMode;
  return mo;
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

/// A sanitizer's report as the advisor takes it; its sites' "file:line" become source references.
advisor::CorrectnessReport correctnessReport(const sanitizers::Hazard &h, std::string rule) {
  advisor::CorrectnessReport r;
  r.rule = std::move(rule);
  r.error = h.severity == sanitizers::Severity::Error;
  r.headline = h.headline;
  r.details = h.details;
  r.occurrences = h.occurrences;
  for (const sanitizers::SiteText &site : h.sites) {
    advisor::SourceRef ref;
    const std::string place = site.sourceLine.substr(0, site.sourceLine.find(' '));
    const size_t colon = place.rfind(':');
    if (colon != std::string::npos && colon + 1 < place.size() &&
        place.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
      ref.file = place.substr(0, colon);
      ref.line = static_cast<uint32_t>(std::stoul(place.substr(colon + 1)));
    }
    ref.ptxLocation = site.ptxLocation;
    ref.ptxText = site.ptxText;
    ref.evidence = r.lines.empty() ? "reported here" : "and here";
    r.lines.push_back(std::move(ref));
  }
  return r;
}

/// The sanitizers `--check` attaches beside the model.
struct Sanitizers {
  std::unique_ptr<sanitizers::Racecheck> racecheck;
  std::unique_ptr<sanitizers::Synccheck> synccheck;
  std::unique_ptr<sanitizers::Initcheck> initcheck;
  std::unique_ptr<sanitizers::Leakcheck> leakcheck;

  Sanitizers(const arch::ComputeCapability &cc)
      : racecheck(std::make_unique<sanitizers::Racecheck>(sanitizers::RacecheckOptions{cc.major * 10 + cc.minor})),
        synccheck(std::make_unique<sanitizers::Synccheck>()), initcheck(std::make_unique<sanitizers::Initcheck>()),
        leakcheck(std::make_unique<sanitizers::Leakcheck>()) {}

  /// This launch's hazards.
  std::vector<advisor::CorrectnessReport> launchReports() const {
    std::vector<advisor::CorrectnessReport> out;
    for (const sanitizers::Hazard &h : racecheck->launchHazards())
      out.push_back(correctnessReport(h, "race-hazard"));
    for (const sanitizers::Hazard &h : synccheck->launchHazards())
      out.push_back(correctnessReport(h, "sync-hazard"));
    for (const sanitizers::Hazard &h : initcheck->launchHazards())
      out.push_back(correctnessReport(h, "uninitialized-read"));
    return out;
  }
};

/// One launch's profile with the module it ran, kept alive for the advisor.
struct Analyzed {
  std::vector<std::unique_ptr<model::LaunchProfile>> profiles; ///< the analyses point at these
  std::vector<report::Analysis> analyses;
  int status = 0;
  /// A spec with host operations (copies, streams, events): the session on the modeled system.
  std::optional<system::Timeline> session;
  std::vector<advisor::Finding> sessionFindings;
};

/// Runs the spec on `archName` with the model attached, and advises on every launch that completed.
Analyzed analyzeLaunches(const vm::RunSpec &spec, const AnalyzeOptions &o, const std::string &archName,
                         const advisor::AdvisorOptions &ao) {
  arch::ArchTarget target = *arch::findArch(archName).target;
  model::PerformanceModel perf(target, modelOptions(o, target));
  Analyzed out;
  vm::RunOptions options;
  options.arch = archName;
  options.launch.threads = o.threads;
  options.launch.maxInstructions = o.maxInstructions;
  options.launch.sampleCtas = o.sample;
  options.keepPtxDirectory = o.keepPtx;
  vm::ListenerGroup listeners;
  listeners.add(&perf);
  std::unique_ptr<Sanitizers> tools;
  if (o.check) {
    tools = std::make_unique<Sanitizers>(*target.computeCapability);
    listeners.add(tools->racecheck.get());
    listeners.add(tools->synccheck.get());
    listeners.add(tools->initcheck.get());
    listeners.add(tools->leakcheck.get());
    options.memoryListener = tools->initcheck.get();
  }
  options.launch.listener = listeners.single();
  options.onLaunch = [&](const vm::LaunchReport &r) {
    if (!r.result.printfOutput.empty() && !o.quiet)
      std::cout << r.result.printfOutput;
    std::cerr << r.result.assertOutput;
    if (!r.result.ok()) {
      for (const vm::Fault &f : r.result.faults)
        std::cerr << f.describe();
      std::cerr << fmt::format("error: launch of {} {}: {}\n", r.kernel,
                               r.result.status == vm::LaunchStatus::Refused ? "refused" : "failed", r.result.error);
      return;
    }
    if (perf.launches().empty())
      return;
    // The module is alive during the callback: advise now, keep the profile.
    const model::LaunchProfile &L = perf.launches().back();
    advisor::AnalysisInput in;
    in.target = target;
    in.module = L.module;
    in.kernel = L.kernel;
    in.launch = &L;
    in.modelOptions = modelOptions(o, target);
    if (tools)
      in.hazards = tools->launchReports();
    std::vector<advisor::Finding> findings = advisor::advise(in, ao);
    out.profiles.push_back(std::make_unique<model::LaunchProfile>(L));
    report::Analysis a;
    a.target = target;
    a.launch = out.profiles.back().get();
    a.sourceDirs = {spec.module.parent_path().string()};
    a.findings = std::move(findings);
    out.analyses.push_back(std::move(a));
  };
  vm::RunOutcome outcome = vm::runSpec(spec, options);
  // Leaks are known at the end of the run only: they belong to the last launch's analysis.
  if (tools && !out.analyses.empty()) {
    std::vector<advisor::CorrectnessReport> leaks;
    for (const sanitizers::Hazard &h : tools->leakcheck->leaks())
      leaks.push_back(correctnessReport(h, "memory-leak"));
    std::vector<advisor::Finding> &findings = out.analyses.back().findings;
    for (advisor::Finding &f : advisor::correctnessFindings(leaks))
      if ((ao.only.empty() || std::find(ao.only.begin(), ao.only.end(), f.rule) != ao.only.end()) &&
          std::find(ao.ignore.begin(), ao.ignore.end(), f.rule) == ao.ignore.end())
        findings.push_back(std::move(f));
    advisor::rankFindings(findings);
  }
  // The profiles were copied: their module pointer is not valid any more.
  for (const std::unique_ptr<model::LaunchProfile> &p : out.profiles)
    p->module = nullptr;
  // A session (operations beyond launches): the transfers and streams too ([BPG] 3.1 comes first).
  const bool session = std::any_of(spec.operations.begin(), spec.operations.end(), [](const vm::SpecOperation &op) {
    return op.kind != vm::SpecOperation::Kind::Launch || op.stream != 0 || op.device != 0;
  });
  if (session) {
    system::SystemOptions so;
    so.pcieGeneration = spec.host.pcieGeneration;
    so.pcieLanes = spec.host.pcieLanes;
    so.boards = spec.host.boards;
    const system::SystemConfig config = system::SystemConfig::forTarget(target, so);
    std::vector<model::LaunchProfile> profiles;
    for (const std::unique_ptr<model::LaunchProfile> &p : out.profiles)
      profiles.push_back(*p);
    const int smCount = target.board()->smCount; // forTarget found the board
    out.session = system::simulate(config, system::sessionFromSpec(spec, profiles, smCount));
    out.sessionFindings = advisor::adviseSession(*out.session);
  }
  if (!outcome.error.empty())
    std::cerr << "ptxray: error: " << outcome.error << "\n";
  out.status = outcome.ok() ? 0 : 1;
  return out;
}

/// The static subset: every kernel of the module (or --kernel), from the PTX alone.
Analyzed analyzeStatically(const AnalyzeOptions &o, const advisor::AdvisorOptions &ao) {
  arch::ArchTarget target = *arch::findArch(o.arch).target;
  const arch::ComputeCapability &cc = *target.computeCapability;
  Analyzed out;
  vm::Device device(cc, target.gpu ? target.gpu->smCount : 0);
  // A .cu file's PTX is kept so that ptxas can count its registers.
  std::string keep = o.keepPtx;
  std::optional<std::filesystem::path> temporary;
  if (keep.empty() && o.input.ends_with(".cu")) {
    std::string dir = (std::filesystem::temp_directory_path() / "ptxray-analyze-XXXXXX").string();
    if (!mkdtemp(dir.data()))
      throw std::runtime_error("cannot create a temporary directory");
    temporary = dir;
    keep = dir;
  }
  struct Cleanup {
    std::optional<std::filesystem::path> &dir;
    ~Cleanup() {
      std::error_code ec;
      if (dir)
        std::filesystem::remove_all(*dir, ec);
    }
  } cleanup{temporary};
  const vm::LoadedModule &loaded = device.loadModuleFile(o.input, keep);
  const ptx::Module &m = loaded.ptx();
  const std::string ptxPath =
      o.input.ends_with(".cu")
          ? (std::filesystem::path(keep) / (std::filesystem::path(o.input).filename().string() + ".ptx")).string()
          : o.input;
  ptx::ModuleSummary summary = ptx::summarize(m);
  bool found = false;
  for (const ptx::Function &fn : m.functions) {
    if (!fn.isEntry || !fn.hasBody)
      continue;
    const std::string demangled = ptx::demangle(fn.name);
    if (!o.launch.kernel.empty() && fn.name != o.launch.kernel && demangled != o.launch.kernel &&
        !demangled.starts_with(o.launch.kernel + "("))
      continue;
    found = true;
    report::KernelStatic k;
    k.kernel = std::string(fn.name);
    k.demangled = demangled;
    std::optional<KernelResources> res = kernelResources(ptxPath, k.kernel, cc);
    if (!res) {
      out.status = 1;
      continue;
    }
    k.registers = res->registers;
    k.registerSource = res->registerSource;
    for (const ptx::FunctionSummary &f : summary.functions)
      if (f.name == fn.name) {
        k.staticSharedBytes = f.sharedBytes;
        k.localBytesPerThread = f.localBytes;
      }
    for (int threads = cc.warpSize; threads <= cc.maxThreadsPerBlock; threads += cc.warpSize) {
      if (res->threadsPerBlock && threads > *res->threadsPerBlock)
        break;
      arch::OccupancyInput in;
      in.threadsPerBlock = threads;
      in.registersPerThread = k.registers;
      in.staticSharedBytes = k.staticSharedBytes;
      k.occupancyByBlockSize.emplace_back(threads, arch::computeOccupancy(cc, in));
    }
    advisor::AnalysisInput in;
    in.target = target;
    in.module = &m;
    in.kernel = k.kernel;
    in.registersPerThread = k.registers;
    in.modelOptions = modelOptions(o, target);
    report::Analysis a;
    a.target = target;
    a.sourceDirs = {std::filesystem::path(o.input).parent_path().string()};
    a.findings = advisor::advise(in, ao);
    a.kernelStatic = std::move(k);
    out.analyses.push_back(std::move(a));
  }
  if (!found) {
    std::cerr << fmt::format("ptxray: error: {} has no kernel{}\n", o.input,
                             o.launch.kernel.empty() ? "" : fmt::format(" named '{}'", o.launch.kernel));
    out.status = 1;
  }
  return out;
}

/// The run spec from a spec file or the launch options; nullopt (after printing why) when malformed.
std::optional<vm::RunSpec> loadSpec(const AnalyzeOptions &o, bool specMode) {
  try {
    if (specMode)
      return vm::loadRunSpec(o.input);
    return vm::parseRunSpec(commandLineSpec(o.input, o.launch), o.input, {});
  } catch (const vm::SpecError &e) {
    if (specMode)
      std::cerr << e.what() << "\n";
    else
      std::cerr << fmt::format("ptxray: error: {}: {}\n", commandLinePlace(o.launch, e.path()), e.message());
  }
  return std::nullopt;
}

bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) {
    std::cerr << "ptxray: error: cannot write " << path << "\n";
    return false;
  }
  return true;
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
  if (arch::ArchLookup lookup = arch::findArch(o.arch); !lookup) {
    std::cerr << "ptxray: error: " << lookup.error << "\n";
    return 2;
  }
  const bool specMode = o.input.ends_with(".json");
  if (specMode && o.launch.any()) {
    std::cerr << "ptxray: error: --kernel, --grid, --block, --shared, --buffer, --arg and --output describe a "
                 "launch of a .ptx or .cu module; a spec file describes its own launches\n";
    return 2;
  }
  const advisor::AdvisorOptions ao = advisorOptions(o);
  // Without a grid (and without a spec) there is no launch: the static subset.
  const bool staticOnly =
      !specMode && o.launch.grid.empty() && o.launch.block.empty() && o.launch.args.empty() && o.launch.buffers.empty();
  Analyzed result;
  try {
    if (staticOnly) {
      result = analyzeStatically(o, ao);
    } else {
      std::optional<vm::RunSpec> spec = loadSpec(o, specMode);
      if (!spec)
        return 2;
      result = analyzeLaunches(*spec, o, o.arch, ao);
    }
  } catch (const vm::SpecError &e) {
    std::cerr << (specMode ? std::string(e.what()) : fmt::format("ptxray: error: {}", e.message())) << "\n";
    return 2;
  } catch (const std::invalid_argument &e) {
    std::cerr << "ptxray: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception &e) {
    std::string what = e.what();
    std::cerr << "ptxray: error: " << what << (what.ends_with('\n') ? "" : "\n");
    return 1;
  }
  report::TextStyle style;
  style.color = useColor(o);
  style.quiet = o.quiet;
  style.verbose = o.verbose;
  if (result.session) {
    // The session first: the guides rank transfers above everything in the kernels.
    report::TimelineTextOptions text; // the summary and findings; the chart is `ptxray timeline`'s
    text.chart = o.verbose;
    text.operations = o.verbose;
    std::cout << report::timelineText(*result.session, result.sessionFindings, text) << "\n";
  }
  for (size_t i = 0; i < result.analyses.size(); ++i)
    std::cout << (i ? "\n" : "") << report::analysisText(result.analyses[i], style);
  nlohmann::json document = report::analysisJson(result.analyses);
  if (result.session)
    document["session"] = report::timelineJson(*result.session, result.sessionFindings);
  if (!o.json.empty() && !writeFile(o.json, document.dump(1) + "\n"))
    return 1;
  if (!o.html.empty() && !writeFile(o.html, report::analysisHtml(result.analyses)))
    return 1;
  return result.status;
}

int compareCommand(const AnalyzeOptions &o, const std::vector<std::string> &archs) {
  if (archs.size() < 1) {
    std::cerr << "ptxray: error: compare needs --arch with one or more GPUs (sm_20,sm_35,k40,...)\n";
    return 2;
  }
  for (const std::string &a : archs)
    if (arch::ArchLookup lookup = arch::findArch(a); !lookup) {
      std::cerr << "ptxray: error: " << lookup.error << "\n";
      return 2;
    }
  const bool specMode = o.input.ends_with(".json");
  if (!specMode && o.launch.grid.empty()) {
    std::cerr << "ptxray: error: compare runs a launch: give a spec file, or --grid/--block and the arguments\n";
    return 2;
  }
  const advisor::AdvisorOptions ao = advisorOptions(o);
  std::optional<vm::RunSpec> spec = loadSpec(o, specMode);
  if (!spec)
    return 2;
  std::vector<Analyzed> runs;
  std::vector<report::Analysis> analyses;
  int status = 0;
  try {
    for (const std::string &a : archs) {
      runs.push_back(analyzeLaunches(*spec, o, a, ao));
      status = std::max(status, runs.back().status);
    }
  } catch (const std::exception &e) {
    std::cerr << "ptxray: error: " << e.what() << "\n";
    return 1;
  }
  // Launch by launch: the i-th launch of every GPU's run side by side (a launch that failed on one
  // GPU ends the comparison there).
  size_t launches = runs.empty() ? 0 : runs.front().analyses.size();
  for (const Analyzed &r : runs)
    launches = std::min(launches, r.analyses.size());
  report::TextStyle style;
  style.color = useColor(o);
  style.quiet = o.quiet;
  style.verbose = o.verbose;
  nlohmann::json comparisons = nlohmann::json::array();
  for (size_t i = 0; i < launches; ++i) {
    std::vector<report::Analysis> side;
    for (Analyzed &r : runs)
      side.push_back(r.analyses[i]);
    std::cout << (i ? "\n" : "") << report::compareText(side, style);
    comparisons.push_back(report::compareJson(side));
    analyses.insert(analyses.end(), side.begin(), side.end());
  }
  if (!o.json.empty() &&
      !writeFile(o.json,
                 nlohmann::json{{"schema", "ptxray-compare"}, {"version", 1}, {"comparisons", comparisons}}.dump(1) +
                     "\n"))
    return 1;
  if (!o.html.empty() && !writeFile(o.html, report::analysisHtml(analyses)))
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
  cmd.add_option("--clock", o.clock, kClockHelp);
  cmd.add_option("--dlcm", o.dlcm, "Global loads cached in L1 (ca) or L2 only (cg), as -Xptxas -dlcm")
      ->check(CLI::IsMember({"ca", "cg"}));
  cmd.add_option("--bank-mode", o.bankMode, "Kepler shared-memory bank width in bytes (4 or 8)")
      ->check(CLI::IsMember({4, 8}));
  cmd.add_option("--sample", o.sample, "N: simulate N blocks spread over the grid and scale the counts")
      ->check(CLI::Range(uint64_t{2}, std::numeric_limits<uint64_t>::max(), "AT LEAST 2"));
  cmd.add_option("--threads", o.threads, "Worker threads running CTAs (default: all cores)")
      ->check(CLI::Range(0LL, 4096LL, "WORKERS"));
  cmd.add_option("--max-instructions", o.maxInstructions, "Thread-instruction budget per launch (0: default)")
      ->check(nonNegative);
  cmd.add_flag("--check", o.check,
               "Also run racecheck, synccheck, initcheck and leakcheck: their hazards become correctness findings");
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
