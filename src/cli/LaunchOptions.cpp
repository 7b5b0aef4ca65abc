#include "cli/LaunchOptions.h"

#include "support/OutputFile.h"

#include <fmt/format.h>

#include <iostream>
#include <limits>
#include <regex>
#include <stdexcept>

namespace ptxray::cli {
namespace {

using nlohmann::json;

[[noreturn]] void usageError(const std::string &message) {
  throw std::invalid_argument(message);
}

uint64_t parseCountImpl(std::string_view text, bool allowSuffix, const std::string &where) {
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
  if (text == "zero" || text == "none")
    return text;
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
  usageError(where + ": expected zero, none, iota:DTYPE, random:DTYPE[:SEED[:MIN:MAX]] or @FILE");
}

json parseArg(const std::string &text) {
  std::string where = fmt::format("--arg '{}'", text);
  size_t colon = text.find(':');
  if (colon == std::string::npos)
    usageError(where + ": expected TYPE:VALUE, buf:NAME[+OFFSET], bytes:HEX or local:BYTES");
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
  if (kind == "local")
    return {{"local", parseCount(rest, true, where)}};
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

} // namespace

uint64_t parseCount(std::string_view text, bool allowSuffix, const std::string &where) {
  return parseCountImpl(text, allowSuffix, where);
}

bool LaunchCommandLine::any() const {
  return !kernel.empty() || !grid.empty() || !block.empty() || shared || cooperative || !buffers.empty() ||
         !args.empty() || !outputs.empty() || !buildOptions.empty() || !globalOffset.empty();
}

void addLaunchOptions(CLI::App &cmd, LaunchCommandLine &o) {
  const CLI::Range nonNegative(0LL, std::numeric_limits<long long>::max(), "NONNEGATIVE");
  cmd.add_option("modules", o.linkedModules,
                 "More .ptx/.cu modules, linked with the first as the device linker links nvcc -rdc=true "
                 "translation units (extern functions and variables resolved across them)");
  cmd.add_option("--kernel", o.kernel, "Kernel to launch (default: the module's only kernel)");
  cmd.add_option("--grid", o.grid, "Grid dimensions X[,Y[,Z]] (default 1)");
  cmd.add_option("--block", o.block, "Block dimensions X[,Y[,Z]] (default 1)");
  cmd.add_option("--shared", o.shared, "Dynamic shared memory per block (bytes)")->check(nonNegative);
  cmd.add_flag("--cooperative", o.cooperative,
               "A cooperative launch (cudaLaunchCooperativeKernel): every block resident at once, grid.sync() works");
  cmd.add_option("--buffer", o.buffers, "NAME=BYTES[:INIT] device buffer (repeatable)")->allow_extra_args(false);
  cmd.add_option("--arg", o.args,
                 "Kernel argument: TYPE:VALUE, buf:NAME[+OFFSET], bytes:HEX, local:BYTES (an OpenCL __local "
                 "pointer) (repeatable)")
      ->allow_extra_args(false);
  cmd.add_option("--build-options", o.buildOptions,
                 "An OpenCL C module's build options, as clBuildProgram takes them (\"-D N=4 -cl-mad-enable\")");
  cmd.add_option("--global-offset", o.globalOffset, "OpenCL's global work offset X[,Y[,Z]] (get_global_offset)");
  cmd.add_option("--output", o.outputs, "NAME=FILE: write a buffer after the launch (repeatable)")
      ->allow_extra_args(false);
}

/// The run spec the command-line form describes.
json commandLineSpec(const std::string &module, const LaunchCommandLine &o) {
  json spec = {{"module", module}};
  if (!o.linkedModules.empty()) {
    spec["module"] = json::array({module});
    for (const std::string &m : o.linkedModules)
      spec["module"].push_back(m);
  }
  json buffers = json::array();
  for (const std::string &b : o.buffers) {
    auto [name, rest] = splitAssignment(b, "--buffer", "NAME=BYTES[:INIT]");
    std::string where = fmt::format("--buffer '{}'", b);
    size_t colon = rest.find(':');
    json buffer = {{"name", name}, {"bytes", parseCountImpl(rest.substr(0, colon), true, where)}};
    if (colon != std::string::npos)
      buffer["init"] = parseInit(rest.substr(colon + 1), where);
    buffers.push_back(buffer);
  }
  spec["buffers"] = buffers;
  json launch = {{"grid", parseDims(o.grid.empty() ? "1" : o.grid, "--grid")},
                 {"block", parseDims(o.block.empty() ? "1" : o.block, "--block")},
                 {"dynamic_shared_bytes", o.shared},
                 {"args", json::array()}};
  if (o.cooperative)
    launch["cooperative"] = true;
  if (!o.globalOffset.empty())
    launch["global_work_offset"] = parseDims(o.globalOffset, "--global-offset");
  if (!o.buildOptions.empty())
    spec["build_options"] = o.buildOptions;
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
std::string commandLinePlace(const LaunchCommandLine &o, const std::string &path) {
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
      {"launches[0].args", "--arg"},      {"launches[0].global_work_offset", "--global-offset"},
      {"launches[0]", "--kernel"},        {"build_options", "--build-options"},
  };
  for (auto [prefix, option] : kPlaces)
    if (path.starts_with(prefix))
      return option;
  return path;
}

std::optional<session::RunSpec> loadSpec(const std::string &input, const LaunchCommandLine &o) {
  try {
    if (input.ends_with(".json") && !o.linkedModules.empty()) {
      std::cerr << fmt::format("ptxray: error: {}: a spec names its own modules (\"module\": [\"a.ptx\", "
                               "\"b.ptx\"] links them); '{}' is one too many\n",
                               input, o.linkedModules[0]);
      return std::nullopt;
    }
    if (input.ends_with(".json"))
      return session::loadRunSpec(input);
    return session::parseRunSpec(commandLineSpec(input, o), input, {});
  } catch (const session::SpecError &e) {
    std::cerr << specErrorText(e, input, o) << "\n";
  }
  return std::nullopt;
}

void addKernelFilterOptions(CLI::App &cmd, KernelFilterOptions &o, const std::string &keeps) {
  cmd.add_option("-k,--kernel-name", o.names,
                 keeps + ": NAME (the function's name, as ncu -k) or regex:EXPR (ncu), kne=MANGLED, kns=SUBSTRING "
                         "or regex=EXPR (compute-sanitizer, on the mangled name); repeatable, any may match "
                         "(default: every launch)")
      ->allow_extra_args(false);
  cmd.add_option("--kernel-name-exclude", o.excludes,
                 "Launches of kernels matching this (the same forms) are left out; repeatable")
      ->allow_extra_args(false);
  cmd.add_option("-s,--launch-skip", o.launchSkip, "Leave out the first N launches that match the filters")
      ->check(CLI::Range(uint64_t{0}, uint64_t{std::numeric_limits<int64_t>::max()}));
  cmd.add_option("-c,--launch-count", o.launchCount, "Keep at most N matching launches after those skipped (0: all)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{std::numeric_limits<int64_t>::max()}));
}

bool outputsWritable(const std::vector<std::pair<std::string, std::string>> &outputs) {
  bool ok = true;
  for (const auto &[option, file] : outputs)
    if (std::string why = support::outputFileProblem(file); !why.empty()) {
      std::cerr << fmt::format("ptxray: error: {}: cannot write '{}': {} (nothing was run)\n", option, file, why);
      ok = false;
    }
  return ok;
}

bool specOutputsWritable(const session::RunSpec &spec, const std::string &input, const LaunchCommandLine &o) {
  bool ok = true;
  for (const session::SpecOutput &out : spec.outputs)
    if (std::string why = support::outputFileProblem(out.file, true); !why.empty()) {
      const std::string place = input.ends_with(".json") ? input + ": " + out.path : commandLinePlace(o, out.path);
      std::cerr << fmt::format("ptxray: error: {}: cannot write '{}': {} (nothing was run)\n", place, out.file.string(),
                               why);
      ok = false;
    }
  return ok;
}

std::string specErrorText(const session::SpecError &e, const std::string &input, const LaunchCommandLine &o) {
  if (input.ends_with(".json"))
    return e.what();
  if (e.path() == "module" || e.path().empty())
    return fmt::format("ptxray: error: {}", e.message());
  return fmt::format("ptxray: error: {}: {}", commandLinePlace(o, e.path()), e.message());
}

} // namespace ptxray::cli
