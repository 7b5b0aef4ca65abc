// ptxray's layout and parameter mapping against what nvcc 13 and the host compiler did with 60 random
// structs and unions (tests/abi/fixtures/, made by scripts/gen-abi-fixtures.sh): the `.param .align A
// .b8 name[S]` nvcc emitted for each type passed by value, and every member's offset and bit position.
#include "abi/CDeclParser.h"
#include "abi/Layout.h"
#include "abi/ParamMapping.h"
#include "support/TestFiles.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

namespace ptxray::abi {
namespace {

const std::filesystem::path kFixtures = test::sourceDir() / "tests" / "abi" / "fixtures";

std::map<std::string, std::string> keyValues(std::istringstream &line) {
  std::map<std::string, std::string> out;
  for (std::string field; line >> field;)
    if (size_t eq = field.find('='); eq != std::string::npos)
      out[field.substr(0, eq)] = field.substr(eq + 1);
  return out;
}

const CHeader &fixtureHeader() {
  static const CDeclResult parsed = parseCDecls(test::readFile(kFixtures / "abi_structs.h"));
  return parsed.header;
}

TEST(NvccFixture, HeaderParses) {
  CDeclResult parsed = parseCDecls(test::readFile(kFixtures / "abi_structs.h"));
  for (const CDeclError &e : parsed.errors)
    ADD_FAILURE() << formatError("abi_structs.h", e);
  EXPECT_GE(parsed.header.types.size(), 60u);
}

TEST(NvccFixture, ParamDeclarationsMatchNvcc) {
  std::istringstream lines(test::readFile(kFixtures / "expected_params.txt"));
  int checked = 0;
  for (std::string text; std::getline(lines, text);) {
    if (text.empty() || text[0] == '#')
      continue;
    std::istringstream line(text);
    std::string name;
    line >> name;
    auto kv = keyValues(line);
    const NamedType *type = fixtureHeader().find(name);
    ASSERT_NE(type, nullptr) << name;
    ParamMapping p = mapParam(type->type, 64, "p");
    EXPECT_EQ(p.align, std::stoul(kv["align"])) << name << ": " << p.text;
    EXPECT_EQ(p.size, std::stoull(kv["size"])) << name << ": " << p.text;
    EXPECT_EQ(p.ptxType, ".b8") << name;
    ++checked;
  }
  EXPECT_EQ(checked, 60);
}

/// Member paths as the fixture writes them: nested members dotted, anonymous members flattened.
void collect(const std::vector<MemberLayout> &members, const std::string &prefix,
             std::map<std::string, const MemberLayout *> &out) {
  for (const MemberLayout &m : members) {
    if (m.name.empty()) {
      collect(m.members, prefix, out); // anonymous struct/union: its members belong to the parent
      continue;
    }
    std::string path = prefix + "." + m.name;
    out[path] = &m;
    collect(m.members, path, out);
  }
}

TEST(NvccFixture, MemberOffsetsAndBitPositionsMatchTheCompilers) {
  std::istringstream lines(test::readFile(kFixtures / "expected_layout.txt"));
  std::map<std::string, const MemberLayout *> members;
  Layout layout;
  int checked = 0;
  for (std::string text; std::getline(lines, text);) {
    if (text.empty() || text[0] == '#')
      continue;
    std::istringstream line(text);
    std::string name;
    line >> name;
    auto kv = keyValues(line);
    if (text[0] != ' ') { // a type: NAME size=.. align=..
      const NamedType *type = fixtureHeader().find(name);
      ASSERT_NE(type, nullptr) << name;
      layout = layoutOf(type->type, 64);
      members.clear();
      collect(layout.members, name, members);
      EXPECT_EQ(layout.size, std::stoull(kv["size"])) << name;
      EXPECT_EQ(layout.align, std::stoul(kv["align"])) << name;
      continue;
    }
    auto it = members.find(name);
    ASSERT_NE(it, members.end()) << "no member " << name;
    const MemberLayout &m = *it->second;
    if (kv.count("bit_offset")) {
      EXPECT_TRUE(m.isBitField) << name;
      EXPECT_EQ(m.bitOffset, std::stoull(kv["bit_offset"])) << name;
      EXPECT_EQ(m.bitWidth, std::stoull(kv["bit_width"])) << name;
    } else {
      EXPECT_EQ(m.byteOffset, std::stoull(kv["offset"])) << name;
      EXPECT_EQ(m.size, std::stoull(kv["size"])) << name;
    }
    ++checked;
  }
  EXPECT_GT(checked, 300);
}

} // namespace
} // namespace ptxray::abi
