// Floating-point arithmetic: add sub mul fma mad div abs neg min max rcp sqrt rsqrt sin cos lg2 ex2 tanh
// copysign testp on .f32 and .f64 (every rounding modifier, .ftz, .sat, .approx/.full, .NaN,
// .xorsign.abs), and the half-precision forms on .f16 .f16x2 .bf16 .bf16x2 (add sub mul fma neg abs min
// max ex2 tanh, with .ftz .sat .relu). The values come from the exact scalar semantics in
// vm/semantics; every handler is instantiated for its exact type and modifiers, so the common .rn
// f32/f64 forms reduce to one host operation plus NaN canonicalization in a plain lane loop.
//
// Legacy defaults (PTX ISA): without a modifier, div/rcp/sqrt/rsqrt/sin/cos/lg2/ex2 .f32 mean the
// .approx.ftz forms, div/rcp/sqrt .f64 the .rn forms and rsqrt.f64 .approx; mad.f32 without a
// rounding modifier is the sm_1x form, which a device of sm_20 or later runs as fma.rn.ftz.f32 (ISA,
// mad notes), and for later targets ptxas defaults it to mad.rn.f32 (ISA errata). For .target sm_1x
// every f32 arithmetic instruction flushes subnormals (ISA "Subnormal numbers: sm_1x").
#include "vm/ops/Families.h"

#include "vm/Exec.h"
#include "vm/semantics/FloatOps.h"
#include "vm/semantics/Half.h"

#include <bit>
#include <type_traits>

