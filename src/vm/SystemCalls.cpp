#include "vm/SystemCalls.h"

#include "abi/CudaRuntimeAbi.h"
#include "abi/SystemCalls.h"
#include "arch/DeviceAttributes.h"
#include "vm/Device.h"
#include "vm/DevicePrintf.h"
#include "vm/MemoryAccess.h"
#include "vm/Simt.h"

#include <algorithm>
#include <fmt/format.h>
#include <string>
#include <vector>

namespace ptxray::vm {

// ---------------------------------------------------------------------------------------------
// Heap

DeviceHeap::DeviceHeap(DeviceMemory &memory, uint64_t bytes, std::string_view what) : size_(bytes) {
  if (bytes == 0)
    return;
  auto base = memory.allocate(bytes, AllocationKind::Heap, fmt::format("{} ({} bytes)", what, bytes));
  if (!base) {
    size_ = 0;
    return;
  }
  base_ = *base;
  blocks_[0] = Block{bytes, 0, false, false};
  free_.insert({bytes, 0});
}

uint64_t DeviceHeap::allocate(uint64_t bytes) {
  std::lock_guard lock(mutex_);
  // Checked before rounding: malloc(SIZE_MAX) must fail, not round up to 0 bytes.
  if (bytes > size_ || size_ - bytes < 15)
    return 0;
  const uint64_t need = (std::max<uint64_t>(bytes, 1) + 15) / 16 * 16;
  auto fit = free_.lower_bound({need, 0});
  if (fit == free_.end())
    return 0;
  const uint64_t offset = fit->second;
  free_.erase(fit);
  Block &b = blocks_[offset];
  if (b.size > need) {
    Block rest{b.size - need, 0, false, b.freed};
    blocks_[offset + need] = rest;
    free_.insert({rest.size, offset + need});
  }
  Block &taken = blocks_[offset];
  taken = Block{need, bytes, true, false};
  return base_ + offset;
}

bool DeviceHeap::release(uint64_t address) {
  std::lock_guard lock(mutex_);
  if (address < base_ || address >= base_ + size_)
    return false;
  auto it = blocks_.find(address - base_);
  if (it == blocks_.end() || !it->second.used)
    return false;
  it->second = Block{it->second.size, 0, false, true};
  // Coalesce with free neighbours.
  if (auto next = std::next(it); next != blocks_.end() && !next->second.used) {
    free_.erase({next->second.size, next->first});
    it->second.size += next->second.size;
    blocks_.erase(next);
  }
  if (it != blocks_.begin()) {
    if (auto prev = std::prev(it); !prev->second.used) {
      free_.erase({prev->second.size, prev->first});
      prev->second.size += it->second.size;
      prev->second.freed = true;
      blocks_.erase(it);
      it = prev;
    }
  }
  free_.insert({it->second.size, it->first});
  return true;
}

std::optional<DeviceHeap::Miss> DeviceHeap::check(uint64_t address, uint64_t bytes) {
  std::lock_guard lock(mutex_);
  const uint64_t offset = address - base_;
  auto it = blocks_.upper_bound(offset);
  if (it == blocks_.begin())
    return Miss{FaultKind::OutOfBounds, "the address is not in the device heap"};
  --it;
  const Block &b = it->second;
  const uint64_t into = offset - it->first;
  if (b.used && into < b.requested && bytes <= b.requested - into)
    return std::nullopt;
  if (b.used)
    return Miss{FaultKind::OutOfBounds,
                fmt::format("the address is {} bytes into a {}-byte block malloc returned at 0x{:x}, past its end",
                            into, b.requested, base_ + it->first)};
  if (b.freed)
    return Miss{FaultKind::UseAfterFree, fmt::format("the address is in device heap memory that free() released")};
  // Free and never allocated: name the block below, as compute-sanitizer names the nearest allocation
  // (free neighbours are coalesced, so a free block's lower neighbour is in use).
  if (it != blocks_.begin())
    if (const auto below = std::prev(it); below->second.used)
      return Miss{FaultKind::OutOfBounds,
                  fmt::format("the address is {} bytes after the {}-byte block malloc returned at 0x{:x}",
                              offset - below->first - below->second.requested, below->second.requested,
                              base_ + below->first)};
  return Miss{FaultKind::OutOfBounds, "the address is in the device heap, outside every block malloc returned"};
}

// ---------------------------------------------------------------------------------------------
// Call operands

namespace {

const uint32_t *callList(ExecContext &ctx, const MicroOp &op) {
  return ctx.fn->extra.data() + op.extra;
}

} // namespace

namespace {

/// Copies up to `bytes` of a lane's frame at `offset` (a caller's .param slot), no further than the
/// lane's own local memory: a call whose PTX passes a smaller argument than the callee takes reads
/// what follows it, never past the frame (the rest reads 0).
void readFrame(ExecContext &ctx, int lane, uint64_t offset, void *out, size_t bytes) {
  const uint64_t at = ctx.frameBase() + offset;
  const size_t fits = at >= ctx.warp->localStride ? 0 : std::min<uint64_t>(bytes, ctx.warp->localStride - at);
  std::memset(out, 0, bytes);
  if (fits)
    std::memcpy(out, frameBytes(ctx, lane, offset), fits);
}

} // namespace

uint64_t callArgument(ExecContext &ctx, const MicroOp &op, uint32_t index, int lane, uint32_t size) {
  const uint32_t *list = callList(ctx, op);
  uint32_t numRets = list[0], numArgs = list[1];
  if (index >= numArgs)
    return 0;
  const uint32_t *a = list + 2 + 2 * numRets + 2 * index;
  if (static_cast<CallOperandKind>(a[0]) == CallOperandKind::Value) {
    uint64_t v = ctx.in(a[1])[lane];
    return size >= 8 ? v : v & ((uint64_t{1} << (8 * size)) - 1);
  }
  uint64_t v = 0;
  readFrame(ctx, lane, a[1], &v, std::min<uint32_t>(size, 8));
  return v;
}

void setCallResult(ExecContext &ctx, const MicroOp &op, int lane, uint64_t bits, uint32_t size) {
  const uint32_t *list = callList(ctx, op);
  if (list[0] == 0)
    return;
  const uint32_t *r = list + 2;
  if (static_cast<CallOperandKind>(r[0]) == CallOperandKind::Value) {
    ctx.out(r[1])[lane] = bits;
    return;
  }
  const uint64_t at = ctx.frameBase() + r[1];
  if (at < ctx.warp->localStride)
    std::memcpy(frameBytes(ctx, lane, r[1]), &bits,
                std::min<uint64_t>(std::min<uint32_t>(size, 8), ctx.warp->localStride - at));
}

// ---------------------------------------------------------------------------------------------
// Device memory reads for strings and argument buffers

bool readDeviceBytes(ExecContext &ctx, int lane, uint64_t generic, void *out, uint32_t bytes, Space space) {
  WarpAccess acc;
  acc.addresses[lane] = generic;
  translate(ctx, space, 1u << lane, bytes, 1, false, acc);
  if (!(acc.mask >> lane & 1))
    return false;
  std::memcpy(out, acc.host[lane], bytes);
  return true;
}

bool readDeviceString(ExecContext &ctx, int lane, uint64_t generic, std::string &out, size_t limit, Space space) {
  out.clear();
  for (size_t i = 0; i < limit; ++i) {
    char c;
    if (!readDeviceBytes(ctx, lane, generic + i, &c, 1, space))
      return false;
    if (c == 0)
      return true;
    out.push_back(c);
  }
  return true;
}

namespace {

void emitHeapEvent(ExecContext &ctx, const MicroOp &op, HeapOp kind, HeapEvent &e) {
  e.pc = ctx.pc;
  e.instruction = op.instruction;
  e.op = kind;
  ctx.listener->onHeap(ctx.warpRef(), e);
}

} // namespace

// ---------------------------------------------------------------------------------------------
// The device runtime (dynamic parallelism, CDP2)

namespace {

// cudaError_t values the device runtime returns.
constexpr uint32_t kCudaSuccess = abi::cuda::kSuccess;
constexpr uint32_t kCudaErrorInvalidValue = abi::cuda::kErrorInvalidValue;
constexpr uint32_t kCudaErrorMemoryAllocation = abi::cuda::kErrorMemoryAllocation;
constexpr uint32_t kCudaErrorInvalidDevicePointer = abi::cuda::kErrorInvalidDevicePointer;
constexpr uint32_t kCudaErrorInvalidConfiguration = abi::cuda::kErrorInvalidConfiguration;
constexpr uint32_t kCudaErrorLaunchMaxDepthExceeded = abi::cuda::kErrorLaunchMaxDepthExceeded;
constexpr uint32_t kCudaErrorLaunchPendingCountExceeded = abi::cuda::kErrorLaunchPendingCountExceeded;
constexpr uint32_t kCudaErrorInvalidDeviceFunction = abi::cuda::kErrorInvalidDeviceFunction;
constexpr uint32_t kCudaErrorInvalidPitchValue = abi::cuda::kErrorInvalidPitchValue;
constexpr uint32_t kCudaErrorInvalidMemcpyDirection = abi::cuda::kErrorInvalidMemcpyDirection;
/// cudaMemcpyKind values a copy in device code may take: cudaMemcpyDeviceToDevice and
/// cudaMemcpyDefault; the others are refused with cudaErrorInvalidMemcpyDirection, as an H200 refuses
/// cudaMemcpyHostToDevice (validation/programs/results/rdc/cdp_runtime_api.out).
constexpr uint32_t kMemcpyDeviceToDevice = 3, kMemcpyDefault = 4;
/// A set in device code writes zero bytes whatever value it is given: what the device runtime of
/// CUDA 13 does on an H200 (driver 580.159: cudaMemsetAsync, cudaMemset2DAsync and cudaMemset3DAsync
/// with 0x01, 0x5a, 0x7f and 0xff all left zeros; validation/programs/results/rdc/cdp_runtime_api.out),
/// so a program computes under ptxray what it computes on the GPU.
constexpr bool kDeviceMemsetWritesZero = true;

/// The largest grid and block a child launch may have (every GPU since Kepler, which introduced
/// dynamic parallelism: [PG] compute capabilities table).
constexpr uint64_t kMaxGridX = 2147483647, kMaxGridYZ = 65535, kMaxBlockXY = 1024, kMaxBlockZ = 64,
                   kMaxBlockThreads = 1024;

Dim3 dim3Argument(ExecContext &ctx, const MicroOp &op, uint32_t index, int lane) {
  // dim3 travels as a 12-byte .param aggregate: its bytes in the caller's frame.
  const uint32_t *list = ctx.fn->extra.data() + op.extra;
  const uint32_t numRets = list[0], numArgs = list[1];
  Dim3 d{1, 1, 1};
  if (index >= numArgs)
    return d;
  const uint32_t *a = list + 2 + 2 * numRets + 2 * index;
  if (static_cast<CallOperandKind>(a[0]) == CallOperandKind::Value) {
    const uint64_t v = ctx.in(a[1])[lane];
    d.x = static_cast<uint32_t>(v);
    d.y = static_cast<uint32_t>(v >> 32);
    return d;
  }
  readFrame(ctx, lane, a[1], &d, sizeof d);
  return d;
}

/// The fields of an aggregate argument passed by value (cudaPitchedPtr, cudaExtent): `count` values of
/// `fieldBytes` each, from its bytes in the caller's frame.
std::array<uint64_t, 4> aggregateArgument(ExecContext &ctx, const MicroOp &op, uint32_t index, int lane, int count,
                                          uint32_t fieldBytes) {
  std::array<uint64_t, 4> fields{};
  const uint32_t *list = ctx.fn->extra.data() + op.extra;
  const uint32_t numRets = list[0], numArgs = list[1];
  if (index >= numArgs)
    return fields;
  const uint32_t *a = list + 2 + 2 * numRets + 2 * index;
  if (static_cast<CallOperandKind>(a[0]) == CallOperandKind::Value) {
    fields[0] = ctx.in(a[1])[lane];
    return fields;
  }
  std::byte bytes[32];
  readFrame(ctx, lane, a[1], bytes, sizeof bytes);
  for (int i = 0; i < count && i < 4 && (i + 1) * fieldBytes <= sizeof bytes; ++i)
    std::memcpy(&fields[i], bytes + i * fieldBytes, fieldBytes);
  return fields;
}

} // namespace

std::optional<std::pair<FaultKind, std::string>> checkStreamCopyRange(const LaunchState &L, uint64_t address,
                                                                      uint64_t bytes, bool write) {
  const Allocation *a = L.memory->find(address);
  if (!a || a->freed || address - a->base > a->size || bytes > a->size - (address - a->base))
    return std::make_pair(a && a->freed ? FaultKind::UseAfterFree : FaultKind::OutOfBounds,
                          describeMiss(*L.memory, address, bytes));
  if (write && a->readOnly)
    return std::make_pair(FaultKind::ReadOnly, fmt::format("{} is read-only", a->label));
  if (a->kind == AllocationKind::Heap) {
    // malloc's heap, or the device runtime's parameter buffers: within one block.
    DeviceHeap *owner = L.heap && a->base == L.heap->base()                 ? L.heap
                        : L.launchArena && a->base == L.launchArena->base() ? L.launchArena
                                                                            : nullptr;
    if (owner)
      if (std::optional<DeviceHeap::Miss> miss = owner->check(address, bytes))
        return std::make_pair(miss->kind, std::move(miss->detail));
  }
  return std::nullopt;
}

namespace {

/// The kernel a device function pointer names (its index in the program's functions), or nullopt:
/// an entry with a body (a child copy of a kernel is the kernel itself: entries are never copied).
std::optional<uint32_t> kernelAt(const LaunchState &L, uint64_t pointer) {
  const uint64_t index = (pointer - kFunctionWindow) / kFunctionStride;
  if (pointer < kFunctionWindow || (pointer - kFunctionWindow) % kFunctionStride != 0 ||
      index >= L.program->functions.size())
    return std::nullopt;
  const DecodedFunction &f = L.program->functions[index];
  if (!f.isEntry || !f.source->hasBody)
    return std::nullopt;
  return static_cast<uint32_t>(index);
}

} // namespace

void runDeviceRuntimeCall(ExecContext &ctx, const MicroOp &op, const DecodedFunction &callee, uint32_t mask) {
  LaunchState &L = *ctx.launch;
  const uint32_t ptrSize = L.program->addressBits / 8;
  const uint64_t blockThreads = L.block.count();
  auto threadKey = [&](int lane) {
    const Dim3 t = ctx.threadIdOf(lane);
    return ctx.cta->linearId * blockThreads + (uint64_t{t.z} * L.block.y + t.y) * L.block.x + t.x;
  };
  auto setError = [&](int lane, uint32_t error) {
    if (error != kCudaSuccess)
      L.lastErrors[threadKey(lane)] = error; // under L.mutex
  };
  // Writes a call's out-parameter (a handle, a pointer, an int) through the lane's pointer, a store
  // the listeners hear (initcheck: the variable is written); false when the pointer faulted (reported).
  auto storeResult = [&](int lane, uint64_t where, uint64_t value, uint32_t bytes) {
    WarpAccess acc;
    acc.addresses[lane] = where;
    translate(ctx, Space::Generic, 1u << lane, bytes, 1, true, acc);
    if (!(acc.mask >> lane & 1))
      return false;
    std::memcpy(acc.host[lane], &value, bytes);
    if (ctx.listener)
      emitMemoryEvent(ctx, op, MemoryOp::Store, acc, static_cast<uint8_t>(bytes), 1);
    return true;
  };
  switch (static_cast<abi::SystemCallId>(callee.systemCall)) {
  case abi::SystemCallId::DeviceGetParameterBuffer: {
    std::lock_guard lock(L.mutex);
    forLanes(mask, [&](int lane) {
      const Dim3 grid = dim3Argument(ctx, op, 1, lane), block = dim3Argument(ctx, op, 2, lane);
      const uint32_t shared = static_cast<uint32_t>(callArgument(ctx, op, 3, lane, 4));
      const std::optional<uint32_t> index = kernelAt(L, callArgument(ctx, op, 0, lane, ptrSize));
      if (!index) {
        setError(lane, kCudaErrorInvalidDeviceFunction);
        setCallResult(ctx, op, lane, 0, ptrSize);
        return;
      }
      const DecodedFunction *child = &L.program->functions[*index];
      const uint64_t buffer =
          L.launchArena ? L.launchArena->allocate(std::max<uint64_t>(child->kernelParamBytes, 1)) : 0;
      if (!buffer) {
        setError(lane, kCudaErrorMemoryAllocation);
        setCallResult(ctx, op, lane, 0, ptrSize);
        return;
      }
      L.parameterBuffers[buffer] = {*index, grid, block, shared};
      setCallResult(ctx, op, lane, buffer, ptrSize);
    });
    return;
  }
  case abi::SystemCallId::DeviceLaunch: {
    std::lock_guard lock(L.mutex);
    uint32_t launched = 0;
    forLanes(mask, [&](int lane) {
      const uint64_t buffer = callArgument(ctx, op, 0, lane, ptrSize);
      const uint64_t stream = callArgument(ctx, op, 1, lane, ptrSize);
      auto it = L.parameterBuffers.find(buffer);
      uint32_t error = kCudaSuccess;
      if (it == L.parameterBuffers.end()) {
        error = kCudaErrorInvalidValue; // not a buffer cudaGetParameterBuffer gave, or launched already
      } else {
        const LaunchState::ParameterBuffer p = it->second;
        const DecodedFunction &child = L.program->functions[p.function];
        const bool configOk = p.grid.x >= 1 && p.grid.y >= 1 && p.grid.z >= 1 && p.block.x >= 1 && p.block.y >= 1 &&
                              p.block.z >= 1 && p.grid.x <= kMaxGridX && p.grid.y <= kMaxGridYZ &&
                              p.grid.z <= kMaxGridYZ && p.block.x <= kMaxBlockXY && p.block.y <= kMaxBlockXY &&
                              p.block.z <= kMaxBlockZ && p.block.count() <= kMaxBlockThreads;
        if (!configOk)
          error = kCudaErrorInvalidConfiguration;
        else if (L.depth + 1 >= L.options.maxNestingDepth)
          error = kCudaErrorLaunchMaxDepthExceeded;
        else if (L.pendingLaunches && L.pendingLaunches->load() >= L.options.pendingLaunchLimit)
          error = kCudaErrorLaunchPendingCountExceeded;
        if (error == kCudaSuccess) {
          LaunchState::ChildLaunch c;
          c.origin.launchingCta = ctx.cta->linearId;
          c.origin.launchingThread = threadKey(lane) - ctx.cta->linearId * blockThreads;
          c.origin.launchSequence = L.launchesByThread[threadKey(lane)]++;
          c.origin.stream = stream;
          c.function = p.function;
          c.grid = p.grid;
          c.block = p.block;
          c.sharedBytes = p.sharedBytes;
          // The arguments as they are now: the parent may not change them after the launch.
          c.params.resize(std::max<uint64_t>(child.kernelParamBytes, 1));
          if (const std::byte *host = L.memory->hostRange(buffer, c.params.size()))
            std::memcpy(c.params.data(), host, c.params.size());
          L.children.push_back(std::move(c));
          if (L.pendingLaunches)
            ++*L.pendingLaunches;
          launched |= 1u << lane;
        }
        L.parameterBuffers.erase(it);
        if (L.launchArena)
          L.launchArena->release(buffer);
      }
      setError(lane, error);
      setCallResult(ctx, op, lane, error, 4);
    });
    if (ctx.listener && launched)
      ctx.listener->onChildLaunch(ctx.warpRef(), launched);
    return;
  }
  case abi::SystemCallId::DeviceGetLastError:
  case abi::SystemCallId::DevicePeekAtLastError: {
    const bool reset = static_cast<abi::SystemCallId>(callee.systemCall) == abi::SystemCallId::DeviceGetLastError;
    std::lock_guard lock(L.mutex);
    forLanes(mask, [&](int lane) {
      auto it = L.lastErrors.find(threadKey(lane));
      setCallResult(ctx, op, lane, it == L.lastErrors.end() ? kCudaSuccess : it->second, 4);
      if (reset && it != L.lastErrors.end())
        L.lastErrors.erase(it);
    });
    return;
  }
  case abi::SystemCallId::DeviceStreamCreate: {
    // A stream of the grid: its launches run once the grid is done, as those into the block's stream
    // (the parent cannot wait for either). A handle is never 0, 3 or 4 (NULL, tail, fire-and-forget).
    forLanes(mask, [&](int lane) {
      uint64_t handle = 0;
      {
        std::lock_guard lock(L.mutex);
        handle = 0x100 + L.streamsCreated++;
      }
      if (storeResult(lane, callArgument(ctx, op, 0, lane, ptrSize), handle, ptrSize))
        setCallResult(ctx, op, lane, kCudaSuccess, 4);
    });
    return;
  }
  case abi::SystemCallId::DeviceMalloc: {
    // Device-side cudaMalloc takes from the device heap, as malloc does (cudaLimitMallocHeapSize);
    // its blocks are freed by device-side cudaFree.
    HeapEvent e;
    forLanes(mask, [&](int lane) {
      const uint64_t bytes = callArgument(ctx, op, 1, lane, ptrSize);
      const uint64_t p = L.heap && bytes ? L.heap->allocate(bytes) : 0;
      if (!storeResult(lane, callArgument(ctx, op, 0, lane, ptrSize), p, ptrSize)) {
        if (p)
          L.heap->release(p);
        return;
      }
      setCallResult(ctx, op, lane, p || !bytes ? kCudaSuccess : kCudaErrorMemoryAllocation, 4);
      if (p) {
        e.mask |= 1u << lane;
        e.addresses[lane] = p;
        e.bytes[lane] = bytes;
      } else if (bytes) {
        std::lock_guard lock(L.mutex);
        setError(lane, kCudaErrorMemoryAllocation);
      }
    });
    if (ctx.listener && e.mask)
      emitHeapEvent(ctx, op, HeapOp::Malloc, e);
    return;
  }
  case abi::SystemCallId::DeviceFree: {
    HeapEvent e;
    forLanes(mask, [&](int lane) {
      const uint64_t p = callArgument(ctx, op, 0, lane, ptrSize);
      if (p && (!L.heap || !L.heap->release(p))) {
        // Not a pointer device-side cudaMalloc returned, or freed twice: the error, no fault.
        setCallResult(ctx, op, lane, kCudaErrorInvalidDevicePointer, 4);
        std::lock_guard lock(L.mutex);
        setError(lane, kCudaErrorInvalidDevicePointer);
        return;
      }
      setCallResult(ctx, op, lane, kCudaSuccess, 4);
      if (p) {
        e.mask |= 1u << lane;
        e.addresses[lane] = p;
      }
    });
    if (ctx.listener && e.mask)
      emitHeapEvent(ctx, op, HeapOp::Free, e);
    return;
  }
  case abi::SystemCallId::DeviceQuery: {
    // One GPU, device 0, the device runtime of CUDA 13.0.
    // cudaDeviceGetCacheConfig: cudaFuncCachePreferNone; cudaDeviceGetSharedMemConfig:
    // cudaSharedMemBankSizeFourByte (an H200's answers, validation/programs/results/rdc/cdp_runtime_api.out).
    const uint32_t value = callee.name == "__cudaCDP2GetDeviceCount"             ? 1
                           : callee.name == "__cudaCDP2RuntimeGetVersion"        ? 13000
                           : callee.name == "__cudaCDP2DeviceGetSharedMemConfig" ? 1
                                                                                 : 0;
    forLanes(mask, [&](int lane) {
      if (storeResult(lane, callArgument(ctx, op, 0, lane, ptrSize), value, 4))
        setCallResult(ctx, op, lane, kCudaSuccess, 4);
    });
    return;
  }
  case abi::SystemCallId::DeviceEventCreate: {
    // Events in device code order work between streams; the grids a grid launched run one after
    // another once it is done, in a fixed order (launching block, thread, launch count), so a wait
    // on an event recorded by an earlier launch of the same thread always holds.
    forLanes(mask, [&](int lane) {
      uint64_t handle = 0;
      {
        std::lock_guard lock(L.mutex);
        handle = 0x100 + L.eventsCreated++;
      }
      if (storeResult(lane, callArgument(ctx, op, 0, lane, ptrSize), handle, ptrSize))
        setCallResult(ctx, op, lane, kCudaSuccess, 4);
    });
    return;
  }
  case abi::SystemCallId::DeviceEventNoOp:
  case abi::SystemCallId::DeviceStreamDestroy:
    forLanes(mask, [&](int lane) { setCallResult(ctx, op, lane, kCudaSuccess, 4); });
    return;
  case abi::SystemCallId::DeviceErrorText: {
    // The same names and texts as the host's cudaGetErrorName/cudaGetErrorString (an H200 gives
    // the same), in driver memory the device made before the launch (Device::errorTextAddress).
    const bool name = callee.name == "__cudaCDP2GetErrorName";
    forLanes(mask, [&](int lane) {
      const int error = static_cast<int>(callArgument(ctx, op, 0, lane, 4));
      setCallResult(ctx, op, lane, L.device ? L.device->errorTextAddress(error, name) : 0, ptrSize);
    });
    return;
  }
  case abi::SystemCallId::DeviceGetAttribute: {
    forLanes(mask, [&](int lane) {
      // The device argument is not checked: an H200 answers for device 1 of a one-GPU machine too
      // (tests/kernels/cdp/device_runtime.cu, measured).
      const int attribute = static_cast<int>(callArgument(ctx, op, 1, lane, 4));
      const std::optional<int> value =
          arch::cudaDeviceAttribute(L.device->computeCapability(), L.device->board(), attribute, 0);
      const uint32_t error = value ? kCudaSuccess : kCudaErrorInvalidValue;
      if (error != kCudaSuccess) {
        setCallResult(ctx, op, lane, error, 4);
        std::lock_guard lock(L.mutex);
        setError(lane, error);
        return;
      }
      if (storeResult(lane, callArgument(ctx, op, 0, lane, ptrSize), static_cast<uint32_t>(*value), 4))
        setCallResult(ctx, op, lane, kCudaSuccess, 4);
    });
    return;
  }
  case abi::SystemCallId::DeviceGetLimit: {
    // The stack, printf FIFO, heap and pending-launch limits are the launch's own (what the host set
    // with cudaDeviceSetLimit before it, else CUDA's defaults); the others CUDA's defaults.
    forLanes(mask, [&](int lane) {
      std::optional<uint64_t> value;
      switch (static_cast<int>(callArgument(ctx, op, 1, lane, 4))) {
      case abi::cuda::LimitStackSize: value = L.options.stackLimitBytes; break;
      case abi::cuda::LimitPrintfFifoSize: value = L.printfFifoBytes; break;
      case abi::cuda::LimitMallocHeapSize: value = L.heap ? L.heap->size() : 0; break;
      case abi::cuda::LimitDevRuntimeSyncDepth: value = 2; break; // the host's default
      case abi::cuda::LimitDevRuntimePendingLaunchCount: value = L.options.pendingLaunchLimit; break;
      case abi::cuda::LimitMaxL2FetchGranularity: value = 64; break;
      case abi::cuda::LimitPersistingL2CacheSize: value = 0; break;
      default: break; // an H200 answers an unknown limit with cudaErrorInvalidValue
      }
      if (!value) {
        setCallResult(ctx, op, lane, kCudaErrorInvalidValue, 4);
        std::lock_guard lock(L.mutex);
        setError(lane, kCudaErrorInvalidValue);
        return;
      }
      if (storeResult(lane, callArgument(ctx, op, 0, lane, ptrSize), *value, ptrSize))
        setCallResult(ctx, op, lane, kCudaSuccess, 4);
    });
    return;
  }
  case abi::SystemCallId::DeviceFuncGetAttributes: {
    forLanes(mask, [&](int lane) {
      // A pointer that names no kernel is not refused: an H200 returns cudaSuccess for it (measured,
      // tests/kernels/cdp/device_runtime.cu); ptxray then writes every field 0.
      const std::optional<uint32_t> index = kernelAt(L, callArgument(ctx, op, 1, lane, ptrSize));
      const FunctionAttributes a = index && L.module
                                       ? L.device->functionAttributes(*L.module, L.program->functions[*index])
                                       : FunctionAttributes{};
      // cudaFuncAttributes: three size_t, then 13 ints and 16 reserved ones (144 bytes with 64-bit
      // addresses), stored a 4-byte word at a time (the structure's alignment is at least 4).
      std::vector<std::byte> bytes(3 * ptrSize + 29 * 4, std::byte{0});
      const uint64_t sizes[3] = {a.sharedSizeBytes, a.constSizeBytes, a.localSizeBytes};
      for (int i = 0; i < 3; ++i)
        std::memcpy(bytes.data() + i * ptrSize, &sizes[i], ptrSize);
      const int ints[7] = {a.maxThreadsPerBlock,        a.numRegs,     a.ptxVersion, a.binaryVersion, 0,
                           a.maxDynamicSharedSizeBytes, index ? -1 : 0};
      std::memcpy(bytes.data() + 3 * ptrSize, ints, sizeof ints);
      bytes.resize((bytes.size() + 7) / 8 * 8, std::byte{0});
      const uint64_t where = callArgument(ctx, op, 0, lane, ptrSize);
      for (size_t at = 0; at < bytes.size(); at += 4) {
        uint32_t word;
        std::memcpy(&word, bytes.data() + at, 4);
        if (!storeResult(lane, where + at, word, 4))
          return;
      }
      setCallResult(ctx, op, lane, kCudaSuccess, 4);
    });
    return;
  }
  case abi::SystemCallId::DeviceOccupancy: {
    forLanes(mask, [&](int lane) {
      const std::optional<uint32_t> index = kernelAt(L, callArgument(ctx, op, 1, lane, ptrSize));
      const int blockSize = static_cast<int>(callArgument(ctx, op, 2, lane, 4));
      const uint64_t dynamicShared = callArgument(ctx, op, 3, lane, ptrSize);
      std::optional<int> blocks;
      uint32_t error = kCudaErrorInvalidDeviceFunction;
      if (index && L.module) {
        blocks = blockSize > 0
                     ? L.device->activeBlocksPerSm(*L.module, L.program->functions[*index], blockSize, dynamicShared)
                     : std::nullopt;
        error = blocks ? kCudaSuccess : kCudaErrorInvalidValue;
      }
      if (error != kCudaSuccess) {
        setCallResult(ctx, op, lane, error, 4);
        std::lock_guard lock(L.mutex);
        setError(lane, error);
        return;
      }
      if (storeResult(lane, callArgument(ctx, op, 0, lane, ptrSize), static_cast<uint32_t>(*blocks), 4))
        setCallResult(ctx, op, lane, kCudaSuccess, 4);
    });
    return;
  }
  case abi::SystemCallId::DeviceMemcpyAsync:
  case abi::SystemCallId::DeviceMemcpy2DAsync:
  case abi::SystemCallId::DeviceMemcpy3DAsync:
  case abi::SystemCallId::DeviceMemsetAsync:
  case abi::SystemCallId::DeviceMemset2DAsync:
  case abi::SystemCallId::DeviceMemset3DAsync: {
    const auto id = static_cast<abi::SystemCallId>(callee.systemCall);
    forLanes(mask, [&](int lane) {
      using Kind = LaunchState::ChildLaunch::Kind;
      LaunchState::ChildLaunch c;
      LaunchState::ChildLaunch::Rows &r = c.rows;
      uint32_t kind = kMemcpyDeviceToDevice, error = kCudaSuccess;
      uint64_t stream = 0;
      auto arg = [&](uint32_t i, uint32_t bytes) { return callArgument(ctx, op, i, lane, bytes); };
      switch (id) {
      case abi::SystemCallId::DeviceMemcpyAsync:
        c.kind = Kind::Copy;
        r.dst = arg(0, ptrSize), r.src = arg(1, ptrSize), r.width = arg(2, ptrSize);
        kind = static_cast<uint32_t>(arg(3, 4)), stream = arg(4, ptrSize);
        break;
      case abi::SystemCallId::DeviceMemcpy2DAsync:
        c.kind = Kind::Copy;
        r.dst = arg(0, ptrSize), r.dstPitch = arg(1, ptrSize), r.src = arg(2, ptrSize), r.srcPitch = arg(3, ptrSize);
        r.width = arg(4, ptrSize), r.height = arg(5, ptrSize), kind = static_cast<uint32_t>(arg(6, 4));
        stream = arg(7, ptrSize);
        if (r.height > 1 && (r.width > r.dstPitch || r.width > r.srcPitch))
          error = kCudaErrorInvalidPitchValue;
        break;
      case abi::SystemCallId::DeviceMemcpy3DAsync: {
        // cudaMemcpy3DParms: srcArray, srcPos (x, y, z), srcPtr (ptr, pitch, xsize, ysize), dstArray,
        // dstPos, dstPtr, extent (width, height, depth), each a pointer-sized word, then kind.
        c.kind = Kind::Copy;
        stream = arg(1, ptrSize);
        const uint64_t at = arg(0, ptrSize);
        uint64_t w[19] = {};
        for (int i = 0; i < 19; ++i)
          if (!readDeviceBytes(ctx, lane, at + i * ptrSize, &w[i], ptrSize))
            return; // reported
        uint32_t k = 0;
        if (!readDeviceBytes(ctx, lane, at + 19 * ptrSize, &k, 4))
          return;
        kind = k;
        const uint64_t srcArray = w[0], srcX = w[1], srcY = w[2], srcZ = w[3], srcPtr = w[4], srcPitch = w[5],
                       srcYsize = w[7], dstArray = w[8], dstX = w[9], dstY = w[10], dstZ = w[11], dstPtr = w[12],
                       dstPitch = w[13], dstYsize = w[15];
        if (srcArray || dstArray) { // arrays: the device runtime copies linear memory only
          error = kCudaErrorInvalidValue;
          break;
        }
        r.src = srcPtr + srcZ * srcPitch * srcYsize + srcY * srcPitch + srcX;
        r.dst = dstPtr + dstZ * dstPitch * dstYsize + dstY * dstPitch + dstX;
        r.srcPitch = srcPitch, r.dstPitch = dstPitch;
        if (__builtin_mul_overflow(srcPitch, srcYsize, &r.srcSlice) ||
            __builtin_mul_overflow(dstPitch, dstYsize, &r.dstSlice))
          error = kCudaErrorInvalidValue; // slices no memory could hold
        r.width = w[16], r.height = w[17], r.depth = w[18];
        if ((r.height > 1 || r.depth > 1) && (r.width > srcPitch || r.width > dstPitch))
          error = kCudaErrorInvalidPitchValue;
        else if (r.depth > 1 && (r.height > srcYsize || r.height > dstYsize))
          error = kCudaErrorInvalidValue; // slices would overlap

        break;
      }
      case abi::SystemCallId::DeviceMemsetAsync:
        c.kind = Kind::Set;
        r.dst = arg(0, ptrSize), r.value = static_cast<uint8_t>(arg(1, 4)), r.width = arg(2, ptrSize);
        stream = arg(3, ptrSize);
        break;
      case abi::SystemCallId::DeviceMemset2DAsync:
        c.kind = Kind::Set;
        r.dst = arg(0, ptrSize), r.dstPitch = arg(1, ptrSize), r.value = static_cast<uint8_t>(arg(2, 4));
        r.width = arg(3, ptrSize), r.height = arg(4, ptrSize), stream = arg(5, ptrSize);
        if (r.height > 1 && r.width > r.dstPitch) // cudaErrorInvalidValue, where a copy says pitch (H200)
          error = kCudaErrorInvalidValue;
        break;
      default: { // cudaMemset3DAsync(cudaPitchedPtr, value, cudaExtent, stream)
        c.kind = Kind::Set;
        const auto p = aggregateArgument(ctx, op, 0, lane, 4, ptrSize);
        const auto e = aggregateArgument(ctx, op, 2, lane, 3, ptrSize);
        r.dst = p[0], r.dstPitch = p[1];
        if (__builtin_mul_overflow(p[1], p[3], &r.dstSlice))
          error = kCudaErrorInvalidValue;
        r.value = static_cast<uint8_t>(arg(1, 4));
        r.width = e[0], r.height = e[1], r.depth = e[2], stream = arg(3, ptrSize);
        if (((r.height > 1 || r.depth > 1) && r.width > r.dstPitch) || (r.depth > 1 && r.height > p[3]))
          error = kCudaErrorInvalidValue;
        break;
      }
      }
      if (c.kind == Kind::Copy && kind != kMemcpyDeviceToDevice && kind != kMemcpyDefault)
        error = kCudaErrorInvalidMemcpyDirection;
      if (c.kind == Kind::Set && kDeviceMemsetWritesZero)
        r.value = 0;
      if (r.width == 0 || r.height == 0 || r.depth == 0)
        r.height = r.depth = 0; // nothing to do, a success
      // The rows must be device memory the copy may use now: each side's extent, from its first row's
      // start to its last row's end, inside one allocation, checked as a store or load of it would be
      // (read-only constants, malloc's blocks), at a cost that does not grow with the row count (rows
      // are distinct, as the pitch checks above make them). One outside it faults at the call, where
      // the program named it (on a GPU the copy fails later, and the launch tree with it).
      auto extentBytes = [&](uint64_t base, uint64_t pitch, uint64_t slice) -> std::optional<uint64_t> {
        uint64_t slices = 0, rows = 0, bytes = 0;
        if (__builtin_mul_overflow(r.depth - 1, slice, &slices) || __builtin_mul_overflow(r.height - 1, pitch, &rows) ||
            __builtin_add_overflow(slices, rows, &bytes) || __builtin_add_overflow(bytes, r.width, &bytes) ||
            bytes > UINT64_MAX - base)
          return std::nullopt;
        return bytes;
      };
      if (error == kCudaSuccess && r.height && r.depth) {
        for (const bool write : {true, false}) {
          if (!write && c.kind != Kind::Copy)
            break;
          const uint64_t at = write ? r.dst : r.src;
          const std::optional<uint64_t> bytes =
              write ? extentBytes(r.dst, r.dstPitch, r.dstSlice) : extentBytes(r.src, r.srcPitch, r.srcSlice);
          const std::optional<std::pair<FaultKind, std::string>> bad =
              bytes ? checkStreamCopyRange(L, at, *bytes, write)
                    : std::make_pair(FaultKind::OutOfBounds, std::string("its rows pass the end of the address space"));
          if (bad) {
            const uint64_t rows = r.height * r.depth;
            ctx.fault(bad->first, lane,
                      fmt::format("{}: {} at 0x{:x} ({} row{} of {} bytes{}): {}", callee.name,
                                  write ? "the destination" : "the source", at, rows, rows == 1 ? "" : "s", r.width,
                                  rows == 1 ? "" : fmt::format(", {} bytes apart", write ? r.dstPitch : r.srcPitch),
                                  bad->second),
                      at);
            return;
          }
        }
      }
      std::lock_guard lock(L.mutex);
      if (error == kCudaSuccess && L.pendingLaunches && L.pendingLaunches->load() >= L.options.pendingLaunchLimit)
        error = kCudaErrorLaunchPendingCountExceeded;
      if (error != kCudaSuccess) {
        setCallResult(ctx, op, lane, error, 4);
        setError(lane, error);
        return;
      }
      c.origin.launchingCta = ctx.cta->linearId;
      c.origin.launchingThread = threadKey(lane) - ctx.cta->linearId * blockThreads;
      // In order with the thread's launches: after those it made before, before those it makes after.
      c.origin.launchSequence = L.launchesByThread[threadKey(lane)];
      c.origin.stream = stream;
      L.children.push_back(std::move(c));
      if (L.pendingLaunches)
        ++*L.pendingLaunches;
      setCallResult(ctx, op, lane, kCudaSuccess, 4);
    });
    return;
  }
  default: {
    const int lane = std::countr_zero(mask);
    ctx.fault(FaultKind::InvalidCall, lane,
              fmt::format("{} (the device runtime, dynamic parallelism) is not supported by ptxray: it runs the "
                          "device runtime of CUDA 12 and later (CDP2) as nvcc emits it, launches through "
                          "cudaGetParameterBufferV2 and cudaLaunchDeviceV2 (recompile with a CUDA 12+ nvcc)",
                          callee.name));
    return;
  }
  }
}

// ---------------------------------------------------------------------------------------------

void runSystemCall(ExecContext &ctx, const MicroOp &op, const DecodedFunction &callee, uint32_t mask) {
  const uint32_t ptrSize = ctx.launch->program->addressBits / 8;
  LaunchState &L = *ctx.launch;
  switch (static_cast<abi::SystemCallId>(callee.systemCall)) {
  case abi::SystemCallId::Vprintf:
  case abi::SystemCallId::OpenCLPrintf: {
    // The printf FIFO (cudaLimitPrintfFifoSize; OpenCL's printf buffer): a call whose text no longer
    // fits is dropped, so a launch's output, and the memory it takes, stay within it.
    const uint64_t fifo = L.printfFifoBytes;
    const bool opencl = static_cast<abi::SystemCallId>(callee.systemCall) == abi::SystemCallId::OpenCLPrintf;
    std::vector<std::string> texts;
    forLanes(mask, [&](int lane) {
      int count = 0;
      if (opencl) {
        texts.push_back(formatDevicePrintf(ctx, lane, callArgument(ctx, op, 0, lane, ptrSize), 0, count, &op, fifo));
        setCallResult(ctx, op, lane, 0, 4); // OpenCL's printf returns 0 on success
      } else {
        uint64_t format = callArgument(ctx, op, 0, lane, ptrSize);
        uint64_t args = callArgument(ctx, op, 1, lane, ptrSize);
        texts.push_back(formatDevicePrintf(ctx, lane, format, args, count, nullptr, fifo));
        setCallResult(ctx, op, lane, static_cast<uint32_t>(count), 4);
      }
    });
    std::lock_guard lock(L.mutex);
    for (const std::string &text : texts)
      if (L.printfOutput.size() + text.size() <= fifo)
        L.printfOutput += text;
    return;
  }
  case abi::SystemCallId::Malloc: {
    HeapEvent e;
    forLanes(mask, [&](int lane) {
      uint64_t bytes = callArgument(ctx, op, 0, lane, ptrSize);
      uint64_t p = L.heap ? L.heap->allocate(bytes) : 0;
      setCallResult(ctx, op, lane, p, ptrSize);
      if (p) {
        e.mask |= 1u << lane;
        e.addresses[lane] = p;
        e.bytes[lane] = bytes;
      }
    });
    if (ctx.listener && e.mask)
      emitHeapEvent(ctx, op, HeapOp::Malloc, e);
    return;
  }
  case abi::SystemCallId::Free: {
    HeapEvent e;
    forLanes(mask, [&](int lane) {
      uint64_t p = callArgument(ctx, op, 0, lane, ptrSize);
      if (p == 0)
        return;
      if (!L.heap || !L.heap->release(p)) {
        ctx.fault(FaultKind::HeapError, lane,
                  fmt::format("free(0x{:x}): not a pointer malloc() returned, or freed twice", p), p);
        return;
      }
      e.mask |= 1u << lane;
      e.addresses[lane] = p;
    });
    if (ctx.listener && e.mask)
      emitHeapEvent(ctx, op, HeapOp::Free, e);
    return;
  }
  case abi::SystemCallId::DeviceGetParameterBuffer:
  case abi::SystemCallId::DeviceLaunch:
  case abi::SystemCallId::DeviceGetLastError:
  case abi::SystemCallId::DevicePeekAtLastError:
  case abi::SystemCallId::DeviceStreamCreate:
  case abi::SystemCallId::DeviceStreamDestroy:
  case abi::SystemCallId::DeviceMalloc:
  case abi::SystemCallId::DeviceFree:
  case abi::SystemCallId::DeviceQuery:
  case abi::SystemCallId::DeviceEventCreate:
  case abi::SystemCallId::DeviceEventNoOp:
  case abi::SystemCallId::DeviceErrorText:
  case abi::SystemCallId::DeviceGetAttribute:
  case abi::SystemCallId::DeviceGetLimit:
  case abi::SystemCallId::DeviceFuncGetAttributes:
  case abi::SystemCallId::DeviceOccupancy:
  case abi::SystemCallId::DeviceMemcpyAsync:
  case abi::SystemCallId::DeviceMemcpy2DAsync:
  case abi::SystemCallId::DeviceMemcpy3DAsync:
  case abi::SystemCallId::DeviceMemsetAsync:
  case abi::SystemCallId::DeviceMemset2DAsync:
  case abi::SystemCallId::DeviceMemset3DAsync:
  case abi::SystemCallId::DeviceRuntimeUnsupported: runDeviceRuntimeCall(ctx, op, callee, mask); return;
  case abi::SystemCallId::AssertFail: {
    int lane = std::countr_zero(mask);
    std::string message, file, function;
    readDeviceString(ctx, lane, callArgument(ctx, op, 0, lane, ptrSize), message, 4096);
    readDeviceString(ctx, lane, callArgument(ctx, op, 1, lane, ptrSize), file, 4096);
    uint32_t line = static_cast<uint32_t>(callArgument(ctx, op, 2, lane, 4));
    readDeviceString(ctx, lane, callArgument(ctx, op, 3, lane, ptrSize), function, 4096);
    std::string out;
    forLanes(mask, [&](int l) {
      Dim3 t = ctx.threadIdOf(l);
      out += fmt::format("{}:{}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.\n", file, line,
                         function, ctx.cta->id.x, ctx.cta->id.y, ctx.cta->id.z, t.x, t.y, t.z, message);
    });
    {
      std::lock_guard lock(L.mutex);
      L.assertOutput += out;
      L.assertFailed = true;
    }
    ctx.fault(FaultKind::AssertFailed, lane,
              fmt::format("{}:{}: {}: Assertion `{}` failed.", file, line, function, message));
    return;
  }
  }
}

} // namespace ptxray::vm
