#include "ptx/SharedLayout.h"

#include <algorithm>

namespace ptxray::ptx {
namespace {

uint32_t alignmentOf(const Variable &v) {
  return v.align ? v.align : std::max<uint32_t>(v.naturalAlign(), 1);
}

bool isUnsizedArray(const Variable &v) {
  return !v.dims.empty() && v.elementCount() == 0;
}

bool callsThroughPointer(const Function &fn) {
  for (const Instruction &inst : fn.instructions) {
    if (inst.opcode != Opcode::call)
      continue;
    for (const Operand &op : fn.operandsOf(inst)) {
      if (op.kind == OperandKind::List)
        continue; // return or argument list
      if (op.kind != OperandKind::Symbol)
        return true; // the callee is a register
      break;
    }
  }
  return false;
}

} // namespace

SharedLayoutPlanner::SharedLayoutPlanner(const Module &m)
    : m_(m), symbolOfVariable_(m.variables.size(), kNone), namedFunctions_(m.functions.size()),
      namedShared_(m.functions.size()), declaresShared_(m.functions.size(), 0),
      callsThroughPointer_(m.functions.size(), 0) {
  for (uint32_t s = 0; s < m.symbols.size(); ++s)
    if (m.symbols[s].kind == SymbolKind::Variable && m.symbols[s].index < m.variables.size())
      symbolOfVariable_[m.symbols[s].index] = s;
  std::vector<char> taken(m.functions.size(), 0);
  auto functionOf = [&](uint32_t symbol) -> uint32_t {
    if (symbol >= m.symbols.size() || m.symbols[symbol].kind != SymbolKind::Function ||
        m.symbols[symbol].index >= m.functions.size() || m.functions[m.symbols[symbol].index].isEntry)
      return kNone;
    return m.symbols[symbol].index;
  };
  for (const Variable &v : m.variables)
    for (const InitItem &item : v.init)
      if (item.kind == InitItem::Kind::Symbol || item.kind == InitItem::Kind::GenericSymbol)
        if (uint32_t f = functionOf(item.symbol); f != kNone)
          taken[f] = 1;
  std::vector<uint32_t> lastNamedBy(m.functions.size(), kNone), lastSharedBy(m.variables.size(), kNone);
  for (uint32_t f = 0; f < m.functions.size(); ++f) {
    const Function &fn = m.functions[f];
    for (uint32_t v : fn.localVariables)
      declaresShared_[f] |= m.variables[v].space == StateSpace::Shared;
    for (const Operand &op : fn.operands) {
      if (op.kind != OperandKind::Symbol || op.id >= m.symbols.size())
        continue;
      if (uint32_t g = functionOf(op.id); g != kNone) {
        taken[g] = 1; // conservatively: a name outside a direct call's callee is an address
        if (lastNamedBy[g] != f) {
          lastNamedBy[g] = f;
          namedFunctions_[f].push_back(g);
        }
      } else if (m.symbols[op.id].kind == SymbolKind::Variable && m.symbols[op.id].index < m.variables.size()) {
        uint32_t v = m.symbols[op.id].index;
        if (m.variables[v].space == StateSpace::Shared && lastSharedBy[v] != f) {
          lastSharedBy[v] = f;
          namedShared_[f].push_back(v);
        }
      }
    }
    callsThroughPointer_[f] = callsThroughPointer(fn);
  }
  for (uint32_t f = 0; f < taken.size(); ++f)
    if (taken[f])
      addressTaken_.push_back(f);
  for (const TopLevel &item : m.items)
    if (item.kind == TopLevelKind::Variable && item.index < m.variables.size() &&
        m.variables[item.index].space == StateSpace::Shared && isUnsizedArray(m.variables[item.index]))
      moduleExternArrays_.push_back(item.index);
}

std::vector<uint32_t> SharedLayoutPlanner::reachableFunctions(uint32_t function) const {
  std::vector<uint32_t> order;
  if (function >= m_.functions.size())
    return order;
  std::vector<char> seen(m_.functions.size(), 0);
  auto visit = [&](uint32_t f) {
    if (!seen[f]) {
      seen[f] = 1;
      order.push_back(f);
    }
  };
  visit(function);
  bool indirect = false;
  for (size_t next = 0; next < order.size(); ++next) {
    uint32_t f = order[next];
    for (uint32_t g : namedFunctions_[f])
      visit(g);
    if (callsThroughPointer_[f] && !indirect) {
      indirect = true;
      for (uint32_t g : addressTaken_)
        visit(g);
    }
  }
  return order;
}

bool SharedLayoutPlanner::stackSizeIsStatic(uint32_t function) const {
  if (function >= m_.functions.size())
    return true;
  // Depth-first over the functions named from here, without recursion of our own: a cycle is a name
  // of a function still on the path.
  enum : char { Unseen, OnPath, Done };
  std::vector<char> state(m_.functions.size(), Unseen);
  std::vector<std::pair<uint32_t, size_t>> path{{function, 0}};
  state[function] = OnPath;
  while (!path.empty()) {
    auto &[f, next] = path.back();
    if (next == 0 && callsThroughPointer_[f])
      return false;
    if (next == namedFunctions_[f].size()) {
      state[f] = Done;
      path.pop_back();
      continue;
    }
    const uint32_t g = namedFunctions_[f][next++];
    if (state[g] == OnPath)
      return false;
    if (state[g] == Unseen) {
      state[g] = OnPath;
      path.emplace_back(g, 0);
    }
  }
  return true;
}

SharedLayout SharedLayoutPlanner::layout(uint32_t function) const {
  SharedLayout layout;
  layout.functions = reachableFunctions(function);
  std::vector<char> named(m_.variables.size(), 0);
  for (uint32_t f : layout.functions)
    for (uint32_t v : namedShared_[f])
      named[v] = 1;

  std::vector<uint32_t> dynamicArrays;
  std::vector<char> placed(m_.variables.size(), 0);
  uint64_t cursor = 0;
  auto place = [&](uint32_t v) {
    if (placed[v])
      return;
    placed[v] = 1;
    const Variable &var = m_.variables[v];
    if (isUnsizedArray(var)) {
      dynamicArrays.push_back(v);
      return;
    }
    uint64_t align = alignmentOf(var);
    cursor = saturatingAlignUp(cursor, align);
    layout.slots.push_back({v, symbolOfVariable_[v], cursor, var.sizeInBytes(), false});
    cursor = saturatingAdd(cursor, var.sizeInBytes());
  };
  auto functionScope = [&](bool wantNamed) {
    for (uint32_t f : layout.functions)
      if (declaresShared_[f])
        for (uint32_t v : m_.functions[f].localVariables)
          if (m_.variables[v].space == StateSpace::Shared && (named[v] != 0) == wantNamed)
            place(v);
  };
  functionScope(true);
  // Module-scope variables in declaration order: few per kernel, so sort what is named.
  std::vector<uint32_t> moduleScope;
  for (uint32_t f : layout.functions)
    for (uint32_t v : namedShared_[f])
      if (!placed[v])
        moduleScope.push_back(v);
  std::sort(moduleScope.begin(), moduleScope.end());
  moduleScope.erase(std::unique(moduleScope.begin(), moduleScope.end()), moduleScope.end());
  for (uint32_t v : moduleScope)
    place(v); // variable indices follow declaration order
  functionScope(false);

  layout.usesDynamic = !dynamicArrays.empty();
  for (uint32_t v : dynamicArrays)
    layout.dynamicAlign = std::max(layout.dynamicAlign, alignmentOf(m_.variables[v]));
  // Optimizing ptxas rounds every kernel of a module that declares an unsized extern array (used or
  // not, before or after the kernel); a debug target (-O0) only the kernels that reach one.
  bool round = layout.usesDynamic;
  if (!m_.target.debug)
    for (uint32_t v : moduleExternArrays_) {
      round = true;
      layout.dynamicAlign = std::max(layout.dynamicAlign, alignmentOf(m_.variables[v]));
    }
  if (round)
    cursor = saturatingAlignUp(cursor, layout.dynamicAlign);
  layout.staticBytes = cursor;
  for (uint32_t v : dynamicArrays)
    layout.slots.push_back({v, symbolOfVariable_[v], cursor, 0, true});
  return layout;
}

SharedLayout layoutSharedMemory(const Module &module, uint32_t function) {
  return SharedLayoutPlanner(module).layout(function);
}

} // namespace ptxray::ptx
