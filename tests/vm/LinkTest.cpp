// Linking PTX modules (ptx::linkModules, vm::Device::loadLinkedModules): what nvcc -rdc=true makes of
// two translation units, run as one module, and the device linker's rules and errors.
#include "ptx/Parser.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>
#include <sstream>

namespace ptxray::test {
namespace {

// `extern __device__ int scale(int); extern __device__ int table[4];` and a kernel using them, as
// nvcc 13 -rdc=true -ptx writes it (a.cu), and the file defining them (b.cu).
const char *kUser = R"(.version 9.0
.target sm_90
.address_size 64
.file 1 "a.cu"
.extern .func  (.param .b32 func_retval0) _Z5scalei
(
	.param .b32 _Z5scalei_param_0
)
;
.extern .global .align 4 .b8 table[16];

.visible .entry _Z1kPi(
	.param .u64 _Z1kPi_param_0
)
{
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<9>;
	.loc 1 4 0
	ld.param.u64 	%rd1, [_Z1kPi_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	{
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), _Z5scalei, (param0);
	ld.param.b32 	%r2, [retval0+0];
	}
	shl.b32 	%r3, %r1, 2;
	cvt.u64.u32 	%rd3, %r3;
	and.b64  	%rd4, %rd3, 12;
	mov.u64 	%rd5, table;
	add.s64 	%rd6, %rd5, %rd4;
	ld.global.u32 	%r4, [%rd6];
	add.s32 	%r5, %r4, %r2;
	mul.wide.u32 	%rd7, %r1, 4;
	add.s64 	%rd8, %rd2, %rd7;
	st.global.u32 	[%rd8], %r5;
	ret;
}
)";

const char *kDefinitions = R"(.version 9.0
.target sm_90
.address_size 64
.file 1 "b.cu"
.visible .global .align 4 .b8 table[16] = {100, 0, 0, 0, 200, 0, 0, 0, 44, 1, 0, 0, 144, 1};

.visible .func  (.param .b32 func_retval0) _Z5scalei(
	.param .b32 _Z5scalei_param_0
)
{
	.reg .b32 	%r<3>;
	.loc 1 2 0
	ld.param.u32 	%r1, [_Z5scalei_param_0];
	mul.lo.s32 	%r2, %r1, 3;
	st.param.b32 	[func_retval0+0], %r2;
	ret;
}
)";

std::vector<ptx::LinkInput> inputs(std::initializer_list<std::pair<const char *, const char *>> files) {
  std::vector<ptx::LinkInput> out;
  for (const auto &[name, text] : files)
    out.push_back({name, text});
  return out;
}

/// `text` with the first `from` replaced by `to`.
std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

/// The diagnostics of linking `files`, their first lines only (not the quoted source); empty when
/// they link.
std::string linkErrors(std::vector<ptx::LinkInput> files, const ptx::LinkOptions &options = {}) {
  ptx::ParseResult r = ptx::linkModules(std::move(files), {}, options);
  if (r.ok())
    return {};
  std::string out, line;
  std::istringstream rendered(r.diagnostics.render(r.module->sources));
  while (std::getline(rendered, line))
    if (line.find(": error: ") != std::string::npos || line.find(": note: ") != std::string::npos)
      out += line + "\n";
  return out;
}
std::string linkErrors(std::initializer_list<std::pair<const char *, const char *>> files,
                       const ptx::LinkOptions &options = {}) {
  return linkErrors(inputs(files), options);
}

TEST(Link, ExternFunctionAndVariableComeFromTheOtherModule) {
  for (bool userFirst : {true, false}) {
    VmHarness h;
    auto files = userFirst ? inputs({{"a.ptx", kUser}, {"b.ptx", kDefinitions}})
                           : inputs({{"b.ptx", kDefinitions}, {"a.ptx", kUser}});
    vm::LoadedModule &m = h.device.loadLinkedModules("a+b", std::move(files));
    uint64_t out = h.zeros<int32_t>(32);
    auto r = h.launch(m, "_Z1kPi", {1, 1, 1}, {32, 1, 1}, out);
    ASSERT_TRUE(r.ok()) << describe(r);
    std::vector<int32_t> got = h.download<int32_t>(out, 32);
    for (int i = 0; i < 32; ++i)
      EXPECT_EQ(got[i], 3 * i + 100 * (i % 4 + 1)) << "thread " << i << (userFirst ? "" : " (definitions first)");
    // The host names the one variable (cudaMemcpyFromSymbol): the definition, with its initializer.
    std::vector<std::byte> table(16);
    h.device.readVariable(m, "table", table);
    int32_t first = 0;
    std::memcpy(&first, table.data(), 4);
    EXPECT_EQ(first, 100);
  }
}

