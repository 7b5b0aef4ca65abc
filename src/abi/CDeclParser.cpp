#include "abi/CDeclParser.h"

#include "abi/Layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ptxray::abi {

std::string formatError(std::string_view file, const CDeclError &error) {
  return fmt::format("{}:{}:{}: error: {}", file, error.line, error.column, error.message);
}

const NamedType *CHeader::find(std::string_view name) const {
  std::string_view bare = name;
  std::string_view keyword;
  for (std::string_view k : {"struct ", "union ", "enum "}) {
    if (name.substr(0, k.size()) == k) {
      keyword = k.substr(0, k.size() - 1);
      bare = name.substr(k.size());
      while (!bare.empty() && bare.front() == ' ')
        bare.remove_prefix(1);
    }
  }
  const NamedType *tagged = nullptr;
  for (const NamedType &t : types) {
    if (t.name != bare)
      continue;
    if (t.isTypedef) {
      if (keyword.empty())
        return &t;
      continue;
    }
    bool kindMatches = keyword.empty() || (keyword == "enum" && t.type->kind == TypeKind::Enum) ||
                       (keyword == "union" && t.type->kind == TypeKind::Record && t.type->isUnion) ||
                       (keyword == "struct" && t.type->kind == TypeKind::Record && !t.type->isUnion);
    if (kindMatches && tagged == nullptr)
      tagged = &t;
  }
  return tagged;
}

namespace {

enum class Tok { Ident, Number, Punct, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;
  std::uint64_t value = 0;
  unsigned line = 1, column = 1;
  bool invalidNumber = false; ///< a Number that is no integer constant (OpenCL: an error only where one is read)
};

struct Failure {
  unsigned line, column;
  std::string message;
};

class Lexer {
public:
  /// `deferNumberErrors`: a number that is no integer constant (1.0f in an OpenCL function body the
  /// parser skips) is marked on its token instead of being an error at once.
  Lexer(std::string_view text, std::vector<CDeclError> &errors, bool deferNumberErrors = false)
      : text_(text), errors_(errors), deferNumberErrors_(deferNumberErrors) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    bool lineStart = true;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        advance();
        lineStart = true;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(c))) {
        advance();
        continue;
      }
      if (c == '/' && peek(1) == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n')
          advance();
        continue;
      }
      if (c == '/' && peek(1) == '*') {
        unsigned line = line_, column = column_;
        advance(2);
        while (pos_ < text_.size() && !(text_[pos_] == '*' && peek(1) == '/'))
          advance();
        if (pos_ >= text_.size()) {
          errors_.push_back({line, column, "unterminated comment"});
          break;
        }
        advance(2);
        continue;
      }
      if (c == '#' && lineStart) {
        directive();
        continue;
      }
      lineStart = false;
      Token t;
      t.line = line_;
      t.column = column_;
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        t.kind = Tok::Ident;
        while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
          t.text += text_[pos_], advance();
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        t.kind = Tok::Number;
        while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.'))
          t.text += text_[pos_], advance();
        if (!number(t.text, t.value)) {
          t.invalidNumber = true;
          if (!deferNumberErrors_)
            errors_.push_back({t.line, t.column, fmt::format("invalid integer constant '{}'", t.text)});
        }
      } else {
        t.kind = Tok::Punct;
        static const char *two[] = {"<<", ">>", "::", "&&", "||"};
        t.text = std::string(1, c);
        for (const char *op : two)
          if (c == op[0] && peek(1) == op[1])
            t.text = op;
        advance(static_cast<unsigned>(t.text.size()));
      }
      out.push_back(std::move(t));
    }
    Token end;
    end.line = line_;
    end.column = column_;
    out.push_back(end);
    return out;
  }

private:
  char peek(std::size_t ahead) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  void advance(unsigned n = 1) {
    for (unsigned i = 0; i < n && pos_ < text_.size(); ++i, ++pos_) {
      if (text_[pos_] == '\n')
        ++line_, column_ = 1;
      else
        ++column_;
    }
  }

  static bool number(const std::string &text, std::uint64_t &value) {
    std::string digits = text;
    while (!digits.empty() &&
           (digits.back() == 'u' || digits.back() == 'U' || digits.back() == 'l' || digits.back() == 'L'))
      digits.pop_back();
    int base = 10;
    std::size_t start = 0;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
      base = 16, start = 2;
    else if (digits.size() > 1 && digits[0] == '0')
      base = 8, start = 1;
    if (start >= digits.size())
      return digits == "0" || (digits.empty() ? false : base == 10);
    value = 0;
    for (std::size_t i = start; i < digits.size(); ++i) {
      int d = std::isdigit(static_cast<unsigned char>(digits[i])) ? digits[i] - '0'
              : std::isxdigit(static_cast<unsigned char>(digits[i]))
                  ? std::tolower(static_cast<unsigned char>(digits[i])) - 'a' + 10
                  : 99;
      if (d >= base)
        return false;
      value = value * base + static_cast<unsigned>(d);
    }
    return true;
  }

  // Preprocessor lines: pragmas and include guards are skipped, the rest is an error.
  void directive() {
    unsigned line = line_, column = column_;
    std::string body;
    while (pos_ < text_.size() && text_[pos_] != '\n')
      body += text_[pos_], advance();
    std::size_t i = 1;
    while (i < body.size() && std::isspace(static_cast<unsigned char>(body[i])))
      ++i;
    std::size_t nameEnd = i;
    while (nameEnd < body.size() && std::isalpha(static_cast<unsigned char>(body[nameEnd])))
      ++nameEnd;
    std::string name = body.substr(i, nameEnd - i);
    if (name == "pragma" || name == "ifndef" || name == "ifdef" || name == "endif")
      return;
    if (name == "define") {
      // `#define GUARD_H` (an include guard) is fine; a macro with a body is not expanded.
      std::size_t p = nameEnd;
      while (p < body.size() && std::isspace(static_cast<unsigned char>(body[p])))
        ++p;
      while (p < body.size() && (std::isalnum(static_cast<unsigned char>(body[p])) || body[p] == '_'))
        ++p;
      while (p < body.size() && std::isspace(static_cast<unsigned char>(body[p])))
        ++p;
      if (p >= body.size())
        return;
      errors_.push_back({line, column, "macros are not supported (only include-guard #define NAME)"});
      return;
    }
    if (name == "include") {
      errors_.push_back({line, column, "#include is not supported: put the declarations themselves in the input"});
      return;
    }
    errors_.push_back({line, column, fmt::format("preprocessor directive '#{}' is not supported", name)});
  }

  std::string_view text_;
  std::vector<CDeclError> &errors_;
  bool deferNumberErrors_ = false;
  std::size_t pos_ = 0;
  unsigned line_ = 1, column_ = 1;
};

