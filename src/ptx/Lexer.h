// The PTX lexer: one pass over the bytes, no allocation. Token text is a view into the source.
#pragma once

#include "ptx/Source.h"

#include <cstdint>
#include <string_view>

namespace ptxray::ptx {

enum class TokenKind : uint8_t {
  End,
  Identifier, ///< foo, %r1, $L__BB0_2, _Z3fooii
  DotWord,    ///< .reg, .s32, .shared::cta, .L2::cache_hint
  Integer,    ///< 42, 0x2A, 052, 0b101010, 42U
  Float,      ///< 0f3F800000, 0d3FF0000000000000, 1.5, 2e10
  String,     ///< "text" (with the quotes)
  Comma,
  Semicolon,
  Colon,
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Less,
  Greater,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Bang,
  Tilde,
  Amp,
  Pipe,
  Caret,
  Equal,
  At,
  Question,
  ShiftLeft,
  ShiftRight,
  EqualEqual,
  BangEqual,
  LessEqual,
  GreaterEqual,
  AmpAmp,
  PipePipe,
  Hash,    ///< a preprocessor line (not supported)
  Invalid, ///< a byte that starts no token
  UnterminatedString,
  UnterminatedComment,
};

std::string_view describe(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::End;
  uint32_t offset = 0;
  std::string_view text;
};

class Lexer {
public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Token next();
  uint32_t offset() const { return static_cast<uint32_t>(pos_); }
  std::string_view text() const { return text_; }
  /// Skips to just past the end of the current line (error recovery for preprocessor lines).
  void skipLine();

private:
  Token make(TokenKind kind, size_t begin) {
    return {kind, static_cast<uint32_t>(begin), text_.substr(begin, pos_ - begin)};
  }
  Token lexNumber(size_t begin);

  std::string_view text_;
  size_t pos_ = 0;
};

/// Integer literal value; false when it does not fit 64 bits or is malformed.
bool parseIntegerLiteral(std::string_view text, uint64_t &value, bool &isUnsigned);
/// Float literal: the kind of bits produced (32 for 0f, 64 otherwise) and the bits.
bool parseFloatLiteral(std::string_view text, uint64_t &bits, int &width);

} // namespace ptxray::ptx
