// Instruction rules: double precision sneaking into single-precision code, integer division,
// 1/sqrt, unfused multiply-adds, full-precision math, 24- vs 32-bit multiply and fp64 on GPUs with little of it ([BPG]
// chapter 5, [Kepler] 1.4.5.1). They read the PTX, weighted by executions when a launch ran.
#include "advisor/RuleContext.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace ptxray::advisor {
namespace {

using Site = RuleContext::Site;
using model::InstructionClass;

double d(uint64_t v) {
  return static_cast<double>(v);
}

bool isFloatType(ptx::Mod m, int bits) {
  const ptx::TypeInfo t = ptx::typeInfo(m);
  return t.kind == ptx::TypeKind::Float && t.bits == bits;
}

bool isIntegerType(ptx::Mod m) {
  const ptx::TypeKind k = ptx::typeInfo(m).kind;
  return k == ptx::TypeKind::Signed || k == ptx::TypeKind::Unsigned;
}

/// Sites grouped by source line (or by PTX instruction without line information), in PTX order.
struct LineGroup {
  std::vector<const Site *> sites;
  uint64_t executions = 0;
};

class Groups {
public:
  explicit Groups(const RuleContext &ctx) : ctx_(ctx) {}
  void add(const Site &s) {
    auto [file, line] = ctx_.sourceOf(s);
    std::string key = file.empty() ? fmt::format("\x01{}:{}", static_cast<const void *>(s.function), s.index)
                                   : fmt::format("{}:{}", file, line);
    auto [it, inserted] = groups_.try_emplace(key);
    if (inserted)
      order_.push_back(key);
    it->second.sites.push_back(&s);
    it->second.executions += s.executions;
  }
  template <class F> void forEach(F &&f) const {
    for (const std::string &k : order_)
      f(groups_.at(k));
  }
  bool empty() const { return order_.empty(); }

private:
  const RuleContext &ctx_;
  std::map<std::string, LineGroup> groups_;
  std::vector<std::string> order_;
};

/// Whether a line is worth mentioning: in static analysis always, with a launch when its executions
/// reach the instruction share threshold.
bool significant(const RuleContext &ctx, uint64_t executions) {
  return !ctx.launch || d(executions) >= ctx.t.instructionShare * ctx.warpInstructions();
}

std::string times(const RuleContext &ctx, uint64_t executions) {
  return ctx.launch ? fmt::format("{} warp executions", executions) : std::string("in the PTX");
}

/// Per class, the warp instructions a set of sites executed (what a what-if removes).
std::array<uint64_t, model::kInstructionClasses> classCounts(const std::vector<const Site *> &sites) {
  std::array<uint64_t, model::kInstructionClasses> c{};
  for (const Site *s : sites)
    if (s->profile)
      c[static_cast<int>(s->profile->cls)] += s->executions;
  return c;
}

void moveClass(model::TimeInputs &in, InstructionClass from, InstructionClass to, uint64_t n) {
  uint64_t &a = in.warpInstructionsByClass[static_cast<int>(from)];
  n = std::min(a, n);
  a -= n;
  in.warpInstructionsByClass[static_cast<int>(to)] += n;
}

// ---- fp64-in-fp32 ---------------------------------------------------------------------------

void fp64InFp32(const RuleContext &ctx, std::vector<Finding> &out) {
  // Single-precision data computed in double: floats promoted (cvt.f64.f32) and results demoted back
  // (cvt.f32.f64), which is what an unsuffixed literal or a double math function does to float code.
  uint64_t fp32 = 0, fp64 = 0;
  bool demoted = false;
  for (const Site &s : ctx.sites) {
    const ptx::Instruction &inst = s.instruction();
    if (inst.opcode == ptx::Opcode::cvt && isFloatType(inst.type(0), 32) && isFloatType(inst.type(1), 64))
      demoted = true;
    if (inst.opcode == ptx::Opcode::ld || inst.opcode == ptx::Opcode::st || inst.opcode == ptx::Opcode::cvt ||
        inst.opcode == ptx::Opcode::mov)
      continue;
    if (isFloatType(inst.type(), 32))
      fp32 += s.executions;
    else if (isFloatType(inst.type(), 64))
      fp64 += s.executions;
  }
  if (!demoted)
    return;
  Groups groups(ctx);
  for (const Site &s : ctx.sites) {
    const ptx::Instruction &inst = s.instruction();
    if (inst.opcode == ptx::Opcode::cvt && isFloatType(inst.type(0), 64) && isFloatType(inst.type(1), 32))
      groups.add(s);
  }
  Finding f = ctx.make("fp64-in-fp32");
  std::array<uint64_t, model::kInstructionClasses> removed{};
  groups.forEach([&](const LineGroup &g) {
    if (!significant(ctx, g.executions))
      return;
    // The double-precision work on the same line: the promotion, the fp64 arithmetic, the demotion.
    uint64_t lineFp64 = 0, conversions = 0;
    std::vector<const Site *> line;
    auto [file, lineNo] = ctx.sourceOf(*g.sites.front());
    for (const Site &s : ctx.sites) {
      if (!file.empty() && ctx.sourceOf(s) != std::pair{file, lineNo})
        continue;
      if (file.empty() && &s != g.sites.front())
        continue;
      const ptx::Instruction &inst = s.instruction();
      if (inst.opcode == ptx::Opcode::cvt && (isFloatType(inst.type(0), 64) || isFloatType(inst.type(1), 64))) {
        conversions += s.executions;
        line.push_back(&s);
      } else if (isFloatType(inst.type(), 64) && inst.opcode != ptx::Opcode::ld && inst.opcode != ptx::Opcode::st) {
        lineFp64 += s.executions;
        line.push_back(&s);
      }
    }
    auto c = classCounts(line);
    for (int i = 0; i < model::kInstructionClasses; ++i)
      removed[i] += c[i];
    f.lines.push_back(ctx.ref(
        *g.sites.front(),
        ctx.launch ? fmt::format("{} conversions and {} fp64 instructions executed (warp)", conversions, lineFp64)
                   : "float promoted to double (cvt.f64.f32)",
        d(conversions + lineFp64)));
  });
  if (f.lines.empty())
    return;
  f.title = "Double precision in single-precision code: float values promoted to double";
  f.evidence =
      fmt::format("{} line{} convert floats to double, compute in double and convert the result back "
                  "to float ({} fp32 and {} fp64 arithmetic warp instructions{}).",
                  f.lines.size(), f.lines.size() == 1 ? "" : "s", fp32, fp64, ctx.launch ? " executed" : " in the PTX");
  f.fix = "Give floating-point constants an f suffix (1.5f, 0.5f) and call the float versions of math functions "
          "(sqrtf, expf): double constants make the compiler convert to double, compute there, and convert back "
          "([BPG] 5.1.3).";
  ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) {
    moveClass(in, InstructionClass::Fp64, InstructionClass::Fp32, removed[static_cast<int>(InstructionClass::Fp64)]);
    uint64_t &cvt = in.warpInstructionsByClass[static_cast<int>(InstructionClass::Conversion)];
    cvt -= std::min(cvt, removed[static_cast<int>(InstructionClass::Conversion)]);
  }));
  ctx.trim(f.lines);
  out.push_back(std::move(f));
}

