#include "session/KernelResources.h"

#include "ptx/Demangle.h"
#include "ptx/ModuleSummary.h"
#include "ptx/RegisterPressure.h"
#include "support/Process.h"

#include <fmt/format.h>

#include <regex>
#include <sstream>

namespace ptxray::session {
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

bool kernelMatches(const ptx::Function &fn, const std::string &entry) {
  if (entry.empty() || fn.name == entry)
    return true;
  const std::string demangled = ptx::demangle(fn.name);
  return demangled == entry || demangled.starts_with(entry + "(");
}

const ptx::Function *findKernel(const ptx::Module &module, const std::string &entry) {
  for (const ptx::Function &fn : module.functions)
    if (fn.isEntry && fn.hasBody && kernelMatches(fn, entry))
      return &fn;
  return nullptr;
}

std::string noKernelMessage(const ptx::Module &module, const std::string &file, const std::string &entry) {
  std::string names;
  for (const ptx::Function &fn : module.functions)
    if (fn.isEntry && fn.hasBody)
      names += fmt::format("\n  {}", ptx::demangle(fn.name));
  return fmt::format("{} has no kernel{}{}", file, entry.empty() ? "" : fmt::format(" named '{}'", entry),
                     names.empty() ? "" : "; its kernels are:" + names);
}

KernelResources kernelResources(const ptx::Module &m, const ptx::Function &fn, const std::string &ptxFile,
                                const arch::ComputeCapability &cc) {
  const ptx::Function *kernel = &fn;
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

  // ptxas reads files only: a module not on disk (standard input) gets the fallbacks.
  if (auto regs = ptxFile.empty() ? std::nullopt : ptxasRegisters(ptxFile, std::string(kernel->name), cc.smName())) {
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

} // namespace ptxray::session
