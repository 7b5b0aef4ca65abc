// Function bodies: registers, .loc, labels, instructions and their operands.
#include "ptx/ParserImpl.h"

namespace ptxray::ptx::detail {

// =============================================================================================
// Function bodies

void Parser::parseBody(uint32_t fnIndex) {
  int depth = 0;
  while (!diags_.full()) {
    Function &fn = m_.functions[fnIndex];
    switch (tok_.kind) {
    case TokenKind::End: errorHere(fmt::format("expected '}}' at end of function '{}'", fn.name)); return;
    case TokenKind::RBrace:
      advance();
      if (depth == 0)
        return;
      --depth;
      scopes_.pop();
      fn.statements.push_back({StatementKind::BlockEnd, 0});
      continue;
    case TokenKind::LBrace:
      advance();
      ++depth;
      scopes_.push();
      fn.statements.push_back({StatementKind::BlockBegin, 0});
      continue;
    case TokenKind::Semicolon: advance(); continue;
    case TokenKind::At: parseInstruction(fnIndex); continue;
    case TokenKind::Identifier:
      if (peek().kind == TokenKind::Colon) {
        parseLabelStatement(fnIndex);
        continue;
      }
      parseInstruction(fnIndex);
      continue;
    case TokenKind::DotWord: {
      std::string_view d = tok_.text;
      if (d == ".reg") {
        parseRegisterDecl(fnIndex);
        continue;
      }
      if (d == ".loc") {
        parseLoc(fnIndex);
        continue;
      }
      if (d == ".pragma") {
        advance();
        std::string_view text = parsePragmaText();
        if (!text.empty()) {
          Function &f = m_.functions[fnIndex];
          f.bodyPragmas.push_back(text);
          f.statements.push_back({StatementKind::Pragma, static_cast<uint32_t>(f.bodyPragmas.size() - 1)});
        }
        continue;
      }
      if (d == ".local" || d == ".shared" || d == ".param" || d == ".const" || d == ".global" ||
          d.starts_with(".shared::") || d == ".align") {
        parseVariableDecl(Linkage::None, fnIndex, false);
        continue;
      }
      if (d == ".dwarf" || d == ".file" || d == ".section") {
        errorHere(fmt::format("{} is not allowed inside a function", d));
        advance();
        skipStatement();
        continue;
      }
      errorHere(fmt::format("unknown directive {} in function body", tokenText(tok_)));
      advance();
      skipStatement();
      continue;
    }
    case TokenKind::Hash:
      errorHere("preprocessor directives are not supported; run the C preprocessor first");
      advance();
      continue;
    default:
      if (!reportBadToken())
        errorHere(fmt::format("expected an instruction, found {}", tokenText(tok_)));
      advance();
      skipStatement();
      continue;
    }
  }
}

void Parser::parseRegisterDecl(uint32_t fnIndex) {
  advance();
  RegisterDecl decl;
  while (at(TokenKind::DotWord)) {
    std::string_view d = tok_.text;
    if (uint8_t width = vectorWidthOf(d)) {
      decl.vectorWidth = width;
      advance();
      continue;
    }
    auto mod = lookupMod(d);
    if (mod && isType(*mod) && decl.type == Mod::None) {
      decl.type = *mod;
      advance();
      continue;
    }
    errorHere(fmt::format("unexpected {} in register declaration", tokenText(tok_)));
    return skipStatement();
  }
  if (decl.type == Mod::None) {
    unexpected("a register type");
    return skipStatement();
  }
  Function &fn = m_.functions[fnIndex];
  for (;;) {
    if (!at(TokenKind::Identifier)) {
      unexpected("a register name");
      return skipStatement();
    }
    RegisterDecl::Item item;
    item.name = tok_.text;
    SourceLoc loc = here();
    advance();
    item.firstRegister = static_cast<uint32_t>(fn.registers.size());
    if (at(TokenKind::Less)) {
      advance();
      uint64_t n = 0;
      if (!parseUnsigned(n, "a register count"))
        return skipStatement();
      if (!expect(TokenKind::Greater, "'>'"))
        return skipStatement();
      // Every declared register is an IR entry, and a 20-byte line can declare millions: the
      // limits keep a hostile module's memory bounded, far above what compilers declare.
      if (fn.registers.size() + n > kMaxRegistersPerFunction) {
        error(loc, fmt::format("'{}<{}>' declares more registers than ptxray takes in one function ({})", item.name, n,
                               kMaxRegistersPerFunction));
        return skipStatement();
      }
      if (*moduleRegisters_ + n > kMaxRegistersPerModule) {
        error(loc, fmt::format("'{}<{}>' declares more registers than ptxray takes in one module ({})", item.name, n,
                               kMaxRegistersPerModule));
        return skipStatement();
      }
      *moduleRegisters_ += n;
      item.rangeCount = static_cast<int32_t>(n);
      Scope &scope = scopes_.back();
      for (const Scope::Range &r : scope.ranges)
        if (r.prefix == item.name)
          error(loc, fmt::format("redefinition of register range '{}<...>'", item.name));
      for (const auto &[existing, reg] : scope.registers) {
        std::string_view rest = existing.substr(std::min(existing.size(), item.name.size()));
        if (!existing.starts_with(item.name) || rest.empty() || rest.size() > 9 ||
            (rest.size() > 1 && rest[0] == '0') || rest.find_first_not_of("0123456789") != std::string_view::npos)
          continue;
        if (std::stoul(std::string(rest)) < n)
          error(loc, fmt::format("register range '{}<{}>' redefines register '{}'", item.name, n, existing));
      }
      scope.ranges.push_back({item.name, static_cast<uint32_t>(n), item.firstRegister});
      for (uint32_t i = 0; i < n; ++i)
        fn.registers.push_back({item.name, static_cast<int32_t>(i), decl.type, decl.vectorWidth});
    } else {
      if (lookupSpecialReg(item.name))
        error(loc, fmt::format("'{}' is a special register and cannot be declared", item.name));
      Scope &scope = scopes_.back();
      bool dup = !scope.registers.try_emplace(item.name, item.firstRegister).second;
      if (!dup) {
        for (const Scope::Range &r : scope.ranges) {
          std::string_view nm = item.name;
          if (nm.starts_with(r.prefix) && nm.size() > r.prefix.size()) {
            auto rest = nm.substr(r.prefix.size());
            uint32_t idx = 0;
            bool digitsOnly = !rest.empty() && rest.size() <= 9 && !(rest.size() > 1 && rest[0] == '0');
            for (char c : rest) {
              if (c < '0' || c > '9')
                digitsOnly = false;
              else
                idx = idx * 10 + static_cast<uint32_t>(c - '0');
            }
            dup = dup || (digitsOnly && idx < r.count);
          }
        }
      }
      if (dup)
        error(loc, fmt::format("redefinition of register '{}'", item.name));
      fn.registers.push_back({item.name, -1, decl.type, decl.vectorWidth});
    }
    decl.items.push_back(item);
    if (!at(TokenKind::Comma))
      break;
    advance();
  }
  fn.registerDecls.push_back(std::move(decl));
  fn.statements.push_back({StatementKind::RegisterDecl, static_cast<uint32_t>(fn.registerDecls.size() - 1)});
  expectSemicolon();
}

void Parser::parseLoc(uint32_t fnIndex) {
  SourceLoc locLoc = here();
  uint32_t directiveOffset = tok_.offset;
  advance();
  LineEntry entry;
  uint64_t file = 0, line = 0, col = 0;
  if (!parseUnsigned(file, "a file index") || !parseUnsigned(line, "a line number") || !parseUnsigned(col, "a column"))
    return skipLineRest(directiveOffset);
  entry.file = static_cast<uint32_t>(file);
  entry.line = static_cast<uint32_t>(line);
  entry.column = static_cast<uint32_t>(col);
  entry.loc = locLoc;
  uint32_t index = static_cast<uint32_t>(m_.lines.size());
  while (at(TokenKind::Comma)) {
    advance();
    if (at(TokenKind::Identifier) && tok_.text == "function_name") {
      advance();
      if (!at(TokenKind::Identifier) && !at(TokenKind::DotWord)) {
        unexpected("a .debug_str label");
        return skipLineRest(directiveOffset);
      }
      pendingModule_.push_back({PendingRef::Slot::LineFunctionName, tok_.text, here(), index});
      advance();
      if ((at(TokenKind::Plus) || at(TokenKind::Minus)) && !parseOffset(entry.functionNameOffset))
        return skipLineRest(directiveOffset);
      continue;
    }
    if (at(TokenKind::Identifier) && tok_.text == "inlined_at") {
      advance();
      uint64_t f2 = 0, l2 = 0, c2 = 0;
      if (!parseUnsigned(f2, "a file index") || !parseUnsigned(l2, "a line number") || !parseUnsigned(c2, "a column"))
        return skipLineRest(directiveOffset);
      entry.hasInlinedAt = true;
      entry.atFile = static_cast<uint32_t>(f2);
      entry.atLine = static_cast<uint32_t>(l2);
      entry.atColumn = static_cast<uint32_t>(c2);
      // The call site is a location that lexically precedes this one; its own entry carries the rest
      // of the inlining chain.
      uint64_t key = (f2 << 48) ^ (l2 << 20) ^ c2;
      auto it = locByPosition_.find(key);
      if (it != locByPosition_.end())
        entry.inlinedAt = it->second;
      else
        error(locLoc, fmt::format("inlined_at {} {} {} names no earlier .loc of this function", f2, l2, c2));
      continue;
    }
    unexpected("'function_name' or 'inlined_at'");
    return skipLineRest(directiveOffset);
  }
  if (entry.hasInlinedAt !=
      (entry.functionName != kNone ||
       (!pendingModule_.empty() && pendingModule_.back().slot == PendingRef::Slot::LineFunctionName &&
        pendingModule_.back().a == index)))
    error(locLoc, "function_name and inlined_at must be given together");
  entry.file += fileIndexBase_;
  if (entry.hasInlinedAt)
    entry.atFile += fileIndexBase_;
  m_.lines.push_back(entry);
  uint64_t key = (file << 48) ^ (line << 20) ^ col;
  locByPosition_[key] = index;
  currentLine_ = index;
  Function &fn = m_.functions[fnIndex];
  fn.locs.push_back(index);
  fn.statements.push_back({StatementKind::Loc, index});
  if (at(TokenKind::Semicolon))
    advance();
}

void Parser::parseLabelStatement(uint32_t fnIndex) {
  std::string_view name = tok_.text;
  SourceLoc loc = here();
  advance(); // name
  advance(); // ':'
  Function &fn = m_.functions[fnIndex];
  if (atDot(".callprototype")) {
    advance();
    Prototype proto;
    uint32_t protoIndex = static_cast<uint32_t>(fn.prototypes.size());
    uint32_t sym = addSymbol(SymbolKind::Prototype, name, fnIndex, protoIndex, loc);
    if (!labels_.try_emplace(name, sym).second)
      error(loc, fmt::format("redefinition of label '{}'", name));
    if (at(TokenKind::LParen) && !parseParamList(proto.returns, kNone, true))
      return skipStatement();
    if (!at(TokenKind::Identifier) || tok_.text != "_") {
      unexpected("'_' in .callprototype");
      return skipStatement();
    }
    advance();
    if (at(TokenKind::LParen) && !parseParamList(proto.params, kNone, true))
      return skipStatement();
    if (atDot(".noreturn")) {
      proto.noReturn = true;
      advance();
    }
    m_.functions[fnIndex].prototypes.push_back(std::move(proto));
    m_.functions[fnIndex].statements.push_back({StatementKind::Prototype, protoIndex});
    expectSemicolon();
    return;
  }
  if (atDot(".branchtargets") || atDot(".calltargets")) {
    bool branch = tok_.text == ".branchtargets";
    advance();
    uint32_t listIndex = static_cast<uint32_t>(fn.targetLists.size());
    uint32_t sym =
        addSymbol(branch ? SymbolKind::BranchTargets : SymbolKind::CallTargets, name, fnIndex, listIndex, loc);
    if (!labels_.try_emplace(name, sym).second)
      error(loc, fmt::format("redefinition of label '{}'", name));
    TargetList list;
    m_.functions[fnIndex].targetLists.push_back(list);
    for (;;) {
      if (!at(TokenKind::Identifier)) {
        unexpected(branch ? "a label" : "a function name");
        return skipStatement();
      }
      auto &symbols = m_.functions[fnIndex].targetLists[listIndex].symbols;
      symbols.push_back(kNone);
      (branch ? pendingFunction_ : pendingModule_)
          .push_back({PendingRef::Slot::TargetList, tok_.text, here(), fnIndex, listIndex,
                      static_cast<uint32_t>(symbols.size() - 1)});
      advance();
      if (!at(TokenKind::Comma))
        break;
      advance();
    }
    m_.functions[fnIndex].statements.push_back(
        {branch ? StatementKind::BranchTargets : StatementKind::CallTargets, listIndex});
    expectSemicolon();
    return;
  }
  uint32_t sym = addSymbol(SymbolKind::Label, name, fnIndex, static_cast<uint32_t>(fn.statements.size()), loc);
  auto [it, inserted] = labels_.try_emplace(name, sym);
  if (!inserted) {
    error(loc, fmt::format("redefinition of label '{}'", name));
    diags_.note(m_.symbols[it->second].loc, "previous definition is here");
  }
  fn.statements.push_back({StatementKind::Label, sym});
}

bool Parser::parseOffset(int64_t &offset) {
  // `+imm`, `-imm`, `+-imm`, or `+(expr)`.
  bool negative = at(TokenKind::Minus);
  advance();
  int64_t v = 0;
  if (!parseConstExpr(v, 10)) // bind tighter than + so `a+4` stays an offset
    return false;
  offset = negative ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : v;
  return true;
}

bool Parser::resolveName(uint32_t fnIndex, const Token &name, Operand &out) {
  if (auto reg = findRegister(name.text)) {
    out.kind = OperandKind::Register;
    out.id = *reg;
    return true;
  }
  if (name.text[0] == '%') {
    if (auto sreg = lookupSpecialReg(name.text)) {
      out.kind = OperandKind::SpecialReg;
      out.id = static_cast<uint32_t>(*sreg);
      return true;
    }
    // %envreg and %pm registers are numbered; anything else with % must be a declared register.
    error(locOf(name), fmt::format("use of undeclared register '{}'", name.text));
    return false;
  }
  out.kind = OperandKind::Symbol;
  if (auto sym = findLocalSymbol(name.text)) {
    out.id = *sym;
    return true;
  }
  if (auto it = labels_.find(name.text); it != labels_.end()) {
    out.id = it->second;
    return true;
  }
  // Labels may be used before they are defined, functions and variables too (resolved later).
  out.id = kNone;
  pendingFunction_.push_back({PendingRef::Slot::Operand, name.text, locOf(name), fnIndex, kFreshReference});
  return true;
}

bool Parser::addChildren(uint32_t fnIndex, std::vector<Operand> &items, Operand &parent) {
  Function &fn = m_.functions[fnIndex];
  parent.first = static_cast<uint32_t>(fn.operands.size());
  parent.count = static_cast<uint32_t>(items.size());
  // Children were parsed into a scratch vector; pending slots index the final position.
  for (Operand &child : items)
    fn.operands.push_back(child);
  return true;
}

/// A register, special register or symbol by name, with a register's component or byte/half
/// selector (`%tid.x`, `%r1.h0`).
bool Parser::parseNamedOperand(uint32_t fnIndex, Operand &out) {
  Token name = tok_;
  advance();
  if (!resolveName(fnIndex, name, out))
    return false;
  if (at(TokenKind::DotWord) && out.kind != OperandKind::Symbol) {
    uint32_t sel = encodeSelector(tok_.text.substr(1));
    if (sel != 0) {
      out.selector = sel;
      advance();
    }
  }
  return true;
}

bool Parser::parseOperandPrimary(uint32_t fnIndex, Operand &out, bool inCall) {
  NestingLevel level(*this);
  if (!level.ok())
    return false;
  out.sourceOffset = tok_.offset;
  switch (tok_.kind) {
  case TokenKind::LBrace:
  case TokenKind::LParen: {
    bool isList = at(TokenKind::LParen);
    if (isList && !inCall) {
      int64_t v = 0;
      if (!parseConstExpr(v))
        return false;
      out.kind = OperandKind::Immediate;
      out.value = v;
      return true;
    }
    TokenKind close = isList ? TokenKind::RParen : TokenKind::RBrace;
    advance();
    // Children are appended contiguously after their own children.
    ScratchOperands scratch(*this);
    std::vector<Operand> &items = *scratch;
    size_t pendingBefore = pendingFunction_.size();
    if (!at(close)) {
      for (;;) {
        skipLabelsInCall(fnIndex, inCall);
        Operand child;
        size_t mark = pendingFunction_.size();
        if (!parseOperand(fnIndex, child, false)) {
          skipToClose(close);
          return false;
        }
        notePosition(mark, items.size());
        items.push_back(child);
        if (!at(TokenKind::Comma))
          break;
        advance();
      }
    }
    if (!expect(close, isList ? "',' or ')'" : "',' or '}'"))
      return false;
    out.kind = isList ? OperandKind::List : OperandKind::Vector;
    addChildren(fnIndex, items, out);
    placeList(pendingBefore, out.first);
    return true;
  }
  case TokenKind::LBracket: return parseAddress(fnIndex, out);
  case TokenKind::Bang: {
    advance();
    if (!parseOperandPrimary(fnIndex, out, false))
      return false;
    out.flags |= Operand::Negated;
    return true;
  }
  case TokenKind::Identifier: {
    if (tok_.text == "_") {
      out.kind = OperandKind::Sink;
      advance();
      return true;
    }
    if (tok_.text == "WARP_SZ") {
      out.kind = OperandKind::Immediate;
      out.value = 32; // the one predefined constant of PTX
      advance();
      return parseConstExprRest(out.value, 0);
    }
    if (!parseNamedOperand(fnIndex, out))
      return false;
    if (out.kind == OperandKind::SpecialReg && specialRegIsVector(static_cast<SpecialReg>(out.id)) &&
        out.selector == 0) {
      // `mov.u32 %r1, %tid;` is only valid for vector destinations; the verifier checks that.
    }
    if (out.kind == OperandKind::Symbol && (at(TokenKind::Plus) || at(TokenKind::Minus))) {
      if (!parseOffset(out.value))
        return false;
    }
    return true;
  }
  case TokenKind::Float: {
    uint64_t bits = 0;
    int width = 0;
    if (!parseFloatLiteral(tok_.text, bits, width)) {
      errorHere(fmt::format("invalid floating-point literal {}", tokenText(tok_)));
      advance();
      return false;
    }
    out.kind = width == 32 ? OperandKind::Float32 : OperandKind::Float64;
    out.value = static_cast<int64_t>(bits);
    advance();
    return true;
  }
  case TokenKind::Minus:
    if (peek().kind == TokenKind::Identifier && peek().text != "WARP_SZ") {
      advance();
      if (!parseOperandPrimary(fnIndex, out, false))
        return false;
      out.flags |= Operand::Minus;
      return true;
    }
    if (peek().kind == TokenKind::Float) {
      advance();
      if (!parseOperandPrimary(fnIndex, out, false))
        return false;
      out.value ^= out.kind == OperandKind::Float32 ? 0x80000000ll : INT64_MIN;
      return true;
    }
    [[fallthrough]];
  case TokenKind::Integer:
  case TokenKind::Tilde:
  case TokenKind::Plus: {
    bool isUnsigned = false;
    int64_t v = 0;
    if (at(TokenKind::Integer)) {
      uint64_t literal = 0;
      if (!parseIntegerLiteral(tok_.text, literal, isUnsigned)) {
        errorHere(fmt::format("invalid integer literal {}", tokenText(tok_)));
        advance();
        return false;
      }
      advance();
      v = static_cast<int64_t>(literal);
      if (!parseConstExprRest(v, 0))
        return false;
    } else if (!parseConstExpr(v)) {
      return false;
    }
    out.kind = OperandKind::Immediate;
    out.value = v;
    if (isUnsigned)
      out.flags |= Operand::Unsigned;
    return true;
  }
  default: unexpected("an operand"); return false;
  }
}

bool Parser::parseOperand(uint32_t fnIndex, Operand &out, bool inCall) {
  size_t firstMark = pendingFunction_.size();
  if (!parseOperandPrimary(fnIndex, out, inCall))
    return false;
  if (!at(TokenKind::Pipe))
    return true;
  advance();
  Operand second;
  ScratchOperands scratch(*this);
  std::vector<Operand> &items = *scratch;
  items.push_back(out);
  size_t secondMark = pendingFunction_.size();
  if (!parseOperandPrimary(fnIndex, second, false))
    return false;
  items.push_back(second);
  Operand pair;
  pair.kind = OperandKind::Pair;
  pair.sourceOffset = items[0].sourceOffset;
  addChildren(fnIndex, items, pair);
  for (size_t i = firstMark; i < pendingFunction_.size(); ++i)
    if (pendingFunction_[i].b == kFreshReference)
      pendingFunction_[i].b = pair.first + (i < secondMark ? 0 : 1);
  out = pair;
  return true;
}

bool Parser::parseAddressElement(uint32_t fnIndex, Operand &out) {
  out.sourceOffset = tok_.offset;
  if (at(TokenKind::LBrace))
    return parseOperandPrimary(fnIndex, out, false);
  if (at(TokenKind::Identifier) && tok_.text != "WARP_SZ") {
    if (!parseNamedOperand(fnIndex, out))
      return false;
    if ((at(TokenKind::Plus) || at(TokenKind::Minus)) && !parseOffset(out.value))
      return false;
    return true;
  }
  int64_t v = 0;
  if (!parseConstExpr(v))
    return false;
  out.kind = OperandKind::Immediate;
  out.value = v;
  return true;
}

bool Parser::parseAddress(uint32_t fnIndex, Operand &out) {
  advance(); // '['
  ScratchOperands scratch(*this);
  std::vector<Operand> &items = *scratch;
  size_t pendingBefore = pendingFunction_.size();
  for (;;) {
    Operand child;
    size_t mark = pendingFunction_.size();
    if (!parseAddressElement(fnIndex, child)) {
      skipToClose(TokenKind::RBracket);
      return false;
    }
    notePosition(mark, items.size());
    items.push_back(child);
    if (!at(TokenKind::Comma))
      break;
    advance();
  }
  if (!expect(TokenKind::RBracket, "']'"))
    return false;
  out.kind = OperandKind::Address;
  if (atDot(".unified")) {
    out.flags |= Operand::Unified;
    advance();
  }
  addChildren(fnIndex, items, out);
  placeList(pendingBefore, out.first);
  return true;
}

void Parser::deriveTypedFields(Instruction &inst) {
  for (int i = 0; i < inst.numMods; ++i) {
    Mod mod = inst.mods[i];
    switch (category(mod)) {
    case ModCategory::Type:
      if (inst.numTypes < Instruction::kMaxTypes)
        inst.types[inst.numTypes++] = mod;
      break;
    case ModCategory::Space:
      if (inst.space == StateSpace::None) {
        inst.space = spaceOfMod(mod);
        inst.spaceMod = mod;
      }
      break;
    case ModCategory::Rounding: inst.rounding = mod; break;
    case ModCategory::Compare:
      if (isCompareOpcode(inst.opcode))
        inst.compare = mod;
      break;
    case ModCategory::Vector: {
      std::string_view s = spelling(mod);
      int width = 0;
      for (size_t k = 2; k < s.size(); ++k)
        width = width * 10 + (s[k] - '0');
      inst.vectorWidth = static_cast<uint8_t>(width);
      break;
    }
    case ModCategory::Cache: inst.cache = mod; break;
    case ModCategory::Scope: inst.scope = mod; break;
    case ModCategory::Semantics: inst.semantics = mod; break;
    case ModCategory::Other:
      if (mod == Mod::sync)
        inst.sync = true;
      else if (mod == Mod::aligned)
        inst.aligned = true;
      else if (mod == Mod::uni)
        inst.uni = true;
      else if (mod == Mod::ftz)
        inst.ftz = true;
      else if (mod == Mod::sat)
        inst.sat = true;
      else if (mod == Mod::volatile_)
        inst.isVolatile = true;
      else if ((mod == Mod::and_ || mod == Mod::or_ || mod == Mod::xor_) && isCompareOpcode(inst.opcode))
        inst.boolOp = mod;
      break;
    }
  }
}

void Parser::parseInstruction(uint32_t fnIndex) {
  Instruction inst;
  SourceLoc start = here();
  if (at(TokenKind::At)) {
    advance();
    if (at(TokenKind::Bang)) {
      inst.guardNegated = true;
      advance();
    }
    if (!at(TokenKind::Identifier)) {
      unexpected("a predicate register after '@'");
      return skipStatement();
    }
    auto reg = findRegister(tok_.text);
    if (!reg) {
      errorHere(fmt::format("use of undeclared register '{}'", tok_.text));
      advance();
      return skipStatement();
    }
    if (typeInfo(m_.functions[fnIndex].registers[*reg].type).kind != TypeKind::Pred)
      errorHere(fmt::format("guard '{}' is not a .pred register", tok_.text));
    inst.guard = *reg;
    advance();
  }
  if (!at(TokenKind::Identifier)) {
    unexpected("an instruction");
    return skipStatement();
  }
  SourceLoc opLoc = here();
  auto op = lookupOpcode(tok_.text);
  if (!op) {
    errorHere(fmt::format("unknown instruction '{}'", tok_.text));
    advance();
    return skipStatement();
  }
  inst.opcode = *op;
  advance();
  bool bad = false;
  while (at(TokenKind::DotWord)) {
    auto mod = lookupMod(tok_.text);
    if (!mod) {
      errorHere(fmt::format("unknown modifier '{}' on '{}'", tok_.text, spelling(inst.opcode)));
      bad = true;
    } else if (!opcodeAllows(inst.opcode, *mod)) {
      errorHere(fmt::format("modifier '{}' is not valid on '{}'", tok_.text, spelling(inst.opcode)));
      bad = true;
    } else if (inst.numMods == Instruction::kMaxMods) {
      errorHere("too many modifiers");
      bad = true;
    } else {
      inst.mods[inst.numMods++] = *mod;
    }
    advance();
  }
  if (bad)
    return skipStatement();
  deriveTypedFields(inst);

  bool inCall = inst.opcode == Opcode::call;
  ScratchOperands scratch(*this);
  std::vector<Operand> &top = *scratch;
  size_t pendingBefore = pendingFunction_.size();
  if (!at(TokenKind::Semicolon)) {
    for (;;) {
      skipLabelsInCall(fnIndex, inCall);
      Operand operand;
      size_t mark = pendingFunction_.size();
      if (!parseOperand(fnIndex, operand, inCall)) {
        pendingFunction_.resize(pendingBefore); // the statement is dropped, and so are its references
        return skipStatement();
      }
      notePosition(mark, top.size());
      top.push_back(operand);
      if (!at(TokenKind::Comma))
        break;
      advance();
    }
  }
  // `ld.global.nc.u32 %r, [a], cache_policy` etc. are all comma-separated; `.unified` after the
  // address of call-like instructions is rare; anything else before ';' is an error.
  if (!expectSemicolon()) {
    pendingFunction_.resize(pendingBefore);
    return;
  }
  Function &f = m_.functions[fnIndex];
  inst.firstOperand = static_cast<uint32_t>(f.operands.size());
  inst.numOperands = static_cast<uint16_t>(top.size());
  for (const Operand &o : top)
    f.operands.push_back(o);
  placeList(pendingBefore, inst.firstOperand);
  inst.line = currentLine_;
  inst.loc = start;
  inst.loc.length = opLoc.offset - start.offset + opLoc.length;
  f.instructions.push_back(inst);
  f.statements.push_back({StatementKind::Instruction, static_cast<uint32_t>(f.instructions.size() - 1)});
}

} // namespace ptxray::ptx::detail