// ---- int-div-mod ------------------------------------------------------------------------------

void intDivMod(const RuleContext &ctx, std::vector<Finding> &out) {
  Groups groups(ctx);
  for (const Site &s : ctx.sites) {
    const ptx::Instruction &inst = s.instruction();
    if ((inst.opcode != ptx::Opcode::div && inst.opcode != ptx::Opcode::rem) || !isIntegerType(inst.type()))
      continue;
    auto ops = s.function->operandsOf(inst);
    if (ops.size() == 3 && ops[2].kind == ptx::OperandKind::Register)
      groups.add(s);
  }
  Finding f = ctx.make("int-div-mod");
  uint64_t executions = 0;
  groups.forEach([&](const LineGroup &g) {
    if (!significant(ctx, g.executions))
      return;
    executions += g.executions;
    f.lines.push_back(ctx.ref(*g.sites.front(),
                              fmt::format("{} by a run-time divisor, {}",
                                          spelling(g.sites.front()->instruction().opcode), times(ctx, g.executions)),
                              d(g.executions)));
  });
  if (f.lines.empty())
    return;
  f.title = "Integer division or modulo by a run-time divisor";
  f.evidence = fmt::format("{} integer div/rem {} compile to a sequence of {} instructions each on this GPU; "
                           "when the divisor is a power of two, a shift and a mask do the same.",
                           ctx.launch ? fmt::format("{} warp executions of", executions) : std::string("instructions:"),
                           ctx.launch ? "" : std::to_string(f.lines.size()), ctx.cc.throughput.emulatedSequenceLength);
  f.fix = "If n is a power of two, pass log2(n) and write i >> log2n and i & (n - 1) (unsigned), or make n a "
          "compile-time constant so the compiler does it ([BPG] 5.1.1).";
  ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) {
    moveClass(in, InstructionClass::Emulated, InstructionClass::Int32, executions);
  }));
  ctx.trim(f.lines);
  out.push_back(std::move(f));
}

