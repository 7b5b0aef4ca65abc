#include "model/InstructionClass.h"

#include "ptx/Isa.h"

namespace ptxray::model {
namespace {

using ptx::Opcode;

bool isFloat(const ptx::Instruction &inst, int bits) {
  ptx::TypeInfo t = ptx::typeInfo(inst.type(0));
  return t.kind == ptx::TypeKind::Float && (bits == 0 || t.bits == bits);
}

bool isHalf(const ptx::Instruction &inst) {
  ptx::Mod t = inst.type(0);
  return t == ptx::Mod::f16 || t == ptx::Mod::f16x2 || t == ptx::Mod::bf16 || t == ptx::Mod::bf16x2;
}

InstructionClass arithmetic(const ptx::Instruction &inst) {
  if (isHalf(inst))
    return InstructionClass::Fp16;
  if (isFloat(inst, 64))
    return InstructionClass::Fp64;
  if (isFloat(inst, 0))
    return InstructionClass::Fp32;
  return InstructionClass::Int32;
}

} // namespace

std::string_view instructionClassName(InstructionClass c) {
  switch (c) {
  case InstructionClass::Fp16: return "fp16";
  case InstructionClass::Fp32: return "fp32";
  case InstructionClass::Fp64: return "fp64";
  case InstructionClass::Special: return "special_function";
  case InstructionClass::Int32: return "integer";
  case InstructionClass::Int32Multiply: return "integer_multiply";
  case InstructionClass::Int24Multiply: return "integer_mul24";
  case InstructionClass::IntegerOther: return "integer_bit";
  case InstructionClass::Conversion: return "conversion";
  case InstructionClass::WarpShuffle: return "warp_shuffle";
  case InstructionClass::LoadStore: return "load_store";
  case InstructionClass::Control: return "control";
  case InstructionClass::Barrier: return "barrier";
  case InstructionClass::Emulated: return "emulated";
  case InstructionClass::Other: return "other";
  }
  return "other";
}

InstructionClass classify(const ptx::Instruction &inst) {
  switch (inst.opcode) {
  case Opcode::add:
  case Opcode::sub:
  case Opcode::min:
  case Opcode::max:
  case Opcode::abs:
  case Opcode::neg:
  case Opcode::setp:
  case Opcode::set:
  case Opcode::copysign:
  case Opcode::testp: return arithmetic(inst);
  case Opcode::fma: return arithmetic(inst);
  case Opcode::mul:
  case Opcode::mad: {
    InstructionClass c = arithmetic(inst);
    if (c != InstructionClass::Int32)
      return c;
    // 64-bit integer multiplies are emulated with several 32-bit ones.
    ptx::TypeInfo t = ptx::typeInfo(inst.type(0));
    return t.bits == 64 && !inst.has(ptx::Mod::wide) ? InstructionClass::Emulated : InstructionClass::Int32Multiply;
  }
  case Opcode::mul24:
  case Opcode::mad24: return InstructionClass::Int24Multiply;
  case Opcode::div:
  case Opcode::rem:
    // Full-precision division is a sequence; .approx/.full f32 division is an SFU reciprocal and a multiply.
    if (isFloat(inst, 32) && (inst.has(ptx::Mod::approx) || inst.has(ptx::Mod::full)))
      return InstructionClass::Special;
    return InstructionClass::Emulated;
  case Opcode::sqrt:
  case Opcode::rcp:
    // Full-precision (IEEE-rounded) and double forms are sequences; .approx.f32 is one SFU instruction.
    return isFloat(inst, 32) && inst.has(ptx::Mod::approx) ? InstructionClass::Special : InstructionClass::Emulated;
  case Opcode::rsqrt:
  case Opcode::sin:
  case Opcode::cos:
  case Opcode::ex2:
  case Opcode::lg2:
  case Opcode::tanh: return isFloat(inst, 64) ? InstructionClass::Emulated : InstructionClass::Special;
  case Opcode::and_:
  case Opcode::or_:
  case Opcode::xor_:
  case Opcode::not_:
  case Opcode::cnot:
  case Opcode::shl:
  case Opcode::shr:
  case Opcode::shf:
  case Opcode::lop3:
  case Opcode::selp:
  case Opcode::slct:
  case Opcode::addc:
  case Opcode::subc:
  case Opcode::madc:
  case Opcode::mov:
  case Opcode::prmt:
  case Opcode::cvta:
  case Opcode::isspacep:
  case Opcode::mapa:
  case Opcode::szext:
  case Opcode::bmsk: return InstructionClass::Int32;
  case Opcode::bfe:
  case Opcode::bfi:
  case Opcode::bfind:
  case Opcode::brev:
  case Opcode::clz:
  case Opcode::popc:
  case Opcode::sad:
  case Opcode::dp2a:
  case Opcode::dp4a:
  case Opcode::fns: return InstructionClass::IntegerOther;
  case Opcode::cvt: return InstructionClass::Conversion;
  case Opcode::shfl:
  case Opcode::vote:
  case Opcode::match:
  case Opcode::redux:
  case Opcode::activemask:
  case Opcode::elect: return InstructionClass::WarpShuffle;
  case Opcode::ld:
  case Opcode::ldu:
  case Opcode::st:
  case Opcode::atom:
  case Opcode::red:
  case Opcode::tex:
  case Opcode::tld4:
  case Opcode::txq:
  case Opcode::suld:
  case Opcode::sust:
  case Opcode::sured:
  case Opcode::suq:
  case Opcode::cp:
  case Opcode::prefetch:
  case Opcode::prefetchu:
  case Opcode::ldmatrix:
  case Opcode::stmatrix:
  case Opcode::multimem:
  case Opcode::mbarrier: return InstructionClass::LoadStore;
  case Opcode::bra:
  case Opcode::brx:
  case Opcode::call:
  case Opcode::ret:
  case Opcode::exit:
  case Opcode::trap:
  case Opcode::brkpt: return InstructionClass::Control;
  case Opcode::bar:
  case Opcode::barrier:
  case Opcode::membar:
  case Opcode::fence: return InstructionClass::Barrier;
  default: return InstructionClass::Other;
  }
}

InstructionClass classify(const ptx::Function &fn, const ptx::Instruction &inst) {
  const InstructionClass c = classify(inst);
  if (c != InstructionClass::Int32Multiply || (inst.opcode != ptx::Opcode::mul && inst.opcode != ptx::Opcode::mad))
    return c;
  // ptxas never multiplies by a power of two: x * 2^k is a shift (mul.wide: the shifted low word and
  // the high word's shift or sign bits; mad: shift and add), ALU work at the integer add's rate.
  const std::span<const ptx::Operand> ops = fn.operandsOf(inst);
  if (ops.size() < 3)
    return c;
  for (size_t k = 1; k <= 2; ++k) {
    const ptx::Operand &o = ops[k];
    if (o.kind == ptx::OperandKind::Immediate && o.value > 0 && (o.value & (o.value - 1)) == 0)
      return InstructionClass::Int32;
  }
  return c;
}

double warpInstructionsPerClock(const arch::ComputeCapability &cc, InstructionClass c, int fp64PerClockOverride) {
  const arch::ArithmeticThroughput &t = cc.throughput;
  auto perWarp = [&](int resultsPerClock) -> double {
    return resultsPerClock > 0 ? static_cast<double>(resultsPerClock) / cc.warpSize : 0.0;
  };
  switch (c) {
  case InstructionClass::Fp16: return perWarp(t.fp16AddMulFma > 0 ? t.fp16AddMulFma : t.fp32AddMulFma);
  case InstructionClass::Fp32: return perWarp(t.fp32AddMulFma);
  case InstructionClass::Fp64: return perWarp(fp64PerClockOverride > 0 ? fp64PerClockOverride : t.fp64AddMulFma);
  case InstructionClass::Special: return perWarp(t.fp32Special);
  case InstructionClass::Int32: return perWarp(t.int32AddSub);
  case InstructionClass::Int32Multiply:
    // kMultipleInstructions: a 32-bit multiply is itself emulated (CC 1.x with mul24 native, or Maxwell's
    // XMAD sequence): priced as the 24-bit rate divided over the sequence.
    return t.int32MulMad > 0 ? perWarp(t.int32MulMad)
                             : perWarp(t.int24Mul > 0 ? t.int24Mul : t.int32AddSub) / t.multiplySequenceLength;
  case InstructionClass::Int24Multiply: {
    if (t.int24Mul > 0)
      return perWarp(t.int24Mul);
    // "Multiple instructions" from CC 2.0 on ([PG-T]): the 32-bit multiplier forms the product once
    // each operand is cut to its low 24 bits (masked or sign-extended), so one multiply and two
    // integer operations; this makes mul24 slower than a plain 32-bit multiply there, which is the
    // guide's warning ([BPG] §5.1: "on future architectures __mul24 will be slower").
    const double multiply = warpInstructionsPerClock(cc, InstructionClass::Int32Multiply);
    const double alu = perWarp(t.int32AddSub);
    return multiply > 0 && alu > 0 ? 1.0 / (1.0 / multiply + 2.0 / alu) : 0.0;
  }
  case InstructionClass::IntegerOther: return perWarp(t.populationCount > 0 ? t.populationCount : t.int32AddSub);
  case InstructionClass::Conversion: return perWarp(t.convertOther > 0 ? t.convertOther : t.int32AddSub);
  case InstructionClass::WarpShuffle: return perWarp(t.warpShuffle > 0 ? t.warpShuffle : t.int32AddSub);
  case InstructionClass::LoadStore: return perWarp(t.memoryInstruction > 0 ? t.memoryInstruction : t.int32AddSub);
  case InstructionClass::Emulated: return perWarp(t.fp32AddMulFma) / t.emulatedSequenceLength;
  case InstructionClass::Control:
  case InstructionClass::Barrier:
  case InstructionClass::Other: return perWarp(t.int32AddSub);
  }
  return 0;
}

} // namespace ptxray::model
