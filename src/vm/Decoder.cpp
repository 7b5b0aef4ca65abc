#include "vm/Decoder.h"

#include "ptx/SharedLayout.h"

#include "abi/SystemCalls.h"
#include "ptx/Demangle.h"
#include "vm/Exec.h"
#include "vm/Reconvergence.h"
#include "vm/ops/Families.h"
#include "vm/semantics/Half.h"

#include <bit>
#include <cstring>
#include <fmt/format.h>

namespace ptxray::vm {

using ptx::Mod;
using ptx::Opcode;
using ptx::OperandKind;

namespace {

bool isFloatType(Mod type) {
  return ptx::typeInfo(type).kind == ptx::TypeKind::Float;
}

/// The family that owns an instruction. Arithmetic opcodes shared by integer and float forms are
/// routed by their type.
DecodeFn familyOf(const ptx::Instruction &inst) {
  switch (inst.opcode) {
  case Opcode::add:
  case Opcode::sub:
  case Opcode::mad:
    if (inst.has(Mod::cc))
      return &ops::decodeExtendedPrecision;
    [[fallthrough]];
  case Opcode::mul:
  case Opcode::abs:
  case Opcode::neg:
  case Opcode::min:
  case Opcode::max:
  case Opcode::div: return isFloatType(inst.type()) ? &ops::decodeFloatArithmetic : &ops::decodeIntegerArithmetic;
  case Opcode::addc:
  case Opcode::subc:
  case Opcode::madc: return &ops::decodeExtendedPrecision;
  case Opcode::mul24:
  case Opcode::mad24:
  case Opcode::sad:
  case Opcode::rem: return &ops::decodeIntegerArithmetic;
  case Opcode::fma:
  case Opcode::rcp:
  case Opcode::sqrt:
  case Opcode::rsqrt:
  case Opcode::sin:
  case Opcode::cos:
  case Opcode::lg2:
  case Opcode::ex2:
  case Opcode::tanh:
  case Opcode::copysign:
  case Opcode::testp: return &ops::decodeFloatArithmetic;
  case Opcode::and_:
  case Opcode::or_:
  case Opcode::xor_:
  case Opcode::not_:
  case Opcode::cnot:
  case Opcode::shl:
  case Opcode::shr:
  case Opcode::lop3:
  case Opcode::bfe:
  case Opcode::bfi:
  case Opcode::brev:
  case Opcode::bfind:
  case Opcode::clz:
  case Opcode::popc:
  case Opcode::fns:
  case Opcode::prmt:
  case Opcode::shf:
  case Opcode::bmsk:
  case Opcode::szext:
  case Opcode::dp2a:
  case Opcode::dp4a: return &ops::decodeBitOps;
  case Opcode::setp:
  case Opcode::set:
  case Opcode::selp:
  case Opcode::slct: return &ops::decodeCompare;
  case Opcode::cvt: return &ops::decodeConvert;
  case Opcode::mov:
  case Opcode::cvta:
  case Opcode::isspacep: return &ops::decodeMove;
  case Opcode::ld:
  case Opcode::ldu:
  case Opcode::st:
  case Opcode::prefetch:
  case Opcode::prefetchu: return &ops::decodeMemory;
  case Opcode::atom:
  case Opcode::red: return &ops::decodeAtomic;
  case Opcode::shfl:
  case Opcode::vote:
  case Opcode::match:
  case Opcode::redux:
  case Opcode::activemask:
  case Opcode::elect: return &ops::decodeWarp;
  case Opcode::bra:
  case Opcode::brx:
  case Opcode::call:
  case Opcode::ret:
  case Opcode::exit:
  case Opcode::trap:
  case Opcode::brkpt: return &ops::decodeControl;
  case Opcode::bar:
  case Opcode::barrier:
  case Opcode::membar:
  case Opcode::fence:
  case Opcode::nanosleep: return &ops::decodeSync;
  case Opcode::tex:
  case Opcode::istypep:
  case Opcode::sured:
  case Opcode::tld4:
  case Opcode::txq:
  case Opcode::suld:
  case Opcode::sust:
  case Opcode::suq: return &ops::decodeTexture;
  case Opcode::cp:
  case Opcode::mbarrier: return &ops::decodeAsync;
  case Opcode::pmevent:
  case Opcode::applypriority:
  case Opcode::discard:
  case Opcode::griddepcontrol:
  case Opcode::setmaxnreg: return &ops::decodeNop;
  default: return nullptr;
  }
}

void execUnsupported(ExecContext &ctx, const MicroOp &op) {
  ctx.fault(FaultKind::IllegalInstruction, std::countr_zero(ctx.exec),
            std::string(unsupportedMessage(*ctx.launch->program, op.imm)));
}

uint32_t variableAlign(const ptx::Variable &v) {
  return v.align ? v.align : std::max<uint32_t>(v.naturalAlign(), 1);
}

} // namespace

// ---------------------------------------------------------------------------------------------

DecodeContext::DecodeContext(Program &program, DecodedFunction &fn, const std::vector<SymbolPlacement> &modulePlacement)
    : program(program), fn(fn), module(*program.module), ptxFn(*fn.source), modulePlacement_(modulePlacement) {}

const SymbolPlacement &DecodeContext::placement(uint32_t symbol) const {
  auto it = framePlacement_.find(symbol);
  if (it != framePlacement_.end())
    return it->second;
  if (kernelPlacement_) {
    auto shared = kernelPlacement_->find(symbol);
    if (shared != kernelPlacement_->end())
      return shared->second;
  }
  return modulePlacement_[symbol];
}

uint32_t DecodeContext::functionIndexOf(uint32_t symbol) const {
  const ptx::Symbol &s = module.symbols[symbol];
  if (s.kind != ptx::SymbolKind::Function)
    return kNoSlot;
  return functionMap_ && s.index < functionMap_->size() ? (*functionMap_)[s.index] : s.index;
}

uint32_t DecodeContext::constant(uint64_t bits) {
  // Constants are few per function; a linear probe of the pool's first lanes keeps decoding simple.
  auto &pool = program.constPool;
  for (size_t i = 0; i < pool.size(); i += kWarpSize)
    if (pool[i] == bits)
      return kConstBit | static_cast<uint32_t>(i / kWarpSize);
  uint32_t index = static_cast<uint32_t>(pool.size() / kWarpSize);
  pool.insert(pool.end(), kWarpSize, bits);
  return kConstBit | index;
}

uint32_t DecodeContext::registerSlot(uint32_t reg) {
  uint32_t &slot = slotOfRegister_[reg];
  if (slot == kNoSlot) {
    if (isPred_[reg]) {
      slot = fn.numPredSlots++;
    } else {
      slot = fn.numValueSlots;
      fn.numValueSlots += std::max<uint32_t>(ptxFn.registers[reg].vectorWidth, 1);
    }
  }
  return slot;
}

uint32_t DecodeContext::scratchSlot() {
  return fn.numValueSlots++;
}

void DecodeContext::emitBefore(const MicroOp &op) {
  pending.push_back(op);
}

void DecodeContext::unsupported(MicroOp &op, std::string why) {
  op.exec = &execUnsupported;
  op.imm = static_cast<int64_t>(program.messages.size());
  program.messages.push_back(std::move(why));
}

bool DecodeContext::isPredicate(const ptx::Operand &op) const {
  return op.kind == OperandKind::Register && isPred_[op.id];
}

uint32_t DecodeContext::predSlot(const ptx::Operand &op, bool *negated) {
  if (negated)
    *negated = (op.flags & ptx::Operand::Negated) != 0;
  if (op.kind == OperandKind::Register && isPred_[op.id])
    return registerSlot(op.id);
  // A sink, or an operand that is not a predicate register (a predicate special register such as
  // %is_explicit_cluster, false for the VM's clusters of one CTA): a fresh slot that reads false.
  return fn.numPredSlots++;
}

namespace detail {
void execReadSpecial(ExecContext &ctx, const MicroOp &op);
void execFrameAddress(ExecContext &ctx, const MicroOp &op);
} // namespace detail

uint32_t DecodeContext::vectorComponent(const ptx::Operand &op) const {
  // .x/.y/.z/.w or .r/.g/.b/.a of a vector register; byte and half selectors (.b0, .h1) carry digits
  // and belong to the instructions that take them.
  uint32_t digits = (op.selector >> 8) & 0xf;
  if (op.selector == 0 || digits != 0 || ptxFn.registers[op.id].vectorWidth <= 1)
    return 0;
  switch (static_cast<char>(op.selector & 0xff)) {
  case 'y':
  case 'g': return 1;
  case 'z':
  case 'b': return 2;
  case 'w':
  case 'a': return 3;
  default: return 0;
  }
}

uint32_t DecodeContext::src(const ptx::Operand &op, Mod type) {
  switch (op.kind) {
  case OperandKind::Register: {
    uint32_t slot = registerSlot(op.id);
    if (isPred_[op.id]) {
      // A predicate read as a value (selp's operands are never predicates; this is cvt-like use).
      MicroOp m;
      m.exec = &detail::execReadSpecial;
      m.imm = -1; // predicate -> 0/1
      m.s[0] = slot;
      m.d[0] = scratchSlot();
      emitBefore(m);
      return m.d[0];
    }
    return slot + vectorComponent(op);
  }
  case OperandKind::Immediate: return constant(static_cast<uint64_t>(op.value));
  case OperandKind::Float32:
  case OperandKind::Float64: {
    // A float literal is a value: it takes the instruction's float format (rounded to nearest).
    double value = op.kind == OperandKind::Float32
                       ? static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(op.value)))
                       : std::bit_cast<double>(static_cast<uint64_t>(op.value));
    switch (type) {
    case Mod::f64: return constant(std::bit_cast<uint64_t>(value));
    case Mod::f16: return constant(sem::fromF64<sem::HalfKind::F16>(value));
    case Mod::bf16: return constant(sem::fromF64<sem::HalfKind::BF16>(value));
    default:
      // f32 instructions, and untyped uses (mov.b32 of a 0f literal keeps its bits).
      if (op.kind == OperandKind::Float32)
        return constant(static_cast<uint64_t>(op.value) & 0xffffffffu);
      return constant(std::bit_cast<uint32_t>(static_cast<float>(value)));
    }
  }
  case OperandKind::SpecialReg: {
    MicroOp m;
    m.exec = &detail::execReadSpecial;
    m.imm = op.id;
    using ptx::SpecialReg;
    switch (static_cast<SpecialReg>(op.id)) {
    case SpecialReg::clock:
    case SpecialReg::clock_hi:
    case SpecialReg::clock64:
    case SpecialReg::globaltimer:
    case SpecialReg::globaltimer_lo:
    case SpecialReg::globaltimer_hi: program.readsClock = true; break;
    default: break;
    }
    char letter = static_cast<char>(op.selector & 0xff);
    m.flags = letter == 'y' ? 1 : letter == 'z' ? 2 : letter == 'w' ? 3 : 0;
    m.d[0] = scratchSlot();
    emitBefore(m);
    return m.d[0];
  }
  case OperandKind::Symbol: {
    const SymbolPlacement &p = placement(op.id);
    if (p.kind == SymbolPlacement::Kind::Register)
      return p.slot;
    if (p.kind == SymbolPlacement::Kind::Frame) {
      MicroOp m;
      m.exec = &detail::execFrameAddress;
      m.imm = static_cast<int64_t>(p.address) + op.value;
      m.d[0] = scratchSlot();
      emitBefore(m);
      return m.d[0];
    }
    return constant(p.address + static_cast<uint64_t>(op.value));
  }
  default: return constant(0);
  }
}