// ---- rsqrt ------------------------------------------------------------------------------------

/// The register an instruction writes (its first operand), or kNone.
uint32_t destination(const Site &s) {
  auto ops = s.function->operandsOf(s.instruction());
  return !ops.empty() && ops[0].kind == ptx::OperandKind::Register ? ops[0].id : ptx::kNone;
}

bool reads(const Site &s, uint32_t reg, size_t fromOperand) {
  auto ops = s.function->operandsOf(s.instruction());
  for (size_t i = fromOperand; i < ops.size(); ++i)
    if (ops[i].kind == ptx::OperandKind::Register && ops[i].id == reg)
      return true;
  return false;
}

bool isOne(const ptx::Operand &op) {
  return (op.kind == ptx::OperandKind::Float32 && op.value == 0x3f800000) ||
         (op.kind == ptx::OperandKind::Float64 && op.value == 0x3ff0000000000000);
}

void rsqrt(const RuleContext &ctx, std::vector<Finding> &out) {
  // sqrt then rcp (or 1 / x) of its result, in the same function.
  Groups groups(ctx);
  std::vector<const Site *> pair; // the square roots and their reciprocals
  for (const Site &s : ctx.sites) {
    const ptx::Instruction &inst = s.instruction();
    if (inst.opcode != ptx::Opcode::sqrt || inst.has(ptx::Mod::approx))
      continue;
    const uint32_t reg = destination(s);
    if (reg == ptx::kNone)
      continue;
    for (const Site &t : ctx.sites) {
      if (t.function != s.function || t.index <= s.index || t.index > s.index + 8)
        continue;
      const ptx::Instruction &u = t.instruction();
      auto ops = t.function->operandsOf(u);
      const bool rcp = u.opcode == ptx::Opcode::rcp && reads(t, reg, 1);
      const bool oneOver = u.opcode == ptx::Opcode::div && ops.size() == 3 && isOne(ops[1]) &&
                           ops[2].kind == ptx::OperandKind::Register && ops[2].id == reg;
      if (rcp || oneOver) {
        groups.add(s);
        pair.push_back(&s);
        pair.push_back(&t);
        break;
      }
    }
  }
  Finding f = ctx.make("rsqrt");
  uint64_t executions = 0;
  groups.forEach([&](const LineGroup &g) {
    if (!significant(ctx, g.executions))
      return;
    executions += g.executions;
    f.lines.push_back(ctx.ref(
        *g.sites.front(), fmt::format("sqrt followed by a reciprocal, {}", times(ctx, g.executions)), d(g.executions)));
  });
  if (f.lines.empty())
    return;
  f.title = "1/sqrt(x) computed as a square root and a division";
  f.evidence = "A square root followed by a reciprocal of its result: two special-function operations (and an "
               "IEEE-rounded division sequence) where one reciprocal square root would do.";
  f.fix = ctx.words.opencl()
              ? "Call rsqrt(x) explicitly: the compiler turns 1.0f/sqrt(x) into rsqrt only when that does not change "
                "IEEE-754 results ([BPG] 5.1.2)."
              : "Call rsqrtf(x) (rsqrt(x) in double) explicitly: the compiler turns 1.0f/sqrtf(x) into rsqrt only "
                "when that does not change IEEE-754 results ([BPG] 5.1.2).";
  // What if each pair were one reciprocal square root on the special-function unit.
  const auto removed = classCounts(pair);
  ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) {
    for (int c = 0; c < model::kInstructionClasses; ++c)
      in.warpInstructionsByClass[c] -= std::min(in.warpInstructionsByClass[c], removed[c]);
    in.warpInstructionsByClass[static_cast<int>(InstructionClass::Special)] += executions;
  }));
  ctx.trim(f.lines);
  out.push_back(std::move(f));
}

