// Declarations: kernels and functions with their parameters and directives, variables and initializers.
#include "ptx/ParserImpl.h"

namespace ptxray::ptx::detail {

// =============================================================================================
// Declarations

bool Parser::parseParam(uint32_t &varIndex, uint32_t function, bool allowUnnamed) {
  Variable var;
  if (!at(TokenKind::DotWord) || (tok_.text != ".param" && tok_.text != ".reg")) {
    unexpected("'.param' or '.reg'");
    return false;
  }
  var.space = tok_.text == ".param" ? StateSpace::Param : StateSpace::Reg;
  var.spaceMod = lookupMod(tok_.text).value_or(Mod::None);
  advance();
  while (at(TokenKind::DotWord)) {
    std::string_view d = tok_.text;
    if (d == ".align") {
      advance();
      uint64_t a = 0;
      SourceLoc valueLoc = here();
      if (!parseUnsigned(a, "an alignment"))
        return false;
      if (a == 0 || (a & (a - 1)) != 0)
        error(valueLoc, fmt::format("alignment {} is not a power of two", a));
      if (var.isPointer)
        var.pointeeAlign = static_cast<uint32_t>(a);
      else
        var.align = static_cast<uint32_t>(a);
      continue;
    }
    if (d == ".ptr") {
      var.isPointer = true;
      advance();
      continue;
    }
    if (var.isPointer && (d == ".global" || d == ".shared" || d == ".const" || d == ".local")) {
      var.pointeeSpace = spaceOfMod(*lookupMod(d));
      advance();
      continue;
    }
    if (uint8_t width = vectorWidthOf(d)) {
      var.vectorWidth = width;
      advance();
      continue;
    }
    auto mod = lookupMod(d);
    if (mod && isType(*mod)) {
      if (var.type != Mod::None)
        errorHere("more than one type in parameter declaration");
      var.type = *mod;
      advance();
      continue;
    }
    errorHere(fmt::format("unexpected {} in parameter declaration", tokenText(tok_)));
    return false;
  }
  if (var.type == Mod::None) {
    unexpected("a parameter type");
    return false;
  }
  if (!at(TokenKind::Identifier)) {
    unexpected("a parameter name");
    return false;
  }
  std::string_view name = tok_.text;
  SourceLoc loc = here();
  var.loc = loc;
  advance();
  while (at(TokenKind::LBracket)) {
    advance();
    uint64_t n = 0;
    if (at(TokenKind::RBracket)) {
      var.dims.push_back(0);
    } else {
      if (!parseUnsigned(n, "an array size"))
        return false;
      if (n == 0)
        error(loc, "array size must be positive, not 0"); // at the name, as for variables
      var.dims.push_back(n);
    }
    if (!expect(TokenKind::RBracket, "']'"))
      return false;
  }
  m_.variables.push_back(std::move(var));
  varIndex = static_cast<uint32_t>(m_.variables.size() - 1);
  uint32_t sym = addSymbol(SymbolKind::Variable, name, function, varIndex, loc);
  if (!(allowUnnamed && name == "_") && function != kNone)
    declareLocal(name, sym, loc);
  return true;
}

bool Parser::parseParamList(std::vector<uint32_t> &out, uint32_t function, bool allowUnnamed) {
  if (!expect(TokenKind::LParen, "'('"))
    return false;
  if (at(TokenKind::RParen)) {
    advance();
    return true;
  }
  for (;;) {
    uint32_t v = 0;
    if (!parseParam(v, function, allowUnnamed))
      return false;
    out.push_back(v);
    if (at(TokenKind::Comma)) {
      advance();
      continue;
    }
    return expect(TokenKind::RParen, "',' or ')'");
  }
}

void Parser::parsePerfDirective(Function &fn) {
  static const std::pair<std::string_view, PerfDirectiveKind> kDirectives[] = {
      {".maxntid", PerfDirectiveKind::MaxNTid},
      {".reqntid", PerfDirectiveKind::ReqNTid},
      {".minnctapersm", PerfDirectiveKind::MinNCtaPerSm},
      {".maxnctapersm", PerfDirectiveKind::MaxNCtaPerSm},
      {".maxnreg", PerfDirectiveKind::MaxNReg},
      {".noreturn", PerfDirectiveKind::NoReturn},
      {".explicitcluster", PerfDirectiveKind::ExplicitCluster},
      {".reqnctapercluster", PerfDirectiveKind::ReqNCtaPerCluster},
      {".maxclusterrank", PerfDirectiveKind::MaxClusterRank},
      {".blocksareclusters", PerfDirectiveKind::BlocksAreClusters},
      {".abi_preserve", PerfDirectiveKind::AbiPreserve},
      {".abi_preserve_control", PerfDirectiveKind::AbiPreserveControl},
  };
  PerfDirective dir;
  bool found = false;
  for (auto [name, kind] : kDirectives)
    if (tok_.text == name) {
      dir.kind = kind;
      found = true;
    }
  if (!found) {
    errorHere(fmt::format("unknown directive {} in function declaration", tokenText(tok_)));
    advance();
    while (at(TokenKind::Integer) || at(TokenKind::Comma))
      advance();
    return;
  }
  SourceLoc loc = here();
  advance();
  bool takesValues = dir.kind != PerfDirectiveKind::NoReturn && dir.kind != PerfDirectiveKind::ExplicitCluster &&
                     dir.kind != PerfDirectiveKind::BlocksAreClusters;
  while (takesValues && at(TokenKind::Integer)) {
    uint64_t v = 0;
    if (!parseUnsigned(v, "a number"))
      return;
    dir.values.push_back(static_cast<uint32_t>(v));
    if (!at(TokenKind::Comma))
      break;
    advance();
  }
  bool isDim = dir.kind == PerfDirectiveKind::MaxNTid || dir.kind == PerfDirectiveKind::ReqNTid ||
               dir.kind == PerfDirectiveKind::ReqNCtaPerCluster;
  if (takesValues && (dir.values.empty() || dir.values.size() > (isDim ? 3u : 1u)))
    error(loc, fmt::format("{} takes {}", spelling(dir.kind), isDim ? "1 to 3 values" : "one value"));
  if (dir.kind == PerfDirectiveKind::NoReturn && fn.isEntry)
    error(loc, ".noreturn is only allowed on .func");
  fn.directives.push_back(std::move(dir));
}

void Parser::parseFunction(Linkage linkage, bool isEntry, SourceLoc startLoc) {
  uint32_t fnIndex = static_cast<uint32_t>(m_.functions.size());
  m_.functions.emplace_back();
  {
    Function &fn = m_.functions.back();
    fn.isEntry = isEntry;
    fn.linkage = linkage;
    fn.loc = startLoc;
  }
  scopes_.reset();
  labels_.clear();
  locByPosition_.clear();
  currentLine_ = kNone;
  currentFunction_ = fnIndex;

  if (at(TokenKind::LParen)) { // for .entry too: the verifier says kernels cannot return values
    m_.functions[fnIndex].returnListLoc = here();
    std::vector<uint32_t> rets;
    m_.functions[fnIndex].hasReturnList = true;
    if (!parseParamList(rets, fnIndex, false))
      return skipStatement();
    m_.functions[fnIndex].returns = std::move(rets);
  }
  if (!at(TokenKind::Identifier)) {
    unexpected("a function name");
    m_.functions.pop_back();
    pendingFunction_.clear();
    return skipStatement();
  }
  std::string_view name = tok_.text;
  SourceLoc nameLoc = here();
  advance();
  {
    Function &fn = m_.functions[fnIndex];
    fn.name = name;
    fn.symbol = addSymbol(SymbolKind::Function, name, kNone, fnIndex, nameLoc);
  }
  if (at(TokenKind::LParen)) {
    std::vector<uint32_t> params;
    m_.functions[fnIndex].hasParamList = true;
    if (!parseParamList(params, fnIndex, false))
      return skipStatement();
    m_.functions[fnIndex].params = std::move(params);
  }
  while (at(TokenKind::DotWord)) {
    if (tok_.text == ".pragma") {
      advance();
      std::string_view text = parsePragmaText();
      if (!text.empty())
        m_.functions[fnIndex].pragmas.push_back(text);
      continue;
    }
    parsePerfDirective(m_.functions[fnIndex]);
  }
  if (!at(TokenKind::LBrace) && !at(TokenKind::Semicolon)) {
    unexpected("'{' or ';' after the function declaration");
    // Resynchronize on the body or the end of the declaration, whichever comes first.
    while (!at(TokenKind::End) && !at(TokenKind::LBrace) && !at(TokenKind::Semicolon) &&
           !(at(TokenKind::DotWord) && (tok_.text == ".entry" || tok_.text == ".func" || tok_.text == ".visible")))
      advance();
  }
  bool hasBody = at(TokenKind::LBrace);
  m_.functions[fnIndex].hasBody = hasBody;
  if (hasBody && linkage == Linkage::Extern)
    error(nameLoc, fmt::format("extern function '{}' cannot have a body", name));
  declareGlobal(name, m_.functions[fnIndex].symbol, nameLoc, hasBody);
  m_.items.push_back({TopLevelKind::Function, fnIndex});
  if (!hasBody) {
    if (at(TokenKind::Semicolon))
      advance();
    return;
  }
  advance();
  parseBody(fnIndex);
  finishFunction();
}

void Parser::finishFunction() {
  resolvePending(pendingFunction_, false);
  currentFunction_ = kNone;
  scopes_.reset(0);
}

void Parser::parseVariableDecl(Linkage linkage, uint32_t function, bool topLevel) {
  Variable proto;
  proto.linkage = linkage;
  while (at(TokenKind::DotWord)) {
    std::string_view d = tok_.text;
    if (d == ".align") {
      advance();
      uint64_t a = 0;
      SourceLoc valueLoc = here();
      if (!parseUnsigned(a, "an alignment"))
        return skipStatement();
      if (a == 0 || (a & (a - 1)) != 0)
        error(valueLoc, fmt::format("alignment {} is not a power of two", a));
      proto.align = static_cast<uint32_t>(a);
      continue;
    }
    if (uint8_t width = vectorWidthOf(d)) {
      proto.vectorWidth = width;
      advance();
      continue;
    }
    auto mod = lookupMod(d);
    if (mod && category(*mod) == ModCategory::Space && proto.space == StateSpace::None) {
      proto.space = spaceOfMod(*mod);
      proto.spaceMod = *mod;
      advance();
      continue;
    }
    if (d == ".tex" && proto.space == StateSpace::None) {
      proto.space = StateSpace::Tex;
      advance();
      continue;
    }
    if (mod && isType(*mod)) {
      if (proto.type != Mod::None)
        errorHere("more than one type in variable declaration");
      proto.type = *mod;
      advance();
      continue;
    }
    if (d == ".attribute") {
      // `.attribute(.managed)`, `.attribute(.unified(uuid1, uuid2))`: kept verbatim.
      uint32_t begin = tok_.offset;
      advance();
      int depth = 0;
      uint32_t end = tok_.offset;
      do {
        if (at(TokenKind::LParen))
          ++depth;
        if (at(TokenKind::RParen))
          --depth;
        end = tok_.offset + static_cast<uint32_t>(tok_.text.size());
        advance();
      } while (depth > 0 && !at(TokenKind::End));
      proto.attribute = lex_.text().substr(begin, end - begin);
      continue;
    }
    break;
  }
  if (proto.space == StateSpace::None) {
    unexpected("a state space");
    return skipStatement();
  }
  if (proto.type == Mod::None) {
    unexpected("a type");
    return skipStatement();
  }
  for (;;) {
    if (!at(TokenKind::Identifier)) {
      unexpected("a variable name");
      return skipStatement();
    }
    Variable var = proto;
    std::string_view name = tok_.text;
    SourceLoc loc = here();
    var.loc = loc;
    advance();
    while (at(TokenKind::LBracket)) {
      advance();
      if (at(TokenKind::RBracket)) {
        var.dims.push_back(0);
      } else {
        int64_t n = 0;
        if (!parseConstExpr(n))
          return skipStatement();
        if (n <= 0)
          error(loc, fmt::format("array size must be positive, not {}", n));
        var.dims.push_back(n <= 0 ? 1 : static_cast<uint64_t>(n)); // (one error, not a second on the size)
      }
      if (!expect(TokenKind::RBracket, "']'"))
        return skipStatement();
    }
    uint32_t varIndex = static_cast<uint32_t>(m_.variables.size());
    m_.variables.push_back(std::move(var));
    uint32_t sym = addSymbol(SymbolKind::Variable, name, function, varIndex, loc);
    if (topLevel) {
      bool isDefinition = linkage != Linkage::Extern;
      declareGlobal(name, sym, loc, isDefinition);
      m_.items.push_back({TopLevelKind::Variable, varIndex});
    } else {
      declareLocal(name, sym, loc);
      Function &fn = m_.functions[function];
      fn.localVariables.push_back(varIndex);
      fn.statements.push_back({StatementKind::Variable, varIndex});
    }
    if (at(TokenKind::Equal)) {
      advance();
      if (!parseInitializer(varIndex))
        return skipStatement();
    }
    // Sizes add up in the layouts of shared and local memory and in the module's data: one bound
    // keeps every sum exact (2^64 + 8 bytes of .shared must not wrap to 8).
    if (uint64_t bytes = m_.variables[varIndex].sizeInBytes(); bytes > kMaxVariableBytes)
      error(loc, fmt::format("'{}' is {} bytes, more than a variable may hold (2^48 bytes, the GPU's virtual "
                             "address space)",
                             name, bytes == UINT64_MAX ? std::string("over 2^64") : std::to_string(bytes)));
    if (!at(TokenKind::Comma))
      break;
    advance();
  }
  expectSemicolon();
}

bool Parser::parseInitializer(uint32_t varIndex) {
  NestingLevel level(*this);
  if (!level.ok())
    return false;
  if (!at(TokenKind::LBrace))
    return parseInitItem(varIndex);
  m_.variables[varIndex].init.push_back(makeInit(InitItem::Kind::Open, 0));
  advance();
  if (!at(TokenKind::RBrace)) {
    for (;;) {
      if (!parseInitializer(varIndex)) {
        skipToClose(TokenKind::RBrace);
        return false;
      }
      if (!at(TokenKind::Comma))
        break;
      advance();
    }
  }
  if (!expect(TokenKind::RBrace, "',' or '}'"))
    return false;
  m_.variables[varIndex].init.push_back(makeInit(InitItem::Kind::Close, 0));
  return true;
}

bool Parser::parseInitItem(uint32_t varIndex) {
  auto &init = m_.variables[varIndex].init;
  if (at(TokenKind::Identifier) && tok_.text == "generic" && peek().kind == TokenKind::LParen) {
    advance();
    advance();
    if (!at(TokenKind::Identifier)) {
      unexpected("a variable name");
      return false;
    }
    InitItem item = makeInit(InitItem::Kind::GenericSymbol, 0);
    pendingModule_.push_back({PendingRef::Slot::Init, tok_.text, here(), varIndex, static_cast<uint32_t>(init.size())});
    advance();
    if (!expect(TokenKind::RParen, "')'"))
      return false;
    if ((at(TokenKind::Plus) || at(TokenKind::Minus)) && !parseOffset(item.value))
      return false;
    m_.variables[varIndex].init.push_back(item);
    return true;
  }
  if (at(TokenKind::Identifier) && peek().kind == TokenKind::Equal) {
    // Sampler and texture properties: `{ addr_mode_0 = wrap, filter_mode = linear }`.
    InitItem item = makeInit(InitItem::Kind::Property, 0);
    item.key = tok_.text;
    advance();
    advance();
    if (at(TokenKind::Identifier)) {
      item.word = tok_.text;
      advance();
    } else if (!parseConstExpr(item.value)) {
      return false;
    }
    m_.variables[varIndex].init.push_back(item);
    return true;
  }
  if (at(TokenKind::Identifier) && tok_.text != "WARP_SZ") {
    InitItem item = makeInit(InitItem::Kind::Symbol, 0);
    pendingModule_.push_back({PendingRef::Slot::Init, tok_.text, here(), varIndex, static_cast<uint32_t>(init.size())});
    advance();
    if ((at(TokenKind::Plus) || at(TokenKind::Minus)) && !parseOffset(item.value))
      return false;
    m_.variables[varIndex].init.push_back(item);
    return true;
  }
  bool negate = false;
  if (at(TokenKind::Minus) && peek().kind == TokenKind::Float) {
    negate = true;
    advance();
  }
  if (at(TokenKind::Float)) {
    uint64_t bits = 0;
    int width = 0;
    if (!parseFloatLiteral(tok_.text, bits, width)) {
      errorHere(fmt::format("invalid floating-point literal {}", tokenText(tok_)));
      return false;
    }
    if (negate)
      bits ^= width == 32 ? 0x80000000ull : 0x8000000000000000ull;
    init.push_back(
        makeInit(width == 32 ? InitItem::Kind::Float32 : InitItem::Kind::Float64, static_cast<int64_t>(bits)));
    advance();
    return true;
  }
  int64_t v = 0;
  if (!parseConstExpr(v))
    return false;
  m_.variables[varIndex].init.push_back(makeInit(InitItem::Kind::Int, v));
  return true;
}

} // namespace ptxray::ptx::detail
