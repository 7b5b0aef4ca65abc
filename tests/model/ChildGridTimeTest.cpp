// The time model's schedule of child grids (dynamic parallelism) against an H200: the kernels of
// validation/model/cdp_launch.cu (tests/model/kernels/cdp_launch.ptx, nvcc 13 -rdc=true
// -arch=compute_90 -ptx) run on the VM with the model, and the time their child grids add to the
// launch (TimeEstimate::childGridsSeconds) is compared with what they added on the GPU
// (validation/model/results-h200/cdp_launch.txt: the parent's time less the same parent launching
// nothing). The tree's structure the model sees is checked exactly.
#include "arch/GpuDatabase.h"
#include "model/PerformanceModel.h"
#include "support/TestFiles.h"
#include "support/VmHarness.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <sstream>

namespace ptxray::test {
namespace {

/// (case, parameter) -> microseconds, as the H200 measured them.
std::map<std::pair<std::string, std::string>, double> measured() {
  std::istringstream in(readFile(sourceDir() / "validation/model/results-h200/cdp_launch.txt"));
  std::map<std::pair<std::string, std::string>, double> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("case\t", 0) == 0)
      continue;
    const size_t a = line.find('\t'), b = line.find('\t', a + 1);
    out[{line.substr(0, a), line.substr(a + 1, b - a - 1)}] = std::stod(line.substr(b + 1));
  }
  return out;
}

struct Tree {
  model::LaunchProfile root;
  size_t profiles = 0;
};

template <typename... Args> Tree run(const std::string &kernel, vm::Dim3 grid, vm::Dim3 block, Args... args) {
  VmHarness vm("sm_90");
  model::PerformanceModel perf(*arch::findArch("h200").target);
  vm.device.setListener(&perf);
  // As the benchmark sets it (cudaLimitDevRuntimePendingLaunchCount): the VM runs a grid's children
  // after it, so all of a 4224-block grid's are pending at once.
  vm.options.pendingLaunchLimit = 32768;
  auto &m = vm.load(readFile(sourceDir() / "tests/model/kernels/cdp_launch.ptx"));
  vm::LaunchResult r = vm.launch(m, kernel, grid, block, args...);
  EXPECT_TRUE(r.ok()) << describe(r);
  const model::LaunchProfile *root = perf.finishHostLaunch();
  EXPECT_NE(root, nullptr);
  if (!root)
    return {};
  EXPECT_EQ(root->childGrids.size(), r.childGrids);
  return {*root, perf.launches().size()};
}

// Many launches (64 or more; chains and tail launches 4 or more, one after another): the GPU's
// numbers hold from pass to pass within 5%, and the model is held to 25%. Fewer: the H200 took 13-14
// us more for one child in some passes and 30 in others (results-h200/cdp_launch.txt gives each
// pass's median), and 8 to 32 launches from as many blocks or threads cost it about 2 us each where
// 132 to 4224 cost 0.4-0.8 us: the model, one cost a launch, is held to 2x there.
TEST(ChildGridTime, MatchesTheH200) {
  const auto gpu = measured();
  const double parentOnly = gpu.at({"serial children (one thread, block stream)", "0"});
  const double fanOnly = gpu.at({"fire-and-forget children (one block, n threads)", "0"});
  const double tailOnly = gpu.at({"tail launches (one thread)", "0"});
  const double chainOnly = gpu.at({"nested chain depth", "0"});
  std::string table;
  size_t many = 0;
  auto check = [&](const std::string &name, int parameter, const Tree &t, double baseline) {
    const double h200 = gpu.at({name, std::to_string(parameter)}) - baseline;
    const double model = t.root.time.childGridsSeconds * 1e6;
    const double ratio = model / h200;
    const bool serialized = name.starts_with("nested") || name.starts_with("tail");
    const bool stable = parameter >= (serialized ? 4 : 64);
    table +=
        fmt::format("  {:<50} {:>5}  model {:8.1f} us  H200 {:8.1f} us  {:.2f}\n", name, parameter, model, h200, ratio);
    many += stable;
    EXPECT_GT(ratio, stable ? 0.8 : 0.5) << name << " " << parameter;
    EXPECT_LT(ratio, stable ? 1.25 : 2.0) << name << " " << parameter;
  };
  for (int n : {1, 4, 16, 64})
    check("serial children (one thread, block stream)", n, run("_Z12serialParentii", {1, 1, 1}, {1, 1, 1}, n, 1),
          parentOnly);
  for (int n : {1, 4, 16, 64, 256})
    check("fire-and-forget children (one block, n threads)", n, run("_Z9fanParenti", {1, 1, 1}, {256, 1, 1}, n),
          fanOnly);
  for (int n : {1, 16, 64, 256})
    check("children of n threads into the block stream", n, run("_Z19fanSameStreamParenti", {1, 1, 1}, {256, 1, 1}, n),
          fanOnly);
  for (unsigned blocks : {1u, 8u, 32u, 132u, 1056u, 4224u})
    check("one child per block", static_cast<int>(blocks), run("_Z14perBlockParentv", {blocks, 1, 1}, {32, 1, 1}),
          parentOnly);
  for (int n : {1, 4, 8, 16})
    check("tail launches (one thread)", n, run("_Z10tailParenti", {1, 1, 1}, {1, 1, 1}, n), tailOnly);
  for (int d : {1, 2, 4, 8, 16, 23})
    check("nested chain depth", d, run("_Z5chaini", {1, 1, 1}, {1, 1, 1}, d), chainOnly);
  EXPECT_GE(many, 12u);
  std::cout << table;
}