uint32_t DecodeContext::dst(const ptx::Operand &op) {
  if (op.kind == OperandKind::Register) {
    return registerSlot(op.id) + vectorComponent(op);
  }
  if (op.kind == OperandKind::Symbol) {
    const SymbolPlacement &p = placement(op.id);
    if (p.kind == SymbolPlacement::Kind::Register)
      return p.slot;
  }
  return scratchSlot();
}

Space DecodeContext::spaceOf(ptx::StateSpace space, const ptx::Operand &addressOperand) const {
  switch (space) {
  case ptx::StateSpace::Global: return Space::Global;
  case ptx::StateSpace::Shared: return Space::Shared;
  case ptx::StateSpace::Local: return Space::Local;
  case ptx::StateSpace::Const: return Space::Const;
  case ptx::StateSpace::Param: {
    // A kernel's parameters live in the launch's parameter buffer; a function's (and call-site
    // .param variables) in the thread's frame.
    const ptx::Operand *sym = &addressOperand;
    if (addressOperand.kind == OperandKind::Address && addressOperand.count > 0)
      sym = &ptxFn.operands[addressOperand.first];
    if (sym->kind == OperandKind::Symbol)
      return placement(sym->id).kind == SymbolPlacement::Kind::KernelParam ? Space::KernelParam : Space::Local;
    return fn.isEntry ? Space::KernelParam : Space::Local;
  }
  default: return Space::Generic;
  }
}