namespace ptxray::vm::ops {

using ptx::Mod;
using sem::HalfKind;
using sem::Rounding;

namespace {

inline float f32(uint64_t v) {
  return std::bit_cast<float>(static_cast<uint32_t>(v));
}
inline double f64(uint64_t v) {
  return std::bit_cast<double>(v);
}
inline uint64_t bits(float x) {
  return std::bit_cast<uint32_t>(x);
}
inline uint64_t bits(double x) {
  return std::bit_cast<uint64_t>(x);
}

/// Runs Op::apply over the exec lanes with Op::arity sources.
template <class Op> void execOp(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *a = ctx.in(op.s[0]);
  uint64_t *d = ctx.out(op.d[0]);
  if constexpr (Op::arity == 1) {
    forLanes(ctx.exec, [&](int lane) { d[lane] = Op::apply(a[lane]); });
  } else if constexpr (Op::arity == 2) {
    const uint64_t *b = ctx.in(op.s[1]);
    forLanes(ctx.exec, [&](int lane) { d[lane] = Op::apply(a[lane], b[lane]); });
  } else {
    const uint64_t *b = ctx.in(op.s[1]);
    const uint64_t *c = ctx.in(op.s[2]);
    forLanes(ctx.exec, [&](int lane) { d[lane] = Op::apply(a[lane], b[lane], c[lane]); });
  }
}

// Compile-time dispatch of decode-time choices: f(std::integral_constant<...>) for the value.
template <class F> ExecFn withBool(bool v, F &&f) {
  return v ? f(std::true_type{}) : f(std::false_type{});
}
template <class F> ExecFn withRounding(Rounding r, F &&f) {
  switch (r) {
  case Rounding::Rn: return f(std::integral_constant<Rounding, Rounding::Rn>{});
  case Rounding::Rz: return f(std::integral_constant<Rounding, Rounding::Rz>{});
  case Rounding::Rm: return f(std::integral_constant<Rounding, Rounding::Rm>{});
  case Rounding::Rp: return f(std::integral_constant<Rounding, Rounding::Rp>{});
  default: return nullptr;
  }
}
#define PTXRAY_V(x) std::remove_cvref_t<decltype(x)>::value

// ---------------------------------------------------------------------------------------------
// f32 / f64

enum class Arith : uint8_t { Add, Sub, Mul };

template <Arith A, Rounding R, bool Ftz, bool Sat> struct ArithF32 {
  static constexpr int arity = 2;
  static uint64_t apply(uint64_t a, uint64_t b) {
    if constexpr (A == Arith::Add)
      return bits(sem::add(f32(a), f32(b), R, Ftz, Sat));
    else if constexpr (A == Arith::Sub)
      return bits(sem::sub(f32(a), f32(b), R, Ftz, Sat));
    else
      return bits(sem::mul(f32(a), f32(b), R, Ftz, Sat));
  }
};
// Aliases the f32 picker takes as template template arguments.
template <Rounding R, bool F, bool S> using ArithF32Add = ArithF32<Arith::Add, R, F, S>;
template <Rounding R, bool F, bool S> using ArithF32Sub = ArithF32<Arith::Sub, R, F, S>;
template <Rounding R, bool F, bool S> using ArithF32Mul = ArithF32<Arith::Mul, R, F, S>;

template <Arith A, Rounding R> struct ArithF64 {
  static constexpr int arity = 2;
  static uint64_t apply(uint64_t a, uint64_t b) {
    if constexpr (A == Arith::Add)
      return bits(sem::add(f64(a), f64(b), R));
    else if constexpr (A == Arith::Sub)
      return bits(sem::sub(f64(a), f64(b), R));
    else
      return bits(sem::mul(f64(a), f64(b), R));
  }
};
template <Rounding R, bool Ftz, bool Sat> struct FmaF32 {
  static constexpr int arity = 3;
  static uint64_t apply(uint64_t a, uint64_t b, uint64_t c) {
    return bits(sem::fma(f32(a), f32(b), f32(c), R, Ftz, Sat));
  }
};
// fma.rn.f32, the inner loop of most float kernels: std::fma compiles to one instruction only where
// the target has FMA, which the portable x86-64 baseline does not promise; elsewhere it is a libm
// call per lane. So the lane loop is built twice and the loader picks the FMA build where the CPU
// has it (GCC/clang function multiversioning); the result is sem::fma's: the correctly rounded fma, NaNs canonical.
// (Not under AddressSanitizer: the loader would call the version picker before the sanitizer's
// runtime is up.)
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PTXRAY_ASAN 1
#endif
#endif
#if defined(__x86_64__) && defined(__ELF__) && !defined(__SANITIZE_ADDRESS__) && !defined(PTXRAY_ASAN)
__attribute__((target_clones("fma", "default")))
#endif
void fmaRnF32Lanes(uint32_t mask, const uint64_t *a, const uint64_t *b, const uint64_t *c, uint64_t *d) {
  forLanes(mask,
           [&](int lane) { d[lane] = bits(sem::canonicalizeNaN(std::fma(f32(a[lane]), f32(b[lane]), f32(c[lane])))); });
}

template <> void execOp<FmaF32<Rounding::Rn, false, false>>(ExecContext &ctx, const MicroOp &op) {
  fmaRnF32Lanes(ctx.exec, ctx.in(op.s[0]), ctx.in(op.s[1]), ctx.in(op.s[2]), ctx.out(op.d[0]));
}

template <Rounding R> struct FmaF64 {
  static constexpr int arity = 3;
  static uint64_t apply(uint64_t a, uint64_t b, uint64_t c) { return bits(sem::fma(f64(a), f64(b), f64(c), R)); }
};
template <Rounding R, bool Ftz> struct DivF32 {
  static constexpr int arity = 2;
  static uint64_t apply(uint64_t a, uint64_t b) { return bits(sem::div(f32(a), f32(b), R, Ftz)); }
};
template <Rounding R> struct DivF64 {
  static constexpr int arity = 2;
  static uint64_t apply(uint64_t a, uint64_t b) { return bits(sem::div(f64(a), f64(b), R)); }
};
struct DivApproxF32 {
  static constexpr int arity = 2;
  static uint64_t apply(uint64_t a, uint64_t b) { return bits(sem::divApprox(f32(a), f32(b))); }
};
struct DivFullF32 {
  static constexpr int arity = 2;
  static uint64_t apply(uint64_t a, uint64_t b) { return bits(sem::divFull(f32(a), f32(b))); }
};

enum class Un : uint8_t {
  Rcp,
  Sqrt,
  RcpApprox,
  SqrtApprox,
  RsqrtApprox,
  Sin,
  Cos,
  Lg2,
  Ex2,
  Tanh,
  Abs,
  Neg,
  RcpApproxFtz64,
  RsqrtApproxFtz64
};

template <Un U, Rounding R, bool Ftz> struct UnaryF32 {
  static constexpr int arity = 1;
  static uint64_t apply(uint64_t v) {
    const float a = f32(v);
    if constexpr (U == Un::Rcp)
      return bits(sem::rcp(a, R, Ftz));
    else if constexpr (U == Un::Sqrt)
      return bits(sem::sqrt(a, R, Ftz));
    else if constexpr (U == Un::RcpApprox)
      return bits(sem::rcpApprox(a, Ftz));
    else if constexpr (U == Un::SqrtApprox)
      return bits(sem::sqrtApprox(a, Ftz));
    else if constexpr (U == Un::RsqrtApprox)
      return bits(sem::rsqrtApprox(a, Ftz));
    else if constexpr (U == Un::Sin)
      return bits(sem::sinApprox(a, Ftz));
    else if constexpr (U == Un::Cos)
      return bits(sem::cosApprox(a, Ftz));
    else if constexpr (U == Un::Lg2)
      return bits(sem::lg2Approx(a, Ftz));
    else if constexpr (U == Un::Ex2)
      return bits(sem::ex2Approx(a, Ftz));
    else if constexpr (U == Un::Tanh)
      return bits(sem::tanhApprox(a));
    else if constexpr (U == Un::Abs)
      return bits(sem::abs(a, Ftz));
    else
      return bits(sem::neg(a, Ftz));
  }
};
template <Un U, Rounding R> struct UnaryF64 {
  static constexpr int arity = 1;
  static uint64_t apply(uint64_t v) {
    const double a = f64(v);
    if constexpr (U == Un::Rcp)
      return bits(sem::rcp(a, R));
    else if constexpr (U == Un::Sqrt)
      return bits(sem::sqrt(a, R));
    else if constexpr (U == Un::RsqrtApprox)
      return bits(sem::rsqrtApprox(a));
    else if constexpr (U == Un::RcpApproxFtz64)
      return bits(sem::rcpApproxFtz(a));
    else if constexpr (U == Un::RsqrtApproxFtz64)
      return bits(sem::rsqrtApproxFtz(a));
    else if constexpr (U == Un::Abs)
      return bits(sem::abs(a));
    else
      return bits(sem::neg(a));
  }
};

template <bool IsMax, bool Ftz, bool NaN, bool XorsignAbs> struct MinMaxF32 {
  static constexpr int arity = 2;
  static uint64_t apply(uint64_t a, uint64_t b) {
    if constexpr (IsMax)
      return bits(sem::max(f32(a), f32(b), Ftz, NaN, XorsignAbs));
    else
      return bits(sem::min(f32(a), f32(b), Ftz, NaN, XorsignAbs));
  }
};
template <bool IsMax> struct MinMaxF64 {
  static constexpr int arity = 2;
  static uint64_t apply(uint64_t a, uint64_t b) {
    return IsMax ? bits(sem::max(f64(a), f64(b))) : bits(sem::min(f64(a), f64(b)));
  }
};
template <class T> struct CopySign {
  static constexpr int arity = 2;
  static uint64_t apply(uint64_t a, uint64_t b) {
    if constexpr (std::is_same_v<T, float>)
      return bits(sem::copysign(f32(a), f32(b)));
    else
      return bits(sem::copysign(f64(a), f64(b)));
  }
};

/// testp.op.type p, a: a predicate mask over the exec lanes.
template <class T, sem::TestOp Test> void execTestp(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *a = ctx.in(op.s[0]);
  uint32_t m = 0;
  forLanes(ctx.exec, [&](int lane) { m |= static_cast<uint32_t>(sem::testp(Test, bitsAs<T>(a[lane]))) << lane; });
  uint32_t &p = ctx.pred(op.d[0]);
  p = (p & ~ctx.exec) | (m & ctx.exec);
}

template <class T> ExecFn pickTestp(const ptx::Instruction &inst) {
  if (inst.has(Mod::finite))
    return &execTestp<T, sem::TestOp::Finite>;
  if (inst.has(Mod::infinite))
    return &execTestp<T, sem::TestOp::Infinite>;
  if (inst.has(Mod::number))
    return &execTestp<T, sem::TestOp::Number>;
  if (inst.has(Mod::notanumber))
    return &execTestp<T, sem::TestOp::NotANumber>;
  if (inst.has(Mod::normal))
    return &execTestp<T, sem::TestOp::Normal>;
  if (inst.has(Mod::subnormal))
    return &execTestp<T, sem::TestOp::Subnormal>;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Halves: scalar in the low 16 bits, x2 packed in the low 32 (element 0 in bits 15:0).

template <HalfKind K, bool X2, Arith A, bool Ftz, bool Sat> struct ArithH {
  static constexpr int arity = 2;
  static uint64_t apply(uint64_t a, uint64_t b) {
    constexpr sem::HalfMods m{Ftz, Sat, false, Rounding::Rn};
    if constexpr (X2) {
      const auto x = static_cast<uint32_t>(a), y = static_cast<uint32_t>(b);
      return A == Arith::Add ? sem::add2<K>(x, y, m) : A == Arith::Sub ? sem::sub2<K>(x, y, m) : sem::mul2<K>(x, y, m);
    } else {
      const auto x = static_cast<uint16_t>(a), y = static_cast<uint16_t>(b);
      return A == Arith::Add ? sem::add<K>(x, y, m) : A == Arith::Sub ? sem::sub<K>(x, y, m) : sem::mul<K>(x, y, m);
    }
  }
};
template <HalfKind K, bool X2, bool Ftz, bool Sat, bool Relu> struct FmaH {
  static constexpr int arity = 3;
  static uint64_t apply(uint64_t a, uint64_t b, uint64_t c) {
    constexpr sem::HalfMods m{Ftz, Sat, Relu, Rounding::Rn};
    if constexpr (X2)
      return sem::fma2<K>(static_cast<uint32_t>(a), static_cast<uint32_t>(b), static_cast<uint32_t>(c), m);
    else
      return sem::fma<K>(static_cast<uint16_t>(a), static_cast<uint16_t>(b), static_cast<uint16_t>(c), m);
  }
};
template <HalfKind K, bool X2, Un U, bool Ftz> struct UnaryH {
  static constexpr int arity = 1;
  static uint16_t one(uint16_t x) {
    if constexpr (U == Un::Abs)
      return sem::abs<K>(x, Ftz);
    else if constexpr (U == Un::Neg)
      return sem::neg<K>(x, Ftz);
    else if constexpr (U == Un::Ex2)
      return sem::ex2Approx<K>(x, Ftz);
    else
      return sem::tanhApprox<K>(x);
  }
  static uint64_t apply(uint64_t a) {
    if constexpr (X2)
      return sem::lanes2(static_cast<uint32_t>(a), [](uint16_t x) { return one(x); });
    else
      return one(static_cast<uint16_t>(a));
  }
};
template <HalfKind K, bool X2, bool IsMax, bool Ftz, bool NaN, bool XorsignAbs> struct MinMaxH {
  static constexpr int arity = 2;
  static uint64_t apply(uint64_t a, uint64_t b) {
    if constexpr (X2) {
      const auto x = static_cast<uint32_t>(a), y = static_cast<uint32_t>(b);
      return IsMax ? sem::max2<K>(x, y, Ftz, NaN, XorsignAbs) : sem::min2<K>(x, y, Ftz, NaN, XorsignAbs);
    } else {
      const auto x = static_cast<uint16_t>(a), y = static_cast<uint16_t>(b);
      return IsMax ? sem::max<K>(x, y, Ftz, NaN, XorsignAbs) : sem::min<K>(x, y, Ftz, NaN, XorsignAbs);
    }
  }
};

// ---------------------------------------------------------------------------------------------
// Decoding

/// The rounding modifier of an arithmetic instruction (.rn when absent); Rna marks an illegal one.
Rounding arithRounding(Mod m) {
  switch (m) {
  case Mod::None:
  case Mod::rn: return Rounding::Rn;
  case Mod::rz: return Rounding::Rz;
  case Mod::rm: return Rounding::Rm;
  case Mod::rp: return Rounding::Rp;
  default: return Rounding::Rna;
  }
}

struct Mods {
  Rounding rnd = Rounding::Rn;
  bool hasRnd = false, ftz = false, sat = false, approx = false, full = false, nan = false, xorsignAbs = false,
       relu = false;
};

ExecFn decodeF32(const ptx::Instruction &inst, const Mods &m, bool legacy) {
  const bool ftz = m.ftz || legacy;
  auto rfs = [&]<template <Rounding, bool, bool> class Op>() -> ExecFn {
    return withRounding(m.rnd, [&](auto r) {
      return withBool(ftz, [&](auto f) {
        return withBool(m.sat, [&](auto s) -> ExecFn { return &execOp<Op<PTXRAY_V(r), PTXRAY_V(f), PTXRAY_V(s)>>; });
      });
    });
  };
  auto unary = [&]<Un U>(Rounding rnd, bool flush) -> ExecFn {
    return withRounding(rnd, [&](auto r) {
      return withBool(flush, [&](auto f) -> ExecFn { return &execOp<UnaryF32<U, PTXRAY_V(r), PTXRAY_V(f)>>; });
    });
  };
  // .approx forms; without .approx and without a rounding, the legacy default .approx.ftz.
  auto approx = [&]<Un U>() -> ExecFn {
    if (!m.approx && m.hasRnd)
      return nullptr;
    return unary.template operator()<U>(Rounding::Rn, ftz || !m.approx);
  };
  switch (inst.opcode) {
  case ptx::Opcode::add: return rfs.template operator()<ArithF32Add>();
  case ptx::Opcode::sub: return rfs.template operator()<ArithF32Sub>();
  case ptx::Opcode::mul: return rfs.template operator()<ArithF32Mul>();
  case ptx::Opcode::fma:
    if (!m.hasRnd)
      return nullptr; // fma.f32 requires a rounding modifier
    return rfs.template operator()<FmaF32>();
  case ptx::Opcode::mad:
    if (!m.hasRnd && legacy)
      return withBool(m.sat, [&](auto s) -> ExecFn { return &execOp<FmaF32<Rounding::Rn, true, PTXRAY_V(s)>>; });
    return rfs.template operator()<FmaF32>();
  case ptx::Opcode::div:
    if (m.approx)
      return &execOp<DivApproxF32>;
    if (m.full)
      return &execOp<DivFullF32>;
    if (!m.hasRnd)
      return &execOp<DivApproxF32>; // legacy div.f32 = div.approx.ftz.f32
    return withRounding(m.rnd, [&](auto r) {
      return withBool(ftz, [&](auto f) -> ExecFn { return &execOp<DivF32<PTXRAY_V(r), PTXRAY_V(f)>>; });
    });
  case ptx::Opcode::rcp:
    if (m.approx || !m.hasRnd)
      return approx.template operator()<Un::RcpApprox>();
    return unary.template operator()<Un::Rcp>(m.rnd, ftz);
  case ptx::Opcode::sqrt:
    if (m.approx || !m.hasRnd)
      return approx.template operator()<Un::SqrtApprox>();
    return unary.template operator()<Un::Sqrt>(m.rnd, ftz);
  case ptx::Opcode::rsqrt: return approx.template operator()<Un::RsqrtApprox>();
  case ptx::Opcode::sin: return approx.template operator()<Un::Sin>();
  case ptx::Opcode::cos: return approx.template operator()<Un::Cos>();
  case ptx::Opcode::lg2: return approx.template operator()<Un::Lg2>();
  case ptx::Opcode::ex2: return approx.template operator()<Un::Ex2>();
  case ptx::Opcode::tanh: return m.approx ? &execOp<UnaryF32<Un::Tanh, Rounding::Rn, false>> : nullptr;
  case ptx::Opcode::abs: return unary.template operator()<Un::Abs>(Rounding::Rn, ftz);
  case ptx::Opcode::neg: return unary.template operator()<Un::Neg>(Rounding::Rn, ftz);
  case ptx::Opcode::min:
  case ptx::Opcode::max: {
    const bool isMax = inst.opcode == ptx::Opcode::max;
    return withBool(isMax, [&](auto mx) {
      return withBool(ftz, [&](auto f) {
        return withBool(m.nan, [&](auto n) {
          return withBool(m.xorsignAbs, [&](auto x) -> ExecFn {
            return &execOp<MinMaxF32<PTXRAY_V(mx), PTXRAY_V(f), PTXRAY_V(n), PTXRAY_V(x)>>;
          });
        });
      });
    });
  }
  case ptx::Opcode::copysign: return &execOp<CopySign<float>>;
  default: return nullptr;
  }
}

ExecFn decodeF64(const ptx::Instruction &inst, const Mods &m) {
  auto unary = [&]<Un U>(Rounding rnd) -> ExecFn {
    return withRounding(rnd, [&](auto r) -> ExecFn { return &execOp<UnaryF64<U, PTXRAY_V(r)>>; });
  };
  if (m.sat)
    return nullptr; // .sat is f32-only
  switch (inst.opcode) {
  case ptx::Opcode::add:
    return withRounding(m.rnd, [&](auto r) -> ExecFn { return &execOp<ArithF64<Arith::Add, PTXRAY_V(r)>>; });
  case ptx::Opcode::sub:
    return withRounding(m.rnd, [&](auto r) -> ExecFn { return &execOp<ArithF64<Arith::Sub, PTXRAY_V(r)>>; });
  case ptx::Opcode::mul:
    return withRounding(m.rnd, [&](auto r) -> ExecFn { return &execOp<ArithF64<Arith::Mul, PTXRAY_V(r)>>; });
  case ptx::Opcode::fma:
    if (!m.hasRnd)
      return nullptr;
    [[fallthrough]];
  case ptx::Opcode::mad: // legacy mad.f64 without rounding = mad.rn.f64
    return withRounding(m.rnd, [&](auto r) -> ExecFn { return &execOp<FmaF64<PTXRAY_V(r)>>; });
  case ptx::Opcode::div:
    if (m.approx || m.full)
      return nullptr;
    return withRounding(m.rnd, [&](auto r) -> ExecFn { return &execOp<DivF64<PTXRAY_V(r)>>; });
  case ptx::Opcode::rcp:
    if (m.approx)
      return m.ftz ? &execOp<UnaryF64<Un::RcpApproxFtz64, Rounding::Rn>> : nullptr;
    return unary.template operator()<Un::Rcp>(m.rnd);
  case ptx::Opcode::sqrt:
    if (m.approx)
      return nullptr;
    return unary.template operator()<Un::Sqrt>(m.rnd);
  case ptx::Opcode::rsqrt:
    if (m.hasRnd)
      return nullptr;
    return m.ftz ? &execOp<UnaryF64<Un::RsqrtApproxFtz64, Rounding::Rn>>
                 : &execOp<UnaryF64<Un::RsqrtApprox, Rounding::Rn>>;
  case ptx::Opcode::abs: return &execOp<UnaryF64<Un::Abs, Rounding::Rn>>;
  case ptx::Opcode::neg: return &execOp<UnaryF64<Un::Neg, Rounding::Rn>>;
  case ptx::Opcode::min: return &execOp<MinMaxF64<false>>;
  case ptx::Opcode::max: return &execOp<MinMaxF64<true>>;
  case ptx::Opcode::copysign: return &execOp<CopySign<double>>;
  default: return nullptr;
  }
}

template <HalfKind K, bool X2> ExecFn decodeHalf(const ptx::Instruction &inst, const Mods &m) {
  constexpr bool isF16 = K == HalfKind::F16;
  if (m.rnd != Rounding::Rn)
    return nullptr; // .rn is the only rounding of half arithmetic
  if (!isF16 && (m.ftz || m.sat) && inst.opcode != ptx::Opcode::ex2)
    return nullptr; // bf16 forms have neither .ftz nor .sat
  auto arith = [&]<Arith A>() -> ExecFn {
    return withBool(m.ftz, [&](auto f) {
      return withBool(m.sat, [&](auto s) -> ExecFn {
        if constexpr (!isF16 && (PTXRAY_V(f) || PTXRAY_V(s)))
          return nullptr;
        else
          return &execOp<ArithH<K, X2, A, PTXRAY_V(f), PTXRAY_V(s)>>;
      });
    });
  };
  auto unary = [&]<Un U>(bool flush) -> ExecFn {
    return withBool(flush, [&](auto f) -> ExecFn { return &execOp<UnaryH<K, X2, U, PTXRAY_V(f)>>; });
  };
  switch (inst.opcode) {
  case ptx::Opcode::add: return arith.template operator()<Arith::Add>();
  case ptx::Opcode::sub: return arith.template operator()<Arith::Sub>();
  case ptx::Opcode::mul: return arith.template operator()<Arith::Mul>();
  case ptx::Opcode::fma:
    if (!m.hasRnd || (m.sat && m.relu))
      return nullptr;
    return withBool(m.ftz, [&](auto f) {
      return withBool(m.sat, [&](auto s) {
        return withBool(m.relu, [&](auto r) -> ExecFn {
          if constexpr (!isF16 && (PTXRAY_V(f) || PTXRAY_V(s)))
            return nullptr;
          else if constexpr (PTXRAY_V(s) && PTXRAY_V(r))
            return nullptr;
          else
            return &execOp<FmaH<K, X2, PTXRAY_V(f), PTXRAY_V(s), PTXRAY_V(r)>>;
        });
      });
    });
  case ptx::Opcode::abs: return unary.template operator()<Un::Abs>(m.ftz);
  case ptx::Opcode::neg: return unary.template operator()<Un::Neg>(m.ftz);
  case ptx::Opcode::ex2: return m.approx ? unary.template operator()<Un::Ex2>(m.ftz) : nullptr;
  case ptx::Opcode::tanh: return m.approx && !m.ftz ? unary.template operator()<Un::Tanh>(false) : nullptr;
  case ptx::Opcode::min:
  case ptx::Opcode::max: {
    const bool isMax = inst.opcode == ptx::Opcode::max;
    return withBool(isMax, [&](auto mx) {
      return withBool(m.ftz, [&](auto f) {
        return withBool(m.nan, [&](auto n) {
          return withBool(m.xorsignAbs, [&](auto x) -> ExecFn {
            if constexpr (!isF16 && PTXRAY_V(f))
              return nullptr;
            else
              return &execOp<MinMaxH<K, X2, PTXRAY_V(mx), PTXRAY_V(f), PTXRAY_V(n), PTXRAY_V(x)>>;
          });
        });
      });
    });
  }
  default: return nullptr;
  }
}

/// A source operand; float literals of half instructions become the half's bits (.rn).
uint32_t halfSource(DecodeContext &ctx, const ptx::Operand &o, Mod type) {
  if (type != Mod::f16 && type != Mod::bf16)
    return ctx.src(o, type);
  const bool bf = type == Mod::bf16;
  if (o.kind == ptx::OperandKind::Float32) {
    const float v = std::bit_cast<float>(static_cast<uint32_t>(o.value));
    return ctx.constant(bf ? sem::fromF32<HalfKind::BF16>(v) : sem::fromF32<HalfKind::F16>(v));
  }
  if (o.kind == ptx::OperandKind::Float64) {
    const double v = std::bit_cast<double>(static_cast<uint64_t>(o.value));
    return ctx.constant(bf ? sem::fromF64<HalfKind::BF16>(v) : sem::fromF64<HalfKind::F16>(v));
  }
  return ctx.src(o, type);
}

} // namespace

void decodeFloatArithmetic(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  if (operands.size() < 2)
    return;
  const Mod type = inst.type();

  if (inst.opcode == ptx::Opcode::testp) {
    op.d[0] = ctx.predSlot(operands[0]);
    op.s[0] = ctx.src(operands[1], type);
    if (op.d[0] == kNoSlot)
      return;
    op.exec = type == Mod::f32 ? pickTestp<float>(inst) : type == Mod::f64 ? pickTestp<double>(inst) : nullptr;
    return;
  }

  op.d[0] = ctx.dst(operands[0]);
  for (size_t i = 1; i < operands.size() && i <= 3; ++i)
    op.s[i - 1] = halfSource(ctx, operands[i], type);

  Mods m;
  m.rnd = arithRounding(inst.rounding);
  m.hasRnd = inst.rounding != Mod::None;
  m.ftz = inst.ftz;
  m.sat = inst.sat;
  m.approx = inst.has(Mod::approx);
  m.full = inst.has(Mod::full);
  m.nan = inst.has(Mod::NaN);
  m.xorsignAbs = inst.has(Mod::xorsign) && inst.has(Mod::abs);
  m.relu = inst.has(Mod::relu);
  if (m.rnd == Rounding::Rna)
    return; // an integer rounding or .rna on arithmetic
  if (inst.has(Mod::xorsign) != inst.has(Mod::abs))
    return; // .xorsign and .abs go together
  if (inst.has(Mod::oob)) {
    ctx.unsupported(op, "fma.oob (out-of-bounds NaN operands of tensor data) is not supported by the VM");
    return;
  }
  const bool legacy = ctx.module.target.sm != 0 && ctx.module.target.sm < 20;

  switch (type) {
  case Mod::f32: op.exec = decodeF32(inst, m, legacy); return;
  case Mod::f64: op.exec = decodeF64(inst, m); return;
  case Mod::f16: op.exec = decodeHalf<HalfKind::F16, false>(inst, m); return;
  case Mod::f16x2: op.exec = decodeHalf<HalfKind::F16, true>(inst, m); return;
  case Mod::bf16: op.exec = decodeHalf<HalfKind::BF16, false>(inst, m); return;
  case Mod::bf16x2: op.exec = decodeHalf<HalfKind::BF16, true>(inst, m); return;
  default: return;
  }
}

} // namespace ptxray::vm::ops
