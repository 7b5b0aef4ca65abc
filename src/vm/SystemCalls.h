// The system calls of ptx-interoperability.md §3 as the VM executes them: vprintf, malloc, free and
// __assertfail, called through the ordinary .param calling sequence.
#pragma once

#include "vm/Exec.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace ptxray::vm {

/// Runs the system call `callee` for the lanes in `mask` of the call micro-op `op`.
void runSystemCall(ExecContext &ctx, const MicroOp &op, const DecodedFunction &callee, uint32_t mask);

/// Argument `index` of a call micro-op for one lane: the low `size` bytes (at most 8).
uint64_t callArgument(ExecContext &ctx, const MicroOp &op, uint32_t index, int lane, uint32_t size);
/// Stores a lane's return value (the low `size` bytes of `bits`) where the call wants it.
void setCallResult(ExecContext &ctx, const MicroOp &op, int lane, uint64_t bits, uint32_t size);

/// The device heap malloc() and free() use: one global allocation carved up by a first-fit
/// allocator (its size is the launch's heap limit, like cudaLimitMallocHeapSize).
class DeviceHeap {
public:
  DeviceHeap(DeviceMemory &memory, uint64_t bytes);
  /// Device address of a block of `bytes`, 16-byte aligned, or 0 when the heap is exhausted.
  uint64_t allocate(uint64_t bytes);
  /// False when `address` is not a live block of this heap.
  bool release(uint64_t address);
  uint64_t base() const { return base_; }
  uint64_t size() const { return size_; }

private:
  std::mutex mutex_;
  uint64_t base_ = 0, size_ = 0;
  struct Block {
    uint64_t offset, size;
    bool used;
  };
  std::vector<Block> blocks_; ///< sorted by offset, covering the heap
};

} // namespace ptxray::vm
