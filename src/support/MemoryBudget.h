// The process's memory budget: the host memory ptxray lets the modeled GPU's state take (device
// allocations, the state of the CTAs being run, sanitizer shadow memory), so that a program or kernel
// that would need more than the machine has is refused with a clear error instead of being killed by
// the kernel's OOM killer (or aborting in std::bad_alloc in a worker thread).
//
// One counter for the whole process, shared by every front end (the CLI, the CUDA and OpenCL
// libraries): a reservation is an atomic add and compare, cheap enough for each CTA a worker starts
// and each shadow page a sanitizer adds. The default is a fraction of the memory the process may use
// (the machine's, or its cgroup's limit when lower); `--max-memory` and PTXRAY_MAX_MEMORY change it.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ptxray::support {

/// A reservation the budget cannot hold. what() says what needed the memory, how much, and what the
/// budget is: "racecheck's shadow of global memory needs 4.0 MiB more, but 15.7 GiB of the 16.0 GiB
/// memory budget are in use (--max-memory, PTXRAY_MAX_MEMORY)".
class MemoryBudgetExceeded : public std::runtime_error {
public:
  MemoryBudgetExceeded(std::string_view purpose, uint64_t bytes, uint64_t inUse, uint64_t limit);
  uint64_t bytes() const { return bytes_; }

private:
  uint64_t bytes_;
};

/// The memory the process may use: physical memory, or the cgroup's limit (containers, CI runners)
/// when that is lower.
uint64_t availableHostMemory();
/// The budget when none is set: three quarters of availableHostMemory(), leaving the rest to the
/// parsed modules, the model's tables, the program under `exec` and the operating system.
uint64_t defaultMemoryBudget();

/// The budget now (the default until setMemoryBudget) and what reservations hold of it.
uint64_t memoryBudget();
uint64_t memoryInUse();
void setMemoryBudget(uint64_t bytes);

/// Takes `bytes` from the budget; false (and nothing taken) when they do not fit.
bool tryReserveMemory(uint64_t bytes);
/// Takes `bytes` or throws MemoryBudgetExceeded naming `purpose`.
void reserveMemory(uint64_t bytes, std::string_view purpose);
/// Gives back what a reservation took.
void releaseMemory(uint64_t bytes);

/// A size as users write it: bytes, or a number with K, M, G or T (binary multiples, an optional
/// "iB" or "B" after them), or a percentage of availableHostMemory() ("50%"). nullopt when `text`
/// is none of these, or is 0.
std::optional<uint64_t> parseMemorySize(std::string_view text);
/// "512 B", "4.0 KiB", "1.5 GiB".
std::string memorySizeText(uint64_t bytes);

/// Bytes taken from the budget for as long as the object lives (movable, not copyable).
class MemoryReservation {
public:
  MemoryReservation() = default;
  MemoryReservation(uint64_t bytes, std::string_view purpose) { grow(bytes, purpose); }
  MemoryReservation(MemoryReservation &&o) noexcept : bytes_(o.bytes_) { o.bytes_ = 0; }
  MemoryReservation &operator=(MemoryReservation &&o) noexcept {
    if (this != &o) {
      reset();
      bytes_ = o.bytes_;
      o.bytes_ = 0;
    }
    return *this;
  }
  MemoryReservation(const MemoryReservation &) = delete;
  MemoryReservation &operator=(const MemoryReservation &) = delete;
  ~MemoryReservation() { reset(); }

  /// Takes `bytes` more, or throws MemoryBudgetExceeded (what is held stays held).
  void grow(uint64_t bytes, std::string_view purpose) {
    reserveMemory(bytes, purpose);
    bytes_ += bytes;
  }
  /// Takes `bytes` more; false (and nothing taken) when they do not fit.
  bool tryGrow(uint64_t bytes) {
    if (!tryReserveMemory(bytes))
      return false;
    bytes_ += bytes;
    return true;
  }
  /// Gives back `bytes` of what is held (at most all of it).
  void shrink(uint64_t bytes) {
    bytes = bytes < bytes_ ? bytes : bytes_;
    if (bytes)
      releaseMemory(bytes);
    bytes_ -= bytes;
  }
  void reset() {
    if (bytes_)
      releaseMemory(bytes_);
    bytes_ = 0;
  }
  uint64_t bytes() const { return bytes_; }

private:
  uint64_t bytes_ = 0;
};

} // namespace ptxray::support
