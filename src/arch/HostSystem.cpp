#include "arch/HostSystem.h"

#include <algorithm>
#include <cmath>

namespace ptxray::arch {

namespace {

struct PcieGeneration {
  double gigatransfersPerSecond; ///< per lane
  double encodingEfficiency;     ///< 8b/10b up to 2.0, 128b/130b from 3.0
  /// Measured or documented pinned bandwidth of a large copy over the raw rate.
  double pinnedFraction;
};

// PCI-SIG base specifications: 2.5, 5, 8, 16 and 32 GT/s per lane; 8b/10b encoding for 1.x and 2.x,
// 128b/130b from 3.0. So x16 Gen2 is 8 GB/s per direction, as [BPG] §3.1 says.
// Pinned fraction: [BPG] §3.1.1, "greater than 5 GBps" of Gen2 x16's 8 GB/s; 0.8 (6.4 GB/s) stands for
// Gen1 and Gen2. Gen3 and later share the 128b/130b encoding and packet format; measured on an H200
// at Gen5 x16: 55.46 GB/s for a 256 MiB pinned H2D copy of 63.0 GB/s raw (validation/system).
constexpr PcieGeneration kGenerations[] = {
    {2.5, 0.8, 0.8},
    {5.0, 0.8, 0.8},
    {8.0, 128.0 / 130.0, 0.88},
    {16.0, 128.0 / 130.0, 0.88},
    {32.0, 128.0 / 130.0, 0.88},
};

const PcieGeneration &generationData(int g) {
  return kGenerations[std::clamp(g, 1, 5) - 1];
}

// All measured on an H200 host (PCIe Gen5 x16, driver 580, CUDA 13.0) by validation/system
// (results/results-default.json); the guides give no figures.
constexpr HostCosts kHostCosts{
    // 1024 back-to-back 4 KiB pinned cudaMemcpyAsync calls: 2.59 us each, host-bound ("batching").
    .copyIssueSeconds = 2.5e-6,
    // 1000 back-to-back empty launches: 3.37 us per cudaLaunchKernel call ("launch").
    .launchIssueSeconds = 3.37e-6,
    // The same batch: the copies kept pace with the calls, so the engine spends at most 2.5 us per
    // copy besides the 4 KiB (0.07 us at 55 GB/s); an isolated 4-byte copy's events show 3.3-4.1 us,
    // event records included.
    .copyEngineSetupSeconds = 2.5e-6,
    // A 4-byte pinned copy takes 10.4 us from the call to cudaStreamSynchronize returning, 4.1 us of it
    // between its events: about 2.5 us issuing, 4 us on the GPU, the rest the synchronize.
    .syncSeconds = 3.8e-6,
    // validation/programs (timing-gpu.txt, tests/programs/src/timing.cu on an H200, driver 580): the
    // event-timed first launch of a program's first kernel took 0.28-0.29 ms where later launches of
    // it take 0.01 ms, and the first launch of a second kernel of the same module 0.056-0.064 ms
    // where later ones take 0.005 ms: about 0.215 ms to load a module, 0.055 ms a function.
    .lazyModuleLoadSeconds = 215e-6,
    .lazyFunctionLoadSeconds = 55e-6,
    // Pageable 256 MiB copies: H2D 6.99 GB/s, D2H 11.21 GB/s, against pinned 55.46 and 55.30 GB/s:
    // 1/6.99 - 1/55.46 gives 8.0 GB/s of host staging, 1/11.21 - 1/55.30 gives 14.1 GB/s.
    .pageableStagingH2DBytesPerSecond = 8.0e9,
    .pageableStagingD2HBytesPerSecond = 14.1e9,
    // validation/programs (results/timing-h200.txt): event-timed 64 KB pageable copies took 0.031-0.050 ms
    // H2D and 0.024-0.044 ms D2H where pinned ones took 0.006-0.011 ms and the rates above give 0.009 and
    // 0.005 ms more: about 12 us of staging per copy besides the bytes.
    .pageableCopySeconds = 12e-6,
    // cudaMemcpy D2D of 256 MiB: 2025 GB/s copied, 4050 GB/s of DRAM traffic, of the H200's 4.8 TB/s.
    .deviceCopyBandwidthFraction = 0.84,
    // [KTG] §1.4.2.2: "The default is 8".
    .defaultConnections = 8,
    // cudaMemcpy2DAsync, 16 MiB as rows of 256 B to 64 KiB, host pitch 64-256 KiB (results/pitch2d.json):
    // rows of 256 B, 1 KiB and 4 KiB ran at 18, 27 and 33.6 GB/s whatever the device pitch, fitted by
    // 7.4 ns per row plus 35.5 GB/s (0.64 of the 55.5 GB/s contiguous rate); rows of 64 KiB at full
    // speed. A contiguous host side with a 128 KiB device pitch stayed within 2% of a 1D copy.
    .gappedHostRowBandwidthFraction = 0.64,
    .gappedHostRowSeconds = 7.4e-9,
    .gappedHostRowFullSpeedBytes = 64 << 10,
    // Where the slowdown starts and where it is complete (results/pitch2d-near.json, two H200s):
    // rows of 256 B to 4 KiB run at the contiguous rate up to a host pitch of 8 x the width (any
    // 256 B-aligned gap), are 4-11% slower at 10 x, and pay the whole cost above from a 64 KiB
    // pitch on. In between, the extra time per row grows as the 1.5th power of the pitch's place
    // between the two on a log scale: 256 B rows 1 ns at 16 x (model 0.8), 4 ns at 65 x (4.2);
    // 1 KiB rows 2 ns at 12 x (1.6), 4 ns at 16 x (3.5); 4 KiB rows 27 ns at 14 x (34).
    .gappedHostRowOnsetRatio = 8,
    .gappedHostRowFullPitchBytes = 64 << 10,
    .gappedHostRowPenaltyExponent = 1.5,
    // One H200 copying 256 MiB each way at once: 101.1 GB/s together against 55.2 GB/s one way
    // (results/multigpu.json), 0.916 of each direction.
    .duplexBandwidthFraction = 0.916,
    // Two H200s on their own Gen5 x16 links, cudaMemcpyPeerAsync of 256 MiB with peer access off:
    // 38.4 GB/s either way, 0.69 of the 55.46 GB/s pinned rate (results/multigpu.json). (With peer
    // access on, that pair's NVLink ran at 388 GB/s: a path the model has no entry for.)
    .stagedPeerBandwidthFraction = 0.69,
    // Two H200s, each copying 256 MiB both ways at once (four copies): 152.5-152.9 GB/s in all
    // (results/multigpu.json), short of the 4 x 50.8 GB/s four link directions would move.
    .hostPcieBytesPerSecond = 152.7e9,
};

} // namespace

double HostCosts::gappedHostRowPenalty(uint64_t rowBytes, uint64_t hostPitch) const {
  if (rowBytes == 0 || rowBytes >= gappedHostRowFullSpeedBytes)
    return 0;
  const double onset = gappedHostRowOnsetRatio * static_cast<double>(rowBytes);
  // Rows of 8 KiB and more (not measured) start at 64 KiB or beyond: they ramp over one doubling, as
  // 4 KiB rows do from 32 to 64 KiB.
  const double full = std::max(static_cast<double>(gappedHostRowFullPitchBytes), 2 * onset);
  const double pitch = static_cast<double>(hostPitch);
  if (pitch <= onset)
    return 0;
  if (pitch >= full)
    return 1;
  return std::pow(std::log(pitch / onset) / std::log(full / onset), gappedHostRowPenaltyExponent);
}

double PcieLink::rawBytesPerSecond() const {
  const PcieGeneration &g = generationData(generation);
  return g.gigatransfersPerSecond * 1e9 * g.encodingEfficiency / 8.0 * lanes;
}

double PcieLink::pinnedBytesPerSecond() const {
  return rawBytesPerSecond() * generationData(generation).pinnedFraction;
}

const HostCosts &hostCosts() {
  return kHostCosts;
}

std::optional<PcieLink> pcieLinkFor(const Gpu &gpu, std::optional<int> hostGeneration, std::optional<int> lanes) {
  if (!gpu.pcieGeneration)
    return std::nullopt;
  PcieLink link;
  link.generation = hostGeneration ? std::min(*hostGeneration, *gpu.pcieGeneration) : *gpu.pcieGeneration;
  link.lanes = lanes.value_or(16);
  return link;
}

} // namespace ptxray::arch
