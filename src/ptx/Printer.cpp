#include "ptx/Printer.h"

#include <fmt/format.h>

#include <algorithm>

namespace ptxray::ptx {
namespace {

std::string_view linkageText(Linkage l) {
  switch (l) {
  case Linkage::Visible: return ".visible ";
  case Linkage::Extern: return ".extern ";
  case Linkage::Weak: return ".weak ";
  case Linkage::Common: return ".common ";
  case Linkage::None: return "";
  }
  return "";
}

std::string offsetText(int64_t value) {
  return value == 0 ? std::string() : fmt::format("+{}", value);
}

std::string selectorText(uint32_t sel) {
  if (sel == 0)
    return {};
  std::string out = ".";
  out.push_back(static_cast<char>(sel & 0xff));
  uint32_t digits = (sel >> 8) & 0xf;
  for (uint32_t i = 0; i < digits; ++i)
    out.push_back(static_cast<char>('0' + ((sel >> (12 + 4 * i)) & 0xf)));
  return out;
}

std::string integerText(int64_t value, bool isUnsigned) {
  std::string text = value > 0xffff ? fmt::format("0x{:X}", value)
                     : isUnsigned   ? fmt::format("{}", static_cast<uint64_t>(value))
                                    : fmt::format("{}", value);
  if (value < 0 && isUnsigned)
    text = fmt::format("0x{:X}", static_cast<uint64_t>(value));
  if (isUnsigned)
    text += 'U';
  return text;
}

class ModulePrinter {
public:
  explicit ModulePrinter(const Module &m) : m_(m) {}

  std::string run() {
    out_ += fmt::format(".version {}.{}\n", m_.versionMajor, m_.versionMinor);
    if (!m_.target.names.empty()) {
      out_ += ".target ";
      for (size_t i = 0; i < m_.target.names.size(); ++i)
        out_ += fmt::format("{}{}", i ? ", " : "", m_.target.names[i]);
      out_ += "\n";
    }
    if (m_.hasAddressSize)
      out_ += fmt::format(".address_size {}\n", m_.addressSize);
    TopLevelKind prev = TopLevelKind::Pragma;
    bool first = true;
    for (const TopLevel &item : m_.items) {
      // Runs of one-line declarations stay together; functions and sections stand apart.
      bool compact = !first && item.kind == prev &&
                     (item.kind == TopLevelKind::File || item.kind == TopLevelKind::Variable ||
                      item.kind == TopLevelKind::Alias || item.kind == TopLevelKind::Pragma);
      if (!compact)
        out_ += "\n";
      first = false;
      prev = item.kind;
      switch (item.kind) {
      case TopLevelKind::Variable:
        variable(m_.variables[item.index], nullptr);
        out_ += ";\n";
        break;
      case TopLevelKind::Function: function(m_.functions[item.index]); break;
      case TopLevelKind::File: file(m_.files[item.index]); break;
      case TopLevelKind::Section: section(m_.sections[item.index]); break;
      case TopLevelKind::Alias: {
        const Alias &a = m_.aliases[item.index];
        out_ += fmt::format(".alias {}, {};\n", name(a.alias), name(a.aliasee));
        break;
      }
      case TopLevelKind::Pragma: out_ += fmt::format(".pragma {};\n", m_.pragmas[item.index]); break;
      }
    }
    return std::move(out_);
  }

  std::string operand(const Function &fn, const Operand &op) {
    std::string s = (op.flags & Operand::Negated) ? "!" : (op.flags & Operand::Minus) ? "-" : "";
    switch (op.kind) {
    case OperandKind::Register:
      s += fn.registers[op.id].displayName();
      s += selectorText(op.selector);
      s += offsetText(op.value);
      break;
    case OperandKind::SpecialReg:
      s += spelling(static_cast<SpecialReg>(op.id));
      s += selectorText(op.selector);
      break;
    case OperandKind::Immediate: s += integerText(op.value, op.flags & Operand::Unsigned); break;
    case OperandKind::Float32: s += fmt::format("0f{:08X}", static_cast<uint32_t>(op.value)); break;
    case OperandKind::Float64: s += fmt::format("0d{:016X}", static_cast<uint64_t>(op.value)); break;
    case OperandKind::Symbol:
      s += name(op.id);
      s += offsetText(op.value);
      break;
    case OperandKind::Sink: s += "_"; break;
    case OperandKind::Address:
      s += '[';
      s += join(fn, op, ", ");
      s += ']';
      if (op.flags & Operand::Unified)
        s += ".unified";
      break;
    case OperandKind::Vector:
      s += '{';
      s += join(fn, op, ", ");
      s += '}';
      break;
    case OperandKind::List:
      s += '(';
      s += join(fn, op, ", ");
      s += ')';
      break;
    case OperandKind::Pair: s += join(fn, op, "|"); break;
    }
    return s;
  }

