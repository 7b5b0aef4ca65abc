// What kind of work a PTX instruction is for the modeled SM: the classes of the Programming Guide's
// throughput table ("Throughput of Native Arithmetic Instructions", OpenCL Best Practices Guide §5.1),
// plus memory, control and barriers, so that counts of executed warp instructions become an
// instruction mix and an issue cost.
#pragma once

#include "arch/ComputeCapability.h"
#include "ptx/Ir.h"

#include <array>
#include <string_view>

namespace ptxray::model {

enum class InstructionClass : uint8_t {
  Fp16,          ///< half-precision arithmetic
  Fp32,          ///< single-precision add, multiply, fma, min/max, compare
  Fp64,          ///< double-precision arithmetic
  Special,       ///< sin, cos, ex2, lg2, rcp, rsqrt, sqrt and tanh approximations (the SFU)
  Int32,         ///< integer add/sub, logic, shifts, compare, select, moves
  Int32Multiply, ///< 32-bit integer multiply and multiply-add
  Int24Multiply, ///< mul24/mad24
  IntegerOther,  ///< bit field, reverse, popc, clz, sad, dot products
  Conversion,    ///< cvt
  WarpShuffle,   ///< shfl, vote, match, redux
  LoadStore,     ///< ld, st, atomics, reductions, textures, surfaces, async copies
  Control,       ///< branches, calls, returns, exit
  Barrier,       ///< bar, barrier, membar, fence
  Emulated,      ///< divisions and remainders, 64-bit integer multiply: a sequence of native instructions
  Other,         ///< data movement and everything else
};
inline constexpr int kInstructionClasses = static_cast<int>(InstructionClass::Other) + 1;

std::string_view instructionClassName(InstructionClass c);
InstructionClass classify(const ptx::Instruction &inst);
/// As classify(inst), with what the operands tell: an integer multiply (mul, mul.wide, mad) by an
/// immediate power of two is a shift (and an add) once ptxas has strength-reduced it.
InstructionClass classify(const ptx::Function &fn, const ptx::Instruction &inst);

/// Warp instructions of this class an SM completes per clock on `cc`: the throughput table's
/// results per clock divided by the warp size. Emulated classes cost several native instructions
/// (kEmulationCost); 0 for classes not in the table (issue-limited: one per scheduler per clock).
double warpInstructionsPerClock(const arch::ComputeCapability &cc, InstructionClass c, int fp64PerClockOverride = 0);

} // namespace ptxray::model
