// `ptxray run`: runs kernels on the virtual GPU, from a run spec (SPEC.json, see vm/host/RunSpec.h)
// or, for one launch, from a module and a compact command line that is turned into the same spec.
#include "arch/GpuDatabase.h"
#include "cli/Commands.h"
#include "model/PerformanceModel.h"
#include "report/MetricsReport.h"
#include "vm/host/RunSpec.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <regex>

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
  uint64_t sample = 0;
  // One launch from the command line.
  std::string kernel;
  std::string grid;
  std::string block;
  uint64_t shared = 0;
  std::vector<std::string> buffers;
  std::vector<std::string> args;
  std::vector<std::string> outputs;
};

constexpr const char *kFooter = R"(
A run spec (SPEC.json) names the module, its buffers, the launches and the outputs; see README.md.
For one launch, give the module and describe the launch on the command line instead:

  ptxray run saxpy.ptx --kernel saxpy --grid 4 --block 256 \
      --buffer x=4096:iota:f32 --buffer y=4096:random:f32:7:-1:1 \
      --arg u32:1024 --arg f32:2.5 --arg buf:x --arg buf:y --output y=y.bin

  --buffer NAME=BYTES[:INIT]  a device allocation; BYTES: 4096, 64K (KiB), 1M (MiB)
        INIT: zero (default) | iota:DTYPE | random:DTYPE[:SEED[:MIN:MAX]] | @FILE (raw bytes)
        DTYPE: u8 s8 u16 s16 u32 s32 u64 s64 f32 f64
  --arg buf:NAME[+OFFSET]     a pointer to buffer NAME (plus OFFSET bytes)
  --arg TYPE:VALUE            TYPE: u8 s8 u16 s16 u32 s32 u64 s64 b8 b16 b32 b64 f16 bf16 f32 f64;
                              VALUE 0x... is the exact bit pattern (f32:0x3f800000)
  --arg bytes:HEX             a struct passed by value, byte by byte (bytes:0100000002000000)
  --output NAME=FILE          write buffer NAME to FILE after the launch
Arguments are in the kernel's parameter order. Without --kernel, the module's only kernel runs.

Device printf goes to stdout, faults and errors to stderr. Exit status: 0 when every launch
succeeded, 1 when a launch was refused or failed (or the module did not load), 2 for a malformed
spec or command line.)";

[[noreturn]] void usageError(const std::string &message) {
  throw std::invalid_argument(message);
}

uint64_t parseCount(std::string_view text, bool allowSuffix, const std::string &where) {
  uint64_t multiplier = 1;
  if (allowSuffix && !text.empty()) {
    char last = text.back();
    if (last == 'K' || last == 'k')
      multiplier = 1024;
    else if (last == 'M' || last == 'm')
      multiplier = 1024 * 1024;
    else if (last == 'G' || last == 'g')
      multiplier = 1024 * 1024 * 1024;
    if (multiplier != 1)
      text.remove_suffix(1);
  }
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string_view::npos)
    usageError(fmt::format("{}: bad number \"{}\"", where, text));
  uint64_t value = std::stoull(std::string(text));
  if (value > std::numeric_limits<uint64_t>::max() / multiplier)
    usageError(fmt::format("{}: {} is too large", where, text));
  return value * multiplier;
}

std::vector<std::string> split(const std::string &text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos)
      return parts;
    start = at + 1;
  }
}

json parseDims(const std::string &text, const char *option) {
  std::vector<std::string> parts = split(text, ',');
  if (parts.size() > 3)
    usageError(fmt::format("{} '{}': expected X[,Y[,Z]]", option, text));
  json dims = json::array();
  for (const std::string &p : parts)
    dims.push_back(parseCount(p, false, fmt::format("{} '{}'", option, text)));
  return dims;
}

/// A number as JSON (integer or float) when it reads as one, else the text as a string (the spec
/// reader then says what it expected).
json numberOrString(const std::string &text) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_discarded() && j.is_number())
    return j;
  return text;
}