// ---- unfused-multiply-add -------------------------------------------------------------------

bool isRoundedFloat(const ptx::Instruction &inst, ptx::Opcode opcode) {
  // An explicit rounding mode forbids ptxas to contract the operation into an fma (PTX ISA, mul and
  // add): what the compiler writes when the source did not allow fusion.
  return inst.opcode == opcode && inst.rounding != ptx::Mod::None &&
         (isFloatType(inst.type(), 32) || isFloatType(inst.type(), 64));
}

void unfusedMultiplyAdd(const RuleContext &ctx, std::vector<Finding> &out) {
  // A rounded multiply whose result a rounded add or subtract of the same type reads shortly after.
  Groups groups(ctx);
  std::vector<const Site *> adds; // the instructions one fma per pair would save
  uint64_t executions = 0;
  for (const Site &s : ctx.sites) {
    const ptx::Instruction &inst = s.instruction();
    if (!isRoundedFloat(inst, ptx::Opcode::mul))
      continue;
    const uint32_t reg = destination(s);
    if (reg == ptx::kNone)
      continue;
    for (const Site &t : ctx.sites) {
      if (t.function != s.function || t.index <= s.index || t.index > s.index + 8)
        continue;
      const ptx::Instruction &u = t.instruction();
      if ((isRoundedFloat(u, ptx::Opcode::add) || isRoundedFloat(u, ptx::Opcode::sub)) && u.type() == inst.type() &&
          reads(t, reg, 1)) {
        groups.add(t);
        adds.push_back(&t);
        executions += t.executions;
        break;
      }
    }
  }
  Finding f = ctx.make("unfused-multiply-add");
  groups.forEach([&](const LineGroup &g) {
    if (!significant(ctx, g.executions))
      return;
    f.lines.push_back(ctx.ref(*g.sites.front(),
                              fmt::format("a multiply and an add that could be one fma, {}", times(ctx, g.executions)),
                              d(g.executions)));
  });
  if (f.lines.empty())
    return;
  f.title = "Multiplies and adds the compiler was not allowed to fuse";
  f.evidence = fmt::format("On {} line{} a product is added in an instruction of its own (mul.rn, then add.rn): the "
                           "explicit rounding keeps them two where one multiply-add, at the throughput of either, "
                           "would do{}.",
                           f.lines.size(), f.lines.size() == 1 ? "" : "s",
                           ctx.launch ? fmt::format(" ({} warp instructions)", executions) : std::string());
  f.fix = ctx.words.opencl()
              ? "Build with -cl-mad-enable (or -cl-fast-relaxed-math), the guide's high-priority recommendation "
                "([BPG] 5, A.2), or write mad(a, b, c) where the rounding of the product may change; fma(a, b, c) "
                "keeps the IEEE-754 result of a fused multiply-add on every device."
              : "Let nvcc fuse them: drop -fmad=false (fusion is the default), or replace __fmul_rn/__fadd_rn pairs "
                "by fmaf(a, b, c) where a single rounding is acceptable ([BPG] 5, A.2).";
  // What if each pair were one fused multiply-add: the adds go away.
  const auto removed = classCounts(adds);
  ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) {
    for (int c = 0; c < model::kInstructionClasses; ++c)
      in.warpInstructionsByClass[c] -= std::min(in.warpInstructionsByClass[c], removed[c]);
  }));
  ctx.trim(f.lines);
  out.push_back(std::move(f));
}

