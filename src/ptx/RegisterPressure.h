// An estimate of the registers a kernel needs, from PTX alone: the most 32-bit register slots live
// at once (liveness over the control-flow graph). ptxas allocates differently (it reorders, spills,
// reserves registers for addressing), so this is labelled an estimate wherever it is shown; it is
// what ptxray uses when `ptxas -v` is not available.
#pragma once

#include "ptx/Ir.h"

namespace ptxray::ptx {

struct RegisterPressure {
  uint32_t maxLive32 = 0;         ///< most live 32-bit slots (a 64-bit register counts 2)
  uint32_t maxLivePredicates = 0; ///< most predicates live at once (they have their own register file)
  uint32_t atInstruction = kNone; ///< where the maximum is reached
};

RegisterPressure estimateRegisterPressure(const Module &module, const Function &fn);

/// 32-bit slots a register of this type occupies (b64 -> 2, b128 -> 4, .v4 .f32 -> 4, pred -> 0).
uint32_t registerSlots(const Register &reg);

} // namespace ptxray::ptx
