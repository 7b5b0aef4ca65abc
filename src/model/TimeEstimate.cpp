#include "model/TimeEstimate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ptxray::model {

std::string_view boundName(Bound b) {
  switch (b) {
  case Bound::Compute: return "compute";
  case Bound::MemoryBandwidth: return "memory bandwidth";
  case Bound::Latency: return "latency";
  case Bound::LaunchOverhead: return "launch overhead";
  }
  return "";
}

TimeEstimate estimateTime(const arch::ArchTarget &target, const TimeInputs &in) {
  const arch::ComputeCapability &cc = *target.computeCapability;
  TimeEstimate t;
  const arch::Gpu *gpu = target.board();
  if (!gpu) {
    t.explanation = "no board of this compute capability in the database: no clocks or bandwidth to estimate with";
    return t;
  }
  t.gpu = gpu->name;
  t.smCount = gpu->smCount;
  t.clockHz = (in.smClockMHz > 0 ? in.smClockMHz : gpu->defaultClockMHz()) * 1e6;
  t.bandwidthBytesPerSecond = gpu->theoreticalBandwidthBytesPerSecond();

  // Compute: each SM issues its share of the CTAs' instructions at the per-class rates. CTAs are
  // spread evenly; the busiest SM runs ceil(ctas / SMs) of them.
  const double ctasPerBusiestSm = std::ceil(static_cast<double>(in.ctas) / std::max(t.smCount, 1));
  double cyclesPerCta = 0;
  for (int c = 0; c < kInstructionClasses; ++c) {
    double rate = warpInstructionsPerClock(cc, static_cast<InstructionClass>(c), gpu->fp64ResultsPerClock());
    if (in.warpInstructionsByClass[c] && rate > 0)
      cyclesPerCta += static_cast<double>(in.warpInstructionsByClass[c]) / std::max<uint64_t>(in.ctas, 1) / rate;
  }
  const double memoryPipeRate = warpInstructionsPerClock(cc, InstructionClass::LoadStore);
  const double replayCyclesPerCta =
      memoryPipeRate > 0 ? static_cast<double>(in.replays) / std::max<uint64_t>(in.ctas, 1) / memoryPipeRate : 0;
  cyclesPerCta += replayCyclesPerCta;
  t.computeSeconds = cyclesPerCta * ctasPerBusiestSm / t.clockHz;

  // Memory: what the kernel reads crosses DRAM once when its footprint fits in L2, else with every
  // transaction; what it writes stays in the write-back L2 while it fits (measured: validation/model,
  // dram__bytes_write of the store kernels), and is written back when it does not.
  const uint64_t l2 = static_cast<uint64_t>(gpu->l2CacheBytes);
  const bool fits = in.readFootprintBytes + in.writeFootprintBytes <= l2;
  t.dramBytes = fits ? in.readFootprintBytes : std::max(in.readFootprintBytes + in.writeFootprintBytes, in.bytesMoved);
  t.memorySeconds = t.bandwidthBytesPerSecond > 0 ? static_cast<double>(t.dramBytes) / t.bandwidthBytesPerSecond : 0;

  // Latency: each SM's requests wait the memory latency, overlapped across its resident warps.
  const double latency = (cc.latency.globalMemoryMinCycles + cc.latency.globalMemoryMaxCycles) / 2.0;
  const double residentWarps = std::max(1, in.occupancy.activeWarpsPerSm);
  const double requestsPerSm =
      static_cast<double>(in.memoryRequests) / std::max<double>(1, std::min<double>(t.smCount, in.ctas));
  t.latencySeconds = requestsPerSm * latency / residentWarps / t.clockHz;

  t.launchOverheadSeconds = cc.launchOverheadNanoseconds * 1e-9;
  double kernel = std::max({t.computeSeconds, t.memorySeconds, t.latencySeconds});
  t.dominant = kernel == 0                  ? Bound::LaunchOverhead
               : kernel == t.computeSeconds ? Bound::Compute
               : kernel == t.memorySeconds  ? Bound::MemoryBandwidth
                                            : Bound::Latency;
  if (t.launchOverheadSeconds > kernel)
    t.dominant = Bound::LaunchOverhead;
  t.seconds = kernel + t.launchOverheadSeconds;
  t.effectiveBandwidthGBps = t.seconds > 0 ? static_cast<double>(in.bytesRequested) / 1e9 / t.seconds : 0;
  t.explanation = fmt::format(
      "{} at {:.0f} MHz, {} SMs, {:.1f} GB/s: compute {:.2f} us ({:.0f} issue cycles per CTA, {:.0f} of them "
      "bank-conflict and constant replays, x {:.0f} CTAs on the busiest SM); memory {:.2f} us ({} DRAM bytes: {}); "
      "latency {:.2f} us ({:.0f} requests per SM x {:.0f} cycles / "
      "{:.0f} resident warps); launch {:.2f} us",
      t.gpu, t.clockHz / 1e6, t.smCount, t.bandwidthBytesPerSecond / 1e9, t.computeSeconds * 1e6, cyclesPerCta,
      replayCyclesPerCta, ctasPerBusiestSm, t.memorySeconds * 1e6, t.dramBytes,
      fits ? "what is read, once: the footprint fits in L2, writes stay there"
           : "the footprint exceeds L2: every transaction, reads and writes",
      t.latencySeconds * 1e6, requestsPerSm, latency, residentWarps, t.launchOverheadSeconds * 1e6);
  return t;
}

} // namespace ptxray::model
