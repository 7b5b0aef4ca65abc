#include "session/StaticAnalysis.h"

#include "arch/OccupancyCalculator.h"
#include "ptx/Demangle.h"
#include "ptx/ModuleSummary.h"
#include "session/KernelResources.h"
#include "vm/Device.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

namespace ptxray::session {

namespace {

/// A temporary folder, removed with everything in it when this goes out of scope.
class TemporaryFolder {
public:
  TemporaryFolder() {
    std::string dir = (std::filesystem::temp_directory_path() / "ptxray-analyze-XXXXXX").string();
    if (!mkdtemp(dir.data()))
      throw std::runtime_error("cannot create a temporary directory");
    path_ = dir;
  }
  ~TemporaryFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TemporaryFolder(const TemporaryFolder &) = delete;
  TemporaryFolder &operator=(const TemporaryFolder &) = delete;
  const std::filesystem::path &path() const { return path_; }

private:
  std::filesystem::path path_;
};

} // namespace

StaticAnalysisResult analyzeStatically(const arch::ArchTarget &target, const StaticAnalysisRequest &request) {
  const arch::ComputeCapability &cc = *target.computeCapability;
  StaticAnalysisResult out;
  vm::Device device(cc, target.gpu ? target.gpu->smCount : 0);
  // A .cu file's PTX is kept so that ptxas can count its registers.
  const bool cuda = request.module.ends_with(".cu");
  std::optional<TemporaryFolder> temporary;
  std::string keep = request.keepPtx;
  if (keep.empty() && cuda) {
    temporary.emplace();
    keep = temporary->path().string();
  }
  const vm::LoadedModule &loaded = device.loadModuleFile(request.module, keep);
  const ptx::Module &m = loaded.ptx();
  const std::string ptxFile =
      cuda ? (std::filesystem::path(keep) / (std::filesystem::path(request.module).filename().string() + ".ptx"))
                 .string()
           : request.module;
  const ptx::ModuleSummary summary = ptx::summarize(m);
  for (const ptx::Function &fn : m.functions) {
    if (!fn.isEntry || !fn.hasBody || (!request.kernel.empty() && findKernel(m, request.kernel) != &fn))
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
