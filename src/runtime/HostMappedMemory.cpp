#include "runtime/HostMappedMemory.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace ptxray::runtime {
namespace {
constexpr uint64_t kMapGranule = 64 * 1024; ///< room between ranges, so overruns fault in the VM
}

namespace {

/// The mappings of this process that overlap [low, high), from /proc/self/maps, sorted.
std::vector<std::pair<uint64_t, uint64_t>> mappingsBetween(uint64_t low, uint64_t high) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    uint64_t begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64, &begin, &end) == 2 && end > low && begin < high)
      out.emplace_back(begin, end);
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

void *mapHostMemory(vm::DeviceMemory &memory, uint64_t &top, uint64_t bytes, vm::AllocationKind kind,
                    std::string label) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t length = (bytes + page - 1) / page * page;
  // The highest free gap below `top` that holds the range and a guard granule above it. Other
  // mappings can sit in the global range (AddressSanitizer's shadow memory does): step below them.
  const uint64_t floor = memory.allocationFrontier() + kMapGranule;
  const auto taken = mappingsBetween(floor, top);
  uint64_t gapHigh = top;
  for (auto it = taken.rbegin();; ++it) {
    const uint64_t gapLow = it == taken.rend() ? floor : std::max(it->second, floor);
    if (gapHigh > gapLow && gapHigh - gapLow >= length + kMapGranule) {
      const uint64_t base = (gapHigh - length - kMapGranule) / kMapGranule * kMapGranule;
      if (base >= gapLow) {
        void *p = mmap(reinterpret_cast<void *>(base), length, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == MAP_FAILED)
          return nullptr;
        if (reinterpret_cast<uint64_t>(p) != base) { // a kernel without MAP_FIXED_NOREPLACE: a hint only
          munmap(p, length);
          return nullptr;
        }
        top = base;
        if (memory.adopt(static_cast<std::byte *>(p), bytes, kind, std::move(label)))
          return p;
        munmap(p, length);
        return nullptr;
      }
    }
    if (it == taken.rend())
      return nullptr;
    gapHigh = std::min(gapHigh, it->first);
  }
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
