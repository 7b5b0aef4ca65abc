#include "ptx/Parser.h"

#include "ptx/Lexer.h"
#include "ptx/Verifier.h"

#include <fmt/format.h>

#include <cstring>
#include <deque>
#include <unordered_map>

namespace ptxray::ptx {
namespace {

StateSpace spaceOfMod(Mod mod) {
  std::string_view s = spelling(mod);
  if (s.starts_with(".global"))
    return StateSpace::Global;
  if (s.starts_with(".shared"))
    return StateSpace::Shared;
  if (s.starts_with(".local"))
    return StateSpace::Local;
  if (s.starts_with(".const"))
    return StateSpace::Const;
  if (s.starts_with(".param"))
    return StateSpace::Param;
  if (s.starts_with(".tex"))
    return StateSpace::Tex;
  if (s == ".reg")
    return StateSpace::Reg;
  return StateSpace::None;
}

InitItem makeInit(InitItem::Kind kind, int64_t value) {
  InitItem item;
  item.kind = kind;
  item.value = value;
  return item;
}

bool isCompareOpcode(Opcode op) {
  return op == Opcode::setp || op == Opcode::set || op == Opcode::vset || op == Opcode::vset2 ||
         op == Opcode::vset4;
}

/// Encodes an operand selector spelling (without the dot); 0 when it is not one.
uint32_t encodeSelector(std::string_view s) {
  if (s.size() == 1 && std::strchr("xyzwrgba", s[0]))
    return static_cast<uint8_t>(s[0]);
  if (s.size() >= 2 && s.size() <= 5 && (s[0] == 'b' || s[0] == 'h')) {
    uint32_t digits = 0;
    for (size_t i = 1; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '7')
        return 0;
      digits |= static_cast<uint32_t>(s[i] - '0') << (4 * (i - 1));
    }
    return static_cast<uint8_t>(s[0]) | static_cast<uint32_t>(s.size() - 1) << 8 | digits << 12;
  }
  return 0;
}

/// Registers and symbols visible in one `{ }` scope.
struct Scope {
  struct Range {
    std::string_view prefix;
    uint32_t count;
    uint32_t first;
  };
  std::vector<Range> ranges;
  std::unordered_map<std::string_view, uint32_t> registers;
  std::unordered_map<std::string_view, uint32_t> symbols;
};

/// The `{ }` scopes of the function being parsed. Scopes are cleared and reused rather than
/// destroyed, so their hash tables keep their buckets from one function to the next.
class ScopeStack {
public:
  void reset(size_t depth = 1) {
    depth_ = 0;
    for (size_t i = 0; i < depth; ++i)
      push();
  }
  void push() {
    if (depth_ == scopes_.size())
      scopes_.emplace_back();
    Scope &s = scopes_[depth_++];
    s.ranges.clear();
    s.registers.clear();
    s.symbols.clear();
  }
  void pop() { --depth_; }
  size_t depth() const { return depth_; }
  Scope &back() { return scopes_[depth_ - 1]; }
  const Scope &operator[](size_t i) const { return scopes_[i]; }

private:
  std::vector<Scope> scopes_;
  size_t depth_ = 0;
};

/// A name used before it could be resolved; patched when the function or module ends.
struct PendingRef {
  enum class Slot : uint8_t { Operand, Init, SectionValue, SectionMinus, LineFunctionName, TargetList, Alias };
  Slot slot;
  std::string_view name;
  SourceLoc loc;
  uint32_t a = 0, b = 0, c = 0;
};

class Parser {
public:
  Parser(Module &module, Diagnostics &diags, uint32_t fileId)
      : m_(module), diags_(diags), file_(fileId), lex_(module.sources.text(fileId)) {
    advance();
  }

