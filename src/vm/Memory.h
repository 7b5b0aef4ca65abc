// Device memory as the VM sees it: global allocations in a sorted table (device allocations, module
// variables, constant banks, the device heap), and the fixed generic-address windows through which
// shared, local and kernel-parameter memory are reached with generic addressing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptxray::vm {

class Listener; // vm/Events.h

// The generic address space, laid out so that it fits 32-bit modules too. Global allocations live
// below the windows; a window address minus its base is the state-space address (PTX: cvta).
inline constexpr uint64_t kGlobalBase = 0x1000'0000; ///< the first 256 MiB stay unmapped (null)
inline constexpr uint64_t kGlobalLimit = 0xE000'0000;
/// Device allocations the range below the windows cannot hold continue in a second range, at 2^56:
/// above every address a host pointer can have (user space ends below 2^47 on x86-64 with 4-level
/// paging and below 2^52 on AArch64; 5-level x86-64 goes past 2^47 only when mmap is asked to), so
/// that no host pointer is ever taken for device memory. It holds 1 TiB, more than any modeled GPU's
/// memory: a 64-bit program can allocate the GPU's whole memory, as totalGlobalMem promises. 32-bit
/// modules cannot reach it and keep the low range.
inline constexpr uint64_t kHighGlobalBase = uint64_t{1} << 56;
inline constexpr uint64_t kHighGlobalSize = uint64_t{1} << 40;
/// Every byte of device memory the VM can address: the low range and the high one.
inline constexpr uint64_t kGlobalAddressSpace = (kGlobalLimit - kGlobalBase) + kHighGlobalSize;
inline constexpr uint64_t kLocalWindow = 0xE000'0000; ///< per thread
inline constexpr uint64_t kLocalWindowSize = 0x0800'0000;
inline constexpr uint64_t kSharedWindow = 0xE800'0000; ///< per CTA
inline constexpr uint64_t kSharedWindowSize = 0x0100'0000;
/// The system's reserved shared memory (%reserved_smem_offset_*) sits at this offset of the shared
/// window, far above any CTA's own shared memory, so that an access running past the CTA's variables
/// still faults instead of landing in it.
inline constexpr uint64_t kReservedSharedOffset = kSharedWindowSize - 0x1'0000;
inline constexpr uint64_t kParamWindow = 0xE900'0000; ///< the kernel's parameter buffer
inline constexpr uint64_t kParamWindowSize = 0x0010'0000;
inline constexpr uint64_t kFunctionWindow = 0xEF00'0000; ///< function pointers: base + 16 * index
inline constexpr uint64_t kFunctionStride = 16;
inline constexpr uint64_t kAllocationAlign = 256; ///< cudaMalloc's guaranteed alignment

enum class AllocationKind : uint8_t {
  Device,
  ModuleGlobal,
  ModuleConst,
  Heap,
  Managed,    ///< cudaMallocManaged: host code reads and writes the same addresses (DeviceMemory::adopt)
  HostMapped, ///< cudaMallocHost / cudaHostAlloc: page-locked host memory kernels reach through UVA
  Driver,     ///< memory the driver keeps for itself (a cooperative launch's grid workspace)
};

struct Allocation {
  uint64_t base = 0;
  uint64_t size = 0;
  std::byte *host = nullptr; ///< null once freed
  AllocationKind kind = AllocationKind::Device;
  bool freed = false;
  bool readOnly = false; ///< constant banks: the kernel cannot store to them
  bool adopted = false;  ///< the caller owns `host` (DeviceMemory::adopt), whose address is `base`
  std::string label;     ///< "cudaMalloc #3 (4096 B)", "module variable g_table"
};

class DeviceMemory {
public:
  DeviceMemory() = default;
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;
  ~DeviceMemory();

  /// Zero-filled allocation aligned to kAllocationAlign, in the low range while it has room, then in the
  /// high one; nullopt when both are exhausted or the memory budget is.
  std::optional<uint64_t> allocate(uint64_t bytes, AllocationKind kind, std::string label);
  /// Memory the caller owns at `host`, reachable by kernels at the same address (identity-mapped, as
  /// unified addressing maps managed and page-locked host memory): host code dereferences the device
  /// pointer. nullopt when [host, host + bytes) leaves the global range or overlaps an allocation.
  /// Allocations made later by allocate() stay below every adopted range.
  std::optional<uint64_t> adopt(std::byte *host, uint64_t bytes, AllocationKind kind, std::string label);
  /// Releases an allocation made by allocate() or adopt() (an adopted one's bytes stay the caller's);
  /// false for an address that is not an allocation's base.
  bool release(uint64_t base);
  /// The lowest address allocate() has not reached yet in the low range: adopted ranges must lie above
  /// it.
  uint64_t allocationFrontier() const { return next_; }

  /// The live or freed allocation containing `address` (freed ones are kept to report use after free).
  const Allocation *find(uint64_t address) const;
  /// Host pointer to [address, address + bytes) when it lies in one live allocation.
  std::byte *hostRange(uint64_t address, uint64_t bytes) const;
  uint64_t bytesInUse() const { return inUse_; }

  /// Tells `listener` (null: nobody) about allocations, releases and host writes from now on (its
  /// memory channel: vm/Events.h); Device::setListener sets it.
  void setListener(Listener *listener) { listener_ = listener; }
  /// The host wrote [address, address + bytes): the Device's copies and memsets call this.
  void noteHostWrite(uint64_t address, uint64_t bytes);

private:
  std::vector<Allocation> allocations_; ///< sorted by base (addresses are never reused)
  uint64_t next_ = kGlobalBase;
  uint64_t ceiling_ = kGlobalLimit;     ///< the lowest adopted base: allocate() stays below it
  uint64_t highNext_ = kHighGlobalBase; ///< where the next allocation goes once the low range is full
  uint64_t inUse_ = 0;
  Listener *listener_ = nullptr;
};

} // namespace ptxray::vm
