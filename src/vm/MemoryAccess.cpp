#include "vm/MemoryAccess.h"
#include "vm/SystemCalls.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <fmt/format.h>

namespace ptxray::vm {

void computeAddresses(ExecContext &ctx, const MicroOp &op, uint32_t mask, uint64_t *addresses) {
  uint64_t offset = static_cast<uint64_t>(op.addr.offset) + (op.addr.frameRelative ? ctx.frameBase() : 0);
  const bool narrow = ctx.launch->program->addressBits == 32;
  if (op.addr.base == kNoSlot) {
    forLanes(mask, [&](int lane) { addresses[lane] = narrow ? static_cast<uint32_t>(offset) : offset; });
    return;
  }
  const uint64_t *base = ctx.in(op.addr.base);
  forLanes(mask, [&](int lane) {
    uint64_t a = base[lane] + offset;
    addresses[lane] = narrow ? static_cast<uint32_t>(a) : a;
  });
}

std::string describeMiss(const DeviceMemory &memory, uint64_t address, uint64_t bytes) {
  const Allocation *a = memory.find(address);
  if (!a) {
    if (address < kGlobalBase)
      return "the address is not in any allocation (a null or small pointer?)";
    return "the address is not in any allocation";
  }
  if (a->freed)
    return fmt::format("the address is inside {}, {} bytes from its start, which was freed", a->label,
                       address - a->base);
  if (address >= a->base + a->size) {
    std::string what = fmt::format("the address is {} bytes past the end of {} (0x{:x}, {} bytes)",
                                   address - (a->base + a->size), a->label, a->base, a->size);
    // In the empty granule in front of the next allocation: on the GPU, where allocations follow
    // each other without that gap, a read before the next allocation's start (index -1) lands here.
    // (find() names an allocation for addresses up to one granule past its padded end, so the
    // allocation at most one granule above `address` is the one found there, when it is not `a`.)
    const Allocation *following = memory.find(address + kAllocationAlign);
    if (following && following != a && !following->freed && following->base > address)
      what += fmt::format(" and {} bytes before the start of {} (0x{:x}, {} bytes)", following->base - address,
                          following->label, following->base, following->size);
    return what;
  }
  return fmt::format("the access of {} bytes at offset {} runs past the end of {} (0x{:x}, {} bytes)", bytes,
                     address - a->base, a->label, a->base, a->size);
}

namespace {

/// An access outside the CTA's shared memory, named by the kernel's layout: which variable (or the
/// dynamic area) it ran past.
std::string describeSharedMiss(const LaunchState &L, uint64_t offset, uint64_t bytes) {
  const DecodedFunction &kernel = *L.kernel;
  const uint64_t total = L.sharedBytes;
  const uint64_t dynamicBytes = total - kernel.staticSharedBytes;
  std::string what = fmt::format("the access of {} bytes at offset {} is outside the CTA's {} bytes of shared memory "
                                 "({} static + {} dynamic)",
                                 bytes, offset, total, kernel.staticSharedBytes, dynamicBytes);
  if (offset >= uint64_t{1} << 62)
    return what; // a negative offset: below every variable
  auto past = [&](uint64_t end) {
    return offset >= end ? fmt::format("{} bytes past the end of", offset - end)
                         : std::string("running past the end of");
  };
  if (dynamicBytes)
    return what + fmt::format("; it is {} the dynamic area (offset {}, {} bytes)", past(total),
                              kernel.staticSharedBytes, dynamicBytes);
  const SharedVariable *below = nullptr;
  for (const SharedVariable &v : kernel.sharedSlots)
    if (!v.dynamic && v.offset <= offset && (!below || v.offset >= below->offset))
      below = &v;
  if (below)
    what += fmt::format("; it is {} {} (offset {}, {} bytes)", past(below->offset + below->size), below->name,
                        below->offset, below->size);
  return what;
}

/// The common case, branch-free over the lanes: every lane's access aligned and inside the window or
/// allocation the first active lane's address is in. false when some lane may fail: the
/// lane-by-lane path then decides, and reports, exactly as before (a fault is never found here).
bool translateWarp(ExecContext &ctx, Space space, uint32_t mask, uint32_t bytes, uint32_t align, bool write,
                   WarpAccess &acc) {
  if (!mask)
    return false;
  LaunchState &L = *ctx.launch;
  const uint64_t a0 = acc.addresses[std::countr_zero(mask)];
  Space resolved = space;
  uint64_t lowest = 0;       // address of the region's first byte
  uint64_t span = 0;         // its size
  std::byte *host = nullptr; // its first byte on the host
  // Outside the windows, generic addresses and .global ones name global memory alike.
  auto global = [&] {
    const Allocation *al = L.memory->find(a0);
    // The device heap is checked block by block, lane by lane (DeviceHeap::check).
    if (!al || al->freed || (write && al->readOnly) || al->kind == AllocationKind::Heap ||
        !(al->base + al->size <= kLocalWindow || al->base >= kFunctionWindow))
      return false;
    resolved = Space::Global;
    lowest = al->base;
    span = al->size;
    host = al->host;
    return true;
  };
  switch (space) {
  case Space::Generic:
    if (a0 - kSharedWindow < kSharedWindowSize) {
      resolved = Space::Shared;
      lowest = kSharedWindow;
      span = ctx.cta->shared.size();
      host = ctx.cta->shared.data();
    } else if (!global()) {
      return false;
    }
    break;
  case Space::Global:
    if (!global())
      return false;
    break;
  case Space::Shared:
    span = ctx.cta->shared.size();
    host = ctx.cta->shared.data();
    break;
  case Space::Local:
    span = ctx.warp->localStride;
    host = ctx.warp->local.data();
    break;
  case Space::Const:
    if (write || !L.constBank)
      return false;
    span = L.constBank->size;
    host = L.constBank->host;
    break;
  case Space::KernelParam:
    if (write)
      return false;
    span = L.params.size();
    host = L.params.data();
    break;
  default: return false;
  }
  if (bytes > span)
    return false;
  const uint64_t lastOffset = span - bytes;
  // Per-thread local memory: lane `lane`'s window starts `lane * stride` into the warp's.
  const uint64_t laneStride = resolved == Space::Local ? ctx.warp->localStride : 0;
  const uintptr_t hostBase = reinterpret_cast<uintptr_t>(host);
  uint64_t outside = 0, bits = 0;
  forLanes(mask, [&](int lane) {
    const uint64_t a = acc.addresses[lane];
    const uint64_t offset = a - lowest;
    outside |= offset > lastOffset;
    bits |= a;
    // As integers: a lane outside the region must not form an out-of-range pointer (UB), only a value
    // the lane-by-lane path overwrites.
    acc.host[lane] = reinterpret_cast<std::byte *>(hostBase + lane * laneStride + offset);
  });
  if (outside || (bits & (align - 1))) // align is a power of two (or 1)
    return false;
  if (lowest && resolved != Space::Global) // generic addresses in a window become window offsets
    forLanes(mask, [&](int lane) { acc.addresses[lane] -= lowest; });
  acc.space = resolved;
  acc.mask = mask;
  return true;
}

} // namespace

void translate(ExecContext &ctx, Space space, uint32_t mask, uint32_t bytes, uint32_t align, bool write,
               WarpAccess &acc) {
  if (translateWarp(ctx, space, mask, bytes, align, write, acc))
    return;
  LaunchState &L = *ctx.launch;
  acc.space = space;
  uint32_t ok = 0;
  const Allocation *cached = nullptr;
  bool firstResolved = false;
  auto fail = [&](int lane, FaultKind kind, std::string detail, Space s) {
    ctx.fault(kind, lane, std::move(detail), acc.addresses[lane], bytes, s, write);
  };
  auto global = [&](int lane, uint64_t a, Space reportSpace) {
    if (!cached || a - cached->base >= cached->size || cached->freed) {
      cached = L.memory->find(a);
    }
    const Allocation *al = cached;
    if (!al || al->freed || a - al->base > al->size || bytes > al->size - (a - al->base)) {
      FaultKind kind = al && al->freed ? FaultKind::UseAfterFree : FaultKind::OutOfBounds;
      if (reportSpace == Space::Generic && !al)
        kind = FaultKind::InvalidGeneric;
      fail(lane, kind, describeMiss(*L.memory, a, bytes), reportSpace == Space::Generic ? Space::Global : reportSpace);
      return;
    }
    if (write && al->readOnly) {
      fail(lane, FaultKind::ReadOnly, fmt::format("{} is read-only", al->label), reportSpace);
      return;
    }
    if (al->kind == AllocationKind::Heap) {
      // malloc's heap, or the device runtime's parameter buffers: each checks its own blocks.
      DeviceHeap *owner = L.heap && al->base == L.heap->base()                 ? L.heap
                          : L.launchArena && al->base == L.launchArena->base() ? L.launchArena
                                                                               : nullptr;
      if (owner)
        if (std::optional<DeviceHeap::Miss> miss = owner->check(a, bytes)) {
          fail(lane, miss->kind, std::move(miss->detail), reportSpace == Space::Generic ? Space::Global : reportSpace);
          return;
        }
    }
    acc.host[lane] = al->host + (a - al->base);
    ok |= 1u << lane;
  };
  auto window = [&](int lane, uint64_t offset, Space s) {
    uint64_t limit = 0;
    std::byte *base = nullptr;
    switch (s) {
    case Space::Shared:
      limit = ctx.cta->shared.size();
      base = ctx.cta->shared.data();
      break;
    case Space::Local:
      limit = ctx.warp->localStride;
      base = ctx.warp->local.data() + lane * ctx.warp->localStride;
      break;
    case Space::KernelParam:
      limit = L.params.size();
      base = L.params.data();
      if (write) {
        fail(lane, FaultKind::ReadOnly, "kernel parameters are read-only", s);
        return;
      }
      break;
    default: break;
    }
    if ((offset > limit || bytes > limit - offset) && s == Space::Shared && offset >= kReservedSharedOffset &&
        offset - kReservedSharedOffset <= L.reservedSharedBytes &&
        bytes <= L.reservedSharedBytes - (offset - kReservedSharedOffset)) {
      // The system's reserved shared memory, allocated when first used.
      std::vector<std::byte> &reserved = ctx.cta->reservedShared;
      if (reserved.empty())
        reserved.assign(L.reservedSharedBytes, std::byte{0});
      offset -= kReservedSharedOffset;
      limit = reserved.size();
      base = reserved.data();
    }
    if (offset > limit || bytes > limit - offset) {
      fail(lane, FaultKind::OutOfBounds,
           s == Space::Shared ? describeSharedMiss(L, offset, bytes)
                              : fmt::format("the {} window is {} bytes; the access of {} bytes is at offset {}",
                                            spaceName(s), limit, bytes, offset),
           s);
      return;
    }
    acc.host[lane] = base + offset;
    ok |= 1u << lane;
  };
  forLanes(mask, [&](int lane) {
    uint64_t a = acc.addresses[lane];
    if (align > 1 && (a & (align - 1))) {
      fail(lane, FaultKind::Misaligned, fmt::format("the address is not aligned to {} bytes", align), space);
      return;
    }
    switch (space) {
    case Space::Global:
      if (a >= kLocalWindow && a < kFunctionWindow) {
        fail(lane, FaultKind::OutOfBounds,
             "the address is in the shared/local window, not global memory (a generic pointer used with a "
             ".global access?)",
             space);
        return;
      }
      global(lane, a, Space::Global);
      return;
    case Space::Const: {
      const Allocation *bank = L.constBank;
      if (!bank || a > bank->size || bytes > bank->size - a) {
        fail(lane, FaultKind::OutOfBounds,
             fmt::format("the constant bank is {} bytes; the access is at offset {}", bank ? bank->size : 0, a), space);
        return;
      }
      if (write) {
        fail(lane, FaultKind::ReadOnly, "constant memory is read-only", space);
        return;
      }
      acc.host[lane] = bank->host + a;
      ok |= 1u << lane;
      return;
    }
    case Space::Shared:
    case Space::Local:
    case Space::KernelParam: window(lane, a, space); return;
    case Space::Generic: {
      Space s = Space::Global;
      uint64_t off = a;
      if (a - kSharedWindow < kSharedWindowSize) {
        s = Space::Shared;
        off = a - kSharedWindow;
      } else if (a - kLocalWindow < kLocalWindowSize) {
        s = Space::Local;
        off = a - kLocalWindow;
      } else if (a - kParamWindow < kParamWindowSize) {
        s = Space::KernelParam;
        off = a - kParamWindow;
      }
      if (!firstResolved) {
        acc.space = s;
        firstResolved = true;
      }
      if (s == Space::Global) {
        global(lane, a, Space::Generic);
      } else {
        acc.addresses[lane] = off;
        window(lane, off, s);
      }
      return;
    }
    }
  });
  acc.mask = ok;
}

void emitMemoryEvent(ExecContext &ctx, const MicroOp &op, MemoryOp kind, const WarpAccess &access, uint8_t width,
                     uint8_t vec, bool synchronization) {
  MemoryEvent e;
  e.pc = ctx.pc;
  e.instruction = op.instruction;
  e.op = kind;
  e.space = access.space;
  e.width = width;
  e.vec = vec;
  e.mask = access.mask;
  const ptx::Instruction &inst = ctx.fn->source->instructions[op.instruction];
  e.cache = inst.cache;
  e.nonCoherent = inst.opcode == ptx::Opcode::ldu || inst.has(ptx::Mod::nc);
  e.isVolatile = inst.isVolatile;
  e.isSynchronization = synchronization;
  e.semantics = inst.semantics;
  e.scope = inst.scope;
  if (access.mask == ~0u) // every lane (the usual case): one straight copy
    std::copy(access.addresses, access.addresses + kWarpSize, e.addresses.begin());
  else
    forLanes(access.mask, [&](int lane) { e.addresses[lane] = access.addresses[lane]; });
  ctx.listener->onMemory(ctx.warpRef(), e);
}

} // namespace ptxray::vm