  void parseModule();

private:
  // ---- tokens ------------------------------------------------------------------------------
  void advance() {
    if (hasPeek_) {
      tok_ = peek_;
      hasPeek_ = false;
    } else {
      tok_ = lex_.next();
    }
  }
  const Token &peek() {
    if (!hasPeek_) {
      peek_ = lex_.next();
      hasPeek_ = true;
    }
    return peek_;
  }
  bool at(TokenKind k) const { return tok_.kind == k; }
  bool atDot(std::string_view s) const { return tok_.kind == TokenKind::DotWord && tok_.text == s; }
  SourceLoc locOf(const Token &t) const {
    return {file_, t.offset, static_cast<uint32_t>(std::max<size_t>(t.text.size(), 1))};
  }
  SourceLoc here() const { return locOf(tok_); }
  std::string tokenText(const Token &t) const {
    if (t.kind == TokenKind::End)
      return "end of file";
    std::string_view text = t.text.substr(0, t.text.find('\n'));
    if (text.size() > 40)
      return fmt::format("'{}...'", text.substr(0, 40));
    return fmt::format("'{}'", text);
  }
  /// The lexer's error tokens say what is wrong with them, whatever the parser expected there.
  bool reportBadToken() {
    switch (tok_.kind) {
    case TokenKind::Invalid: errorHere(fmt::format("invalid character {}", tokenText(tok_))); return true;
    case TokenKind::UnterminatedString: error({file_, tok_.offset, 1}, "unterminated string"); return true;
    case TokenKind::UnterminatedComment: error({file_, tok_.offset, 2}, "unterminated comment"); return true;
    default: return false;
    }
  }
  void error(SourceLoc loc, std::string msg) { diags_.error(loc, std::move(msg)); }
  void errorHere(std::string msg) { error(here(), std::move(msg)); }
  void unexpected(std::string_view expected) {
    if (reportBadToken())
      return;
    errorHere(fmt::format("expected {}, found {}", expected, tokenText(tok_)));
  }
  bool expect(TokenKind k, std::string_view what) {
    if (at(k)) {
      advance();
      return true;
    }
    unexpected(what);
    return false;
  }
  /// Error recovery: skip to the end of the current statement.
  void skipStatement() {
    int depth = 0;
    while (!at(TokenKind::End)) {
      if (at(TokenKind::LBrace) || at(TokenKind::LParen) || at(TokenKind::LBracket))
        ++depth;
      if (at(TokenKind::RBrace) || at(TokenKind::RParen) || at(TokenKind::RBracket)) {
        if (depth == 0 && at(TokenKind::RBrace))
          return; // leave a closing brace for the enclosing block
        if (depth > 0)
          --depth;
      }
      if (at(TokenKind::Semicolon) && depth <= 0) {
        advance();
        return;
      }
      advance();
    }
  }
  /// Recovery for line-oriented directives (.version, .file, .loc...): drop the rest of the line.
  void skipLineRest(uint32_t from) {
    size_t nl = lex_.text().find('\n', from);
    while (!at(TokenKind::End) && (nl == std::string_view::npos || tok_.offset < nl))
      advance();
  }
  /// Recovery inside a `{ }`, `( )` or `[ ]` that failed: skip to its matching close (consumed) but
  /// never past the end of the statement.
  void skipToClose(TokenKind close) {
    int depth = 0;
    while (!at(TokenKind::End) && !at(TokenKind::Semicolon)) {
      if (at(TokenKind::LBrace) || at(TokenKind::LParen) || at(TokenKind::LBracket))
        ++depth;
      bool closing = at(TokenKind::RBrace) || at(TokenKind::RParen) || at(TokenKind::RBracket);
      if (closing && depth == 0) {
        if (at(close))
          advance();
        return;
      }
      if (closing)
        --depth;
      advance();
    }
  }
  bool expectSemicolon() {
    if (at(TokenKind::Semicolon)) {
      advance();
      return true;
    }
    unexpected("';'");
    skipStatement();
    return false;
  }
  bool parseUnsigned(uint64_t &value, std::string_view what) {
    if (!at(TokenKind::Integer)) {
      unexpected(what);
      return false;
    }
    bool isUnsigned = false;
    if (!parseIntegerLiteral(tok_.text, value, isUnsigned)) {
      errorHere(fmt::format("invalid integer literal {}", tokenText(tok_)));
      advance();
      return false;
    }
    advance();
    return true;
  }

