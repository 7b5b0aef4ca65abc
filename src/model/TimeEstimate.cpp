#include "model/TimeEstimate.h"

#include "model/WarpTiming.h"

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
  case Bound::Serialization: return "serialization";
  }
  return "";
}

double pathBasisOf(const arch::ComputeCapability &cc, const TimeInputs &in) {
  double basis = 0;
  for (int c = 0; c < kInstructionClasses; ++c)
    basis +=
        static_cast<double>(in.warpInstructionsByClass[c]) * resultLatencyCycles(cc, static_cast<InstructionClass>(c));
  const arch::Latencies &l = cc.latency;
  const double memory = l.l2HitCycles > 0  ? l.l2HitCycles
                        : l.dramCycles > 0 ? l.dramCycles
                                           : (l.globalMemoryMinCycles + l.globalMemoryMaxCycles) / 2.0;
  return basis + static_cast<double>(in.memoryRequests) * memory + static_cast<double>(in.replays) +
         static_cast<double>(in.constantReplays) * std::max(cc.memory.constantReplayCycles, 1.0) +
         static_cast<double>(in.sharedAtomicConflicts) * l.sharedAtomicConflictCycles;
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
  const double ctas = static_cast<double>(std::max<uint64_t>(in.ctas, 1));

  // Issue: each SM issues its CTAs' instructions at the per-class rates, bank-conflict replays and
  // divergent constant reads taking memory-pipe slots.
  // With independent pipes (Volta on) the busiest pipe or the issue slots bound it; before, the
  // classes share the cores and their cycles add up.
  const double memoryPipeRate = warpInstructionsPerClock(cc, InstructionClass::LoadStore);
  const double constantReplayCycles = cc.memory.constantReplayCycles > 0 ? cc.memory.constantReplayCycles
                                      : memoryPipeRate > 0               ? 1.0 / memoryPipeRate
                                                                         : 0.0;
  const double replayCyclesPerCta =
      (memoryPipeRate > 0 ? (static_cast<double>(in.replays) +
                             static_cast<double>(in.sharedAtomicConflicts) * cc.latency.sharedAtomicConflictCycles) /
                                ctas / memoryPipeRate
                          : 0) +
      static_cast<double>(in.constantReplays) / ctas * constantReplayCycles +
      (cc.memory.l1LinesPerClock > 0 ? static_cast<double>(in.l1LineReplays) / ctas / cc.memory.l1LinesPerClock : 0);
  double classCycles = 0, busiestPipe = replayCyclesPerCta, instructions = 0;
  for (int c = 0; c < kInstructionClasses; ++c) {
    const auto cls = static_cast<InstructionClass>(c);
    double rate = warpInstructionsPerClock(cc, cls, gpu->fp64ResultsPerClock());
    if (!in.warpInstructionsByClass[c] || rate <= 0)
      continue;
    const double n = static_cast<double>(in.warpInstructionsByClass[c]) / ctas;
    const double cycles = n / rate + (cls == InstructionClass::LoadStore ? replayCyclesPerCta : 0);
    classCycles += n / rate;
    busiestPipe = std::max(busiestPipe, cycles);
    // An emulated instruction (division, remainder) issues its whole sequence.
    instructions += n * (cls == InstructionClass::Emulated ? std::max(cc.throughput.emulatedSequenceLength, 1) : 1);
  }
  const double cyclesPerCta = cc.independentPipes
                                  ? std::max(busiestPipe, instructions / std::max(cc.registerFilePartitions, 1))
                                  : classCycles + replayCyclesPerCta;

  // The SMs: CTAs go to them in waves of what is resident at once (the achieved occupancy: no more
  // than the SM is given). A wave lasts as long as its longest critical path or its instruction
  // issue, whichever is longer; the last wave waits for the slowest CTA.
  const double ctasOnBusiestSm = std::ceil(ctas / std::max(t.smCount, 1));
  const double resident = std::clamp<double>(in.occupancy.activeBlocksPerSm, 1.0, ctasOnBusiestSm);
  const double fullWaves = std::floor(ctasOnBusiestSm / resident);
  const double rest = ctasOnBusiestSm - fullWaves * resident;
  t.waves = fullWaves + (rest > 0 ? 1 : 0);
  // A what-if (the advisor's) changes the counts the path was measured with: the path follows.
  const double pathScale = in.pathBasis > 0 ? std::clamp(pathBasisOf(cc, in) / in.pathBasis, 0.0, 1e6) : 1.0;
  const double path = in.ctaPathCycles * pathScale;
  const double lastPath = std::max(in.ctaPathCycles, in.ctaPathCyclesMax) * pathScale;
  const double launchCycles = cc.memory.ctaLaunchCycles;
  auto wave = [&](double k, double p) { return std::max(p, k * cyclesPerCta) + launchCycles; };
  double smCycles = 0;
  if (rest > 0)
    smCycles = fullWaves * wave(resident, path) + wave(rest, lastPath);
  else
    smCycles = (fullWaves - 1) * wave(resident, path) + wave(resident, lastPath);
  t.computeSeconds = cyclesPerCta * ctasOnBusiestSm / t.clockHz;
  t.latencySeconds = smCycles / t.clockHz;

  // DRAM: what the kernel reads crosses DRAM once when its footprint fits in L2, else with every
  // transaction; what it writes stays in the write-back L2 while it fits (measured: validation/model,
  // dram__bytes_write of the store kernels), and is written back when it does not.
  const uint64_t l2 = static_cast<uint64_t>(gpu->l2CacheBytes);
  const bool fits = in.readFootprintBytes + in.writeFootprintBytes <= l2;
  t.dramBytes =
      fits ? in.readFootprintBytes + in.dramReadUnitExtraBytes
           : std::max(in.readFootprintBytes + in.dramReadUnitExtraBytes + in.writeFootprintBytes, in.bytesMoved) +
                 in.partialWriteFillBytes;
  const double efficiency = cc.memory.dramEfficiency > 0 ? cc.memory.dramEfficiency : 1.0;
  const double dramRate = t.bandwidthBytesPerSecond * efficiency;
  // Requests split into a transaction per thread (CC 1.0/1.1) move their bytes less efficiently; a
  // what-if that removes bytes removes split ones first (coalescing is what removes them).
  const double split =
      cc.memory.splitDramEfficiency > 0 && t.dramBytes > 0
          ? std::min(static_cast<double>(in.splitBytesMoved), static_cast<double>(t.dramBytes)) -
                static_cast<double>(in.l2BasisBytesMoved > in.bytesMoved ? in.l2BasisBytesMoved - in.bytesMoved : 0)
          : 0;
  const double splitBytes = std::max(split, 0.0);
  t.memorySeconds =
      dramRate > 0
          ? (static_cast<double>(t.dramBytes) - splitBytes) / dramRate +
                splitBytes / (t.bandwidthBytesPerSecond * (splitBytes > 0 ? cc.memory.splitDramEfficiency : 1.0))
          : 0;
  // L2: every sector it serves or takes, at its bandwidth.
  const double l2Scale =
      in.l2BasisBytesMoved > 0 ? static_cast<double>(in.bytesMoved) / static_cast<double>(in.l2BasisBytesMoved) : 1.0;
  t.l2Seconds = cc.memory.l2BytesPerClock > 0 ? static_cast<double>(in.l2Sectors * in.l2SectorBytes) * l2Scale /
                                                    (cc.memory.l2BytesPerClock * t.clockHz)
                                              : 0;

  // Serialization: atomics on one address one after another in L2, and printf's one FIFO.
  const double atomicSeconds = in.hottestAtomicRegionCycles / t.clockHz;
  const arch::Latencies &l = cc.latency;
  const double printfSeconds = in.printfCalls
                                   ? (l.printfLaunchCycles + static_cast<double>(in.printfCalls) * l.printfCallCycles +
                                      static_cast<double>(in.printfThreads) * l.printfThreadCycles) /
                                         t.clockHz
                                   : 0;
  const double heapSeconds =
      in.heapThreads ? (l.heapLaunchCycles + static_cast<double>(in.heapThreads) * l.heapThreadCycles) / t.clockHz : 0;
  t.serializationSeconds = std::max({atomicSeconds, printfSeconds, heapSeconds});

  t.launchOverheadSeconds = gpu->launchOverheadNanoseconds.value_or(cc.launchOverheadNanoseconds) * 1e-9;
  const double memory = std::max(t.memorySeconds, t.l2Seconds);
  // The SMs' schedule assumes unloaded memory latency; near the bandwidth limit requests queue, so
  // the two bounds do not overlap perfectly: a p-norm of them (p = MemoryThroughput::overlapExponent;
  // 0: the larger one).
  const double p = cc.memory.overlapExponent;
  const double sm = t.latencySeconds;
  const double overlapped =
      p > 0 && sm > 0 && memory > 0 ? std::pow(std::pow(sm, p) + std::pow(memory, p), 1.0 / p) : std::max(sm, memory);
  const double kernel = std::max(overlapped, t.serializationSeconds);
  t.dominant = kernel == 0                        ? Bound::LaunchOverhead
               : kernel == t.serializationSeconds ? Bound::Serialization
               : memory >= sm                     ? Bound::MemoryBandwidth
               : t.computeSeconds * 1.0001 >= t.latencySeconds - launchCycles * t.waves / t.clockHz ? Bound::Compute
                                                                                                    : Bound::Latency;
  if (t.launchOverheadSeconds > kernel)
    t.dominant = Bound::LaunchOverhead;
  t.seconds = kernel + t.launchOverheadSeconds;
  auto gbps = [&](uint64_t bytes) { return t.seconds > 0 ? static_cast<double>(bytes) / 1e9 / t.seconds : 0; };
  t.effectiveBandwidthGBps = gbps(in.uniqueBytes);
  t.requestedBandwidthGBps = gbps(in.bytesRequested);
  t.dramBandwidthGBps = gbps(t.dramBytes);
  t.explanation = fmt::format(
      "{} at {:.0f} MHz, {} SMs, {:.1f} GB/s: SMs {:.2f} us ({:.0f} wave(s) of {:.0f} resident CTA(s); critical path "
      "{:.0f} cycles per CTA, longest {:.0f}; issue {:.0f} cycles per CTA, {:.0f} of them bank-conflict and constant "
      "replays); DRAM {:.2f} us ({} bytes: {}); L2 {:.2f} us ({} sectors); serialization {:.2f} us "
      "({:.0f} cycles of atomics in the busiest L2 atomic unit, {} printf calls by {} threads, {} malloc/free calls); "
      "launch {:.2f} us",
      t.gpu, t.clockHz / 1e6, t.smCount, t.bandwidthBytesPerSecond / 1e9, t.latencySeconds * 1e6, t.waves, resident,
      path, lastPath, cyclesPerCta, replayCyclesPerCta, t.memorySeconds * 1e6, t.dramBytes,
      fits ? "what is read, once: the footprint fits in L2, writes stay there"
           : "the footprint exceeds L2: every transaction, reads and writes",
      t.l2Seconds * 1e6, in.l2Sectors, t.serializationSeconds * 1e6, in.hottestAtomicRegionCycles, in.printfCalls,
      in.printfThreads, in.heapThreads, t.launchOverheadSeconds * 1e6);
  return t;
}

} // namespace ptxray::model
