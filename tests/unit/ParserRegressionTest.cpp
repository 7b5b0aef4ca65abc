// Regression tests for parser, verifier and printer bugs found in review: each test states the fixed
// behaviour exactly. The matching error cases are tests/negative/regression_*.ptx.
#include "ptx/ModuleSummary.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ptxray {
namespace {

using namespace ptx;

constexpr const char *kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

std::string render(const ParseResult &r) {
  return r.diagnostics.render(r.module->sources);
}

ParseResult parseOk(const std::string &text) {
  ParseResult r = parseModule("regression.ptx", text);
  EXPECT_TRUE(r.ok()) << render(r) << "\n" << text;
  return r;
}

const Function &function(const Module &m, std::string_view name) {
  for (const Function &f : m.functions)
    if (f.name == name)
      return f;
  ADD_FAILURE() << "no function " << name;
  return m.functions.at(0);
}

const Variable &variable(const Module &m, std::string_view name) {
  for (const Symbol &s : m.symbols)
    if (s.kind == SymbolKind::Variable && s.name == name)
      return m.variables.at(s.index);
  ADD_FAILURE() << "no variable " << name;
  return m.variables.at(0);
}

/// print(m) re-parses without errors to the same IR; returns the printed text.
std::string expectRoundTrip(const Module &m) {
  std::string printed = printModule(m);
  ParseResult again = parseModule("printed.ptx", printed);
  EXPECT_TRUE(again.ok()) << render(again) << "\n" << printed;
  EXPECT_TRUE(m.sameIr(*again.module)) << printed;
  return printed;
}

// 5. WARP_SZ is a constant (32) usable in constant expressions.
TEST(ParserRegressionTest, WarpSizeInConstantExpressions) {
  ParseResult r = parseOk(std::string(kHeader) + ".visible .entry k()\n{\n"
                                                 "  .reg .b32 %r<3>;\n"
                                                 "  mov.u32 %r1, WARP_SZ-1;\n"
                                                 "  mov.u32 %r2, WARP_SZ*2;\n"
                                                 "  ret;\n}\n");
  const Function &f = function(*r.module, "k");
  ASSERT_EQ(f.instructions.size(), 3u);
  const Operand &minusOne = f.operandsOf(f.instructions[0])[1];
  EXPECT_EQ(minusOne.kind, OperandKind::Immediate);
  EXPECT_EQ(minusOne.value, 31);
  const Operand &times2 = f.operandsOf(f.instructions[1])[1];
  EXPECT_EQ(times2.kind, OperandKind::Immediate);
  EXPECT_EQ(times2.value, 64);
}

// 6. `.attribute(.managed)` on a global parses, prints after the state space and round-trips.
TEST(ParserRegressionTest, ManagedAttributeRoundTrips) {
  ParseResult r = parseOk(std::string(kHeader) + ".visible .global .attribute(.managed) .u32 m;\n");
  const Variable &m = variable(*r.module, "m");
  EXPECT_EQ(m.space, StateSpace::Global);
  EXPECT_EQ(m.linkage, Linkage::Visible);
  EXPECT_EQ(m.type, Mod::u32);
  EXPECT_NE(m.attribute.find(".managed"), std::string_view::npos) << m.attribute;
  std::string printed = expectRoundTrip(*r.module);
  EXPECT_NE(printed.find(".global .attribute(.managed) .u32 m"), std::string::npos) << printed;
}

// 7. Several .target directives are accepted and combine; one directive with two architectures is not.
TEST(ParserRegressionTest, MultipleTargetDirectives) {
  ParseResult two = parseOk(".version 8.0\n.target sm_80\n.target texmode_independent\n.address_size 64\n");
  EXPECT_EQ(two.module->target.sm, 80u);
  const auto &names = two.module->target.names;
  EXPECT_NE(std::find(names.begin(), names.end(), "texmode_independent"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "sm_80"), names.end());

  ParseResult later = parseOk(".version 8.0\n.target sm_70\n.target sm_90\n.address_size 64\n");
  EXPECT_EQ(later.module->target.sm, 90u);

  ParseResult both = parseModule("both.ptx", ".version 8.0\n.target sm_80, sm_90\n.address_size 64\n");
  EXPECT_EQ(both.diagnostics.errorCount(), 1u) << render(both);
}

// 8. Pointer parameters print as `.param .u64 .ptr .global .align 16 p` (type before .ptr).
TEST(ParserRegressionTest, PointerParamPrintsTypeBeforePtr) {
  ParseResult r = parseOk(std::string(kHeader) + ".visible .entry k(.param .u64 .ptr .global .align 16 p)\n{\n"
                                                 "  ret;\n}\n");
  const Function &k = function(*r.module, "k");
  ASSERT_EQ(k.params.size(), 1u);
  const Variable &p = r.module->variables.at(k.params[0]);
  EXPECT_EQ(p.type, Mod::u64);
  EXPECT_TRUE(p.isPointer);
  EXPECT_EQ(p.pointeeSpace, StateSpace::Global);
  EXPECT_EQ(p.pointeeAlign, 16u);
  std::string printed = expectRoundTrip(*r.module);
  EXPECT_NE(printed.find(".param .u64 .ptr .global .align 16 p"), std::string::npos) << printed;
}

// 9. A register after a %r<N> range, outside the range, is not a redefinition.
TEST(ParserRegressionTest, RegisterOutsideEarlierRange) {
  ParseResult r = parseOk(std::string(kHeader) + ".visible .entry k()\n{\n"
                                                 "  .reg .b32 %r<10>;\n"
                                                 "  .reg .b32 %r12;\n"
                                                 "  mov.u32 %r12, %r9;\n"
                                                 "  ret;\n}\n");
  const Function &k = function(*r.module, "k");
  ASSERT_EQ(k.instructions.size(), 2u);
  const Operand &dst = k.operandsOf(k.instructions[0])[0];
  ASSERT_EQ(dst.kind, OperandKind::Register);
  EXPECT_EQ(k.registers.at(dst.id).displayName(), "%r12");
}

// 11. A component of a vector special register is fine.
TEST(ParserRegressionTest, SpecialRegisterComponent) {
  ParseResult r = parseOk(std::string(kHeader) + ".visible .entry k()\n{\n"
                                                 "  .reg .b32 %r<2>;\n"
                                                 "  mov.u32 %r1, %tid.x;\n"
                                                 "  ret;\n}\n");
  const Function &k = function(*r.module, "k");
  EXPECT_EQ(k.operandsOf(k.instructions[0])[1].kind, OperandKind::SpecialReg);
}

// 13. setmaxnreg is accepted on an architecture-specific target.
TEST(ParserRegressionTest, SetMaxNRegOnArchSpecificTarget) {
  parseOk(".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n"
          "  setmaxnreg.inc.sync.aligned.u32 240;\n  ret;\n}\n");
}

// 15. function_name/inlined_at naming an earlier .loc of the function is fine from PTX 7.2 on.
TEST(ParserRegressionTest, InlinedAtFromPtx72) {
  parseOk(".version 7.2\n.target sm_80\n.address_size 64\n.file 1 \"kernel.cu\"\n"
          ".visible .entry k()\n{\n"
          "  .loc 1 9 1\n  ret;\n"
          "  .loc 1 5 3, function_name lbl, inlined_at 1 9 1\n  ret;\n}\n"
          ".section .debug_str\n{\nlbl:\n.b8 107,0\n}\n");
}

// 17. Nested initializer lists that fit their dimensions are fine.
TEST(ParserRegressionTest, NestedInitializerThatFits) {
  ParseResult r = parseOk(std::string(kHeader) + ".global .u32 c[2][2] = {{1,2},{3,4}};\n");
  const Variable &c = variable(*r.module, "c");
  EXPECT_EQ(c.dims, (std::vector<uint64_t>{2, 2}));
  EXPECT_EQ(c.sizeInBytes(), 16u);
}

// 18. An unsized array takes its size from its initializer.
TEST(ParserRegressionTest, UnsizedArraySizedByInitializer) {
  ParseResult r = parseOk(std::string(kHeader) + ".global .u32 a[] = {1,2,3};\n");
  const Variable &a = variable(*r.module, "a");
  EXPECT_EQ(a.sizeInBytes(), 12u);
  EXPECT_EQ(summarize(*r.module).globalBytes, 12u);
}

} // namespace
} // namespace ptxray
