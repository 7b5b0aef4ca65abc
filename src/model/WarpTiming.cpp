#include "model/WarpTiming.h"

#include <algorithm>
#include <span>

namespace ptxray::model {
namespace {

using ptx::Opcode;

/// Instructions whose first operand is not a register they write.
bool writesFirstOperand(Opcode op) {
  switch (op) {
  case Opcode::st:
  case Opcode::red:
  case Opcode::sust:
  case Opcode::sured:
  case Opcode::stmatrix:
  case Opcode::bar:
  case Opcode::barrier:
  case Opcode::membar:
  case Opcode::fence:
  case Opcode::bra:
  case Opcode::brx:
  case Opcode::call:
  case Opcode::ret:
  case Opcode::exit:
  case Opcode::trap:
  case Opcode::brkpt:
  case Opcode::prefetch:
  case Opcode::prefetchu:
  case Opcode::cp:
  case Opcode::multimem: return false;
  default: return true;
  }
}

/// Registers named by an operand (its children for addresses, vectors, pairs and lists).
void collectRegisters(const ptx::Function &fn, const ptx::Operand &o, std::vector<uint32_t> &out) {
  switch (o.kind) {
  case ptx::OperandKind::Register: out.push_back(o.id); break;
  case ptx::OperandKind::Address:
  case ptx::OperandKind::Vector:
  case ptx::OperandKind::Pair:
  case ptx::OperandKind::List:
    for (uint32_t i = 0; i < o.count; ++i)
      collectRegisters(fn, fn.operands[o.first + i], out);
    break;
  default: break;
  }
}

bool isMemoryRead(Opcode op) {
  switch (op) {
  case Opcode::ld:
  case Opcode::ldu:
  case Opcode::atom:
  case Opcode::tex:
  case Opcode::tld4:
  case Opcode::suld:
  case Opcode::ldmatrix: return true;
  default: return false;
  }
}

/// Registers whose value is the same in every lane of a warp by construction: defined only from
/// kernel parameters, block-wide special registers, constants and other such registers, by plain
/// arithmetic (a fixed point from "every register is uniform").
std::vector<bool> warpUniformRegisters(const ptx::Function &fn) {
  std::vector<bool> uniform(fn.registers.size(), true);
  auto uniformOperand = [&](const ptx::Operand &o, auto &&self) -> bool {
    switch (o.kind) {
    case ptx::OperandKind::Register: return o.id < uniform.size() && uniform[o.id];
    case ptx::OperandKind::SpecialReg: {
      const auto r = static_cast<ptx::SpecialReg>(o.id);
      return r == ptx::SpecialReg::ctaid || r == ptx::SpecialReg::nctaid || r == ptx::SpecialReg::ntid ||
             r == ptx::SpecialReg::nsmid || r == ptx::SpecialReg::gridid;
    }
    case ptx::OperandKind::Address:
    case ptx::OperandKind::Vector:
    case ptx::OperandKind::Pair:
    case ptx::OperandKind::List:
      for (uint32_t i = 0; i < o.count; ++i)
        if (!self(fn.operands[o.first + i], self))
          return false;
      return true;
    default: return true; // immediates, symbols
    }
  };
  auto arithmetic = [](const ptx::Instruction &inst) {
    switch (inst.opcode) {
    case Opcode::mov:
    case Opcode::cvta:
    case Opcode::cvt:
    case Opcode::add:
    case Opcode::sub:
    case Opcode::mul:
    case Opcode::mad:
    case Opcode::shl:
    case Opcode::shr:
    case Opcode::and_:
    case Opcode::or_:
    case Opcode::xor_:
    case Opcode::selp: return true;
    case Opcode::ld: return inst.space == ptx::StateSpace::Param;
    default: return false;
    }
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const ptx::Instruction &inst : fn.instructions) {
      std::span<const ptx::Operand> ops = fn.operandsOf(inst);
      if (ops.empty() || !writesFirstOperand(inst.opcode) || ops[0].kind == ptx::OperandKind::Address)
        continue;
      bool ok = arithmetic(inst) && (inst.guard == ptx::kNone || (inst.guard < uniform.size() && uniform[inst.guard]));
      for (size_t k = 1; ok && k < ops.size(); ++k)
        ok = uniformOperand(ops[k], uniformOperand);
      if (ok)
        continue;
      std::vector<uint32_t> written;
      collectRegisters(fn, ops[0], written);
      for (uint32_t r : written)
        if (r < uniform.size() && uniform[r]) {
          uniform[r] = false;
          changed = true;
        }
    }
  }
  return uniform;
}

} // namespace

int resultLatencyCycles(const arch::ComputeCapability &cc, InstructionClass c) {
  const arch::Latencies &l = cc.latency;
  const int raw = std::max(l.registerReadAfterWriteCycles, 1);
  auto or2 = [&](int v, int fallback) { return v > 0 ? v : fallback; };
  switch (c) {
  case InstructionClass::Fp64: return or2(l.fp64Cycles, raw);
  case InstructionClass::Special: return or2(l.specialFunctionCycles, raw);
  case InstructionClass::WarpShuffle: return or2(l.shuffleCycles, raw);
  case InstructionClass::Conversion: return or2(l.conversionCycles, raw);
  case InstructionClass::Emulated:
    // A division or 64-bit multiply is a dependent sequence of native instructions.
    return raw * std::max(cc.throughput.emulatedSequenceLength, 1);
  case InstructionClass::Int32Multiply:
    return raw * (cc.throughput.int32MulMad > 0 ? 1 : std::max(cc.throughput.multiplySequenceLength, 1));
  case InstructionClass::Int24Multiply:
    // Native before Fermi; after it the operands are cut to 24 bits first, then multiplied (a
    // dependent pair: InstructionClass.cpp's "multiple instructions").
    return cc.throughput.int24Mul > 0 ? raw : 2 * raw;
  case InstructionClass::LoadStore: return or2(l.l1HitCycles, raw); // replaced by the level that served it
  default: return raw;
  }
}

