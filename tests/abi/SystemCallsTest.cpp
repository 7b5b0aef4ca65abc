// §3: system-call prototypes for 32- and 64-bit addresses, and the vprintf argument buffer.
#include "abi/SystemCalls.h"
#include "abi/CDeclParser.h"

#include <gtest/gtest.h>

namespace ptxray::abi {
namespace {

TEST(SystemCallPrototypes, SixtyFourBit) {
  std::vector<std::string> protos;
  for (const SystemCall &c : systemCalls(64))
    protos.push_back(c.prototype());
  EXPECT_EQ(protos,
            (std::vector<std::string>{
                ".extern .func (.param .s32 status) vprintf (.param .b64 format, .param .b64 valist);",
                ".extern .func (.param .b64 ptr) malloc (.param .b64 size);", ".extern .func free (.param .b64 ptr);",
                ".extern .func __assertfail (.param .b64 message, .param .b64 file, .param .b32 line, "
                ".param .b64 function, .param .b64 charSize);"}));
}

TEST(SystemCallPrototypes, ThirtyTwoBit) {
  std::vector<std::string> protos;
  for (const SystemCall &c : systemCalls(32))
    protos.push_back(c.prototype());
  EXPECT_EQ(protos,
            (std::vector<std::string>{
                ".extern .func (.param .s32 status) vprintf (.param .b32 format, .param .b32 valist);",
                ".extern .func (.param .b32 ptr) malloc (.param .b32 size);", ".extern .func free (.param .b32 ptr);",
                ".extern .func __assertfail (.param .b32 message, .param .b32 file, .param .b32 line, "
                ".param .b32 function, .param .b32 charSize);"}));
}

TEST(SystemCallPrototypes, Lookup) {
  auto malloc64 = findSystemCall("malloc", 64);
  ASSERT_TRUE(malloc64);
  EXPECT_EQ(malloc64->id, SystemCallId::Malloc);
  ASSERT_TRUE(malloc64->result);
  EXPECT_EQ(malloc64->result->ptxType, ".b64");
  EXPECT_EQ(malloc64->params.at(0).name, "size");
  auto assert32 = findSystemCall("__assertfail", 32);
  ASSERT_TRUE(assert32);
  EXPECT_FALSE(assert32->result);
  EXPECT_EQ(assert32->params.size(), 5u);
  EXPECT_EQ(assert32->params[2].ptxType, ".b32"); // line is .b32 for both address sizes
  EXPECT_FALSE(findSystemCall("printf", 64));
  EXPECT_THROW(systemCalls(16), AbiError);
}

std::vector<TypeRef> types(std::initializer_list<const char *> names) {
  std::vector<TypeRef> out;
  for (const char *n : names) {
    CTypeResult r = parseCType(n);
    EXPECT_TRUE(r.ok()) << n;
    out.push_back(r.type);
  }
  return out;
}

std::string offsets(const VprintfBuffer &b) {
  std::string out;
  for (const VprintfArgument &a : b.arguments)
    out += (out.empty() ? "" : " ") + typeName(a.type) + "@" + std::to_string(a.offset);
  return out + " size " + std::to_string(b.size) + " align " + std::to_string(b.align);
}

// Each argument aligned to its size.
TEST(SystemCallVprintf, ArgumentsAlignedToTheirSize) {
  EXPECT_EQ(offsets(vprintfBuffer(types({"int", "double"}))), "int@0 double@8 size 16 align 8");
  EXPECT_EQ(offsets(vprintfBuffer(types({"int", "char *", "int"}), 64)), "int@0 char *@8 int@16 size 20 align 8");
  EXPECT_EQ(offsets(vprintfBuffer(types({"char *", "int"}), 32)), "char *@0 int@4 size 8 align 4");
  EXPECT_EQ(offsets(vprintfBuffer(types({"long", "long long"}), 32)), "long@0 long long@8 size 16 align 8");
  EXPECT_EQ(offsets(vprintfBuffer({})), " size 0 align 1");
}

TEST(SystemCallVprintf, DefaultArgumentPromotions) {
  EXPECT_EQ(offsets(vprintfBuffer(types({"char", "float", "unsigned short"}))),
            "int@0 double@8 int@16 size 20 align 8");
  EXPECT_EQ(offsets(vprintfBuffer(types({"float", "short"}), 64, false)), "float@0 short@4 size 6 align 4");
  EXPECT_EQ(offsets(vprintfBuffer(types({"char[4]"}), 64)), "char *@0 size 8 align 8");
  EXPECT_THROW(vprintfBuffer(types({"struct {int a;}"})), AbiError);
  EXPECT_THROW(vprintfBuffer(types({"float4"})), AbiError);
  EXPECT_THROW(vprintfBuffer(types({"long double"})), AbiError);
}

} // namespace
} // namespace ptxray::abi
