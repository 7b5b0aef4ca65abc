// The lexer: token kinds, text and offsets for every literal form, dot-word, identifier and
// punctuation PTX uses, and the literal value parsers.
#include "ptx/Lexer.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ptxray {
namespace {

using ptx::Lexer;
using ptx::Token;
using ptx::TokenKind;

std::vector<Token> lexAll(std::string_view text) {
  Lexer lex(text);
  std::vector<Token> out;
  for (;;) {
    Token t = lex.next();
    if (t.kind == TokenKind::End)
      break;
    out.push_back(t);
  }
  return out;
}

/// The single token `text` lexes to, checked to cover the whole input.
Token only(std::string_view text) {
  auto toks = lexAll(text);
  EXPECT_EQ(toks.size(), 1u) << "'" << text << "' lexed to " << toks.size() << " tokens";
  if (toks.empty())
    return {};
  EXPECT_EQ(toks[0].text, text);
  EXPECT_EQ(toks[0].offset, 0u);
  return toks[0];
}

TEST(LexerTest, IntegerLiterals) {
  for (const char *text : {"0", "42", "0x2A", "0X2a", "052", "0b101010", "0B1", "42U", "0x2AU", "18446744073709551615"})
    EXPECT_EQ(only(text).kind, TokenKind::Integer) << text;
  // Malformed literals still lex as one integer token, so the parser can show all of it.
  for (const char *text : {"0x", "08", "0b102", "12abc"})
    EXPECT_EQ(only(text).kind, TokenKind::Integer) << text;
}

TEST(LexerTest, FloatLiterals) {
  for (const char *text : {"0f3F800000", "0F3f800000", "0d3FF0000000000000", "0D3ff0000000000000", "1.5", "0.5", "1.",
                           ".5", "2e10", "2E10", "1.5e-3", "1e+5", "9.0", "0f3F80000"})
    EXPECT_EQ(only(text).kind, TokenKind::Float) << text;
}

TEST(LexerTest, DotWords) {
  for (const char *text : {".reg", ".s32", ".shared::cluster", ".shared::cta", ".L2::cache_hint", ".L1::evict_last",
                           ".mbarrier::complete_tx::bytes", ".1d", ".2d", ".2dms", ".v4", ".param::entry"})
    EXPECT_EQ(only(text).kind, TokenKind::DotWord) << text;
  // A '::' with nothing after it is not part of the word.
  auto toks = lexAll(".shared:: x");
  ASSERT_EQ(toks.size(), 4u);
  EXPECT_EQ(toks[0].text, ".shared");
  EXPECT_EQ(toks[1].kind, TokenKind::Colon);
  EXPECT_EQ(toks[2].kind, TokenKind::Colon);
  EXPECT_EQ(toks[3].text, "x");
  // A lone dot starts no token.
  EXPECT_EQ(only(".").kind, TokenKind::Invalid);
}

TEST(LexerTest, Identifiers) {
  for (const char *text : {"%r1", "%rd12", "%tid", "%envreg3", "$L__BB0_2", "$str$1", "_Z3fooii", "__local_depot0", "_",
                           "WARP_SZ", "sm_90", "foo$bar", "%r$1"})
    EXPECT_EQ(only(text).kind, TokenKind::Identifier) << text;
  EXPECT_EQ(only("%").kind, TokenKind::Percent);
}

TEST(LexerTest, RegisterWithSelectorAndAddress) {
  auto toks = lexAll("%tid.x [%rd1+-4] {%r1, %r2}");
  std::vector<TokenKind> kinds;
  std::vector<std::string_view> texts;
  for (const Token &t : toks) {
    kinds.push_back(t.kind);
    texts.push_back(t.text);
  }
  EXPECT_EQ(kinds, (std::vector<TokenKind>{TokenKind::Identifier, TokenKind::DotWord, TokenKind::LBracket,
                                           TokenKind::Identifier, TokenKind::Plus, TokenKind::Minus, TokenKind::Integer,
                                           TokenKind::RBracket, TokenKind::LBrace, TokenKind::Identifier,
                                           TokenKind::Comma, TokenKind::Identifier, TokenKind::RBrace}));
  EXPECT_EQ(texts, (std::vector<std::string_view>{"%tid", ".x", "[", "%rd1", "+", "-", "4", "]", "{", "%r1", ",", "%r2",
                                                  "}"}));
}

TEST(LexerTest, Punctuation) {
  auto toks = lexAll(", ; : ( ) [ ] { } < > + - * / % ! ~ & | ^ = @ ? << >> == != <= >= && ||");
  std::vector<TokenKind> kinds;
  for (const Token &t : toks)
    kinds.push_back(t.kind);
  EXPECT_EQ(kinds, (std::vector<TokenKind>{
                       TokenKind::Comma,     TokenKind::Semicolon,    TokenKind::Colon,      TokenKind::LParen,
                       TokenKind::RParen,    TokenKind::LBracket,     TokenKind::RBracket,   TokenKind::LBrace,
                       TokenKind::RBrace,    TokenKind::Less,         TokenKind::Greater,    TokenKind::Plus,
                       TokenKind::Minus,     TokenKind::Star,         TokenKind::Slash,      TokenKind::Percent,
                       TokenKind::Bang,      TokenKind::Tilde,        TokenKind::Amp,        TokenKind::Pipe,
                       TokenKind::Caret,     TokenKind::Equal,        TokenKind::At,         TokenKind::Question,
                       TokenKind::ShiftLeft, TokenKind::ShiftRight,   TokenKind::EqualEqual, TokenKind::BangEqual,
                       TokenKind::LessEqual, TokenKind::GreaterEqual, TokenKind::AmpAmp,     TokenKind::PipePipe}));
}

TEST(LexerTest, OffsetsAndEnd) {
  std::string_view text = "  add.s32\t%r1, 7;\n";
  Lexer lex(text);
  std::vector<std::pair<uint32_t, std::string_view>> got;
  for (Token t = lex.next(); t.kind != TokenKind::End; t = lex.next())
    got.emplace_back(t.offset, t.text);
  EXPECT_EQ(got, (std::vector<std::pair<uint32_t, std::string_view>>{
                     {2, "add"}, {5, ".s32"}, {10, "%r1"}, {13, ","}, {15, "7"}, {16, ";"}}));
  Token end = lex.next();
  EXPECT_EQ(end.kind, TokenKind::End);
  EXPECT_EQ(end.offset, text.size());
  EXPECT_EQ(lex.next().kind, TokenKind::End); // stays at the end
}

TEST(LexerTest, CommentsAreSkipped) {
  auto toks = lexAll("a // line comment ; b\nb /* block\n c ; */ c /**/d// end");
  ASSERT_EQ(toks.size(), 4u);
  EXPECT_EQ(toks[0].text, "a");
  EXPECT_EQ(toks[1].text, "b");
  EXPECT_EQ(toks[1].offset, 22u);
  EXPECT_EQ(toks[2].text, "c");
  EXPECT_EQ(toks[3].text, "d");
  EXPECT_TRUE(lexAll("// only a comment").empty());
  EXPECT_TRUE(lexAll("/* only */ /* comments */").empty());
}

TEST(LexerTest, Strings) {
  Token s = only(R"("a \"quoted\" name.cu")");
  EXPECT_EQ(s.kind, TokenKind::String);

  auto toks = lexAll("\"no end\nfoo");
  ASSERT_EQ(toks.size(), 2u);
  EXPECT_EQ(toks[0].kind, TokenKind::UnterminatedString);
  EXPECT_EQ(toks[0].text, "\"no end");
  EXPECT_EQ(toks[1].text, "foo");
}

TEST(LexerTest, ErrorTokens) {
  auto toks = lexAll("a /* never closed\n b c");
  ASSERT_EQ(toks.size(), 2u);
  EXPECT_EQ(toks[1].kind, TokenKind::UnterminatedComment);
  EXPECT_EQ(toks[1].offset, 2u);
  EXPECT_EQ(toks[1].text, "/* never closed\n b c");

  EXPECT_EQ(only("`").kind, TokenKind::Invalid);
  EXPECT_EQ(only("\\").kind, TokenKind::Invalid);
  // A multi-byte UTF-8 character is one invalid token, not one per byte.
  Token e = only("\xC3\xA9");
  EXPECT_EQ(e.kind, TokenKind::Invalid);
  EXPECT_EQ(e.text.size(), 2u);
}

TEST(LexerTest, PreprocessorLineIsOneToken) {
  auto toks = lexAll("#include \"x.h\" ; {\nfoo");
  ASSERT_EQ(toks.size(), 2u);
  EXPECT_EQ(toks[0].kind, TokenKind::Hash);
  EXPECT_EQ(toks[0].text, "#include \"x.h\" ; {");
  EXPECT_EQ(toks[1].text, "foo");
}

struct IntCase {
  const char *text;
  uint64_t value;
  bool isUnsigned;
};

TEST(LexerTest, ParseIntegerLiteralValues) {
  const IntCase cases[] = {
      {"0", 0, false},
      {"0U", 0, true},
      {"42", 42, false},
      {"0x2A", 42, false},
      {"0X2a", 42, false},
      {"052", 42, false},
      {"0b101010", 42, false},
      {"0B11", 3, false},
      {"42U", 42, true},
      {"42u", 42, true},
      {"0xffU", 255, true},
      {"0xFFFFFFFFFFFFFFFF", std::numeric_limits<uint64_t>::max(), false},
      {"18446744073709551615", std::numeric_limits<uint64_t>::max(), false},
      {"01777777777777777777777", std::numeric_limits<uint64_t>::max(), false},
  };
  for (const IntCase &c : cases) {
    uint64_t value = 1234;
    bool isUnsigned = !c.isUnsigned;
    ASSERT_TRUE(ptx::parseIntegerLiteral(c.text, value, isUnsigned)) << c.text;
    EXPECT_EQ(value, c.value) << c.text;
    EXPECT_EQ(isUnsigned, c.isUnsigned) << c.text;
  }
}

TEST(LexerTest, ParseIntegerLiteralRejectsMalformedAndOverflow) {
  for (const char *text : {"", "U", "0x", "0b", "08", "0b102", "12abc", "1.5", "-1", "0x1FFFFFFFFFFFFFFFF",
                           "0x10000000000000000", "18446744073709551616", "02000000000000000000000",
                           "0b10000000000000000000000000000000000000000000000000000000000000000"}) {
    uint64_t value = 0;
    bool isUnsigned = false;
    EXPECT_FALSE(ptx::parseIntegerLiteral(text, value, isUnsigned)) << text;
  }
}

TEST(LexerTest, ParseFloatLiteralValues) {
  struct Case {
    const char *text;
    uint64_t bits;
    int width;
  };
  const Case cases[] = {
      {"0f3F800000", 0x3F800000u, 32},
      {"0F3f800000", 0x3F800000u, 32},
      {"0fBF800000", 0xBF800000u, 32},
      {"0f7F800000", 0x7F800000u, 32}, // +inf
      {"0d3FF0000000000000", 0x3FF0000000000000ull, 64},
      {"0dC000000000000000", 0xC000000000000000ull, 64}, // -2.0
      {"1.5", std::bit_cast<uint64_t>(1.5), 64},
      {"0.5", std::bit_cast<uint64_t>(0.5), 64},
      {"2e10", std::bit_cast<uint64_t>(2e10), 64},
      {"1.5e-3", std::bit_cast<uint64_t>(1.5e-3), 64},
      {"1E+5", std::bit_cast<uint64_t>(1e5), 64},
      {".25", std::bit_cast<uint64_t>(0.25), 64},
  };
  for (const Case &c : cases) {
    uint64_t bits = 0;
    int width = 0;
    ASSERT_TRUE(ptx::parseFloatLiteral(c.text, bits, width)) << c.text;
    EXPECT_EQ(bits, c.bits) << c.text;
    EXPECT_EQ(width, c.width) << c.text;
  }
}

TEST(LexerTest, ParseFloatLiteralRejectsMalformed) {
  for (const char *text : {"0f", "0f3F80000", "0f3F8000000", "0fZZZZZZZZ", "0f3G800000", "0d3FF000000000000",
                           "0d3FF00000000000000", "1.5e", "1.5x", "1e999", "abc", ""}) {
    uint64_t bits = 0;
    int width = 0;
    EXPECT_FALSE(ptx::parseFloatLiteral(text, bits, width)) << text;
  }
}

} // namespace
} // namespace ptxray