TEST(Link, LineTablesOfTheModulesStayApart) {
  ptx::ParseResult r = ptx::linkModules(inputs({{"a.ptx", kUser}, {"b.ptx", kDefinitions}}));
  ASSERT_TRUE(r.ok()) << r.diagnostics.render(r.module->sources);
  const ptx::Module &m = *r.module;
  // Both say `.file 1`; the second module's file is renumbered, and its instructions name b.cu.
  ASSERT_EQ(m.files.size(), 2u);
  for (const ptx::Function &f : m.functions) {
    if (!f.hasBody)
      continue;
    ASSERT_FALSE(f.instructions.empty());
    const ptx::LineEntry &line = m.lines[f.instructions.front().line];
    const ptx::SourceFile *file = m.findFile(line.file);
    ASSERT_NE(file, nullptr);
    EXPECT_EQ(file->name, f.name == "_Z1kPi" ? "a.cu" : "b.cu") << f.name;
    EXPECT_EQ(m.sources.name(f.loc.file), f.name == "_Z1kPi" ? "a.ptx" : "b.ptx");
  }
}

const char *kPrivateA = R"(.version 9.0
.target sm_90
.address_size 64
.global .align 4 .u32 counter = 1;
.extern .func (.param .b32 r) other();
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ld.global.u32 %r1, [counter];
  { .param .b32 r0; call.uni (r0), other, (); ld.param.b32 %r2, [r0]; }
  st.global.u32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r2;
  ret;
}
)";
const char *kPrivateB = R"(.version 9.0
.target sm_90
.address_size 64
.global .align 4 .u32 counter = 2;
.visible .func (.param .b32 r) other()
{
  .reg .b32 %r<2>;
  ld.global.u32 %r1, [counter];
  st.param.b32 [r], %r1;
  ret;
}
)";

TEST(Link, NamesWithoutLinkageArePrivateToTheirModule) {
  VmHarness h;
  vm::LoadedModule &m = h.device.loadLinkedModules("ab", inputs({{"a.ptx", kPrivateA}, {"b.ptx", kPrivateB}}));
  uint64_t out = h.zeros<uint32_t>(2);
  auto r = h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, out);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(h.download<uint32_t>(out, 2), (std::vector<uint32_t>{1, 2}));
}

std::string returning(const char *linkage, int value) {
  return fmt::format(R"(.version 9.0
.target sm_90
.address_size 64
{} .func (.param .b32 r) pick()
{{
  st.param.b32 [r], {};
  ret;
}}
)",
                     linkage, value);
}
const char *kCallsPick = R"(.version 9.0
.target sm_90
.address_size 64
.extern .func (.param .b32 r) pick();
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  { .param .b32 r0; call.uni (r0), pick, (); ld.param.b32 %r1, [r0]; }
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

TEST(Link, WeakDefinitionYieldsToVisibleOneWhateverTheOrder) {
  const std::string weak = returning(".weak", 1), strong = returning(".visible", 2), weak2 = returning(".weak", 3);
  for (int order = 0; order < 2; ++order) {
    VmHarness h;
    std::vector<ptx::LinkInput> files{{"k.ptx", kCallsPick}, {"weak.ptx", weak}, {"strong.ptx", strong}};
    if (order)
      std::swap(files[1], files[2]);
    vm::LoadedModule &m = h.device.loadLinkedModules("k", std::move(files));
    uint64_t out = h.zeros<uint32_t>(1);
    ASSERT_TRUE(h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, out).ok());
    EXPECT_EQ(h.download<uint32_t>(out, 1)[0], 2u);
  }
  // Of two weak definitions, the first.
  VmHarness h;
  vm::LoadedModule &m = h.device.loadLinkedModules(
      "k", std::vector<ptx::LinkInput>{{"k.ptx", kCallsPick}, {"w3.ptx", weak2}, {"w1.ptx", weak}});
  uint64_t out = h.zeros<uint32_t>(1);
  ASSERT_TRUE(h.launch(m, "k", {1, 1, 1}, {1, 1, 1}, out).ok());
  EXPECT_EQ(h.download<uint32_t>(out, 1)[0], 3u);
}

std::string commonBuffer(int bytes) {
  return fmt::format(".version 9.0\n.target sm_90\n.address_size 64\n.common .global .align 4 .b8 buf[{}];\n", bytes);
}

TEST(Link, CommonVariablesTakeTheLargestSize) {
  VmHarness h;
  const std::string small = commonBuffer(8), large = commonBuffer(32);
  vm::LoadedModule &m = h.device.loadLinkedModules(
      "c", std::vector<ptx::LinkInput>{{"small.ptx", small}, {"large.ptx", large}, {"small2.ptx", small}});
  const vm::PlacedVariable *buf = m.findVariable("buf");
  ASSERT_NE(buf, nullptr);
  EXPECT_EQ(buf->size, 32u);
}

