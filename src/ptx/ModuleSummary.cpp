#include "ptx/ModuleSummary.h"

#include "ptx/Demangle.h"
#include "ptx/SharedLayout.h"

#include <fmt/format.h>

namespace ptxray::ptx {
namespace {

std::string_view linkageName(Linkage l) {
  switch (l) {
  case Linkage::Visible: return "visible";
  case Linkage::Extern: return "extern";
  case Linkage::Weak: return "weak";
  case Linkage::Common: return "common";
  case Linkage::None: return "internal";
  }
  return "";
}

uint32_t alignmentOf(const Variable &var) {
  return var.align ? var.align : std::max<uint32_t>(var.naturalAlign(), 1);
}

/// Adds a variable to a running layout the way a linker packs a segment: align, then append.
void place(uint64_t &offset, const Variable &var) {
  uint64_t align = alignmentOf(var);
  offset = (offset + align - 1) / align * align + var.sizeInBytes();
}

ParamSummary summarizeParam(const Module &m, uint32_t varIndex, std::string_view name) {
  const Variable &var = m.variables[varIndex];
  ParamSummary p;
  p.name = std::string(name);
  p.type = var.vectorWidth > 1 ? fmt::format(".v{} {}", var.vectorWidth, spelling(var.type))
                               : std::string(spelling(var.type));
  for (uint64_t d : var.dims)
    p.type += fmt::format("[{}]", d);
  p.size = var.sizeInBytes();
  p.align = alignmentOf(var);
  p.isPointer = var.isPointer;
  if (var.isPointer) {
    p.pointeeSpace =
        var.pointeeSpace == StateSpace::None ? "generic" : std::string(spelling(var.pointeeSpace).substr(1));
    p.pointeeAlign = var.pointeeAlign;
  }
  return p;
}

} // namespace

ModuleSummary summarize(const Module &m) {
  ModuleSummary s;
  s.version = fmt::format("{}.{}", m.versionMajor, m.versionMinor);
  for (std::string_view t : m.target.names)
    s.target.emplace_back(t);
  s.addressSize = m.hasAddressSize ? m.addressSize : 32;
  for (const SourceFile &f : m.files)
    s.files.emplace_back(f.index, std::string(f.name));

  std::vector<std::string_view> varNames(m.variables.size());
  for (const Symbol &sym : m.symbols)
    if (sym.kind == SymbolKind::Variable && sym.index < varNames.size())
      varNames[sym.index] = sym.name;

  for (const TopLevel &item : m.items) {
    if (item.kind != TopLevelKind::Variable)
      continue;
    const Variable &var = m.variables[item.index];
    if (var.linkage == Linkage::Extern)
      continue;
    if (var.space == StateSpace::Global)
      place(s.globalBytes, var);
    else if (var.space == StateSpace::Const)
      place(s.constBytes, var);
    else if (var.space == StateSpace::Shared)
      place(s.sharedBytes, var);
  }

  const SharedLayoutPlanner sharedLayouts(m);
  for (const TopLevel &item : m.items) {
    if (item.kind != TopLevelKind::Function)
      continue;
    const Function &fn = m.functions[item.index];
    FunctionSummary f;
    f.name = std::string(fn.name);
    f.demangled = demangle(fn.name);
    f.isEntry = fn.isEntry;
    f.defined = fn.hasBody;
    f.linkage = std::string(linkageName(fn.linkage));
    for (uint32_t p : fn.params)
      f.params.push_back(summarizeParam(m, p, varNames[p]));
    for (uint32_t r : fn.returns)
      f.returns.push_back(summarizeParam(m, r, varNames[r]));
    for (const RegisterDecl &d : fn.registerDecls) {
      std::string type =
          d.vectorWidth > 1 ? fmt::format(".v{} {}", d.vectorWidth, spelling(d.type)) : std::string(spelling(d.type));
      uint64_t count = 0;
      for (const RegisterDecl::Item &it : d.items)
        count += it.rangeCount >= 0 ? static_cast<uint64_t>(it.rangeCount) : 1;
      f.registers[type] += count;
    }
    for (uint32_t v : fn.localVariables)
      if (m.variables[v].space == StateSpace::Local)
        place(f.localBytes, m.variables[v]);
    // What its CTA (a kernel) or its callers' CTAs (a function) hold for it: ptxas's figure.
    f.sharedBytes = sharedLayouts.layout(item.index).staticBytes;
    f.instructions = fn.instructions.size();
    s.instructions += f.instructions;
    for (const PerfDirective &d : fn.directives)
      f.directives.emplace_back(std::string(spelling(d.kind)), d.values);
    s.functions.push_back(std::move(f));
  }
  return s;
}

} // namespace ptxray::ptx
