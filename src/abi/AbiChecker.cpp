#include "abi/AbiChecker.h"

#include "abi/SystemCalls.h"

#include "ptx/ControlFlowGraph.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_map>
#include <utility>

namespace ptxray::abi {

using ptx::Function;
using ptx::Instruction;
using ptx::kNone;
using ptx::Mod;
using ptx::Module;
using ptx::Opcode;
using ptx::Operand;
using ptx::OperandKind;
using ptx::StateSpace;
using ptx::SymbolKind;
using PtxTypeKind = ptx::TypeKind; // abi::TypeKind is the C side's
using ptx::Variable;

std::string_view ruleSection(AbiRule rule) {
  switch (rule) {
  case AbiRule::NarrowInteger: return "§2.3 note A";
  case AbiRule::PointerNotGeneric: return "§2.3 note B";
  case AbiRule::HalfFloat: return "§2.3 note C";
  case AbiRule::AggregateAlignment: return "§2.3 note D";
  case AbiRule::CallMismatch: return "§2.3";
  case AbiRule::SystemCallPrototype: return "§3";
  case AbiRule::PtxVersion: return "§2";
  case AbiRule::AddressSizeMismatch: return "§1.1";
  case AbiRule::UnresolvedExtern: return "§3";
  }
  return "";
}

std::string_view ruleName(AbiRule rule) {
  switch (rule) {
  case AbiRule::NarrowInteger: return "narrow-integer";
  case AbiRule::PointerNotGeneric: return "pointer-not-generic";
  case AbiRule::HalfFloat: return "half-float";
  case AbiRule::AggregateAlignment: return "aggregate-alignment";
  case AbiRule::CallMismatch: return "call-mismatch";
  case AbiRule::SystemCallPrototype: return "system-call-prototype";
  case AbiRule::PtxVersion: return "ptx-version";
  case AbiRule::AddressSizeMismatch: return "address-size-mismatch";
  case AbiRule::UnresolvedExtern: return "unresolved-extern";
  }
  return "";
}

namespace {

uint32_t alignOf(const Variable &var) {
  return var.align ? var.align : std::max<uint32_t>(var.naturalAlign(), 1);
}

/// The declaration as PTX writes it, without the name: `.align 4 .b8 [12]`, `.b32`.
std::string describe(const Variable &var) {
  std::string out;
  if (var.align)
    out += fmt::format(".align {} ", var.align);
  if (var.vectorWidth > 1)
    out += fmt::format(".v{} ", var.vectorWidth);
  out += ptx::spelling(var.type);
  for (uint64_t d : var.dims)
    out += d ? fmt::format("[{}]", d) : std::string("[]");
  return out;
}

std::string describeLayout(const Variable &var) {
  return fmt::format("{} ({} bytes, align {})", describe(var), var.sizeInBytes(), alignOf(var));
}

bool isAllowedAggregateAlign(uint32_t a) {
  return a >= 1 && a <= 128 && (a & (a - 1)) == 0;
}

/// The symbol an operand names when it is of `kind` and resolved (partial modules may hold neither).
const ptx::Symbol *symbolOf(const Module &m, const Operand &op, SymbolKind kind) {
  if (op.kind != OperandKind::Symbol || op.id >= m.symbols.size())
    return nullptr;
  const ptx::Symbol &s = m.symbols[op.id];
  if (s.kind != kind)
    return nullptr;
  if (kind == SymbolKind::Variable && s.index >= m.variables.size())
    return nullptr;
  if (kind == SymbolKind::Function && s.index >= m.functions.size())
    return nullptr;
  return &s;
}

/// The prototype a call is checked against.
struct Signature {
  std::string name;
  std::vector<const Variable *> returns;
  std::vector<const Variable *> params;
};

Signature signatureOf(const Module &m, const Function &fn) {
  Signature sig;
  sig.name = std::string(fn.name);
  for (uint32_t v : fn.returns)
    sig.returns.push_back(&m.variables[v]);
  for (uint32_t v : fn.params)
    sig.params.push_back(&m.variables[v]);
  return sig;
}

bool sameLayout(const Variable &a, const Variable &b) {
  return a.sizeInBytes() == b.sizeInBytes() && alignOf(a) == alignOf(b);
}

/// The first difference between a declaration and a definition, empty when they agree.
std::string compareSignatures(const Signature &decl, const Signature &def) {
  if (decl.returns.size() != def.returns.size())
    return fmt::format("{} return value(s) declared, {} defined", decl.returns.size(), def.returns.size());
  if (decl.params.size() != def.params.size())
    return fmt::format("{} parameter(s) declared, {} defined", decl.params.size(), def.params.size());
  for (size_t i = 0; i < decl.returns.size(); ++i)
    if (!sameLayout(*decl.returns[i], *def.returns[i]))
      return fmt::format("return value {} is {} but defined as {}", i + 1, describeLayout(*decl.returns[i]),
                         describeLayout(*def.returns[i]));
  for (size_t i = 0; i < decl.params.size(); ++i)
    if (!sameLayout(*decl.params[i], *def.params[i]))
      return fmt::format("parameter {} is {} but defined as {}", i + 1, describeLayout(*decl.params[i]),
                         describeLayout(*def.params[i]));
  return {};
}

// ---------------------------------------------------------------------------------------------
// §3 system calls

// The prototypes themselves are data in SystemCalls.h, shared with the VM.

// ---------------------------------------------------------------------------------------------

class Checker {
public:
  Checker(std::span<const Module *const> modules, const AbiOptions &options) : modules_(modules), options_(options) {}

