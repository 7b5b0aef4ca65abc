#include "ptx/Verifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace ptxray::ptx {
namespace {

std::string versionText(uint32_t v) {
  return fmt::format("{}.{}", v / 10, v % 10);
}

/// Instructions of the architecture-accelerated feature sets (PTX ISA, `.target`: sm_90a adds
/// wgmma and setmaxnreg; tcgen05 belongs to sm_100a/sm_100f).
bool needsArchSpecificTarget(Opcode op) {
  return op == Opcode::wgmma || op == Opcode::setmaxnreg || op == Opcode::tcgen05;
}

/// Whether a register of type `reg` may be the operand of an instruction of type `inst`
/// (PTX ISA, "Operand type checking"). `relaxed` applies the widening rules of ld/st/cvt.
bool typeCompatible(Mod inst, Mod reg, bool relaxed) {
  TypeInfo it = typeInfo(inst), rt = typeInfo(reg);
  if (it.kind == TypeKind::None || rt.kind == TypeKind::None)
    return true;
  if (it.kind == TypeKind::Pred || rt.kind == TypeKind::Pred)
    return it.kind == rt.kind;
  if (it.kind == TypeKind::Opaque || rt.kind == TypeKind::Opaque)
    return true;
  bool sameSize = it.bits == rt.bits;
  bool wider = rt.bits >= it.bits;
  switch (it.kind) {
  case TypeKind::Bits: return sameSize || (relaxed && wider);
  case TypeKind::Signed:
  case TypeKind::Unsigned:
    if (rt.kind == TypeKind::Float)
      return sameSize && relaxed;
    return sameSize || (relaxed && wider);
  case TypeKind::Float:
    if (relaxed && it.bits == 16)
      return wider; // f16 values live in .b16 or wider .b32 registers
    return sameSize && (rt.kind == TypeKind::Float || rt.kind == TypeKind::Bits);
  default: return true;
  }
}

Mod doubleWidth(Mod t) {
  TypeInfo ti = typeInfo(t);
  if (ti.bits == 16)
    return ti.kind == TypeKind::Signed ? Mod::s32 : ti.kind == TypeKind::Unsigned ? Mod::u32 : Mod::b32;
  if (ti.bits == 32)
    return ti.kind == TypeKind::Signed ? Mod::s64 : ti.kind == TypeKind::Unsigned ? Mod::u64 : Mod::b64;
  return t;
}

class Verifier {
public:
  Verifier(const Module &m, Diagnostics &d) : m_(m), diags_(d) {}

  void run() {
    if (m_.versionMajor == 0)
      return;
    verifyTarget();
    for (const Function &fn : m_.functions)
      verifyFunction(fn);
    for (const Function &fn : m_.functions)
      for (uint32_t line : fn.locs) {
        const LineEntry &e = m_.lines[line];
        if (e.hasInlinedAt || e.functionName != kNone)
          requireIsa(e.loc, [] { return std::string(".loc with function_name and inlined_at"); }, {72, 0});
      }
    for (const Function &fn : m_.functions)
      for (uint32_t line : fn.locs)
        if (!m_.findFile(m_.lines[line].file))
          error(m_.lines[line].loc,
                fmt::format(".loc refers to file {} which no .file directive declares", m_.lines[line].file));
    for (size_t i = 0; i < m_.variables.size(); ++i)
      verifyVariable(m_.variables[i]);
  }

private:
  void error(SourceLoc loc, std::string msg) { diags_.error(loc, std::move(msg)); }
  /// Where an operand was written: operand-level problems point there, not at the opcode.
  static SourceLoc locOf(const Instruction &inst, const Operand &op) { return {inst.loc.file, op.sourceOffset, 1}; }

  /// `describe` names the feature; it is only called when there is an error to report.
  template <typename Describe> void requireIsa(SourceLoc loc, Describe &&describe, IsaRequirement req) {
    if (req.minPtx != 0 && m_.ptxVersion() < req.minPtx)
      error(loc, fmt::format("{} requires PTX ISA {} or later (module is {})", describe(), versionText(req.minPtx),
                             versionText(m_.ptxVersion())));
    if (req.minSm != 0 && m_.target.sm != 0 && m_.target.sm < req.minSm)
      error(loc, fmt::format("{} requires sm_{} or higher (target is sm_{})", describe(), req.minSm, m_.target.sm));
  }

