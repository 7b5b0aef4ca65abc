// Asynchronous copies (cp.async, cp.async.bulk) and mbarrier objects.
//
// Completion model. A CTA's warps run one at a time and every memory access completes immediately, so
// an asynchronous copy is performed in full when its instruction retires: the data is in place before
// the next instruction of any warp runs. That satisfies every way of waiting for it, so
// cp.async.commit_group / wait_group / wait_all and cp.async.bulk.commit_group / wait_group{.read} are
// no-ops, cp.async.mbarrier.arrive performs its arrive-on operation at issue, and a bulk copy's
// complete-tx on its mbarrier happens at issue too. Lanes act in ascending lane order.
//
// The mbarrier object (8 bytes, 8-byte aligned, in shared memory; hardware's layout is opaque, this
// is the VM's):
//   bits  0..19  pending arrival count of the current phase
//   bits 20..39  expected arrival count (what pending is reset to when a phase completes)
//   bits 40..60  tx-count, 21-bit two's complement (-(2^20-1) .. 2^20-1)
//   bit  62      set by mbarrier.init, cleared by mbarrier.inval (operations on an object without it
//                are reported: the ISA leaves them undefined)
//   bit  63      parity of the current phase
// A phase completes when pending arrivals and tx-count are both zero after an arrive-on, expect-tx or
// complete-tx operation: the parity flips and pending is reset to the expected count.
//
// The state token mbarrier.arrive / arrive_drop return: bit 63 the parity of the phase the arrival
// was counted in, bits 0..19 the pending count before the arrival (mbarrier.pending_count reads it).
// test_wait/try_wait(state) are true when the object's current parity differs from the token's (that
// phase completed); the .parity forms are true when the current parity differs from the operand's
// low bit. A false result makes the warp yield so the other warps of the CTA can arrive (CUDA's
// cuda::barrier waits in a try_wait loop); it resumes at the next instruction.
#include "vm/MemoryAccess.h"
#include "vm/ops/Families.h"

#include <fmt/format.h>

#include <algorithm>

namespace ptxray::vm::ops {

using ptx::Mod;
using ptx::OperandKind;

namespace {

// ---------------------------------------------------------------------------------------------
// The mbarrier word

constexpr uint64_t kCountMask = (uint64_t{1} << 20) - 1;
constexpr int kExpectedShift = 20;
constexpr int kTxShift = 40;
constexpr uint64_t kTxMask = (uint64_t{1} << 21) - 1;
constexpr uint64_t kValidBit = uint64_t{1} << 62;
constexpr uint64_t kParityBit = uint64_t{1} << 63;
constexpr int64_t kMaxCount = (int64_t{1} << 20) - 1;

struct Mbarrier {
  int64_t pending = 0;
  int64_t expected = 0;
  int64_t tx = 0;
  bool valid = false;
  bool parity = false;

