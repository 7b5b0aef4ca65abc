// atom and red on .global, .shared and generic addresses: the bit operations (.and .or .xor .cas .exch),
// the integer operations (.add .inc .dec .min .max) on 32- and 64-bit types, .cas.b16, float .add on
// .f32/.f64 and .add.noftz on .f16/.f16x2/.bf16/.bf16x2, and the vector forms (.v2/.v4 of .f32 add and of
// the half types' add/min/max).
//
// Atomicity: different CTAs run on different worker threads and share global memory, so every access
// that may reach global memory (.global and generic) is a read-modify-write through std::atomic_ref
// (native fetch-ops where they exist, a compare-exchange loop otherwise). A CTA's shared memory is only
// ever touched by the one worker running the CTA, so .shared accesses are plain loads and stores.
//
// Order within a warp: the lanes of one warp-wide atom/red apply one after another in ascending lane
// order (lane 0 first). This is the VM's deterministic order: with a single worker (or addresses no
// other CTA touches) the final memory contents and the old value each lane gets back are exactly those
// of applying the lanes' operations in that order, e.g. atom.add of 1 by all 32 lanes to one counter
// returns 0, 1, ..., 31 to lanes 0..31. Real hardware picks some order; this is one of the legal ones.
#include "vm/MemoryAccess.h"
#include "vm/ops/Families.h"
#include "vm/semantics/FloatOps.h"
#include "vm/semantics/Half.h"

#include <fmt/format.h>

#include <atomic>
#include <type_traits>

namespace ptxray::vm::ops {

using ptx::Mod;
using ptx::OperandKind;

namespace {

enum class AOp : uint8_t { And, Or, Xor, Cas, Exch, Add, Inc, Dec, Min, Max };

// Element types beyond the C++ arithmetic ones: halves and packed pairs of halves (raw bit patterns).
struct F16 {};
struct BF16 {};
struct F16x2 {};
struct BF16x2 {};

template <class T> struct StorageOf { using type = std::make_unsigned_t<T>; };
template <> struct StorageOf<float> { using type = uint32_t; };
template <> struct StorageOf<double> { using type = uint64_t; };
template <> struct StorageOf<F16> { using type = uint16_t; };
template <> struct StorageOf<BF16> { using type = uint16_t; };
template <> struct StorageOf<F16x2> { using type = uint32_t; };
template <> struct StorageOf<BF16x2> { using type = uint32_t; };
template <class T> using Storage = typename StorageOf<T>::type;

/// Register bits of a memory value: signed integers sign-extended, everything else zero-extended.
template <class T> inline uint64_t toRegister(Storage<T> v) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    return static_cast<uint64_t>(static_cast<int64_t>(static_cast<T>(v)));
  else
    return static_cast<uint64_t>(v);
}

/// The value stored back for `old` combined with the operands (`flush`: f32 add on global memory
/// flushes subnormal inputs and results, as the ISA documents for the current hardware).
template <class T, AOp Op> inline Storage<T> combine(Storage<T> old, Storage<T> b, Storage<T> c, bool flush) {
  using S = Storage<T>;
  if constexpr (Op == AOp::And)
    return static_cast<S>(old & b);
  else if constexpr (Op == AOp::Or)
    return static_cast<S>(old | b);
  else if constexpr (Op == AOp::Xor)
    return static_cast<S>(old ^ b);
  else if constexpr (Op == AOp::Cas)
    return old == b ? c : old;
  else if constexpr (Op == AOp::Exch)
    return b;
  else if constexpr (Op == AOp::Add) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<S>(old + b); // unsigned storage: wraps
    else if constexpr (std::is_same_v<T, float>)
      return sem::bitsOf(sem::add(sem::f32FromBits(old), sem::f32FromBits(b), sem::Rounding::Rn, flush));
    else if constexpr (std::is_same_v<T, double>)
      return sem::bitsOf(sem::add(sem::f64FromBits(old), sem::f64FromBits(b)));
    else if constexpr (std::is_same_v<T, F16>)
      return sem::add<sem::HalfKind::F16>(old, b);
    else if constexpr (std::is_same_v<T, BF16>)
      return sem::add<sem::HalfKind::BF16>(old, b);
    else if constexpr (std::is_same_v<T, F16x2>)
      return sem::add2<sem::HalfKind::F16>(old, b);
    else
      return sem::add2<sem::HalfKind::BF16>(old, b);
  } else if constexpr (Op == AOp::Inc) {
    const T r = static_cast<T>(old), s = static_cast<T>(b);
    return r >= s ? S(0) : static_cast<S>(old + 1);
  } else if constexpr (Op == AOp::Dec) {
    const T r = static_cast<T>(old), s = static_cast<T>(b);
    return (old == 0 || r > s) ? b : static_cast<S>(old - 1);
  } else if constexpr (Op == AOp::Min || Op == AOp::Max) {
    constexpr bool isMax = Op == AOp::Max;
    if constexpr (std::is_integral_v<T>) {
      const T r = static_cast<T>(old), s = static_cast<T>(b);
      return (isMax ? s > r : s < r) ? b : old;
    } else if constexpr (std::is_same_v<T, F16>)
      return isMax ? sem::max<sem::HalfKind::F16>(old, b) : sem::min<sem::HalfKind::F16>(old, b);
    else if constexpr (std::is_same_v<T, BF16>)
      return isMax ? sem::max<sem::HalfKind::BF16>(old, b) : sem::min<sem::HalfKind::BF16>(old, b);
    else if constexpr (std::is_same_v<T, F16x2>)
      return isMax ? sem::max2<sem::HalfKind::F16>(old, b) : sem::min2<sem::HalfKind::F16>(old, b);
    else if constexpr (std::is_same_v<T, BF16x2>)
      return isMax ? sem::max2<sem::HalfKind::BF16>(old, b) : sem::min2<sem::HalfKind::BF16>(old, b);
    else
      return old; // never instantiated: decoding has no f32/f64 min/max
  }
}