  void verifyTarget() {
    const Target &t = m_.target;
    if (t.sm != 0)
      if (auto minPtx = targetMinPtx(t.sm, t.smSuffix))
        requireIsa(t.loc,
                   [&] { return fmt::format("target sm_{}{}", t.sm, t.smSuffix ? std::string(1, t.smSuffix) : ""); },
                   {*minPtx, 0});
    if (t.debug)
      requireIsa(t.loc, [] { return std::string("target option 'debug'"); }, {30, 0});
    for (std::string_view name : t.names)
      if (name.starts_with("texmode_"))
        requireIsa(t.loc, [&] { return fmt::format("target option '{}'", name); }, {15, 0});
  }

  /// Initializers may not hold more elements than the dimension they initialize, at every level
  /// of braces (`{{1,2,3}}` overflows `[2][2]` in its inner braces).
  void verifyVariable(const Variable &var) {
    if (var.init.empty() || var.dims.empty() || var.init.front().kind != InitItem::Kind::Open)
      return;
    std::vector<uint64_t> counts; // items seen in each open brace level
    bool reported = false;
    for (const InitItem &item : var.init) {
      if (item.kind == InitItem::Kind::Property)
        return; // sampler/texture properties, not array elements
      if (item.kind == InitItem::Kind::Close) {
        size_t level = counts.size() - 1;
        uint64_t limit = level < var.dims.size() ? var.dims[level] : 1;
        if (!reported && limit != 0 && counts.back() > limit) {
          error(var.loc, fmt::format("too many initializers: {} for an array of {}", counts.back(), limit));
          reported = true;
        }
        counts.pop_back();
        continue;
      }
      if (!counts.empty())
        ++counts.back();
      if (item.kind == InitItem::Kind::Open)
        counts.push_back(0);
    }
  }

  void checkRegisterType(const Function &fn, const Instruction &inst, const Operand &op, Mod want, bool relaxed,
                         int position) {
    if (want == Mod::None)
      return;
    if (op.kind == OperandKind::Vector || op.kind == OperandKind::Pair || op.kind == OperandKind::List) {
      for (const Operand &child : fn.children(op))
        checkRegisterType(fn, inst, child, want, relaxed, position);
      return;
    }
    if (op.kind == OperandKind::Float32 || op.kind == OperandKind::Float64) {
      TypeKind k = typeInfo(want).kind;
      if (k == TypeKind::Signed || k == TypeKind::Unsigned || k == TypeKind::Pred)
        error(locOf(inst, op), fmt::format("operand {} of '{}': floating-point immediate for an integer type {}",
                                           position, spelling(inst.opcode), spelling(want)));
      return;
    }
    if (op.kind != OperandKind::Register || op.selector != 0)
      return;
    const Register &reg = fn.registers[op.id];
    if (reg.vectorWidth != 1)
      return;
    if (!typeCompatible(want, reg.type, relaxed))
      error(locOf(inst, op),
            fmt::format("operand {} of '{}': register '{}' of type {} does not match instruction type {}", position,
                        spelling(inst.opcode), reg.displayName(), spelling(reg.type), spelling(want)));
  }