  std::vector<AbiFinding> run() {
    for (uint32_t i = 0; i < modules_.size(); ++i)
      if (modules_[i])
        checkModule(i, *modules_[i]);
    checkAddressSizes();
    checkExterns();
    std::stable_sort(findings_.begin(), findings_.end(), [](const AbiFinding &a, const AbiFinding &b) {
      return a.module != b.module ? a.module < b.module : a.loc.offset < b.loc.offset;
    });
    return std::move(findings_);
  }

private:
  void report(AbiRule rule, uint32_t module, ptx::SourceLoc loc, std::string message,
              ptx::Severity severity = ptx::Severity::Error) {
    findings_.push_back({rule, severity, module, loc, fmt::format("{} [{}]", message, ruleSection(rule))});
  }

  // -- §2.3 notes A, C, D: the form of one .param declaration -----------------------------------

  /// `sizeMultiple`: also require the size to be a multiple of the alignment. Only for functions other
  /// modules can call (and prototypes): for a function with internal linkage the producer owns every
  /// call and may over-align (LLVM's NVPTX back end, hence nvcc, raises internal functions' aggregate
  /// .param alignment to 16: `.param .align 16 .b8 tag[1]`), and call sites are compared with the
  /// callee instead (CallMismatch).
  void checkParamForm(uint32_t mi, const Module &m, uint32_t varIndex, std::string_view what, bool sizeMultiple) {
    if (!checked_.insert({mi, varIndex}).second)
      return;
    const Variable &var = m.variables[varIndex];
    ptx::TypeInfo t = ptx::typeInfo(var.type);
    std::string_view type = ptx::spelling(var.type);
    if (var.type == Mod::f16 || var.type == Mod::bf16) {
      report(AbiRule::HalfFloat, mi, var.loc,
             fmt::format("{} is {}: 16-bit floating-point types are only used for storage and cannot be "
                         "parameters or return values",
                         what, describe(var)));
      return;
    }
    bool scalar = var.dims.empty() && var.vectorWidth == 1;
    if (scalar && t.bits > 0 && t.bits < 32 && t.kind != PtxTypeKind::Pred && t.kind != PtxTypeKind::Float) {
      if (t.kind == PtxTypeKind::Signed || t.kind == PtxTypeKind::Unsigned) {
        bool isSigned = t.kind == PtxTypeKind::Signed;
        report(AbiRule::NarrowInteger, mi, var.loc,
               fmt::format("{} is {}: integral values shorter than 32 bits are passed as {} ({}-extended)", what, type,
                           isSigned ? ".s32" : ".u32", isSigned ? "sign" : "zero"));
      } else {
        report(AbiRule::NarrowInteger, mi, var.loc,
               fmt::format("{} is a {} scalar, which the ABI does not allow: integral values are passed as "
                           ".u32/.s32, aggregates as .align A .b8 name[size]",
                           what, type));
      }
      return;
    }
    if (!var.dims.empty()) {
      uint32_t a = alignOf(var);
      uint64_t size = var.sizeInBytes();
      if (!isAllowedAggregateAlign(a))
        report(AbiRule::AggregateAlignment, mi, var.loc,
               fmt::format("aggregate {} has alignment {}; it must be 1, 2, 4, 8, 16, 32, 64 or 128", what, a));
      else if (sizeMultiple && size % a != 0)
        report(AbiRule::AggregateAlignment, mi, var.loc,
               fmt::format("aggregate {} is {} bytes, not a multiple of its alignment {}", what, size, a));
    }
  }

