// The parser: the typed IR it builds for representative instructions and their operands, with every
// register and label resolved. Expected values are worked out by hand from the PTX text; declarations
// are in ParserDeclarationsTest.cpp.
#include "ptx/Parser.h"
#include "support/ParsedModule.h"

#include <gtest/gtest.h>

namespace ptxray {
namespace {

using namespace ptx;

using Parsed = test::ParsedModule;

Parsed parse(const std::string &text) {
  return test::parseWithHeader(text);
}

/// A kernel `k` with the given body.
Parsed parseKernel(const std::string &body) {
  return parse(".visible .entry k()\n{\n" + body + "}\n");
}

const Operand &op(const Function &f, const Instruction &inst, size_t i) {
  return test::operandOf(f, inst, i);
}

TEST(ParserTest, ModuleHeader) {
  Parsed p = parse("");
  EXPECT_EQ(p.m().versionMajor, 8u);
  EXPECT_EQ(p.m().versionMinor, 0u);
  EXPECT_EQ(p.m().ptxVersion(), 80u);
  EXPECT_EQ(p.m().target.sm, 90u);
  EXPECT_EQ(p.m().addressSize, 64u);
  EXPECT_TRUE(p.m().hasAddressSize);

  ParseResult r = parseModule("t.ptx", ".version 8.1\n.target sm_90a, debug\n");
  ASSERT_TRUE(r.ok()) << r.diagnostics.render(r.module->sources);
  EXPECT_EQ(r.module->ptxVersion(), 81u);
  EXPECT_EQ(r.module->target.sm, 90u);
  EXPECT_TRUE(r.module->target.debug);
  EXPECT_EQ(r.module->target.names, (std::vector<std::string_view>{"sm_90a", "debug"}));
  EXPECT_FALSE(r.module->hasAddressSize);
  EXPECT_EQ(r.module->pointerBits(), 32u);
}

/// Every typed field of an instruction that is not at its default, in a fixed order.
std::string fields(const Instruction &i) {
  std::string s = std::string(spelling(i.opcode));
  auto add = [&](std::string_view key, std::string_view value) {
    s += " ";
    s += key;
    s += value;
  };
  std::string types;
  for (int t = 0; t < i.numTypes; ++t)
    types += spelling(i.types[t]);
  if (!types.empty())
    add("types=", types);
  if (i.space != StateSpace::None)
    add("space=", std::string(spelling(i.space)) + "(" + std::string(spelling(i.spaceMod)) + ")");
  const std::pair<const char *, Mod> mods[] = {{"rnd=", i.rounding}, {"cmp=", i.compare}, {"bool=", i.boolOp},
                                               {"cache=", i.cache},  {"scope=", i.scope}, {"sem=", i.semantics}};
  for (auto [key, mod] : mods)
    if (mod != Mod::None)
      add(key, spelling(mod));
  if (i.vectorWidth != 1)
    add("vec=", std::to_string(i.vectorWidth));
  const std::pair<const char *, bool> flags[] = {{"sync", i.sync}, {"aligned", i.aligned}, {"uni", i.uni},
                                                 {"ftz", i.ftz},   {"sat", i.sat},         {"volatile", i.isVolatile}};
  for (auto [key, on] : flags)
    if (on)
      add(key, "");
  if (i.guard != kNone)
    add("guard=", (i.guardNegated ? "!" : "") + std::to_string(i.guard));
  return s;
}

TEST(ParserTest, TypedInstructionFields) {
  // Registers: %r<4> = 0..3, %f<4> = 4..7, %rd<2> = 8..9, %p<3> = 10..12.
  Parsed p = parseKernel("  .reg .b32 %r<4>;\n  .reg .f32 %f<4>;\n  .reg .b64 %rd<2>;\n  .reg .pred %p<3>;\n"
                         "  cvt.rn.f32.s32 %f1, %r1;\n"
                         "  setp.lt.and.s32 %p1, %r1, %r2, %p2;\n"
                         "  ld.global.nc.v4.f32 {%f0, %f1, %f2, %f3}, [%rd1];\n"
                         "  ld.volatile.shared::cta.u32 %r1, [%rd1];\n"
                         "  st.release.gpu.global.b32 [%rd1], %r1;\n"
                         "  ld.global.cg.u32 %r1, [%rd1];\n"
                         "  barrier.sync.aligned 0;\n"
                         "  add.rn.ftz.sat.f32 %f1, %f2, %f3;\n"
                         "  mul.hi.u32 %r1, %r2, %r3;\n"
                         "  atom.global.and.b32 %r1, [%rd1], %r2;\n"
                         "  @!%p2 bra.uni $L_end;\n"
                         "  @%p0 ld.shared::cluster.u32 %r1, [%rd1];\n"
                         "  setp.gtu.ftz.xor.f32 %p1|%p2, %f1, %f2, %p0;\n"
                         "$L_end:\n  ret;\n");
  const Function &f = p.fn("k");
  // .hi on mul is a width selector, not a comparison; .and on atom is the operation, not a bool op.
  const char *want[] = {
      "cvt types=.f32.s32 rnd=.rn",
      "setp types=.s32 cmp=.lt bool=.and",
      "ld types=.f32 space=.global(.global) vec=4",
      "ld types=.u32 space=.shared(.shared::cta) volatile",
      "st types=.b32 space=.global(.global) scope=.gpu sem=.release",
      "ld types=.u32 space=.global(.global) cache=.cg",
      "barrier sync aligned",
      "add types=.f32 rnd=.rn ftz sat",
      "mul types=.u32",
      "atom types=.b32 space=.global(.global)",
      "bra uni guard=!12",
      "ld types=.u32 space=.shared(.shared::cluster) guard=10",
      "setp types=.f32 cmp=.gtu bool=.xor ftz",
      "ret",
  };
  ASSERT_EQ(f.instructions.size(), std::size(want));
  for (size_t i = 0; i < std::size(want); ++i)
    EXPECT_EQ(fields(f.instructions[i]), want[i]) << i;
  // Every modifier is kept in source order as well.
  const Instruction &ld = f.instructions[2];
  EXPECT_EQ(std::vector<Mod>(ld.mods.begin(), ld.mods.begin() + ld.numMods),
            (std::vector<Mod>{Mod::global, Mod::nc, Mod::v4, Mod::f32}));
  EXPECT_TRUE(ld.has(Mod::nc));
  EXPECT_FALSE(ld.has(Mod::cg));
  EXPECT_TRUE(f.instructions[8].has(Mod::hi));
  EXPECT_TRUE(f.instructions[9].has(Mod::and_));
  EXPECT_EQ(f.instructions[0].type(2), Mod::None);
}

TEST(ParserTest, RegistersAcrossRangesAndScopes) {
  Parsed p = parseKernel("  .reg .b32 %r<5>;\n  .reg .f32 %f<3>;\n  .reg .pred %p;\n  .reg .v4 .f32 %v;\n"
                         "  mov.b32 %r3, %r4;\n"         // 0
                         "  mov.f32 %f2, %f0;\n"         // 1
                         "  {\n    .reg .b32 %r<2>;\n"   //
                         "    mov.b32 %r1, %r0;\n  }\n"  // 2: the inner %r<2> (registers 10, 11)
                         "  mov.b32 %r1, 0;\n  ret;\n"); // 3: the outer %r1 again
  const Function &f = p.fn("k");
  ASSERT_EQ(f.registers.size(), 12u);
  EXPECT_EQ(f.registers[3], (Register{"%r", 3, Mod::b32, 1}));
  EXPECT_EQ(f.registers[7], (Register{"%f", 2, Mod::f32, 1}));
  EXPECT_EQ(f.registers[8], (Register{"%p", -1, Mod::pred, 1}));
  EXPECT_EQ(f.registers[9], (Register{"%v", -1, Mod::f32, 4}));
  EXPECT_EQ(f.registers[3].displayName(), "%r3");
  EXPECT_EQ(f.registers[8].displayName(), "%p");

  auto &in = f.instructions;
  EXPECT_EQ(op(f, in[0], 0).kind, OperandKind::Register);
  EXPECT_EQ(op(f, in[0], 0).id, 3u);
  EXPECT_EQ(op(f, in[0], 1).id, 4u);
  EXPECT_EQ(op(f, in[1], 0).id, 7u);
  EXPECT_EQ(op(f, in[1], 1).id, 5u);
  EXPECT_EQ(op(f, in[2], 0).id, 11u);
  EXPECT_EQ(op(f, in[2], 1).id, 10u);
  EXPECT_EQ(op(f, in[3], 0).id, 1u);

  ASSERT_EQ(f.registerDecls.size(), 5u);
  EXPECT_EQ(f.registerDecls[0].items[0], (RegisterDecl::Item{"%r", 5, 0}));
  EXPECT_EQ(f.registerDecls[3].vectorWidth, 4);
  EXPECT_EQ(f.registerDecls[4].items[0], (RegisterDecl::Item{"%r", 2, 10}));
  // Statement order: 4 declarations, 2 instructions, block begin, declaration, instruction, block end, 2 more.
  std::vector<StatementKind> kinds;
  for (const Statement &s : f.statements)
    kinds.push_back(s.kind);
  using K = StatementKind;
  EXPECT_EQ(kinds, (std::vector<K>{K::RegisterDecl, K::RegisterDecl, K::RegisterDecl, K::RegisterDecl, K::Instruction,
                                   K::Instruction, K::BlockBegin, K::RegisterDecl, K::Instruction, K::BlockEnd,
                                   K::Instruction, K::Instruction}));
}

TEST(ParserTest, ImmediateValues) {
  Parsed p = parseKernel("  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;\n"
                         "  mov.b32 %r1, -5;\n"           // 0
                         "  mov.b32 %r1, 0x10;\n"         // 1
                         "  mov.b32 %r1, 017;\n"          // 2
                         "  mov.b32 %r1, 0b101;\n"        // 3
                         "  mov.b32 %r1, 42U;\n"          // 4
                         "  mov.b32 %r1, (1 + 2) * 3;\n"  // 5
                         "  mov.b32 %r1, 1 << 4 | 1;\n"   // 6
                         "  mov.b32 %r1, ~0;\n"           // 7
                         "  mov.b32 %r1, WARP_SZ;\n"      // 8
                         "  mov.b32 %r1, 1 ? 7 : 9;\n"    // 9
                         "  mov.b32 %r1, -(2 + 3) * 4;\n" // 10
                         "  mov.b64 %rd1, 0xFFFFFFFFFFFFFFFF;\n"
                         "  mov.b64 %rd1, 7 / 2 - 10 % 4;\n  ret;\n");
  const Function &f = p.fn("k");
  const int64_t expected[] = {-5, 16, 15, 5, 42, 9, 17, -1, 32, 7, -20, -1, 1};
  ASSERT_EQ(f.instructions.size(), std::size(expected) + 1);
  for (size_t i = 0; i < std::size(expected); ++i) {
    const Operand &o = op(f, f.instructions[i], 1);
    EXPECT_EQ(o.kind, OperandKind::Immediate) << i;
    EXPECT_EQ(o.value, expected[i]) << i;
    EXPECT_EQ((o.flags & Operand::Unsigned) != 0, i == 4) << i;
  }
}

TEST(ParserTest, FloatImmediateBits) {
  Parsed p = parseKernel("  .reg .f32 %f<2>;\n  .reg .f64 %fd<2>;\n"
                         "  mov.f32 %f1, 0f3F800000;\n"
                         "  mov.f32 %f1, -0f3F800000;\n"
                         "  mov.f64 %fd1, 0d4000000000000000;\n"
                         "  mov.f64 %fd1, 1.5;\n"
                         "  mov.f64 %fd1, -1.5;\n"
                         "  mov.f64 %fd1, -0d3FF0000000000000;\n  ret;\n");
  const Function &f = p.fn("k");
  struct Want {
    OperandKind kind;
    uint64_t bits;
  };
  const Want want[] = {{OperandKind::Float32, 0x3F800000u},           {OperandKind::Float32, 0xBF800000u},
                       {OperandKind::Float64, 0x4000000000000000ull}, {OperandKind::Float64, 0x3FF8000000000000ull},
                       {OperandKind::Float64, 0xBFF8000000000000ull}, {OperandKind::Float64, 0xBFF0000000000000ull}};
  for (size_t i = 0; i < std::size(want); ++i) {
    const Operand &o = op(f, f.instructions[i], 1);
    EXPECT_EQ(o.kind, want[i].kind) << i;
    EXPECT_EQ(static_cast<uint64_t>(o.value), want[i].bits) << i;
  }
}

TEST(ParserTest, AddressesVectorsPairsAndSinks) {
  Parsed p = parse(".global .u32 arr[4];\n.global .texref tref;\n"
                   ".visible .entry k()\n{\n  .reg .b32 %r<3>;\n  .reg .f32 %f<7>;\n  .reg .b64 %rd<2>;\n"
                   "  .reg .pred %p<3>;\n"
                   "  ld.global.u32 %r1, [%rd1+-4];\n"                               // 0
                   "  ld.global.u32 %r1, [%rd1-8];\n"                                // 1
                   "  ld.global.u32 %r1, [arr+8];\n"                                 // 2
                   "  ld.global.v2.u32 {%r1, %r2}, [%rd1];\n"                        // 3
                   "  shfl.sync.idx.b32 %r1|%p1, %r2, 0, 31, 0xffffffff;\n"          // 4
                   "  setp.lt.and.s32 %p1, %r1, %r2, !%p2;\n"                        // 5
                   "  mbarrier.arrive.release.cta.shared::cta.b64 _, [%rd1];\n"      // 6
                   "  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tref, {%f5, %f6}];\n" // 7
                   "  mov.u32 %r1, %tid.x;\n"                                        // 8
                   "  ret;\n}\n");
  const Function &f = p.fn("k");
  auto &in = f.instructions;
  // Registers: %r 0..2, %f 3..9, %rd 10..11, %p 12..14.
  const Operand &a0 = op(f, in[0], 1);
  ASSERT_EQ(a0.kind, OperandKind::Address);
  ASSERT_EQ(a0.count, 1u);
  EXPECT_EQ(f.children(a0)[0].kind, OperandKind::Register);
  EXPECT_EQ(f.children(a0)[0].id, 11u);
  EXPECT_EQ(f.children(a0)[0].value, -4);
  EXPECT_EQ(f.children(op(f, in[1], 1))[0].value, -8);

  const Operand &sym = f.children(op(f, in[2], 1))[0];
  EXPECT_EQ(sym.kind, OperandKind::Symbol);
  EXPECT_EQ(sym.id, p.symbol("arr"));
  EXPECT_EQ(sym.value, 8);
  EXPECT_EQ(p.m().symbols[sym.id].kind, SymbolKind::Variable);

  const Operand &vec = op(f, in[3], 0);
  ASSERT_EQ(vec.kind, OperandKind::Vector);
  ASSERT_EQ(vec.count, 2u);
  EXPECT_EQ(f.children(vec)[0].id, 1u);
  EXPECT_EQ(f.children(vec)[1].id, 2u);

  const Operand &pair = op(f, in[4], 0);
  ASSERT_EQ(pair.kind, OperandKind::Pair);
  ASSERT_EQ(pair.count, 2u);
  EXPECT_EQ(f.children(pair)[0].id, 1u);
  EXPECT_EQ(f.children(pair)[1].id, 13u);
  EXPECT_EQ(in[4].numOperands, 5);
  EXPECT_EQ(op(f, in[4], 4).value, 0xffffffffll);

  const Operand &neg = op(f, in[5], 3);
  EXPECT_EQ(neg.kind, OperandKind::Register);
  EXPECT_EQ(neg.id, 14u);
  EXPECT_EQ(neg.flags, Operand::Negated);

  EXPECT_EQ(op(f, in[6], 0).kind, OperandKind::Sink);

  const Operand &texAddr = op(f, in[7], 1);
  ASSERT_EQ(texAddr.kind, OperandKind::Address);
  ASSERT_EQ(texAddr.count, 2u);
  EXPECT_EQ(f.children(texAddr)[0].kind, OperandKind::Symbol);
  EXPECT_EQ(f.children(texAddr)[0].id, p.symbol("tref"));
  const Operand &coords = f.children(texAddr)[1];
  ASSERT_EQ(coords.kind, OperandKind::Vector);
  ASSERT_EQ(coords.count, 2u);
  EXPECT_EQ(f.children(coords)[0].id, 8u);
  EXPECT_EQ(f.children(coords)[1].id, 9u);

  const Operand &tid = op(f, in[8], 1);
  EXPECT_EQ(tid.kind, OperandKind::SpecialReg);
  EXPECT_EQ(tid.id, static_cast<uint32_t>(SpecialReg::tid));
  EXPECT_EQ(tid.selector, static_cast<uint32_t>('x'));
}

TEST(ParserTest, LabelsResolveForwardAndBackward) {
  Parsed p = parseKernel("  .reg .pred %p;\n"
                         "$L_top:\n"
                         "  @%p bra $L_end;\n"
                         "  bra $L_top;\n"
                         "$L_end:\n"
                         "  ret;\n");
  const Function &f = p.fn("k");
  uint32_t top = p.symbol("$L_top"), end = p.symbol("$L_end");
  EXPECT_EQ(op(f, f.instructions[0], 0).kind, OperandKind::Symbol);
  EXPECT_EQ(op(f, f.instructions[0], 0).id, end);
  EXPECT_EQ(op(f, f.instructions[1], 0).id, top);
  const Symbol &s = p.m().symbols[end];
  EXPECT_EQ(s.kind, SymbolKind::Label);
  EXPECT_EQ(s.function, 0u);
  // A label's index is its statement: decl, $L_top, bra, bra, $L_end.
  EXPECT_EQ(p.m().symbols[top].index, 1u);
  EXPECT_EQ(s.index, 4u);
  EXPECT_EQ(f.statements[4], (Statement{StatementKind::Label, end}));
}

} // namespace
} // namespace ptxray