  void checkOperandTypes(const Function &fn, const Instruction &inst, std::span<const Operand> ops) {
    Mod t = inst.type(0);
    if (t == Mod::None)
      return;
    auto check = [&](size_t i, Mod want, bool relaxed = false) {
      if (i < ops.size())
        checkRegisterType(fn, inst, ops[i], want, relaxed, static_cast<int>(i) + 1);
    };
    auto uniform = [&](size_t count) {
      for (size_t i = 0; i < count && i < ops.size(); ++i)
        check(i, t);
    };
    bool wide = inst.has(Mod::wide);
    switch (inst.opcode) {
    case Opcode::add:
    case Opcode::sub:
    case Opcode::min:
    case Opcode::max:
    case Opcode::div:
    case Opcode::rem:
    case Opcode::and_:
    case Opcode::or_:
    case Opcode::xor_:
    case Opcode::copysign:
      if (inst.numTypes == 1)
        uniform(3);
      break;
    case Opcode::mul:
      if (inst.numTypes != 1)
        break;
      check(0, wide ? doubleWidth(t) : t);
      check(1, t);
      check(2, t);
      break;
    case Opcode::mad:
      if (inst.numTypes != 1)
        break;
      check(0, wide ? doubleWidth(t) : t);
      check(1, t);
      check(2, t);
      check(3, wide ? doubleWidth(t) : t);
      break;
    case Opcode::fma:
    case Opcode::mul24:
    case Opcode::mad24:
    case Opcode::sad:
      if (inst.numTypes == 1)
        uniform(inst.opcode == Opcode::mul24 ? 3 : 4);
      break;
    case Opcode::abs:
    case Opcode::neg:
    case Opcode::not_:
    case Opcode::cnot:
    case Opcode::sqrt:
    case Opcode::rcp:
    case Opcode::rsqrt:
    case Opcode::sin:
    case Opcode::cos:
    case Opcode::lg2:
    case Opcode::ex2:
    case Opcode::brev:
      if (inst.numTypes == 1)
        uniform(2);
      break;
    case Opcode::shl:
    case Opcode::shr:
      check(0, t);
      check(1, t);
      check(2, Mod::u32);
      break;
    case Opcode::popc:
    case Opcode::clz:
      check(0, Mod::u32);
      check(1, t);
      break;
    case Opcode::bfe:
      check(0, t);
      check(1, t);
      check(2, Mod::u32);
      check(3, Mod::u32);
      break;
    case Opcode::bfi:
      check(0, t);
      check(1, t);
      check(2, t);
      check(3, Mod::u32);
      check(4, Mod::u32);
      break;
    case Opcode::setp:
      if (inst.numTypes != 1)
        break;
      check(0, Mod::pred);
      check(1, t);
      check(2, t);
      check(3, Mod::pred);
      break;
    case Opcode::selp:
      check(0, t);
      check(1, t);
      check(2, t);
      check(3, Mod::pred);
      break;
    case Opcode::mov:
      if (ops.size() == 2 && ops[1].kind != OperandKind::Vector && ops[0].kind != OperandKind::Vector &&
          ops[1].kind != OperandKind::SpecialReg)
        uniform(2);
      break;
    case Opcode::cvt:
      if (inst.numTypes == 2) {
        check(0, inst.types[0], true);
        check(1, inst.types[1], true);
      }
      break;
    case Opcode::ld:
    case Opcode::ldu:
      if (inst.numTypes == 1)
        check(0, t, true);
      break;
    case Opcode::st:
      if (inst.numTypes == 1)
        check(1, t, true);
      break;
    default: break;
    }
  }

  void checkAddressSize(const Function &fn, const Instruction &inst, std::span<const Operand> ops) {
    if (!m_.hasAddressSize)
      return;
    uint32_t bits = m_.pointerBits();
    bool memory = inst.opcode == Opcode::ld || inst.opcode == Opcode::st || inst.opcode == Opcode::atom ||
                  inst.opcode == Opcode::red || inst.opcode == Opcode::ldu || inst.opcode == Opcode::prefetch;
    if (memory && (inst.space == StateSpace::Global || inst.space == StateSpace::None)) {
      for (const Operand &op : ops) {
        if (op.kind != OperandKind::Address || op.count == 0)
          continue;
        const Operand &base = fn.operands[op.first];
        if (base.kind != OperandKind::Register)
          continue;
        const Register &reg = fn.registers[base.id];
        uint16_t regBits = typeInfo(reg.type).bits;
        // ptxas warns here (and then falls back to 32-bit addressing), so this is a warning too.
        if (regBits != 0 && regBits != bits)
          diags_.warning(locOf(inst, base),
                         fmt::format("{}-bit address register '{}' in a module with .address_size {}", regBits,
                                     reg.displayName(), bits));
      }
    }
    if (inst.opcode == Opcode::cvta || inst.opcode == Opcode::isspacep) {
      Mod t = inst.type(0);
      if (t != Mod::None && typeInfo(t).bits != bits &&
          !(bits == 64 && inst.space == StateSpace::Shared && typeInfo(t).bits == 32))
        error(inst.loc,
              fmt::format("'{}{}' does not match .address_size {}", spelling(inst.opcode), spelling(t), bits));
    }
  }

