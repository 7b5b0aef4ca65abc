// The runtime's state behind the calls real programs make besides memory, copies and launches: device
// flags, limits, cache and shared-memory configuration, stream-ordered allocation and memory pools,
// host memory registration and host functions. Both libraries call these (libcudart.so.13 directly,
// NVIDIA's static runtime through libcuda.so.1), so both APIs see one state.
#include "runtime/HostMappedMemory.h"
#include "runtime/Runtime.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <iostream>

namespace ptxray::runtime {
namespace {

// cudaSetDeviceFlags / CU_CTX_* bits.
constexpr unsigned kScheduleMask = 0x07;
constexpr unsigned kMapHost = 0x08;
constexpr unsigned kFlagsMask = 0xff;

/// What CUDA reports before a program sets a limit (the heap is the VM's own).
size_t defaultLimit(int limit, int smCount) {
  switch (limit) {
  case cuda::LimitStackSize: return 1024;
  // The programming guide says 1 MB; an H200 (132 SMs, driver 580) reports 8650752, 64 KiB per SM
  // (validation/programs/results/runtime_calls.out): 64 KiB per SM, at least 1 MiB.
  case cuda::LimitPrintfFifoSize: return std::max<size_t>(1024 * 1024, static_cast<size_t>(smCount) * 64 * 1024);
  case cuda::LimitDevRuntimeSyncDepth: return 2;
  case cuda::LimitDevRuntimePendingLaunchCount: return 2048;
  case cuda::LimitMaxL2FetchGranularity: return 64;
  default: return 0;
  }
}

/// Reservations of a memory pool are made in chunks of this size.
constexpr uint64_t kPoolGranule = 2 * 1024 * 1024;

uint64_t roundUp(uint64_t bytes, uint64_t unit) {
  return (bytes + unit - 1) / unit * unit;
}

/// cudaMemPoolProps / CUmemPoolProps: the fields ptxray reads (CUDA 13, x86-64).
struct MemPoolPropsAbi {
  int allocType; ///< cudaMemAllocationTypePinned (1)
  int handleTypes;
  int locationType; ///< cudaMemLocationTypeDevice (1)
  int locationId;
  void *win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
};
static_assert(offsetof(MemPoolPropsAbi, maxSize) == 24);

} // namespace

// ---------------------------------------------------------------------------------------------------
// Device flags

cuda::Error Runtime::setDeviceFlags(int device, unsigned flags) {
  if (!validDevice(device))
    return cuda::kErrorInvalidDevice;
  const unsigned schedule = flags & kScheduleMask;
  if ((flags & ~kFlagsMask) || (schedule != 0 && schedule != 1 && schedule != 2 && schedule != 4))
    return cuda::kErrorInvalidValue;
  deviceFlags_[device] = flags;
  return cuda::kSuccess;
}

cuda::Error Runtime::deviceFlags(int device, unsigned *flags) const {
  if (!flags)
    return cuda::kErrorInvalidValue;
  if (!validDevice(device))
    return cuda::kErrorInvalidDevice;
  auto it = deviceFlags_.find(device);
  *flags = (it == deviceFlags_.end() ? 0u : it->second) | kMapHost;
  return cuda::kSuccess;
}

// ---------------------------------------------------------------------------------------------------
// Limits

cuda::Error Runtime::setLimit(int which, size_t value) {
  const arch::ComputeCapability &cc = device_->computeCapability();
  // Sizes the GPU could not hold are refused as an H200 refuses SIZE_MAX (cudaErrorInvalidValue);
  // those the GPU holds but the VM's address space does not fail to allocate rather than leaving a
  // heap of 0 bytes behind a success.
  if (which == cuda::LimitStackSize && value > static_cast<uint64_t>(cc.maxLocalBytesPerThread))
    return cuda::kErrorInvalidValue;
  if (which == cuda::LimitPrintfFifoSize || which == cuda::LimitMallocHeapSize) {
    const uint64_t window = vm::kGlobalAddressSpace;
    const arch::Gpu *board = target_.board();
    if (value > (board ? static_cast<uint64_t>(board->memoryBytes) : window))
      return cuda::kErrorInvalidValue;
    if (value > window - device_->memory().bytesInUse())
      return cuda::kErrorMemoryAllocation;
  }
  switch (which) {
  case cuda::LimitStackSize:
  case cuda::LimitMaxL2FetchGranularity:
  case cuda::LimitPersistingL2CacheSize: break;
  case cuda::LimitPrintfFifoSize:
  case cuda::LimitMallocHeapSize: {
    // Not after a kernel that uses printf (or malloc and free) has run: the FIFO (the heap) is in use.
    const char *call = which == cuda::LimitPrintfFifoSize ? "vprintf" : "malloc";
    for (const auto &b : binaries_)
      if (b->module && b->module->program().findFunction(call) && launches_ > 0)
        return cuda::kErrorInvalidValue;
    if (which == cuda::LimitMallocHeapSize)
      device_->setHeapBytes(value);
    break;
  }
  case cuda::LimitDevRuntimeSyncDepth: // the device runtime's cudaDeviceSynchronize: before compute capability 9.0
    if (cc.major >= 9)
      return cuda::kErrorUnsupportedLimit;
    break;
  case cuda::LimitDevRuntimePendingLaunchCount:
    if (cc.major * 10 + cc.minor < 35)
      return cuda::kErrorUnsupportedLimit;
    break;
  default: return cuda::kErrorUnsupportedLimit;
  }
  if (which == cuda::LimitMaxL2FetchGranularity && value > 128)
    value = 128; // a hint between 0 and 128 bytes
  limits_[which] = value;
  return cuda::kSuccess;
}

cuda::Error Runtime::limit(size_t *value, int which) const {
  if (!value)
    return cuda::kErrorInvalidValue;
  if (which < cuda::LimitStackSize || which > cuda::LimitPersistingL2CacheSize)
    return cuda::kErrorUnsupportedLimit;
  if (which == cuda::LimitMallocHeapSize) {
    *value = device_->heapBytes();
    return cuda::kSuccess;
  }
  auto it = limits_.find(which);
  *value = it == limits_.end() ? defaultLimit(which, smCount()) : it->second;
  return cuda::kSuccess;
}

// ---------------------------------------------------------------------------------------------------
// Cache and shared-memory configuration

cuda::Error Runtime::setCacheConfig(int config) {
  if (config < 0 || config > 3)
    return cuda::kErrorInvalidValue;
  deviceCacheConfig_[threadDevice()] = config;
  return cuda::kSuccess;
}

cuda::Error Runtime::cacheConfig(int *config) const {
  if (!config)
    return cuda::kErrorInvalidValue;
  auto it = deviceCacheConfig_.find(threadDevice());
  *config = it == deviceCacheConfig_.end() ? 0 : it->second;
  return cuda::kSuccess;
}

cuda::Error Runtime::setSharedMemConfig(int config) {
  if (config < 0 || config > 2)
    return cuda::kErrorInvalidValue;
  deviceSharedConfig_[threadDevice()] = config;
  return cuda::kSuccess;
}

cuda::Error Runtime::sharedMemConfig(int *config) const {
  if (!config)
    return cuda::kErrorInvalidValue;
  // Only Kepler's banks can be 8 bytes wide; elsewhere the setting is accepted and has no effect.
  const std::vector<int> &widths = device_->computeCapability().sharedBanks.selectableBankWidthsBytes;
  const bool selectable = std::find(widths.begin(), widths.end(), 8) != widths.end();
  auto it = deviceSharedConfig_.find(threadDevice());
  *config = selectable && it != deviceSharedConfig_.end() && it->second == 2 ? 2 : 1; // FourByte or EightByte
  return cuda::kSuccess;
}

cuda::Error Runtime::funcSetCacheConfig(const void *hostFunction, int config) {
  if (!function(hostFunction))
    return cuda::kErrorInvalidDeviceFunction;
  if (config < 0 || config > 3)
    return cuda::kErrorInvalidValue;
  functionCacheConfig_[hostFunction] = config;
  return cuda::kSuccess;
}

cuda::Error Runtime::funcSetSharedMemConfig(const void *hostFunction, int config) {
  if (!function(hostFunction))
    return cuda::kErrorInvalidDeviceFunction;
  if (config < 0 || config > 2)
    return cuda::kErrorInvalidValue;
  functionSharedConfig_[hostFunction] = config;
  return cuda::kSuccess;
}

void Runtime::configureLaunch(vm::LaunchOptions &options, const void *hostFunction) {
  // The driver grows a thread's stack to what a kernel's frames need whatever the limit says, when
  // ptxas could size them; a recursive kernel gets the limit and no more (LaunchOptions).
  if (auto it = limits_.find(cuda::LimitStackSize); it != limits_.end()) {
    options.stackBytesPerThread = std::max<uint64_t>(options.stackBytesPerThread, it->second);
    options.stackLimitBytes = it->second;
  }
  if (auto it = limits_.find(cuda::LimitPrintfFifoSize); it != limits_.end())
    options.printfFifoBytes = it->second;
  else
    options.printfFifoBytes = defaultLimit(cuda::LimitPrintfFifoSize, smCount());
  if (auto it = limits_.find(cuda::LimitDevRuntimePendingLaunchCount); it != limits_.end())
    options.pendingLaunchLimit = static_cast<uint32_t>(std::min<size_t>(it->second, UINT32_MAX));
  // The function's preference, else the device's (a function's PreferNone or Default defers to it).
  const int device = threadDevice();
  int cache = 0, shared = 0;
  if (auto it = functionCacheConfig_.find(hostFunction); it != functionCacheConfig_.end())
    cache = it->second;
  if (auto it = deviceCacheConfig_.find(device); cache == 0 && it != deviceCacheConfig_.end())
    cache = it->second;
  if (auto it = functionSharedConfig_.find(hostFunction); it != functionSharedConfig_.end())
    shared = it->second;
  if (auto it = deviceSharedConfig_.find(device); shared == 0 && it != deviceSharedConfig_.end())
    shared = it->second;
  const std::vector<int> &widths = device_->computeCapability().sharedBanks.selectableBankWidthsBytes;
  const bool selectable = std::find(widths.begin(), widths.end(), 8) != widths.end();
  const int bankWidth = !selectable ? 0 : shared == 1 ? 4 : shared == 2 ? 8 : 0;
  tools_->setLaunchConfiguration(bankWidth, static_cast<arch::CacheConfig>(cache));
}

// ---------------------------------------------------------------------------------------------------
// Stream-ordered allocation and memory pools

Runtime::MemPool *Runtime::memPool(void *pool) {
  auto it = pools_.find(pool);
  return it == pools_.end() ? nullptr : &it->second;
}

void *Runtime::devicePool(int device) {
  auto it = defaultPools_.find(device);
  if (it != defaultPools_.end())
    return it->second;
  void *pool = newHandle();
  MemPool &p = pools_[pool];
  p.device = device;
  p.isDefault = true;
  defaultPools_[device] = pool;
  return pool;
}

cuda::Error Runtime::defaultMemPool(void **pool, int device) {
  if (!pool)
    return cuda::kErrorInvalidValue;
  if (!validDevice(device))
    return cuda::kErrorInvalidDevice;
  *pool = devicePool(device);
  return cuda::kSuccess;
}

cuda::Error Runtime::currentMemPool(void **pool, int device) {
  if (!pool)
    return cuda::kErrorInvalidValue;
  if (!validDevice(device))
    return cuda::kErrorInvalidDevice;
  auto it = currentPools_.find(device);
  *pool = it == currentPools_.end() ? devicePool(device) : it->second;
  return cuda::kSuccess;
}

cuda::Error Runtime::setCurrentMemPool(int device, void *pool) {
  if (!validDevice(device))
    return cuda::kErrorInvalidDevice;
  const MemPool *p = memPool(pool);
  if (!p || p->device != device)
    return cuda::kErrorInvalidValue;
  currentPools_[device] = pool;
  return cuda::kSuccess;
}

cuda::Error Runtime::memPoolCreate(void **pool, const void *props) {
  if (!pool || !props)
    return cuda::kErrorInvalidValue;
  MemPoolPropsAbi p;
  std::memcpy(&p, props, sizeof p);
  if (p.allocType != 1 || p.locationType != 1 || !validDevice(p.locationId))
    return cuda::kErrorInvalidValue;
  *pool = newHandle();
  MemPool &created = pools_[*pool];
  created.device = p.locationId;
  created.maxSize = p.maxSize;
  return cuda::kSuccess;
}

cuda::Error Runtime::memPoolDestroy(void *pool) {
  const MemPool *p = memPool(pool);
  if (!p || p->isDefault)
    return cuda::kErrorInvalidValue;
  // A pool destroyed with allocations outstanding frees them once they are freed; here they stay
  // the program's until cudaFree(Async).
  for (auto it = currentPools_.begin(); it != currentPools_.end();)
    it = it->second == pool ? currentPools_.erase(it) : std::next(it);
  for (auto &[base, owner] : poolAllocations_)
    if (owner.first == pool)
      owner.first = nullptr;
  pools_.erase(pool);
  return cuda::kSuccess;
}

cuda::Error Runtime::mallocAsync(void **pointer, size_t bytes, void *pool, void *stream) {
  if (!pointer)
    return cuda::kErrorInvalidValue;
  if (!validStream(stream))
    return cuda::kErrorInvalidResourceHandle;
  if (sticky_)
    return sticky_;
  if (!pool) {
    if (cuda::Error e = currentMemPool(&pool, static_cast<int>(streamDevice(stream))))
      return e;
  }
  MemPool *p = memPool(pool);
  if (!p)
    return cuda::kErrorInvalidValue;
  if (bytes == 0) {
    *pointer = nullptr;
    return cuda::kSuccess;
  }
  if (p->maxSize && p->used + bytes > p->maxSize)
    return cuda::kErrorMemoryAllocation;
  auto a =
      device_->memory().allocate(bytes, vm::AllocationKind::Device, fmt::format("cudaMallocAsync of {} bytes", bytes));
  if (!a) {
    *pointer = nullptr;
    return cuda::kErrorMemoryAllocation;
  }
  *pointer = reinterpret_cast<void *>(*a);
  memoryDevices_[*a] = p->device;
  poolAllocations_[*a] = {pool, bytes};
  p->used += bytes;
  p->usedHigh = std::max(p->usedHigh, p->used);
  p->reserved = std::max(p->reserved, roundUp(p->used, kPoolGranule));
  p->reservedHigh = std::max(p->reservedHigh, p->reserved);
  return cuda::kSuccess;
}

cuda::Error Runtime::freeAsync(void *pointer, void *stream) {
  if (!validStream(stream))
    return cuda::kErrorInvalidResourceHandle;
  if (!pointer)
    return cuda::kErrorInvalidValue;
  if (sticky_)
    return sticky_;
  const auto address = reinterpret_cast<uintptr_t>(pointer);
  auto it = poolAllocations_.find(address);
  if (it != poolAllocations_.end()) {
    if (MemPool *p = memPool(it->second.first))
      p->used -= std::min(p->used, it->second.second);
    poolAllocations_.erase(it);
  }
  // Memory from cudaMalloc may be freed in stream order too.
  return free(pointer);
}

void Runtime::releasePoolMemory() {
  for (auto &[handle, p] : pools_)
    if (p.reserved > p.releaseThreshold)
      p.reserved = std::max(roundUp(p.used, kPoolGranule), p.releaseThreshold);
}

cuda::Error Runtime::memPoolTrimTo(void *pool, size_t keep) {
  MemPool *p = memPool(pool);
  if (!p)
    return cuda::kErrorInvalidValue;
  // What is in use stays reserved; of the rest, at least `keep` bytes.
  if (p->reserved > keep)
    p->reserved = std::max(roundUp(p->used, kPoolGranule), std::min(p->reserved, roundUp(keep, kPoolGranule)));
  return cuda::kSuccess;
}

cuda::Error Runtime::memPoolSetAttribute(void *pool, int attribute, const void *value) {
  MemPool *p = memPool(pool);
  if (!p || !value)
    return cuda::kErrorInvalidValue;
  switch (attribute) {
  case 1:
  case 2:
  case 3: std::memcpy(&p->reuse[attribute - 1], value, sizeof(int)); return cuda::kSuccess;
  case 4: std::memcpy(&p->releaseThreshold, value, sizeof(uint64_t)); return cuda::kSuccess;
  case 6:
  case 8: { // the high-water marks can only be reset (to the current amount)
    uint64_t v = 0;
    std::memcpy(&v, value, sizeof v);
    if (v != 0)
      return cuda::kErrorInvalidValue;
    if (attribute == 6)
      p->reservedHigh = p->reserved;
    else
      p->usedHigh = p->used;
    return cuda::kSuccess;
  }
  default: return cuda::kErrorInvalidValue; // the current amounts are read-only
  }
}

cuda::Error Runtime::memPoolGetAttribute(void *pool, int attribute, void *value) {
  MemPool *p = memPool(pool);
  if (!p || !value)
    return cuda::kErrorInvalidValue;
  uint64_t v = 0;
  switch (attribute) {
  case 1:
  case 2:
  case 3: std::memcpy(value, &p->reuse[attribute - 1], sizeof(int)); return cuda::kSuccess;
  case 4: v = p->releaseThreshold; break;
  case 5: v = p->reserved; break;
  case 6: v = p->reservedHigh; break;
  case 7: v = p->used; break;
  case 8: v = p->usedHigh; break;
  default: return cuda::kErrorInvalidValue;
  }
  std::memcpy(value, &v, sizeof v);
  return cuda::kSuccess;
}

// ---------------------------------------------------------------------------------------------------
// Registered host memory

cuda::Error Runtime::hostRegister(void *pointer, size_t bytes, unsigned flags) {
  // cudaHostRegisterPortable 1, Mapped 2, IoMemory 4, ReadOnly 8.
  if (!pointer || bytes == 0 || (flags & ~0xfu))
    return cuda::kErrorInvalidValue;
  if (flags & 4) {
    if (config_.logApi)
      log("cudaHostRegister: cudaHostRegisterIoMemory (device memory of another PCIe device) is not supported");
    return cuda::kErrorNotSupported;
  }
  if (sticky_)
    return sticky_;
  if (!hostRegistry_)
    hostRegistry_ = std::make_unique<HostRegistry>();
  // Overlapping a registered range or page-locked memory (cudaMallocHost).
  const vm::Allocation *a = device_->memory().find(reinterpret_cast<uintptr_t>(pointer));
  if (hostRegistry_->overlaps(pointer, bytes) || (a && !a->freed && a->adopted))
    return cuda::kErrorHostMemoryAlreadyRegistered;
  std::string error;
  std::optional<uint64_t> device = hostRegistry_->add(device_->memory(), mappedTop_, pointer, bytes,
                                                      fmt::format("cudaHostRegister of {} bytes", bytes), error);
  if (!device) {
    std::fflush(stdout);
    std::cerr << fmt::format("ptxray: cudaHostRegister of {} bytes at {}: {}\n", bytes, pointer, error);
    return cuda::kErrorInvalidValue;
  }
  hostRegisterFlags_[reinterpret_cast<uintptr_t>(pointer)] = flags;
  return cuda::kSuccess;
}

cuda::Error Runtime::hostUnregister(void *pointer) {
  if (!pointer)
    return cuda::kErrorInvalidValue;
  if (!hostRegistry_ || !hostRegistry_->remove(device_->memory(), pointer))
    return cuda::kErrorHostMemoryNotRegistered;
  hostRegisterFlags_.erase(reinterpret_cast<uintptr_t>(pointer));
  return cuda::kSuccess;
}

cuda::Error Runtime::hostDevicePointer(void **device, void *host, unsigned flags) {
  if (!device || flags != 0)
    return cuda::kErrorInvalidValue;
  if (hostRegistry_)
    if (std::optional<uint64_t> alias = hostRegistry_->devicePointer(host)) {
      *device = reinterpret_cast<void *>(*alias);
      return cuda::kSuccess;
    }
  cuda::PointerAttributes a;
  pointerAttributes(&a, host);
  if (a.type != cuda::Host)
    return cuda::kErrorInvalidValue;
  *device = host; // unified addressing: the same address
  return cuda::kSuccess;
}

cuda::Error Runtime::hostFlags(unsigned *flags, void *host) {
  if (!flags)
    return cuda::kErrorInvalidValue;
  if (hostRegistry_)
    if (std::optional<uint64_t> start = hostRegistry_->rangeOf(host)) {
      *flags = hostRegisterFlags_[*start] | 0x2; // mapped
      return cuda::kSuccess;
    }
  cuda::PointerAttributes a;
  pointerAttributes(&a, host);
  if (a.type != cuda::Host)
    return cuda::kErrorInvalidValue;
  *flags = 0x2; // cudaHostAllocMapped: reachable from kernels
  return cuda::kSuccess;
}

// ---------------------------------------------------------------------------------------------------
// Host functions

cuda::Error Runtime::enqueueHostFunction(void *stream, void (*function)(void *), void *data, bool &runNow) {
  runNow = false;
  if (!function)
    return cuda::kErrorInvalidValue;
  if (!validStream(stream))
    return cuda::kErrorInvalidResourceHandle;
  if (std::optional<cuda::Error> captured = captureHostFunction(stream, function, data))
    return *captured;
  if (sticky_)
    return sticky_;
  runNow = true;
  return cuda::kSuccess;
}

cuda::Error Runtime::streamCallbackCheck(void *stream, bool haveCallback, unsigned flags, cuda::Error &status) {
  if (!haveCallback || flags != 0)
    return cuda::kErrorInvalidValue;
  if (!validStream(stream))
    return cuda::kErrorInvalidResourceHandle;
  if (capturing(stream))
    return graphs::kErrorStreamCaptureUnsupported; // cudaLaunchHostFunc is what a capture takes
  status = sticky_;
  return cuda::kSuccess;
}

} // namespace ptxray::runtime
