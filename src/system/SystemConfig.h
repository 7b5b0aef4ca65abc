// What the system model needs to know about one GPU in its host: the PCIe link, the copy engines,
// the concurrent-kernel limit, the hardware work queues (Hyper-Q connections) and the fixed costs of
// the runtime. Every number comes from the architecture database (arch/GpuDatabase.h,
// arch/HostSystem.h), where its source is named.
#pragma once

#include "arch/GpuDatabase.h"
#include "arch/HostSystem.h"

#include <optional>
#include <string>

namespace ptxray::system {

struct SystemOptions {
  std::optional<int> pcieGeneration; ///< the host's; the link runs at the lower of host and GPU
  std::optional<int> pcieLanes;
  /// CUDA_DEVICE_MAX_CONNECTIONS: Hyper-Q connections (default 8, at most the GPU's queues).
  std::optional<int> connections;
  /// Boards of the GPU in the host (default 1); a dual-GPU board (K10, K80) gives two devices each.
  std::optional<int> boards;
};

/// The most boards a host is modeled with (a chassis of eight or sixteen GPUs).
inline constexpr int kMaxBoards = 16;

struct SystemConfig {
  std::string gpu;                    ///< "Tesla K20X"
  std::optional<arch::PcieLink> link; ///< none: an integrated GPU (copies stay in shared DRAM)
  double pinnedBytesPerSecond = 0;    ///< per direction
  double pageableH2DBytesPerSecond = 0;
  double pageableD2HBytesPerSecond = 0;
  double deviceCopyBytesPerSecond = 0; ///< DRAM bytes per second of device copies and memsets
  /// 0: copies and kernels never overlap (CC 1.0); 1: one copy at a time, either direction, beside
  /// kernels; 2 or more: one copy each way at a time.
  int copyEngines = 0;
  int maxConcurrentKernels = 1;
  /// Hardware queues kernels are dispatched from in order: 1 before Hyper-Q (Fermi, GK104, GK20A),
  /// else the connections the driver opens.
  int computeQueues = 1;
  arch::HostCosts costs;
  /// The devices: `boards` boards of `gpusPerBoard` GPUs, device d on board d / gpusPerBoard. [KTG]
  /// §1.4.7: the GPUs of a dual-GPU board are separate CUDA devices with their own memory, engines
  /// and queues; the board's one host link is shared through an on-board PCIe switch, on which each
  /// GPU has a port of its own.
  int gpusPerBoard = 1;
  int boards = 1;
  int devices() const { return gpusPerBoard * boards; }
  /// Per direction: a GPU's port on its board's switch (boards of two or more GPUs; the board's own
  /// generation, x16, whatever the host's), and a peer copy's rate alone: on one board across the
  /// switch ([KTG] §1.4.8: PCIe 3.0 speeds between the GPUs of a K10 or K80 even in a PCIe 2.0
  /// host), between boards staged through host memory (HostCosts::stagedPeerBandwidthFraction).
  double switchPortBytesPerSecond = 0;
  double boardPeerBytesPerSecond = 0;
  double hostPeerBytesPerSecond = 0;

  /// One host<->device copy (`toDevice`: host to device), device copy or memset of `bytes` alone on
  /// the system, as the system model times it with nothing else on its link: copy-engine setup plus
  /// the bytes at the pinned or pageable rate. For APIs that time each command by itself (OpenCL's
  /// profiling events).
  double hostCopySeconds(uint64_t bytes, bool toDevice, bool pinnedHost) const;
  double deviceCopySeconds(uint64_t bytes, bool memset) const;

  /// Throws std::invalid_argument when the target has no board in the database (no clocks, no link).
  static SystemConfig forTarget(const arch::ArchTarget &target, const SystemOptions &options = {});
};

} // namespace ptxray::system