  void checkModule(uint32_t mi, const Module &m) {
    for (const Function &fn : m.functions) {
      if (!fn.isEntry) {
        const bool external = fn.linkage != ptx::Linkage::None;
        for (size_t i = 0; i < fn.returns.size(); ++i)
          checkParamForm(mi, m, fn.returns[i],
                         fmt::format("return value '{}' of '{}'", varName(m, fn.returns[i]), fn.name), external);
        for (size_t i = 0; i < fn.params.size(); ++i)
          checkParamForm(mi, m, fn.params[i], fmt::format("parameter '{}' of '{}'", varName(m, fn.params[i]), fn.name),
                         external);
        if (!fn.hasBody)
          checkSystemCall(mi, m, fn);
      }
      for (const ptx::Prototype &proto : fn.prototypes) {
        for (uint32_t v : proto.returns)
          checkParamForm(mi, m, v, ".callprototype return value", true);
        for (uint32_t v : proto.params)
          checkParamForm(mi, m, v, ".callprototype parameter", true);
      }
      for (uint32_t v : fn.localVariables)
        if (m.variables[v].space == StateSpace::Param)
          checkParamForm(mi, m, v, fmt::format("call-site .param '{}'", varName(m, v)), false);
      if (fn.hasBody)
        checkCalls(mi, m, fn);
    }
  }

  std::string_view varName(const Module &m, uint32_t varIndex) {
    auto &names = varNames_[&m];
    if (names.empty()) {
      names.resize(m.variables.size());
      for (const ptx::Symbol &s : m.symbols)
        if (s.kind == SymbolKind::Variable && s.index < names.size())
          names[s.index] = s.name;
    }
    return varIndex < names.size() ? names[varIndex] : std::string_view();
  }

  // -- §3 -----------------------------------------------------------------------------------------

  void checkSystemCall(uint32_t mi, const Module &m, const Function &fn) {
    std::optional<SystemCall> call = findSystemCall(fn.name, m.pointerBits());
    if (!call)
      return;
    auto expectedBits = [](const SysParam &p) -> uint32_t {
      auto mod = ptx::lookupMod(p.ptxType);
      return mod ? ptx::typeInfo(*mod).bits : 0;
    };
    auto checkList = [&](const std::vector<uint32_t> &actual, const std::vector<SysParam> &expected,
                         std::string_view kind) {
      if (actual.size() != expected.size()) {
        std::string names;
        for (const SysParam &p : expected)
          names += fmt::format("{}{}", names.empty() ? "" : ", ", p.name);
        report(AbiRule::SystemCallPrototype, mi, fn.loc,
               fmt::format("system call '{}' has {} {}(s) ({}) for .address_size {}, declared with {}", fn.name,
                           expected.size(), kind, names, m.pointerBits(), actual.size()));
        return;
      }
      for (size_t i = 0; i < actual.size(); ++i) {
        const Variable &var = m.variables[actual[i]];
        ptx::TypeInfo t = ptx::typeInfo(var.type);
        uint32_t bits = expectedBits(expected[i]);
        // Any integral spelling of the right size is the same register (.b64, .u64, .s64).
        bool ok = var.dims.empty() && var.vectorWidth == 1 &&
                  (t.kind == PtxTypeKind::Bits || t.kind == PtxTypeKind::Unsigned || t.kind == PtxTypeKind::Signed) &&
                  t.bits == bits;
        if (!ok)
          report(AbiRule::SystemCallPrototype, mi, var.loc,
                 fmt::format("system call '{}': {} '{}' must be .b{} for .address_size {}, declared {}", fn.name, kind,
                             expected[i].name, bits, m.pointerBits(), describe(var)));
      }
    };
    std::vector<SysParam> returns;
    if (call->result)
      returns.push_back(*call->result);
    checkList(fn.returns, returns, "return value");
    checkList(fn.params, call->params, "parameter");
  }