struct Specs {
  bool isTypedef = false;
  bool any = false;
  int signedness = 0; // 1 signed, 2 unsigned
  int longs = 0;
  bool shortK = false, charK = false, intK = false, boolK = false, floatK = false, doubleK = false, voidK = false,
       halfK = false;
  TypeRef named;
  unsigned align = 0;
  AddressSpace space = AddressSpace::Generic;
  bool writeOnly = false;
  const Token *first = nullptr; // into the parser's tokens, which outlive it
};

struct Declarator {
  std::string name;
  const Token *at = nullptr; // into the parser's tokens, which outlive it
  int pointers = 0;
  std::vector<std::uint64_t> dims;
  unsigned align = 0;
};

class Parser {
public:
  Parser(std::vector<Token> tokens, SourceLanguage language, std::vector<CDeclError> &errors)
      : toks_(std::move(tokens)), lang_(language), errors_(errors) {}

  void useContext(const CHeader &context) {
    for (const NamedType &t : context.types) {
      if (t.isTypedef)
        typedefs_[t.name] = t.type;
      else
        tags_[t.name] = t.type;
    }
  }

  CHeader parseHeader() {
    while (cur().kind != Tok::End) {
      std::size_t start = pos_;
      try {
        topLevel();
      } catch (const Failure &f) {
        errors_.push_back({f.line, f.column, f.message});
        recover(start);
      }
    }
    return std::move(header_);
  }

  TypeRef parseSingle() {
    try {
      Specs specs = specifiers(false);
      Declarator d = declarator(true);
      if (cur().kind != Tok::End)
        failf(cur(), "unexpected '{}' after the type", cur().text);
      return apply(specs, d);
    } catch (const Failure &f) {
      errors_.push_back({f.line, f.column, f.message});
      return nullptr;
    }
  }

private:
  const Token &cur() const { return toks_[pos_]; }
  const Token &ahead(std::size_t n) const { return toks_[std::min(pos_ + n, toks_.size() - 1)]; }
  bool is(std::string_view text) const { return cur().kind != Tok::End && cur().text == text; }
  bool accept(std::string_view text) {
    if (!is(text))
      return false;
    ++pos_;
    return true;
  }
  [[noreturn]] void fail(const Token &at, std::string message) const {
    throw Failure{at.line, at.column, std::move(message)};
  }
  // Messages are formatted out of line: record(), member() and specifiers() recurse once per level of
  // struct nesting, and formatting temporaries would otherwise enlarge each of their stack frames.
  template <typename... Args>
  [[noreturn, gnu::noinline, gnu::cold]] void failf(const Token &at, fmt::format_string<Args...> format,
                                                    Args &&...args) const {
    fail(at, fmt::format(format, std::forward<Args>(args)...));
  }
  std::string describe(const Token &t) const { return t.kind == Tok::End ? "end of input" : "'" + t.text + "'"; }
  void expect(std::string_view text) {
    if (!accept(text))
      failf(cur(), "expected '{}' before {}", text, describe(cur()));
  }

  // Struct bodies and parenthesized or unary expressions are parsed by recursion; past kMaxNestingDepth
  // levels the input is refused with an error rather than the stack overflowed.
  class DepthGuard {
  public:
    DepthGuard(const Parser &parser, unsigned &depth, const Token &at, const char *what) : depth_(depth) {
      if (depth_ >= kMaxNestingDepth)
        parser.failf(at, "{} nested more than {} levels deep are not supported", what, kMaxNestingDepth);
      ++depth_;
    }
    ~DepthGuard() { --depth_; }
    DepthGuard(const DepthGuard &) = delete;
    DepthGuard &operator=(const DepthGuard &) = delete;

  private:
    unsigned &depth_;
  };

