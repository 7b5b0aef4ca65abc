// Dynamic parallelism ([Kepler] §1.4.2.3): a launch whose threads launch grids, read from its launch
// tree (model::LaunchProfile::childGrids) and the device-launch costs the time model schedules it
// with (arch::DeviceLaunchCosts). Each rule says what the tree spends on launching instead of work.
#include "advisor/RuleContext.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace ptxray::advisor {

namespace {

std::string microseconds(double s) {
  return fmt::format("{:.1f} us", s * 1e6);
}

/// Child grids fewer than the GPU's SMs and cheaper than launching them: the tree waits on launches.
void smallChildGrids(const RuleContext &ctx, const model::LaunchProfile &L, std::vector<Finding> &out) {
  const std::vector<model::ChildGrid> &grids = L.childGrids;
  if (grids.size() < 4)
    return;
  const int sms = std::max(L.time.smCount, 1);
  const double launchCost = ctx.cc.deviceLaunch.firstChildNanoseconds * 1e-9;
  std::vector<uint64_t> blocks;
  double work = 0; // the GPU's time the grids' own work fills, side by side as they can run
  size_t small = 0;
  for (const model::ChildGrid &c : grids) {
    blocks.push_back(c.grid.count());
    work += c.ownSeconds * c.gpuShare;
    if (c.grid.count() < static_cast<uint64_t>(sms) && c.ownSeconds < launchCost)
      ++small;
  }
  // Most grids too small to fill the GPU and done sooner than launched, and the tree's time more
  // launching than work.
  if (small * 2 < grids.size() || L.time.childGridsSeconds <= 0 || work >= 0.5 * L.time.childGridsSeconds)
    return;
  std::nth_element(blocks.begin(), blocks.begin() + static_cast<ptrdiff_t>(blocks.size() / 2), blocks.end());
  const uint64_t medianBlocks = blocks[blocks.size() / 2];
  Finding f = ctx.make("child-grids-too-small");
  f.title = fmt::format("{} of the {} child grids are smaller than the GPU and take less time than their launch", small,
                        grids.size());
  f.evidence = fmt::format("median child grid {} block{} (the GPU has {} SMs); side by side the child grids' own "
                           "work would fill the GPU for {}, but they keep the launch {} longer than its own grid: a "
                           "launch from the device takes about {} before its grid begins",
                           medianBlocks, medianBlocks == 1 ? "" : "s", sms, microseconds(work),
                           microseconds(L.time.childGridsSeconds), microseconds(launchCost));
  f.fix = "give each launch more work: one grid for many pieces (a block per piece) instead of a grid per piece, or "
          "do pieces below a size in the launching thread or block";
  // One launch for all of them: the work stays, the launches but one go.
  ctx.setGain(f, std::max(0.0, L.time.childGridsSeconds - work - launchCost));
  out.push_back(std::move(f));
}

/// Several threads of a block each launching a grid, where one launch per block would do.
void launchPerThread(const RuleContext &ctx, const model::LaunchProfile &L, std::vector<Finding> &out) {
  // By launching grid (-1: the root): its launching threads and blocks.
  std::map<int64_t, std::set<std::pair<uint64_t, uint64_t>>> threads;
  std::map<int64_t, std::set<uint64_t>> blocks;
  for (const model::ChildGrid &c : L.childGrids) {
    threads[c.parent].insert({c.origin.launchingCta, c.origin.launchingThread});
    blocks[c.parent].insert(c.origin.launchingCta);
  }
  size_t launchers = 0, launchingBlocks = 0;
  for (const auto &[parent, t] : threads) {
    launchers += t.size();
    launchingBlocks += blocks[parent].size();
  }
  if (L.childGrids.size() < 8 || launchers < 2 * launchingBlocks)
    return;
  const double perBlock = static_cast<double>(launchers) / static_cast<double>(launchingBlocks);
  Finding f = ctx.make("launch-per-thread");
  f.title = fmt::format("{:.1f} threads of each launching block launch a grid of their own", perBlock);
  f.evidence = fmt::format("{} child grids launched by {} threads of {} blocks; the GPU takes device launches one at a "
                           "time (about {} each) and a block's launches into its stream one after another",
                           L.childGrids.size(), launchers, launchingBlocks,
                           microseconds(ctx.cc.deviceLaunch.issueNanoseconds * 1e-9));
  f.fix = "launch one grid per block, from one thread after a barrier, with a block (or a range) for each thread's "
          "piece; or do each thread's piece in the thread itself";
  const double saved = static_cast<double>(L.childGrids.size() - std::min(L.childGrids.size(), launchingBlocks)) *
                       (ctx.cc.deviceLaunch.issueNanoseconds + ctx.cc.deviceLaunch.streamGapNanoseconds) * 1e-9;
  ctx.setGain(f, std::min(saved, L.time.childGridsSeconds));
  out.push_back(std::move(f));
}

/// A recursion whose last levels launch grids that do less than their launch costs.
void deepRecursion(const RuleContext &ctx, const model::LaunchProfile &L, std::vector<Finding> &out) {
  uint32_t deepest = 0;
  for (const model::ChildGrid &c : L.childGrids)
    deepest = std::max(deepest, c.depth);
  if (deepest < 3)
    return;
  const double launchCost = ctx.cc.deviceLaunch.firstChildNanoseconds * 1e-9;
  size_t leaves = 0;
  double leafWork = 0, leafThreads = 0;
  for (const model::ChildGrid &c : L.childGrids)
    if (c.depth == deepest) {
      ++leaves;
      leafWork += c.ownSeconds;
      leafThreads += static_cast<double>(c.grid.count() * c.block.count());
    }
  const double work = leafWork / static_cast<double>(leaves), threadsEach = leafThreads / static_cast<double>(leaves);
  if (work >= launchCost || threadsEach > 256)
    return;
  Finding f = ctx.make("recursion-too-deep");
  f.title =
      fmt::format("the recursion goes {} levels deep, and its last level does less than its launches cost", deepest);
  f.evidence =
      fmt::format("{} grid{} at depth {}, {:.0f} threads and {} of work each, against about {} to launch each", leaves,
                  leaves == 1 ? "" : "s", deepest, threadsEach, microseconds(work), microseconds(launchCost));
  f.fix = "stop recursing earlier: below a size, finish the piece in the thread or block that would have launched it "
          "(a serial sort, a direct fill)";
  // The last level's launch latency, which every path through the tree waits for once.
  ctx.setGain(f, std::min(launchCost, L.time.childGridsSeconds));
  out.push_back(std::move(f));
}

} // namespace

void launchTreeRules(const RuleContext &ctx, std::vector<Finding> &out) {
  if (!ctx.launch || ctx.launch->childGrids.empty())
    return;
  smallChildGrids(ctx, *ctx.launch, out);
  launchPerThread(ctx, *ctx.launch, out);
  deepRecursion(ctx, *ctx.launch, out);
}

} // namespace ptxray::advisor