  // -- call sites -----------------------------------------------------------------------------------

  /// Registers that provably hold a non-generic address (their space), None otherwise: every write
  /// to them is a `mov` of a .global/.shared/.local/.const symbol's address, a `cvta.to`, a copy of
  /// such a register or such a register plus a constant.
  std::vector<StateSpace> nonGenericRegisters(const Module &m, const Function &fn) {
    const size_t n = fn.registers.size();
    std::vector<std::vector<uint32_t>> defs(n);
    for (uint32_t i = 0; i < fn.instructions.size(); ++i)
      for (uint32_t r : ptx::registerAccess(fn, fn.instructions[i]).defs)
        if (r < n)
          defs[r].push_back(i);
    std::vector<StateSpace> space(n, StateSpace::None);
    std::vector<char> candidate(n, 0);
    for (size_t r = 0; r < n; ++r)
      candidate[r] = !defs[r].empty();
    // What one write makes of its destination: a space, Generic meaning "same as the source
    // register", None when the value is not provably a non-generic address.
    auto produce = [&](const Instruction &inst, uint32_t &source) -> StateSpace {
      source = kNone;
      auto ops = fn.operandsOf(inst);
      if (ops.empty() || ops[0].kind != OperandKind::Register)
        return StateSpace::None;
      if (inst.opcode == Opcode::mov && ops.size() == 2) {
        const Operand &src = ops[1];
        if (const ptx::Symbol *sym = symbolOf(m, src, SymbolKind::Variable)) {
          StateSpace s = m.variables[sym->index].space;
          if (s == StateSpace::Global || s == StateSpace::Shared || s == StateSpace::Local || s == StateSpace::Const)
            return s;
          return StateSpace::None;
        }
        if (src.kind == OperandKind::Register && src.selector == 0 && src.id < n && candidate[src.id]) {
          source = src.id;
          return StateSpace::Generic;
        }
        return StateSpace::None;
      }
      if (inst.opcode == Opcode::cvta && inst.has(Mod::to) && ops.size() == 2)
        return inst.space;
      if ((inst.opcode == Opcode::add || inst.opcode == Opcode::sub) && ops.size() == 3 &&
          ops[1].kind == OperandKind::Register && ops[1].id < n && candidate[ops[1].id] &&
          ops[2].kind == OperandKind::Immediate) {
        source = ops[1].id;
        return StateSpace::Generic;
      }
      if (inst.opcode == Opcode::add && ops.size() == 3 && ops[2].kind == OperandKind::Register && ops[2].id < n &&
          candidate[ops[2].id] && ops[1].kind == OperandKind::Immediate) {
        source = ops[2].id;
        return StateSpace::Generic;
      }
      return StateSpace::None;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t r = 0; r < n; ++r) {
        if (!candidate[r])
          continue;
        for (uint32_t i : defs[r]) {
          uint32_t source = kNone;
          if (produce(fn.instructions[i], source) == StateSpace::None) {
            candidate[r] = 0;
            changed = true;
            break;
          }
        }
      }
    }
    // Name the space: follow copies to a definition that names one.
    for (size_t r = 0; r < n; ++r) {
      if (!candidate[r])
        continue;
      uint32_t cur = static_cast<uint32_t>(r);
      for (size_t steps = 0; steps <= n && space[r] == StateSpace::None; ++steps) {
        uint32_t source = kNone;
        StateSpace s = produce(fn.instructions[defs[cur].front()], source);
        if (s != StateSpace::Generic)
          space[r] = s;
        else
          cur = source;
      }
    }
    return space;
  }