TEST(Link, TwoVisibleDefinitionsAreAnError) {
  EXPECT_EQ(linkErrors({{"a.ptx", kDefinitions}, {"b.ptx", kDefinitions}}),
            "b.ptx:5:31: error: multiple definition of 'table'\n"
            "a.ptx:5:31: note: first defined here\n"
            "b.ptx:7:44: error: multiple definition of 'scale(int)' (_Z5scalei)\n"
            "a.ptx:7:44: note: first defined here\n");
}

TEST(Link, AnUndefinedNameIsAnErrorWhereItIsUsed) {
  EXPECT_EQ(linkErrors({{"a.ptx", kUser}, {"p.ptx", kPrivateB}}),
            "a.ptx:26:22: error: undefined reference to 'scale(int)' (_Z5scalei): no linked module defines it\n"
            "a.ptx:5:43: note: declared here\n"
            "a.ptx:32:17: error: undefined reference to 'table': no linked module defines it\n"
            "a.ptx:10:30: note: declared here\n");
  // A name the other module has but keeps private (no .visible) is undefined too.
  const std::string privateScale = replaced(kDefinitions, ".visible .func", ".func");
  EXPECT_NE(linkErrors(std::vector<ptx::LinkInput>{{"a.ptx", kUser}, {"b.ptx", privateScale}})
                .find("a.ptx:26:22: error: undefined reference to 'scale(int)'"),
            std::string::npos);
  // A declaration no code uses costs nothing; neither does one of a function the driver provides.
  const char *unused = ".version 9.0\n.target sm_90\n.address_size 64\n.extern .func nothing();\n"
                       ".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n"
                       ".visible .entry k() {\n  .reg .b32 %r<2>;\n  { .param .b32 r0; .param .b64 a; .param .b64 b;\n"
                       "  call.uni (r0), vprintf, (a, b); }\n  ret;\n}\n";
  ptx::LinkOptions driver;
  driver.providedByDriver = [](std::string_view name) { return name == "vprintf"; };
  EXPECT_EQ(linkErrors({{"u.ptx", unused}, {"b.ptx", kDefinitions}}, driver), "");
  EXPECT_EQ(linkErrors({{"u.ptx", unused}, {"b.ptx", kDefinitions}}),
            "u.ptx:9:18: error: undefined reference to 'vprintf': no linked module defines it\n"
            "u.ptx:5:31: note: declared here\n");
}

TEST(Link, ADeclarationMustMatchItsDefinition) {
  std::string wide = replaced(kUser, ".param .b32 _Z5scalei_param_0", ".param .b64 _Z5scalei_param_0");
  wide = replaced(wide, "st.param.b32 \t[param0+0], %r1", "st.param.b64 \t[param0+0], %rd1");
  wide = replaced(wide, ".param .b32 param0", ".param .b64 param0");
  EXPECT_EQ(linkErrors(std::vector<ptx::LinkInput>{{"a.ptx", wide}, {"b.ptx", kDefinitions}}),
            "a.ptx:5:43: error: declaration of 'scale(int)' (_Z5scalei) does not match its definition: the "
            "declaration's parameters are (.b64), the definition's (.b32)\n"
            "b.ptx:7:44: note: defined here\n");
  std::string constTable =
      replaced(kUser, ".extern .global .align 4 .b8 table[16]", ".extern .const .align 4 .b8 table[16]");
  EXPECT_EQ(linkErrors(std::vector<ptx::LinkInput>{{"a.ptx", constTable}, {"b.ptx", kDefinitions}}),
            "a.ptx:10:29: error: declaration of 'table' does not match its definition: it is declared in .const and "
            "defined in .global\n"
            "b.ptx:5:31: note: defined here\n");
  std::string shortTable = replaced(kUser, "table[16]", "table[8]");
  EXPECT_EQ(linkErrors(std::vector<ptx::LinkInput>{{"a.ptx", shortTable}, {"b.ptx", kDefinitions}}),
            "a.ptx:10:30: error: declaration of 'table' does not match its definition: it is declared 8 bytes and "
            "defined 16 bytes\n"
            "b.ptx:5:31: note: defined here\n");
  // An unsized declaration names a definition of any size.
  EXPECT_EQ(linkErrors(std::vector<ptx::LinkInput>{{"a.ptx", replaced(kUser, "table[16]", "table[]")},
                                                   {"b.ptx", kDefinitions}}),
            "");
}

TEST(Link, AddressSizesMustAgree) {
  const std::string narrow = replaced(kDefinitions, ".address_size 64", ".address_size 32");
  EXPECT_EQ(linkErrors(std::vector<ptx::LinkInput>{{"a.ptx", kUser}, {"b.ptx", narrow}}).substr(0, 95),
            "b.ptx:1:1: error: cannot link a 32-bit module with a 64-bit one (a.ptx): .address_size differs\n");
}

} // namespace
} // namespace ptxray::test
