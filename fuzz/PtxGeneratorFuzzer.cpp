// Grammar-aware libFuzzer target for the PTX front end and the VM: the input's bytes are choices of a
// generator that writes PTX a real module could contain (directives, variables with initializers,
// kernels and functions with parameters, register declarations, instructions of every class, labels,
// loops and calls), pushed toward the hostile edges issue #31 found by hand: expressions nested
// thousands deep, braces nested as deep, declarations of 2^24 registers or 2^60-byte arrays, parameter
// lists past the ABI's limits, ISA versions and targets that do not exist. Byte-level mutation rarely
// gets these past the lexer; here every input is PTX, so the fuzzer spends its time in the parser's
// limits, the verifier and the VM. What parses is printed and re-parsed (the same IR), loaded, and
// every kernel run on a small grid under an instruction budget and a 512 MiB memory budget: a result,
// a located error or a reported fault, never a crash, a hang or unbounded memory.
#include "RunEveryKernel.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"
#include "support/MemoryBudget.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

class Choices {
public:
  Choices(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  bool more() const { return at_ < size_; }
  uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  uint32_t below(uint32_t n) { return n ? byte() % n : 0; }
  uint32_t u16() { return static_cast<uint32_t>(byte() | byte() << 8); }
  /// A count: small mostly, sometimes a power of two up to 2^63, sometimes one past it.
  uint64_t count() {
    switch (below(8)) {
    case 0: return uint64_t{1} << below(64);
    case 1: return (uint64_t{1} << below(64)) + 1;
    case 2: return u16();
    default: return below(17);
    }
  }
  template <typename T, size_t N> const T &pick(const T (&options)[N]) { return options[below(N)]; }

private:
  const uint8_t *data_;
  size_t size_;
  size_t at_ = 0;
};

/// A constant expression nested `depth` deep: a chain of unary operators, parentheses and binary
/// operators with a leaf on the left, built without recursion (the depths reach tens of thousands).
void expression(std::string &out, Choices &c, int depth) {
  static const char *unary[] = {"-", "~", "!", "+"};
  static const char *binary[] = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||", "<", "==", "!="};
  size_t open = 0;
  for (int i = 0; i < depth; ++i) {
    switch (c.below(3)) {
    case 0: out += c.pick(unary); break;
    case 1:
      out += '(';
      ++open;
      break;
    default: out += fmt::format("{} {} ", c.count(), c.pick(binary));
    }
  }
  out += fmt::format("{}", c.count());
  out.append(open, ')');
}

/// An initializer list nested `depth` braces deep, a few items at each of the innermost levels.
void initializer(std::string &out, Choices &c, int depth) {
  out.append(static_cast<size_t>(std::max(depth, 0)), '{');
  expression(out, c, static_cast<int>(c.below(4)));
  for (int level = 0; level < depth; ++level) {
    if (level < 4)
      for (uint32_t extra = c.below(3); extra > 0; --extra) {
        out += ", ";
        out.append(static_cast<size_t>(level), '{');
        expression(out, c, static_cast<int>(c.below(3)));
        out.append(static_cast<size_t>(level), '}');
      }
    out += '}';
  }
}

/// A nesting depth: shallow mostly, sometimes past the parser's limit of 256, rarely far past it.
int depth(Choices &c) {
  switch (c.below(8)) {
  case 0: return 200 + static_cast<int>(c.below(120));
  case 1: return 1000 + static_cast<int>(c.u16() % 40000);
  default: return static_cast<int>(c.below(6));
  }
}

const char *kTypes[] = {".b8", ".b16", ".b32", ".b64", ".u32", ".s32", ".u64", ".f32", ".f64", ".f16", ".pred"};
const char *kRegClasses[] = {"%r", "%rd", "%f", "%fd", "%p", "%h"};

/// One instruction over the function's registers %r0..3 (b32), %rd0..3 (b64), %f0..3, %fd0..3, %p0..1.
void instruction(std::string &out, Choices &c, bool hasPointer, int labels, int functions) {
  static const char *templates[] = {
      "add.s32 %r{0}, %r{1}, {2};",
      "mad.lo.s32 %r{0}, %r{1}, %r{2}, {2};",
      "mul.wide.u32 %rd{0}, %r{1}, {2};",
      "div.s32 %r{0}, %r{1}, %r{2};",
      "rem.u32 %r{0}, %r{1}, %r{2};",
      "shl.b32 %r{0}, %r{1}, {2};",
      "shr.s64 %rd{0}, %rd{1}, %r{2};",
      "bfe.u32 %r{0}, %r{1}, %r{2}, {2};",
      "cvt.rn.f32.s32 %f{0}, %r{1};",
      "cvt.rzi.s32.f64 %r{0}, %fd{1};",
      "fma.rn.f32 %f{0}, %f{1}, %f{2}, 0f3F800000;",
      "div.rn.f64 %fd{0}, %fd{1}, %fd{2};",
      "sqrt.approx.f32 %f{0}, %f{1};",
      "setp.lt.s32 %p{3}, %r{0}, %r{1};",
      "selp.b32 %r{0}, %r{1}, %r{2}, %p{3};",
      "mov.u32 %r{0}, %tid.x;",
      "mov.u32 %r{0}, %laneid;",
      "mov.u64 %rd{0}, %clock64;",
      "shfl.sync.bfly.b32 %r{0}, %r{1}, {2}, 31, -1;",
      "vote.sync.ballot.b32 %r{0}, %p{3}, -1;",
      "popc.b32 %r{0}, %r{1};",
      "bar.sync 0;",
      "membar.gl;",
      "ld.shared.u32 %r{0}, [smem+{2}];",
      "st.shared.u32 [smem+{2}], %r{1};",
      "ld.local.u32 %r{0}, [frame+{2}];",
      "st.local.u32 [frame+{2}], %r{1};",
      "ld.const.u32 %r{0}, [table+{2}];",
      "ld.global.u32 %r{0}, [g+{2}];",
      "atom.shared.add.u32 %r{0}, [smem], %r{1};",
  };
  static const char *pointerTemplates[] = {
      "ld.global.u32 %r{0}, [%rd3+{2}];",      "st.global.u32 [%rd3+{2}], %r{1};",
      "atom.global.add.u32 %r{0}, [%rd3], 1;", "ld.global.v4.u32 {{%r0, %r1, %r2, %r3}}, [%rd3+{2}];",
      "red.global.add.f32 [%rd3+{2}], %f{1};", "cvta.to.global.u64 %rd3, %rd3;",
  };
  const uint32_t a = c.below(4), b = c.below(4), imm = c.byte() % 4 == 0 ? c.u16() : c.below(64) * 4;
  const uint32_t p = c.below(2);
  std::string guard = c.below(6) == 0 ? fmt::format("@{}%p{} ", c.below(2) ? "!" : "", p) : "";
  switch (c.below(10)) {
  case 0:
    if (labels > 0) {
      out += fmt::format("  {}bra L{};\n", guard.empty() ? "@%p0 " : guard, c.below(static_cast<uint32_t>(labels)));
      return;
    }
    break;
  case 1:
    if (functions > 0) {
      out += fmt::format("  {{ .param .b32 a; .param .b32 r; st.param.b32 [a], %r{}; call (r), f{}, (a); "
                         "ld.param.b32 %r{}, [r]; }}\n",
                         a, c.below(static_cast<uint32_t>(functions)), b);
      return;
    }
    break;
  case 2:
    if (hasPointer) {
      out += "  " + guard + fmt::format(fmt::runtime(c.pick(pointerTemplates)), a, b, imm, p) + "\n";
      return;
    }
    break;
  default: break;
  }
  out += "  " + guard + fmt::format(fmt::runtime(c.pick(templates)), a, b, imm, p) + "\n";
}

std::string generate(Choices &c) {
  static const char *versions[] = {"8.0", "7.8", "6.0", "9.0", "3.2", "99.9", "1.0", "8.1"};
  static const char *targets[] = {"sm_90", "sm_80", "sm_70", "sm_52", "sm_35", "sm_20", "sm_90a", "sm_100", "sm_1000"};
  std::string out = fmt::format(".version {}\n.target {}\n.address_size {}\n", c.pick(versions), c.pick(targets),
                                c.below(4) ? 64 : 32);
  // Module variables the instructions name, with sizes that may be huge and initializers that may be deep.
  out += fmt::format(".global .align 4 .b32 g[{}];\n", c.below(3) ? 64 : c.count());
  out += fmt::format(".const .align 4 .b32 table[{}] = ", c.below(8) ? 4 : c.count() % 100000 + 1);
  std::string init;
  initializer(init, c, c.below(4) == 0 ? depth(c) : 1);
  out += init.size() > 4'000'000 ? std::string("{0}") : init; // a deep list stays under the 1 GiB input limit
  out += ";\n";
  if (c.below(4) == 0) {
    out += ".global .u64 value = ";
    expression(out, c, depth(c));
    out += ";\n";
  }
  const int functions = static_cast<int>(c.below(3));
  for (int f = 0; f < functions; ++f) {
    out +=
        fmt::format(".func (.param .b32 r) f{} (.param .b32 a)\n{{\n  .reg .b32 %r<4>;\n  ld.param.b32 %r1, [a];\n", f);
    const uint32_t n = c.below(8);
    for (uint32_t i = 0; i < n; ++i)
      instruction(out, c, false, 0, f); // calls only to earlier functions: no unbounded recursion by design
    out += "  st.param.b32 [r], %r1;\n  ret;\n}\n";
  }
  const uint32_t kernels = 1 + c.below(3);
  for (uint32_t k = 0; k < kernels && c.more(); ++k) {
    // Parameters: a pointer, sometimes a list past the ABI's limits.
    out += fmt::format(".visible .entry k{}(.param .u64 ptr", k);
    if (c.below(8) == 0)
      out += fmt::format(", .param .align 8 .b8 big[{}]", c.count() % (1 << 20) + 1);
    const uint32_t scalars = c.below(8) == 0 ? c.u16() % 3000 : c.below(3);
    for (uint32_t i = 0; i < scalars; ++i)
      out += fmt::format(", .param .u32 s{}", i);
    out += ")\n{\n";
    // Registers: the named sets, and sometimes declarations of millions.
    out += "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n  .reg .f32 %f<4>;\n  .reg .f64 %fd<4>;\n  .reg .pred %p<2>;\n";
    if (c.below(6) == 0)
      out += fmt::format("  .reg {} {}x<{}>;\n", c.pick(kTypes), c.pick(kRegClasses), c.count() % (1u << 25));
    out += fmt::format("  .shared .align 4 .b8 smem[{}];\n", c.below(6) ? 256 : c.count());
    out += fmt::format("  .local .align 4 .b8 frame[{}];\n", c.below(6) ? 64 : c.count());
    out += "  ld.param.u64 %rd3, [ptr];\n";
    const int labels = static_cast<int>(c.below(4));
    for (int l = 0; l <= labels; ++l) {
      const uint32_t n = c.below(12);
      for (uint32_t i = 0; i < n; ++i)
        instruction(out, c, true, labels, functions);
      if (l < labels)
        out += fmt::format("L{}:\n", l);
    }
    out += "  ret;\n}\n";
  }
  return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace ptxray;
  static bool budget = (support::setMemoryBudget(uint64_t{512} << 20), true);
  (void)budget;
  Choices choices(data, size);
  const std::string text = generate(choices);
  ptx::ParseResult parsed;
  try {
    parsed = ptx::parseModule("generated.ptx", text);
  } catch (const support::MemoryBudgetExceeded &) {
    return 0;
  }
  if (!parsed.ok())
    return 0;
  // What parses prints as PTX that parses to the same IR.
  const std::string printed = ptx::printModule(*parsed.module);
  ptx::ParseResult again = ptx::parseModule("printed.ptx", printed);
  if (!again.ok() || !again.module->sameIr(*parsed.module)) {
    std::fprintf(stderr,
                 "printed module does not re-parse to the same IR\n--- generated ---\n%s\n--- printed ---\n%s\n",
                 text.c_str(), printed.c_str());
    __builtin_trap();
  }
  fuzz::runEveryKernel(text, {8});
  return 0;
}
