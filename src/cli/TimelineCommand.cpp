// `ptxray timeline`: a session's host operations (copies, launches, events, synchronizations) on a
// modeled host and GPU. The spec runs on the virtual GPU with the performance model attached (the
// results are exact; the kernels' durations are the model's estimates) and the system model places
// every operation in time.
#include "arch/GpuDatabase.h"
#include "cli/Commands.h"
#include "cli/LaunchOptions.h"
#include "report/TimelineStats.h"
#include "session/InstrumentedRun.h"
#include "session/ModelSettings.h"

#include <iostream>
#include <limits>

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
  std::string trace;
  int width = 72;
  bool quiet = false;
  unsigned threads = 0;
  uint64_t sample = 0;
  std::vector<std::string> program; ///< after the input: a CUDA program's arguments
  std::string clock;
  std::string csv; ///< --csv REPORT: nsys stats' summary instead of the timeline
};

int timelineCommand(const TimelineOptions &o) {
  arch::ArchLookup lookup = arch::findArch(o.arch);
  if (!lookup)
    throw std::invalid_argument(lookup.error);
  if (!o.input.ends_with(".json") || !o.program.empty()) {
    // A CUDA program: it runs on ptxray's runtime, which records its calls (PTXRAY_TIMELINE).
    if (o.pcieGeneration || o.pcieLanes || o.sample || !o.clock.empty() || !o.csv.empty()) {
      std::cerr << "ptxray: error: --pcie-gen, --pcie-lanes, --sample, --clock and --csv apply to spec files\n";
      return 2;
    }
    session::ProgramOptions program;
    program.arch = o.arch;
    program.threads = o.threads;
    program.boards = o.boards;
    program.connections = o.connections;
    program.timeline = {"-"};
    if (!o.json.empty())
      program.timeline.push_back(o.json);
    if (!o.html.empty())
      program.timeline.push_back(o.html);
    program.trace = o.trace;
    std::vector<std::string> argv{o.input};
    argv.insert(argv.end(), o.program.begin(), o.program.end());
    return execProgram(program, argv);
  }
  std::optional<session::RunSpec> spec = loadSpec(o.input, {});
  if (!spec)
    return 2;
  if (!outputsWritable({{"--json", o.json}, {"--html", o.html}, {"--trace", o.trace}}) ||
      !specOutputsWritable(*spec, o.input, {}))
    return 1;
  session::RunRequest request;
  request.target = *lookup.target;
  session::ModelSettings model;
  model.clock = o.clock;
  request.tools.modelOptions = session::modelOptions(model, request.target);
  request.launch.threads = o.threads;
  request.launch.sampleCtas = o.sample;
  request.session = session::RunRequest::Session::Always;
  request.system.pcieGeneration = o.pcieGeneration;
  request.system.pcieLanes = o.pcieLanes;
  request.system.boards = o.boards;
  request.system.connections = o.connections;
  const session::Console console{std::cout, std::cerr};
  session::RunResult result;
  try {
    result = session::runInstrumented(*spec, request, console, [&](const session::LaunchEvent &e) {
      printLaunchOutcome(e.report, console, o.quiet || !o.csv.empty()); // CSV alone on stdout
    });
  } catch (const session::SpecError &e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const vm::VmError &e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  int status = result.status();
  report::TimelineTextOptions text;
  text.width = o.width;
  text.operations = !o.quiet;
  if (o.csv.empty())
    std::cout << session::renderTimeline(session::OutputFormat::Text, *result.session, text);
  else
    std::cout << report::timelineStatsCsv(result.session->timeline, o.csv);
  for (const std::string &file : {o.html, o.json})
    if (!file.empty() &&
        !session::writeOutput(file, session::renderTimeline(session::outputFormat(file), *result.session), std::cerr))
      status = 1;
  if (!o.trace.empty() &&
      !session::writeOutput(o.trace, session::renderTimeline(session::OutputFormat::Trace, *result.session), std::cerr))
    status = 1;
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
  cmd->add_option("--trace", o->trace,
                  "FILE: the timeline in the Trace Event Format, for ui.perfetto.dev and chrome://tracing (a row "
                  "per stream, the host's waits, kernels running at once)");
  std::vector<std::string> reports(report::timelineStatsReports().begin(), report::timelineStatsReports().end());
  cmd->add_option(
         "--csv", o->csv,
         "REPORT: instead of the timeline, Nsight Systems' summary of the session's GPU work in its CSV layout "
         "(nsys stats --report REPORT --format csv): cuda_gpu_kern_sum (per kernel), cuda_gpu_mem_time_sum "
         "(per kind of copy and memset), cuda_gpu_mem_size_sum (their sizes), nvtx_sum (the program's NVTX ranges)")
      ->check(CLI::IsMember(reports));
  cmd->add_option("--width", o->width, "Columns of the chart (default 72)")->check(CLI::Range(10, 1000));
  cmd->add_flag("-q,--quiet", o->quiet, "Summary and chart only");
  cmd->add_option("--clock", o->clock, session::kClockHelp);
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
  ptxray timeline examples/guide/overlap.json --trace overlap.trace.json   (open in ui.perfetto.dev)

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
