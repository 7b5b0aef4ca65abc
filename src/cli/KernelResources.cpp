#include "cli/KernelResources.h"

#include "cli/Input.h"
#include "ptx/Demangle.h"
#include "ptx/ModuleSummary.h"
#include "ptx/Parser.h"
#include "ptx/RegisterPressure.h"
#include "support/Process.h"

#include <fmt/format.h>

#include <iostream>
#include <regex>
#include <sstream>

namespace ptxray::cli {
namespace {

/// Registers ptxas allocates for `kernel` on `sm`, or nullopt when ptxas is absent or fails (it
/// cannot target architectures older than the ones its CUDA release supports). Run with an argument
/// vector: no shell sees the file name.
std::optional<int> ptxasRegisters(const std::string &path, const std::string &kernel, const std::string &sm) {
  std::optional<std::string> ptxas = support::findExecutable("ptxas", {"/usr/local/cuda/bin/ptxas"});
  if (!ptxas)
    return std::nullopt;
  support::ProcessResult run =
      support::runProcess({*ptxas, "-v", "-arch=" + sm, support::pathArgument(path), "-o", "/dev/null"});
  if (!run.ok())
    return std::nullopt;
  const std::string &output = run.output;
  // "Compiling entry function 'NAME' for 'sm_XX'" is followed by "Used N registers".
  std::regex entry("Compiling entry function '([^']+)'");
  std::regex used("Used ([0-9]+) registers");
  std::string current;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, entry))
      current = m[1];
    else if (current == kernel && std::regex_search(line, m, used))
      return std::stoi(m[1]);
  }
  return std::nullopt;
}

} // namespace

std::optional<KernelResources> kernelResources(const std::string &path, const std::string &entry,
                                               const arch::ComputeCapability &cc) {
  auto input = readInput(path);
  if (!input)
    return std::nullopt;
  ptx::ParseResult parsed = ptx::parseModule(input->name, std::move(input->text));
  if (!parsed.ok()) {
    std::cerr << parsed.diagnostics.render(parsed.module->sources);
    return std::nullopt;
  }
  const ptx::Module &m = *parsed.module;
  const ptx::Function *kernel = nullptr;
  for (const ptx::Function &fn : m.functions) {
    if (!fn.isEntry || !fn.hasBody)
      continue;
    if (entry.empty() || fn.name == entry || ptx::demangle(fn.name) == entry ||
        ptx::demangle(fn.name).starts_with(entry + "(")) {
      kernel = &fn;
      break;
    }
  }
  if (!kernel) {
    std::string names;
    for (const ptx::Function &fn : m.functions)
      if (fn.isEntry && fn.hasBody)
        names += fmt::format("\n  {}", ptx::demangle(fn.name));
    std::cerr << fmt::format("ptxray: error: {} has no kernel {}{}{}\n", path, entry.empty() ? "" : "named ",
                             entry.empty() ? "" : "'" + entry + "'", names.empty() ? "" : "; its kernels are:" + names);
    return std::nullopt;
  }

  KernelResources r;
  r.kernel = ptx::demangle(kernel->name);
  ptx::ModuleSummary summary = ptx::summarize(m);
  for (const ptx::FunctionSummary &f : summary.functions)
    if (f.name == kernel->name)
      r.staticSharedBytes = f.sharedBytes;

  std::optional<uint32_t> maxnreg;
  for (const ptx::PerfDirective &d : kernel->directives) {
    uint64_t product = 1; // three 32-bit factors: 64 bits, clamped below
    for (uint32_t v : d.values)
      product = std::min<uint64_t>(product * v, uint64_t{1} << 31);
    if (d.kind == ptx::PerfDirectiveKind::MaxNReg && !d.values.empty())
      maxnreg = d.values[0];
    if (d.kind == ptx::PerfDirectiveKind::ReqNTid) {
      r.threadsPerBlock = static_cast<int>(product);
      r.threadsSource = ".reqntid";
    } else if (d.kind == ptx::PerfDirectiveKind::MaxNTid && !r.threadsPerBlock) {
      r.threadsPerBlock = static_cast<int>(product);
      r.threadsSource = ".maxntid";
    }
  }

  // ptxas reads files only: standard input ("-") gets the fallbacks.
  if (auto regs = path == "-" ? std::nullopt : ptxasRegisters(path, std::string(kernel->name), cc.smName())) {
    r.registers = *regs;
    r.registerSource = fmt::format("ptxas -v for {}", cc.smName());
  } else if (maxnreg) {
    r.registers = static_cast<int>(*maxnreg);
    r.registerSource = ".maxnreg (an upper bound; ptxas may use fewer)";
  } else {
    ptx::RegisterPressure pressure = ptx::estimateRegisterPressure(m, *kernel);
    r.registers = static_cast<int>(std::min<uint32_t>(pressure.maxLive32, cc.maxRegistersPerThread));
    r.registerSource = "estimate from PTX live ranges (no ptxas for this architecture); ptxas usually needs more";
  }
  return r;
}

} // namespace ptxray::cli
