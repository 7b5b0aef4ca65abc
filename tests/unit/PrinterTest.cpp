// The printer: canonical text for a small module (a reviewed golden string), operand spellings that
// re-parse to the same values, and parse(print(m)) having the same IR as m on tricky inputs.
#include "ptx/Printer.h"
#include "ptx/Parser.h"

#include <gtest/gtest.h>

#include <limits>

namespace ptxray {
namespace {

using namespace ptx;

constexpr const char *kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

ParseResult parseOk(const std::string &text) {
  ParseResult r = parseModule("printer.ptx", text);
  EXPECT_TRUE(r.ok()) << r.diagnostics.render(r.module->sources) << "\n" << text;
  return r;
}

TEST(PrinterTest, GoldenModule) {
  const std::string input = std::string(kHeader) + R"(
  .global .align 4 .u32 counter = 7;
.global .f32 weights[2] = { 0f3F800000,0fC0000000 };
.const .align 8 .b8 table[16];
.visible .entry k( .param .u64 out,.param .u32 n ) .maxntid 128,1,1
{
  .reg .pred %p<2>; .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra $L_done;
  mul.wide.u32 %rd2, %r2, 2*2;
  add.s64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2-4], %r1;
$L_done:
  ret;
}
)";
  const std::string golden = ".version 8.0\n"
                             ".target sm_90\n"
                             ".address_size 64\n"
                             "\n"
                             ".global .align 4 .u32 counter = 7;\n"
                             ".global .f32 weights[2] = {0f3F800000, 0fC0000000};\n"
                             ".const .align 8 .b8 table[16];\n"
                             "\n"
                             ".visible .entry k(\n"
                             "\t.param .u64 out,\n"
                             "\t.param .u32 n\n"
                             ")\n"
                             ".maxntid 128, 1, 1\n"
                             "{\n"
                             "\t.reg .pred \t%p<2>;\n"
                             "\t.reg .b32 \t%r<4>;\n"
                             "\t.reg .b64 \t%rd<3>;\n"
                             "\tld.param.u64 \t%rd1, [out];\n"
                             "\tld.param.u32 \t%r1, [n];\n"
                             "\tmov.u32 \t%r2, %tid.x;\n"
                             "\tsetp.ge.u32 \t%p1, %r2, %r1;\n"
                             "\t@%p1 bra \t$L_done;\n"
                             "\tmul.wide.u32 \t%rd2, %r2, 4;\n"
                             "\tadd.s64 \t%rd2, %rd1, %rd2;\n"
                             "\tst.global.u32 \t[%rd2+-4], %r1;\n"
                             "$L_done:\n"
                             "\tret;\n"
                             "}\n";
  ParseResult r = parseOk(input);
  EXPECT_EQ(printModule(*r.module), golden);
  // The canonical text is itself canonical.
  ParseResult again = parseOk(golden);
  EXPECT_EQ(printModule(*again.module), golden);
  EXPECT_TRUE(r.module->sameIr(*again.module));
}

