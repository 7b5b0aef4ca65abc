// Semantic checks a PTX assembler makes after parsing: operand counts and types, ISA version and
// target requirements, address-size consistency, and what names resolve to.
#pragma once

#include "ptx/Diagnostics.h"
#include "ptx/Ir.h"

namespace ptxray::ptx {

void verifyModule(const Module &module, Diagnostics &diags);

} // namespace ptxray::ptx
