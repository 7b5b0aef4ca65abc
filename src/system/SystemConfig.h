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
};

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

  /// Throws std::invalid_argument when the target has no board in the database (no clocks, no link).
  static SystemConfig forTarget(const arch::ArchTarget &target, const SystemOptions &options = {});
};

} // namespace ptxray::system