  // ---- constant expressions ----------------------------------------------------------------
  bool parseConstExpr(int64_t &value, int minPrec = 0);
  bool parseConstPrimary(int64_t &value);
  bool parseConstExprRest(int64_t &value, int minPrec); ///< the operators after a parsed primary

  // ---- module level -------------------------------------------------------------------------
  void parseTopLevel();
  void parseVersion();
  void parseTarget();
  void parseAddressSize();
  void parseFile();
  void parseSection();
  void parseAlias();
  std::string_view parsePragmaText();
  void parseFunction(Linkage linkage, bool isEntry, SourceLoc startLoc);
  bool parseParamList(std::vector<uint32_t> &out, uint32_t function, bool allowUnnamed);
  bool parseParam(uint32_t &varIndex, uint32_t function, bool allowUnnamed);
  void parseVariableDecl(Linkage linkage, uint32_t function, bool topLevel);
  bool parseInitializer(Variable &var, uint32_t varIndex);
  bool parseInitItem(Variable &var, uint32_t varIndex);
  void parsePerfDirective(Function &fn);

  // ---- function bodies ----------------------------------------------------------------------
  void parseBody(uint32_t fnIndex);
  void parseRegisterDecl(uint32_t fnIndex);
  void parseLoc(uint32_t fnIndex);
  void parseInstruction(uint32_t fnIndex);
  void parseLabelStatement(uint32_t fnIndex);
  bool parseOperand(uint32_t fnIndex, Operand &out, bool inCall);
  bool parseOperandPrimary(uint32_t fnIndex, Operand &out, bool inCall);
  bool parseAddress(uint32_t fnIndex, Operand &out);
  bool parseAddressElement(uint32_t fnIndex, Operand &out);
  bool parseOffset(int64_t &offset);
  bool resolveName(uint32_t fnIndex, const Token &name, Operand &out, std::vector<Operand> &pool, uint32_t slot);
  bool addChildren(uint32_t fnIndex, std::vector<Operand> &items, Operand &parent);
  void deriveTypedFields(Instruction &inst);

  // ---- symbols ------------------------------------------------------------------------------
  uint32_t addSymbol(SymbolKind kind, std::string_view name, uint32_t function, uint32_t index, SourceLoc loc);
  bool declareGlobal(std::string_view name, uint32_t symbol, SourceLoc loc, bool isDefinition);
  bool declareLocal(std::string_view name, uint32_t symbol, SourceLoc loc);
  std::optional<uint32_t> findLocalSymbol(std::string_view name) const;
  std::optional<uint32_t> findRegister(std::string_view name) const;
  void resolvePending(std::vector<PendingRef> &refs, bool moduleEnd);
  bool patch(const PendingRef &ref, uint32_t symbol);
  void finishFunction(uint32_t fnIndex);

  /// Operand lists under construction, one per nesting level, reused so parsing allocates only
  /// when the IR grows.
  class ScratchOperands {
  public:
    explicit ScratchOperands(Parser &p) : p_(p) {
      if (p_.scratchDepth_ == p_.scratch_.size())
        p_.scratch_.emplace_back();
      list_ = &p_.scratch_[p_.scratchDepth_++];
      list_->clear();
    }
    ~ScratchOperands() { --p_.scratchDepth_; }
    std::vector<Operand> &operator*() { return *list_; }
    std::vector<Operand> *operator->() { return list_; }

  private:
    Parser &p_;
    std::vector<Operand> *list_;
  };
  std::deque<std::vector<Operand>> scratch_;
  size_t scratchDepth_ = 0;

