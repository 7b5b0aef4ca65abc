#include "runtime/HostMappedMemory.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <pthread.h>
#include <string>
#include <sys/mman.h>
#include <sys/syscall.h>
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

namespace {

/// Maps `length` bytes (page multiple) of private memory in the highest free gap below `top` that
/// holds them and a guard granule above, lowering `top`; 0 when there is no room.
uint64_t mapBelow(vm::DeviceMemory &memory, uint64_t &top, uint64_t length) {
  // Other mappings can sit in the global range (AddressSanitizer's shadow memory does): step below them.
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
          return 0;
        if (reinterpret_cast<uint64_t>(p) != base) { // a kernel without MAP_FIXED_NOREPLACE: a hint only
          munmap(p, length);
          return 0;
        }
        top = base;
        return base;
      }
    }
    if (it == taken.rend())
      return 0;
    gapHigh = std::min(gapHigh, it->first);
  }
}

uint64_t pageBytes() {
  return static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

} // namespace

void *mapHostMemory(vm::DeviceMemory &memory, uint64_t &top, uint64_t bytes, vm::AllocationKind kind,
                    std::string label) {
  const uint64_t page = pageBytes();
  const uint64_t length = (bytes + page - 1) / page * page;
  const uint64_t base = mapBelow(memory, top, length);
  if (!base)
    return nullptr;
  void *p = reinterpret_cast<void *>(base);
  if (memory.adopt(static_cast<std::byte *>(p), bytes, kind, std::move(label)))
    return p;
  munmap(p, length);
  return nullptr;
}

bool unmapHostMemory(vm::DeviceMemory &memory, uint64_t base) {
  const vm::Allocation *a = memory.find(base);
  if (!a || !a->adopted || a->base != base || a->freed)
    return false;
  const uint64_t page = pageBytes();
  const uint64_t length = (std::max<uint64_t>(a->size, 1) + page - 1) / page * page;
  if (!memory.release(base))
    return false;
  munmap(reinterpret_cast<void *>(base), length);
  return true;
}

// ---------------------------------------------------------------------------------------------------
// Registered host memory

namespace {

/// A mapping of this process: its range, whether it can be read, its protection and whether it is a
/// shared mapping (of a file: moving its pages would cut them off from it).
struct Mapping {
  uint64_t begin = 0, end = 0;
  int prot = 0;
  bool shared = false;
};

std::vector<Mapping> mappingsWithProtection(uint64_t low, uint64_t high) {
  std::vector<Mapping> out;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    uint64_t begin = 0, end = 0;
    char perms[5] = {};
    if (std::sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64 " %4s", &begin, &end, perms) == 3 && end > low && begin < high)
      out.push_back(
          {begin, end,
           (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) | (perms[2] == 'x' ? PROT_EXEC : 0),
           perms[3] == 's'});
  }
  std::sort(out.begin(), out.end(), [](const Mapping &a, const Mapping &b) { return a.begin < b.begin; });
  return out;
}

/// The calling thread's stack, [low, high).
std::pair<uint64_t, uint64_t> threadStack() {
  pthread_attr_t attr;
  void *address = nullptr;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &address, &size);
    pthread_attr_destroy(&attr);
  }
  const auto low = reinterpret_cast<uint64_t>(address);
  return {low, low + size};
}

} // namespace

HostRegistry::~HostRegistry() {
  if (fd_ >= 0)
    close(fd_);
}

std::optional<uint64_t> HostRegistry::rangeOf(const void *pointer) const {
  const auto address = reinterpret_cast<uint64_t>(pointer);
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin())
    return std::nullopt;
  --it;
  if (address - it->first < std::max<uint64_t>(it->second.bytes, 1))
    return it->first;
  return std::nullopt;
}

bool HostRegistry::overlaps(const void *pointer, uint64_t bytes) const {
  const auto low = reinterpret_cast<uint64_t>(pointer);
  const uint64_t high = low + std::max<uint64_t>(bytes, 1);
  auto it = ranges_.lower_bound(high);
  if (it == ranges_.begin())
    return false;
  --it;
  return it->first + std::max<uint64_t>(it->second.bytes, 1) > low;
}

