// The host side of a modeled system: the PCIe link between host and GPU, the cost of staging pageable
// memory, and the fixed costs of the runtime's API calls and copies. The GPU's side (copy engines,
// concurrent kernels, hardware work queues) is in the GPU and compute-capability tables; the system
// model (src/system) puts the two together.
#pragma once

#include "arch/GpuDatabase.h"

#include <optional>

namespace ptxray::arch {

/// One direction of a PCIe link. PCIe is full duplex: each direction has this bandwidth.
struct PcieLink {
  int generation = 0; ///< 1 to 5
  int lanes = 0;      ///< 1 to 16
  /// Raw signalling rate after line encoding, bytes per second (no protocol overhead).
  double rawBytesPerSecond() const;
  /// What a pinned copy of a large buffer reaches: the raw rate less packet (TLP) overhead.
  double pinnedBytesPerSecond() const;
};

/// The fixed costs of the host and its runtime, and the host's memory copy rate that pageable
/// transfers are staged at. Each value's source is in HostSystem.cpp.
struct HostCosts {
  double copyIssueSeconds = 0;       ///< host time of one cudaMemcpyAsync call
  double launchIssueSeconds = 0;     ///< host time of one cudaLaunchKernel call
  double copyEngineSetupSeconds = 0; ///< copy-engine time per copy besides the bytes
  double syncSeconds = 0;            ///< host time from the GPU finishing to a synchronize returning
  /// CUDA's lazy loading (CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2): the first launch of
  /// a kernel of a module loads the module, and the first launch of each kernel its function, inside
  /// the launch call.
  double lazyModuleLoadSeconds = 0;
  double lazyFunctionLoadSeconds = 0;
  /// Pageable copies go through a pinned staging buffer, the host copying at these rates in series
  /// with the DMA: 1 / rate = 1 / pinned + 1 / staging.
  double pageableStagingH2DBytesPerSecond = 0;
  double pageableStagingD2HBytesPerSecond = 0;
  /// A pageable copy's fixed cost besides the bytes: the driver's staging (pinning its buffer,
  /// splitting and synchronizing the chunks).
  double pageableCopySeconds = 0;
  /// cudaMemcpy device to device and cudaMemset, as a fraction of the theoretical DRAM bandwidth
  /// (a device-to-device copy moves each byte twice: read and write).
  double deviceCopyBandwidthFraction = 0;
  /// Connections (hardware work queues) the driver opens per device unless CUDA_DEVICE_MAX_CONNECTIONS
  /// says otherwise.
  int defaultConnections = 0;
  /// 2D copies of host rows shorter than `gappedHostRowFullSpeedBytes` that lie far apart: from a host
  /// pitch of `gappedHostRowOnsetRatio` x the width they slow down, and from a pitch of
  /// `gappedHostRowFullPitchBytes` on they move at `gappedHostRowBandwidthFraction` of the link's
  /// rate plus `gappedHostRowSeconds` a row ([KTG] §1.4.4.5 names large host pitches; the
  /// measurement pins it on the host side). gappedHostRowPenalty() gives the share in between.
  double gappedHostRowBandwidthFraction = 0;
  double gappedHostRowSeconds = 0;
  uint64_t gappedHostRowFullSpeedBytes = 0;
  double gappedHostRowOnsetRatio = 0;
  uint64_t gappedHostRowFullPitchBytes = 0;
  double gappedHostRowPenaltyExponent = 0;
  /// Both directions of one PCIe link busy at once: each direction's share of its one-way rate.
  double duplexBandwidthFraction = 0;
  /// A peer copy between GPUs of different boards (no direct path between them): the fraction of the
  /// host link's pinned rate it reaches, staged through host memory by the driver.
  double stagedPeerBandwidthFraction = 0;
  /// All the host's PCIe copies together, both directions, every board: what the host's memory and
  /// root complex move at most.
  double hostPcieBytesPerSecond = 0;

  /// How much of the full gapped-row cost a 2D copy of `rowBytes`-byte host rows `hostPitch` apart
  /// pays: 0 (full speed) to 1.
  double gappedHostRowPenalty(uint64_t rowBytes, uint64_t hostPitch) const;
};

const HostCosts &hostCosts();

/// The link a GPU gets in a host of PCIe generation `hostGeneration` with `lanes` lanes (nullopt:
/// as good as the GPU): the lower of the two generations, x16 unless given. nullopt for a GPU with
/// no PCIe link (an integrated GPU such as GK20A shares the host's memory).
std::optional<PcieLink> pcieLinkFor(const Gpu &gpu, std::optional<int> hostGeneration, std::optional<int> lanes);

} // namespace ptxray::arch
