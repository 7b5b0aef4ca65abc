// The system calls of ptx-interoperability.md §3 as the VM executes them: vprintf, malloc, free and
// __assertfail, called through the ordinary .param calling sequence.
#pragma once

#include "vm/Exec.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ptxray::vm {

/// Runs the system call `callee` for the lanes in `mask` of the call micro-op `op`.
void runSystemCall(ExecContext &ctx, const MicroOp &op, const DecodedFunction &callee, uint32_t mask);

/// The device runtime's calls (dynamic parallelism): parameter buffers, device-side launches (queued on
/// the LaunchState; Device::launch runs them once the grid is done), the thread's error state.
void runDeviceRuntimeCall(ExecContext &ctx, const MicroOp &op, const DecodedFunction &callee, uint32_t mask);

/// Argument `index` of a call micro-op for one lane: the low `size` bytes (at most 8).
uint64_t callArgument(ExecContext &ctx, const MicroOp &op, uint32_t index, int lane, uint32_t size);
/// Stores a lane's return value (the low `size` bytes of `bits`) where the call wants it.
void setCallResult(ExecContext &ctx, const MicroOp &op, int lane, uint64_t bits, uint32_t size);

/// Whether [address, address + bytes) is device memory a device-side copy (cudaMemcpyAsync and its
/// kin in a kernel) may read, or write: nullopt, or the fault an access there would be and what it
/// missed (read-only constants, malloc's blocks and freed memory checked as a load or store would be).
std::optional<std::pair<FaultKind, std::string>> checkStreamCopyRange(const LaunchState &L, uint64_t address,
                                                                      uint64_t bytes, bool write);

/// The device heap malloc() and free() use: one global allocation (its size is the launch's heap
/// limit, like cudaLimitMallocHeapSize) carved into 16-byte aligned blocks, best fit, lowest address
/// first, in O(log n) per call. Accesses into the heap are checked against its blocks: past the bytes
/// a malloc asked for, into a freed block or between blocks is a fault, as compute-sanitizer reports.
class DeviceHeap {
public:
  DeviceHeap(DeviceMemory &memory, uint64_t bytes, std::string_view what = "the device heap");
  /// Device address of a block of `bytes`, 16-byte aligned, or 0 when the heap cannot hold it.
  uint64_t allocate(uint64_t bytes);
  /// False when `address` is not a live block of this heap.
  bool release(uint64_t address);
  uint64_t base() const { return base_; }
  uint64_t size() const { return size_; }

  /// An access of `bytes` at `address` (inside the heap) that misses every live block: the fault's
  /// kind and what it missed; nullopt when the access lies within the bytes one malloc returned.
  struct Miss {
    FaultKind kind;
    std::string detail;
  };
  std::optional<Miss> check(uint64_t address, uint64_t bytes);

private:
  struct Block {
    uint64_t size = 0;      ///< bytes it spans (a multiple of 16)
    uint64_t requested = 0; ///< bytes the malloc asked for (a used block)
    bool used = false;
    bool freed = false; ///< a free block that was once allocated: an access is a use after free
  };
  std::mutex mutex_;
  uint64_t base_ = 0, size_ = 0;
  std::map<uint64_t, Block> blocks_;             ///< by offset, covering the heap
  std::set<std::pair<uint64_t, uint64_t>> free_; ///< (size, offset) of the free blocks
};

} // namespace ptxray::vm
