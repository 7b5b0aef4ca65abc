#include "ptx/Lexer.h"

#include <array>
#include <charconv>
#include <cstring>

namespace ptxray::ptx {
namespace {

enum CharClass : uint8_t { kIdentStart = 1, kIdentBody = 2, kDigit = 4, kSpace = 8, kHex = 16 };

constexpr std::array<uint8_t, 256> makeClasses() {
  std::array<uint8_t, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c)
    t[c] = kIdentStart | kIdentBody;
  for (int c = 'A'; c <= 'Z'; ++c)
    t[c] = kIdentStart | kIdentBody;
  for (int c = '0'; c <= '9'; ++c)
    t[c] = kIdentBody | kDigit | kHex;
  for (int c = 'a'; c <= 'f'; ++c)
    t[c] |= kHex;
  for (int c = 'A'; c <= 'F'; ++c)
    t[c] |= kHex;
  t['_'] = kIdentStart | kIdentBody;
  t['$'] = kIdentStart | kIdentBody;
  t['%'] = kIdentStart;
  t[' '] = t['\t'] = t['\n'] = t['\r'] = t['\f'] = t['\v'] = kSpace;
  return t;
}
constexpr std::array<uint8_t, 256> kClass = makeClasses();

inline bool is(char c, uint8_t cls) {
  return kClass[static_cast<unsigned char>(c)] & cls;
}

} // namespace

std::string_view describe(TokenKind kind) {
  switch (kind) {
  case TokenKind::End: return "end of file";
  case TokenKind::Identifier: return "identifier";
  case TokenKind::DotWord: return "directive or modifier";
  case TokenKind::Integer: return "integer";
  case TokenKind::Float: return "floating-point number";
  case TokenKind::String: return "string";
  case TokenKind::Comma: return "','";
  case TokenKind::Semicolon: return "';'";
  case TokenKind::Colon: return "':'";
  case TokenKind::LParen: return "'('";
  case TokenKind::RParen: return "')'";
  case TokenKind::LBracket: return "'['";
  case TokenKind::RBracket: return "']'";
  case TokenKind::LBrace: return "'{'";
  case TokenKind::RBrace: return "'}'";
  case TokenKind::Less: return "'<'";
  case TokenKind::Greater: return "'>'";
  case TokenKind::Plus: return "'+'";
  case TokenKind::Minus: return "'-'";
  case TokenKind::Star: return "'*'";
  case TokenKind::Slash: return "'/'";
  case TokenKind::Percent: return "'%'";
  case TokenKind::Bang: return "'!'";
  case TokenKind::Tilde: return "'~'";
  case TokenKind::Amp: return "'&'";
  case TokenKind::Pipe: return "'|'";
  case TokenKind::Caret: return "'^'";
  case TokenKind::Equal: return "'='";
  case TokenKind::At: return "'@'";
  case TokenKind::Question: return "'?'";
  case TokenKind::ShiftLeft: return "'<<'";
  case TokenKind::ShiftRight: return "'>>'";
  case TokenKind::EqualEqual: return "'=='";
  case TokenKind::BangEqual: return "'!='";
  case TokenKind::LessEqual: return "'<='";
  case TokenKind::GreaterEqual: return "'>='";
  case TokenKind::AmpAmp: return "'&&'";
  case TokenKind::PipePipe: return "'||'";
  case TokenKind::Hash: return "preprocessor directive";
  case TokenKind::Invalid: return "invalid character";
  case TokenKind::UnterminatedString: return "unterminated string";
  case TokenKind::UnterminatedComment: return "unterminated comment";
  }
  return "token";
}

void Lexer::skipLine() {
  while (pos_ < text_.size() && text_[pos_] != '\n')
    ++pos_;
}

