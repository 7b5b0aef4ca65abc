// Module-level directives: .version, .target, .address_size, .file, .section, .alias, .pragma.
#include "ptx/ParserImpl.h"

namespace ptxray::ptx::detail {

// =============================================================================================
// Module level

void Parser::parseTopLevels() {
  while (!at(TokenKind::End) && !diags_.full())
    parseTopLevel();
}

void Parser::finishModule() {
  resolvePending(pendingModule_, true);
  if (!sawVersion_)
    error({file_, 0, 1}, "missing .version directive");
  else if (!sawTarget_)
    error({file_, 0, 1}, "missing .target directive");
}

void Parser::parseTopLevel() {
  if (at(TokenKind::Hash)) {
    errorHere("preprocessor directives are not supported; run the C preprocessor first");
    advance();
    return;
  }
  if (at(TokenKind::At)) {
    // Legacy `@@DWARF ...` lines of old nvcc output carry debug bytes the IR does not keep.
    Token start = tok_;
    advance();
    if (at(TokenKind::At)) {
      lex_.skipLine();
      hasPeek_ = false;
      advance();
      return;
    }
    error(locOf(start), "unexpected '@' outside a function");
    skipStatement();
    return;
  }
  if (tok_.kind != TokenKind::DotWord) {
    if (at(TokenKind::Semicolon)) {
      advance();
      return;
    }
    if (!reportBadToken())
      errorHere(fmt::format("expected a directive, found {}", tokenText(tok_)));
    advance();
    skipStatement();
    return;
  }
  std::string_view d = tok_.text;
  if (d != ".version" && !sawVersion_) {
    errorHere(".version must be the first directive of a module");
    sawVersion_ = true; // report once
  } else if (d == ".target" && !sawTarget_ && previousDirective_ != ".version") {
    errorHere(".target must immediately follow .version");
  } else if (d == ".address_size" && sawTarget_ && previousDirective_ != ".target" && !m_.hasAddressSize) {
    errorHere(".address_size must immediately follow .target");
  }
  previousDirective_ = d;
  if (d == ".version")
    return parseVersion();
  if (d == ".target")
    return parseTarget();
  if (d == ".address_size")
    return parseAddressSize();
  if (d == ".file")
    return parseFile();
  if (d == ".section")
    return parseSection();
  if (d == ".alias")
    return parseAlias();
  if (d == ".pragma") {
    advance();
    std::string_view text = parsePragmaText();
    if (!text.empty()) {
      m_.pragmas.push_back(text);
      m_.items.push_back({TopLevelKind::Pragma, static_cast<uint32_t>(m_.pragmas.size() - 1)});
    }
    return;
  }
  SourceLoc start = here();
  Linkage linkage = Linkage::None;
  while (at(TokenKind::DotWord)) {
    Linkage l = tok_.text == ".visible"  ? Linkage::Visible
                : tok_.text == ".extern" ? Linkage::Extern
                : tok_.text == ".weak"   ? Linkage::Weak
                : tok_.text == ".common" ? Linkage::Common
                                         : Linkage::None;
    if (l == Linkage::None)
      break;
    if (linkage != Linkage::None) {
      errorHere(fmt::format("conflicting linkage directive {}", tokenText(tok_)));
    }
    linkage = l;
    advance();
  }
  if (atDot(".entry") || atDot(".func")) {
    bool isEntry = tok_.text == ".entry";
    advance();
    return parseFunction(linkage, isEntry, start);
  }
  if (atDot(".global") || atDot(".const") || atDot(".shared") || atDot(".local") || atDot(".tex") || atDot(".param") ||
      (at(TokenKind::DotWord) && tok_.text.starts_with(".shared::")) || atDot(".align")) {
    return parseVariableDecl(linkage, kNone, true);
  }
  errorHere(fmt::format("unknown directive {}", tokenText(tok_)));
  advance();
  skipStatement();
}

void Parser::parseVersion() {
  SourceLoc loc = here();
  uint32_t directiveOffset = tok_.offset;
  advance();
  if (sawVersion_ && m_.versionMajor != 0)
    error(loc, "duplicate .version directive");
  sawVersion_ = true;
  // `9.0` lexes as one float token.
  if (!at(TokenKind::Float) && !at(TokenKind::Integer)) {
    unexpected("a version number like 9.0");
    return skipLineRest(directiveOffset);
  }
  std::string_view t = tok_.text;
  size_t dot = t.find('.');
  uint32_t major = 0, minor = 0;
  bool okParse = dot != std::string_view::npos && dot > 0 && dot + 1 < t.size();
  for (size_t i = 0; okParse && i < t.size(); ++i)
    if (i != dot && (t[i] < '0' || t[i] > '9'))
      okParse = false;
  if (okParse) {
    for (size_t i = 0; i < dot; ++i)
      major = major * 10 + static_cast<uint32_t>(t[i] - '0');
    for (size_t i = dot + 1; i < t.size(); ++i)
      minor = minor * 10 + static_cast<uint32_t>(t[i] - '0');
  }
  if (!okParse || major == 0 || major > 99 || t.size() - dot != 2) {
    errorHere(fmt::format("invalid PTX version {}", tokenText(tok_)));
  } else if (major > kNewestPtxMajor) {
    // As the driver's JIT refuses it (CUDA_ERROR_UNSUPPORTED_PTX_VERSION): instructions and rules of
    // a later ISA are unknown, and running them as if they were 9.x would be a silent guess.
    errorHere(
        fmt::format("PTX ISA {}.{} is newer than ptxray knows (up to {}.x, CUDA 13)", major, minor, kNewestPtxMajor));
  } else {
    m_.versionMajor = major;
    m_.versionMinor = minor;
  }
  advance();
}

void Parser::parseTarget() {
  SourceLoc loc = here();
  uint32_t directiveOffset = tok_.offset;
  advance();
  // Later .target directives add features; the module needs the highest architecture named.
  if (!sawTarget_)
    m_.target.loc = loc;
  sawTarget_ = true;
  bool namedArch = false;
  for (;;) {
    if (!at(TokenKind::Identifier)) {
      unexpected("a target name such as sm_90");
      return skipLineRest(directiveOffset);
    }
    std::string_view name = tok_.text;
    if (name.starts_with("sm_") || name.starts_with("compute_")) {
      std::string_view num = name.substr(name.find('_') + 1);
      uint32_t sm = 0;
      size_t i = 0;
      while (i < num.size() && num[i] >= '0' && num[i] <= '9')
        sm = sm * 10 + static_cast<uint32_t>(num[i++] - '0');
      std::string_view suffix = num.substr(i);
      if (i == 0 || !(suffix.empty() || suffix == "a" || suffix == "f")) {
        errorHere(fmt::format("unknown target '{}'", name));
      } else {
        if (namedArch)
          errorHere("a .target directive names one architecture; use another .target for more");
        namedArch = true;
        if (sm >= m_.target.sm) {
          m_.target.sm = sm;
          m_.target.smSuffix = suffix.empty() ? 0 : suffix[0];
        }
        if (!targetMinPtx(sm, m_.target.smSuffix))
          errorHere(fmt::format("unknown target '{}'", name));
      }
    } else if (name == "debug") {
      m_.target.debug = true;
    } else if (name == "map_f64_to_f32") {
      m_.target.mapF64ToF32 = true;
    } else if (name != "texmode_unified" && name != "texmode_independent") {
      errorHere(fmt::format("unknown target '{}'", name));
    }
    m_.target.names.push_back(name);
    advance();
    if (!at(TokenKind::Comma))
      break;
    advance();
  }
}

void Parser::parseAddressSize() {
  SourceLoc loc = here();
  uint32_t directiveOffset = tok_.offset;
  advance();
  uint64_t v = 0;
  if (!parseUnsigned(v, "32 or 64"))
    return skipLineRest(directiveOffset);
  if (m_.hasAddressSize)
    error(loc, ".address_size may not be redefined");
  if (v != 32 && v != 64)
    error(loc, fmt::format(".address_size must be 32 or 64, not {}", v));
  m_.addressSize = static_cast<uint32_t>(v);
  m_.hasAddressSize = true;
}

void Parser::parseFile() {
  uint32_t directiveOffset = tok_.offset;
  advance();
  SourceFile f;
  uint64_t idx = 0;
  SourceLoc loc = here();
  if (!parseUnsigned(idx, "a file index"))
    return skipLineRest(directiveOffset);
  if (idx > UINT32_MAX - fileIndexBase_) {
    error(loc, fmt::format("file index {} is too large", idx));
    return skipLineRest(directiveOffset);
  }
  f.index = static_cast<uint32_t>(idx) + fileIndexBase_;
  if (!at(TokenKind::String)) {
    unexpected("a file name string");
    return skipLineRest(directiveOffset);
  }
  // \" and \\ stand for the characters themselves (a file name holding a quote).
  auto unquote = [&](std::string_view quoted) {
    std::string_view text = quoted.substr(1, quoted.size() - 2);
    if (text.find('\\') == std::string_view::npos)
      return text;
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '"' || text[i + 1] == '\\'))
        ++i;
      out += text[i];
    }
    return m_.sources.intern(out);
  };
  f.name = unquote(tok_.text);
  advance();
  if (at(TokenKind::String)) {
    // LLVM's form: the directory, then the name.
    f.directory = f.name;
    f.written = unquote(tok_.text);
    advance();
    f.name = f.written.starts_with('/') || f.directory.empty()
                 ? f.written
                 : m_.sources.intern(std::string(f.directory) + (f.directory.ends_with('/') ? "" : "/") +
                                     std::string(f.written));
  }
  if (at(TokenKind::Comma)) {
    advance();
    if (!parseUnsigned(f.timestamp, "a timestamp"))
      return skipLineRest(directiveOffset);
    f.hasTimestamp = true;
    if (!expect(TokenKind::Comma, "','") || !parseUnsigned(f.size, "a file size"))
      return skipLineRest(directiveOffset);
  }
  if (m_.findFile(f.index))
    error(loc, fmt::format("duplicate .file index {}", idx));
  m_.fileByIndex.emplace(f.index, static_cast<uint32_t>(m_.files.size()));
  m_.files.push_back(f);
  m_.items.push_back({TopLevelKind::File, static_cast<uint32_t>(m_.files.size() - 1)});
}

