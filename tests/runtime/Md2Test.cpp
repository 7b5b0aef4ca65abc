// MD2 against RFC 1319's test suite, and HMAC-MD2's construction (the integrity check NVIDIA's runtime
// asks the driver for is an HMAC-MD2; a wrong digest makes the runtime refuse the driver).
#include "libcuda/Md2.h"

#include <gtest/gtest.h>

#include <string>

using namespace ptxray::runtime;

namespace {

std::string hex(const std::array<uint8_t, 16> &digest) {
  static const char *digits = "0123456789abcdef";
  std::string s;
  for (uint8_t b : digest) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

std::string md2(const std::string &text) {
  Md2 m;
  m.update(text.data(), text.size());
  return hex(m.digest());
}

} // namespace

TEST(Md2, Rfc1319TestSuite) {
  EXPECT_EQ(md2(""), "8350e5a3e24c153df2275c9f80692773");
  EXPECT_EQ(md2("a"), "32ec01ec4a6dac72c0ab96fb34c0b5d1");
  EXPECT_EQ(md2("abc"), "da853b0d3f88d99b30283a69e6ded6bb");
  EXPECT_EQ(md2("message digest"), "ab4f496bfb2a530b219ff33031fe06b0");
  EXPECT_EQ(md2("abcdefghijklmnopqrstuvwxyz"), "4e8ddff3650292ab5a4108c3aa47940b");
  EXPECT_EQ(md2("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"), "da33def2a42df13975352846c30338cd");
  EXPECT_EQ(md2("12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
            "d5976f79d83d3a0dc9806c3c66f3efd8");
}

TEST(Md2, UpdatesInPiecesEqualOneUpdate) {
  const std::string text = "a message longer than one sixteen-byte block, split at odd places";
  Md2 m;
  m.update(text.data(), 5);
  m.update(text.data() + 5, 17);
  m.update(text.data() + 22, text.size() - 22);
  EXPECT_EQ(hex(m.digest()), md2(text));
}

TEST(Md2, HmacIsTheNestedDigestOfThePaddedKeys) {
  const uint8_t key[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  const std::string message = "identity";
  // By hand: MD2((key ^ 0x5c) || MD2((key ^ 0x36) || message)), the message given in two parts.
  uint8_t inner[16], outer[16];
  for (int i = 0; i < 16; ++i) {
    inner[i] = key[i] ^ 0x36;
    outer[i] = key[i] ^ 0x5c;
  }
  Md2 a;
  a.update(inner, 16);
  a.update(message.data(), message.size());
  const auto innerDigest = a.digest();
  Md2 b;
  b.update(outer, 16);
  b.update(innerDigest.data(), 16);
  const auto expected = b.digest();
  const std::span<const uint8_t> parts[] = {{reinterpret_cast<const uint8_t *>(message.data()), 3},
                                            {reinterpret_cast<const uint8_t *>(message.data()) + 3, 5}};
  EXPECT_EQ(hex(hmacMd2(std::span<const uint8_t, 16>(key, 16), parts)), hex(expected));
}