// ---- full-precision-math ----------------------------------------------------------------------

/// What a site says about full-precision math: empty when nothing.
std::string fullPrecisionKind(const RuleContext &ctx, const Site &s) {
  const ptx::Instruction &inst = s.instruction();
  if (inst.opcode == ptx::Opcode::div && isFloatType(inst.type(), 32) && inst.rounding != ptx::Mod::None)
    return "IEEE-rounded float division (div.rn.f32): about 10 instructions and a slow path";
  if (inst.opcode == ptx::Opcode::sqrt && isFloatType(inst.type(), 32) && inst.rounding != ptx::Mod::None)
    return "IEEE-rounded square root (sqrt.rn.f32)";
  for (const ptx::Operand &op : s.function->operandsOf(inst)) {
    if (op.kind != ptx::OperandKind::Float32)
      continue;
    // Constants only the full-precision library sequences use: 2/pi in sinf/cosf/tanf argument
    // reduction; the low part of log2(e) in expf's extra-precise scaling.
    if (op.value == 0x3f22f983)
      return "sinf/cosf/tanf with full argument reduction";
    if (op.value == 0x32a57060)
      return "expf/exp10f/powf with extra-precise scaling";
  }
  if (ctx.lineTable) {
    static constexpr std::string_view kFunctions[] = {"sinf", "cosf",  "tanf",   "sincosf", "expf", "exp10f",
                                                      "logf", "log2f", "log10f", "powf",    "sin",  "cos",
                                                      "tan",  "exp",   "log",    "pow"};
    for (const ptx::SourcePosition &p : ctx.lineTable->chain(inst))
      for (std::string_view fn : kFunctions)
        if (p.inlinedFunction == fn)
          return fmt::format("{}() inlined from the math library", fn);
  }
  return {};
}