AddressRef DecodeContext::address(const ptx::Operand &op) {
  AddressRef ref;
  auto addPart = [&](const ptx::Operand &part) {
    switch (part.kind) {
    case OperandKind::Register:
      ref.base = registerSlot(part.id);
      ref.offset += part.value;
      break;
    case OperandKind::Immediate: ref.offset += part.value; break;
    case OperandKind::Symbol: {
      const SymbolPlacement &p = placement(part.id);
      if (p.kind == SymbolPlacement::Kind::Register) {
        ref.base = p.slot;
        ref.offset += part.value;
        break;
      }
      ref.offset += static_cast<int64_t>(p.address) + part.value;
      ref.frameRelative = p.kind == SymbolPlacement::Kind::Frame;
      break;
    }
    default: break;
    }
  };
  if (op.kind == OperandKind::Address) {
    for (const ptx::Operand &part : children(op))
      addPart(part);
  } else {
    addPart(op);
  }
  return ref;
}

// ---------------------------------------------------------------------------------------------

namespace {

void layoutFrame(DecodeContext &ctx, DecodedFunction &fn, const ptx::Function &src, const ptx::Module &m) {
  uint64_t offset = 0;
  uint32_t maxAlign = 16;
  auto place = [&](uint32_t varIndex, SymbolPlacement::Kind kind, uint64_t &cursor) {
    const ptx::Variable &v = m.variables[varIndex];
    uint32_t align = variableAlign(v);
    maxAlign = std::max(maxAlign, align);
    cursor = ptx::saturatingAlignUp(cursor, align);
    uint64_t at = cursor;
    cursor = ptx::saturatingAdd(cursor, std::max<uint64_t>(v.sizeInBytes(), 1));
    return SymbolPlacement{kind, at, kNoSlot};
  };
  auto symbolOf = [&](uint32_t varIndex) -> uint32_t { return (*ctx.symbolOfVariable_)[varIndex]; };
  auto regParam = [&](uint32_t varIndex) {
    const ptx::Variable &v = m.variables[varIndex];
    return v.space == ptx::StateSpace::Reg;
  };
  // Parameters first (a kernel's go to the parameter buffer), then return values, then the body's
  // .local and .param variables.
  if (fn.isEntry) {
    uint64_t cursor = 0;
    for (uint32_t p : src.params) {
      SymbolPlacement pl = place(p, SymbolPlacement::Kind::KernelParam, cursor);
      fn.paramOffsets.push_back(pl.address);
      fn.paramSizes.push_back(m.variables[p].sizeInBytes());
      if (uint32_t s = symbolOf(p); s != kNoSlot)
        ctx.framePlacement_[s] = pl;
    }
    fn.kernelParamBytes = cursor;
  } else {
    for (int pass = 0; pass < 2; ++pass) {
      const auto &list = pass == 0 ? src.params : src.returns;
      for (uint32_t p : list) {
        SymbolPlacement pl;
        if (regParam(p)) {
          uint32_t slot = ctx.scratchSlot();
          pl = {SymbolPlacement::Kind::Register, 0, slot};
        } else {
          pl = place(p, SymbolPlacement::Kind::Frame, offset);
        }
        (pass == 0 ? fn.paramOffsets : fn.returnOffsets)
            .push_back(pl.kind == SymbolPlacement::Kind::Register ? (uint64_t{1} << 63) | pl.slot : pl.address);
        (pass == 0 ? fn.paramSizes : fn.returnSizes).push_back(m.variables[p].sizeInBytes());
        if (uint32_t s = symbolOf(p); s != kNoSlot)
          ctx.framePlacement_[s] = pl;
      }
    }
  }
  for (uint32_t v : src.localVariables) {
    const ptx::Variable &var = m.variables[v];
    if (var.space != ptx::StateSpace::Local && var.space != ptx::StateSpace::Param)
      continue;
    SymbolPlacement pl = place(v, SymbolPlacement::Kind::Frame, offset);
    if (uint32_t s = symbolOf(v); s != kNoSlot)
      ctx.framePlacement_[s] = pl;
  }
  fn.frameAlign = maxAlign;
  fn.frameBytes = ptx::saturatingAlignUp(offset, maxAlign);
}

/// Slots are given to registers as instructions use them (DecodeContext::registerSlot), not as they
/// are declared: a `.reg .b32 %r<4194304>` of which ten are used costs ten slots per thread.
void assignRegisters(DecodeContext &ctx, const ptx::Function &src) {
  ctx.slotOfRegister_.assign(src.registers.size(), kNoSlot);
  ctx.isPred_.resize(src.registers.size());
  for (size_t r = 0; r < src.registers.size(); ++r)
    ctx.isPred_[r] = src.registers[r].type == Mod::pred;
}

struct KernelView {
  const std::unordered_map<uint32_t, SymbolPlacement> *sharedPlacement = nullptr;
  const std::vector<uint32_t> *functionMap = nullptr;
};

void decodeFunction(Program &program, DecodedFunction &fn, const std::vector<SymbolPlacement> &placement,
                    const std::vector<uint32_t> &symbolOfVariable, KernelView kernel = {}) {
  const ptx::Module &m = *program.module;
  const ptx::Function &src = *fn.source;
  DecodeContext ctx(program, fn, placement);
  ctx.symbolOfVariable_ = &symbolOfVariable;
  ctx.kernelPlacement_ = kernel.sharedPlacement;
  ctx.functionMap_ = kernel.functionMap;
  assignRegisters(ctx, src);
  layoutFrame(ctx, fn, src, m);

  const size_t n = src.instructions.size();
  std::vector<uint32_t> firstOp(n + 1, 0);
  struct Fixup {
    uint32_t op;
    uint32_t label;
    bool inExtra;
  };
  std::vector<Fixup> fixups;
  for (uint32_t i = 0; i < n; ++i) {
    const ptx::Instruction &inst = src.instructions[i];
    ctx.inst = &inst;
    ctx.instIndex = i;
    ctx.pending.clear();
    MicroOp op;
    op.instruction = i;
    if (inst.guard != ptx::kNone)
      op.guard = ctx.registerSlot(inst.guard) | (inst.guardNegated ? kGuardNegated : 0);
    if (DecodeFn family = familyOf(inst))
      family(ctx, op);
    else
      ctx.unsupported(op, fmt::format("'{}' is not supported by the ptxray VM", ptx::spelling(inst.opcode)));
    if (!op.exec)
      ctx.unsupported(op,
                      fmt::format("'{}' in this form is not supported by the ptxray VM", ptx::spelling(inst.opcode)));
    firstOp[i] = static_cast<uint32_t>(fn.code.size());
    for (MicroOp pre : ctx.pending) {
      // Operand materialization (special registers, frame addresses) cannot fault, so it runs for
      // every active lane: a shfl reading another lane's copy then sees that lane's value even when
      // the lane's guard is false.
      pre.instruction = i;
      pre.kind = OpKind::Operand;
      fn.code.push_back(pre);
    }
    // Branch targets are label symbols until every instruction has its micro-op index.
    if (op.kind == OpKind::Control && op.target != kNoSlot && (op.flags & 0x80)) {
      fixups.push_back({static_cast<uint32_t>(fn.code.size()), op.target, false});
      op.flags &= 0x7f;
    }
    fn.code.push_back(op);
  }
  firstOp[n] = static_cast<uint32_t>(fn.code.size());
  // A label's symbol index is its statement position; it marks the next instruction.
  std::vector<uint32_t> instructionAtStatement(src.statements.size() + 1, static_cast<uint32_t>(n));
  {
    uint32_t next = static_cast<uint32_t>(n);
    for (size_t s = src.statements.size(); s-- > 0;) {
      if (src.statements[s].kind == ptx::StatementKind::Instruction)
        next = src.statements[s].index;
      instructionAtStatement[s] = next;
    }
  }
  auto labelPc = [&](uint32_t labelSymbol) -> uint32_t {
    if (labelSymbol >= m.symbols.size())
      return kNoSlot;
    const ptx::Symbol &sym = m.symbols[labelSymbol];
    if (sym.kind != ptx::SymbolKind::Label || sym.index >= instructionAtStatement.size())
      return kNoSlot;
    return firstOp[instructionAtStatement[sym.index]];
  };
  for (const Fixup &f : fixups)
    fn.code[f.op].target = labelPc(f.label);
  for (uint32_t at : ctx.extraLabels)
    fn.extra[at] = labelPc(fn.extra[at]);

  // Reconvergence points of branches (computed on the PTX CFG, mapped to micro-ops). A point past
  // the last instruction means function exit.
  std::vector<uint32_t> rpc = reconvergencePoints(m, src);
  for (MicroOp &op : fn.code) {
    if (op.kind != OpKind::Control)
      continue;
    uint32_t r = rpc[op.instruction];
    op.reconverge = (r == ptx::kNone || r >= n || firstOp[r] >= fn.code.size()) ? kNoSlot : firstOp[r];
  }
  fn.decoded = true;
}

} // namespace