/// One lane's read-modify-write at `p`; returns the value it replaced. `Shared` accesses are plain (one
/// worker owns the CTA), the rest atomic with respect to every worker.
template <class T, AOp Op, bool Shared> inline Storage<T> update(std::byte *p, Storage<T> b, Storage<T> c, bool flush) {
  using S = Storage<T>;
  if constexpr (Shared) {
    S old;
    std::memcpy(&old, p, sizeof(S));
    const S now = combine<T, Op>(old, b, c, flush);
    std::memcpy(p, &now, sizeof(S));
    return old;
  } else {
    // translate() checked the natural alignment; host allocations are at least 16-byte aligned.
    std::atomic_ref<S> ref(*reinterpret_cast<S *>(p));
    if constexpr (Op == AOp::Exch)
      return ref.exchange(b);
    else if constexpr (Op == AOp::Cas) {
      S expected = b;
      ref.compare_exchange_strong(expected, c);
      return expected; // the old value whether or not the swap happened
    } else if constexpr (Op == AOp::And)
      return ref.fetch_and(b);
    else if constexpr (Op == AOp::Or)
      return ref.fetch_or(b);
    else if constexpr (Op == AOp::Xor)
      return ref.fetch_xor(b);
    else if constexpr (Op == AOp::Add && std::is_integral_v<T>)
      return ref.fetch_add(b);
    else {
      S old = ref.load(std::memory_order_relaxed);
      while (!ref.compare_exchange_weak(old, combine<T, Op>(old, b, c, flush), std::memory_order_seq_cst,
                                        std::memory_order_relaxed)) {
      }
      return old;
    }
  }
}

