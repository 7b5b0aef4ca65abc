// Constant expressions (C precedence over 64-bit integers) and symbol tables with deferred resolution.
#include "ptx/ParserImpl.h"

namespace ptxray::ptx::detail {

// =============================================================================================
// Constant expressions (C precedence, 64-bit integers)

static int precedence(TokenKind k) {
  switch (k) {
  case TokenKind::Star:
  case TokenKind::Slash:
  case TokenKind::Percent: return 10;
  case TokenKind::Plus:
  case TokenKind::Minus: return 9;
  case TokenKind::ShiftLeft:
  case TokenKind::ShiftRight: return 8;
  case TokenKind::Less:
  case TokenKind::Greater:
  case TokenKind::LessEqual:
  case TokenKind::GreaterEqual: return 7;
  case TokenKind::EqualEqual:
  case TokenKind::BangEqual: return 6;
  case TokenKind::Amp: return 5;
  case TokenKind::Caret: return 4;
  case TokenKind::Pipe: return 3;
  case TokenKind::AmpAmp: return 2;
  case TokenKind::PipePipe: return 1;
  default: return -1;
  }
}

bool Parser::parseConstPrimary(int64_t &value) {
  if (at(TokenKind::Integer)) {
    uint64_t v = 0;
    bool isUnsigned = false;
    if (!parseIntegerLiteral(tok_.text, v, isUnsigned)) {
      errorHere(fmt::format("invalid integer literal {}", tokenText(tok_)));
      advance();
      return false;
    }
    value = static_cast<int64_t>(v);
    advance();
    return true;
  }
  if (at(TokenKind::LParen)) {
    advance();
    if (!parseConstExpr(value))
      return false;
    return expect(TokenKind::RParen, "')'");
  }
  if (at(TokenKind::Minus) || at(TokenKind::Tilde) || at(TokenKind::Bang) || at(TokenKind::Plus)) {
    NestingLevel level(*this); // (a parenthesis is a level through parseConstExpr)
    if (!level.ok())
      return false;
    TokenKind op = tok_.kind;
    advance();
    int64_t v = 0;
    if (!parseConstPrimary(v))
      return false;
    uint64_t u = static_cast<uint64_t>(v);
    value = op == TokenKind::Minus   ? static_cast<int64_t>(0 - u)
            : op == TokenKind::Tilde ? static_cast<int64_t>(~u)
            : op == TokenKind::Bang  ? (v == 0)
                                     : v;
    return true;
  }
  if (at(TokenKind::Identifier) && tok_.text == "WARP_SZ") {
    value = 32; // the one predefined constant of PTX
    advance();
    return true;
  }
  unexpected("a constant expression");
  return false;
}

bool Parser::parseConstExpr(int64_t &value, int minPrec) {
  NestingLevel level(*this);
  if (!level.ok())
    return false;
  if (!parseConstPrimary(value))
    return false;
  return parseConstExprRest(value, minPrec);
}

bool Parser::parseConstExprRest(int64_t &value, int minPrec) {
  for (;;) {
    int prec = precedence(tok_.kind);
    if (at(TokenKind::Question) && minPrec == 0) {
      advance();
      int64_t a = 0, b = 0;
      if (!parseConstExpr(a) || !expect(TokenKind::Colon, "':'") || !parseConstExpr(b))
        return false;
      value = value ? a : b;
      continue;
    }
    if (prec < 0 || prec <= minPrec - 1 || prec < minPrec)
      return true;
    Token op = tok_;
    advance();
    int64_t rhs = 0;
    if (!parseConstExpr(rhs, prec + 1))
      return false;
    uint64_t a = static_cast<uint64_t>(value), b = static_cast<uint64_t>(rhs);
    switch (op.kind) {
    case TokenKind::Star: value = static_cast<int64_t>(a * b); break;
    case TokenKind::Slash:
    case TokenKind::Percent:
      if (rhs == 0 || (value == INT64_MIN && rhs == -1)) {
        error(locOf(op), "division by zero in constant expression");
        return false;
      }
      value = op.kind == TokenKind::Slash ? value / rhs : value % rhs;
      break;
    case TokenKind::Plus: value = static_cast<int64_t>(a + b); break;
    case TokenKind::Minus: value = static_cast<int64_t>(a - b); break;
    case TokenKind::ShiftLeft: value = b >= 64 ? 0 : static_cast<int64_t>(a << b); break;
    case TokenKind::ShiftRight: value = b >= 64 ? (value < 0 ? -1 : 0) : value >> b; break;
    case TokenKind::Less: value = value < rhs; break;
    case TokenKind::Greater: value = value > rhs; break;
    case TokenKind::LessEqual: value = value <= rhs; break;
    case TokenKind::GreaterEqual: value = value >= rhs; break;
    case TokenKind::EqualEqual: value = value == rhs; break;
    case TokenKind::BangEqual: value = value != rhs; break;
    case TokenKind::Amp: value = static_cast<int64_t>(a & b); break;
    case TokenKind::Caret: value = static_cast<int64_t>(a ^ b); break;
    case TokenKind::Pipe: value = static_cast<int64_t>(a | b); break;
    case TokenKind::AmpAmp: value = value && rhs; break;
    case TokenKind::PipePipe: value = value || rhs; break;
    default: break;
    }
  }
}

// =============================================================================================
// Symbols

uint32_t Parser::addSymbol(SymbolKind kind, std::string_view name, uint32_t function, uint32_t index, SourceLoc loc) {
  Symbol sym;
  sym.kind = kind;
  sym.name = name;
  sym.function = function;
  sym.index = index;
  sym.loc = loc;
  m_.symbols.push_back(sym);
  return static_cast<uint32_t>(m_.symbols.size() - 1);
}

bool Parser::declareGlobal(std::string_view name, uint32_t symbol, SourceLoc loc, bool isDefinition) {
  auto [it, inserted] = globals_.try_emplace(name, symbol);
  if (inserted)
    return true;
  const Symbol &prev = m_.symbols[it->second];
  const Symbol &cur = m_.symbols[symbol];
  // A declaration (prototype, .extern) may be followed by the definition, and repeated.
  bool prevIsDecl = false;
  if (prev.kind == SymbolKind::Function && cur.kind == SymbolKind::Function)
    prevIsDecl = !m_.functions[prev.index].hasBody;
  if (prev.kind == SymbolKind::Variable && cur.kind == SymbolKind::Variable)
    prevIsDecl = m_.variables[prev.index].linkage == Linkage::Extern ||
                 m_.variables[prev.index].linkage == Linkage::Common ||
                 m_.variables[prev.index].linkage == Linkage::Weak;
  if (prevIsDecl) {
    if (isDefinition)
      it->second = symbol;
    return true;
  }
  if (!isDefinition && prev.kind == cur.kind)
    return true; // a redundant declaration after the definition
  error(loc, fmt::format("redefinition of '{}'", name));
  diags_.note(prev.loc, "previous definition is here");
  return false;
}

bool Parser::declareLocal(std::string_view name, uint32_t symbol, SourceLoc loc) {
  Scope &scope = scopes_.back();
  auto [it, inserted] = scope.symbols.try_emplace(name, symbol);
  if (!inserted) {
    error(loc, fmt::format("redefinition of '{}'", name));
    diags_.note(m_.symbols[it->second].loc, "previous definition is here");
    return false;
  }
  return true;
}

std::optional<uint32_t> Parser::findLocalSymbol(std::string_view name) const {
  for (size_t d = scopes_.depth(); d-- > 0;) {
    const Scope &scope = scopes_[d];
    if (scope.symbols.empty())
      continue;
    auto found = scope.symbols.find(name);
    if (found != scope.symbols.end())
      return found->second;
  }
  return std::nullopt;
}

std::optional<uint32_t> Parser::findRegister(std::string_view name) const {
  // Split a trailing decimal index so `%r17` finds the range %r<N> without a hash lookup.
  size_t digits = 0;
  while (digits < name.size() && name[name.size() - 1 - digits] >= '0' && name[name.size() - 1 - digits] <= '9')
    ++digits;
  std::string_view prefix = name.substr(0, name.size() - digits);
  uint32_t index = 0;
  bool canBeRange = digits > 0 && digits <= 9 && !(digits > 1 && name[prefix.size()] == '0');
  if (canBeRange)
    for (size_t i = prefix.size(); i < name.size(); ++i)
      index = index * 10 + static_cast<uint32_t>(name[i] - '0');
  for (size_t d = scopes_.depth(); d-- > 0;) {
    const Scope &scope = scopes_[d];
    if (canBeRange)
      for (const Scope::Range &r : scope.ranges)
        if (r.prefix == prefix && index < r.count)
          return r.first + index;
    if (!scope.registers.empty()) {
      auto found = scope.registers.find(name);
      if (found != scope.registers.end())
        return found->second;
    }
  }
  return std::nullopt;
}

bool Parser::patch(const PendingRef &ref, uint32_t symbol) {
  // A statement that failed to parse may leave a reference to a slot it never filled: check bounds.
  auto set = [&](auto &vec, uint32_t index, auto member) {
    if (index >= vec.size())
      return false;
    vec[index].*member = symbol;
    return true;
  };
  switch (ref.slot) {
  case PendingRef::Slot::Operand:
    return ref.a < m_.functions.size() && set(m_.functions[ref.a].operands, ref.b, &Operand::id);
  case PendingRef::Slot::Init:
    return ref.a < m_.variables.size() && set(m_.variables[ref.a].init, ref.b, &InitItem::symbol);
  case PendingRef::Slot::SectionValue:
    return ref.a < m_.sections.size() && set(m_.sections[ref.a].values, ref.b, &SectionValue::symbol);
  case PendingRef::Slot::SectionMinus:
    return ref.a < m_.sections.size() && set(m_.sections[ref.a].values, ref.b, &SectionValue::minusSymbol);
  case PendingRef::Slot::LineFunctionName: return set(m_.lines, ref.a, &LineEntry::functionName);
  case PendingRef::Slot::TargetList:
    if (ref.a >= m_.functions.size() || ref.b >= m_.functions[ref.a].targetLists.size())
      return false;
    if (ref.c >= m_.functions[ref.a].targetLists[ref.b].symbols.size())
      return false;
    m_.functions[ref.a].targetLists[ref.b].symbols[ref.c] = symbol;
    return true;
  case PendingRef::Slot::Alias:
    if (ref.a >= m_.aliases.size())
      return false;
    (ref.b == 0 ? m_.aliases[ref.a].alias : m_.aliases[ref.a].aliasee) = symbol;
    return true;
  }
  return false;
}

void Parser::resolvePending(std::vector<PendingRef> &refs, bool moduleEnd) {
  for (const PendingRef &ref : refs) {
    if (!moduleEnd) {
      auto it = labels_.find(ref.name);
      if (it != labels_.end()) {
        patch(ref, it->second);
        continue;
      }
      pendingModule_.push_back(ref);
      continue;
    }
    auto it = globals_.find(ref.name);
    if (it != globals_.end()) {
      patch(ref, it->second);
      continue;
    }
    // DWARF sections and .loc function names may name labels and parameters inside functions.
    bool dwarf = ref.slot == PendingRef::Slot::SectionValue || ref.slot == PendingRef::Slot::SectionMinus ||
                 ref.slot == PendingRef::Slot::LineFunctionName;
    if (dwarf) {
      if (anySymbol_.empty()) // built once, only for modules whose DWARF names local symbols
        for (uint32_t id = 0; id < m_.symbols.size(); ++id)
          anySymbol_.try_emplace(m_.symbols[id].name, id);
      auto any = anySymbol_.find(ref.name);
      if (any != anySymbol_.end()) {
        patch(ref, any->second);
        continue;
      }
      // ptxas builds .debug_line (and may build other DWARF sections) itself; PTX may name them
      // without defining them.
      if (ref.name.starts_with(".debug_")) {
        uint32_t sym = addSymbol(SymbolKind::Section, ref.name, kNone, kNone, ref.loc);
        globals_.emplace(ref.name, sym);
        anySymbol_.emplace(ref.name, sym);
        patch(ref, sym);
        continue;
      }
    }
    error(ref.loc, fmt::format("use of undeclared identifier '{}'", ref.name));
  }
  refs.clear();
}

} // namespace ptxray::ptx::detail