Token Lexer::next() {
  const char *s = text_.data();
  const size_t n = text_.size();
  for (;;) {
    while (pos_ < n && is(s[pos_], kSpace))
      ++pos_;
    if (pos_ + 1 < n && s[pos_] == '/' && s[pos_ + 1] == '/') {
      const void *nl = std::memchr(s + pos_, '\n', n - pos_);
      pos_ = nl ? static_cast<const char *>(nl) - s : n;
      continue;
    }
    if (pos_ + 1 < n && s[pos_] == '/' && s[pos_ + 1] == '*') {
      size_t begin = pos_;
      size_t end = text_.find("*/", pos_ + 2);
      if (end == std::string_view::npos) {
        pos_ = n;
        return make(TokenKind::UnterminatedComment, begin);
      }
      pos_ = end + 2;
      continue;
    }
    break;
  }
  size_t begin = pos_;
  if (pos_ >= n)
    return {TokenKind::End, static_cast<uint32_t>(n), {}};
  char c = s[pos_];
  if (is(c, kIdentStart)) {
    ++pos_;
    while (pos_ < n && is(s[pos_], kIdentBody))
      ++pos_;
    if (c == '%' && pos_ == begin + 1)
      return make(TokenKind::Percent, begin);
    return make(TokenKind::Identifier, begin);
  }
  if (is(c, kDigit))
    return lexNumber(begin);
  ++pos_;
  auto twoChar = [&](char second, TokenKind two, TokenKind one) {
    if (pos_ < n && s[pos_] == second) {
      ++pos_;
      return make(two, begin);
    }
    return make(one, begin);
  };
  switch (c) {
  case '.': {
    if (pos_ < n && is(s[pos_], kDigit) && !(pos_ + 1 < n && is(s[pos_ + 1], kIdentStart) && s[pos_ + 1] != '%')) {
      // `.5` style float: digits only after the dot.
      size_t p = pos_;
      while (p < n && is(s[p], kDigit))
        ++p;
      if (p >= n || !is(s[p], kIdentBody)) {
        pos_ = begin;
        return lexNumber(begin);
      }
    }
    while (pos_ < n) {
      if (is(s[pos_], kIdentBody)) {
        ++pos_;
      } else if (s[pos_] == ':' && pos_ + 2 < n && s[pos_ + 1] == ':' && is(s[pos_ + 2], kIdentBody)) {
        pos_ += 2;
      } else {
        break;
      }
    }
    if (pos_ == begin + 1)
      return make(TokenKind::Invalid, begin);
    return make(TokenKind::DotWord, begin);
  }
  case '"': {
    while (pos_ < n && s[pos_] != '"' && s[pos_] != '\n') {
      if (s[pos_] == '\\' && pos_ + 1 < n)
        ++pos_;
      ++pos_;
    }
    if (pos_ >= n || s[pos_] != '"')
      return make(TokenKind::UnterminatedString, begin);
    ++pos_;
    return make(TokenKind::String, begin);
  }
  case ',': return make(TokenKind::Comma, begin);
  case ';': return make(TokenKind::Semicolon, begin);
  case ':': return make(TokenKind::Colon, begin);
  case '(': return make(TokenKind::LParen, begin);
  case ')': return make(TokenKind::RParen, begin);
  case '[': return make(TokenKind::LBracket, begin);
  case ']': return make(TokenKind::RBracket, begin);
  case '{': return make(TokenKind::LBrace, begin);
  case '}': return make(TokenKind::RBrace, begin);
  case '+': return make(TokenKind::Plus, begin);
  case '-': return make(TokenKind::Minus, begin);
  case '*': return make(TokenKind::Star, begin);
  case '/': return make(TokenKind::Slash, begin);
  case '~': return make(TokenKind::Tilde, begin);
  case '^': return make(TokenKind::Caret, begin);
  case '@': return make(TokenKind::At, begin);
  case '?': return make(TokenKind::Question, begin);
  case '<':
    if (pos_ < n && s[pos_] == '<') {
      ++pos_;
      return make(TokenKind::ShiftLeft, begin);
    }
    return twoChar('=', TokenKind::LessEqual, TokenKind::Less);
  case '>':
    if (pos_ < n && s[pos_] == '>') {
      ++pos_;
      return make(TokenKind::ShiftRight, begin);
    }
    return twoChar('=', TokenKind::GreaterEqual, TokenKind::Greater);
  case '=': return twoChar('=', TokenKind::EqualEqual, TokenKind::Equal);
  case '!': return twoChar('=', TokenKind::BangEqual, TokenKind::Bang);
  case '&': return twoChar('&', TokenKind::AmpAmp, TokenKind::Amp);
  case '|': return twoChar('|', TokenKind::PipePipe, TokenKind::Pipe);
  case '#': {
    skipLine();
    return make(TokenKind::Hash, begin);
  }
  default:
    // Swallow a whole UTF-8 sequence so the caret points at one character.
    while (pos_ < n && (static_cast<unsigned char>(s[pos_]) & 0xC0) == 0x80)
      ++pos_;
    return make(TokenKind::Invalid, begin);
  }
}

