// The parser on declarations: kernel parameters, module variables and their initializers, .file,
// .section, .pragma, calls, prototypes, .branchtargets and .alias, with every name resolved.
#include "ptx/Parser.h"
#include "ptx/Printer.h"
#include "support/ParsedModule.h"

#include <gtest/gtest.h>

#include <bit>

namespace ptxray {
namespace {

using namespace ptx;

using Parsed = test::ParsedModule;

Parsed parse(const std::string &text) {
  return test::parseWithHeader(text);
}

const Operand &op(const Function &f, const Instruction &inst, size_t i) {
  return test::operandOf(f, inst, i);
}

TEST(ParserDeclarationsTest, KernelParameters) {
  Parsed p = parse(".visible .entry k(.param .u64 .ptr .global .align 16 p, .param .align 8 .b8 blob[32],"
                   " .param .v2 .f32 pair)\n{\n  ret;\n}\n");
  const Function &f = p.fn("k");
  EXPECT_TRUE(f.isEntry);
  EXPECT_EQ(f.linkage, Linkage::Visible);
  EXPECT_TRUE(f.hasParamList);
  EXPECT_FALSE(f.hasReturnList);
  ASSERT_EQ(f.params.size(), 3u);
  const Variable &ptr = p.m().variables[f.params[0]];
  EXPECT_EQ(ptr.space, StateSpace::Param);
  EXPECT_EQ(ptr.type, Mod::u64);
  EXPECT_TRUE(ptr.isPointer);
  EXPECT_EQ(ptr.pointeeSpace, StateSpace::Global);
  EXPECT_EQ(ptr.pointeeAlign, 16u);
  EXPECT_EQ(ptr.align, 0u);
  EXPECT_EQ(ptr.sizeInBytes(), 8u);

  const Variable &blob = p.m().variables[f.params[1]];
  EXPECT_EQ(blob.align, 8u);
  EXPECT_EQ(blob.type, Mod::b8);
  EXPECT_EQ(blob.dims, (std::vector<uint64_t>{32}));
  EXPECT_FALSE(blob.isPointer);
  EXPECT_EQ(blob.sizeInBytes(), 32u);
  EXPECT_EQ(blob.naturalAlign(), 1u);

  const Variable &pair = p.m().variables[f.params[2]];
  EXPECT_EQ(pair.vectorWidth, 2);
  EXPECT_EQ(pair.sizeInBytes(), 8u);
  EXPECT_EQ(pair.naturalAlign(), 8u);

  const Symbol &s = p.m().symbols[p.symbol("blob")];
  EXPECT_EQ(s.kind, SymbolKind::Variable);
  EXPECT_EQ(s.function, 0u);
  EXPECT_EQ(s.index, f.params[1]);
}

TEST(ParserDeclarationsTest, VariableInitializers) {
  Parsed p = parse(".global .u32 arr[2][3] = {{1, 2, 3}, {4, 5, -6}};\n"
                   ".global .u64 ptrs[2] = {generic(arr)+4, arr};\n"
                   ".const .f32 one = 0f3F800000;\n"
                   ".global .f64 d = -1.5;\n"
                   ".visible .global .align 16 .s32 e = 2 * 3 - 1;\n");
  const auto &vars = p.m().variables;
  ASSERT_EQ(vars.size(), 5u);
  using K = InitItem::Kind;
  const Variable &arr = vars[0];
  EXPECT_EQ(arr.space, StateSpace::Global);
  EXPECT_EQ(arr.dims, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(arr.sizeInBytes(), 24u);
  std::vector<std::pair<K, int64_t>> items;
  for (const InitItem &i : arr.init)
    items.emplace_back(i.kind, i.value);
  EXPECT_EQ(items, (std::vector<std::pair<K, int64_t>>{{K::Open, 0},
                                                       {K::Open, 0},
                                                       {K::Int, 1},
                                                       {K::Int, 2},
                                                       {K::Int, 3},
                                                       {K::Close, 0},
                                                       {K::Open, 0},
                                                       {K::Int, 4},
                                                       {K::Int, 5},
                                                       {K::Int, -6},
                                                       {K::Close, 0},
                                                       {K::Close, 0}}));

  uint32_t arrSym = p.symbol("arr");
  const auto &pi = vars[1].init;
  ASSERT_EQ(pi.size(), 4u);
  EXPECT_EQ(pi[1].kind, K::GenericSymbol);
  EXPECT_EQ(pi[1].symbol, arrSym);
  EXPECT_EQ(pi[1].value, 4);
  EXPECT_EQ(pi[2].kind, K::Symbol);
  EXPECT_EQ(pi[2].symbol, arrSym);
  EXPECT_EQ(pi[2].value, 0);

  ASSERT_EQ(vars[2].init.size(), 1u);
  EXPECT_EQ(vars[2].space, StateSpace::Const);
  EXPECT_EQ(vars[2].init[0].kind, K::Float32);
  EXPECT_EQ(vars[2].init[0].value, 0x3F800000);
  EXPECT_EQ(vars[3].init[0].kind, K::Float64);
  EXPECT_EQ(static_cast<uint64_t>(vars[3].init[0].value), std::bit_cast<uint64_t>(-1.5));
  EXPECT_EQ(vars[4].linkage, Linkage::Visible);
  EXPECT_EQ(vars[4].align, 16u);
  EXPECT_EQ(vars[4].init[0].kind, K::Int);
  EXPECT_EQ(vars[4].init[0].value, 5);
}

TEST(ParserDeclarationsTest, FilesSectionsAndPragmas) {
  Parsed p = parse(".file 1 \"a.cu\", 1700000000, 1234\n.file 2 \"/inc/b.h\"\n.pragma \"nounroll\";\n"
                   ".visible .entry k()\n{\n  .pragma \"nounroll\";\n$L_a:\n  ret;\n$L_b:\n  ret;\n}\n"
                   ".section .debug_str\n{\n$str:\n.b8 102,111,111,0\n$str1:\n.b8 0\n}\n"
                   ".section .debug_info\n{\n.b32 $str1 - $str\n.b64 $L_a+4\n.b32 .debug_abbrev\n.b8 7, 8\n}\n");
  ASSERT_EQ(p.m().files.size(), 2u);
  EXPECT_EQ(p.m().files[0], (SourceFile{1, "a.cu", true, 1700000000, 1234}));
  EXPECT_EQ(p.m().files[1], (SourceFile{2, "/inc/b.h", false, 0, 0}));
  EXPECT_EQ(p.m().findFile(2), &p.m().files[1]);
  // LLVM's two-string form (clang's OpenCL and CUDA output): the directory, then the name.
  Parsed llvm = parse(".file 1 \"/src/k\" \"k.cl\"\n.file 2 \"/src\" \"/abs/h.h\"\n.file 3 \"\" \"rel.cl\"\n");
  ASSERT_EQ(llvm.m().files.size(), 3u);
  EXPECT_EQ(llvm.m().files[0].name, "/src/k/k.cl");
  EXPECT_EQ(llvm.m().files[0].directory, "/src/k");
  EXPECT_EQ(llvm.m().files[1].name, "/abs/h.h"); // an absolute name stands alone
  EXPECT_EQ(llvm.m().files[2].name, "rel.cl");
  EXPECT_NE(printModule(llvm.m()).find(".file 1 \"/src/k\" \"k.cl\""), std::string::npos);
  EXPECT_EQ(p.m().findFile(3), nullptr);
  EXPECT_EQ(p.m().pragmas, (std::vector<std::string_view>{"\"nounroll\""}));
  EXPECT_EQ(p.fn("k").bodyPragmas, (std::vector<std::string_view>{"\"nounroll\""}));

  ASSERT_EQ(p.m().sections.size(), 2u);
  const Section &str = p.m().sections[0];
  EXPECT_EQ(str.name, ".debug_str");
  ASSERT_EQ(str.items.size(), 4u);
  EXPECT_EQ(str.items[0].kind, SectionItem::Kind::Label);
  EXPECT_EQ(str.items[0].label, p.symbol("$str"));
  EXPECT_EQ(str.items[1].type, Mod::b8);
  ASSERT_EQ(str.valuesOf(str.items[1]).size(), 4u);
  EXPECT_EQ(str.valuesOf(str.items[1])[0].value, 102);
  EXPECT_EQ(str.valuesOf(str.items[1])[3].value, 0);

  const Section &info = p.m().sections[1];
  ASSERT_EQ(info.items.size(), 4u);
  EXPECT_EQ(info.valuesOf(info.items[0])[0], (SectionValue{p.symbol("$str1"), 0, p.symbol("$str")}));
  // DWARF data may name a label inside a function.
  EXPECT_EQ(info.items[1].type, Mod::b64);
  EXPECT_EQ(info.valuesOf(info.items[1])[0], (SectionValue{p.symbol("$L_a"), 4, kNone}));
  // ptxas builds .debug_abbrev itself; naming it is not an error.
  const SectionValue &abbrev = info.valuesOf(info.items[2])[0];
  ASSERT_NE(abbrev.symbol, kNone);
  EXPECT_EQ(p.m().symbols[abbrev.symbol].name, ".debug_abbrev");
  EXPECT_EQ(p.m().symbols[abbrev.symbol].kind, SymbolKind::Section);
  EXPECT_EQ(info.valuesOf(info.items[3]).size(), 2u);
}

TEST(ParserDeclarationsTest, CallsPrototypesAndTargets) {
  Parsed p = parse(".extern .func (.param .b32 r) ext(.param .b32 a);\n"
                   ".func (.param .b32 r) f(.param .b32 a);\n"
                   ".visible .entry k()\n{\n  .reg .b32 %r<3>;\n  .reg .b64 %rd<2>;\n"
                   "  .param .b32 a0;\n  .param .b32 r0;\n"
                   "  call.uni (r0), ext, (a0);\n"                              // 0
                   "  call (r0), f, (a0);\n"                                    // 1
                   "proto: .callprototype (.param .b32 _) _ (.param .b32 _);\n" //
                   "  mov.u64 %rd1, f;\n"                                       // 2
                   "  call (r0), %rd1, (a0), proto;\n"                          // 3
                   "  ts: .branchtargets $L1, $L2;\n"                           //
                   "  brx.idx %r1, ts;\n"                                       // 4
                   "$L1:\n  ret;\n$L2:\n  ret;\n}\n"
                   ".func (.param .b32 r) f(.param .b32 a)\n{\n  st.param.b32 [r], 0;\n  ret;\n}\n"
                   ".func (.param .b32 r) g(.param .b32 a);\n.alias g, f;\n");
  const Module &m = p.m();
  const Function &k = p.fn("k");
  auto &in = k.instructions;

  const Operand &rets = op(k, in[0], 0);
  ASSERT_EQ(rets.kind, OperandKind::List);
  ASSERT_EQ(rets.count, 1u);
  EXPECT_EQ(k.children(rets)[0].id, p.symbol("r0"));
  const Operand &callee = op(k, in[0], 1);
  ASSERT_EQ(callee.kind, OperandKind::Symbol);
  EXPECT_EQ(m.symbols[callee.id].kind, SymbolKind::Function);
  EXPECT_EQ(m.symbols[callee.id].name, "ext");
  EXPECT_EQ(m.functions[m.symbols[callee.id].index].linkage, Linkage::Extern);
  const Operand &args = op(k, in[0], 2);
  ASSERT_EQ(args.kind, OperandKind::List);
  EXPECT_EQ(k.children(args)[0].id, p.symbol("a0"));
  EXPECT_TRUE(in[0].uni);

  // A call before the definition resolves to the definition, not to the earlier declaration.
  const Symbol &fSym = m.symbols[op(k, in[1], 1).id];
  EXPECT_EQ(fSym.kind, SymbolKind::Function);
  EXPECT_TRUE(m.functions[fSym.index].hasBody);
  EXPECT_EQ(m.functions[fSym.index].instructions.size(), 2u);
  EXPECT_EQ(op(k, in[2], 1).id, op(k, in[1], 1).id);

  ASSERT_EQ(k.prototypes.size(), 1u);
  EXPECT_EQ(k.prototypes[0].returns.size(), 1u);
  EXPECT_EQ(k.prototypes[0].params.size(), 1u);
  EXPECT_FALSE(k.prototypes[0].noReturn);
  const Operand &protoOp = op(k, in[3], 3);
  EXPECT_EQ(m.symbols[protoOp.id].kind, SymbolKind::Prototype);
  EXPECT_EQ(op(k, in[3], 1).kind, OperandKind::Register);

  ASSERT_EQ(k.targetLists.size(), 1u);
  EXPECT_EQ(k.targetLists[0].symbols, (std::vector<uint32_t>{p.symbol("$L1"), p.symbol("$L2")}));
  EXPECT_EQ(m.symbols[op(k, in[4], 1).id].kind, SymbolKind::BranchTargets);

  ASSERT_EQ(m.aliases.size(), 1u);
  EXPECT_EQ(m.symbols[m.aliases[0].alias].name, "g");
  EXPECT_EQ(m.symbols[m.aliases[0].aliasee].name, "f");
  EXPECT_TRUE(m.functions[m.symbols[m.aliases[0].aliasee].index].hasBody);

  // Declarations and the definition are all kept, in order.
  std::vector<std::pair<std::string_view, bool>> fns;
  for (const Function &fn : m.functions)
    fns.emplace_back(fn.name, fn.hasBody);
  EXPECT_EQ(fns, (std::vector<std::pair<std::string_view, bool>>{
                     {"ext", false}, {"f", false}, {"k", true}, {"f", true}, {"g", false}}));
  EXPECT_TRUE(m.functions[1].hasReturnList);
  EXPECT_EQ(m.functions[1].returns.size(), 1u);
}

} // namespace
} // namespace ptxray