  // Levels of struct/union nesting in `type` as layoutOf counts them (arrays add none; 0 for other types).
  // Structs defined by name nest without nesting braces (struct S2 { struct S1 x; }), so this is checked
  // when each is defined: layoutOf would refuse them, and a header of them could not be listed anyway.
  // Remembered per record, so each definition costs its number of fields. The walk uses its own stack:
  // records from a context header (or a typedef's copy of one) may not have been seen yet.
  unsigned nesting(const TypeRef &type) {
    struct Frame {
      TypeRef record;
      std::size_t next = 0;
      unsigned height = 1;
    };
    auto recordOf = [](const TypeRef &t) -> const TypeRef * {
      const TypeRef *r = &t;
      while ((*r)->kind == TypeKind::Array)
        r = &(*r)->element;
      return (*r)->kind == TypeKind::Record ? r : nullptr;
    };
    const TypeRef *root = recordOf(type);
    if (root == nullptr)
      return 0;
    if (auto it = nesting_.find(root->get()); it != nesting_.end())
      return it->second.second;
    std::vector<Frame> stack;
    stack.push_back(Frame{*root});
    for (;;) {
      Frame &top = stack.back();
      if (top.next < top.record->fields.size()) {
        const Field &field = top.record->fields[top.next++];
        const TypeRef *child = field.isBitField() ? nullptr : recordOf(field.type);
        if (child == nullptr)
          continue;
        if (auto it = nesting_.find(child->get()); it != nesting_.end()) {
          top.height = std::max(top.height, it->second.second + 1);
          continue;
        }
        if (stack.size() > kMaxNestingDepth)
          return kMaxNestingDepth + 1; // deeper than allowed (or a cycle made through the API)
        stack.push_back(Frame{*child});
        continue;
      }
      Frame done = std::move(top);
      stack.pop_back();
      const Type *key = done.record.get();
      nesting_.emplace(key, std::make_pair(std::move(done.record), done.height));
      if (stack.empty())
        return done.height;
      stack.back().height = std::max(stack.back().height, done.height + 1);
    }
  }

  // Skip to just after the ';' ending the broken declaration (or to a '}' closing the top level).
  void recover(std::size_t start) {
    if (pos_ == start && cur().kind != Tok::End)
      ++pos_;
    int depth = 0;
    for (std::size_t i = start; i < pos_; ++i)
      depth += toks_[i].text == "{" ? 1 : toks_[i].text == "}" ? -1 : 0;
    while (cur().kind != Tok::End) {
      std::string t = cur().text;
      ++pos_;
      if (t == "{")
        ++depth;
      else if (t == "}" && --depth <= 0 && is(";")) {
        ++pos_;
        return;
      } else if (t == ";" && depth <= 0)
        return;
    }
  }

  // OpenCL C is a source language: a .cl file holds kernels and functions beside its types. A function
  // declaration or definition at the top level is one whose first name followed by '(' (attributes
  // aside) comes before any ';', '{', '=' or '['; it is skipped, body and all.
  bool functionAhead() const {
    for (std::size_t i = pos_; toks_[i].kind != Tok::End; ++i) {
      const Token &t = toks_[i];
      if (t.kind == Tok::Punct && (t.text == ";" || t.text == "{" || t.text == "=" || t.text == "["))
        return false;
      if (t.kind != Tok::Ident || toks_[i + 1].text != "(")
        continue;
      if (t.text != "__attribute__" && t.text != "__attribute" && t.text != "__align__" &&
          t.text != "__builtin_align__" && t.text != "alignas" && t.text != "_Alignas")
        return true;
      i = closingParen(i + 1);
      if (toks_[i].kind == Tok::End)
        return false;
    }
    return false;
  }

  // The index of the ')' matching the '(' at `open` (of the end token when there is none).
  std::size_t closingParen(std::size_t open) const {
    int depth = 0;
    for (std::size_t i = open; toks_[i].kind != Tok::End; ++i) {
      depth += toks_[i].text == "(" ? 1 : toks_[i].text == ")" ? -1 : 0;
      if (depth == 0)
        return i;
    }
    return toks_.size() - 1;
  }

  // Skips the function functionAhead() found: its name, parameters and attributes, then ';' or its body.
  void skipFunction() {
    const Token &start = cur();
    while (!(cur().kind == Tok::Ident && ahead(1).text == "(" && cur().text != "__attribute__" &&
             cur().text != "__attribute" && cur().text != "__align__" && cur().text != "__builtin_align__" &&
             cur().text != "alignas" && cur().text != "_Alignas")) {
      if (cur().kind == Tok::End)
        fail(start, "expected a function name");
      if (cur().kind == Tok::Ident && ahead(1).text == "(")
        pos_ = closingParen(pos_ + 1);
      ++pos_;
    }
    pos_ = closingParen(pos_ + 1);
    if (cur().kind == Tok::End)
      fail(start, "unterminated function declaration");
    ++pos_;
    while (cur().kind != Tok::End && !is(";") && !is("{"))
      ++pos_;
    if (accept(";"))
      return;
    if (cur().kind == Tok::End)
      fail(start, "expected ';' or a function body after the function declaration");
    int depth = 0;
    for (; cur().kind != Tok::End; ++pos_) {
      depth += is("{") ? 1 : is("}") ? -1 : 0;
      if (depth == 0) {
        ++pos_;
        accept(";");
        return;
      }
    }
    fail(start, "unterminated function body");
  }

  void topLevel() {
    if (accept(";"))
      return;
    if (lang_ == SourceLanguage::OpenCL && functionAhead()) {
      skipFunction();
      return;
    }
    Specs specs = specifiers(true);
    if (accept(";"))
      return; // a struct/union/enum definition or declaration on its own
    if (cur().kind == Tok::End)
      expect(";");
    do {
      Declarator d = declarator(false);
      TypeRef type = apply(specs, d);
      if (specs.isTypedef) {
        unsigned align = std::max(specs.align, d.align);
        TypeRef named = typedefOf(type, d.name, align);
        typedefs_[d.name] = named;
        header_.types.push_back(NamedType{d.name, true, named, d.at->line});
      }
      if (accept("="))
        fail(toks_[pos_ - 1], "initializers are not supported");
    } while (accept(","));
    expect(";");
  }