json parseInit(const std::string &text, const std::string &where) {
  if (text == "zero")
    return "zero";
  if (text.starts_with('@')) {
    if (text.size() == 1)
      usageError(where + ": @ needs a file name");
    return text.substr(1);
  }
  std::vector<std::string> parts = split(text, ':');
  if (parts[0] == "iota") {
    if (parts.size() != 2)
      usageError(where + ": expected iota:DTYPE");
    return {{"iota", {{"dtype", parts[1]}}}};
  }
  if (parts[0] == "random") {
    if (parts.size() != 2 && parts.size() != 3 && parts.size() != 5)
      usageError(where + ": expected random:DTYPE[:SEED[:MIN:MAX]]");
    json r = {{"dtype", parts[1]}};
    if (parts.size() >= 3)
      r["seed"] = numberOrString(parts[2]);
    if (parts.size() == 5) {
      r["min"] = numberOrString(parts[3]);
      r["max"] = numberOrString(parts[4]);
    }
    return {{"random", r}};
  }
  usageError(where + ": expected zero, iota:DTYPE, random:DTYPE[:SEED[:MIN:MAX]] or @FILE");
}

json parseArg(const std::string &text) {
  std::string where = fmt::format("--arg '{}'", text);
  size_t colon = text.find(':');
  if (colon == std::string::npos)
    usageError(where + ": expected TYPE:VALUE, buf:NAME[+OFFSET] or bytes:HEX");
  std::string kind = text.substr(0, colon), rest = text.substr(colon + 1);
  if (kind == "buf") {
    size_t plus = rest.find('+');
    json a = {{"buffer", rest.substr(0, plus)}};
    if (plus != std::string::npos)
      a["offset"] = parseCount(rest.substr(plus + 1), false, where);
    return a;
  }
  if (kind == "bytes")
    return {{"type", "bytes"}, {"hex", rest}};
  if (rest.starts_with("0x") || rest.starts_with("0X"))
    return {{"type", kind}, {"bits", rest}};
  return {{"type", kind}, {"value", numberOrString(rest)}};
}

std::pair<std::string, std::string> splitAssignment(const std::string &text, const char *option, const char *form) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    usageError(fmt::format("{} '{}': expected {}", option, text, form));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

/// The run spec the command-line form describes.
json commandLineSpec(const RunCommandOptions &o) {
  json spec = {{"module", o.input}};
  json buffers = json::array();
  for (const std::string &b : o.buffers) {
    auto [name, rest] = splitAssignment(b, "--buffer", "NAME=BYTES[:INIT]");
    std::string where = fmt::format("--buffer '{}'", b);
    size_t colon = rest.find(':');
    json buffer = {{"name", name}, {"bytes", parseCount(rest.substr(0, colon), true, where)}};
    if (colon != std::string::npos)
      buffer["init"] = parseInit(rest.substr(colon + 1), where);
    buffers.push_back(buffer);
  }
  spec["buffers"] = buffers;
  json launch = {{"grid", parseDims(o.grid.empty() ? "1" : o.grid, "--grid")},
                 {"block", parseDims(o.block.empty() ? "1" : o.block, "--block")},
                 {"dynamic_shared_bytes", o.shared},
                 {"args", json::array()}};
  if (!o.kernel.empty())
    launch["kernel"] = o.kernel;
  for (const std::string &a : o.args)
    launch["args"].push_back(parseArg(a));
  spec["launches"] = json::array({launch});
  json outputs = json::array();
  for (const std::string &out : o.outputs) {
    auto [name, file] = splitAssignment(out, "--output", "NAME=FILE");
    outputs.push_back({{"buffer", name}, {"file", file}});
  }
  spec["outputs"] = outputs;
  return spec;
}

/// A spec error in the command-line form, named by the option that caused it.
std::string commandLinePlace(const RunCommandOptions &o, const std::string &path) {
  std::smatch m;
  static const std::regex kIndexed(R"(^(buffers|launches\[0\]\.args|outputs)\[(\d+)\])");
  if (std::regex_search(path, m, kIndexed)) {
    size_t i = std::stoul(m[2]);
    const std::vector<std::string> &list = m[1] == "buffers" ? o.buffers : m[1] == "outputs" ? o.outputs : o.args;
    const char *option = m[1] == "buffers" ? "--buffer" : m[1] == "outputs" ? "--output" : "--arg";
    return i < list.size() ? fmt::format("{} '{}'", option, list[i]) : option;
  }
  static const std::pair<const char *, const char *> kPlaces[] = {
      {"launches[0].kernel", "--kernel"}, {"launches[0].grid", "--grid"},
      {"launches[0].block", "--block"},   {"launches[0].dynamic_shared_bytes", "--shared"},
      {"launches[0].args", "--arg"},      {"launches[0]", "--kernel"},
  };
  for (auto [prefix, option] : kPlaces)
    if (path.starts_with(prefix))
      return option;
  return path;
}

