// The line table: which source position each instruction came from, and the chain of call sites it
// was inlined into, with inlined function names read from the .debug_str section.
#include "ptx/LineTable.h"
#include "ptx/Parser.h"

#include <gtest/gtest.h>

namespace ptxray {
namespace {

using namespace ptx;

// main.cu:10 calls outer() (inl.h:20), which calls inner() (inl.h:30); both are inlined.
constexpr const char *kModule = R"(.version 8.0
.target sm_90
.address_size 64

.file 1 "main.cu"
.file 2 "inl.h", 1700000000, 512

.visible .entry k()
{
  .reg .b32 %r<3>;
  mov.u32 %r1, 0;
  .loc 1 10 5
  mov.u32 %r1, 1;
  mov.u32 %r2, 1;
  .loc 2 20 3, function_name $L__info_string0, inlined_at 1 10 5
  mov.u32 %r1, 2;
  .loc 2 30 7, function_name $L__info_string1, inlined_at 2 20 3
  mov.u32 %r1, 3;
  .loc 1 40 2, function_name $L__info_string0+2, inlined_at 1 10 5
  mov.u32 %r1, 4;
  .loc 1 11 1
  ret;
}

.section .debug_str
{
$L__info_string0:
.b8 111,117,116,101,114,0
$L__info_string1:
.b8 105,110,110,101,114,0
}
)";

struct Pos {
  std::string_view file;
  uint32_t fileIndex, line, column;
  std::string inlinedFunction;
  bool operator==(const Pos &) const = default;
};

Pos pos(const SourcePosition &p) {
  return {p.file, p.fileIndex, p.line, p.column, p.inlinedFunction};
}

std::vector<Pos> chainOf(const LineTable &table, const Instruction &inst) {
  std::vector<Pos> out;
  for (const SourcePosition &p : table.chain(inst))
    out.push_back(pos(p));
  return out;
}

class LineTableTest : public ::testing::Test {
protected:
  void SetUp() override {
    result_ = parseModule("lines.ptx", kModule);
    ASSERT_TRUE(result_.ok()) << result_.diagnostics.render(result_.module->sources);
    ASSERT_EQ(fn().instructions.size(), 7u);
  }
  const Module &m() const { return *result_.module; }
  const Function &fn() const { return m().functions[0]; }
  const Instruction &inst(size_t i) const { return fn().instructions[i]; }
  uint32_t symbol(std::string_view name) const {
    for (uint32_t i = 0; i < m().symbols.size(); ++i)
      if (m().symbols[i].name == name)
        return i;
    return kNone;
  }
  ParseResult result_;
};

TEST_F(LineTableTest, LineEntries) {
  ASSERT_EQ(m().lines.size(), 5u);
  EXPECT_EQ(fn().locs, (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  const LineEntry &plain = m().lines[0];
  EXPECT_EQ(plain.file, 1u);
  EXPECT_EQ(plain.line, 10u);
  EXPECT_EQ(plain.column, 5u);
  EXPECT_FALSE(plain.hasInlinedAt);
  EXPECT_EQ(plain.functionName, kNone);

  const LineEntry &outer = m().lines[1];
  EXPECT_TRUE(outer.hasInlinedAt);
  EXPECT_EQ(outer.inlinedAt, 0u);
  EXPECT_EQ(outer.functionName, symbol("$L__info_string0"));
  EXPECT_EQ(outer.functionNameOffset, 0);
  EXPECT_EQ(outer.atFile, 1u);
  EXPECT_EQ(outer.atLine, 10u);
  EXPECT_EQ(outer.atColumn, 5u);

  EXPECT_EQ(m().lines[2].inlinedAt, 1u);
  EXPECT_EQ(m().lines[2].functionName, symbol("$L__info_string1"));
  // Call sites are found by position among the earlier .loc lines of the function.
  EXPECT_EQ(m().lines[3].inlinedAt, 0u);
  EXPECT_EQ(m().lines[3].functionNameOffset, 2);
}

TEST_F(LineTableTest, InstructionLines) {
  const uint32_t want[] = {kNone, 0, 0, 1, 2, 3, 4};
  for (size_t i = 0; i < std::size(want); ++i)
    EXPECT_EQ(inst(i).line, want[i]) << i;
}

TEST_F(LineTableTest, InstructionBeforeAnyLocHasNoPosition) {
  LineTable table(m());
  EXPECT_FALSE(table.position(inst(0)).has_value());
  EXPECT_TRUE(table.chain(inst(0)).empty());
}

TEST_F(LineTableTest, Positions) {
  LineTable table(m());
  auto p1 = table.position(inst(1));
  ASSERT_TRUE(p1.has_value());
  EXPECT_EQ(pos(*p1), (Pos{"main.cu", 1, 10, 5, ""}));
  // A .loc stays in force until the next one.
  EXPECT_EQ(pos(*table.position(inst(2))), (Pos{"main.cu", 1, 10, 5, ""}));
  EXPECT_EQ(pos(*table.position(inst(3))), (Pos{"inl.h", 2, 20, 3, "outer"}));
  EXPECT_EQ(pos(*table.position(inst(4))), (Pos{"inl.h", 2, 30, 7, "inner"}));
  EXPECT_EQ(pos(*table.position(inst(6))), (Pos{"main.cu", 1, 11, 1, ""}));
}

TEST_F(LineTableTest, NotInlinedChainIsJustThePosition) {
  LineTable table(m());
  EXPECT_EQ(chainOf(table, inst(1)), (std::vector<Pos>{{"main.cu", 1, 10, 5, ""}}));
  EXPECT_EQ(chainOf(table, inst(6)), (std::vector<Pos>{{"main.cu", 1, 11, 1, ""}}));
}

TEST_F(LineTableTest, ThreeLevelChain) {
  LineTable table(m());
  EXPECT_EQ(chainOf(table, inst(3)), (std::vector<Pos>{{"inl.h", 2, 20, 3, "outer"}, {"main.cu", 1, 10, 5, ""}}));
  EXPECT_EQ(chainOf(table, inst(4)),
            (std::vector<Pos>{{"inl.h", 2, 30, 7, "inner"}, {"inl.h", 2, 20, 3, "outer"}, {"main.cu", 1, 10, 5, ""}}));
  // The chain by line index is the same walk.
  EXPECT_EQ(table.chain(2u).size(), 3u);
}

TEST_F(LineTableTest, FunctionNameWithOffset) {
  LineTable table(m());
  // function_name $L__info_string0+2 names "ter", the tail of "outer".
  EXPECT_EQ(chainOf(table, inst(5)), (std::vector<Pos>{{"main.cu", 1, 40, 2, "ter"}, {"main.cu", 1, 10, 5, ""}}));
}

TEST_F(LineTableTest, DebugStrings) {
  LineTable table(m());
  EXPECT_EQ(table.debugString(symbol("$L__info_string0"), 0), "outer");
  EXPECT_EQ(table.debugString(symbol("$L__info_string1"), 0), "inner");
  EXPECT_EQ(table.debugString(symbol("$L__info_string1"), 3), "er");
  // The section's own name addresses its first byte.
  EXPECT_EQ(table.debugString(symbol(".debug_str"), 0), "outer");
  EXPECT_EQ(table.debugString(symbol(".debug_str"), 6), "inner");
  EXPECT_EQ(table.debugString(kNone, 0), "");
}

TEST(LineTableRobustness, CallSiteWithoutAnEarlierLoc) {
  // The ISA wants the inlined_at position to appear in an earlier .loc; when it does not, the chain
  // still ends with the call site as written (whether or not the parser also reports it).
  ParseResult r = parseModule("dangling.ptx", ".version 8.0\n.target sm_90\n.file 1 \"a.cu\"\n"
                                              ".visible .entry k()\n{\n"
                                              "  .loc 1 40 2, function_name $s, inlined_at 1 39 1\n  ret;\n}\n"
                                              ".section .debug_str\n{\n$s:\n.b8 102,0\n}\n");
  const Module &m = *r.module;
  ASSERT_EQ(m.lines.size(), 1u);
  EXPECT_EQ(m.lines[0].inlinedAt, kNone);
  ASSERT_EQ(m.functions.size(), 1u);
  ASSERT_EQ(m.functions[0].instructions.size(), 1u);
  LineTable table(m);
  EXPECT_EQ(chainOf(table, m.functions[0].instructions[0]),
            (std::vector<Pos>{{"a.cu", 1, 40, 2, "f"}, {"a.cu", 1, 39, 1, ""}}));
}

TEST(LineTableWide, MultiByteDataItems) {
  // .debug_str data written as .b32 words is read little-endian, byte by byte.
  ParseResult r = parseModule("wide.ptx", ".version 8.0\n.target sm_90\n.section .debug_str\n{\n$s:\n"
                                          ".b32 0x64636261, 0x00006665\n}\n");
  ASSERT_TRUE(r.ok()) << r.diagnostics.render(r.module->sources);
  LineTable table(*r.module);
  uint32_t s = kNone;
  for (uint32_t i = 0; i < r.module->symbols.size(); ++i)
    if (r.module->symbols[i].name == "$s")
      s = i;
  EXPECT_EQ(table.debugString(s, 0), "abcdef");
  EXPECT_EQ(table.debugString(s, 4), "ef");
}

} // namespace
} // namespace ptxray