  bool isKeyword(const std::string &t) const {
    static const std::set<std::string> words = {"typedef",      "const",
                                                "volatile",     "restrict",
                                                "__restrict__", "__restrict",
                                                "static",       "extern",
                                                "inline",       "register",
                                                "__device__",   "__constant__",
                                                "__host__",     "__shared__",
                                                "__managed__",  "__global__",
                                                "signed",       "__signed__",
                                                "unsigned",     "short",
                                                "long",         "int",
                                                "char",         "_Bool",
                                                "bool",         "float",
                                                "double",       "void",
                                                "struct",       "union",
                                                "enum",         "__attribute__",
                                                "__align__",    "__builtin_align__",
                                                "alignas",      "_Alignas",
                                                "__half",       "__global",
                                                "__local",      "__constant",
                                                "__private",    "__read_only",
                                                "__write_only", "__read_write",
                                                "read_only",    "write_only",
                                                "read_write"};
    if (words.count(t))
      return true;
    if (lang_ == SourceLanguage::OpenCL)
      return t == "global" || t == "local" || t == "constant" || t == "private" || t == "half";
    return false;
  }

  bool typeSpecSeen(const Specs &s) const {
    return s.named || s.signedness || s.longs || s.shortK || s.charK || s.intK || s.boolK || s.floatK || s.doubleK ||
           s.voidK || s.halfK;
  }