/// Whether f32 add flushes subnormals for this lane: on global memory yes, on shared memory no.
inline bool flushesAt(const ExecContext &ctx, Space space, const std::byte *host) {
  if (space == Space::Global)
    return true;
  if (space == Space::Shared)
    return false;
  const std::byte *shared = ctx.cta->shared.data();
  return !(host >= shared && host < shared + ctx.cta->shared.size());
}

/// op.flags bit 0: red (no destination; the listener sees a Reduction).
constexpr uint8_t kFlagRed = 1;

/// Scalar atom/red: op.d[0] the old value (atom), op.s[0] b, op.s[1] c (cas).
template <class T, AOp Op, bool Shared> void execAtomic(ExecContext &ctx, const MicroOp &op) {
  using S = Storage<T>;
  WarpAccess acc;
  computeAddresses(ctx, op, ctx.exec, acc.addresses);
  translate(ctx, op.space, ctx.exec, sizeof(S), sizeof(S), true, acc);
  const bool red = op.flags & kFlagRed;
  const uint64_t *b = ctx.in(op.s[0]);
  const uint64_t *c = Op == AOp::Cas ? ctx.in(op.s[1]) : b;
  uint64_t *d = red ? nullptr : ctx.out(op.d[0]);
  constexpr bool mayFlush = std::is_same_v<T, float> && Op == AOp::Add;
  // Ascending lane order (see the file comment): each lane reads its own b/c before writing its own d,
  // so d may be the same register as b or c.
  forLanes(acc.mask, [&](int lane) {
    const bool flush = mayFlush && flushesAt(ctx, op.space, acc.host[lane]);
    const S old = update<T, Op, Shared>(acc.host[lane], static_cast<S>(b[lane]), static_cast<S>(c[lane]), flush);
    if (d)
      d[lane] = toRegister<T>(old);
  });
  if (ctx.listener)
    emitMemoryEvent(ctx, op, red ? MemoryOp::Reduction : MemoryOp::Atomic, acc, sizeof(S), 1);
}

/// Vector atom/red (.global or generic to global): element v of every lane at address + v * size, each
/// element atomic on its own (what the ISA guarantees); lanes in ascending order, elements in order.
template <class T, AOp Op, int Vec> void execAtomicVector(ExecContext &ctx, const MicroOp &op) {
  using S = Storage<T>;
  WarpAccess acc;
  computeAddresses(ctx, op, ctx.exec, acc.addresses);
  translate(ctx, op.space, ctx.exec, sizeof(S) * Vec, sizeof(S) * Vec, true, acc);
  const bool red = op.flags & kFlagRed;
  constexpr bool mayFlush = std::is_same_v<T, float> && Op == AOp::Add;
  forLanes(acc.mask, [&](int lane) {
    const bool flush = mayFlush && flushesAt(ctx, op.space, acc.host[lane]);
    for (int v = 0; v < Vec; ++v) {
      const S bv = static_cast<S>(ctx.in(op.s[v])[lane]);
      const S old = update<T, Op, false>(acc.host[lane] + v * sizeof(S), bv, bv, flush);
      if (!red)
        ctx.out(op.d[v])[lane] = toRegister<T>(old);
    }
  });
  if (ctx.listener)
    emitMemoryEvent(ctx, op, red ? MemoryOp::Reduction : MemoryOp::Atomic, acc, sizeof(S), Vec);
}

template <class T, AOp Op> ExecFn scalarFor(Space space) {
  return space == Space::Shared ? &execAtomic<T, Op, true> : &execAtomic<T, Op, false>;
}

/// Integer operations: the storage width and signedness of the type; .b types compare as unsigned.
template <AOp Op> ExecFn integerFor(Mod type, Space space) {
  switch (type) {
  case Mod::b32:
  case Mod::u32: return scalarFor<uint32_t, Op>(space);
  case Mod::s32: return scalarFor<int32_t, Op>(space);
  case Mod::b64:
  case Mod::u64: return scalarFor<uint64_t, Op>(space);
  case Mod::s64: return scalarFor<int64_t, Op>(space);
  default: return nullptr;
  }
}

