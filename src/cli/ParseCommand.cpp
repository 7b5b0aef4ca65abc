// `ptxray parse FILE.ptx [--json]`: validate a module and summarize it.
#include "cli/Commands.h"
#include "cli/Input.h"
#include "ptx/ModuleSummary.h"
#include "ptx/Parser.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

namespace ptxray::cli {
namespace {

struct ParseOptionsCli {
  std::string path;
  bool json = false;
  std::string buildOptions;
};

nlohmann::json paramJson(const ptx::ParamSummary &p) {
  nlohmann::json j = {{"name", p.name}, {"type", p.type}, {"size", p.size}, {"align", p.align}};
  if (p.isPointer)
    j["pointer"] = {{"space", p.pointeeSpace}, {"align", p.pointeeAlign}};
  return j;
}

nlohmann::json summaryJson(const std::string &file, const ptx::ModuleSummary &s) {
  nlohmann::json j;
  j["file"] = file;
  j["version"] = s.version;
  j["target"] = s.target;
  j["address_size"] = s.addressSize;
  j["instructions"] = s.instructions;
  j["global_bytes"] = s.globalBytes;
  j["const_bytes"] = s.constBytes;
  j["shared_bytes"] = s.sharedBytes;
  nlohmann::json files = nlohmann::json::array();
  for (const auto &[index, name] : s.files)
    files.push_back({{"index", index}, {"name", name}});
  j["source_files"] = files;
  nlohmann::json fns = nlohmann::json::array();
  for (const ptx::FunctionSummary &f : s.functions) {
    nlohmann::json fj;
    fj["name"] = f.name;
    fj["demangled"] = f.demangled;
    fj["kind"] = f.isEntry ? "entry" : "func";
    fj["linkage"] = f.linkage;
    fj["defined"] = f.defined;
    fj["params"] = nlohmann::json::array();
    for (const auto &p : f.params)
      fj["params"].push_back(paramJson(p));
    fj["returns"] = nlohmann::json::array();
    for (const auto &p : f.returns)
      fj["returns"].push_back(paramJson(p));
    fj["registers"] = f.registers;
    fj["shared_bytes"] = f.sharedBytes;
    fj["local_bytes"] = f.localBytes;
    fj["instructions"] = f.instructions;
    nlohmann::json dirs = nlohmann::json::object();
    for (const auto &[name, values] : f.directives)
      dirs[name.substr(1)] = values;
    fj["directives"] = dirs;
    fns.push_back(fj);
  }
  j["functions"] = fns;
  return j;
}

void printParams(std::string &out, std::string_view label, const std::vector<ptx::ParamSummary> &params) {
  if (params.empty())
    return;
  out += fmt::format("    {}:\n", label);
  for (const auto &p : params) {
    out += fmt::format("      {:<28} {:<14} size {:>4}  align {:>3}", p.name, p.type, p.size, p.align);
    if (p.isPointer)
      out += fmt::format("  -> {} pointer{}", p.pointeeSpace,
                         p.pointeeAlign ? fmt::format(", align {}", p.pointeeAlign) : "");
    out += "\n";
  }
}

std::string summaryText(const std::string &file, const ptx::ModuleSummary &s) {
  std::string out;
  out += fmt::format("{}: PTX {}, target {}, {}-bit addresses\n", file, s.version, fmt::join(s.target, ", "),
                     s.addressSize);
  out += fmt::format("  {} function{}, {} instructions", s.functions.size(), s.functions.size() == 1 ? "" : "s",
                     s.instructions);
  out +=
      fmt::format(", module data: {} B global, {} B const, {} B shared\n", s.globalBytes, s.constBytes, s.sharedBytes);
  if (!s.files.empty()) {
    out += "  source files:\n";
    for (const auto &[index, name] : s.files)
      out += fmt::format("    {:>3}  {}\n", index, name);
  }
  for (const ptx::FunctionSummary &f : s.functions) {
    out += fmt::format("\n  {} {}{}\n", f.isEntry ? "kernel" : "function", f.demangled,
                       f.defined ? "" : "  (declaration)");
    if (f.demangled != f.name)
      out += fmt::format("    mangled: {}\n", f.name);
    out += fmt::format("    linkage: {}\n", f.linkage);
    printParams(out, "parameters", f.params);
    printParams(out, "returns", f.returns);
    if (!f.defined)
      continue;
    if (!f.registers.empty()) {
      out += "    registers:";
      for (const auto &[type, count] : f.registers)
        out += fmt::format(" {} {}", count, type);
      out += "\n";
    }
    out += fmt::format("    static shared: {} B, local: {} B, instructions: {}\n", f.sharedBytes, f.localBytes,
                       f.instructions);
    for (const auto &[name, values] : f.directives)
      out += fmt::format("    {} {}\n", name, fmt::join(values, ", "));
  }
  return out;
}

} // namespace

CommandRunner addParseCommand(CLI::App &app) {
  auto opts = std::make_shared<ParseOptionsCli>();
  CLI::App *cmd = app.add_subcommand("parse", "Check a PTX module and summarize it");
  cmd->add_option("file", opts->path,
                  "PTX file, or - for standard input; an OpenCL C (.cl) or CUDA (.cu) file is compiled to PTX first")
      ->required();
  cmd->add_flag("--json", opts->json, "Print the summary as JSON");
  cmd->add_option("--build-options", opts->buildOptions, "An OpenCL C file's build options (\"-D N=4\")");
  return [cmd, opts]() -> int {
    if (!cmd->parsed())
      return -1;
    auto input = readModuleInput(opts->path, opts->buildOptions);
    if (!input)
      return opts->path.ends_with(".cl") || opts->path.ends_with(".cu") ? 1 : 2;
    ptx::ParseResult result = ptx::parseModule(input->name, std::move(input->text));
    if (!result.ok()) {
      std::cerr << result.diagnostics.render(result.module->sources);
      std::cerr << result.diagnostics.summaryLine();
      return 1;
    }
    std::cerr << result.diagnostics.render(result.module->sources); // warnings, if any
    ptx::ModuleSummary summary = ptx::summarize(*result.module);
    if (opts->json)
      std::cout << summaryJson(input->name, summary).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                << "\n";
    else
      std::cout << summaryText(input->name, summary);
    return 0;
  };
}

} // namespace ptxray::cli