TEST(PrinterTest, OperandSpellings) {
  ParseResult r = parseOk(std::string(kHeader) + ".global .u32 arr[4];\n.global .texref tref;\n"
                                                 ".visible .entry k()\n{\n  .reg .b32 %r<5>;\n  .reg .f32 %f<7>;\n"
                                                 "  .reg .f64 %fd<2>;\n  .reg .b64 %rd<2>;\n  .reg .pred %p<3>;\n"
                                                 "  .param .b32 r0;\n  .param .b32 a0;\n"
                                                 "  mov.b32 %r1, -5;\n"                                            // 0
                                                 "  mov.b32 %r1, 65535;\n"                                         // 1
                                                 "  mov.b32 %r1, 65536;\n"                                         // 2
                                                 "  mov.b32 %r1, 42U;\n"                                           // 3
                                                 "  mov.b32 %r1, 0xFFFFFFFFU;\n"                                   // 4
                                                 "  mov.f64 %fd1, -1.5;\n"                                         // 5
                                                 "  mov.f32 %f1, 0f3f800000;\n"                                    // 6
                                                 "  ld.global.u32 %r1, [%rd1 + -4];\n"                             // 7
                                                 "  ld.global.u32 %r1, [arr+8];\n"                                 // 8
                                                 "  ld.global.v2.u32 {%r1,%r2}, [%rd1];\n"                         // 9
                                                 "  shfl.sync.idx.b32 %r1|%p1, %r2, 0, 31, -1;\n"                  // 10
                                                 "  @!%p1 setp.lt.and.s32 %p1, %r1, %r2, !%p2;\n"                  // 11
                                                 "  mbarrier.arrive.shared::cta.b64 _, [%rd1];\n"                  // 12
                                                 "  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tref, {%f5, %f6}];\n" // 13
                                                 "  call.uni (r0), f, (a0);\n"                                     // 14
                                                 "  vadd.s32.u32.s32.sat %r1, %r2.h0, %r3.b1;\n"                   // 15
                                                 "  vmad.u32.u32.u32 %r1, -%r2, %r3, %r4;\n"                       // 16
                                                 "  ret;\n}\n"
                                                 ".func (.param .b32 r) f(.param .b32 a)\n{\n  ret;\n}\n");
  const Module &m = *r.module;
  const Function &k = m.functions[0];
  const char *want[] = {
      "mov.b32 \t%r1, -5",
      "mov.b32 \t%r1, 65535",
      "mov.b32 \t%r1, 0x10000",
      "mov.b32 \t%r1, 42U",
      "mov.b32 \t%r1, 0xFFFFFFFFU",
      "mov.f64 \t%fd1, 0dBFF8000000000000",
      "mov.f32 \t%f1, 0f3F800000",
      "ld.global.u32 \t%r1, [%rd1+-4]",
      "ld.global.u32 \t%r1, [arr+8]",
      "ld.global.v2.u32 \t{%r1, %r2}, [%rd1]",
      "shfl.sync.idx.b32 \t%r1|%p1, %r2, 0, 31, -1",
      "@!%p1 setp.lt.and.s32 \t%p1, %r1, %r2, !%p2",
      "mbarrier.arrive.shared::cta.b64 \t_, [%rd1]",
      "tex.2d.v4.f32.f32 \t{%f1, %f2, %f3, %f4}, [tref, {%f5, %f6}]",
      "call.uni \t(r0), f, (a0)",
      "vadd.s32.u32.s32.sat \t%r1, %r2.h0, %r3.b1",
      "vmad.u32.u32.u32 \t%r1, -%r2, %r3, %r4",
      "ret",
  };
  ASSERT_EQ(k.instructions.size(), std::size(want));
  for (size_t i = 0; i < std::size(want); ++i)
    EXPECT_EQ(printInstruction(m, k, k.instructions[i]), std::string(want[i]) + ";") << i;
  EXPECT_EQ(printOperand(m, k, k.operandsOf(k.instructions[7])[1]), "[%rd1+-4]");
}

/// Every integer value survives print -> parse exactly.
TEST(PrinterTest, IntegerImmediatesRoundTrip) {
  const int64_t values[] = {0,
                            1,
                            -1,
                            0xffff,
                            0x10000,
                            -0x10000,
                            -65535,
                            1 << 30,
                            INT32_MIN,
                            INT32_MAX,
                            UINT32_MAX,
                            std::numeric_limits<int64_t>::min(),
                            std::numeric_limits<int64_t>::max()};
  for (int64_t v : values) {
    std::string text = std::string(kHeader) + ".visible .entry k()\n{\n  .reg .b64 %rd<2>;\n  mov.b64 %rd1, " +
                       std::to_string(v) + ";\n  ld.global.u64 %rd1, [%rd1+" + std::to_string(v) + "];\n  ret;\n}\n";
    ParseResult first = parseOk(text);
    const Function &f1 = first.module->functions[0];
    ASSERT_EQ(f1.operandsOf(f1.instructions[0])[1].value, v);
    ParseResult second = parseOk(printModule(*first.module));
    const Function &f2 = second.module->functions[0];
    EXPECT_EQ(f2.operandsOf(f2.instructions[0])[1].value, v) << v;
    EXPECT_EQ(f2.children(f2.operandsOf(f2.instructions[1])[1])[0].value, v) << v;
    EXPECT_TRUE(first.module->sameIr(*second.module)) << v;
  }
}

/// parse(print(m)) has the same IR as m, and printing is a fixed point.
void expectRoundTrip(const std::string &body) {
  std::string text = std::string(kHeader) + body;
  ParseResult first = parseOk(text);
  std::string printed = printModule(*first.module);
  ParseResult second = parseModule("printed.ptx", printed);
  ASSERT_TRUE(second.ok()) << second.diagnostics.render(second.module->sources) << "\n" << printed;
  EXPECT_TRUE(first.module->sameIr(*second.module)) << printed;
  EXPECT_EQ(printModule(*second.module), printed);
}