/// Bit operations only care about the width (.cas.b16 is the one 16-bit form; .exch of a float is
/// accepted as its bits).
template <AOp Op> ExecFn bitsFor(Mod type, Space space) {
  switch (ptx::typeInfo(type).bits) {
  case 16: return Op == AOp::Cas ? scalarFor<uint16_t, Op>(space) : nullptr;
  case 32: return scalarFor<uint32_t, Op>(space);
  case 64: return scalarFor<uint64_t, Op>(space);
  default: return nullptr;
  }
}

ExecFn addFor(Mod type, Space space) {
  switch (type) {
  case Mod::f32: return scalarFor<float, AOp::Add>(space);
  case Mod::f64: return scalarFor<double, AOp::Add>(space);
  case Mod::f16: return scalarFor<F16, AOp::Add>(space);
  case Mod::bf16: return scalarFor<BF16, AOp::Add>(space);
  case Mod::f16x2: return scalarFor<F16x2, AOp::Add>(space);
  case Mod::bf16x2: return scalarFor<BF16x2, AOp::Add>(space);
  default: return integerFor<AOp::Add>(type, space);
  }
}

template <AOp Op> ExecFn halfFor(Mod type, Space space) {
  switch (type) {
  case Mod::f16: return scalarFor<F16, Op>(space);
  case Mod::bf16: return scalarFor<BF16, Op>(space);
  case Mod::f16x2: return scalarFor<F16x2, Op>(space);
  case Mod::bf16x2: return scalarFor<BF16x2, Op>(space);
  default: return nullptr;
  }
}

/// Integer min/max, and the half types' (the ISA has those in vector form; scalar ones cost nothing).
/// There is no f32/f64 atomic min/max.
template <AOp Op> ExecFn minMaxFor(Mod type, Space space) {
  if (ExecFn f = integerFor<Op>(type, space))
    return f;
  return halfFor<Op>(type, space);
}

template <class T, AOp Op> ExecFn vectorOf(int vec) {
  switch (vec) {
  case 2: return &execAtomicVector<T, Op, 2>;
  case 4: return &execAtomicVector<T, Op, 4>;
  default: return nullptr;
  }
}

template <AOp Op> ExecFn vectorHalfFor(Mod type, int vec) {
  switch (type) {
  case Mod::f16: return vectorOf<F16, Op>(vec);
  case Mod::bf16: return vectorOf<BF16, Op>(vec);
  case Mod::f16x2: return vectorOf<F16x2, Op>(vec);
  case Mod::bf16x2: return vectorOf<BF16x2, Op>(vec);
  default: return nullptr;
  }
}

bool operationOf(const ptx::Instruction &inst, AOp &out) {
  static constexpr std::pair<Mod, AOp> kOps[] = {
      {Mod::and_, AOp::And}, {Mod::or_, AOp::Or},  {Mod::xor_, AOp::Xor}, {Mod::cas, AOp::Cas}, {Mod::exch, AOp::Exch},
      {Mod::add, AOp::Add},  {Mod::inc, AOp::Inc}, {Mod::dec, AOp::Dec},  {Mod::min, AOp::Min}, {Mod::max, AOp::Max}};
  for (auto [mod, aop] : kOps)
    if (inst.has(mod)) {
      out = aop;
      return true;
    }
  return false;
}

