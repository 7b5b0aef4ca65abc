// The resources a PTX kernel needs per thread and per block, for the occupancy calculator: registers
// from `ptxas -v` when ptxas is installed and can target the architecture, else from `.maxnreg`, else
// estimated from the PTX by live-range analysis; static shared memory from the PTX; block size from
// `.reqntid`/`.maxntid`. Every number says where it came from.
#pragma once

#include "arch/ComputeCapability.h"
#include "ptx/Ir.h"

#include <optional>
#include <string>

namespace ptxray::session {

struct KernelResources {
  std::string kernel; ///< demangled name
  int registers = 0;
  std::string registerSource; ///< "ptxas -v for sm_90", ".maxnreg", "estimate: ..."
  std::size_t staticSharedBytes = 0;
  std::optional<int> threadsPerBlock;
  std::string threadsSource;
};

/// Whether `entry` names `fn`: its PTX name, its demangled name, or that name without the parameter
/// list (every overload and template instance); an empty entry names every kernel.
bool kernelMatches(const ptx::Function &fn, const std::string &entry);

/// The kernel `entry` names (its PTX name, its demangled name, or that name without the parameter
/// list; empty: the first kernel) among `module`'s kernels with a body; null when there is none.
const ptx::Function *findKernel(const ptx::Module &module, const std::string &entry);
/// "FILE has no kernel named 'x'; its kernels are: ..." for a failed findKernel.
std::string noKernelMessage(const ptx::Module &module, const std::string &file, const std::string &entry);

/// The resources of `kernel` of `module`. `ptxFile`: where the module's PTX is on disk, for ptxas
/// (empty: not on disk, the fallbacks count).
KernelResources kernelResources(const ptx::Module &module, const ptx::Function &kernel, const std::string &ptxFile,
                                const arch::ComputeCapability &cc);

} // namespace ptxray::session