FunctionTiming buildFunctionTiming(const arch::ComputeCapability &cc, const ptx::Module &module,
                                   const ptx::Function &fn, int fp64PerClock) {
  FunctionTiming t;
  t.instructions.resize(fn.instructions.size());
  // A scheduler issues one warp instruction a clock; a class slower than that keeps it busy longer.
  const double schedulers = std::max(cc.registerFilePartitions, 1);
  std::vector<uint32_t> sources, destinations;
  const std::vector<bool> uniform = warpUniformRegisters(fn);
  const std::vector<MergedAccess> merged = mergedSharedAccesses(module, fn, cc.sharedBanks.compilerMergedAccessBytes);
  for (size_t i = 0; i < fn.instructions.size(); ++i) {
    const ptx::Instruction &inst = fn.instructions[i];
    InstructionTiming &it = t.instructions[i];
    const InstructionClass cls = classify(fn, inst);
    const double rate = warpInstructionsPerClock(cc, cls, fp64PerClock);
    // A warp issues one instruction a clock while the pipe keeps up (measured: 4 independent FMA
    // chains with their loop take one cycle an instruction on an H100, validation/model latency#4);
    // a class slower than half a warp a clock per scheduler holds the warp for its share.
    const double perScheduler = rate / schedulers;
    it.endsBlock = cls == InstructionClass::Control;
    it.waitsForEarlier = cls == InstructionClass::Barrier;
    const uint8_t spaces = inst.space == ptx::StateSpace::Shared                                           ? 1
                           : inst.space == ptx::StateSpace::Global || inst.space == ptx::StateSpace::Local ? 2
                           : inst.space == ptx::StateSpace::None                                           ? 3
                                                                                                           : 0;
    if (inst.opcode == Opcode::st || inst.opcode == Opcode::atom || inst.opcode == Opcode::red)
      it.orderedStore = spaces;
    if (inst.opcode == Opcode::ld && !inst.has(ptx::Mod::nc))
      it.orderedLoad = spaces;
    it.issueCycles =
        static_cast<uint16_t>(perScheduler >= 0.5 || rate <= 0 ? 1.0 : std::min(1.0 / perScheduler, 1024.0));
    it.merged = merged[i].role;
    it.mergedBytesPerLane = merged[i].bytesPerLane;
    it.mergedAddressAdjust = merged[i].addressAdjust;
    it.pipe = static_cast<uint8_t>(cls);
    it.pipeCycles = rate > 0 ? static_cast<float>(1.0 / rate) : 0.0f;
    it.issueSlots = cls == InstructionClass::Emulated
                        ? static_cast<float>(std::max(cc.throughput.emulatedSequenceLength, 1))
                        : 1.0f;
    if (it.merged == MergedRole::Merged) {
      it.issueCycles = 0; // issued by the group's first access
      it.pipeCycles = it.issueSlots = 0;
    }
    it.resultCycles = static_cast<uint16_t>(std::min(resultLatencyCycles(cc, cls), 65535));
    sources.clear();
    destinations.clear();
    if (inst.guard != ptx::kNone)
      sources.push_back(inst.guard);
    std::span<const ptx::Operand> ops = fn.operandsOf(inst);
    if (inst.opcode == Opcode::call)
      for (const ptx::Operand &o : ops)
        if (o.kind == ptx::OperandKind::Symbol && o.id < module.symbols.size() &&
            (module.symbols[o.id].name == "vprintf"))
          it.printf = true;
    for (size_t k = 0; k < ops.size(); ++k) {
      const bool destination = k == 0 && writesFirstOperand(inst.opcode) && ops[0].kind != ptx::OperandKind::Address;
      collectRegisters(fn, ops[k], destination ? destinations : sources);
    }
    if (inst.opcode == Opcode::atom || inst.opcode == Opcode::red) {
      // Every source (address, operands, guard) uniform: one update a warp.
      it.warpUniformAtomic =
          std::all_of(sources.begin(), sources.end(), [&](uint32_t r) { return r < uniform.size() && uniform[r]; });
    }
    it.result = destinations.empty()        ? ResultTiming::None
                : isMemoryRead(inst.opcode) ? ResultTiming::Memory
                                            : ResultTiming::Fixed;
    it.firstRegister = static_cast<uint32_t>(t.registers.size());
    it.sources = static_cast<uint8_t>(std::min<size_t>(sources.size(), 255));
    it.destinations = static_cast<uint8_t>(std::min<size_t>(destinations.size(), 255 - it.sources));
    t.registers.insert(t.registers.end(), sources.begin(), sources.begin() + it.sources);
    t.registers.insert(t.registers.end(), destinations.begin(), destinations.begin() + it.destinations);
  }
  return t;
}

} // namespace ptxray::model
