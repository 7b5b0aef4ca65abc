#include "arch/OccupancyAdvice.h"

#include <cstdio>

namespace ptxray::arch {
namespace {

constexpr const char *kBpg = "OpenCL Best Practices Guide ";
constexpr double kPercent = 100;

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f%%", fraction * kPercent);
  return text;
}

std::string bpg(const char *section) {
  return std::string(kBpg) + section;
}

void add(std::vector<Advice> &out, AdviceKind kind, Severity severity, std::string message, std::string source) {
  out.push_back({kind, severity, std::move(message), std::move(source)});
}

void adviseBlock(const ComputeCapability &cc, const OccupancyInput &input, const OccupancyResult &result,
                 const GuideHeuristics &h, std::vector<Advice> &out) {
  int threads = input.threadsPerBlock;
  if (threads % cc.warpSize != 0)
    add(out, AdviceKind::BlockNotWarpMultiple, Severity::Warning,
        std::to_string(threads) + " threads per block is not a multiple of the warp size (" +
            std::to_string(cc.warpSize) + "): the last warp runs " + std::to_string(threads % cc.warpSize) +
            " threads and coalescing suffers",
        bpg("§4.4"));
  if (cc.registerBankBlockMultiple && threads % *cc.registerBankBlockMultiple != 0)
    add(out, AdviceKind::BlockNotRegisterBankMultiple, Severity::Info,
        "on " + cc.smName() + " blocks of a multiple of " + std::to_string(*cc.registerBankBlockMultiple) +
            " threads let the compiler avoid register bank conflicts",
        bpg("§3.2.6"));
  if (threads < h.minThreadsPerBlock)
    add(out, AdviceKind::BlockBelowMinimum, Severity::Warning,
        "use at least " + std::to_string(h.minThreadsPerBlock) + " threads per block (" + std::to_string(threads) +
            " now), and then only with several blocks per SM",
        bpg("§4.4"));
  else if (threads < h.recommendedMinThreadsPerBlock || threads > h.recommendedMaxThreadsPerBlock)
    add(out, AdviceKind::BlockOutsideRecommendedRange, Severity::Info,
        std::to_string(h.recommendedMinThreadsPerBlock) + " to " + std::to_string(h.recommendedMaxThreadsPerBlock) +
            " threads per block is the recommended starting range for experiments",
        bpg("§4.4"));
  if (result.activeBlocksPerSm == 1)
    add(out, AdviceKind::SingleBlockPerSm, Severity::Info,
        "only one block fits per SM: while it waits at a barrier the SM has nothing else to run", bpg("§4.4"));
}

void adviseGrid(const OccupancyResult &result, long long grid, int smCount, const GuideHeuristics &h,
                std::vector<Advice> &out) {
  if (grid < smCount)
    add(out, AdviceKind::GridBelowSmCount, Severity::Warning,
        "the grid has " + std::to_string(grid) + " blocks for " + std::to_string(smCount) +
            " SMs: some SMs get no work",
        bpg("§4.4"));
  else if (grid < static_cast<long long>(result.activeBlocksPerSm) * smCount)
    add(out, AdviceKind::GridDoesNotFillGpu, Severity::Info,
        "the grid has " + std::to_string(grid) + " blocks; " +
            std::to_string(static_cast<long long>(result.activeBlocksPerSm) * smCount) +
            " are needed to reach the computed occupancy on every SM",
        bpg("§4.4"));
  if (grid < h.minGridBlocksToScale)
    add(out, AdviceKind::GridTooSmallToScale, Severity::Info,
        "launch hundreds of blocks to scale to future GPUs (thousands scale across generations); the grid has " +
            std::to_string(grid),
        bpg("§4.4"));
}

} // namespace

std::vector<Advice> adviseLaunch(const ComputeCapability &cc, const OccupancyInput &input,
                                 const OccupancyResult &result, std::optional<long long> gridBlocks,
                                 std::optional<int> smCount, const GuideHeuristics &heuristics) {
  std::vector<Advice> out;
  if (!result.launches())
    add(out, AdviceKind::LaunchFails, Severity::Error, "the kernel invocation fails: " + result.launchError,
        bpg("§4.4"));
  if (input.staticSharedBytes > static_cast<std::size_t>(cc.maxStaticSharedPerBlock))
    add(out, AdviceKind::StaticSharedTooLarge, Severity::Error,
        "statically declared shared memory is limited to " + std::to_string(cc.maxStaticSharedPerBlock) +
            " bytes per block on " + cc.smName() + "; allocate the rest dynamically",
        "CUDA C++ Programming Guide, shared memory (static allocations are limited to 48 KB)");
  adviseBlock(cc, input, result, heuristics, out);
  if (gridBlocks && smCount)
    adviseGrid(result, *gridBlocks, *smCount, heuristics, out);
  if (result.launches() && result.occupancy < cc.minOccupancyToHideRegisterLatency)
    add(out, AdviceKind::OccupancyTooLowForRegisterLatency, Severity::Warning,
        "occupancy " + percent(result.occupancy) + " is below the " + percent(cc.minOccupancyToHideRegisterLatency) +
            " needed to hide the ~" + std::to_string(cc.latency.registerReadAfterWriteCycles) +
            "-cycle register read-after-write latency",
        bpg("§4.3"));
  if (result.occupancy > heuristics.occupancyPlateau)
    add(out, AdviceKind::OccupancyPastPlateau, Severity::Info,
        "occupancy " + percent(result.occupancy) + " is past " + percent(heuristics.occupancyPlateau) +
            ", beyond which more occupancy rarely helps: registers or shared memory can be spent on more work "
            "per thread instead",
        bpg("§4.4, §4.5"));
  if (result.sharedMemoryOptInRequired)
    add(out, AdviceKind::SharedOptInRequired, Severity::Info,
        "the block uses more than " + std::to_string(cc.sharedPerBlock) +
            " bytes of shared memory: call cudaFuncSetAttribute(kernel, "
            "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) before launching",
        "CUDA C++ Programming Guide, shared memory: dynamic allocations above 48 KB need an opt-in");
  if (input.carveoutPercent && cc.sharedCarveoutsBytes.empty())
    add(out, AdviceKind::CarveoutIgnored, Severity::Info,
        "a shared memory carveout needs compute capability 7.0; " + cc.smName() + " uses the cache configuration",
        bpg("§4.5"));
  return out;
}

} // namespace ptxray::arch
