// Internal to the ptx library: the parser's state and its helpers, shared by the Parse*.cpp files.
// Users include ptx/Parser.h.
#pragma once

#include "ptx/Diagnostics.h"
#include "ptx/Ir.h"
#include "ptx/Lexer.h"

#include <fmt/format.h>

#include <cstring>
#include <deque>
#include <optional>
#include <unordered_map>

namespace ptxray::ptx::detail {

inline StateSpace spaceOfMod(Mod mod) {
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

inline InitItem makeInit(InitItem::Kind kind, int64_t value) {
  InitItem item;
  item.kind = kind;
  item.value = value;
  return item;
}

inline bool isCompareOpcode(Opcode op) {
  return op == Opcode::setp || op == Opcode::set || op == Opcode::vset || op == Opcode::vset2 || op == Opcode::vset4;
}

/// Encodes an operand selector spelling (without the dot); 0 when it is not one.
inline uint32_t encodeSelector(std::string_view s) {
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

/// Pending references to operands: an operand's final index is known only once the list it belongs
/// to is placed in Function::operands. Until then a reference holds kFreshReference, then its
/// position in the list being built (kListPositionBase + position).
inline constexpr uint32_t kFreshReference = kNone - 1;
inline constexpr uint32_t kListPositionBase = 0xfff00000u;

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

  void parseModule() {
    parseTopLevels();
    finishModule();
  }
  /// The module's statements, without resolving the names used before their declarations (a linker
  /// first points each file's external names at the definitions of other files: ptx/Linker.cpp).
  void parseTopLevels();
  /// Resolves the names used before their declarations; checks .version and .target were given.
  void finishModule();
  /// `.file N` and `.loc N` of this file name file N + base: the files of linked modules share one
  /// numbering.
  void setFileIndexBase(uint32_t base) { fileIndexBase_ = base; }
  /// The files of a link count their registers together (kMaxRegistersPerModule bounds the module).
  void shareRegisterCount(uint64_t &count) { moduleRegisters_ = &count; }
  /// Module-scope names of this file: its own definitions, else its declarations.
  std::unordered_map<std::string_view, uint32_t> &globals() { return globals_; }
  /// The names this file used before declaring them, resolved by finishModule.
  const std::vector<PendingRef> &pendingModule() const { return pendingModule_; }
  uint32_t file() const { return file_; }

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
  /// LLVM's NVPTX back end writes debug labels between a call's operands (`call.uni (r),\nLtmp1:\n
  /// f, (p);`), which ptxas accepts: they are labels of the position of the call.
  void skipLabelsInCall(uint32_t fnIndex, bool inCall) {
    while (inCall && at(TokenKind::Identifier) && peek().kind == TokenKind::Colon)
      parseLabelStatement(fnIndex);
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
      return fmt::format("'{}...'", escapedForTerminal(text.substr(0, 40)));
    return fmt::format("'{}'", escapedForTerminal(text));
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

  /// How deep parentheses, unary operators and braces may nest in one expression, initializer or
  /// operand. The recursive-descent parser uses stack per level: a hostile file (40,000 '(' or '-')
  /// must get an error, not overflow the stack. nvcc and clang nest a few levels at most.
  static constexpr unsigned kMaxNesting = 256;
  /// The newest PTX ISA major version ptxray implements (PTX ISA 9.0 shipped with CUDA 13.0).
  static constexpr uint32_t kNewestPtxMajor = 9;
  /// The largest variable: 2^48 bytes, more than the 49-bit virtual address space of Hopper's
  /// unified memory leaves to one allocation. Keeps every layout sum far from 2^64.
  static constexpr uint64_t kMaxVariableBytes = uint64_t{1} << 48;
  /// Registers declared by one function and by a whole module (nvcc and clang declare thousands).
  static constexpr uint64_t kMaxRegistersPerFunction = uint64_t{1} << 22;
  static constexpr uint64_t kMaxRegistersPerModule = uint64_t{1} << 24;
  /// One level of nesting for the scope of a recursive call; false (after an error at the current
  /// token, once per statement) when the limit is passed.
  class NestingLevel {
  public:
    explicit NestingLevel(Parser &p) : p_(p) { ++p_.nesting_; }
    ~NestingLevel() {
      if (--p_.nesting_ == 0)
        p_.reportedNesting_ = false;
    }
    NestingLevel(const NestingLevel &) = delete;
    NestingLevel &operator=(const NestingLevel &) = delete;
    bool ok() {
      if (p_.nesting_ <= kMaxNesting)
        return true;
      if (!p_.reportedNesting_)
        p_.errorHere(fmt::format("nesting deeper than {} levels", kMaxNesting));
      p_.reportedNesting_ = true;
      return false;
    }

  private:
    Parser &p_;
  };
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
  /// References recorded since `mark` belong to the child at `position` of the list being built.
  void notePosition(size_t mark, size_t position) {
    for (size_t i = mark; i < pendingFunction_.size(); ++i)
      if (pendingFunction_[i].b == kFreshReference)
        pendingFunction_[i].b = kListPositionBase + static_cast<uint32_t>(position);
  }
  /// The list whose references were recorded since `mark` now starts at operand `first`.
  void placeList(size_t mark, uint32_t first) {
    for (size_t i = mark; i < pendingFunction_.size(); ++i) {
      uint32_t &b = pendingFunction_[i].b;
      if (b >= kListPositionBase && b < kFreshReference)
        b = first + (b - kListPositionBase);
    }
  }
  /// `.v2`/`.v4`/`.v8` -> 2/4/8; 0 for anything else.
  static uint8_t vectorWidthOf(std::string_view d) {
    return d.size() == 3 && d[1] == 'v' && (d[2] == '2' || d[2] == '4' || d[2] == '8') ? d[2] - '0' : 0;
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
  bool parseInitializer(uint32_t varIndex);
  bool parseInitItem(uint32_t varIndex);
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
  bool resolveName(uint32_t fnIndex, const Token &name, Operand &out);
  bool parseNamedOperand(uint32_t fnIndex, Operand &out);
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
  void finishFunction();

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
  unsigned nesting_ = 0; ///< NestingLevel
  uint64_t ownRegisters_ = 0;
  /// Registers declared by ranges so far, in this file or, linked, in every file of the link: the
  /// bound is the linked module's (shareRegisterCount).
  uint64_t *moduleRegisters_ = &ownRegisters_;
  bool reportedNesting_ = false; ///< the nesting error was given (reset when nesting_ returns to 0)

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
  uint32_t fileIndexBase_ = 0;
};

} // namespace ptxray::ptx::detail