  // A builtin vector, OpenCL scalar or opaque type spelled as one identifier.
  TypeRef builtinName(const std::string &name) const {
    bool cl = lang_ == SourceLanguage::OpenCL;
    if (name == "texref" || name == "image1d_t" || name == "image2d_t" || name == "image3d_t" ||
        name == "image1d_array_t" || name == "image2d_array_t" || name == "image1d_buffer_t")
      return opaqueType(OpaqueKind::Texture, name);
    if (name == "samplerref" || name == "sampler_t")
      return opaqueType(OpaqueKind::Sampler, name);
    if (name == "surfref")
      return opaqueType(OpaqueKind::Surface, name);
    if (name == "__half2" || (name == "half2" && !cl))
      return vectorOf(Scalar::Half, 2, false, name);
    if (cl) {
      static const std::map<std::string, Scalar> scalars = {
          {"uchar", Scalar::UChar}, {"ushort", Scalar::UShort}, {"uint", Scalar::UInt}, {"ulong", Scalar::ULongLong}};
      if (auto it = scalars.find(name); it != scalars.end())
        return scalarType(it->second);
      // OpenCL C's built-in types as wide as an address (32 or 64 bits, CL_DEVICE_ADDRESS_BITS): long
      // follows the address size in this model (ILP32/LP64), so they are typedefs of it.
      static const std::map<std::string, Scalar> addressSized = {{"size_t", Scalar::ULong},
                                                                 {"ptrdiff_t", Scalar::Long},
                                                                 {"intptr_t", Scalar::Long},
                                                                 {"uintptr_t", Scalar::ULong}};
      if (auto it = addressSized.find(name); it != addressSized.end())
        return typedefOf(scalarType(it->second), name);
    }
    static const std::map<std::string, Scalar> cudaBases = {
        {"char", Scalar::SChar},          {"uchar", Scalar::UChar}, {"short", Scalar::Short},
        {"ushort", Scalar::UShort},       {"int", Scalar::Int},     {"uint", Scalar::UInt},
        {"long", Scalar::Long},           {"ulong", Scalar::ULong}, {"longlong", Scalar::LongLong},
        {"ulonglong", Scalar::ULongLong}, {"float", Scalar::Float}, {"double", Scalar::Double}};
    static const std::map<std::string, Scalar> clBases = {
        {"char", Scalar::SChar},  {"uchar", Scalar::UChar},   {"short", Scalar::Short},   {"ushort", Scalar::UShort},
        {"int", Scalar::Int},     {"uint", Scalar::UInt},     {"long", Scalar::LongLong}, {"ulong", Scalar::ULongLong},
        {"float", Scalar::Float}, {"double", Scalar::Double}, {"half", Scalar::Half}};
    std::string base = name;
    std::string suffix;
    for (std::string_view s : {"_16a", "_32a"})
      if (!cl && base.size() > s.size() && base.substr(base.size() - s.size()) == s)
        suffix = std::string(s), base.resize(base.size() - s.size());
    std::size_t digits = base.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(base[digits - 1])))
      --digits;
    if (digits == base.size() || digits == 0)
      return nullptr;
    const auto &bases = cl ? clBases : cudaBases;
    auto it = bases.find(base.substr(0, digits));
    if (it == bases.end())
      return nullptr;
    unsigned count = static_cast<unsigned>(std::stoul(base.substr(digits)));
    bool ok = cl ? (count == 2 || count == 3 || count == 4 || count == 8 || count == 16) : (count >= 1 && count <= 4);
    if (!ok)
      return nullptr;
    TypeRef v = vectorOf(it->second, count, cl, name);
    if (!suffix.empty()) {
      bool wide = (it->second == Scalar::Double || it->second == Scalar::LongLong || it->second == Scalar::ULongLong ||
                   it->second == Scalar::Long || it->second == Scalar::ULong) &&
                  count == 4;
      if (!wide)
        return nullptr;
      v = withAlignment(v, suffix == "_16a" ? 16 : 32);
    }
    return v;
  }

  unsigned alignValue(const Token &at, std::uint64_t value) const {
    if (value == 0 || (value & (value - 1)) != 0)
      failf(at, "requested alignment {} is not a power of two", static_cast<std::int64_t>(value));
    if (value > (1u << 28))
      failf(at, "requested alignment {} is larger than 2^28, the largest alignment laid out", value);
    return static_cast<unsigned>(value);
  }

  // __attribute__((...)), __align__(N), __builtin_align__(N), alignas(N|type), _Alignas(N|type).
  bool attribute(unsigned &align) {
    if (is("__attribute__")) {
      ++pos_;
      expect("(");
      expect("(");
      while (!is(")")) {
        const Token &name = cur();
        if (name.kind != Tok::Ident)
          failf(name, "expected an attribute name before {}", describe(name));
        ++pos_;
        std::string n = name.text;
        if (n.size() > 4 && n.substr(0, 2) == "__" && n.substr(n.size() - 2) == "__")
          n = n.substr(2, n.size() - 4);
        if (n == "aligned") {
          if (accept("(")) {
            const Token &at = cur();
            align = std::max(align, alignValue(at, constExpr()));
            expect(")");
          } else {
            align = std::max(align, 16u); // the target's largest alignment (x86-64)
          }
        } else if (n == "packed") {
          fail(name, "__attribute__((packed)) is not supported (the PTX ABI has no packed layout)");
        } else if (n == "device_builtin" || n == "unused" || n == "may_alias") {
          if (accept("(")) {
            while (!is(")") && cur().kind != Tok::End)
              ++pos_;
            expect(")");
          }
        } else {
          failf(name, "attribute '{}' is not supported", name.text);
        }
        if (!accept(","))
          break;
      }
      expect(")");
      expect(")");
      return true;
    }
    if (is("__align__") || is("__builtin_align__") || is("alignas") || is("_Alignas")) {
      ++pos_;
      expect("(");
      const Token &at = cur();
      if (at.kind == Tok::Ident && (isKeyword(at.text) || typedefs_.count(at.text) || builtinName(at.text))) {
        // alignas(type): the type's natural alignment needs an address size; only for fixed-size types.
        TypeRef t = apply(specifiers(false), declarator(true));
        if (t->kind == TypeKind::Pointer ||
            (t->kind == TypeKind::Scalar && (t->scalar == Scalar::Long || t->scalar == Scalar::ULong)))
          fail(at, "alignas of a type whose size depends on the address size is not supported");
        align = std::max(align, alignValue(at, fixedAlign(t)));
      } else {
        align = std::max(align, alignValue(at, constExpr()));
      }
      expect(")");
      return true;
    }
    return false;
  }

  std::uint64_t fixedAlign(const TypeRef &t);

  Specs specifiers(bool allowTypedef) {
    Specs s;
    s.first = &cur();
    for (;;) {
      const Token &t = cur();
      if (t.kind != Tok::Ident)
        break;
      const std::string &w = t.text;
      if (attribute(s.align)) {
        s.any = true;
        continue;
      }
      if (w == "typedef") {
        if (!allowTypedef)
          fail(t, "typedef is not allowed here");
        s.isTypedef = true;
      } else if (w == "const" || w == "volatile" || w == "restrict" || w == "__restrict__" || w == "__restrict" ||
                 w == "static" || w == "extern" || w == "inline" || w == "register" || w == "__device__" ||
                 w == "__constant__" || w == "__host__" || w == "__shared__" || w == "__managed__" ||
                 w == "__global__" || w == "__read_only" || w == "read_only") {
      } else if (w == "__write_only" || w == "write_only" || w == "__read_write" || w == "read_write") {
        s.writeOnly = true;
      } else if (w == "__global" || (lang_ == SourceLanguage::OpenCL && w == "global")) {
        s.space = AddressSpace::Global;
      } else if (w == "__local" || (lang_ == SourceLanguage::OpenCL && w == "local")) {
        s.space = AddressSpace::Shared;
      } else if (w == "__constant" || (lang_ == SourceLanguage::OpenCL && w == "constant")) {
        s.space = AddressSpace::Const;
      } else if (w == "__private" || (lang_ == SourceLanguage::OpenCL && w == "private")) {
        s.space = AddressSpace::Local;
      } else if (w == "signed" || w == "__signed__" || w == "unsigned") {
        int v = w == "unsigned" ? 2 : 1;
        if (s.signedness != 0 && s.signedness != v)
          fail(t, "both 'signed' and 'unsigned' in one type");
        s.signedness = v;
      } else if (w == "short") {
        s.shortK = true;
      } else if (w == "long") {
        if (++s.longs > 2)
          fail(t, "'long long long' is too long");
      } else if (w == "int") {
        s.intK = true;
      } else if (w == "char") {
        s.charK = true;
      } else if (w == "_Bool" || w == "bool") {
        s.boolK = true;
      } else if (w == "float") {
        s.floatK = true;
      } else if (w == "double") {
        s.doubleK = true;
      } else if (w == "void") {
        s.voidK = true;
      } else if (w == "__half" || (lang_ == SourceLanguage::OpenCL && w == "half")) {
        s.halfK = true;
      } else if (w == "struct" || w == "union") {
        if (typeSpecSeen(s))
          failf(t, "'{}' after another type specifier", w);
        s.named = record(s.align);
        s.any = true;
        continue;
      } else if (w == "enum") {
        if (typeSpecSeen(s))
          fail(t, "'enum' after another type specifier");
        s.named = enumeration();
        s.any = true;
        continue;
      } else if (w == "class" || w == "template" || w == "typename" || w == "namespace") {
        failf(t, "C++ '{}' is not supported", w);
      } else if (!typeSpecSeen(s)) {
        if (auto it = typedefs_.find(w); it != typedefs_.end())
          s.named = it->second;
        else if (TypeRef b = builtinName(w))
          s.named = b;
        else if (auto tag = tags_.find(w); tag != tags_.end())
          s.named = tag->second; // C++: a struct's tag is a type name
        else if (ahead(1).kind == Tok::Ident || ahead(1).text == "*")
          failf(t, "unknown type name '{}'", w);
        else
          break;
      } else {
        break;
      }
      s.any = true;
      ++pos_;
    }
    if (!s.any)
      failf(cur(), "expected a type before {}", describe(cur()));
    return s;
  }

  TypeRef baseType(const Specs &s) const {
    int kinds = s.shortK + s.charK + s.boolK + s.floatK + s.doubleK + s.voidK + s.halfK + (s.named != nullptr);
    bool bad = kinds > 1 || (s.longs && (s.shortK || s.charK || s.boolK || s.floatK || s.voidK || s.halfK)) ||
               (s.longs == 2 && s.doubleK) ||
               (s.intK && (s.charK || s.boolK || s.floatK || s.doubleK || s.voidK || s.halfK || s.named)) ||
               (s.signedness && (s.boolK || s.floatK || s.doubleK || s.voidK || s.halfK || s.named));
    if (bad)
      fail(*s.first, "invalid combination of type specifiers");
    if (s.named) {
      if (s.space != AddressSpace::Generic || s.writeOnly) {
        if (s.named->kind == TypeKind::Opaque && s.writeOnly && s.named->opaque == OpaqueKind::Texture)
          return opaqueType(OpaqueKind::Surface, s.named->spelling); // OpenCL write-only images are surfaces
      }
      return s.named;
    }
    bool u = s.signedness == 2;
    if (s.voidK)
      return voidType();
    if (s.boolK)
      return scalarType(Scalar::Bool);
    if (s.charK)
      return scalarType(s.signedness == 0 ? Scalar::Char : u ? Scalar::UChar : Scalar::SChar);
    if (s.shortK)
      return scalarType(u ? Scalar::UShort : Scalar::Short);
    if (s.halfK) // OpenCL's half is CUDA's __half, under its own name
      return lang_ == SourceLanguage::OpenCL && s.first->text == "half" ? typedefOf(scalarType(Scalar::Half), "half")
                                                                        : scalarType(Scalar::Half);
    if (s.floatK)
      return scalarType(Scalar::Float);
    if (s.doubleK)
      return scalarType(s.longs ? Scalar::LongDouble : Scalar::Double);
    if (s.longs == 2 || (s.longs == 1 && lang_ == SourceLanguage::OpenCL))
      return scalarType(u ? Scalar::ULongLong : Scalar::LongLong);
    if (s.longs == 1)
      return scalarType(u ? Scalar::ULong : Scalar::Long);
    if (s.intK || s.signedness)
      return scalarType(u ? Scalar::UInt : Scalar::Int);
    fail(*s.first, "a declaration needs a type (for example 'int')");
  }

  Declarator declarator(bool abstract) {
    Declarator d;
    d.at = &cur();
    for (;;) {
      if (accept("*")) {
        ++d.pointers;
        continue;
      }
      if (is("const") || is("volatile") || is("restrict") || is("__restrict__") || is("__restrict")) {
        if (d.pointers == 0)
          break;
        ++pos_;
        continue;
      }
      if (is("&"))
        fail(cur(), "references are not supported");
      break;
    }
    while (attribute(d.align)) {
    }
    if (is("("))
      fail(cur(), "function and parenthesized declarators are not supported");
    if (cur().kind == Tok::Ident && !isKeyword(cur().text)) {
      if (abstract)
        failf(cur(), "unexpected name '{}' in a type", cur().text);
      d.at = &cur();
      d.name = cur().text;
      ++pos_;
    } else if (!abstract && !is(":")) {
      failf(cur(), "expected a name before {}", describe(cur()));
    }
    if (is("("))
      fail(cur(), "function declarations are not supported");
    while (accept("[")) {
      if (is("]"))
        fail(cur(), "arrays of unknown size are not supported");
      d.dims.push_back(constExpr());
      expect("]");
    }
    while (attribute(d.align)) {
    }
    return d;
  }

  TypeRef apply(const Specs &s, const Declarator &d) const {
    TypeRef t = baseType(s);
    for (int i = 0; i < d.pointers; ++i)
      t = pointerTo(t, i == 0 ? s.space : AddressSpace::Generic);
    if (t->kind == TypeKind::Void && !d.dims.empty())
      fail(*d.at, "array of void");
    for (std::size_t i = d.dims.size(); i-- > 0;)
      t = arrayOf(t, d.dims[i]);
    return t;
  }

  // struct/union specifier (the keyword is the current token).
  TypeRef record(unsigned &specAlign) {
    const Token &keyword = cur();
    bool isUnion = keyword.text == "union";
    ++pos_;
    unsigned align = 0;
    while (attribute(align)) {
    }
    std::string tag;
    const Token &tagAt = cur();
    if (cur().kind == Tok::Ident && !isKeyword(cur().text)) {
      tag = cur().text;
      ++pos_;
    }
    while (attribute(align)) {
    }
    if (!accept("{")) {
      if (tag.empty())
        failf(cur(), "expected a tag or '{{' after '{}'", keyword.text);
      specAlign = std::max(specAlign, align);
      if (auto it = tags_.find(tag); it != tags_.end())
        return it->second;
      auto incomplete = std::make_shared<Type>();
      incomplete->kind = TypeKind::Record;
      incomplete->isUnion = isUnion;
      incomplete->tag = tag;
      incomplete->incomplete = true;
      tags_[tag] = incomplete;
      return incomplete;
    }
    if (!tag.empty()) {
      if (auto it = tags_.find(tag); it != tags_.end() && !it->second->incomplete)
        failf(tagAt, "redefinition of '{} {}'", keyword.text, tag);
      if (!tags_.count(tag)) {
        auto incomplete = std::make_shared<Type>();
        incomplete->kind = TypeKind::Record;
        incomplete->isUnion = isUnion;
        incomplete->tag = tag;
        incomplete->incomplete = true;
        tags_[tag] = incomplete; // for `struct S *next;` inside S
      }
    }
    DepthGuard guard(*this, recordDepth_, keyword, "structs and unions");
    std::vector<Field> fields;
    std::set<std::string> names;
    while (!accept("}")) {
      if (cur().kind == Tok::End)
        failf(cur(), "missing '}}' at the end of '{} {}'", keyword.text, tag.empty() ? "<anonymous>" : tag);
      member(fields, names);
    }
    while (attribute(align)) {
    }
    TypeRef t = recordType(isUnion, tag, std::move(fields), align);
    if (nesting(t) > kMaxNestingDepth)
      failf(tag.empty() ? keyword : tagAt,
            "'{}' nests structs and unions more than {} levels deep, the "
            "most that can be laid out",
            typeName(*t), kMaxNestingDepth);
    if (!tag.empty()) {
      tags_[tag] = t;
      header_.types.push_back(NamedType{tag, false, t, keyword.line});
    }
    return t;
  }

  void member(std::vector<Field> &fields, std::set<std::string> &names) {
    if (accept(";"))
      return;
    const Token &first = cur();
    if (first.text == "typedef")
      fail(first, "typedef inside a struct is not supported");
    Specs s = specifiers(false);
    if (accept(";")) {
      // An anonymous struct/union member (C11); a tagged definition alone declares no member.
      if (s.named && s.named->kind == TypeKind::Record && s.named->tag.empty()) {
        for (const Field &f : s.named->fields)
          if (!f.name.empty() && !names.insert(f.name).second)
            failf(first, "duplicate member '{}'", f.name);
        fields.push_back(Field{"", s.named, std::nullopt, s.align});
      }
      return;
    }
    do {
      Declarator d = declarator(false);
      Field f;
      f.name = d.name;
      f.type = apply(s, d);
      f.alignOverride = std::max(s.align, d.align);
      if (accept(":")) {
        const Token &at = cur();
        std::uint64_t width = constExpr();
        if (d.pointers || !d.dims.empty())
          failf(at, "bit field '{}' must have an integral type", d.name);
        if (width == 0 && !d.name.empty())
          failf(at, "named bit field '{}' has zero width", d.name);
        // The expression's value as C gives it: -1 is negative, not 2^64 - 1 (nor 2^32 - 1 once
        // narrowed); no type is wider than 64 bits, so a wider field needs no further look.
        if (static_cast<std::int64_t>(width) < 0)
          failf(at, "bit field '{}' has a negative width ({})", d.name, static_cast<std::int64_t>(width));
        if (width > 64)
          failf(at, "bit field '{}' is {} bits wide, wider than any integer type (64 bits, §1.3)", d.name, width);
        f.bitWidth = static_cast<unsigned>(width);
        while (attribute(f.alignOverride)) {
        }
      } else if (d.name.empty()) {
        fail(*d.at, "a member needs a name");
      }
      if (f.type->kind == TypeKind::Void)
        failf(*d.at, "member '{}' has type void", d.name);
      if (!f.name.empty() && !names.insert(f.name).second)
        failf(*d.at, "duplicate member '{}'", f.name);
      fields.push_back(std::move(f));
    } while (accept(","));
    expect(";");
  }

  TypeRef enumeration() {
    const Token &keyword = cur();
    ++pos_;
    std::string tag;
    if (cur().kind == Tok::Ident && !isKeyword(cur().text)) {
      tag = cur().text;
      ++pos_;
    }
    auto t = std::make_shared<Type>(*enumType(tag));
    if (accept(":")) {
      Specs s = specifiers(false);
      TypeRef under = baseType(s);
      if (under->kind != TypeKind::Scalar || !isIntegral(under->scalar))
        fail(keyword, "an enum's underlying type must be integral");
      t->scalar = under->scalar;
    }
    if (!accept("{")) {
      if (tag.empty())
        fail(cur(), "expected a tag or '{' after 'enum'");
      if (auto it = tags_.find(tag); it != tags_.end())
        return it->second;
      return t;
    }
    std::int64_t next = 0;
    while (!accept("}")) {
      if (cur().kind != Tok::Ident)
        failf(cur(), "expected an enumerator before {}", describe(cur()));
      std::string name = cur().text;
      ++pos_;
      if (accept("="))
        next = static_cast<std::int64_t>(constExpr());
      constants_[name] = next++;
      if (!accept(",")) {
        expect("}");
        break;
      }
    }
    if (!tag.empty()) {
      tags_[tag] = t;
      header_.types.push_back(NamedType{tag, false, t, keyword.line});
    }
    return t;
  }

  // Integer constant expressions: literals, enumerators, unary + - ~ !, * / % + - << >> & ^ |, parens.
  std::uint64_t constExpr() { return static_cast<std::uint64_t>(binary(0)); }

  static int precedence(const std::string &op) {
    if (op == "|")
      return 1;
    if (op == "^")
      return 2;
    if (op == "&")
      return 3;
    if (op == "<<" || op == ">>")
      return 4;
    if (op == "+" || op == "-")
      return 5;
    if (op == "*" || op == "/" || op == "%")
      return 6;
    return 0;
  }

  std::int64_t binary(int minPrec) {
    std::int64_t lhs = unary();
    for (;;) {
      const Token &op = cur();
      int p = op.kind == Tok::Punct ? precedence(op.text) : 0;
      if (p == 0 || p <= minPrec)
        return lhs;
      ++pos_;
      std::int64_t rhs = binary(p);
      const std::string &o = op.text;
      if ((o == "/" || o == "%") && rhs == 0)
        fail(op, "division by zero in a constant expression");
      if ((o == "<<" || o == ">>") && (rhs < 0 || rhs > 63))
        fail(op, "shift count out of range");
      lhs = o == "|"    ? lhs | rhs
            : o == "^"  ? lhs ^ rhs
            : o == "&"  ? lhs & rhs
            : o == "<<" ? static_cast<std::int64_t>(static_cast<std::uint64_t>(lhs) << rhs)
            : o == ">>" ? lhs >> rhs
            : o == "+"  ? lhs + rhs
            : o == "-"  ? lhs - rhs
            : o == "*"  ? lhs * rhs
            : o == "/"  ? lhs / rhs
                        : lhs % rhs;
    }
  }

  std::int64_t unary() {
    const Token &t = cur();
    DepthGuard guard(*this, expressionDepth_, t, "expressions");
    if (accept("-"))
      return -unary();
    if (accept("+"))
      return unary();
    if (accept("~"))
      return ~unary();
    if (accept("!"))
      return !unary();
    if (accept("(")) {
      std::int64_t v = binary(0);
      expect(")");
      return v;
    }
    if (t.kind == Tok::Number) {
      if (t.invalidNumber)
        failf(t, "invalid integer constant '{}'", t.text);
      ++pos_;
      return static_cast<std::int64_t>(t.value);
    }
    if (t.kind == Tok::Ident) {
      if (t.text == "sizeof" || t.text == "_Alignof" || t.text == "alignof")
        failf(t, "'{}' in a constant expression is not supported", t.text);
      if (auto it = constants_.find(t.text); it != constants_.end()) {
        ++pos_;
        return it->second;
      }
      failf(t, "'{}' is not a known constant", t.text);
    }
    failf(t, "expected a constant before {}", describe(t));
  }

  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  SourceLanguage lang_;
  std::vector<CDeclError> &errors_;
  CHeader header_;
  std::map<std::string, TypeRef> typedefs_;
  std::map<std::string, TypeRef> tags_;
  std::map<std::string, std::int64_t> constants_;
  unsigned recordDepth_ = 0;     // struct/union bodies being parsed, one inside the other
  unsigned expressionDepth_ = 0; // unary operators and parentheses being parsed, one inside the other
  // By address; the TypeRef keeps the type alive so that the address cannot be reused by another type.
  std::unordered_map<const Type *, std::pair<TypeRef, unsigned>> nesting_;
  std::unordered_map<const Type *, std::pair<TypeRef, std::uint64_t>> fixedAligns_;
};

