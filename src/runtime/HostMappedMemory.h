// Memory that host code and kernels reach at the same address, as unified addressing gives managed
// memory (cudaMallocManaged) and page-locked host memory (cudaMallocHost): pages mapped at a fixed
// address inside the VM's global range and adopted by its DeviceMemory, so the pointer the program
// gets is both a host pointer and a device address. Ranges are taken from the top of the global range
// downwards and never reused, like every other device address.
#pragma once

#include "vm/Memory.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace ptxray::runtime {

/// Maps `bytes` below `top` (lowering it) and adopts them; null when no room is left.
void *mapHostMemory(vm::DeviceMemory &memory, uint64_t &top, uint64_t bytes, vm::AllocationKind kind,
                    std::string label);
/// Releases and unmaps an adopted allocation; false when `base` is not one.
bool unmapHostMemory(vm::DeviceMemory &memory, uint64_t base);

/// Host memory the program owns, made reachable by kernels (cudaHostRegister). Its address lies outside
/// the VM's global range, so kernels reach it at an alias: the pages of the range move into a shared
/// memory file, mapped again at their own address (contents kept) and at the alias, inside the global
/// range, which `memory` adopts. Both addresses are the same bytes from then on. A page two ranges
/// share is moved once. Unregistering moves the pages back into private memory (contents kept).
/// Pages other threads write while they move may lose those writes; the calling thread's stack and
/// shared file mappings are refused.
class HostRegistry {
public:
  HostRegistry() = default;
  HostRegistry(const HostRegistry &) = delete;
  HostRegistry &operator=(const HostRegistry &) = delete;
  ~HostRegistry();

  /// The device address of `pointer`, or nullopt with `error` set (overlap, no room, mapping failed).
  std::optional<uint64_t> add(vm::DeviceMemory &memory, uint64_t &top, void *pointer, uint64_t bytes, std::string label,
                              std::string &error);
  /// False when `pointer` is not the start of a registered range.
  bool remove(vm::DeviceMemory &memory, void *pointer);
  /// The registered range containing host address `pointer` (its start), or nullopt.
  std::optional<uint64_t> rangeOf(const void *pointer) const;
  /// Whether [pointer, pointer + bytes) overlaps a registered range.
  bool overlaps(const void *pointer, uint64_t bytes) const;
  /// The alias of host address `pointer` inside a registered range, or nullopt.
  std::optional<uint64_t> devicePointer(const void *pointer) const;

private:
  struct Range {
    uint64_t bytes = 0;
    uint64_t device = 0;     ///< the alias of the range's first byte
    uint64_t aliasPages = 0; ///< the alias mapping: its first page and length
    uint64_t aliasLength = 0;
  };
  struct Page {
    uint64_t offset = 0; ///< in the file
    int refs = 0;        ///< ranges that include the page
  };
  std::map<uint64_t, Range> ranges_; ///< by host start
  std::map<uint64_t, Page> pages_;   ///< moved host pages, by address
  int fd_ = -1;
  uint64_t fileBytes_ = 0;
};

} // namespace ptxray::runtime