void fullPrecisionMath(const RuleContext &ctx, std::vector<Finding> &out) {
  Groups groups(ctx);
  std::map<const Site *, std::string> kinds;
  for (const Site &s : ctx.sites)
    if (std::string k = fullPrecisionKind(ctx, s); !k.empty()) {
      groups.add(s);
      kinds[&s] = std::move(k);
    }
  Finding f = ctx.make("full-precision-math");
  std::vector<const Site *> affected;
  uint64_t calls = 0;
  groups.forEach([&](const LineGroup &g) {
    if (!significant(ctx, g.executions))
      return;
    const Site &first = *g.sites.front();
    calls += first.executions;
    // Everything on the line belongs to the sequence: what the intrinsic would replace.
    auto [file, line] = ctx.sourceOf(first);
    uint64_t lineInstructions = 0;
    for (const Site &s : ctx.sites)
      if (!file.empty() && ctx.sourceOf(s) == std::pair{file, line}) {
        affected.push_back(&s);
        lineInstructions += s.executions;
      }
    f.lines.push_back(
        ctx.ref(first,
                ctx.launch ? fmt::format("{}; the line executes {} warp instructions", kinds[&first], lineInstructions)
                           : kinds[&first],
                d(std::max(lineInstructions, first.executions))));
  });
  if (f.lines.empty())
    return;
  f.title = "Full-precision math where an intrinsic may do";
  f.evidence = fmt::format("{} line{} use the IEEE-accurate library sequences, many instructions each, where the "
                           "hardware intrinsics take one or two special-function instructions.",
                           f.lines.size(), f.lines.size() == 1 ? "" : "s");
  f.fix = ctx.words.opencl()
              ? "Where speed matters more than the last bits, use the native_ functions, one or two special-function "
                "instructions each: native_divide(x, y), native_sin/native_cos (absolute error 2^-21.41 in [-pi, "
                "pi], growing outside), native_exp, native_log, native_powr; or build with -cl-fast-relaxed-math "
                "([BPG] 5.1.4)."
              : "Where speed matters more than the last bits, use the intrinsics: __fdividef(x, y) (2 ulp for y in "
                "[2^-126, 2^126]), __sinf/__cosf (absolute error 2^-21.41 in [-pi, pi], growing outside), __expf, "
                "__logf, __powf; or compile with -use_fast_math ([BPG] 5.1.4, 'native_' functions in OpenCL).";
  // What if each line's sequence were one special-function and one fp32 instruction.
  auto removed = classCounts(affected);
  ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) {
    for (int c = 0; c < model::kInstructionClasses; ++c)
      in.warpInstructionsByClass[c] -= std::min(in.warpInstructionsByClass[c], removed[c]);
    in.warpInstructionsByClass[static_cast<int>(InstructionClass::Special)] += calls;
    in.warpInstructionsByClass[static_cast<int>(InstructionClass::Fp32)] += calls;
  }));
  ctx.trim(f.lines);
  out.push_back(std::move(f));
}

// ---- mul24 ------------------------------------------------------------------------------------

void mul24(const RuleContext &ctx, std::vector<Finding> &out) {
  // Results per clock per SM, priced as the time model prices them (emulated entries included).
  const double r32 = model::warpInstructionsPerClock(ctx.cc, InstructionClass::Int32Multiply) * ctx.cc.warpSize;
  const double r24 = model::warpInstructionsPerClock(ctx.cc, InstructionClass::Int24Multiply) * ctx.cc.warpSize;
  if (r32 <= 0 || r24 <= 0 || r32 == r24)
    return;
  const bool prefer24 = r24 > r32;
  Groups groups(ctx);
  for (const Site &s : ctx.sites) {
    const ptx::Instruction &inst = s.instruction();
    const bool is24 = inst.opcode == ptx::Opcode::mul24 || inst.opcode == ptx::Opcode::mad24;
    const bool is32 = (inst.opcode == ptx::Opcode::mul || inst.opcode == ptx::Opcode::mad) && inst.has(ptx::Mod::lo) &&
                      isIntegerType(inst.type()) && ptx::typeInfo(inst.type()).bits == 32;
    // A multiply by a constant is the compiler's to lower (shifts and adds); only products of two
    // run-time values are the programmer's choice.
    auto ops = s.function->operandsOf(inst);
    const bool twoRegisters =
        ops.size() >= 3 && ops[1].kind == ptx::OperandKind::Register && ops[2].kind == ptx::OperandKind::Register;
    if ((prefer24 ? is32 : is24) && twoRegisters)
      groups.add(s);
  }
  Finding f = ctx.make("mul24");
  uint64_t executions = 0;
  groups.forEach([&](const LineGroup &g) {
    if (!significant(ctx, g.executions))
      return;
    executions += g.executions;
    f.lines.push_back(ctx.ref(*g.sites.front(),
                              fmt::format("{}-bit integer multiply, {}", prefer24 ? 32 : 24, times(ctx, g.executions)),
                              d(g.executions)));
  });
  if (f.lines.empty())
    return;
  if (prefer24) {
    f.title = fmt::format("32-bit integer multiplies where {} is {:.0f} times faster", ctx.words.mul24, r24 / r32);
    f.evidence = fmt::format("On {} a 32-bit integer multiply runs at {:.1f} results per clock per SM and "
                             "__[u]mul24 at {:.1f}.",
                             ctx.input.target.displayName(), r32, r24);
    f.fix = fmt::format("Where both factors fit in 24 bits (thread and block indices, sizes below 16M), use {}; "
                        "keep a 32-bit version for later GPUs, where mul24 is the slow one ([BPG] 5.1).",
                        ctx.words.opencl() ? "mul24 (mad24)" : "__mul24/__umul24");
  } else {
    f.title = fmt::format("{} where 32-bit integer multiply is faster", ctx.words.mul24);
    f.evidence = fmt::format("On {} __[u]mul24 runs at {:.1f} results per clock per SM and a 32-bit multiply at "
                             "{:.1f}: the 1.x advice is reversed here.",
                             ctx.input.target.displayName(), r24, r32);
    f.fix =
        "Use plain 32-bit multiplication on this GPU (select the kernel variant by compute capability) ([BPG] 5.1).";
  }
  ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) {
    if (prefer24)
      moveClass(in, InstructionClass::Int32Multiply, InstructionClass::Int24Multiply, executions);
    else
      moveClass(in, InstructionClass::Int24Multiply, InstructionClass::Int32Multiply, executions);
  }));
  ctx.trim(f.lines);
  out.push_back(std::move(f));
}

