// Property: for random structs and unions with bit fields, ptxray's layout (address size 64) equals the
// host C compiler's. x86-64 lays out these types by the same rules as the PTX ABI (§1.2, §1.3). The test
// writes the declarations as a C header, compiles a program that prints sizeof, _Alignof, offsetof and the
// bit positions of every bit field (set to all ones in a zeroed object), runs it and compares.
#include "abi/CDeclParser.h"
#include "abi/Layout.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace ptxray::abi {
namespace {

struct ScalarKind {
  const char *spelling;
  unsigned bits;
  bool integral;
};

constexpr std::array<ScalarKind, 13> kScalars = {{{"char", 8, true},
                                                  {"signed char", 8, true},
                                                  {"unsigned char", 8, true},
                                                  {"short", 16, true},
                                                  {"unsigned short", 16, true},
                                                  {"int", 32, true},
                                                  {"unsigned int", 32, true},
                                                  {"long", 64, true},
                                                  {"unsigned long", 64, true},
                                                  {"long long", 64, true},
                                                  {"unsigned long long", 64, true},
                                                  {"float", 32, false},
                                                  {"double", 64, false}}};

bool hostCompilerUsable() {
#if defined(__x86_64__)
  static const bool usable = std::system("command -v cc >/dev/null 2>&1") == 0;
  return usable;
#else
  return false; // other hosts lay out bit fields differently (e.g. AAPCS64 zero-width fields)
#endif
}

std::string runCommand(const std::string &command) {
  std::string out;
  FILE *pipe = popen(command.c_str(), "r");
  if (pipe == nullptr)
    return "popen failed";
  char buffer[4096];
  std::size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
    out.append(buffer, n);
  pclose(pipe);
  return out;
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "ptxray-layout-XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr)
      path = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path.empty())
      std::filesystem::remove_all(path, ignored);
  }
};

// What both sides print: size, alignment, then per named member its bit offset and bit count.
std::string expectedOutput(const Layout &layout) {
  std::ostringstream out;
  out << "size " << layout.size << "\nalign " << layout.align << "\n";
  for (const MemberLayout &m : layout.members) {
    if (m.name.empty())
      continue;
    out << m.name << " " << m.bitOffset << " " << m.bitWidth << "\n";
  }
  return out.str();
}

TEST(LayoutProperty, HostCompilerAvailable) {
  if (!hostCompilerUsable())
    GTEST_SKIP() << "no x86-64 system C compiler ('cc'): the host layout comparison is skipped";
}

RC_GTEST_PROP(LayoutProperty, RandomBitFieldAggregatesMatchTheHostCompiler, ()) {
  if (!hostCompilerUsable())
    RC_SUCCEED("no x86-64 system C compiler");
  const bool isUnion = *rc::gen::inRange(0, 4) == 0;
  const int count = *rc::gen::inRange(1, 7);
  std::ostringstream decl;
  decl << (isUnion ? "union" : "struct") << " T {\n";
  std::vector<std::pair<std::string, bool>> named; // name, is a bit field
  for (int i = 0; i < count; ++i) {
    const ScalarKind &kind = kScalars[static_cast<std::size_t>(*rc::gen::inRange<int>(0, kScalars.size()))];
    std::string name = fmt::format("f{}", i);
    const int shape = *rc::gen::inRange(0, 10); // 0-5 bit field, 6 array, 7 aligned member, else plain
    if (kind.integral && shape <= 5) {
      unsigned width = static_cast<unsigned>(*rc::gen::inRange<int>(0, static_cast<int>(kind.bits) + 1));
      bool unnamed = width == 0 || *rc::gen::inRange(0, 5) == 0;
      decl << "  " << kind.spelling << " " << (unnamed ? "" : name) << " : " << width << ";\n";
      if (!unnamed)
        named.emplace_back(name, true);
    } else if (shape == 6) {
      decl << "  " << kind.spelling << " " << name << "[" << *rc::gen::inRange(1, 4) << "];\n";
      named.emplace_back(name, false);
    } else if (shape == 7) {
      decl << "  " << kind.spelling << " " << name << " __attribute__((aligned(" << (1 << *rc::gen::inRange(0, 5))
           << ")));\n";
      named.emplace_back(name, false);
    } else {
      decl << "  " << kind.spelling << " " << name << ";\n";
      named.emplace_back(name, false);
    }
  }
  // An aggregate without named members is a GNU extension: end every all-unnamed draw with a named
  // member instead of discarding it (discarded draws make rapidcheck give up at random).
  if (named.empty()) {
    decl << "  int tail;\n";
    named.emplace_back("tail", false);
  }
  decl << "};\n";
  const std::string header = decl.str();
  RC_TAG(isUnion ? "union" : "struct");

  CDeclResult parsed = parseCDecls(header);
  RC_ASSERT(parsed.ok());
  const NamedType *t = parsed.header.find(isUnion ? "union T" : "struct T");
  RC_ASSERT(t != nullptr);
  const std::string ours = expectedOutput(layoutOf(t->type, 64));

  const std::string typeRef = std::string(isUnion ? "union" : "struct") + " T";
  std::ostringstream prog;
  prog << "#include <stdio.h>\n#include <stddef.h>\n#include <string.h>\n"
       << header << "int main(void) {\n  printf(\"size %zu\\nalign %zu\\n\", sizeof(" << typeRef << "), _Alignof("
       << typeRef << "));\n";
  for (const auto &[name, bitField] : named) {
    if (!bitField) {
      prog << "  printf(\"" << name << " %zu %zu\\n\", offsetof(" << typeRef << ", " << name << ") * 8, sizeof((("
           << typeRef << " *)0)->" << name << ") * 8);\n";
      continue;
    }
    prog << "  { " << typeRef << " t; memset(&t, 0, sizeof t); t." << name
         << " = -1; const unsigned char *p = (const unsigned char *)&t; long first = -1, n = 0;\n"
         << "    for (size_t i = 0; i < sizeof t * 8; ++i) if ((p[i / 8] >> (i % 8)) & 1) { if (first < 0) first = "
            "(long)i; "
            "++n; }\n"
         << "    printf(\"" << name << " %ld %ld\\n\", first, n); }\n";
  }
  prog << "  return 0;\n}\n";

  TempDir dir;
  RC_ASSERT(!dir.path.empty());
  { std::ofstream(dir.path / "layout.c") << prog.str(); }
  const std::string compile = "cc -std=gnu11 -O0 -w -o '" + (dir.path / "layout").string() + "' '" +
                              (dir.path / "layout.c").string() + "' 2>&1";
  const std::string diagnostics = runCommand(compile);
  RC_ASSERT(diagnostics.empty());
  const std::string theirs = runCommand(fmt::format("'{}'", (dir.path / "layout").string()));
  RC_LOG() << header;
  RC_ASSERT(ours == theirs);
}

} // namespace
} // namespace ptxray::abi