  /// The prototypes a call is checked against: the callee, the .callprototype, or every .calltargets.
  std::vector<Signature> calleesOf(const Module &m, const Function &fn, const Operand &target, const Operand *extra) {
    std::vector<Signature> out;
    if (const ptx::Symbol *callee = symbolOf(m, target, SymbolKind::Function)) {
      out.push_back(signatureOf(m, m.functions[callee->index]));
      return out;
    }
    if (!extra || extra->kind != OperandKind::Symbol || extra->id >= m.symbols.size())
      return out;
    const ptx::Symbol &sym = m.symbols[extra->id];
    uint32_t owner = sym.function;
    if (sym.kind == SymbolKind::Prototype) {
      const Function &pf = owner < m.functions.size() ? m.functions[owner] : fn;
      if (sym.index < pf.prototypes.size()) {
        const ptx::Prototype &proto = pf.prototypes[sym.index];
        Signature sig;
        sig.name = fmt::format(".callprototype {}", sym.name);
        for (uint32_t v : proto.returns)
          sig.returns.push_back(&m.variables[v]);
        for (uint32_t v : proto.params)
          sig.params.push_back(&m.variables[v]);
        out.push_back(std::move(sig));
      }
    } else if (sym.kind == SymbolKind::CallTargets) {
      const Function &pf = owner < m.functions.size() ? m.functions[owner] : fn;
      if (sym.index < pf.targetLists.size())
        for (uint32_t s : pf.targetLists[sym.index].symbols)
          if (s < m.symbols.size() && m.symbols[s].kind == SymbolKind::Function &&
              m.symbols[s].index < m.functions.size())
            out.push_back(signatureOf(m, m.functions[m.symbols[s].index]));
    }
    return out;
  }

  const Variable *paramVariable(const Module &m, const Operand &op) {
    const ptx::Symbol *sym = symbolOf(m, op, SymbolKind::Variable);
    if (!sym)
      return nullptr;
    const Variable &var = m.variables[sym->index];
    return var.space == StateSpace::Param ? &var : nullptr;
  }