  void checkTargets(const Function &fn, const Instruction &inst, std::span<const Operand> ops) {
    // Unresolved names were reported by the parser; there is nothing more to say about them.
    for (const Operand &op : ops)
      if (op.kind == OperandKind::Symbol && op.id == kNone)
        return;
    auto symbolKind = [&](const Operand &op) { return m_.symbols[op.id].kind; };
    if (inst.opcode == Opcode::bra && !ops.empty()) {
      const Operand &t = ops[0];
      if (t.kind != OperandKind::Symbol || symbolKind(t) != SymbolKind::Label)
        error(inst.loc, "branch target must be a label");
      else if (m_.symbols[t.id].function != kNone && &m_.functions[m_.symbols[t.id].function] != &fn)
        error(inst.loc, "branch target is a label of another function");
    }
    if (inst.opcode == Opcode::call) {
      size_t i = 0;
      if (i < ops.size() && ops[i].kind == OperandKind::List)
        ++i;
      if (i >= ops.size()) {
        error(inst.loc, "call needs a target");
        return;
      }
      const Operand &target = ops[i];
      if (target.kind == OperandKind::Symbol) {
        if (symbolKind(target) != SymbolKind::Function)
          error(inst.loc, fmt::format("call target '{}' is not a function", m_.symbols[target.id].name));
      } else if (target.kind != OperandKind::Register) {
        error(inst.loc, "call target must be a function or a register");
      } else {
        // Indirect calls name a .callprototype or .calltargets as their last operand.
        const Operand &last = ops.back();
        if (&last == &target || last.kind != OperandKind::Symbol ||
            (symbolKind(last) != SymbolKind::Prototype && symbolKind(last) != SymbolKind::CallTargets))
          error(inst.loc, "indirect call needs a .callprototype or .calltargets operand");
      }
      if (m_.ptxVersion() < 20)
        error(inst.loc, "function calls with parameters require PTX ISA 2.0 or later");
    }
  }

  void verifyInstruction(const Function &fn, const Instruction &inst) {
    auto ops = fn.operandsOf(inst);
    std::string_view name = spelling(inst.opcode);
    requireIsa(
        inst.loc, [&] { return fmt::format("'{}'", name); }, requirement(inst.opcode));
    for (int i = 0; i < inst.numMods; ++i)
      if (auto req = featureRequirement(inst.opcode, inst.mods[i]))
        requireIsa(
            inst.loc, [&] { return fmt::format("'{}{}'", name, spelling(inst.mods[i])); }, *req);
    if (inst.opcode != Opcode::call) {
      int n = static_cast<int>(ops.size());
      int lo = minOperands(inst.opcode), hi = maxOperands(inst.opcode);
      if (n < lo || n > hi)
        error(inst.loc, lo == hi ? fmt::format("'{}' takes {} operand{}, found {}", name, lo, lo == 1 ? "" : "s", n)
                                 : fmt::format("'{}' takes {} to {} operands, found {}", name, lo, hi, n));
    }
    if (needsArchSpecificTarget(inst.opcode) && m_.target.sm != 0 && m_.target.smSuffix == 0)
      error(inst.loc, fmt::format("'{}' requires an architecture-specific target such as sm_{}a", name,
                                  std::max<uint32_t>(m_.target.sm, requirement(inst.opcode).minSm)));
    if (inst.opcode == Opcode::setp || inst.opcode == Opcode::set) {
      // The optional fourth operand is the predicate combined by .and/.or/.xor, and only then.
      size_t expected = inst.boolOp != Mod::None ? 4 : 3;
      if (ops.size() != expected)
        error(inst.loc,
              inst.boolOp != Mod::None
                  ? fmt::format("'{}{}' needs a fourth operand, the predicate it combines", name, spelling(inst.boolOp))
                  : fmt::format("'{}' takes a fourth operand only with .and, .or or .xor", name));
    }
    for (const Operand &op : ops)
      verifyOperand(fn, inst, op);
    checkOperandTypes(fn, inst, ops);
    checkAddressSize(fn, inst, ops);
    checkTargets(fn, inst, ops);
  }