std::optional<uint64_t> HostRegistry::devicePointer(const void *pointer) const {
  const std::optional<uint64_t> start = rangeOf(pointer);
  if (!start)
    return std::nullopt;
  return ranges_.at(*start).device + (reinterpret_cast<uint64_t>(pointer) - *start);
}

std::optional<uint64_t> HostRegistry::add(vm::DeviceMemory &memory, uint64_t &top, void *pointer, uint64_t bytes,
                                          std::string label, std::string &error) {
  const uint64_t page = pageBytes();
  const auto address = reinterpret_cast<uint64_t>(pointer);
  if (bytes == 0 || address + bytes < address) {
    error = "an empty or wrapping range";
    return std::nullopt;
  }
  const uint64_t first = address / page * page;
  const uint64_t last = (address + bytes + page - 1) / page * page;
  if (const auto [low, high] = threadStack(); first < high && low < last) {
    error = "the range is on the calling thread's stack, which ptxray cannot move to share it with kernels";
    return std::nullopt;
  }
  // Every page mapped and readable, none of a shared mapping; the protection of each new page.
  const std::vector<Mapping> maps = mappingsWithProtection(first, last);
  uint64_t covered = first;
  for (const Mapping &m : maps) {
    if (m.begin > covered)
      break;
    if (m.shared || !(m.prot & PROT_READ)) {
      error = m.shared ? "the range is a shared mapping" : "the range is not readable";
      return std::nullopt;
    }
    covered = std::max(covered, m.end);
  }
  if (covered < last) {
    error = "the range is not mapped memory";
    return std::nullopt;
  }
  if (fd_ < 0) {
    fd_ = memfd_create("ptxray-registered-host-memory", MFD_CLOEXEC);
    if (fd_ < 0) {
      error = "memfd_create failed";
      return std::nullopt;
    }
  }
  // The pages not moved yet get file offsets in address order, so that runs of them are contiguous
  // in the file too. Every allocation happens before a page moves: a write of this thread to a page
  // between its copy and its remapping would be lost.
  struct Run {
    uint64_t begin, length, offset;
    int prot;
  };
  std::vector<Run> moves;
  std::vector<Run> alias;
  uint64_t grow = 0;
  for (uint64_t p = first; p < last; p += page) {
    int prot = PROT_READ | PROT_WRITE;
    for (const Mapping &m : maps)
      if (p >= m.begin && p < m.end)
        prot = m.prot;
    if (!pages_.count(p)) {
      const uint64_t offset = fileBytes_ + grow;
      grow += page;
      if (!moves.empty() && moves.back().begin + moves.back().length == p && moves.back().prot == prot)
        moves.back().length += page;
      else
        moves.push_back({p, page, offset, prot});
    }
  }
  if (grow && ftruncate(fd_, static_cast<off_t>(fileBytes_ + grow)) != 0) {
    error = "the shared memory file could not grow";
    return std::nullopt;
  }
  std::vector<uint64_t> inserted;
  for (const Run &r : moves)
    for (uint64_t p = r.begin; p < r.begin + r.length; p += page) {
      pages_[p] = {r.offset + (p - r.begin), 0};
      inserted.push_back(p);
    }
  for (uint64_t p = first; p < last; p += page) {
    const uint64_t offset = pages_.at(p).offset;
    if (!alias.empty() && alias.back().begin + alias.back().length == p &&
        alias.back().offset + alias.back().length == offset)
      alias.back().length += page;
    else
      alias.push_back({p, page, offset, 0});
  }
  const uint64_t length = last - first;
  const uint64_t aliasBase = mapBelow(memory, top, length);
  ranges_[address]; // allocated now, filled below
  auto undo = [&](const char *why) {
    error = why;
    for (uint64_t p : inserted)
      pages_.erase(p);
    ranges_.erase(address);
    if (aliasBase)
      munmap(reinterpret_cast<void *>(aliasBase), length);
    return std::nullopt;
  };
  if (!aliasBase)
    return undo("no room is left in the VM's address space");
  // Move the new pages: their bytes into the file, then the file mapped over them.
  fileBytes_ += grow;
  for (const Run &r : moves) {
    const auto *from = reinterpret_cast<const char *>(r.begin);
    uint64_t done = 0;
    while (done < r.length) {
      // The raw system call: the kernel reads the program's pages itself, so that AddressSanitizer
      // does not take the freed heap chunks sharing them for the program's bug.
      const auto n = static_cast<ssize_t>(
          syscall(SYS_pwrite64, fd_, from + done, r.length - done, static_cast<off_t>(r.offset + done)));
      if (n <= 0)
        return undo("copying the pages failed");
      done += static_cast<uint64_t>(n);
    }
    if (mmap(reinterpret_cast<void *>(r.begin), r.length, r.prot, MAP_SHARED | MAP_FIXED, fd_,
             static_cast<off_t>(r.offset)) == MAP_FAILED)
      return undo("remapping the pages failed");
  }
  for (const Run &r : alias)
    if (mmap(reinterpret_cast<void *>(aliasBase + (r.begin - first)), r.length, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_FIXED, fd_, static_cast<off_t>(r.offset)) == MAP_FAILED)
      return undo("mapping the alias failed");
  const uint64_t device = aliasBase + (address - first);
  if (!memory.adopt(reinterpret_cast<std::byte *>(device), bytes, vm::AllocationKind::HostMapped, std::move(label)))
    return undo("the VM could not adopt the alias");
  for (uint64_t p = first; p < last; p += page)
    ++pages_.at(p).refs;
  ranges_[address] = {bytes, device, aliasBase, length};
  return device;
}