TEST(ChildGridTime, TheTreeAsTheModelSeesIt) {
  // chain(3): three nested grids, each launched by the one before, in the order they ran.
  const Tree t = run("_Z5chaini", {1, 1, 1}, {1, 1, 1}, 3);
  ASSERT_EQ(t.root.childGrids.size(), 3u);
  EXPECT_EQ(t.profiles, 4u); // the root and one profile per child grid
  for (size_t i = 0; i < 3; ++i) {
    const model::ChildGrid &c = t.root.childGrids[i];
    EXPECT_EQ(c.depth, i + 1);
    EXPECT_EQ(c.parent, static_cast<int64_t>(i) - 1);
    EXPECT_EQ(c.profile, i + 1);
    EXPECT_EQ(c.kernel, "chain(int)");
    EXPECT_EQ(c.origin.stream, 0u);
    // Each begins after its parent began, and ends after it begins.
    const double parentStart = i == 0 ? 0 : t.root.childGrids[i - 1].startSeconds;
    EXPECT_GT(c.startSeconds, parentStart);
    EXPECT_GT(c.endSeconds, c.startSeconds);
  }
  EXPECT_NEAR(t.root.seconds(), t.root.childGrids[0].endSeconds, 1e-12);
  // perBlockParent on 4 blocks: each block's thread 0 launches one grid, into its own block's stream.
  const Tree blocks = run("_Z14perBlockParentv", {4, 1, 1}, {32, 1, 1});
  ASSERT_EQ(blocks.root.childGrids.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(blocks.root.childGrids[i].origin.launchingCta, i);
    EXPECT_EQ(blocks.root.childGrids[i].origin.launchingThread, 0u);
    EXPECT_EQ(blocks.root.childGrids[i].parent, -1);
  }
  // Tail launches run after the others, one after another.
  const Tree tail = run("_Z10tailParenti", {1, 1, 1}, {1, 1, 1}, 2);
  ASSERT_EQ(tail.root.childGrids.size(), 2u);
  EXPECT_EQ(tail.root.childGrids[0].origin.stream, vm::GridOrigin::kTailLaunchStream);
  EXPECT_GE(tail.root.childGrids[1].startSeconds, tail.root.childGrids[0].endSeconds);
  // Without children nothing is added.
  const Tree none = run("_Z12serialParentii", {1, 1, 1}, {1, 1, 1}, 0, 1);
  EXPECT_TRUE(none.root.childGrids.empty());
  EXPECT_EQ(none.root.time.childGridsSeconds, 0);
}

// A child grid that spins on %clock64 for 10^5 cycles lasts at least that long on the model's clock
// (vm::Listener::onClockWait, heard for every grid of the tree), and the launch lasts until it is done.
TEST(ChildGridTime, AChildsClockWaitIsInItsTime) {
  VmHarness vm("sm_90");
  const arch::ArchTarget h200 = *arch::findArch("h200").target;
  model::PerformanceModel perf(h200);
  vm.device.setListener(&perf);
  auto &m = vm.load(readFile(sourceDir() / "tests/model/kernels/cdp_clock.ptx"));
  constexpr long long kCycles = 100000;
  vm::LaunchResult r = vm.launch(m, "_Z10spinParentx", {1, 1, 1}, {1, 1, 1}, kCycles);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(r.clockCycles, 0u); // the parent never read its clock
  const model::LaunchProfile *root = perf.finishHostLaunch();
  ASSERT_NE(root, nullptr);
  ASSERT_EQ(root->childGrids.size(), 1u);
  const model::LaunchProfile &child = perf.launches()[root->childGrids[0].profile];
  const double wait = static_cast<double>(kCycles) / child.time.clockHz;
  EXPECT_GE(child.time.clockWaitSeconds, wait);
  EXPECT_LT(child.time.clockWaitSeconds, 1.1 * wait); // the wait, not the VM's instruction count
  EXPECT_GE(root->childGrids[0].ownSeconds, wait);
  EXPECT_GE(root->time.childGridsSeconds, wait);
  EXPECT_GE(root->seconds(), root->time.seconds + wait);
  EXPECT_EQ(root->time.clockWaitSeconds, 0);
}

} // namespace
} // namespace ptxray::test