  static Mbarrier unpack(uint64_t w) {
    Mbarrier b;
    b.pending = static_cast<int64_t>(w & kCountMask);
    b.expected = static_cast<int64_t>((w >> kExpectedShift) & kCountMask);
    int64_t tx = static_cast<int64_t>((w >> kTxShift) & kTxMask);
    b.tx = tx >= (int64_t{1} << 20) ? tx - (int64_t{1} << 21) : tx;
    b.valid = (w & kValidBit) != 0;
    b.parity = (w & kParityBit) != 0;
    return b;
  }
  uint64_t pack() const {
    return (static_cast<uint64_t>(pending) & kCountMask) |
           ((static_cast<uint64_t>(expected) & kCountMask) << kExpectedShift) |
           ((static_cast<uint64_t>(tx) & kTxMask) << kTxShift) | (valid ? kValidBit : 0) | (parity ? kParityBit : 0);
  }
  /// Moves to the next phase when the current one has completed.
  void settle() {
    if (pending == 0 && tx == 0) {
      parity = !parity;
      pending = expected;
    }
  }
};

uint64_t loadWord(const std::byte *p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
void storeWord(std::byte *p, uint64_t w) {
  std::memcpy(p, &w, 8);
}

/// Address of lane `lane` held in slot/constant `ref` (already base + offset).
inline uint64_t addressOf(const ExecContext &ctx, uint32_t ref, int lane) {
  uint64_t a = ctx.in(ref)[lane];
  return ctx.launch->program->addressBits == 32 ? static_cast<uint32_t>(a) : a;
}

/// Checks and translates the mbarrier objects of the executing lanes: 8 bytes, 8-byte aligned, in the
/// CTA's shared memory, initialized unless `init`. Lanes that fail are reported and left out.
void translateMbarrier(ExecContext &ctx, const MicroOp &op, uint32_t addrRef, bool init, WarpAccess &acc) {
  forLanes(ctx.exec, [&](int lane) { acc.addresses[lane] = addressOf(ctx, addrRef, lane); });
  translate(ctx, op.space, ctx.exec, 8, 8, true, acc);
  const std::byte *shared = ctx.cta->shared.data();
  const size_t sharedSize = ctx.cta->shared.size();
  uint32_t ok = acc.mask;
  forLanes(acc.mask, [&](int lane) {
    if (acc.host[lane] < shared || acc.host[lane] >= shared + sharedSize) {
      ctx.fault(FaultKind::IllegalInstruction, lane, "the mbarrier object is not in shared memory", acc.addresses[lane],
                8, Space::Generic, true);
      ok &= ~(1u << lane);
      return;
    }
    if (!init && !(loadWord(acc.host[lane]) & kValidBit)) {
      ctx.fault(FaultKind::IllegalInstruction, lane,
                "the mbarrier object was not initialized with mbarrier.init (or was invalidated)", acc.addresses[lane],
                8, Space::Shared, true);
      ok &= ~(1u << lane);
    }
  });
  acc.mask = ok;
  acc.space = Space::Shared;
}

/// Tells the listener about the executing lanes' read-modify-write of their mbarrier objects.
void mbarrierEvent(ExecContext &ctx, const MicroOp &op, const WarpAccess &acc) {
  if (ctx.listener)
    emitMemoryEvent(ctx, op, MemoryOp::Atomic, acc, 8, 1, true);
}

/// Tells the listener what an mbarrier operation did for `lane` (the orderings racecheck follows).
void mbarrierSync(ExecContext &ctx, const MicroOp &op, MbarrierOp kind, int lane, uint64_t address, bool parity) {
  if (!ctx.listener)
    return;
  MbarrierEvent e;
  e.pc = ctx.pc;
  e.instruction = op.instruction;
  e.op = kind;
  e.lane = lane;
  e.address = address;
  e.parity = parity;
  ctx.listener->onMbarrier(ctx.warpRef(), e);
}

/// After an update of lane `lane`'s object from `before`: its arrival (when `arrived`) and the
/// completion of the phase it ended, if it ended one.
void mbarrierUpdated(ExecContext &ctx, const MicroOp &op, int lane, uint64_t address, const Mbarrier &before,
                     const Mbarrier &after, bool arrived) {
  if (!ctx.listener)
    return;
  if (arrived)
    mbarrierSync(ctx, op, MbarrierOp::Arrive, lane, address, before.parity);
  if (after.parity != before.parity)
    mbarrierSync(ctx, op, MbarrierOp::PhaseComplete, lane, address, before.parity);
}

enum MbarFlags : uint8_t { Drop = 1, ExpectTx = 2, HasCount = 4, Parity = 8, NoInc = 16 };

void execMbarInit(ExecContext &ctx, const MicroOp &op) {
  WarpAccess acc;
  translateMbarrier(ctx, op, op.s[0], true, acc);
  const uint64_t *count = ctx.in(op.s[1]);
  forLanes(acc.mask, [&](int lane) {
    const uint64_t c = static_cast<uint32_t>(count[lane]);
    if (c < 1 || c > static_cast<uint64_t>(kMaxCount)) {
      ctx.fault(FaultKind::IllegalInstruction, lane,
                fmt::format("mbarrier.init count {} is outside 1..{}", c, kMaxCount));
      return;
    }
    Mbarrier b;
    b.pending = b.expected = static_cast<int64_t>(c);
    b.valid = true;
    storeWord(acc.host[lane], b.pack());
  });
  mbarrierEvent(ctx, op, acc);
}

void execMbarInval(ExecContext &ctx, const MicroOp &op) {
  WarpAccess acc;
  translateMbarrier(ctx, op, op.s[0], true, acc);
  forLanes(acc.mask, [&](int lane) { storeWord(acc.host[lane], 0); });
  mbarrierEvent(ctx, op, acc);
}

bool txInRange(ExecContext &ctx, int lane, int64_t tx) {
  if (tx < -kMaxCount || tx > kMaxCount) {
    ctx.fault(FaultKind::IllegalInstruction, lane,
              fmt::format("the mbarrier tx-count {} is outside ±{}", tx, kMaxCount));
    return false;
  }
  return true;
}

/// mbarrier.expect_tx (imm 1) and mbarrier.complete_tx (imm -1): s[0] address, s[1] txCount.
void execMbarTx(ExecContext &ctx, const MicroOp &op) {
  WarpAccess acc;
  translateMbarrier(ctx, op, op.s[0], false, acc);
  const uint64_t *count = ctx.in(op.s[1]);
  forLanes(acc.mask, [&](int lane) {
    Mbarrier b = Mbarrier::unpack(loadWord(acc.host[lane]));
    const int64_t tx = b.tx + op.imm * static_cast<int64_t>(static_cast<uint32_t>(count[lane]));
    if (!txInRange(ctx, lane, tx))
      return;
    const Mbarrier before = b;
    b.tx = tx;
    b.settle();
    storeWord(acc.host[lane], b.pack());
    // A complete-tx counts as the thread's arrival: what it wrote before happens before the waiters.
    mbarrierUpdated(ctx, op, lane, acc.addresses[lane], before, b, op.imm < 0);
  });
  mbarrierEvent(ctx, op, acc);
}

/// One arrive-on operation of `count` (after an optional expect-tx of `tx`); returns the state token.
bool arriveOn(ExecContext &ctx, const MicroOp &op, int lane, uint64_t address, std::byte *p, int64_t count, int64_t tx,
              bool drop, uint64_t *token) {
  Mbarrier b = Mbarrier::unpack(loadWord(p));
  const Mbarrier before = b;
  if (drop) {
    if (count > b.expected) {
      ctx.fault(FaultKind::IllegalInstruction, lane,
                fmt::format("mbarrier.arrive_drop of {} exceeds the expected arrival count {}", count, b.expected));
      return false;
    }
    b.expected -= count;
  }
  if (tx) {
    if (!txInRange(ctx, lane, b.tx + tx))
      return false;
    b.tx += tx;
  }
  if (count > b.pending) {
    ctx.fault(FaultKind::IllegalInstruction, lane,
              fmt::format("mbarrier arrive-on of {} exceeds the pending arrival count {} of the current phase", count,
                          b.pending));
    return false;
  }
  if (token)
    *token = (b.parity ? kParityBit : 0) | static_cast<uint64_t>(b.pending);
  b.pending -= count;
  b.settle();
  storeWord(p, b.pack());
  mbarrierUpdated(ctx, op, lane, address, before, b, true);
  return true;
}

/// mbarrier.arrive{.expect_tx} / arrive_drop{.expect_tx}: d[0] state, s[0] address, s[1] count or txCount.
void execMbarArrive(ExecContext &ctx, const MicroOp &op) {
  WarpAccess acc;
  translateMbarrier(ctx, op, op.s[0], false, acc);
  const uint64_t *operand = op.s[1] != kNoSlot ? ctx.in(op.s[1]) : nullptr;
  uint64_t *d = ctx.out(op.d[0]);
  const bool drop = op.flags & Drop;
  forLanes(acc.mask, [&](int lane) {
    int64_t count = 1, tx = 0;
    if (operand) {
      const int64_t v = static_cast<int64_t>(static_cast<uint32_t>(operand[lane]));
      if (op.flags & ExpectTx)
        tx = v;
      else
        count = v;
    }
    if (count < 1 || count > kMaxCount) {
      ctx.fault(FaultKind::IllegalInstruction, lane,
                fmt::format("mbarrier arrive count {} is outside 1..{}", count, kMaxCount));
      return;
    }
    uint64_t token = 0;
    if (arriveOn(ctx, op, lane, acc.addresses[lane], acc.host[lane], count, tx, drop, &token))
      d[lane] = token;
  });
  mbarrierEvent(ctx, op, acc);
}

/// cp.async.mbarrier.arrive{.noinc}: every prior cp.async of the lane is already complete, so the
/// arrive-on happens now. Without .noinc the pending count is first incremented, a net zero change.
void execCpAsyncArrive(ExecContext &ctx, const MicroOp &op) {
  WarpAccess acc;
  translateMbarrier(ctx, op, op.s[0], false, acc);
  forLanes(acc.mask, [&](int lane) {
    if (op.flags & NoInc) {
      arriveOn(ctx, op, lane, acc.addresses[lane], acc.host[lane], 1, 0, false, nullptr);
      return;
    }
    // The increment and the arrive-on cancel out: the object does not change, but the arrival still
    // orders the lane's copies before what the phase's waiters do.
    const Mbarrier b = Mbarrier::unpack(loadWord(acc.host[lane]));
    if (b.pending + 1 > kMaxCount)
      ctx.fault(FaultKind::IllegalInstruction, lane, "cp.async.mbarrier.arrive overflows the pending arrival count");
    else
      mbarrierUpdated(ctx, op, lane, acc.addresses[lane], b, b, true);
  });
  mbarrierEvent(ctx, op, acc);
}

/// mbarrier.test_wait / try_wait {.parity}: d[0] predicate, s[0] address, s[1] state or parity.
void execMbarWait(ExecContext &ctx, const MicroOp &op) {
  if (ctx.exec == 0)
    return;
  WarpAccess acc;
  translateMbarrier(ctx, op, op.s[0], false, acc);
  const uint64_t *operand = ctx.in(op.s[1]);
  uint32_t complete = 0;
  forLanes(acc.mask, [&](int lane) {
    const Mbarrier b = Mbarrier::unpack(loadWord(acc.host[lane]));
    const bool waited = (op.flags & Parity) ? (operand[lane] & 1) != 0 : (operand[lane] & kParityBit) != 0;
    if (b.parity != waited) {
      complete |= 1u << lane;
      mbarrierSync(ctx, op, MbarrierOp::WaitComplete, lane, acc.addresses[lane], waited);
    }
  });
  uint32_t &p = ctx.pred(op.d[0]);
  p = (p & ~ctx.exec) | complete;
  if (ctx.listener) {
    // A read of the object (no write: waiting does not change it).
    emitMemoryEvent(ctx, op, MemoryOp::Load, acc, 8, 1, true);
  }
  if (acc.mask & ~complete)
    ctx.yield = true; // let the other warps arrive; resume at the next instruction
}

void execMbarPendingCount(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *state = ctx.in(op.s[0]);
  uint64_t *d = ctx.out(op.d[0]);
  forLanes(ctx.exec, [&](int lane) { d[lane] = state[lane] & kCountMask; });
}

// ---------------------------------------------------------------------------------------------
// Copies

/// Translates `bytes[lane]` bytes at the lanes' addresses (lanes of `mask` with a nonzero size), one
/// translate() per distinct size; the lanes that passed are in acc.mask. Emits the listener's events.
void translateSized(ExecContext &ctx, const MicroOp &op, Space space, uint32_t mask, const uint32_t *bytes,
                    uint32_t align, bool write, WarpAccess &acc) {
  uint32_t ok = 0;
  uint32_t todo = 0;
  forLanes(mask, [&](int lane) {
    if (bytes[lane])
      todo |= 1u << lane;
  });
  Space resolved = space;
  bool first = true;
  while (todo) {
    const uint32_t size = bytes[std::countr_zero(todo)];
    uint32_t group = 0;
    forLanes(todo, [&](int lane) {
      if (bytes[lane] == size)
        group |= 1u << lane;
    });
    todo &= ~group;
    WarpAccess part;
    forLanes(group, [&](int lane) { part.addresses[lane] = acc.addresses[lane]; });
    translate(ctx, space, group, size, align, write, part);
    forLanes(part.mask, [&](int lane) {
      acc.host[lane] = part.host[lane];
      acc.addresses[lane] = part.addresses[lane];
    });
    ok |= part.mask;
    if (first) {
      resolved = part.space;
      first = false;
    }
    if (ctx.listener && part.mask)
      emitMemoryEvent(ctx, op, write ? MemoryOp::Store : MemoryOp::Load, part, static_cast<uint8_t>(size), 1);
  }
  acc.mask = ok;
  acc.space = resolved;
}

enum CopyFlags : uint8_t { HasSrcSize = 1, HasIgnoreSrc = 2, IgnoreNegated = 4 };

/// cp.async.{ca,cg}.shared.global: s[0] dst, s[1] src, op.width cp-size, s[2] src-size or
/// op.d[0] the ignore-src predicate slot.
void execCpAsync(ExecContext &ctx, const MicroOp &op) {
  const uint32_t cpSize = op.width;
  uint32_t srcBytes[kWarpSize] = {};
  uint32_t lanes = ctx.exec;
  const uint64_t *srcSize = (op.flags & HasSrcSize) ? ctx.in(op.s[2]) : nullptr;
  uint32_t ignore = 0;
  if (op.flags & HasIgnoreSrc) {
    ignore = ctx.pred(op.d[0]);
    if (op.flags & IgnoreNegated)
      ignore = ~ignore;
  }
  forLanes(ctx.exec, [&](int lane) {
    uint32_t n = srcSize ? static_cast<uint32_t>(srcSize[lane]) : cpSize;
    if ((ignore >> lane) & 1)
      n = 0;
    if (n > cpSize) {
      ctx.fault(FaultKind::IllegalInstruction, lane, fmt::format("cp.async src-size {} exceeds cp-size {}", n, cpSize));
      lanes &= ~(1u << lane);
      return;
    }
    srcBytes[lane] = n;
  });
  WarpAccess src;
  forLanes(lanes, [&](int lane) { src.addresses[lane] = addressOf(ctx, op.s[1], lane); });
  translateSized(ctx, op, Space::Global, lanes, srcBytes, cpSize, false, src);
  forLanes(lanes, [&](int lane) {
    if (srcBytes[lane] && !((src.mask >> lane) & 1))
      lanes &= ~(1u << lane); // reported
  });
  WarpAccess dst;
  forLanes(lanes, [&](int lane) { dst.addresses[lane] = addressOf(ctx, op.s[0], lane); });
  translate(ctx, Space::Shared, lanes, cpSize, cpSize, true, dst);
  forLanes(dst.mask, [&](int lane) {
    const uint32_t n = srcBytes[lane];
    if (n)
      std::memmove(dst.host[lane], src.host[lane], n);
    if (n < cpSize)
      std::memset(dst.host[lane] + n, 0, cpSize - n);
  });
  if (ctx.listener && dst.mask)
    emitMemoryEvent(ctx, op, MemoryOp::Store, dst, static_cast<uint8_t>(cpSize), 1);
}

/// A bulk access of `size` bytes of one lane as listener events: consecutive 16-byte pieces in the
/// event's lane slots, 32 pieces (512 bytes) per event.
void bulkEvents(ExecContext &ctx, const MicroOp &op, MemoryOp kind, Space space, uint64_t address, uint64_t size) {
  for (uint64_t at = 0; at < size; at += 16 * kWarpSize) {
    WarpAccess acc;
    acc.space = space;
    acc.mask = 0;
    for (int i = 0; i < kWarpSize && at + 16 * uint64_t(i) < size; ++i) {
      acc.addresses[i] = address + at + 16 * uint64_t(i);
      acc.mask |= 1u << i;
    }
    emitMemoryEvent(ctx, op, kind, acc, 16, 1);
  }
}

enum BulkFlags : uint8_t { ToShared = 1, WithMbarrier = 2 };

/// cp.async.bulk: s[0] dst, s[1] src, s[2] size, s[3] mbarrier (ToShared | WithMbarrier). The copy
/// is done at issue; its complete-tx of `size` bytes follows on the mbarrier.
void execBulkCopy(ExecContext &ctx, const MicroOp &op) {
  const bool toShared = op.flags & ToShared;
  const Space dstSpace = toShared ? Space::Shared : Space::Global;
  const Space srcSpace = toShared ? Space::Global : Space::Shared;
  const uint64_t *size = ctx.in(op.s[2]);
  forLanes(ctx.exec, [&](int lane) {
    const uint32_t n = static_cast<uint32_t>(size[lane]);
    const uint32_t bit = 1u << lane;
    if (n % 16) {
      ctx.fault(FaultKind::IllegalInstruction, lane, fmt::format("cp.async.bulk size {} is not a multiple of 16", n));
      return;
    }
    WarpAccess src, dst;
    src.addresses[lane] = addressOf(ctx, op.s[1], lane);
    dst.addresses[lane] = addressOf(ctx, op.s[0], lane);
    translate(ctx, srcSpace, bit, n, 16, false, src);
    if (!(src.mask & bit))
      return;
    translate(ctx, dstSpace, bit, n, 16, true, dst);
    if (!(dst.mask & bit))
      return;
    if (n)
      std::memmove(dst.host[lane], src.host[lane], n);
    if (ctx.listener) {
      bulkEvents(ctx, op, MemoryOp::Load, srcSpace, src.addresses[lane], n);
      bulkEvents(ctx, op, MemoryOp::Store, dstSpace, dst.addresses[lane], n);
    }
    if (op.flags & WithMbarrier) {
      WarpAccess bar;
      bar.addresses[lane] = addressOf(ctx, op.s[3], lane);
      translate(ctx, Space::Shared, bit, 8, 8, true, bar);
      if (!(bar.mask & bit))
        return;
      Mbarrier b = Mbarrier::unpack(loadWord(bar.host[lane]));
      if (!b.valid) {
        ctx.fault(FaultKind::IllegalInstruction, lane,
                  "the mbarrier object of cp.async.bulk was not initialized with mbarrier.init", bar.addresses[lane], 8,
                  Space::Shared, true);
        return;
      }
      if (!txInRange(ctx, lane, b.tx - n))
        return;
      const Mbarrier before = b;
      b.tx -= n;
      b.settle();
      storeWord(bar.host[lane], b.pack());
      mbarrierUpdated(ctx, op, lane, bar.addresses[lane], before, b, true);
      if (ctx.listener)
        emitMemoryEvent(ctx, op, MemoryOp::Atomic, bar, 8, 1, true);
    }
  });
}

void execNothing(ExecContext &, const MicroOp &) {}

void execAddOffset(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *b = ctx.in(op.s[0]);
  uint64_t *d = ctx.out(op.d[0]);
  const uint64_t off = static_cast<uint64_t>(op.imm);
  forLanes(ctx.exec, [&](int lane) { d[lane] = b[lane] + off; });
}

/// An address operand as one value reference (base + offset materialized when needed); kNoSlot for
/// a frame-relative address (never valid for these instructions).
uint32_t addressRef(DecodeContext &ctx, const ptx::Operand &operand) {
  const AddressRef r = ctx.address(operand);
  if (r.frameRelative)
    return kNoSlot;
  if (r.base == kNoSlot)
    return ctx.constant(static_cast<uint64_t>(r.offset));
  if (r.offset == 0)
    return r.base;
  MicroOp m;
  m.exec = &execAddOffset;
  m.s[0] = r.base;
  m.imm = r.offset;
  m.d[0] = ctx.scratchSlot();
  ctx.emitBefore(m);
  return m.d[0];
}

bool isSpaceMod(Mod m) {
  return m == Mod::shared || m == Mod::shared_cta || m == Mod::shared_cluster || m == Mod::global;
}

void decodeCp(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  if (inst.has(Mod::reduce)) {
    ctx.unsupported(op, "cp.reduce.async.bulk is not supported by the ptxray VM");
    return;
  }
  if (inst.has(Mod::tensor)) {
    ctx.unsupported(op, "cp.async.bulk.tensor (TMA) is not supported by the ptxray VM");
    return;
  }
  if (!inst.has(Mod::async))
    return;
  // Groups: every copy is complete when it retires, so committing and waiting do nothing.
  if (inst.has(Mod::commit_group) || inst.has(Mod::wait_group) || inst.has(Mod::wait_all)) {
    op.exec = &execNothing;
    return;
  }
  if (inst.has(Mod::prefetch)) { // cp.async.bulk.prefetch.L2.global: a hint
    op.exec = &execNothing;
    return;
  }
  if (inst.has(Mod::mbarrier) && inst.has(Mod::arrive)) { // cp.async.mbarrier.arrive{.noinc}
    if (operands.empty())
      return;
    op.space = inst.has(Mod::shared) || inst.has(Mod::shared_cta) ? Space::Shared : Space::Generic;
    op.s[0] = addressRef(ctx, operands[0]);
    if (op.s[0] == kNoSlot)
      return;
    op.flags = inst.has(Mod::noinc) ? NoInc : 0;
    op.exec = &execCpAsyncArrive;
    return;
  }
  Mod spaces[2] = {Mod::None, Mod::None};
  int numSpaces = 0;
  for (int i = 0; i < inst.numMods && numSpaces < 2; ++i)
    if (isSpaceMod(inst.mods[i]))
      spaces[numSpaces++] = inst.mods[i];
  const bool cacheHint = inst.has(Mod::L2_cache_hint);
  if (inst.has(Mod::bulk)) {
    if (inst.has(Mod::multicast_cluster)) {
      ctx.unsupported(op, "cp.async.bulk .multicast::cluster is not supported by the ptxray VM");
      return;
    }
    if (operands.size() < 3)
      return;
    const bool toShared =
        (spaces[0] == Mod::shared_cluster || spaces[0] == Mod::shared_cta) && spaces[1] == Mod::global;
    const bool toGlobal = spaces[0] == Mod::global && (spaces[1] == Mod::shared_cta || spaces[1] == Mod::shared);
    if (toShared && inst.has(Mod::mbarrier_complete_tx_bytes)) {
      if (operands.size() < 4)
        return;
      op.flags = ToShared | WithMbarrier;
      op.s[3] = addressRef(ctx, operands[3]);
    } else if (toGlobal && inst.has(Mod::bulk_group)) {
      op.flags = 0;
    } else {
      ctx.unsupported(op, "this cp.async.bulk form is not supported by the ptxray VM (a cluster has one CTA here)");
      return;
    }
    op.s[0] = addressRef(ctx, operands[0]);
    op.s[1] = addressRef(ctx, operands[1]);
    op.s[2] = ctx.src(operands[2], Mod::u32);
    if (op.s[0] == kNoSlot || op.s[1] == kNoSlot || ((op.flags & WithMbarrier) && op.s[3] == kNoSlot))
      return;
    op.exec = &execBulkCopy;
    return;
  }
  // cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}
  if (!(spaces[0] == Mod::shared || spaces[0] == Mod::shared_cta) || spaces[1] != Mod::global)
    return;
  if (operands.size() < 3 || operands[2].kind != OperandKind::Immediate)
    return;
  const int64_t cpSize = operands[2].value;
  if (cpSize != 4 && cpSize != 8 && cpSize != 16) {
    ctx.unsupported(op, fmt::format("cp.async cp-size {} is not 4, 8 or 16", cpSize));
    return;
  }
  if (inst.has(Mod::cg) && cpSize != 16) {
    ctx.unsupported(op, "cp.async.cg copies 16 bytes");
    return;
  }
  op.width = static_cast<uint8_t>(cpSize);
  op.space = Space::Shared;
  op.s[0] = addressRef(ctx, operands[0]);
  op.s[1] = addressRef(ctx, operands[1]);
  if (op.s[0] == kNoSlot || op.s[1] == kNoSlot)
    return;
  const size_t extra = operands.size() - 3 - (cacheHint ? 1 : 0);
  if (extra > 1)
    return;
  if (extra == 1) {
    const ptx::Operand &o = operands[3];
    if (ctx.isPredicate(o)) {
      bool negated = false;
      op.d[0] = ctx.predSlot(o, &negated);
      op.flags = HasIgnoreSrc | (negated ? IgnoreNegated : 0);
    } else {
      op.s[2] = ctx.src(o, Mod::u32);
      op.flags = HasSrcSize;
    }
  }
  op.exec = &execCpAsync;
}

void decodeMbarrier(DecodeContext &ctx, MicroOp &op) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  // .shared::cluster: a cluster has one CTA here, so its shared memory is the CTA's.
  const bool shared = inst.has(Mod::shared) || inst.has(Mod::shared_cta) || inst.has(Mod::shared_cluster);
  op.space = shared ? Space::Shared : Space::Generic;
  if (inst.has(Mod::pending_count)) {
    if (operands.size() != 2)
      return;
    op.d[0] = ctx.dst(operands[0]);
    op.s[0] = ctx.src(operands[1], Mod::b64);
    op.exec = &execMbarPendingCount;
    return;
  }
  if (inst.has(Mod::test_wait) || inst.has(Mod::try_wait)) {
    if (operands.size() < 3 || !ctx.isPredicate(operands[0]))
      return;
    op.d[0] = ctx.predSlot(operands[0]);
    op.s[0] = addressRef(ctx, operands[1]);
    op.s[1] = ctx.src(operands[2], Mod::b64);
    if (op.s[0] == kNoSlot)
      return;
    op.flags = inst.has(Mod::parity) ? Parity : 0;
    op.kind = OpKind::Control;
    op.exec = &execMbarWait;
    return;
  }
  if (inst.has(Mod::init) || inst.has(Mod::inval) || inst.has(Mod::expect_tx) || inst.has(Mod::complete_tx)) {
    const bool arrive = inst.has(Mod::arrive) || inst.has(Mod::arrive_drop);
    if (!arrive) {
      if (operands.empty())
        return;
      op.s[0] = addressRef(ctx, operands[0]);
      if (op.s[0] == kNoSlot)
        return;
      if (inst.has(Mod::inval)) {
        op.exec = &execMbarInval;
        return;
      }
      if (operands.size() < 2)
        return;
      op.s[1] = ctx.src(operands[1], Mod::u32);
      if (inst.has(Mod::init)) {
        op.exec = &execMbarInit;
      } else {
        op.imm = inst.has(Mod::expect_tx) ? 1 : -1;
        op.exec = &execMbarTx;
      }
      return;
    }
  }
  if (inst.has(Mod::arrive) || inst.has(Mod::arrive_drop)) {
    if (operands.size() < 2)
      return;
    op.d[0] = ctx.dst(operands[0]);
    op.s[0] = addressRef(ctx, operands[1]);
    if (op.s[0] == kNoSlot)
      return;
    if (inst.has(Mod::arrive_drop))
      op.flags |= Drop;
    if (inst.has(Mod::expect_tx))
      op.flags |= ExpectTx;
    if (operands.size() >= 3) {
      op.s[1] = ctx.src(operands[2], Mod::u32);
      op.flags |= HasCount;
    }
    op.exec = &execMbarArrive;
    return;
  }
}

} // namespace

void decodeAsync(DecodeContext &ctx, MicroOp &op) {
  if (ctx.inst->opcode == ptx::Opcode::mbarrier)
    decodeMbarrier(ctx, op);
  else
    decodeCp(ctx, op);
}

} // namespace ptxray::vm::ops
