// Semantic checks a PTX assembler makes after parsing: operand counts and types, ISA version and
// target requirements, address-size consistency, and what names resolve to.
#pragma once

#include "ptx/Diagnostics.h"
#include "ptx/Ir.h"

namespace ptxray::ptx {

void verifyModule(const Module &module, Diagnostics &diags);

/// An instruction (or an instruction's modifier) the module uses that GPUs below `minSm` lack.
struct FeatureBeyondTarget {
  std::string feature; ///< "'shfl.sync'", "'red.add.f64'"
  uint16_t minSm = 0;
  SourceLoc firstUse;
};
/// The features of the module's instructions that a GPU of compute capability `sm` (major*10+minor)
/// does not have, each once, at its first use, in source order: what a driver for that GPU would
/// refuse to JIT, though the VM runs them as the PTX says.
std::vector<FeatureBeyondTarget> featuresBeyond(const Module &module, uint32_t sm);

} // namespace ptxray::ptx
