// cvt between {u8..u64, s8..s64, f16, bf16, f32, f64} (and to .tf32), the packing forms
// cvt.frnd{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b, and cvt.pack.sat. Values come from the exact
// scalar semantics (vm/semantics/Convert.h): a source uses the low bits of its register, signed integer
// results are sign-extended, everything else zero-extended.
//
// The plain forms (no .ftz .sat .relu .satfinite) are instantiated per (destination, source, rounding),
// so conversions with host fast paths (int <-> f32/f64, f32 <-> f64, float -> int) fold to a few
// instructions per lane; forms with modifiers are instantiated per (destination, source) and read the
// rounding and modifiers from the micro-op.
//
// Defaults where the ISA requires a modifier that legacy PTX omits: float -> int without a rounding is
// .rzi (C's conversion), int -> float and narrowing float -> float .rn. For .target sm_1x, f32 inputs
// and results are flushed (ISA "Subnormal numbers: sm_1x").
#include "vm/ops/Families.h"

#include "vm/Exec.h"
#include "vm/semantics/Convert.h"

#include <optional>
#include <type_traits>

namespace ptxray::vm::ops {

using ptx::Mod;
using sem::Rounding;
using sem::ScalarType;

namespace {

// flags bits of the modifier path
constexpr uint8_t kFtz = 1, kSat = 2, kRelu = 4, kSatfinite = 8;

template <ScalarType D, ScalarType S, Rounding R> void execCvt(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *a = ctx.in(op.s[0]);
  uint64_t *d = ctx.out(op.d[0]);
  forLanes(ctx.exec, [&](int lane) { d[lane] = sem::cvt<D, S>(a[lane], R); });
}

/// Forms with .ftz/.sat/.relu/.satfinite: op.imm is the Rounding, op.flags the modifiers.
template <ScalarType D, ScalarType S> void execCvtMods(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *a = ctx.in(op.s[0]);
  uint64_t *d = ctx.out(op.d[0]);
  const auto r = static_cast<Rounding>(op.imm);
  const bool ftz = op.flags & kFtz, sat = op.flags & kSat, relu = op.flags & kRelu, satfinite = op.flags & kSatfinite;
  forLanes(ctx.exec, [&](int lane) { d[lane] = sem::cvt<D, S>(a[lane], r, ftz, sat, relu, satfinite); });
}

/// cvt.frnd{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b: a to the upper half, b to the lower.
template <sem::HalfKind K, Rounding R, bool Relu, bool Satfinite> void execCvtX2(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *a = ctx.in(op.s[0]);
  const uint64_t *b = ctx.in(op.s[1]);
  uint64_t *d = ctx.out(op.d[0]);
  forLanes(ctx.exec, [&](int lane) {
    d[lane] = sem::fromF32x2<K>(bitsAs<float>(a[lane]), bitsAs<float>(b[lane]), R, Relu, Satfinite);
  });
}

/// cvt.pack.sat.{u16,s16}.s32 d, a, b and cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b, c.
template <int Bits, bool Signed> void execCvtPack(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *a = ctx.in(op.s[0]);
  const uint64_t *b = ctx.in(op.s[1]);
  const uint64_t *c = op.s[2] != kNoSlot ? ctx.in(op.s[2]) : a;
  uint64_t *d = ctx.out(op.d[0]);
  forLanes(ctx.exec, [&](int lane) {
    d[lane] = sem::cvtPackSat(Bits, Signed, static_cast<int32_t>(a[lane]), static_cast<int32_t>(b[lane]),
                              Bits >= 16 ? 0u : static_cast<uint32_t>(c[lane]));
  });
}

std::optional<ScalarType> scalarOf(Mod m) {
  switch (m) {
  case Mod::u8: return ScalarType::U8;
  case Mod::u16: return ScalarType::U16;
  case Mod::u32: return ScalarType::U32;
  case Mod::u64: return ScalarType::U64;
  case Mod::s8: return ScalarType::S8;
  case Mod::s16: return ScalarType::S16;
  case Mod::s32: return ScalarType::S32;
  case Mod::s64: return ScalarType::S64;
  case Mod::f16: return ScalarType::F16;
  case Mod::bf16: return ScalarType::BF16;
  case Mod::tf32: return ScalarType::TF32;
  case Mod::f32: return ScalarType::F32;
  case Mod::f64: return ScalarType::F64;
  default: return std::nullopt;
  }
}

std::optional<Rounding> roundingOf(Mod m) {
  switch (m) {
  case Mod::rn: return Rounding::Rn;
  case Mod::rz: return Rounding::Rz;
  case Mod::rm: return Rounding::Rm;
  case Mod::rp: return Rounding::Rp;
  case Mod::rna: return Rounding::Rna;
  case Mod::rni: return Rounding::Rni;
  case Mod::rzi: return Rounding::Rzi;
  case Mod::rmi: return Rounding::Rmi;
  case Mod::rpi: return Rounding::Rpi;
  default: return std::nullopt;
  }
}

template <ScalarType T> using Tag = std::integral_constant<ScalarType, T>;

template <class F> ExecFn withType(ScalarType t, F &&f) {
  switch (t) {
  case ScalarType::U8: return f(Tag<ScalarType::U8>{});
  case ScalarType::U16: return f(Tag<ScalarType::U16>{});
  case ScalarType::U32: return f(Tag<ScalarType::U32>{});
  case ScalarType::U64: return f(Tag<ScalarType::U64>{});
  case ScalarType::S8: return f(Tag<ScalarType::S8>{});
  case ScalarType::S16: return f(Tag<ScalarType::S16>{});
  case ScalarType::S32: return f(Tag<ScalarType::S32>{});
  case ScalarType::S64: return f(Tag<ScalarType::S64>{});
  case ScalarType::F16: return f(Tag<ScalarType::F16>{});
  case ScalarType::BF16: return f(Tag<ScalarType::BF16>{});
  case ScalarType::TF32: return f(Tag<ScalarType::TF32>{});
  case ScalarType::F32: return f(Tag<ScalarType::F32>{});
  case ScalarType::F64: return f(Tag<ScalarType::F64>{});
  }
  return nullptr;
}

#define PTXRAY_V(x) std::remove_cvref_t<decltype(x)>::value

/// The plain-form handler of (D, S) for rounding r, instantiated only for the roundings the pair's
/// category admits (anything else takes the modifier path, which handles every rounding).
template <ScalarType D, ScalarType S> ExecFn plainCvt(Rounding r) {
  using sem::isFloatType;
  using sem::isIntType;
  if constexpr (S == ScalarType::TF32) {
    return nullptr; // tf32 is a destination format only
  } else if constexpr (isIntType(D) && isIntType(S)) {
    return &execCvt<D, S, Rounding::Rn>;
  } else if constexpr (isIntType(D)) {
    switch (r) {
    case Rounding::Rni: return &execCvt<D, S, Rounding::Rni>;
    case Rounding::Rzi: return &execCvt<D, S, Rounding::Rzi>;
    case Rounding::Rmi: return &execCvt<D, S, Rounding::Rmi>;
    case Rounding::Rpi: return &execCvt<D, S, Rounding::Rpi>;
    default: return nullptr;
    }
  } else {
    switch (r) {
    case Rounding::Rn: return &execCvt<D, S, Rounding::Rn>;
    case Rounding::Rz: return &execCvt<D, S, Rounding::Rz>;
    case Rounding::Rm: return &execCvt<D, S, Rounding::Rm>;
    case Rounding::Rp: return &execCvt<D, S, Rounding::Rp>;
    default: break;
    }
    if constexpr (isFloatType(S) && sem::bitWidth(D) == sem::bitWidth(S) && D != ScalarType::TF32) {
      switch (r) {
      case Rounding::Rni: return &execCvt<D, S, Rounding::Rni>;
      case Rounding::Rzi: return &execCvt<D, S, Rounding::Rzi>;
      case Rounding::Rmi: return &execCvt<D, S, Rounding::Rmi>;
      case Rounding::Rpi: return &execCvt<D, S, Rounding::Rpi>;
      default: break;
      }
    }
    return nullptr;
  }
}

void decodePack(DecodeContext &ctx, MicroOp &op, std::span<const ptx::Operand> operands) {
  const ptx::Instruction &inst = *ctx.inst;
  if (operands.size() < 3 || !inst.sat || inst.type(1) != Mod::s32)
    return;
  const Mod t = inst.type(0);
  op.d[0] = ctx.dst(operands[0]);
  op.s[0] = ctx.src(operands[1], Mod::s32);
  op.s[1] = ctx.src(operands[2], Mod::s32);
  const bool narrow = t != Mod::u16 && t != Mod::s16;
  if (narrow) {
    if (operands.size() < 4)
      return;
    op.s[2] = ctx.src(operands[3], Mod::b32);
  }
  switch (t) {
  case Mod::u16: op.exec = &execCvtPack<16, false>; return;
  case Mod::s16: op.exec = &execCvtPack<16, true>; return;
  case Mod::u8: op.exec = &execCvtPack<8, false>; return;
  case Mod::s8: op.exec = &execCvtPack<8, true>; return;
  case Mod::u4: op.exec = &execCvtPack<4, false>; return;
  case Mod::s4: op.exec = &execCvtPack<4, true>; return;
  case Mod::u2: op.exec = &execCvtPack<2, false>; return;
  case Mod::s2: op.exec = &execCvtPack<2, true>; return;
  default: return;
  }
}

template <sem::HalfKind K> ExecFn pickX2(Rounding r, bool relu, bool satfinite) {
  auto byFlags = [&]<Rounding R>() -> ExecFn {
    if (relu)
      return satfinite ? &execCvtX2<K, R, true, true> : &execCvtX2<K, R, true, false>;
    return satfinite ? &execCvtX2<K, R, false, true> : &execCvtX2<K, R, false, false>;
  };
  switch (r) {
  case Rounding::Rn: return byFlags.template operator()<Rounding::Rn>();
  case Rounding::Rz: return byFlags.template operator()<Rounding::Rz>();
  default: return nullptr; // .frnd2 = {.rn, .rz}
  }
}

} // namespace

void decodeConvert(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  if (operands.size() < 2)
    return;
  if (inst.has(Mod::pack)) {
    decodePack(ctx, op, operands);
    return;
  }
  const Mod dtype = inst.type(0), stype = inst.type(1);
  const bool relu = inst.has(Mod::relu), satfinite = inst.has(Mod::satfinite);
  const std::optional<Rounding> given = roundingOf(inst.rounding);

  // Packing of two f32 values into f16x2/bf16x2.
  if (dtype == Mod::f16x2 || dtype == Mod::bf16x2) {
    if (stype != Mod::f32 || operands.size() < 3 || !given || inst.ftz || inst.sat) {
      if (stype == Mod::e4m3x2 || stype == Mod::e5m2x2)
        ctx.unsupported(op, "cvt from .e4m3x2/.e5m2x2 (fp8) is not supported by the VM");
      return;
    }
    op.d[0] = ctx.dst(operands[0]);
    op.s[0] = ctx.src(operands[1], Mod::f32);
    op.s[1] = ctx.src(operands[2], Mod::f32);
    op.exec = dtype == Mod::f16x2 ? pickX2<sem::HalfKind::F16>(*given, relu, satfinite)
                                  : pickX2<sem::HalfKind::BF16>(*given, relu, satfinite);
    return;
  }
  if (dtype == Mod::e4m3x2 || dtype == Mod::e5m2x2) {
    ctx.unsupported(op, "cvt to .e4m3x2/.e5m2x2 (fp8) is not supported by the VM");
    return;
  }

  const std::optional<ScalarType> d = scalarOf(dtype), s = scalarOf(stype);
  if (!d || !s || *s == ScalarType::TF32)
    return;
  op.d[0] = ctx.dst(operands[0]);
  op.s[0] = ctx.src(operands[1], stype);

  // The rounding: the given one, or the default of the conversion's kind; float -> int reads a
  // plain .rn/.rz/.rm/.rp as the matching integer rounding.
  Rounding r = Rounding::Rn;
  if (sem::isFloatType(*s) && sem::isIntType(*d))
    r = given ? sem::toInteger(*given) : Rounding::Rzi;
  else if (given)
    r = *given;
  if (r == Rounding::Rna && *d != ScalarType::TF32)
    return; // .rna is tf32-only
  if (*d == ScalarType::TF32 && (*s != ScalarType::F32 || !given))
    return;

  const bool legacy = ctx.module.target.sm != 0 && ctx.module.target.sm < 20;
  const bool ftz = inst.ftz || (legacy && (*d == ScalarType::F32 || *s == ScalarType::F32));
  const bool plain = !ftz && !inst.sat && !relu && !satfinite && r != Rounding::Rna;
  if (plain) {
    op.exec = withType(*d, [&](auto dt) {
      return withType(*s, [&](auto st) -> ExecFn { return plainCvt<PTXRAY_V(dt), PTXRAY_V(st)>(r); });
    });
    if (op.exec)
      return;
  }
  op.imm = static_cast<int64_t>(r);
  op.flags = static_cast<uint8_t>((ftz ? kFtz : 0) | (inst.sat ? kSat : 0) | (relu ? kRelu : 0) |
                                  (satfinite ? kSatfinite : 0));
  op.exec = withType(*d, [&](auto dt) {
    return withType(*s, [&](auto st) -> ExecFn {
      if constexpr (PTXRAY_V(st) == ScalarType::TF32)
        return nullptr;
      else
        return &execCvtMods<PTXRAY_V(dt), PTXRAY_V(st)>;
    });
  });
}

} // namespace ptxray::vm::ops
