#include "vm/Memory.h"

#include "support/MemoryBudget.h"
#include "vm/Events.h"

#include <algorithm>
#include <cstring>
#include <new>

#include <sys/mman.h>

namespace ptxray::vm {

void DeviceMemory::noteHostWrite(uint64_t address, uint64_t bytes) {
  if (listener_ && bytes)
    listener_->onHostWrite(address, bytes);
}

namespace {
constexpr std::align_val_t kHostAlign{64};
/// From this size on an allocation's bytes are fresh anonymous pages, zero until written: a large
/// cudaMalloc costs no serial zero-fill on the host, and its pages are first touched by whichever
/// threads fill or use them.
constexpr uint64_t kMappedFrom = uint64_t{1} << 20;

// Under AddressSanitizer every allocation a program makes stays on ASan's heap, whose redzones catch
// the VM's own overruns; the device heap and the driver's own memory are mapped all the same
// (mappedKind): the VM suballocates them with checks of its own, and zero-filling an 8 MiB heap for
// every Device made the sanitizer build's instruction tests 100 times slower than the Release ones.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kMapLarge = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kMapLarge = false;
#else
constexpr bool kMapLarge = true;
#endif
#else
constexpr bool kMapLarge = true;
#endif

bool mappedKind(AllocationKind kind) {
  return kind == AllocationKind::Heap || kind == AllocationKind::Driver;
}

bool mapped(uint64_t size, AllocationKind kind) {
  return (kMapLarge || mappedKind(kind)) && size >= kMappedFrom;
}

std::byte *allocateHost(uint64_t size, AllocationKind kind) {
  if (mapped(size, kind)) {
    // No swap reserved up front: a program may allocate most of a GPU's memory and touch a part of
    // it (the memory budget, not the kernel's overcommit heuristic, decides what it may have).
    void *p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return nullptr;
#ifdef MADV_HUGEPAGE
    // Large pages where the kernel offers them (transparent huge pages in "madvise" mode, Debian's
    // default): 512 times fewer first-touch faults and TLB misses for a kernel streaming through it.
    ::madvise(p, size, MADV_HUGEPAGE);
#endif
    return static_cast<std::byte *>(p);
  }
  auto *host = static_cast<std::byte *>(::operator new[](size, kHostAlign, std::nothrow));
  if (host)
    std::memset(host, 0, size);
  return host;
}
void freeHost(std::byte *p, uint64_t size, AllocationKind kind) {
  if (mapped(size, kind))
    ::munmap(p, size);
  else
    ::operator delete[](p, kHostAlign);
}
uint64_t hostSize(const Allocation &a) {
  return std::max<uint64_t>(a.size, 1);
}
} // namespace

DeviceMemory::~DeviceMemory() {
  for (Allocation &a : allocations_)
    if (a.host && !a.adopted) {
      freeHost(a.host, hostSize(a), a.kind);
      support::releaseMemory(hostSize(a));
    }
}

std::optional<uint64_t> DeviceMemory::allocate(uint64_t bytes, AllocationKind kind, std::string label) {
  uint64_t size = std::max<uint64_t>(bytes, 1);
  uint64_t rounded = (size + kAllocationAlign - 1) / kAllocationAlign * kAllocationAlign;
  // Addresses are never reused, so a stale pointer always finds the freed allocation it came from.
  // One empty granule between allocations makes off-by-one overruns land outside every allocation.
  const bool low = rounded <= ceiling_ && next_ <= ceiling_ - rounded;
  if (!low && (rounded > kHighGlobalSize || highNext_ - kHighGlobalBase > kHighGlobalSize - rounded))
    return std::nullopt;
  // The host memory behind the modeled GPU's is the process's memory budget (support/MemoryBudget.h):
  // past it an allocation fails as on a full GPU, instead of the machine running out later.
  if (!support::tryReserveMemory(size))
    return std::nullopt;
  std::byte *host = allocateHost(size, kind);
  if (!host) {
    support::releaseMemory(size);
    return std::nullopt;
  }
  Allocation a;
  uint64_t &next = low ? next_ : highNext_;
  a.base = next;
  a.size = bytes;
  a.host = host;
  a.kind = kind;
  a.readOnly = kind == AllocationKind::ModuleConst;
  a.label = std::move(label);
  next += rounded + kAllocationAlign;
  inUse_ += bytes;
  // Adopted ranges lie above every allocate()d one of the low range, so a new allocation there goes
  // before the first of them; one in the high range goes last.
  auto it = std::lower_bound(allocations_.begin(), allocations_.end(), a.base,
                             [](const Allocation &x, uint64_t b) { return x.base < b; });
  it = allocations_.insert(it, std::move(a));
  if (listener_)
    listener_->onAllocate(*it);
  return it->base;
}

std::optional<uint64_t> DeviceMemory::adopt(std::byte *host, uint64_t bytes, AllocationKind kind, std::string label) {
  const uint64_t base = reinterpret_cast<uintptr_t>(host);
  const uint64_t size = std::max<uint64_t>(bytes, 1);
  if (base < next_ || base > kGlobalLimit || size > kGlobalLimit - base)
    return std::nullopt;
  auto it = std::lower_bound(allocations_.begin(), allocations_.end(), base,
                             [](const Allocation &a, uint64_t b) { return a.base < b; });
  if (it != allocations_.end() && it->base < base + size)
    return std::nullopt;
  if (it != allocations_.begin() && std::prev(it)->base + std::max<uint64_t>(std::prev(it)->size, 1) > base)
    return std::nullopt;
  Allocation a;
  a.base = base;
  a.size = bytes;
  a.host = host;
  a.kind = kind;
  a.adopted = true;
  a.label = std::move(label);
  ceiling_ = std::min(ceiling_, base);
  inUse_ += bytes;
  it = allocations_.insert(it, std::move(a));
  if (listener_)
    listener_->onAllocate(*it);
  return base;
}

bool DeviceMemory::release(uint64_t base) {
  auto it = std::lower_bound(allocations_.begin(), allocations_.end(), base,
                             [](const Allocation &a, uint64_t b) { return a.base < b; });
  if (it == allocations_.end() || it->base != base || it->freed)
    return false;
  if (!it->adopted) {
    freeHost(it->host, hostSize(*it), it->kind);
    support::releaseMemory(hostSize(*it));
  }
  it->host = nullptr;
  it->freed = true;
  inUse_ -= it->size;
  if (listener_)
    listener_->onRelease(*it);
  return true;
}

const Allocation *DeviceMemory::find(uint64_t address) const {
  auto it = std::upper_bound(allocations_.begin(), allocations_.end(), address,
                             [](uint64_t a, const Allocation &x) { return a < x.base; });
  if (it == allocations_.begin())
    return nullptr;
  --it;
  // An address one granule past the end still names the allocation it overran (for the report).
  uint64_t reach = std::max<uint64_t>(it->size, 1);
  reach = (reach + kAllocationAlign - 1) / kAllocationAlign * kAllocationAlign + kAllocationAlign;
  return address - it->base < reach ? &*it : nullptr;
}

std::byte *DeviceMemory::hostRange(uint64_t address, uint64_t bytes) const {
  const Allocation *a = find(address);
  if (!a || a->freed || address - a->base > a->size || bytes > a->size - (address - a->base))
    return nullptr;
  return a->host + (address - a->base);
}

} // namespace ptxray::vm