bool HostRegistry::remove(vm::DeviceMemory &memory, void *pointer) {
  const auto address = reinterpret_cast<uint64_t>(pointer);
  auto it = ranges_.find(address);
  if (it == ranges_.end())
    return false;
  const Range range = it->second;
  ranges_.erase(it);
  memory.release(range.device);
  munmap(reinterpret_cast<void *>(range.aliasPages), range.aliasLength);
  const uint64_t page = pageBytes();
  const uint64_t first = address / page * page;
  const uint64_t last = first + range.aliasLength;
  // Pages no other range holds go back to private memory, their bytes kept: a private page mapped
  // over each, then filled from the file (which still holds its bytes) by the raw system call, so
  // that AddressSanitizer does not check the program's heap chunks on them.
  std::vector<std::pair<uint64_t, uint64_t>> restores; // (page, file offset)
  std::vector<uint64_t> offsets;
  for (uint64_t p = first; p < last; p += page)
    if (--pages_.at(p).refs == 0) {
      offsets.push_back(pages_.at(p).offset);
      restores.emplace_back(p, pages_.at(p).offset);
    }
  const std::vector<Mapping> maps = mappingsWithProtection(first, last);
  // By value: the vector itself may lie on a page being restored, which reads as zeros between the
  // anonymous mapping and the read that refills it; so may this registry, whose file descriptor the
  // read needs (a program's buffer sharing a page with the runtime's own heap objects).
  const int fd = fd_;
  for (size_t i = 0; i < restores.size(); ++i) {
    const uint64_t begin = restores[i].first, offset = restores[i].second;
    int prot = PROT_READ | PROT_WRITE;
    for (const Mapping &m : maps)
      if (begin >= m.begin && begin < m.end)
        prot = m.prot;
    auto *at = reinterpret_cast<void *>(begin);
    if (mmap(at, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
      continue; // the page stays shared with the file: still the same bytes at the same address
    for (uint64_t done = 0; done < page;) {
      const auto n = static_cast<ssize_t>(
          syscall(SYS_pread64, fd, static_cast<char *>(at) + done, page - done, static_cast<off_t>(offset + done)));
      if (n <= 0)
        break;
      done += static_cast<uint64_t>(n);
    }
    if (prot != (PROT_READ | PROT_WRITE))
      mprotect(at, page, prot);
  }
  for (uint64_t p = first; p < last; p += page)
    if (pages_.at(p).refs == 0)
      pages_.erase(p);
  for (uint64_t offset : offsets)
    fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset), static_cast<off_t>(page));
  return true;
}

} // namespace ptxray::runtime
