// The resources a PTX kernel needs per thread and per block, for the occupancy calculator: registers
// from `ptxas -v` when ptxas is installed and can target the architecture, else from `.maxnreg`, else
// estimated from the PTX by live-range analysis; static shared memory from the PTX; block size from
// `.reqntid`/`.maxntid`. Every number says where it came from.
#pragma once

#include "arch/ComputeCapability.h"

#include <optional>
#include <string>

namespace ptxray::cli {

struct KernelResources {
  std::string kernel; ///< demangled name
  int registers = 0;
  std::string registerSource; ///< "ptxas -v for sm_90", ".maxnreg", "estimate: ..."
  std::size_t staticSharedBytes = 0;
  std::optional<int> threadsPerBlock;
  std::string threadsSource;
};

/// Prints a diagnostic and returns nullopt when the file does not parse or has no such kernel.
std::optional<KernelResources> kernelResources(const std::string &path, const std::string &entry,
                                               const arch::ComputeCapability &cc);

} // namespace ptxray::cli