  void checkCalls(uint32_t mi, const Module &m, const Function &fn) {
    std::vector<StateSpace> nonGeneric;
    bool nonGenericDone = false;
    // st.param instructions by the .param symbol they store to.
    std::unordered_map<uint32_t, std::vector<uint32_t>> storesTo;
    for (uint32_t i = 0; i < fn.instructions.size(); ++i) {
      const Instruction &inst = fn.instructions[i];
      if (inst.opcode != Opcode::st || inst.space != StateSpace::Param)
        continue;
      auto ops = fn.operandsOf(inst);
      if (ops.size() == 2 && ops[0].kind == OperandKind::Address && ops[0].count >= 1) {
        const Operand &base = fn.children(ops[0])[0];
        if (base.kind == OperandKind::Symbol)
          storesTo[base.id].push_back(i);
      }
    }
    const uint32_t ptrBytes = m.pointerBits() / 8;

    for (const Instruction &inst : fn.instructions) {
      if (inst.opcode != Opcode::call)
        continue;
      if (m.ptxVersion() < 20)
        report(AbiRule::PtxVersion, mi, inst.loc,
               fmt::format("call in PTX {}.{}: PTX versions earlier than 2.0 cannot make ABI-compatible calls",
                           m.versionMajor, m.versionMinor));
      auto ops = fn.operandsOf(inst);
      size_t i = 0;
      const Operand *rets = nullptr, *args = nullptr, *extra = nullptr;
      if (i < ops.size() && ops[i].kind == OperandKind::List)
        rets = &ops[i++];
      if (i >= ops.size())
        continue;
      const Operand &target = ops[i++];
      if (i < ops.size() && ops[i].kind == OperandKind::List)
        args = &ops[i++];
      if (i < ops.size())
        extra = &ops[i];
      std::span<const Operand> retOps = rets ? fn.children(*rets) : std::span<const Operand>();
      std::span<const Operand> argOps = args ? fn.children(*args) : std::span<const Operand>();

      for (const Signature &sig : calleesOf(m, fn, target, extra)) {
        if (retOps.size() != sig.returns.size())
          report(AbiRule::CallMismatch, mi, inst.loc,
                 fmt::format("call to '{}' receives {} return value(s); its prototype has {}", sig.name, retOps.size(),
                             sig.returns.size()));
        if (argOps.size() != sig.params.size())
          report(AbiRule::CallMismatch, mi, inst.loc,
                 fmt::format("call to '{}' passes {} argument(s); its prototype has {} parameter(s)", sig.name,
                             argOps.size(), sig.params.size()));
        auto compare = [&](std::span<const Operand> actual, const std::vector<const Variable *> &expected,
                           std::string_view kind) {
          for (size_t k = 0; k < std::min(actual.size(), expected.size()); ++k) {
            const Variable *p = paramVariable(m, actual[k]);
            if (!p || sameLayout(*p, *expected[k]))
              continue;
            report(AbiRule::CallMismatch, mi, p->loc,
                   fmt::format("call-site .param '{}' is {} but {} {} of '{}' is {}", m.symbols[actual[k].id].name,
                               describeLayout(*p), kind, k + 1, sig.name, describeLayout(*expected[k])));
          }
        };
        compare(retOps, sig.returns, "return value");
        compare(argOps, sig.params, "parameter");

        // §2.3 note B: address-sized parameters get generic addresses.
        for (size_t k = 0; k < std::min(argOps.size(), sig.params.size()); ++k) {
          const Variable &callee = *sig.params[k];
          if (!callee.dims.empty() || callee.sizeInBytes() != ptrBytes)
            continue;
          if (callee.isPointer && callee.pointeeSpace != StateSpace::None && callee.pointeeSpace != StateSpace::Generic)
            continue; // the declaration names the memory space
          auto flag = [&](const Operand &value, ptx::SourceLoc loc) {
            if (value.kind != OperandKind::Register)
              return;
            if (!nonGenericDone) {
              nonGeneric = nonGenericRegisters(m, fn);
              nonGenericDone = true;
            }
            if (value.id >= nonGeneric.size() || nonGeneric[value.id] == StateSpace::None)
              return;
            StateSpace s = nonGeneric[value.id];
            report(AbiRule::PointerNotGeneric, mi, loc,
                   fmt::format("argument {} of '{}' is a {} address in '{}', not a generic one; convert it with "
                               "cvta{}",
                               k + 1, sig.name, ptx::spelling(s), fn.registers[value.id].displayName(),
                               ptx::spelling(s)));
          };
          const Operand &arg = argOps[k];
          if (arg.kind == OperandKind::Register) {
            flag(arg, inst.loc);
          } else if (paramVariable(m, arg)) {
            auto it = storesTo.find(arg.id);
            if (it != storesTo.end())
              for (uint32_t st : it->second) {
                const Instruction &store = fn.instructions[st];
                flag(fn.operandsOf(store)[1], store.loc);
              }
          }
        }
      }
    }
  }

  // -- across modules ------------------------------------------------------------------------------

  static ptx::SourceLoc addressSizeLoc(const Module &m) {
    if (m.sources.size() > 0) {
      std::string_view text = m.sources.text(0);
      size_t at = text.find(".address_size");
      if (at != std::string_view::npos)
        return {0, static_cast<uint32_t>(at), static_cast<uint32_t>(std::string_view(".address_size").size())};
    }
    return m.target.loc;
  }