  std::string instruction(const Function &fn, const Instruction &inst) {
    std::string s;
    if (inst.guard != kNone)
      s += fmt::format("@{}{} ", inst.guardNegated ? "!" : "", fn.registers[inst.guard].displayName());
    s += spelling(inst.opcode);
    for (int i = 0; i < inst.numMods; ++i)
      s += spelling(inst.mods[i]);
    auto ops = fn.operandsOf(inst);
    for (size_t i = 0; i < ops.size(); ++i) {
      s += i ? ", " : " \t";
      s += operand(fn, ops[i]);
    }
    s += ";";
    return s;
  }

private:
  std::string_view name(uint32_t symbol) const { return symbol == kNone ? "<unresolved>" : m_.symbols[symbol].name; }

  std::string join(const Function &fn, const Operand &op, std::string_view sep) {
    std::string s;
    for (uint32_t i = 0; i < op.count; ++i) {
      if (i)
        s += sep;
      s += operand(fn, fn.operands[op.first + i]);
    }
    return s;
  }

  void file(const SourceFile &f) {
    if (!f.directory.empty() || !f.written.empty())
      out_ += fmt::format(".file {} {} {}", f.index, quotedString(f.directory), quotedString(f.written));
    else
      out_ += fmt::format(".file {} {}", f.index, quotedString(f.name));
    if (f.hasTimestamp)
      out_ += fmt::format(", {}, {}", f.timestamp, f.size);
    out_ += "\n";
  }

  void initializer(const std::vector<InitItem> &init) {
    bool needComma = false;
    for (const InitItem &item : init) {
      if (item.kind == InitItem::Kind::Close) {
        out_ += "}";
        needComma = true;
        continue;
      }
      if (needComma)
        out_ += ", ";
      needComma = item.kind != InitItem::Kind::Open;
      switch (item.kind) {
      case InitItem::Kind::Open: out_ += "{"; break;
      case InitItem::Kind::Int: out_ += fmt::format("{}", item.value); break;
      case InitItem::Kind::Float32: out_ += fmt::format("0f{:08X}", static_cast<uint32_t>(item.value)); break;
      case InitItem::Kind::Float64: out_ += fmt::format("0d{:016X}", static_cast<uint64_t>(item.value)); break;
      case InitItem::Kind::Symbol: out_ += std::string(name(item.symbol)) + offsetText(item.value); break;
      case InitItem::Kind::GenericSymbol:
        out_ += fmt::format("generic({}){}", name(item.symbol), offsetText(item.value));
        break;
      case InitItem::Kind::Property:
        out_ += item.word.empty() ? fmt::format("{} = {}", item.key, item.value)
                                  : fmt::format("{} = {}", item.key, item.word);
        break;
      case InitItem::Kind::Close: break;
      }
    }
  }

