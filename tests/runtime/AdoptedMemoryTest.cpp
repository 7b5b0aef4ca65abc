// DeviceMemory::adopt: memory the host owns, reachable by kernels at the same address (the CUDA
// runtime library's managed and page-locked memory).
#include "vm/Memory.h"

#include <gtest/gtest.h>

#include <cstdint>

using namespace ptxray::vm;

namespace {
std::byte *at(uint64_t address) {
  return reinterpret_cast<std::byte *>(static_cast<uintptr_t>(address));
}
} // namespace

TEST(AdoptedMemory, IdentityMappedAndNeverFreedByTheVm) {
  DeviceMemory memory;
  // Nothing is mapped at these addresses: the VM only records and translates them here.
  const uint64_t base = 0xC000'0000;
  ASSERT_EQ(memory.adopt(at(base), 4096, AllocationKind::Managed, "managed"), base);
  const Allocation *a = memory.find(base + 100);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(a->adopted);
  EXPECT_EQ(a->kind, AllocationKind::Managed);
  EXPECT_EQ(memory.hostRange(base + 16, 32), at(base + 16));
  EXPECT_EQ(memory.bytesInUse(), 4096u);
  EXPECT_TRUE(memory.release(base)); // must not free the caller's bytes (that would crash here)
  EXPECT_EQ(memory.hostRange(base, 4), nullptr);
  EXPECT_TRUE(memory.find(base)->freed);
}

TEST(AdoptedMemory, OverlapsAndRangesAreRefused) {
  DeviceMemory memory;
  const uint64_t base = 0xC000'0000;
  ASSERT_TRUE(memory.adopt(at(base), 8192, AllocationKind::Managed, "a"));
  EXPECT_FALSE(memory.adopt(at(base + 4096), 4096, AllocationKind::Managed, "inside"));
  EXPECT_FALSE(memory.adopt(at(base - 4096), 8192, AllocationKind::Managed, "overlapping the start"));
  EXPECT_FALSE(memory.adopt(at(kGlobalLimit - 16), 4096, AllocationKind::Managed, "past the global range"));
  ASSERT_TRUE(memory.allocate(4096, AllocationKind::Device, "device"));
  EXPECT_FALSE(memory.adopt(at(kGlobalBase), 4096, AllocationKind::Managed, "below the allocation frontier"))
      << "addresses the bump allocator has handed out are its own";
  EXPECT_TRUE(memory.adopt(at(base + 8192), 4096, AllocationKind::HostMapped, "right after"));
}

TEST(AdoptedMemory, AllocationsStayBelowAdoptedRangesAndSorted) {
  DeviceMemory memory;
  const uint64_t ceiling = kGlobalBase + 0x10000;
  ASSERT_TRUE(memory.adopt(at(ceiling), 4096, AllocationKind::Managed, "low adopted range"));
  auto first = memory.allocate(4096, AllocationKind::Device, "first");
  ASSERT_TRUE(first);
  EXPECT_LT(*first + 4096, ceiling);
  EXPECT_EQ(memory.find(*first + 10)->label, "first");
  EXPECT_EQ(memory.find(ceiling + 10)->label, "low adopted range");
  // Too big to fit below the adopted range: placed in the high range, not overlapping.
  auto big = memory.allocate(0x20000, AllocationKind::Device, "too big for the low range");
  ASSERT_TRUE(big);
  EXPECT_EQ(*big, kHighGlobalBase);
  EXPECT_EQ(memory.find(*big + 0x1FFFF)->label, "too big for the low range");
  // A small one still fits below the adopted range.
  auto small = memory.allocate(256, AllocationKind::Device, "small");
  ASSERT_TRUE(small);
  EXPECT_LT(*small, ceiling);
  EXPECT_EQ(memory.find(ceiling + 10)->label, "low adopted range");
}

TEST(AdoptedMemory, TheHighRangeHoldsMoreThanTheLowWindowAndStopsAtItsEnd) {
  DeviceMemory memory;
  // Every byte below the windows taken by an adopted range (only recorded: nothing is mapped there),
  // so each allocation goes to the high range, one empty granule apart.
  ASSERT_TRUE(memory.adopt(at(memory.allocationFrontier()), kGlobalLimit - memory.allocationFrontier(),
                           AllocationKind::Managed, "the whole low range"));
  auto a = memory.allocate(1000, AllocationKind::Device, "a");
  auto b = memory.allocate(10, AllocationKind::Device, "b");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, kHighGlobalBase);
  EXPECT_EQ(*b, kHighGlobalBase + 1024 + kAllocationAlign);
  EXPECT_EQ(memory.find(*a + 999)->label, "a");
  EXPECT_EQ(memory.find(*a + 1000 + 200)->label, "a") << "past the end still names the allocation it overran";
  EXPECT_FALSE(memory.allocate(kHighGlobalSize, AllocationKind::Device, "larger than the rest of the range"));
}