Token Lexer::lexNumber(size_t begin) {
  const char *s = text_.data();
  const size_t n = text_.size();
  // 0f / 0d hexadecimal float bit patterns.
  if (s[pos_] == '0' && pos_ + 1 < n && (s[pos_ + 1] | 0x20) != 'x' &&
      ((s[pos_ + 1] | 0x20) == 'f' || (s[pos_ + 1] | 0x20) == 'd')) {
    pos_ += 2;
    while (pos_ < n && is(s[pos_], kIdentBody))
      ++pos_;
    return make(TokenKind::Float, begin);
  }
  bool isFloat = false;
  if (s[pos_] == '0' && pos_ + 1 < n && ((s[pos_ + 1] | 0x20) == 'x' || (s[pos_ + 1] | 0x20) == 'b')) {
    pos_ += 2;
    while (pos_ < n && is(s[pos_], kIdentBody))
      ++pos_;
    return make(TokenKind::Integer, begin);
  }
  while (pos_ < n && is(s[pos_], kDigit))
    ++pos_;
  if (pos_ < n && s[pos_] == '.' &&
      !(pos_ + 1 < n && is(s[pos_ + 1], kIdentStart) && s[pos_ + 1] != 'e' && s[pos_ + 1] != 'E')) {
    isFloat = true;
    ++pos_;
    while (pos_ < n && is(s[pos_], kDigit))
      ++pos_;
  }
  if (pos_ < n && (s[pos_] | 0x20) == 'e') {
    size_t p = pos_ + 1;
    if (p < n && (s[p] == '+' || s[p] == '-'))
      ++p;
    if (p < n && is(s[p], kDigit)) {
      isFloat = true;
      pos_ = p;
      while (pos_ < n && is(s[pos_], kDigit))
        ++pos_;
    }
  }
  // Trailing letters (the U suffix, or garbage the parser will reject with the whole token shown).
  while (pos_ < n && is(s[pos_], kIdentBody))
    ++pos_;
  return make(isFloat ? TokenKind::Float : TokenKind::Integer, begin);
}

bool parseIntegerLiteral(std::string_view text, uint64_t &value, bool &isUnsigned) {
  isUnsigned = false;
  if (!text.empty() && (text.back() == 'U' || text.back() == 'u')) {
    isUnsigned = true;
    text.remove_suffix(1);
  }
  if (text.empty())
    return false;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] | 0x20) == 'x') {
    base = 16;
    text.remove_prefix(2);
  } else if (text.size() > 2 && text[0] == '0' && (text[1] | 0x20) == 'b') {
    base = 2;
    text.remove_prefix(2);
  } else if (text.size() > 1 && text[0] == '0') {
    base = 8;
    text.remove_prefix(1);
  }
  if (base == 10 && text.size() <= 18) {
    // Fast path for the common short decimal (cannot overflow in 18 digits).
    uint64_t v = 0;
    for (char c : text) {
      if (c < '0' || c > '9')
        return false;
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    value = v;
    return true;
  }
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  return ec == std::errc() && ptr == text.data() + text.size();
}

bool parseFloatLiteral(std::string_view text, uint64_t &bits, int &width) {
  if (text.size() > 2 && text[0] == '0' && ((text[1] | 0x20) == 'f' || (text[1] | 0x20) == 'd')) {
    width = (text[1] | 0x20) == 'f' ? 32 : 64;
    std::string_view digits = text.substr(2);
    if (digits.size() != static_cast<size_t>(width / 4))
      return false;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bits, 16);
    return ec == std::errc() && ptr == digits.data() + digits.size();
  }
  width = 64;
  double d = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (ec != std::errc() || ptr != text.data() + text.size())
    return false;
  std::memcpy(&bits, &d, sizeof bits);
  return true;
}

} // namespace ptxray::ptx