// ---- fp64-heavy -------------------------------------------------------------------------------

void fp64Heavy(const RuleContext &ctx, std::vector<Finding> &out) {
  const int fp64Rate =
      ctx.input.target.gpu ? ctx.input.target.gpu->fp64ResultsPerClock() : ctx.cc.throughput.fp64AddMulFma;
  const int fp32Rate = ctx.cc.throughput.fp32AddMulFma;
  // Slow fp64: at most 1/8 of fp32 (GK104, GK208, GK20A: 1/24; consumer Maxwell and later: 1/32 or 1/64).
  if (fp64Rate <= 0 || fp32Rate <= 0 || fp64Rate * 8 > fp32Rate)
    return;
  Groups groups(ctx);
  uint64_t fp64 = 0, all = 0;
  for (const Site &s : ctx.sites) {
    const ptx::Instruction &inst = s.instruction();
    all += s.executions;
    if (model::classify(inst) == InstructionClass::Fp64) {
      fp64 += s.executions;
      groups.add(s);
    }
  }
  if (!all || d(fp64) < ctx.t.fp64Share * d(all))
    return;
  Finding f = ctx.make("fp64-heavy");
  groups.forEach([&](const LineGroup &g) {
    if (significant(ctx, g.executions))
      f.lines.push_back(
          ctx.ref(*g.sites.front(), fmt::format("fp64 arithmetic, {}", times(ctx, g.executions)), d(g.executions)));
  });
  f.title = fmt::format("{} of the instructions are double precision, which runs at 1/{} of fp32 here",
                        percent(d(fp64) / d(all)), fp32Rate / fp64Rate);
  f.evidence = fmt::format("{} does {} fp64 results per clock per SM against {} fp32.", ctx.input.target.displayName(),
                           fp64Rate, fp32Rate);
  f.fix = "Use single precision where the accuracy allows (accumulate in double only where it matters), or run on a "
          "GPU with full-rate double precision (GK110/GK210: 1/3 of fp32) ([Kepler] 1.4.5.1).";
  ctx.setGain(
      f, ctx.gain([&](model::TimeInputs &in) { moveClass(in, InstructionClass::Fp64, InstructionClass::Fp32, fp64); }));
  ctx.trim(f.lines);
  out.push_back(std::move(f));
}

} // namespace

void instructionRules(const RuleContext &ctx, std::vector<Finding> &out) {
  if (!ctx.input.module)
    return;
  fp64InFp32(ctx, out);
  intDivMod(ctx, out);
  rsqrt(ctx, out);
  unfusedMultiplyAdd(ctx, out);
  fullPrecisionMath(ctx, out);
  mul24(ctx, out);
  fp64Heavy(ctx, out);
}

} // namespace ptxray::advisor
