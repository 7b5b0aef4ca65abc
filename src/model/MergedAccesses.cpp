#include "model/MergedAccesses.h"

#include "model/InstructionClass.h"
#include "ptx/ControlFlowGraph.h"
#include "ptx/Isa.h"
#include "ptx/SharedLayout.h"

#include <algorithm>
#include <bit>
#include <span>

namespace ptxray::model {
namespace {

using ptx::Opcode;
using ptx::OperandKind;

constexpr uint8_t kAllBits = 64;

uint8_t zeroBitsOf(int64_t value) {
  return value == 0 ? kAllBits : static_cast<uint8_t>(std::countr_zero(static_cast<uint64_t>(value)));
}

uint8_t sum(uint8_t a, uint8_t b) {
  return static_cast<uint8_t>(std::min<int>(a + b, kAllBits));
}

/// The known zero low bits of the address of each symbol the function names: shared variables of a
/// kernel where ptxas places them, anything else at its declared (or natural) alignment.
class SymbolAlignment {
public:
  SymbolAlignment(const ptx::Module &m, const ptx::Function &fn) : m_(m) {
    const auto index = static_cast<size_t>(&fn - m.functions.data());
    if (fn.isEntry && index < m.functions.size()) {
      const ptx::SharedLayout layout = ptx::layoutSharedMemory(m, static_cast<uint32_t>(index));
      for (const ptx::SharedSlot &s : layout.slots)
        placed_.push_back({s.symbol, zeroBitsOf(static_cast<int64_t>(s.offset))});
    }
  }

  uint8_t bits(uint32_t symbol, int64_t offset) const {
    if (symbol >= m_.symbols.size() || m_.symbols[symbol].kind != ptx::SymbolKind::Variable)
      return 0;
    uint8_t base = 0;
    auto it = std::find_if(placed_.begin(), placed_.end(), [&](const auto &p) { return p.first == symbol; });
    if (it != placed_.end())
      base = it->second;
    else if (const uint32_t v = m_.symbols[symbol].index; v < m_.variables.size()) {
      const ptx::Variable &var = m_.variables[v];
      base = zeroBitsOf(var.align ? var.align : std::max<uint32_t>(var.naturalAlign(), 1));
    }
    return std::min(base, zeroBitsOf(offset));
  }

private:
  const ptx::Module &m_;
  std::vector<std::pair<uint32_t, uint8_t>> placed_;
};

bool isIntegerType(ptx::Mod type) {
  const ptx::TypeKind k = ptx::typeInfo(type).kind;
  return k == ptx::TypeKind::Bits || k == ptx::TypeKind::Unsigned || k == ptx::TypeKind::Signed;
}

std::vector<uint8_t> zeroLowBits(const ptx::Function &fn, const SymbolAlignment &symbols) {
  std::vector<uint8_t> bits(fn.registers.size(), kAllBits);
  auto of = [&](const ptx::Operand &o) -> uint8_t {
    switch (o.kind) {
    case OperandKind::Register: return o.id < bits.size() ? bits[o.id] : 0;
    case OperandKind::Immediate: return zeroBitsOf(o.value);
    case OperandKind::Symbol: return symbols.bits(o.id, o.value);
    default: return 0;
    }
  };
  // What one definition makes of its operands' bits (0: nothing known).
  auto transfer = [&](const ptx::Instruction &inst, std::span<const ptx::Operand> ops) -> uint8_t {
    if (ops.size() < 2 || !isIntegerType(inst.type(0)))
      return 0;
    const bool high = inst.has(ptx::Mod::hi);
    switch (inst.opcode) {
    case Opcode::mov:
    case Opcode::cvta: return of(ops[1]);
    case Opcode::cvt: return isIntegerType(inst.type(1)) ? of(ops[1]) : 0;
    case Opcode::add:
    case Opcode::sub:
    case Opcode::or_:
    case Opcode::xor_: return ops.size() >= 3 ? std::min(of(ops[1]), of(ops[2])) : 0;
    case Opcode::and_: return ops.size() >= 3 ? std::max(of(ops[1]), of(ops[2])) : 0;
    case Opcode::mul: return ops.size() >= 3 && !high ? sum(of(ops[1]), of(ops[2])) : 0;
    case Opcode::mad: return ops.size() >= 4 && !high ? std::min(sum(of(ops[1]), of(ops[2])), of(ops[3])) : 0;
    case Opcode::shl:
      return ops.size() >= 3 ? (ops[2].kind == OperandKind::Immediate && ops[2].value >= 0 && ops[2].value < 64
                                    ? sum(of(ops[1]), static_cast<uint8_t>(ops[2].value))
                                    : of(ops[1]))
                             : 0;
    case Opcode::selp: return ops.size() >= 3 ? std::min(of(ops[1]), of(ops[2])) : 0;
    default: return 0;
    }
  };
  // Every definition lowers its register to what it makes; from "all bits zero", to a fixed point
  // (each pass lowers some register; 64 levels each bound the passes).
  // The registers each instruction writes (ptx::registerAccess), once.
  std::vector<std::vector<uint32_t>> writes(fn.instructions.size());
  for (size_t i = 0; i < fn.instructions.size(); ++i)
    writes[i] = ptx::registerAccess(fn, fn.instructions[i]).defs;
  std::vector<bool> defined(bits.size(), false);
  for (int pass = 0; pass < kAllBits + 1; ++pass) {
    bool changed = false;
    for (size_t i = 0; i < fn.instructions.size(); ++i) {
      const std::vector<uint32_t> &written = writes[i];
      if (written.empty())
        continue;
      const ptx::Instruction &inst = fn.instructions[i];
      const std::span<const ptx::Operand> ops = fn.operandsOf(inst);
      const uint8_t made =
          written.size() == 1 && !ops.empty() && ops[0].kind == OperandKind::Register ? transfer(inst, ops) : 0;
      for (uint32_t r : written)
        if (r < bits.size() && pass == 0)
          defined[r] = true;
      for (uint32_t r : written)
        if (r < bits.size() && made < bits[r]) {
          bits[r] = made;
          changed = true;
        }
    }
    if (!changed)
      break;
  }
  // A register nothing defines holds whatever it held: nothing is known.
  for (size_t r = 0; r < bits.size(); ++r)
    if (!defined[r])
      bits[r] = 0;
  return bits;
}

/// A scalar shared-memory access that could join a vector: where its address comes from and what
/// must match for two of them to merge.
struct Candidate {
  uint32_t instruction = 0;
  bool store = false;
  OperandKind baseKind = OperandKind::Register; ///< a register or a symbol
  uint32_t base = 0;
  uint32_t guard = ptx::kNone;
  bool guardNegated = false;
  uint8_t elementBytes = 0;
  uint8_t baseBits = 0; ///< known zero low bits of the base
  int64_t offset = 0;
  bool taken = false;