  /// Declaration text without the trailing ';'. `symbolName` null means: find it by index.
  void variable(const Variable &var, const std::string_view *symbolName) {
    out_ += linkageText(var.linkage);
    if (var.space == StateSpace::Reg)
      out_ += ".reg";
    else if (var.spaceMod != Mod::None)
      out_ += spelling(var.spaceMod);
    else
      out_ += spelling(var.space);
    if (!var.attribute.empty())
      out_ += fmt::format(" {}", var.attribute);
    if (var.align)
      out_ += fmt::format(" .align {}", var.align);
    if (var.vectorWidth > 1)
      out_ += fmt::format(" .v{}", var.vectorWidth);
    out_ += fmt::format(" {}", spelling(var.type));
    // `.param .u64 .ptr .global .align 16 p`: the order nvcc and clang write.
    if (var.isPointer) {
      out_ += " .ptr";
      if (var.pointeeSpace != StateSpace::None)
        out_ += fmt::format(" {}", spelling(var.pointeeSpace));
      if (var.pointeeAlign)
        out_ += fmt::format(" .align {}", var.pointeeAlign);
    }
    out_ += ' ';
    out_ += symbolName ? *symbolName : variableName(var);
    for (uint64_t d : var.dims)
      out_ += d ? fmt::format("[{}]", d) : std::string("[]");
    if (!var.init.empty()) {
      out_ += " = ";
      initializer(var.init);
    }
  }

  std::string_view variableName(const Variable &var) {
    if (varNames_.empty()) {
      varNames_.resize(m_.variables.size());
      for (const Symbol &s : m_.symbols)
        if (s.kind == SymbolKind::Variable && s.index < varNames_.size())
          varNames_[s.index] = s.name;
    }
    return varNames_[static_cast<size_t>(&var - m_.variables.data())];
  }

  void paramList(const std::vector<uint32_t> &params, bool multiline) {
    out_ += "(";
    for (size_t i = 0; i < params.size(); ++i) {
      out_ += i ? (multiline ? ",\n\t" : ", ") : (multiline ? "\n\t" : "");
      variable(m_.variables[params[i]], nullptr);
    }
    out_ += multiline && !params.empty() ? "\n)" : ")";
  }

  void prototypeParams(const std::vector<uint32_t> &params) {
    out_ += "(";
    for (size_t i = 0; i < params.size(); ++i) {
      if (i)
        out_ += ", ";
      variable(m_.variables[params[i]], nullptr);
    }
    out_ += ")";
  }

  void lineEntry(const LineEntry &e) {
    out_ += fmt::format(".loc {} {} {}", e.file, e.line, e.column);
    if (e.functionName != kNone)
      out_ += fmt::format(", function_name {}{}", name(e.functionName), offsetText(e.functionNameOffset));
    if (e.hasInlinedAt)
      out_ += fmt::format(", inlined_at {} {} {}", e.atFile, e.atLine, e.atColumn);
  }