  Module &m_;
  Diagnostics &diags_;
  uint32_t file_;
  Lexer lex_;
  Token tok_, peek_;
  bool hasPeek_ = false;
  bool sawVersion_ = false, sawTarget_ = false;
  std::string_view previousDirective_; ///< the last module-level directive word

  std::unordered_map<std::string_view, uint32_t> globals_;
  std::unordered_map<std::string_view, uint32_t> anySymbol_; ///< DWARF data may name any label or param
  ScopeStack scopes_;
  std::unordered_map<std::string_view, uint32_t> labels_; ///< of the current function
  std::vector<PendingRef> pendingFunction_, pendingModule_;
  std::unordered_map<uint64_t, uint32_t> locByPosition_; ///< .loc positions of the current function
  uint32_t currentLine_ = kNone;
  uint32_t currentFunction_ = kNone;
};

// =============================================================================================
// Constant expressions (C precedence, 64-bit integers)

int precedence(TokenKind k) {
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

uint32_t Parser::addSymbol(SymbolKind kind, std::string_view name, uint32_t function, uint32_t index,
                           SourceLoc loc) {
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

// =============================================================================================
// Module level

void Parser::parseModule() {
  while (!at(TokenKind::End) && !diags_.full())
    parseTopLevel();
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
    Linkage l = tok_.text == ".visible" ? Linkage::Visible
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
  if (atDot(".global") || atDot(".const") || atDot(".shared") || atDot(".local") || atDot(".tex") ||
      atDot(".param") || (at(TokenKind::DotWord) && tok_.text.starts_with(".shared::")) || atDot(".align")) {
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
  f.index = static_cast<uint32_t>(idx);
  if (!at(TokenKind::String)) {
    unexpected("a file name string");
    return skipLineRest(directiveOffset);
  }
  f.name = tok_.text.substr(1, tok_.text.size() - 2);
  advance();
  if (at(TokenKind::Comma)) {
    advance();
    if (!parseUnsigned(f.timestamp, "a timestamp"))
      return skipLineRest(directiveOffset);
    f.hasTimestamp = true;
    if (!expect(TokenKind::Comma, "','") || !parseUnsigned(f.size, "a file size"))
      return skipLineRest(directiveOffset);
  }
  if (m_.findFile(f.index))
    error(loc, fmt::format("duplicate .file index {}", f.index));
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
    if (at(TokenKind::DotWord) && (tok_.text == ".b8" || tok_.text == ".b16" || tok_.text == ".b32" ||
                                   tok_.text == ".b64")) {
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
    if (d.size() == 3 && d[1] == 'v' && (d[2] == '2' || d[2] == '4' || d[2] == '8')) {
      var.vectorWidth = static_cast<uint8_t>(d[2] - '0');
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
      SourceLoc sizeLoc = here();
      if (!parseUnsigned(n, "an array size"))
        return false;
      if (n == 0)
        error(sizeLoc, "array size must be positive, not 0");
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
  finishFunction(fnIndex);
}

void Parser::finishFunction(uint32_t fnIndex) {
  resolvePending(pendingFunction_, false);
  (void)fnIndex;
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
    if (d.size() == 3 && d[1] == 'v' && (d[2] == '2' || d[2] == '4' || d[2] == '8')) {
      proto.vectorWidth = static_cast<uint8_t>(d[2] - '0');
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
    // `.local .b32 x<4>` declares x0..x3 like registers; rare, but legal for .reg-like spaces.
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
        var.dims.push_back(static_cast<uint64_t>(n));
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
      if (!parseInitializer(m_.variables[varIndex], varIndex))
        return skipStatement();
    }
    if (!at(TokenKind::Comma))
      break;
    advance();
  }
  expectSemicolon();
}

bool Parser::parseInitializer(Variable &var, uint32_t varIndex) {
  if (!at(TokenKind::LBrace))
    return parseInitItem(var, varIndex);
  m_.variables[varIndex].init.push_back(makeInit(InitItem::Kind::Open, 0));
  advance();
  if (!at(TokenKind::RBrace)) {
    for (;;) {
      if (!parseInitializer(m_.variables[varIndex], varIndex)) {
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

bool Parser::parseInitItem(Variable &var, uint32_t varIndex) {
  (void)var;
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
    init.push_back(makeInit(width == 32 ? InitItem::Kind::Float32 : InitItem::Kind::Float64,
                    static_cast<int64_t>(bits)));
    advance();
    return true;
  }
  int64_t v = 0;
  if (!parseConstExpr(v))
    return false;
  m_.variables[varIndex].init.push_back(makeInit(InitItem::Kind::Int, v));
  return true;
}

// =============================================================================================
// Function bodies

void Parser::parseBody(uint32_t fnIndex) {
  int depth = 0;
  while (!diags_.full()) {
    Function &fn = m_.functions[fnIndex];
    switch (tok_.kind) {
    case TokenKind::End:
      errorHere(fmt::format("expected '}}' at end of function '{}'", fn.name));
      return;
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
    case TokenKind::Semicolon:
      advance();
      continue;
    case TokenKind::At:
      parseInstruction(fnIndex);
      continue;
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
    if (d.size() == 3 && d[1] == 'v' && (d[2] == '2' || d[2] == '4' || d[2] == '8')) {
      decl.vectorWidth = static_cast<uint8_t>(d[2] - '0');
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
      if (n > (1u << 24)) {
        error(loc, fmt::format("register range of {} is too large", n));
        return skipStatement();
      }
      item.rangeCount = static_cast<int32_t>(n);
      Scope &scope = scopes_.back();
      for (const Scope::Range &r : scope.ranges)
        if (r.prefix == item.name)
          error(loc, fmt::format("redefinition of register range '{}<...>'", item.name));
      for (const auto &[existing, reg] : scope.registers) {
        std::string_view rest = existing.substr(std::min(existing.size(), item.name.size()));
        if (!existing.starts_with(item.name) || rest.empty() || rest.size() > 9 || (rest.size() > 1 && rest[0] == '0') ||
            rest.find_first_not_of("0123456789") != std::string_view::npos)
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
  if (!parseUnsigned(file, "a file index") || !parseUnsigned(line, "a line number") ||
      !parseUnsigned(col, "a column"))
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
      if (!parseUnsigned(f2, "a file index") || !parseUnsigned(l2, "a line number") ||
          !parseUnsigned(c2, "a column"))
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
  if (entry.hasInlinedAt != (entry.functionName != kNone ||
                             (!pendingModule_.empty() && pendingModule_.back().slot == PendingRef::Slot::LineFunctionName &&
                              pendingModule_.back().a == index)))
    error(locLoc, "function_name and inlined_at must be given together");
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
    uint32_t sym = addSymbol(branch ? SymbolKind::BranchTargets : SymbolKind::CallTargets, name, fnIndex, listIndex, loc);
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

bool Parser::resolveName(uint32_t fnIndex, const Token &name, Operand &out, std::vector<Operand> &pool,
                         uint32_t slot) {
  (void)pool;
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
  pendingFunction_.push_back({PendingRef::Slot::Operand, name.text, locOf(name), fnIndex, slot});
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

bool Parser::parseOperandPrimary(uint32_t fnIndex, Operand &out, bool inCall) {
  Function &fn = m_.functions[fnIndex];
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
        Operand child;
        // Pending references inside children are recorded against a scratch index; fix below.
        size_t mark = pendingFunction_.size();
        if (!parseOperand(fnIndex, child, false)) {
          skipToClose(close);
          return false;
        }
        for (size_t i = mark; i < pendingFunction_.size(); ++i)
          if (pendingFunction_[i].b == kNone - 1)
            pendingFunction_[i].b = kNone - 2 - static_cast<uint32_t>(items.size());
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
    for (size_t i = pendingBefore; i < pendingFunction_.size(); ++i) {
      uint32_t &b = pendingFunction_[i].b;
      if (b >= kNone - 1 - 255 && b <= kNone - 2)
        b = out.first + (kNone - 2 - b);
    }
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
    Token name = tok_;
    advance();
    if (!resolveName(fnIndex, name, out, fn.operands, kNone - 1))
      return false;
    if (at(TokenKind::DotWord) && out.kind != OperandKind::Symbol) {
      uint32_t sel = encodeSelector(tok_.text.substr(1));
      if (sel != 0) {
        out.selector = sel;
        advance();
      }
    }
    if (out.kind == OperandKind::SpecialReg && specialRegIsVector(static_cast<SpecialReg>(out.id)) && out.selector == 0) {
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
  default:
    unexpected("an operand");
    return false;
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
  addChildren(fnIndex, items, pair);
  for (size_t i = firstMark; i < pendingFunction_.size(); ++i)
    if (pendingFunction_[i].b == kNone - 1)
      pendingFunction_[i].b = pair.first + (i < secondMark ? 0 : 1);
  out = pair;
  return true;
}

bool Parser::parseAddressElement(uint32_t fnIndex, Operand &out) {
  if (at(TokenKind::LBrace))
    return parseOperandPrimary(fnIndex, out, false);
  if (at(TokenKind::Identifier) && tok_.text != "WARP_SZ") {
    Token name = tok_;
    advance();
    if (!resolveName(fnIndex, name, out, m_.functions[fnIndex].operands, kNone - 1))
      return false;
    if (at(TokenKind::DotWord) && out.kind != OperandKind::Symbol) {
      uint32_t sel = encodeSelector(tok_.text.substr(1));
      if (sel != 0) {
        out.selector = sel;
        advance();
      }
    }
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
    for (size_t i = mark; i < pendingFunction_.size(); ++i)
      if (pendingFunction_[i].b == kNone - 1)
        pendingFunction_[i].b = kNone - 2 - static_cast<uint32_t>(items.size());
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
  for (size_t i = pendingBefore; i < pendingFunction_.size(); ++i) {
    uint32_t &b = pendingFunction_[i].b;
    if (b >= kNone - 1 - 255 && b <= kNone - 2)
      b = out.first + (kNone - 2 - b);
  }
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
      Operand operand;
      size_t mark = pendingFunction_.size();
      if (!parseOperand(fnIndex, operand, inCall)) {
        pendingFunction_.resize(pendingBefore); // the statement is dropped, and so are its references
        return skipStatement();
      }
      for (size_t i = mark; i < pendingFunction_.size(); ++i)
        if (pendingFunction_[i].b == kNone - 1)
          pendingFunction_[i].b = kNone - 2 - static_cast<uint32_t>(top.size());
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
  for (size_t i = pendingBefore; i < pendingFunction_.size(); ++i) {
    uint32_t &b = pendingFunction_[i].b;
    if (b >= kNone - 1 - 255 && b <= kNone - 2)
      b = inst.firstOperand + (kNone - 2 - b);
  }
  inst.line = currentLine_;
  inst.loc = start;
  inst.loc.length = opLoc.offset - start.offset + opLoc.length;
  f.instructions.push_back(inst);
  f.statements.push_back({StatementKind::Instruction, static_cast<uint32_t>(f.instructions.size() - 1)});
}

} // namespace

ParseResult parseModule(std::string fileName, std::string text, const ParseOptions &options) {
  ParseResult result;
  result.module = std::make_unique<Module>();
  Module &m = *result.module;
  uint32_t file = m.sources.add(std::move(fileName), std::move(text));
  Parser parser(m, result.diagnostics, file);
  parser.parseModule();
  if (options.verify && !result.diagnostics.full())
    verifyModule(m, result.diagnostics);
  return result;
}

} // namespace ptxray::ptx
