// `ptxray timeline`: a session's host operations (copies, launches, events, synchronizations) on a
// modeled host and GPU. The spec runs on the virtual GPU with the performance model attached (the
// results are exact; the kernels' durations are the model's estimates) and the system model places
// every operation in time.
#include "advisor/SessionRules.h"
#include "arch/GpuDatabase.h"
#include "cli/ClockOption.h"
#include "cli/Commands.h"
#include "model/PerformanceModel.h"
#include "report/TimelineView.h"
#include "system/SessionFromSpec.h"
#include "system/Timeline.h"
#include "vm/host/RunSpec.h"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <limits>
#include <memory>

namespace ptxray::cli {
namespace {

struct TimelineOptions {
  std::string input;
  std::string arch = "H100";
  std::optional<int> pcieGeneration;
  std::optional<int> pcieLanes;
  std::optional<int> connections;
  std::optional<int> boards;
  std::string json;
  std::string html;
  int width = 72;
  bool quiet = false;
  unsigned threads = 0;
  uint64_t sample = 0;
  std::vector<std::string> program; ///< after the input: a CUDA program's arguments
  std::string clock;
};

int timelineCommand(const TimelineOptions &o) {
  arch::ArchLookup lookup = arch::findArch(o.arch);
  if (!lookup)
    throw std::invalid_argument(lookup.error);
  if (!o.input.ends_with(".json") || !o.program.empty()) {
    // A CUDA program: it runs on ptxray's runtime, which records its calls (PTXRAY_TIMELINE).
    if (o.pcieGeneration || o.pcieLanes || o.sample || !o.clock.empty()) {
      std::cerr << "ptxray: error: --pcie-gen, --pcie-lanes, --sample and --clock apply to spec files\n";
      return 2;
    }
    if (o.connections)
      setenv("CUDA_DEVICE_MAX_CONNECTIONS", std::to_string(*o.connections).c_str(), 1);
    std::vector<std::string> program{o.input};
    program.insert(program.end(), o.program.begin(), o.program.end());
    std::vector<std::string> outputs{"-"};
    if (!o.json.empty())
      outputs.push_back(o.json);
    if (!o.html.empty())
      outputs.push_back(o.html);
    return execWithTimeline(program, o.arch, o.threads, o.boards.value_or(0), outputs);
  }
  const arch::ArchTarget target = *lookup.target;
  vm::RunSpec spec;
  try {
    spec = vm::loadRunSpec(o.input);
  } catch (const vm::SpecError &e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  system::SystemOptions systemOptions;
  systemOptions.pcieGeneration = o.pcieGeneration ? o.pcieGeneration : spec.host.pcieGeneration;
  systemOptions.pcieLanes = o.pcieLanes ? o.pcieLanes : spec.host.pcieLanes;
  systemOptions.boards = o.boards ? o.boards : spec.host.boards;
  if (o.connections)
    systemOptions.connections = o.connections;
  else if (const char *env = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS"); env && *env)
    systemOptions.connections = std::atoi(env);
  const system::SystemConfig config = system::SystemConfig::forTarget(target, systemOptions);

  model::ModelOptions modelOptions;
  modelOptions.smClockMHz = clockMHz(o.clock, target);
  model::PerformanceModel perf(target, modelOptions);
  vm::RunOptions options;
  options.arch = o.arch;
  options.launch.threads = o.threads;
  options.launch.sampleCtas = o.sample;
  options.launch.listener = &perf;
  int status = 0;
  options.onLaunch = [&](const vm::LaunchReport &r) {
    if (!r.result.printfOutput.empty() && !o.quiet)
      std::cout << r.result.printfOutput;
    if (!r.result.ok()) {
      for (const vm::Fault &f : r.result.faults)
        std::cerr << f.describe();
      std::cerr << fmt::format("error: launch of {} {}: {}\n", r.kernel,
                               r.result.status == vm::LaunchStatus::Refused ? "refused" : "failed", r.result.error);
      status = 1;
    }
  };
  vm::RunOutcome outcome;
  try {
    outcome = vm::runSpec(spec, options);
  } catch (const vm::SpecError &e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const vm::VmError &e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  if (!outcome.error.empty()) {
    std::cerr << "error: " << outcome.error << "\n";
    status = 1;
  }
  const int smCount = target.board()->smCount; // forTarget found the board
  system::Session session = system::sessionFromSpec(spec, perf.launches(), smCount);
  system::Timeline timeline = system::simulate(config, session);
  const std::vector<advisor::Finding> findings = advisor::adviseSession(timeline);
  report::TimelineTextOptions text;
  text.width = o.width;
  text.operations = !o.quiet;
  std::cout << report::timelineText(timeline, findings, text);
  if (!o.html.empty()) {
    std::ofstream out(o.html);
    out << report::timelineHtml(timeline, findings);
    if (!out) {
      std::cerr << fmt::format("error: cannot write \"{}\"\n", o.html);
      return 1;
    }
  }
  if (!o.json.empty()) {
    std::ofstream out(o.json);
    out << report::timelineJson(timeline, findings).dump(2) << "\n";
    if (!out) {
      std::cerr << fmt::format("error: cannot write \"{}\"\n", o.json);
      return 1;
    }
  }
  return status;
}

} // namespace

CommandRunner addTimelineCommand(CLI::App &app) {
  auto o = std::make_shared<TimelineOptions>();
  CLI::App *cmd = app.add_subcommand(
      "timeline", "A session's copies, launches and synchronizations on a modeled host and GPU: copy engines, "
                  "streams, Hyper-Q, concurrent kernels, PCIe");
  cmd->add_option("input", o->input, "SPEC.json with \"operations\" (or \"launches\"), or -- PROGRAM ARGS...")
      ->required();
  cmd->add_option("program", o->program, "the program's arguments");
  cmd->add_option("--arch", o->arch, "GPU (default H100): K20X, K40, GTX680, H100, ...");
  cmd->add_option("--pcie-gen", o->pcieGeneration, "The host's PCIe generation (the link runs at the lower)")
      ->check(CLI::Range(1, 5));
  cmd->add_option("--pcie-lanes", o->pcieLanes, "PCIe lanes (default 16)")->check(CLI::IsMember({1, 2, 4, 8, 16}));
  cmd->add_option("--connections", o->connections,
                  "Hyper-Q connections, as CUDA_DEVICE_MAX_CONNECTIONS (default: that variable, else 8)")
      ->check(CLI::Range(1, 32));
  cmd->add_option("--boards", o->boards, "Boards of the GPU in the host (default 1; a K10 or K80 board is two devices)")
      ->check(CLI::Range(1, system::kMaxBoards));
  cmd->add_option("--json", o->json, "FILE: the timeline as JSON (schema ptxray-timeline)");
  cmd->add_option("--html", o->html, "FILE: one self-contained HTML page with the timeline as SVG");
  cmd->add_option("--width", o->width, "Columns of the chart (default 72)")->check(CLI::Range(10, 1000));
  cmd->add_flag("-q,--quiet", o->quiet, "Summary and chart only");
  cmd->add_option("--clock", o->clock, kClockHelp);
  cmd->add_option("--threads", o->threads, "Worker threads running CTAs (default: all cores)")
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--sample", o->sample, "N: simulate N blocks of each launch spread over its grid")
      ->check(CLI::Range(uint64_t{2}, std::numeric_limits<uint64_t>::max(), "AT LEAST 2"));
  cmd->footer(R"(
The spec's "operations" are the host's calls in order, each on a stream (0 is the legacy default
stream): memcpy_h2d, memcpy_d2h, memcpy_d2d, memcpy2d, memset, launch, event_record,
stream_wait_event, stream_synchronize, synchronize; host buffers are "pinned" or "pageable"; on a
system of several GPUs, buffers and operations name their "device" (README.md, "Sessions").
Device memory is computed for real; times are modeled.

  ptxray timeline examples/guide/overlap.json --arch k20x
  ptxray timeline --arch k40 -- ./app args     (a CUDA program on ptxray's runtime: its calls' session)

Exit status: 0 when every launch succeeded, 1 when one failed, 2 for a malformed command line or spec.)");
  return [cmd, o]() -> int {
    if (!cmd->parsed())
      return -1;
    try {
      return timelineCommand(*o);
    } catch (const std::invalid_argument &e) {
      std::cerr << "ptxray: error: " << e.what() << "\n";
      return 2;
    }
  };
}

} // namespace ptxray::cli