  bool sameGroupKey(const Candidate &o) const {
    return store == o.store && baseKind == o.baseKind && base == o.base && guard == o.guard &&
           guardNegated == o.guardNegated && elementBytes == o.elementBytes;
  }
};

/// Groups of `count` candidates (one key, sorted by offset) whose offsets tile an aligned span.
void formGroups(std::vector<Candidate *> &same, int widestBytes, std::vector<MergedAccess> &out) {
  std::sort(same.begin(), same.end(), [](const Candidate *a, const Candidate *b) {
    return a->offset != b->offset ? a->offset < b->offset : a->instruction < b->instruction;
  });
  const int element = same.front()->elementBytes;
  for (int span = std::min(widestBytes, 16); span > element; span /= 2) {
    const size_t count = static_cast<size_t>(span / element);
    const int alignBits = std::countr_zero(static_cast<unsigned>(span));
    for (size_t i = 0; i + count <= same.size(); ++i) {
      Candidate *first = same[i];
      if (first->taken || std::min<int>(first->baseBits, zeroBitsOf(first->offset)) < alignBits)
        continue;
      // The next count - 1 distinct offsets must follow word by word (a repeated offset is a second
      // read of the same word: left as it is).
      std::vector<Candidate *> group{first};
      for (size_t j = i + 1; j < same.size() && group.size() < count; ++j) {
        if (same[j]->taken || same[j]->offset == group.back()->offset)
          continue;
        if (same[j]->offset != group.back()->offset + element)
          break;
        group.push_back(same[j]);
      }
      if (group.size() != count)
        continue;
      const Candidate *leader =
          *std::min_element(group.begin(), group.end(),
                            [](const Candidate *a, const Candidate *b) { return a->instruction < b->instruction; });
      for (Candidate *c : group) {
        c->taken = true;
        MergedAccess &m = out[c->instruction];
        if (c == leader)
          m = {MergedRole::First, static_cast<uint8_t>(span), static_cast<int8_t>(first->offset - c->offset)};
        else
          m = {MergedRole::Merged, 0, 0};
      }
    }
  }
}

} // namespace

std::vector<uint8_t> knownZeroLowBits(const ptx::Module &module, const ptx::Function &function) {
  return zeroLowBits(function, SymbolAlignment(module, function));
}

std::vector<MergedAccess> mergedSharedAccesses(const ptx::Module &module, const ptx::Function &fn, int widestBytes) {
  std::vector<MergedAccess> out(fn.instructions.size());
  if (widestBytes < 8)
    return out;
  auto sharedScalar = [&](const ptx::Instruction &inst) {
    return (inst.opcode == Opcode::ld || inst.opcode == Opcode::st) && inst.space == ptx::StateSpace::Shared &&
           inst.vectorWidth == 1 && !inst.isVolatile && inst.semantics == ptx::Mod::None;
  };
  if (std::none_of(fn.instructions.begin(), fn.instructions.end(), sharedScalar))
    return out;
  const SymbolAlignment symbols(module, fn);
  const std::vector<uint8_t> bits = zeroLowBits(fn, symbols);

  std::vector<Candidate> open; // candidates of the current stretch of code
  // Ends the candidates `ends` selects: groups form among them.
  auto close = [&](auto &&ends) {
    std::vector<Candidate *> selected;
    for (Candidate &c : open)
      if (ends(c))
        selected.push_back(&c);
    std::vector<Candidate *> same;
    for (size_t i = 0; i < selected.size(); ++i) {
      if (!selected[i])
        continue;
      same.clear();
      for (size_t j = i; j < selected.size(); ++j)
        if (selected[j] && selected[j]->sameGroupKey(*selected[i])) {
          same.push_back(selected[j]);
          if (j != i)
            selected[j] = nullptr;
        }
      if (same.size() >= 2)
        formGroups(same, widestBytes, out);
    }
    std::erase_if(open, ends);
  };
  auto all = [](const Candidate &) { return true; };

  for (const ptx::Statement &s : fn.statements) {
    if (s.kind == ptx::StatementKind::Label) {
      close(all); // a join: the block ends
      continue;
    }
    if (s.kind != ptx::StatementKind::Instruction || s.index >= fn.instructions.size())
      continue;
    const uint32_t i = s.index;
    const ptx::Instruction &inst = fn.instructions[i];
    const std::span<const ptx::Operand> ops = fn.operandsOf(inst);
    // A branch, call, return or exit ends the block; a barrier or fence orders the accesses around it.
    if (const InstructionClass cls = classify(inst);
        cls == InstructionClass::Control || cls == InstructionClass::Barrier) {
      close(all);
      continue;
    }
    const bool sharedSpace = inst.space == ptx::StateSpace::Shared || inst.space == ptx::StateSpace::None;
    const bool memory = inst.opcode == Opcode::ld || inst.opcode == Opcode::st || inst.opcode == Opcode::atom ||
                        inst.opcode == Opcode::red || inst.opcode == Opcode::ldu || inst.opcode == Opcode::cp;
    if (memory && sharedSpace) {
      // An access of the opposite kind (or an atomic, or a generic access) may alias: the groups
      // before it end there.
      const bool load = inst.opcode == Opcode::ld || inst.opcode == Opcode::ldu;
      const bool store = inst.opcode == Opcode::st;
      const bool mergeable = sharedScalar(inst);
      const bool generic = inst.space == ptx::StateSpace::None;
      if (generic || (!load && !store) || (store && !mergeable))
        close(all);
      else
        close([&](const Candidate &c) { return load ? c.store : !c.store; });
      const int bytes = ptx::typeInfo(inst.type(0)).bits / 8;
      const ptx::Operand *address = nullptr;
      for (const ptx::Operand &o : ops)
        if (o.kind == OperandKind::Address)
          address = &o;
      if (mergeable && (bytes == 4 || bytes == 8) && address && address->count == 1) {
        const ptx::Operand &b = fn.operands[address->first];
        if (b.kind == OperandKind::Register || b.kind == OperandKind::Symbol) {
          Candidate c;
          c.instruction = i;
          c.store = store;
          c.baseKind = b.kind;
          c.base = b.id;
          c.guard = inst.guard;
          c.guardNegated = inst.guardNegated;
          c.elementBytes = static_cast<uint8_t>(bytes);
          c.baseBits = b.kind == OperandKind::Register ? (b.id < bits.size() ? bits[b.id] : 0) : symbols.bits(b.id, 0);
          c.offset = b.value;
          open.push_back(c);
        }
      }
    }
    // A register written ends the candidates whose base or guard it is (after the instruction
    // itself joined: its address was read before its result is written).
    for (uint32_t r : ptx::registerAccess(fn, inst).defs)
      close([&](const Candidate &c) { return (c.baseKind == OperandKind::Register && c.base == r) || c.guard == r; });
  }
  close(all);
  return out;
}

} // namespace ptxray::model
