#include "runtime/HostMappedMemory.h"

#include <sys/mman.h>
#include <unistd.h>

namespace ptxray::runtime {
namespace {
constexpr uint64_t kMapGranule = 64 * 1024; ///< room between ranges, so overruns fault in the VM
}

void *mapHostMemory(vm::DeviceMemory &memory, uint64_t &top, uint64_t bytes, vm::AllocationKind kind,
                    std::string label) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t length = (bytes + page - 1) / page * page;
  // Another mapping of the process (rare this low) can be in the way: step below it and retry.
  for (int attempt = 0; attempt < 64; ++attempt) {
    if (top < memory.allocationFrontier() + length + kMapGranule)
      return nullptr;
    const uint64_t base = (top - length - kMapGranule) / kMapGranule * kMapGranule;
    void *p = mmap(reinterpret_cast<void *>(base), length, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    top = base;
    if (p == MAP_FAILED)
      continue;
    if (reinterpret_cast<uint64_t>(p) != base) { // a kernel without MAP_FIXED_NOREPLACE: a hint only
      munmap(p, length);
      continue;
    }
    if (memory.adopt(static_cast<std::byte *>(p), bytes, kind, std::move(label)))
      return p;
    munmap(p, length);
    return nullptr;
  }
  return nullptr;
}

bool unmapHostMemory(vm::DeviceMemory &memory, uint64_t base) {
  const vm::Allocation *a = memory.find(base);
  if (!a || !a->adopted || a->base != base || a->freed)
    return false;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t length = (std::max<uint64_t>(a->size, 1) + page - 1) / page * page;
  if (!memory.release(base))
    return false;
  munmap(reinterpret_cast<void *>(base), length);
  return true;
}

} // namespace ptxray::runtime
