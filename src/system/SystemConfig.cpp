#include "system/SystemConfig.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace ptxray::system {

namespace {

/// Staging in series with the DMA: the host copies each chunk into the pinned buffer, then the engine
/// moves it.
double staged(double pinned, double staging) {
  return 1.0 / (1.0 / pinned + 1.0 / staging);
}

} // namespace

SystemConfig SystemConfig::forTarget(const arch::ArchTarget &target, const SystemOptions &options) {
  const arch::Gpu *gpu = target.board();
  if (!gpu)
    throw std::invalid_argument(
        fmt::format("no GPU of {} in the database: name a board (--arch K20X, H100, ...)", target.displayName()));
  const arch::ComputeCapability &cc = *target.computeCapability;
  SystemConfig c;
  c.gpu = gpu->name;
  c.costs = arch::hostCosts();
  c.deviceCopyBytesPerSecond = gpu->theoreticalBandwidthBytesPerSecond() * c.costs.deviceCopyBandwidthFraction;
  c.link = arch::pcieLinkFor(*gpu, options.pcieGeneration, options.pcieLanes);
  if (c.link) {
    c.pinnedBytesPerSecond = c.link->pinnedBytesPerSecond();
    c.pageableH2DBytesPerSecond = staged(c.pinnedBytesPerSecond, c.costs.pageableStagingH2DBytesPerSecond);
    c.pageableD2HBytesPerSecond = staged(c.pinnedBytesPerSecond, c.costs.pageableStagingD2HBytesPerSecond);
  } else {
    // An integrated GPU shares the host's DRAM: a "transfer" is a copy within it.
    c.pinnedBytesPerSecond = c.deviceCopyBytesPerSecond / 2;
    c.pageableH2DBytesPerSecond = staged(c.pinnedBytesPerSecond, c.costs.pageableStagingH2DBytesPerSecond);
    c.pageableD2HBytesPerSecond = staged(c.pinnedBytesPerSecond, c.costs.pageableStagingD2HBytesPerSecond);
  }
  c.gpusPerBoard = std::max(1, gpu->gpusPerBoard);
  c.boards = options.boards.value_or(1);
  if (c.boards < 1 || c.boards > kMaxBoards)
    throw std::invalid_argument(fmt::format("{} boards: expected 1 to {}", c.boards, kMaxBoards));
  if (c.boards > 1 && !c.link)
    throw std::invalid_argument(fmt::format("{} is an integrated GPU: a host has one, not {} boards", c.gpu, c.boards));
  // Up one board's link and down the other's, staged through host memory.
  c.hostPeerBytesPerSecond = c.pinnedBytesPerSecond * c.costs.stagedPeerBandwidthFraction;
  if (c.gpusPerBoard > 1 && gpu->pcieGeneration) {
    c.switchPortBytesPerSecond = arch::PcieLink{*gpu->pcieGeneration, 16}.pinnedBytesPerSecond();
    c.boardPeerBytesPerSecond = c.switchPortBytesPerSecond;
  }
  c.copyEngines = gpu->copyEngines;
  c.maxConcurrentKernels = std::max(1, cc.maxResidentGrids);
  const int queues = std::max(1, cc.hardwareWorkQueues);
  c.computeQueues = queues == 1 ? 1 : std::clamp(options.connections.value_or(c.costs.defaultConnections), 1, queues);
  return c;
}

double SystemConfig::hostCopySeconds(uint64_t bytes, bool toDevice, bool pinnedHost) const {
  // SystemModel's copy duration, alone on the link (no gapped rows: one contiguous range).
  const double rate = pinnedHost ? pinnedBytesPerSecond
                      : toDevice ? pageableH2DBytesPerSecond
                                 : pageableD2HBytesPerSecond;
  return costs.copyEngineSetupSeconds + (rate > 0 ? static_cast<double>(bytes) / rate : 0.0);
}

double SystemConfig::deviceCopySeconds(uint64_t bytes, bool memset) const {
  // A device copy reads and writes each byte; a memset only writes.
  const double traffic = static_cast<double>(bytes) * (memset ? 1.0 : 2.0);
  return costs.copyEngineSetupSeconds + (deviceCopyBytesPerSecond > 0 ? traffic / deviceCopyBytesPerSecond : 0.0);
}

} // namespace ptxray::system