void decodeProgram(Program &program, const std::vector<SymbolPlacement> &placement) {
  const ptx::Module &m = *program.module;
  program.functions.resize(m.functions.size());
  program.addressBits = m.pointerBits();
  for (uint32_t i = 0; i < m.functions.size(); ++i) {
    DecodedFunction &fn = program.functions[i];
    const ptx::Function &src = m.functions[i];
    fn.module = &m;
    fn.source = &src;
    fn.index = i;
    fn.name = std::string(src.name);
    fn.isEntry = src.isEntry;
    if (!src.hasBody) {
      if (auto sc = abi::findDriverFunction(src.name, m.pointerBits())) {
        fn.isSystemCall = true;
        fn.systemCall = static_cast<int>(sc->id);
      }
    }
  }
  // Variables know no symbol; frames are laid out per symbol.
  std::vector<uint32_t> symbolOfVariable(m.variables.size(), kNoSlot);
  for (uint32_t s = 0; s < m.symbols.size(); ++s)
    if (m.symbols[s].kind == ptx::SymbolKind::Variable && m.symbols[s].index < m.variables.size())
      symbolOfVariable[m.symbols[s].index] = s;
  // Functions whose code depends on the kernel: they name or declare a shared variable, or call (by
  // name) one that does. Kernel-independent functions are decoded once and shared by every kernel.
  const ptx::SharedLayoutPlanner planner(m);
  const size_t n = m.functions.size();
  std::vector<char> perKernel(n, 0);
  std::vector<std::vector<uint32_t>> callers(n);
  std::vector<uint32_t> work;
  for (uint32_t f = 0; f < n; ++f) {
    for (uint32_t g : planner.namedFunctions(f))
      callers[g].push_back(f);
    if (planner.touchesShared(f)) {
      perKernel[f] = 1;
      work.push_back(f);
    }
  }
  while (!work.empty()) {
    uint32_t g = work.back();
    work.pop_back();
    for (uint32_t f : callers[g])
      if (!perKernel[f]) {
        perKernel[f] = 1;
        work.push_back(f);
      }
  }
  // Each kernel's layout and the copies it needs; all copies exist before any is decoded, so that
  // decoding a call can name its target.
  struct KernelPlan {
    uint32_t kernel;
    std::unordered_map<uint32_t, SymbolPlacement> shared;
    std::vector<uint32_t> copies;
  };
  std::vector<KernelPlan> plans;
  for (uint32_t k = 0; k < n; ++k) {
    if (!m.functions[k].isEntry || !m.functions[k].hasBody)
      continue;
    ptx::SharedLayout layout = planner.layout(k);
    KernelPlan plan{k, {}, {}};
    DecodedFunction &kernel = program.functions[k];
    kernel.staticSharedBytes = layout.staticBytes;
    kernel.stackSizeIsStatic = planner.stackSizeIsStatic(k);
    kernel.functionMap.resize(n);
    for (uint32_t f = 0; f < n; ++f)
      kernel.functionMap[f] = f;
    for (const ptx::SharedSlot &slot : layout.slots) {
      plan.shared[slot.symbol] = {SymbolPlacement::Kind::Shared, slot.offset, kNoSlot};
      kernel.sharedSlots.push_back({std::string(m.symbols[slot.symbol].name), slot.offset, slot.size, slot.dynamic});
    }
    for (uint32_t f : layout.functions) {
      if (f == k || !perKernel[f] || !m.functions[f].hasBody)
        continue;
      plan.copies.push_back(f);
    }
    plans.push_back(std::move(plan));
  }
  // Assign indices to the copies, then create them.
  size_t next = program.functions.size();
  for (KernelPlan &plan : plans) {
    for (uint32_t f : plan.copies)
      program.functions[plan.kernel].functionMap[f] = static_cast<uint32_t>(next++);
  }
  program.functions.resize(next);
  for (KernelPlan &plan : plans) {
    const std::vector<uint32_t> &map = program.functions[plan.kernel].functionMap;
    for (uint32_t f : plan.copies) {
      DecodedFunction &copy = program.functions[map[f]];
      const DecodedFunction &original = program.functions[f];
      copy.module = original.module;
      copy.source = original.source;
      copy.index = original.index;
      copy.name = original.name;
    }
  }
  for (uint32_t f = 0; f < n; ++f)
    if (program.functions[f].source->hasBody && !program.functions[f].isEntry)
      decodeFunction(program, program.functions[f], placement, symbolOfVariable);
  for (KernelPlan &plan : plans) {
    const std::vector<uint32_t> *map = &program.functions[plan.kernel].functionMap;
    KernelView view{&plan.shared, map};
    decodeFunction(program, program.functions[plan.kernel], placement, symbolOfVariable, view);
    for (uint32_t f : plan.copies)
      decodeFunction(program, program.functions[(*map)[f]], placement, symbolOfVariable, view);
  }
}

std::string_view unsupportedMessage(const Program &program, int64_t index) {
  if (index < 0 || static_cast<size_t>(index) >= program.messages.size())
    return "unsupported instruction";
  return program.messages[static_cast<size_t>(index)];
}

const DecodedFunction *Program::findFunction(std::string_view name) const {
  for (const DecodedFunction &f : functions)
    if (f.name == name)
      return &f;
  // A demangled name, with or without its parameter list.
  for (const DecodedFunction &f : functions) {
    std::string d = ptx::demangle(f.name);
    if (d == name)
      return &f;
    auto paren = d.find('(');
    if (paren != std::string::npos && std::string_view(d).substr(0, paren) == name)
      return &f;
  }
  return nullptr;
}

} // namespace ptxray::vm