  void checkAddressSizes() {
    // Every module of a mixed link gets a finding, naming the first module that differs from it.
    for (uint32_t i = 0; i < modules_.size(); ++i) {
      const Module *m = modules_[i];
      if (!m)
        continue;
      for (const Module *other : modules_) {
        if (!other || other->pointerBits() == m->pointerBits())
          continue;
        report(AbiRule::AddressSizeMismatch, i, addressSizeLoc(*m),
               fmt::format("module uses .address_size {} but '{}' uses .address_size {}: objects for different "
                           "host address sizes cannot be linked",
                           m->pointerBits(), other->sources.size() ? other->sources.name(0) : "",
                           other->pointerBits()));
        break;
      }
    }
  }

  void checkExterns() {
    // Definitions other modules can link against, by name.
    std::unordered_map<std::string_view, std::pair<uint32_t, const Function *>> visible;
    for (uint32_t i = 0; i < modules_.size(); ++i)
      if (modules_[i])
        for (const Function &fn : modules_[i]->functions)
          if (fn.hasBody && (fn.linkage == ptx::Linkage::Visible || fn.linkage == ptx::Linkage::Weak ||
                             fn.linkage == ptx::Linkage::Common))
            visible.emplace(fn.name, std::make_pair(i, &fn));
    for (uint32_t i = 0; i < modules_.size(); ++i) {
      const Module *m = modules_[i];
      if (!m)
        continue;
      for (const Function &fn : m->functions) {
        if (fn.hasBody || fn.linkage != ptx::Linkage::Extern || findDriverFunction(fn.name, 64))
          continue;
        bool local = std::any_of(m->functions.begin(), m->functions.end(),
                                 [&](const Function &f) { return f.hasBody && f.name == fn.name; });
        if (local)
          continue;
        auto it = visible.find(fn.name);
        if (it != visible.end()) {
          const Module &dm = *modules_[it->second.first];
          std::string diff = compareSignatures(signatureOf(*m, fn), signatureOf(dm, *it->second.second));
          if (!diff.empty())
            report(AbiRule::CallMismatch, i, fn.loc,
                   fmt::format("declaration of '{}' does not match its definition in '{}': {}", fn.name,
                               dm.sources.size() ? dm.sources.name(0) : "", diff));
          continue;
        }
        if (options_.reportUnresolvedExterns)
          report(AbiRule::UnresolvedExtern, i, fn.loc,
                 fmt::format("'.extern' function '{}' is not defined in any module; only the system calls vprintf, "
                             "malloc, free and __assertfail are provided without a definition",
                             fn.name),
                 ptx::Severity::Warning);
      }
    }
  }

  std::span<const Module *const> modules_;
  AbiOptions options_;
  std::vector<AbiFinding> findings_;
  std::set<std::pair<uint32_t, uint32_t>> checked_;
  std::unordered_map<const Module *, std::vector<std::string_view>> varNames_;
};

} // namespace

std::vector<AbiFinding> checkAbi(std::span<const Module *const> modules, const AbiOptions &options) {
  return Checker(modules, options).run();
}

std::vector<AbiFinding> checkAbi(const Module &module, const AbiOptions &options) {
  const Module *one[] = {&module};
  return checkAbi(std::span<const Module *const>(one), options);
}

void addFindings(std::span<const AbiFinding> findings, uint32_t module, ptx::Diagnostics &diags) {
  for (const AbiFinding &f : findings) {
    if (f.module != module)
      continue;
    switch (f.severity) {
    case ptx::Severity::Error: diags.error(f.loc, f.message); break;
    case ptx::Severity::Warning: diags.warning(f.loc, f.message); break;
    case ptx::Severity::Note: diags.note(f.loc, f.message); break;
    }
  }
}

std::string renderFindings(std::span<const Module *const> modules, std::span<const AbiFinding> findings) {
  std::string out;
  for (uint32_t i = 0; i < modules.size(); ++i) {
    if (!modules[i])
      continue;
    ptx::Diagnostics diags;
    addFindings(findings, i, diags);
    out += diags.render(modules[i]->sources);
  }
  return out;
}

} // namespace ptxray::abi