// Alignment of types whose layout does not depend on the address size (for alignas(type)). Arrays are
// walked in a loop (`int[1][1]...` is as deep as the input is long) and records remembered, since a
// struct may hold the same struct many times over.
std::uint64_t Parser::fixedAlign(const TypeRef &type) {
  std::uint64_t arrayAlign = 0; // arrays align like their element, or stricter when they say so
  const TypeRef *element = &type;
  while ((*element)->kind == TypeKind::Array) {
    arrayAlign = std::max<std::uint64_t>(arrayAlign, (*element)->alignOverride);
    element = &(*element)->element;
  }
  const TypeRef &t = *element;
  std::uint64_t a = 1;
  switch (t->kind) {
  case TypeKind::Scalar:
  case TypeKind::Enum: a = scalarSize(t->scalar, 64); break;
  case TypeKind::Opaque: a = 8; break;
  case TypeKind::Vector: {
    std::uint64_t e = scalarSize(t->scalar, 64);
    std::uint64_t size = e * (t->openclVector && t->count == 3 ? 4 : t->count);
    a = t->openclVector ? size : t->count % 2 ? e : std::min<std::uint64_t>(size, 16);
    break;
  }
  case TypeKind::Record: {
    // Recursion as deep as the struct nesting, which record() keeps within kMaxNestingDepth.
    if (auto it = fixedAligns_.find(t.get()); it != fixedAligns_.end()) {
      a = it->second.second;
      break;
    }
    for (const Field &f : t->fields)
      if (!(f.isBitField() && f.name.empty()))
        a = std::max(a, fixedAlign(f.type));
    fixedAligns_.emplace(t.get(), std::make_pair(t, a));
    break;
  }
  default: break;
  }
  return std::max<std::uint64_t>({a, t->alignOverride, arrayAlign});
}

} // namespace

CDeclResult parseCDecls(std::string_view text, SourceLanguage language) {
  CDeclResult result;
  std::vector<Token> tokens = Lexer(text, result.errors, language == SourceLanguage::OpenCL).run();
  Parser parser(std::move(tokens), language, result.errors);
  result.header = parser.parseHeader();
  std::stable_sort(result.errors.begin(), result.errors.end(), [](const CDeclError &a, const CDeclError &b) {
    return a.line != b.line ? a.line < b.line : a.column < b.column;
  });
  return result;
}

CTypeResult parseCType(std::string_view text, const CHeader *context, SourceLanguage language) {
  CTypeResult result;
  std::vector<Token> tokens = Lexer(text, result.errors).run();
  Parser parser(std::move(tokens), language, result.errors);
  if (context)
    parser.useContext(*context);
  TypeRef t = parser.parseSingle();
  if (result.errors.empty())
    result.type = t;
  return result;
}

} // namespace ptxray::abi
