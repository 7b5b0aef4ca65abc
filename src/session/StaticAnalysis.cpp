#include "session/StaticAnalysis.h"

#include "arch/OccupancyCalculator.h"
#include "ptx/Demangle.h"
#include "ptx/ModuleSummary.h"
#include "session/KernelResources.h"
#include "support/TemporaryFolder.h"
#include "vm/Device.h"

#include <fmt/format.h>

#include <filesystem>
#include <optional>

namespace ptxray::session {

StaticAnalysisResult analyzeStatically(const arch::ArchTarget &target, const StaticAnalysisRequest &request) {
  const arch::ComputeCapability &cc = *target.computeCapability;
  StaticAnalysisResult out;
  vm::Device device(cc, target.gpu ? target.gpu->smCount : 0, target.gpu);
  // A source's PTX is kept so that ptxas can count its registers.
  const bool cuda = request.module.ends_with(".cu") || request.module.ends_with(".cl");
  std::optional<support::TemporaryFolder> temporary;
  std::string keep = request.keepPtx;
  if (keep.empty() && cuda) {
    temporary.emplace("ptxray-analyze");
    keep = temporary->path().string();
  }
  const vm::LoadedModule &loaded = device.loadModuleFile(request.module, keep, request.buildOptions);
  const ptx::Module &m = loaded.ptx();
  const std::string ptxFile =
      cuda ? (std::filesystem::path(keep) / (std::filesystem::path(request.module).filename().string() + ".ptx"))
                 .string()
           : request.module;
  const ptx::ModuleSummary summary = ptx::summarize(m);
  for (const ptx::Function &fn : m.functions) {
    if (!fn.isEntry || !fn.hasBody || !kernelMatches(fn, request.kernel))
      continue;
    const KernelResources res = kernelResources(m, fn, ptxFile, cc);
    report::KernelStatic k;
    k.kernel = std::string(fn.name);
    k.demangled = ptx::demangle(fn.name);
    k.registers = res.registers;
    k.registerSource = res.registerSource;
    for (const ptx::FunctionSummary &f : summary.functions)
      if (f.name == fn.name) {
        k.staticSharedBytes = f.sharedBytes;
        k.localBytesPerThread = f.localBytes;
      }
    for (int threads = cc.warpSize; threads <= cc.maxThreadsPerBlock; threads += cc.warpSize) {
      if (res.threadsPerBlock && threads > *res.threadsPerBlock)
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
    in.modelOptions = request.model;
    report::Analysis a;
    a.target = target;
    a.sourceDirs = {std::filesystem::path(request.module).parent_path().string()};
    a.findings = advisor::advise(in, request.advisor);
    a.kernelStatic = std::move(k);
    out.analyses.push_back(std::move(a));
  }
  if (out.analyses.empty())
    out.errors.push_back(noKernelMessage(m, request.module, request.kernel));
  return out;
}

} // namespace ptxray::session