void decodeVector(DecodeContext &ctx, MicroOp &op, AOp aop, bool red) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  const int vec = inst.vectorWidth;
  const Mod type = inst.type();
  if (vec != 2 && vec != 4) {
    ctx.unsupported(op, fmt::format("{}.v{} is not supported by the ptxray VM", ptx::spelling(inst.opcode), vec));
    return;
  }
  if (op.space != Space::Global && op.space != Space::Generic) {
    ctx.unsupported(op, "vector atomics exist only for global memory");
    return;
  }
  auto elementsOf = [&](const ptx::Operand &o) {
    std::vector<const ptx::Operand *> e;
    if (o.kind == OperandKind::Vector)
      for (const ptx::Operand &c : ctx.children(o))
        e.push_back(&c);
    return e;
  };
  auto bs = elementsOf(operands[red ? 1 : 2]);
  if (static_cast<int>(bs.size()) != vec)
    return;
  std::vector<const ptx::Operand *> ds;
  if (!red) {
    ds = elementsOf(operands[0]);
    if (static_cast<int>(ds.size()) != vec)
      return;
  }
  for (int v = 0; v < vec; ++v) {
    op.s[v] = ctx.src(*bs[v], type);
    if (!red)
      op.d[v] = ctx.dst(*ds[v]);
  }
  op.width = static_cast<uint8_t>(ptx::typeInfo(type).bits / 8);
  op.vec = static_cast<uint8_t>(vec);
  switch (aop) {
  case AOp::Add:
    op.exec = type == Mod::f32 ? vectorOf<float, AOp::Add>(vec) : vectorHalfFor<AOp::Add>(type, vec);
    break;
  case AOp::Min: op.exec = vectorHalfFor<AOp::Min>(type, vec); break;
  case AOp::Max: op.exec = vectorHalfFor<AOp::Max>(type, vec); break;
  default: break;
  }
}

} // namespace

void decodeAtomic(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  const bool red = inst.opcode == ptx::Opcode::red;
  if (red && inst.has(Mod::async)) {
    ctx.unsupported(op, "red.async is not supported by the ptxray VM");
    return;
  }
  const size_t memIndex = red ? 0 : 1;
  if (operands.size() < memIndex + 2)
    return;
  AOp aop;
  if (!operationOf(inst, aop))
    return;
  const ptx::Operand &mem = operands[memIndex];
  op.addr = ctx.address(mem);
  op.space = ctx.spaceOf(inst.space, mem);
  if (op.space != Space::Global && op.space != Space::Shared && op.space != Space::Generic) {
    ctx.unsupported(
        op, fmt::format("{} on the {} space is not valid PTX", ptx::spelling(inst.opcode), spaceName(op.space)));
    return;
  }
  op.flags = red ? kFlagRed : 0;
  const Mod type = inst.type();
  if (type == Mod::b128) {
    ctx.unsupported(op, "128-bit atomics are not supported by the ptxray VM");
    return;
  }
  if (inst.vectorWidth > 1) {
    decodeVector(ctx, op, aop, red);
    return;
  }
  if (!red)
    op.d[0] = ctx.dst(operands[0]);
  op.s[0] = ctx.src(operands[memIndex + 1], type);
  if (aop == AOp::Cas) {
    if (red || operands.size() < 4)
      return;
    op.s[1] = ctx.src(operands[3], type);
  }
  op.width = static_cast<uint8_t>(ptx::typeInfo(type).bits / 8);
  const Space space = op.space;
  switch (aop) {
  case AOp::And: op.exec = bitsFor<AOp::And>(type, space); break;
  case AOp::Or: op.exec = bitsFor<AOp::Or>(type, space); break;
  case AOp::Xor: op.exec = bitsFor<AOp::Xor>(type, space); break;
  case AOp::Cas: op.exec = red ? nullptr : bitsFor<AOp::Cas>(type, space); break;
  case AOp::Exch: op.exec = red ? nullptr : bitsFor<AOp::Exch>(type, space); break;
  case AOp::Add: op.exec = addFor(type, space); break;
  case AOp::Inc: op.exec = integerFor<AOp::Inc>(type, space); break;
  case AOp::Dec: op.exec = integerFor<AOp::Dec>(type, space); break;
  case AOp::Min: op.exec = minMaxFor<AOp::Min>(type, space); break;
  case AOp::Max: op.exec = minMaxFor<AOp::Max>(type, space); break;
  }
}

} // namespace ptxray::vm::ops