  void function(const Function &fn) {
    out_ += linkageText(fn.linkage);
    out_ += fn.isEntry ? ".entry " : ".func ";
    if (fn.hasReturnList) {
      paramList(fn.returns, false);
      out_ += " ";
    }
    out_ += fn.name;
    if (fn.hasParamList)
      paramList(fn.params, true);
    out_ += "\n";
    for (const PerfDirective &d : fn.directives) {
      out_ += spelling(d.kind);
      for (size_t i = 0; i < d.values.size(); ++i)
        out_ += fmt::format("{}{}", i ? ", " : " ", d.values[i]);
      out_ += "\n";
    }
    for (std::string_view p : fn.pragmas)
      out_ += fmt::format(".pragma {};\n", p);
    if (!fn.hasBody) {
      out_ += ";\n";
      return;
    }
    out_ += "{\n";
    int depth = 1;
    // Nested blocks indent one tab each up to a point: 20,000 nested braces must not print 400 MB.
    constexpr int kMaxIndent = 16;
    auto indent = [&] { out_.append(static_cast<size_t>(std::min(depth, kMaxIndent)), '\t'); };
    for (const Statement &st : fn.statements) {
      switch (st.kind) {
      case StatementKind::Instruction:
        indent();
        out_ += instruction(fn, fn.instructions[st.index]);
        out_ += "\n";
        break;
      case StatementKind::Label: out_ += fmt::format("{}:\n", m_.symbols[st.index].name); break;
      case StatementKind::RegisterDecl: {
        const RegisterDecl &d = fn.registerDecls[st.index];
        indent();
        out_ += ".reg";
        if (d.vectorWidth > 1)
          out_ += fmt::format(" .v{}", d.vectorWidth);
        out_ += fmt::format(" {} \t", spelling(d.type));
        for (size_t i = 0; i < d.items.size(); ++i) {
          if (i)
            out_ += ", ";
          out_ += d.items[i].name;
          if (d.items[i].rangeCount >= 0)
            out_ += fmt::format("<{}>", d.items[i].rangeCount);
        }
        out_ += ";\n";
        break;
      }
      case StatementKind::Variable:
        indent();
        variable(m_.variables[st.index], nullptr);
        out_ += ";\n";
        break;
      case StatementKind::Loc:
        indent();
        lineEntry(m_.lines[st.index]);
        out_ += "\n";
        break;
      case StatementKind::Pragma:
        indent();
        out_ += fmt::format(".pragma {};\n", fn.bodyPragmas[st.index]);
        break;
      case StatementKind::BlockBegin:
        indent();
        out_ += "{\n";
        ++depth;
        break;
      case StatementKind::BlockEnd:
        --depth;
        indent();
        out_ += "}\n";
        break;
      case StatementKind::Prototype: {
        const Prototype &p = fn.prototypes[st.index];
        out_ += fmt::format("{}: .callprototype ", protoName(fn, SymbolKind::Prototype, st.index));
        if (!p.returns.empty()) {
          prototypeParams(p.returns);
          out_ += " ";
        }
        out_ += "_ ";
        prototypeParams(p.params);
        if (p.noReturn)
          out_ += " .noreturn";
        out_ += ";\n";
        break;
      }
      case StatementKind::BranchTargets:
      case StatementKind::CallTargets: {
        bool branch = st.kind == StatementKind::BranchTargets;
        const TargetList &list = fn.targetLists[st.index];
        out_ += fmt::format("{}: {} ",
                            protoName(fn, branch ? SymbolKind::BranchTargets : SymbolKind::CallTargets, st.index),
                            branch ? ".branchtargets" : ".calltargets");
        for (size_t i = 0; i < list.symbols.size(); ++i)
          out_ += fmt::format("{}{}", i ? ", " : "", name(list.symbols[i]));
        out_ += ";\n";
        break;
      }
      }
    }
    out_ += "}\n";
  }

  std::string_view protoName(const Function &fn, SymbolKind kind, uint32_t index) {
    uint32_t fnIndex = static_cast<uint32_t>(&fn - m_.functions.data());
    for (const Symbol &s : m_.symbols)
      if (s.kind == kind && s.function == fnIndex && s.index == index)
        return s.name;
    return "<unnamed>";
  }

  void section(const Section &sec) {
    out_ += fmt::format(".section {}\n{{\n", sec.name);
    for (const SectionItem &item : sec.items) {
      switch (item.kind) {
      case SectionItem::Kind::Label: out_ += fmt::format("{}:\n", name(item.label)); break;
      case SectionItem::Kind::String: out_ += fmt::format("\t{} {}\n", spelling(item.type), item.text); break;
      case SectionItem::Kind::Data:
        out_ += fmt::format("\t{} ", spelling(item.type));
        auto values = sec.valuesOf(item);
        for (size_t i = 0; i < values.size(); ++i) {
          const SectionValue &v = values[i];
          if (i)
            out_ += ", ";
          if (v.symbol == kNone) {
            out_ += fmt::format("{}", v.value);
            continue;
          }
          out_ += name(v.symbol);
          if (v.minusSymbol != kNone)
            out_ += fmt::format("-{}", name(v.minusSymbol));
          out_ += offsetText(v.value);
        }
        out_ += "\n";
        break;
      }
    }
    out_ += "}\n";
  }

  const Module &m_;
  std::string out_;
  std::vector<std::string_view> varNames_;
};

} // namespace

std::string quotedString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string printModule(const Module &module) {
  return ModulePrinter(module).run();
}

std::string printInstruction(const Module &module, const Function &fn, const Instruction &inst) {
  return ModulePrinter(module).instruction(fn, inst);
}

std::string printOperand(const Module &module, const Function &fn, const Operand &op) {
  return ModulePrinter(module).operand(fn, op);
}

} // namespace ptxray::ptx