void printLaunch(const vm::LaunchReport &r, const RunCommandOptions &o, size_t maxFaults) {
  if (!r.result.printfOutput.empty()) {
    std::cout << r.result.printfOutput;
    std::cout.flush();
  }
  switch (r.result.status) {
  case vm::LaunchStatus::Success: break;
  case vm::LaunchStatus::Refused:
    std::cerr << fmt::format("error: launch of {} refused: {}\n", r.kernel, r.result.error);
    break;
  case vm::LaunchStatus::Faulted:
  case vm::LaunchStatus::AssertFailed:
    for (const vm::Fault &f : r.result.faults)
      std::cerr << f.describe();
    if (o.memcheck)
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
  bool launchOptions = !o.kernel.empty() || !o.grid.empty() || !o.block.empty() || o.shared || !o.buffers.empty() ||
                       !o.args.empty() || !o.outputs.empty();
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
      spec = vm::parseRunSpec(commandLineSpec(o), o.input, {});
  } catch (const vm::SpecError &e) {
    if (specMode)
      std::cerr << e.what() << "\n";
    else
      std::cerr << fmt::format("ptxray: error: {}: {}\n", commandLinePlace(o, e.path()), e.message());
    return 2;
  } catch (const std::invalid_argument &e) {
    std::cerr << "ptxray: error: " << e.what() << "\n";
    return 2;
  }

  vm::RunOptions options;
  options.arch = o.arch;
  options.launch.threads = o.threads;
  options.launch.maxInstructions = o.maxInstructions;
  options.launch.continueOnError = o.memcheck;
  options.keepPtxDirectory = o.keepPtx;
  options.onLaunch = [&](const vm::LaunchReport &r) { printLaunch(r, o, options.launch.maxFaults); };
  // The performance model listens to every launch when asked for metrics.
  std::unique_ptr<model::PerformanceModel> perf;
  if (o.metrics || !o.metricsJson.empty()) {
    model::ModelOptions mo;
    if (!o.dlcm.empty())
      mo.loadCaching = o.dlcm == "ca" ? arch::GlobalLoadCaching::L1 : arch::GlobalLoadCaching::L2Only;
    mo.bankWidthBytes = o.bankMode;
    perf = std::make_unique<model::PerformanceModel>(*arch::findArch(o.arch).target, mo);
    options.launch.listener = perf.get();
    options.launch.sampleCtas = o.sample;
    if (o.metrics)
      options.onLaunch = [&](const vm::LaunchReport &r) {
        printLaunch(r, o, options.launch.maxFaults);
        if (r.result.status != vm::LaunchStatus::Refused && !perf->launches().empty())
          std::cout << report::metricsText(perf->launches().back());
      };
  }
  vm::RunOutcome outcome;
  try {
    outcome = vm::runSpec(spec, options);
  } catch (const vm::SpecError &e) {
    if (specMode)
      std::cerr << e.what() << "\n";
    else if (e.path() == "module")
      std::cerr << fmt::format("ptxray: error: {}\n", e.message());
    else
      std::cerr << fmt::format("ptxray: error: {}: {}\n", commandLinePlace(o, e.path()), e.message());
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
  return outcome.ok() ? 0 : 1;
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
  cmd->add_option("--bank-mode", o->bankMode, "Kepler shared-memory bank width in bytes (4 or 8)")
      ->check(CLI::IsMember({4, 8}));
  cmd->add_option("--kernel", o->kernel, "Kernel to launch (default: the module's only kernel)");
  cmd->add_option("--grid", o->grid, "Grid dimensions X[,Y[,Z]] (default 1)");
  cmd->add_option("--block", o->block, "Block dimensions X[,Y[,Z]] (default 1)");
  cmd->add_option("--shared", o->shared, "Dynamic shared memory per block (bytes)")->check(nonNegative);
  cmd->add_option("--buffer", o->buffers, "NAME=BYTES[:INIT] device buffer (repeatable)")->allow_extra_args(false);
  cmd->add_option("--arg", o->args, "Kernel argument: TYPE:VALUE, buf:NAME[+OFFSET], bytes:HEX (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--output", o->outputs, "NAME=FILE: write a buffer after the launch (repeatable)")
      ->allow_extra_args(false);
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