TEST(PrinterTest, RoundTripConstantsAndFloats) {
  expectRoundTrip(".visible .entry k()\n{\n  .reg .b32 %r<3>;\n  .reg .f32 %f<2>;\n  .reg .f64 %fd<2>;\n"
                  "  .reg .b64 %rd<2>;\n"
                  "  mov.u32 %r1, (WARP_SZ * 2 + 1) << 3;\n  mov.u32 %r1, ~0x0F & 0xFF;\n"
                  "  mov.u32 %r1, 1 ? 2 : 3;\n  mov.u32 %r1, -(7);\n  mov.u32 %r1, 4294967295U;\n"
                  "  mov.f32 %f1, -0f00000000;\n  mov.f32 %f1, 0f7FC00000;\n  mov.f64 %fd1, 2.5e-3;\n"
                  "  mov.f64 %fd1, -0d7FF0000000000000;\n  mov.f64 %fd1, 1e300;\n"
                  "  ld.global.u32 %r1, [%rd1+(3*-4)];\n  ld.global.u32 %r1, [%rd1-0x10];\n  ret;\n}\n");
}

TEST(PrinterTest, RoundTripDeclarations) {
  expectRoundTrip(
      ".file 1 \"a b.cu\", 1700000000, 99\n.file 2 \"c.h\"\n"
      ".global .align 8 .u32 grid[2][3] = {{1, 2, 3}, {-4, 5, 6}};\n"
      ".global .u64 ptrs[3] = {generic(grid)+4, grid+-8, 0};\n"
      ".const .f64 consts[2] = {1.5, -0d4000000000000000};\n"
      ".extern .shared .align 16 .b8 dyn[];\n"
      ".weak .global .v4 .f32 vec;\n"
      ".pragma \"noinline\";\n"
      ".extern .func (.param .b32 r) ext(.param .b32 a, .param .align 8 .b8 blob[16]);\n"
      ".visible .entry kp(.param .u64 .ptr .global .align 16 p, .param .u32 .ptr .align 4 q)\n{\n  ret;\n}\n"
      ".func f() .noreturn\n{\n  trap;\n}\n"
      ".func g();\n.alias g, f;\n");
}

TEST(PrinterTest, RoundTripBodies) {
  expectRoundTrip(".file 1 \"k.cu\"\n"
                  ".func (.param .b32 r) callee(.param .b32 a)\n{\n  st.param.b32 [r], 0;\n  ret;\n}\n"
                  ".visible .entry k(.param .align 8 .b8 blob[32]) .maxntid 256 .minnctapersm 2\n"
                  ".pragma \"nounroll\";\n{\n"
                  "  .reg .b32 %r<4>;\n  .reg .pred %p<2>;\n  .reg .b64 %rd<2>;\n"
                  "  .local .align 4 .b8 scratch[64];\n  .shared .v2 .f32 tile[8];\n"
                  "  .param .b32 a0;\n  .param .b32 r0;\n"
                  "  .loc 1 5 1\n"
                  "  {\n    .reg .b32 %r<2>;\n    mov.u32 %r1, 1;\n    {\n      .reg .b32 %x;\n"
                  "      mov.u32 %x, %r1;\n    }\n  }\n"
                  "  .loc 1 6 2, function_name $str, inlined_at 1 5 1\n"
                  "  .pragma \"nounroll\";\n"
                  "$L_loop:\n"
                  "  @!%p1 bra.uni $L_loop;\n"
                  "proto: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
                  "  mov.u64 %rd1, callee;\n"
                  "  call (r0), %rd1, (a0), proto;\n"
                  "  ts: .branchtargets $L_loop, $L_end;\n"
                  "  brx.idx %r1, ts;\n"
                  "$L_end:\n  ret;\n}\n"
                  ".section .debug_str\n{\n$str:\n.b8 107,0\n}\n"
                  ".section .debug_info\n{\n.b32 $L_end - $L_loop\n.b64 $L_loop+4\n.b32 .debug_abbrev\n.b8 1, 2\n}\n");
}

} // namespace
} // namespace ptxray