void Parser::parseSection() {
  advance();
  if (!at(TokenKind::DotWord) && !at(TokenKind::Identifier)) {
    unexpected("a section name");
    return skipStatement();
  }
  SourceLoc nameLoc = here();
  Section sec;
  sec.name = tok_.text;
  advance();
  uint32_t secIndex = static_cast<uint32_t>(m_.sections.size());
  sec.symbol = addSymbol(SymbolKind::Section, sec.name, kNone, secIndex, nameLoc);
  // A section may be opened several times (its blocks are concatenated); references name the first.
  auto existing = globals_.find(sec.name);
  if (existing == globals_.end() || m_.symbols[existing->second].kind != SymbolKind::Section)
    declareGlobal(sec.name, sec.symbol, nameLoc, true);
  m_.sections.push_back(std::move(sec));
  m_.items.push_back({TopLevelKind::Section, secIndex});
  if (!expect(TokenKind::LBrace, "'{'"))
    return skipStatement();
  while (!at(TokenKind::RBrace) && !at(TokenKind::End) && !diags_.full()) {
    Section &s = m_.sections[secIndex];
    if (at(TokenKind::Identifier) && peek().kind == TokenKind::Colon) {
      SectionItem item;
      item.kind = SectionItem::Kind::Label;
      item.label = addSymbol(SymbolKind::Label, tok_.text, kNone, secIndex, here());
      declareGlobal(tok_.text, item.label, here(), true);
      s.items.push_back(item);
      advance();
      advance();
      continue;
    }
    if (at(TokenKind::DotWord) &&
        (tok_.text == ".b8" || tok_.text == ".b16" || tok_.text == ".b32" || tok_.text == ".b64")) {
      SectionItem item;
      item.type = *lookupMod(tok_.text);
      advance();
      if (at(TokenKind::String)) {
        item.kind = SectionItem::Kind::String;
        item.text = tok_.text;
        advance();
        s.items.push_back(item);
        continue;
      }
      item.kind = SectionItem::Kind::Data;
      item.firstValue = static_cast<uint32_t>(s.values.size());
      for (;;) {
        SectionValue v;
        uint32_t valueIndex = static_cast<uint32_t>(m_.sections[secIndex].values.size());
        if (at(TokenKind::Identifier) || at(TokenKind::DotWord)) {
          pendingModule_.push_back({PendingRef::Slot::SectionValue, tok_.text, here(), secIndex, valueIndex});
          advance();
          if (at(TokenKind::Minus) && (peek().kind == TokenKind::Identifier || peek().kind == TokenKind::DotWord)) {
            advance();
            pendingModule_.push_back({PendingRef::Slot::SectionMinus, tok_.text, here(), secIndex, valueIndex});
            advance();
          }
          if ((at(TokenKind::Plus) || at(TokenKind::Minus)) && !parseOffset(v.value))
            return skipStatement();
        } else if (!parseConstExpr(v.value)) {
          return skipStatement();
        }
        m_.sections[secIndex].values.push_back(v);
        if (!at(TokenKind::Comma))
          break;
        advance();
      }
      item.numValues = static_cast<uint32_t>(m_.sections[secIndex].values.size()) - item.firstValue;
      m_.sections[secIndex].items.push_back(item);
      if (at(TokenKind::Semicolon))
        advance();
      continue;
    }
    errorHere(fmt::format("expected a label or .b8/.b16/.b32/.b64 data in section, found {}", tokenText(tok_)));
    advance();
  }
  expect(TokenKind::RBrace, "'}' closing the section");
}

