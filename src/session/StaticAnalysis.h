// What is known about a module's kernels without running them (`ptxray analyze FILE.ptx|FILE.cu`
// without a launch): registers, shared and local memory, occupancy per block size, and the findings the
// PTX shows by itself, as one report::Analysis per kernel.
#pragma once

#include "advisor/Advisor.h"
#include "report/AnalysisReport.h"

#include <string>
#include <vector>

namespace ptxray::session {

struct StaticAnalysisRequest {
  std::string module;  ///< a .ptx file, a .cu file nvcc compiles, a .cl file clang compiles
  std::string kernel;  ///< one kernel (PTX or C++ name); empty: every kernel
  std::string keepPtx; ///< a .cu or .cl module: the folder its PTX is written to (else a temporary one)
  std::vector<std::string> buildOptions; ///< an OpenCL C module's
  model::ModelOptions model;
  advisor::AdvisorOptions advisor;
};

struct StaticAnalysisResult {
  std::vector<report::Analysis> analyses;
  std::vector<std::string> errors; ///< no such kernel, say; the analyses are then incomplete
};

/// Throws vm::VmError when the module does not load (does not parse or verify, nvcc fails).
StaticAnalysisResult analyzeStatically(const arch::ArchTarget &target, const StaticAnalysisRequest &request);

} // namespace ptxray::session
