// The listener interface: hand-counted instruction, memory, branch and barrier events for small
// kernels, and proof that listening changes nothing.
#include "support/VmHarness.h"

#include <gtest/gtest.h>
#include <mutex>

namespace ptxray::test {
namespace {

struct Counter : vm::Listener {
  std::mutex mutex;
  uint64_t instructions = 0, activeThreads = 0, executedThreads = 0, memory = 0, stores = 0, branches = 0,
           divergent = 0, barrierArrivals = 0, barrierReleases = 0, warps = 0, ctas = 0;
  std::vector<uint32_t> storeMasks;
  std::vector<uint64_t> storeAddresses;
  void onCtaBegin(unsigned, vm::Dim3) override {
    std::lock_guard l(mutex);
    ++ctas;
  }
  void onWarpBegin(const vm::WarpRef &, uint32_t) override {
    std::lock_guard l(mutex);
    ++warps;
  }
  void onInstruction(const vm::WarpRef &, const vm::InstructionEvent &e) override {
    std::lock_guard l(mutex);
    ++instructions;
    activeThreads += std::popcount(e.activeMask);
    executedThreads += std::popcount(e.executedMask);
  }
  void onMemory(const vm::WarpRef &, const vm::MemoryEvent &e) override {
    std::lock_guard l(mutex);
    ++memory;
    if (e.op == vm::MemoryOp::Store && e.space == vm::Space::Global) {
      ++stores;
      storeMasks.push_back(e.mask);
      for (int lane = 0; lane < 32; ++lane)
        if (e.mask >> lane & 1)
          storeAddresses.push_back(e.addresses[lane]);
    }
  }
  void onBranch(const vm::WarpRef &, const vm::BranchEvent &e) override {
    std::lock_guard l(mutex);
    ++branches;
    divergent += e.divergent;
  }
  void onBarrier(const vm::WarpRef &, const vm::BarrierEvent &e) override {
    std::lock_guard l(mutex);
    (e.release ? barrierReleases : barrierArrivals)++;
  }
};

const char *kIndex = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.lo.s32 %r6, %r5, 3;
  add.s32 %r6, %r6, 7;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r6;
DONE:
  bar.sync 0;
  ret;
}
)";

TEST(VmEvents, CountsMatchAHandCount) {
  VmHarness h;
  auto &m = h.load(kIndex);
  uint64_t out = h.zeros<uint32_t>(1000);
  Counter c;
  h.device.setListener(&c);
  h.options.threads = 2;
  auto r = h.launch(m, "k", {8, 1, 1}, {128, 1, 1}, out, 1000u);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(c.ctas, 8u);
  EXPECT_EQ(c.warps, 32u);
  // 32 warps x 16 instructions (8 before the branch, 6 on the store path, bar.sync, ret); the last
  // warp (threads 992-1023) runs the store path with 8 lanes only.
  EXPECT_EQ(c.instructions, 32u * 16);
  EXPECT_EQ(c.activeThreads, 31u * 16 * 32 + (8 * 32 + 6 * 8 + 2 * 32));
  EXPECT_EQ(r.threadInstructions, c.activeThreads);
  // The guarded branch is predicated off in the 1000 threads that store.
  EXPECT_EQ(c.executedThreads, c.activeThreads - 1000);
  // Memory: two kernel-parameter loads per warp and one store per warp.
  EXPECT_EQ(c.memory, 32u * 3);
  EXPECT_EQ(c.stores, 32u);
  EXPECT_EQ(std::count(c.storeMasks.begin(), c.storeMasks.end(), 0xffu), 1);
  std::sort(c.storeAddresses.begin(), c.storeAddresses.end());
  ASSERT_EQ(c.storeAddresses.size(), 1000u);
  for (uint64_t i = 0; i < 1000; ++i)
    ASSERT_EQ(c.storeAddresses[i], out + 4 * i);
  EXPECT_EQ(c.branches, 32u);
  EXPECT_EQ(c.divergent, 1u);
  EXPECT_EQ(c.barrierArrivals, 32u);
  EXPECT_EQ(c.barrierReleases, 8u);
}

TEST(VmEvents, ListeningAndWorkerCountDoNotChangeResults) {
  VmHarness h;
  auto &m = h.load(kIndex);
  std::vector<std::vector<uint32_t>> results;
  for (unsigned threads : {1u, 2u, 4u}) {
    for (bool listen : {false, true}) {
      Counter c;
      h.device.setListener(listen ? &c : nullptr); // both channels: the allocation too
      uint64_t out = h.zeros<uint32_t>(1000);
      h.options.threads = threads;
      auto r = h.launch(m, "k", {8, 1, 1}, {128, 1, 1}, out, 1000u);
      h.device.setListener(nullptr); // c ends with this iteration
      ASSERT_TRUE(r.ok()) << describe(r);
      results.push_back(h.download<uint32_t>(out, 1000));
    }
  }
  for (const auto &v : results)
    EXPECT_EQ(v, results.front());
}

} // namespace
} // namespace ptxray::test