void Parser::parseAlias() {
  advance();
  Alias alias;
  uint32_t index = static_cast<uint32_t>(m_.aliases.size());
  m_.aliases.push_back(alias);
  for (uint32_t part = 0; part < 2; ++part) {
    if (!at(TokenKind::Identifier)) {
      unexpected("a function name");
      return skipStatement();
    }
    pendingModule_.push_back({PendingRef::Slot::Alias, tok_.text, here(), index, part, 0});
    advance();
    if (part == 0 && !expect(TokenKind::Comma, "','"))
      return skipStatement();
  }
  m_.items.push_back({TopLevelKind::Alias, index});
  expectSemicolon();
}

std::string_view Parser::parsePragmaText() {
  if (!at(TokenKind::String)) {
    unexpected("a pragma string");
    skipStatement();
    return {};
  }
  std::string_view text = tok_.text;
  advance();
  // `.pragma "a", "b";` lists are allowed; keep them as one statement.
  while (at(TokenKind::Comma)) {
    advance();
    if (!at(TokenKind::String)) {
      unexpected("a pragma string");
      skipStatement();
      return {};
    }
    size_t begin = static_cast<size_t>(text.data() - lex_.text().data());
    text = lex_.text().substr(begin, tok_.offset + tok_.text.size() - begin);
    advance();
  }
  expectSemicolon();
  return text;
}

} // namespace ptxray::ptx::detail