  void verifyOperand(const Function &fn, const Instruction &inst, const Operand &op) {
    switch (op.kind) {
    case OperandKind::SpecialReg: {
      auto sreg = static_cast<SpecialReg>(op.id);
      requireIsa(
          inst.loc, [&] { return fmt::format("'{}'", spelling(sreg)); }, requirement(sreg));
      // `%tid` alone is a 4-vector: only a vector move may read it whole.
      if (specialRegIsVector(sreg) && op.selector == 0 && inst.vectorWidth == 1)
        error(locOf(inst, op), fmt::format("special register '{}' needs a component (.x, .y or .z)", spelling(sreg)));
      break;
    }
    case OperandKind::Symbol:
      if (op.id != kNone && m_.symbols[op.id].kind == SymbolKind::Label && inst.opcode != Opcode::bra &&
          inst.opcode != Opcode::brx)
        error(locOf(inst, op),
              fmt::format("label '{}' used as a value; only branches take labels", m_.symbols[op.id].name));
      break;
    case OperandKind::Address:
    case OperandKind::Vector:
    case OperandKind::List:
    case OperandKind::Pair:
      for (const Operand &child : fn.children(op))
        verifyOperand(fn, inst, child);
      break;
    default: break;
    }
  }

  void verifyFunction(const Function &fn) {
    if (fn.isEntry && !fn.returns.empty())
      error(fn.returnListLoc, "a kernel (.entry) cannot return values");
    if (fn.isEntry)
      verifyParameterSpace(fn);
    for (const Instruction &inst : fn.instructions)
      verifyInstruction(fn, inst);
  }

  /// A kernel's parameters fit the PTX ISA's parameter space (PTX ISA, ".entry": 32764 bytes from
  /// 8.1, 4352 from 1.5, 256 before), laid out as the launch lays them out.
  void verifyParameterSpace(const Function &fn) {
    const uint32_t version = m_.ptxVersion();
    const uint64_t limit = version >= 81 ? 32764 : version >= 15 ? 4352 : 256;
    uint64_t bytes = 0;
    for (uint32_t p : fn.params) {
      const Variable &v = m_.variables[p];
      const uint64_t align = v.align ? v.align : std::max<uint32_t>(v.naturalAlign(), 1);
      bytes = saturatingAdd(saturatingAlignUp(bytes, align), v.sizeInBytes());
    }
    if (bytes > limit)
      error(fn.loc, fmt::format("kernel '{}' has {} bytes of parameters, more than PTX ISA {} allows ({} bytes)",
                                fn.name, bytes == UINT64_MAX ? std::string("over 2^64") : std::to_string(bytes),
                                versionText(version), limit));
  }

  const Module &m_;
  Diagnostics &diags_;
};

} // namespace

void verifyModule(const Module &module, Diagnostics &diags) {
  Verifier(module, diags).run();
}

std::vector<FeatureBeyondTarget> featuresBeyond(const Module &module, uint32_t sm) {
  std::vector<FeatureBeyondTarget> out;
  auto note = [&](std::string feature, uint16_t minSm, SourceLoc loc) {
    for (const FeatureBeyondTarget &f : out)
      if (f.feature == feature)
        return;
    out.push_back({std::move(feature), minSm, loc});
  };
  for (const Function &fn : module.functions)
    for (const Instruction &inst : fn.instructions) {
      const std::string_view name = spelling(inst.opcode);
      if (const IsaRequirement req = requirement(inst.opcode); req.minSm > sm)
        note(fmt::format("'{}'", name), req.minSm, inst.loc);
      for (int i = 0; i < inst.numMods; ++i)
        if (auto req = featureRequirement(inst.opcode, inst.mods[i]); req && req->minSm > sm)
          note(fmt::format("'{}{}'", name, spelling(inst.mods[i])), req->minSm, inst.loc);
    }
  std::stable_sort(out.begin(), out.end(), [](const FeatureBeyondTarget &a, const FeatureBeyondTarget &b) {
    return std::pair(a.firstUse.file, a.firstUse.offset) < std::pair(b.firstUse.file, b.firstUse.offset);
  });
  return out;
}

} // namespace ptxray::ptx
