// The process's memory budget (support/MemoryBudget.h): sizes as users write them, reservations that
// fail cleanly past the budget, and the VM and racecheck taking their state from it.
#include "support/MemoryBudget.h"

#include "vm/Memory.h"

#include <gtest/gtest.h>

namespace ptxray::support {
namespace {

/// Sets a budget for one test and restores the previous one.
class BudgetScope {
public:
  explicit BudgetScope(uint64_t bytes) : saved_(memoryBudget()) { setMemoryBudget(bytes); }
  ~BudgetScope() { setMemoryBudget(saved_); }

private:
  uint64_t saved_;
};

TEST(MemoryBudget, ParsesSizesAsUsersWriteThem) {
  EXPECT_EQ(parseMemorySize("4096"), 4096u);
  EXPECT_EQ(parseMemorySize("64K"), 64u << 10);
  EXPECT_EQ(parseMemorySize("512m"), 512u << 20);
  EXPECT_EQ(parseMemorySize("1.5G"), uint64_t{3} << 29);
  EXPECT_EQ(parseMemorySize("2GiB"), uint64_t{2} << 30);
  EXPECT_EQ(parseMemorySize("2 GB"), uint64_t{2} << 30);
  EXPECT_EQ(parseMemorySize("1T"), uint64_t{1} << 40);
  EXPECT_EQ(parseMemorySize("100%"), availableHostMemory());
  EXPECT_EQ(parseMemorySize("50%"), availableHostMemory() / 2);
  for (const char *bad : {"", "0", "-5", "12x", "G", "1e3", "101%", "nan", "2E", "inf", "99999999T"})
    EXPECT_FALSE(parseMemorySize(bad)) << bad;
}

TEST(MemoryBudget, WritesSizesInBinaryUnits) {
  EXPECT_EQ(memorySizeText(512), "512 B");
  EXPECT_EQ(memorySizeText(4096), "4.0 KiB");
  EXPECT_EQ(memorySizeText(uint64_t{3} << 29), "1.5 GiB");
}

TEST(MemoryBudget, DefaultIsThreeQuartersOfTheMachine) {
  EXPECT_EQ(defaultMemoryBudget(), availableHostMemory() / 4 * 3);
  EXPECT_GT(availableHostMemory(), uint64_t{64} << 20);
}

TEST(MemoryBudget, ReservationsStopAtTheBudgetAndGiveBack) {
  BudgetScope scope(memoryInUse() + (uint64_t{1} << 20));
  const uint64_t before = memoryInUse();
  {
    MemoryReservation a(600 << 10, "a");
    EXPECT_EQ(memoryInUse(), before + (600 << 10));
    EXPECT_FALSE(tryReserveMemory(500 << 10));
    EXPECT_EQ(memoryInUse(), before + (600 << 10)); // a refusal takes nothing
    try {
      MemoryReservation b(500 << 10, "the second thing");
      FAIL() << "no exception";
    } catch (const MemoryBudgetExceeded &e) {
      EXPECT_EQ(std::string(e.what()), "the second thing needs 500.0 KiB more, but 600.0 KiB of the 1.0 MiB memory "
                                       "budget are in use (--max-memory, PTXRAY_MAX_MEMORY)");
      EXPECT_EQ(e.bytes(), 500u << 10);
    }
    EXPECT_TRUE(a.tryGrow(400 << 10));
    a.shrink(300 << 10);
    EXPECT_EQ(a.bytes(), 700u << 10);
    MemoryReservation moved = std::move(a);
    EXPECT_EQ(a.bytes(), 0u);
    EXPECT_EQ(memoryInUse(), before + (700 << 10));
  }
  EXPECT_EQ(memoryInUse(), before);
}

TEST(MemoryBudget, DeviceAllocationsPastTheBudgetFailAsOnAFullGpu) {
  vm::DeviceMemory memory;
  BudgetScope scope(memoryInUse() + (uint64_t{8} << 20));
  const uint64_t before = memoryInUse();
  auto a = memory.allocate(uint64_t{6} << 20, vm::AllocationKind::Device, "a");
  ASSERT_TRUE(a);
  EXPECT_EQ(memoryInUse(), before + (uint64_t{6} << 20));
  EXPECT_FALSE(memory.allocate(uint64_t{4} << 20, vm::AllocationKind::Device, "b"));
  EXPECT_TRUE(memory.release(*a));
  EXPECT_EQ(memoryInUse(), before);
  EXPECT_TRUE(memory.allocate(uint64_t{4} << 20, vm::AllocationKind::Device, "b"));
}

} // namespace
} // namespace ptxray::support
