#include "advisor/LaunchConfiguration.h"

#include "advisor/RuleContext.h"

#include <fmt/format.h>

#include <algorithm>

namespace ptxray::advisor {
namespace {

double d(uint64_t v) {
  return static_cast<double>(v);
}

std::optional<OccupancyLift> liftFor(const ConfigurationView &c, arch::OccupancyResource limiter) {
  const arch::ComputeCapability &cc = *c.cc;
  const arch::OccupancyInput &base = c.input;
  const int current = c.result.activeBlocksPerSm;
  switch (limiter) {
  case arch::OccupancyResource::Registers: {
    // The most registers per thread that still fits one block more.
    for (int regs = base.registersPerThread - 1; regs >= 1; --regs) {
      arch::OccupancyInput in = base;
      in.registersPerThread = regs;
      arch::OccupancyResult r = arch::computeOccupancy(cc, in);
      if (r.activeBlocksPerSm > current)
        return OccupancyLift{
            fmt::format("at most {} registers per thread (now {}): {}", regs, base.registersPerThread,
                        vocabularyFor(c.language).registerLimit(regs, base.threadsPerBlock, r.activeBlocksPerSm)),
            r};
    }
    return std::nullopt;
  }
  case arch::OccupancyResource::SharedMemory: {
    arch::OccupancyInput in = base;
    in.dynamicSharedBytes = 0;
    in.staticSharedBytes = 0;
    std::optional<size_t> fits = arch::availableDynamicSharedBytes(cc, in, current + 1);
    if (!fits)
      return std::nullopt;
    in.dynamicSharedBytes = *fits;
    return OccupancyLift{fmt::format("at most {} of shared memory per block (now {}): smaller tiles, or fewer bytes "
                                     "per element",
                                     bytes(static_cast<double>(*fits)),
                                     bytes(d(base.staticSharedBytes + base.dynamicSharedBytes))),
                         arch::computeOccupancy(cc, in)};
  }
  case arch::OccupancyResource::Blocks:
  case arch::OccupancyResource::Warps: {
    // Larger or differently sized blocks: the calculator's best block size for this kernel.
    arch::LaunchConfiguration best = arch::suggestLaunchConfiguration(cc, base, 1);
    if (!best.blockSize || best.occupancy <= c.result.occupancy)
      return std::nullopt;
    arch::OccupancyInput in = base;
    in.threadsPerBlock = best.blockSize;
    return OccupancyLift{fmt::format("{} threads per block (now {}), with the work per block scaled to match",
                                     best.blockSize, base.threadsPerBlock),
                         arch::computeOccupancy(cc, in)};
  }
  case arch::OccupancyResource::Barriers: return std::nullopt;
  }
  return std::nullopt;
}

std::string limiterNames(const arch::OccupancyResult &r) {
  std::string out;
  for (arch::OccupancyResource res : r.limiters) {
    if (!out.empty())
      out += ", ";
    std::string name(arch::resourceName(res));
    std::replace(name.begin(), name.end(), '_', ' ');
    out += name;
  }
  return out.empty() ? "nothing" : out;
}

/// Whether the launch can start at all, and what it must ask for first.
void launchability(const ConfigurationView &c, std::vector<Finding> &out) {
  const arch::ComputeCapability &cc = *c.cc;
  if (!c.result.launches()) {
    Finding f = findingOf("launch-fails");
    f.title = "The launch fails: " + c.result.launchError;
    f.evidence = fmt::format("{} threads per block, {} registers per thread, {} of shared memory per block on {}.",
                             c.input.threadsPerBlock, c.input.registersPerThread,
                             bytes(d(c.input.staticSharedBytes) + d(c.input.dynamicSharedBytes)), cc.smName());
    f.fix = "Use fewer threads, registers or shared memory per block (the limits are the GPU's, [BPG] 4.4).";
    out.push_back(std::move(f));
  }
  if (c.input.staticSharedBytes > static_cast<size_t>(cc.maxStaticSharedPerBlock)) {
    Finding f = findingOf("static-shared-too-large");
    f.title = fmt::format("{} of statically declared shared memory: at most {} per block on {}",
                          bytes(d(c.input.staticSharedBytes)), bytes(d(cc.maxStaticSharedPerBlock)), cc.smName());
    if (c.language == SourceLanguage::OpenCL) {
      f.evidence = "__local arrays declared in a kernel are limited to 48 KB per work-group.";
      f.fix = "Pass the rest as a __local pointer argument (clSetKernelArg with a size and no value).";
    } else {
      f.evidence = "Static __shared__ arrays are limited to 48 KB per block; more must be allocated dynamically.";
      f.fix = "Declare the array extern __shared__ and pass its size as the launch's dynamic shared memory.";
    }
    out.push_back(std::move(f));
  }
  if (c.result.sharedMemoryOptInRequired) {
    Finding f = findingOf("shared-opt-in");
    f.title = fmt::format("{} of shared memory per block needs the kernel's opt-in",
                          bytes(d(c.input.staticSharedBytes) + d(c.input.dynamicSharedBytes)));
    f.evidence = fmt::format("Blocks get {} of shared memory by default on {}; more needs an attribute set before "
                             "the launch.",
                             bytes(d(cc.sharedPerBlock)), cc.smName());
    f.fix = c.language == SourceLanguage::OpenCL
                ? "OpenCL has no opt-in: NVIDIA's OpenCL gives a work-group the default at most "
                  "(CL_DEVICE_LOCAL_MEM_SIZE); use smaller tiles."
                : "Call cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) before "
                  "launching.";
    out.push_back(std::move(f));
  }
  if (c.input.carveoutPercent && cc.sharedCarveoutsBytes.empty()) {
    Finding f = findingOf("carveout-ignored");
    f.title = fmt::format("A shared-memory carveout has no effect on {}", cc.smName());
    f.evidence = "Carveouts (cudaFuncAttributePreferredSharedMemoryCarveout) exist from compute capability 7.0; "
                 "older GPUs split L1 and shared memory by the cache configuration ([BPG] 4.5).";
    f.fix = c.language == SourceLanguage::OpenCL
                ? "OpenCL has no call for it: NVIDIA's OpenCL driver chooses the split."
                : "Use cudaFuncSetCacheConfig (prefer-shared, prefer-L1, prefer-equal) instead.";
    out.push_back(std::move(f));
  }
}

void occupancy(const ConfigurationView &c, const Thresholds &t, ConfigurationScope scope, std::vector<Finding> &out) {
  const arch::ComputeCapability &cc = *c.cc;
  const arch::OccupancyResult &o = c.result;
  if (!o.launches() || o.maxWarpsPerSm == 0)
    return;
  if (o.occupancy >= t.occupancyPlateau) {
    if (scope == ConfigurationScope::Calculator && o.occupancy > t.occupancyPlateau) {
      Finding f = findingOf("occupancy-past-plateau");
      f.title = fmt::format("Occupancy {} is past {}, beyond which more occupancy rarely helps", percent(o.occupancy),
                            percent(t.occupancyPlateau));
      f.evidence = "Past the plateau, more resident warps hide no more latency ([BPG] 4.4, 4.5).";
      f.fix = "Registers or shared memory can be spent on more work per thread instead (instruction-level "
              "parallelism, larger tiles).";
      out.push_back(std::move(f));
    }
    return;
  }
  const std::optional<OccupancyLift> best = bestOccupancyLift(c);
  std::string fix;
  if (best)
    fix = fmt::format("Use {}: occupancy becomes {} ({} warps per SM).", best->change, percent(best->result.occupancy),
                      best->result.activeWarpsPerSm);
  else
    fix = "No single resource change raises it: restructure the kernel (fewer live values, smaller shared tiles) "
          "or rely on instruction-level parallelism ([Kepler] 1.4.1).";
  if (cc.major == 3 &&
      std::find(o.limiters.begin(), o.limiters.end(), arch::OccupancyResource::Registers) != o.limiters.end())
    fix += " Kepler's register file is twice Fermi's (GK210: four times), so register-limited Fermi kernels "
           "already fit more blocks here ([Kepler] 1.4.1).";
  const std::string perBlock =
      fmt::format(" Per block: {} threads, {} registers per thread, {} of shared memory.", c.input.threadsPerBlock,
                  c.input.registersPerThread, bytes(d(c.input.staticSharedBytes) + d(c.input.dynamicSharedBytes)));

  Finding f = findingOf("occupancy-limited");
  f.title = fmt::format("Occupancy {} ({} of {} warps per SM), limited by {}", percent(o.occupancy), o.activeWarpsPerSm,
                        o.maxWarpsPerSm, limiterNames(o));
  f.evidence = fmt::format("{} blocks fit an SM; below {} occupancy too few warps are resident to hide memory "
                           "latency ([BPG] 4.1, 4.4).",
                           o.activeBlocksPerSm, percent(t.occupancyPlateau)) +
               perBlock;
  f.fix = fix;
  out.push_back(std::move(f));

  if (o.occupancy < cc.minOccupancyToHideRegisterLatency) {
    Finding h = findingOf("occupancy-latency-hiding");
    h.title =
        fmt::format("{} resident threads per SM cannot hide register dependencies", o.activeWarpsPerSm * cc.warpSize);
    h.evidence = fmt::format("An arithmetic result is ready about {} cycles after it issues; hiding that takes at "
                             "least {} resident threads ({} occupancy) on this GPU, and the launch has {} ({}) "
                             "([BPG] 4.3).",
                             cc.latency.registerReadAfterWriteCycles, cc.registerLatencyHidingThreads,
                             percent(cc.minOccupancyToHideRegisterLatency), o.activeWarpsPerSm * cc.warpSize,
                             percent(o.occupancy));
    h.fix = fix;
    out.push_back(std::move(h));
  }
}

void blockShape(const ConfigurationView &c, const Thresholds &t, ConfigurationScope scope, std::vector<Finding> &out) {
  const arch::ComputeCapability &cc = *c.cc;
  const uint64_t threads = static_cast<uint64_t>(std::max(c.input.threadsPerBlock, 0));
  const uint64_t warpSize = static_cast<uint64_t>(cc.warpSize);
  if (threads == 0)
    return;
  if (threads % warpSize) {
    Finding f = findingOf("block-not-warp-multiple");
    const uint64_t warps = (threads + warpSize - 1) / warpSize;
    const double used = d(threads) / d(warps * warpSize);
    f.title = fmt::format("{} threads per block is not a multiple of {}: {} of the last warp's lanes idle", threads,
                          warpSize, warps * warpSize - threads);
    f.evidence = fmt::format("Each block runs {} warps for {} threads: {} of the lanes do work, and the partial "
                             "warp also breaks the alignment coalescing relies on ([BPG] 4.4).",
                             warps, threads, percent(used));
    const uint64_t up = warps * warpSize, down = (threads / warpSize) * warpSize;
    f.fix = fmt::format("Use a multiple of {} threads ({} or {}; the guide suggests 128-256) and guard the "
                        "surplus threads with a bounds check.",
                        warpSize, down ? down : up, up);
    out.push_back(std::move(f));
  }
  if (cc.registerBankBlockMultiple && threads % static_cast<uint64_t>(*cc.registerBankBlockMultiple) != 0) {
    Finding f = findingOf("block-register-banks");
    f.title = fmt::format("{} threads per block is not a multiple of {}", threads, *cc.registerBankBlockMultiple);
    f.evidence = fmt::format("On {} the compiler avoids register bank conflicts best with blocks of a multiple of "
                             "{} threads ([BPG] 3.2.6).",
                             cc.smName(), *cc.registerBankBlockMultiple);
    f.fix = fmt::format("Use a multiple of {} threads per block.", *cc.registerBankBlockMultiple);
    out.push_back(std::move(f));
  }
  if (d(threads) < t.minBlockThreads) {
    Finding f = findingOf("block-too-small");
    f.title = fmt::format("{} threads per block: below the guides' minimum of {}", threads, t.minBlockThreads);
    f.evidence =
        fmt::format("An SM holds at most {} blocks, so {}-thread blocks fill at most {} of its {} warps "
                    "(occupancy {} here), and blocks waiting at a barrier leave little else to run "
                    "([BPG] 4.4).",
                    cc.maxBlocksPerSm, threads,
                    std::min<uint64_t>(static_cast<uint64_t>(cc.maxBlocksPerSm) * ((threads + warpSize - 1) / warpSize),
                                       static_cast<uint64_t>(cc.maxWarpsPerSm)),
                    cc.maxWarpsPerSm, percent(c.result.occupancy));
    f.fix = fmt::format(
        "Use {} to {} threads per block (several blocks per SM still fit), letting each block do the work of "
        "several small ones.",
        t.recommendedBlockMin, t.recommendedBlockMax);
    out.push_back(std::move(f));
  } else if (scope == ConfigurationScope::Calculator &&
             (d(threads) < t.recommendedBlockMin || d(threads) > t.recommendedBlockMax)) {
    Finding f = findingOf("block-size-range");
    f.title = fmt::format("{} threads per block: outside the recommended starting range of {} to {}", threads,
                          t.recommendedBlockMin, t.recommendedBlockMax);
    f.evidence = "The guide's starting point for experiments; the best size depends on the kernel ([BPG] 4.4).";
    f.fix = fmt::format("Try {} to {} threads per block and measure.", t.recommendedBlockMin, t.recommendedBlockMax);
    out.push_back(std::move(f));
  }
  if (c.result.launches() && c.result.activeBlocksPerSm == 1) {
    Finding f = findingOf("single-block-per-sm");
    f.title = "One block fits an SM: while it waits at a barrier the SM has nothing else to run";
    f.evidence = fmt::format("Limited by {}; with two or more resident blocks, one runs while another waits "
                             "([BPG] 4.4).",
                             limiterNames(c.result));
    f.fix = "Use smaller blocks or fewer resources per block, so that at least two blocks fit an SM.";
    out.push_back(std::move(f));
  }
}

void gridSize(const ConfigurationView &c, const Thresholds &t, ConfigurationScope scope, std::vector<Finding> &out) {
  const int sms = c.smCount;
  if (sms <= 0 || !c.gridBlocks || !c.result.launches())
    return;
  const uint64_t ctas = *c.gridBlocks;
  const uint64_t perWave = static_cast<uint64_t>(sms) * static_cast<uint64_t>(std::max(1, c.result.activeBlocksPerSm));
  if (ctas < static_cast<uint64_t>(sms)) {
    Finding f = findingOf("grid-below-sm-count");
    f.title = fmt::format("{} blocks for {} SMs: {} SMs idle", ctas, sms, sms - static_cast<int>(ctas));
    f.evidence = fmt::format("{} has {} multiprocessors; a grid needs at least that many blocks to give each one "
                             "work, and several per SM to hide latency ([BPG] 4.4).",
                             c.gpu.empty() ? std::string("The GPU") : c.gpu, sms);
    f.fix = fmt::format("Split the work into at least {} blocks (smaller blocks, or more work items per launch); "
                        "with {} blocks per SM resident, {} blocks fill the GPU.",
                        sms, c.result.activeBlocksPerSm, perWave);
    out.push_back(std::move(f));
    if (scope == ConfigurationScope::Launch)
      return; // the fix is the same: more blocks (the calculator lists every rule that applies)
  } else {
    const uint64_t fullWaves = ctas / perWave, tail = ctas % perWave;
    if (fullWaves == 0) {
      Finding f = findingOf("grid-does-not-fill-gpu");
      f.title = fmt::format("{} blocks do not reach the computed occupancy: {} are needed", ctas, perWave);
      f.evidence = fmt::format("{} SMs x {} resident blocks = {} blocks to fill every SM once ([BPG] 4.4).", sms,
                               c.result.activeBlocksPerSm, perWave);
      f.fix = fmt::format("Launch at least {} blocks (or as many as the work allows).", perWave);
      out.push_back(std::move(f));
    } else if (tail > 0) {
      const double tailShare = d(tail) / d(perWave);
      const double lost = (1 - tailShare) / d(fullWaves + 1);
      if (tailShare < t.tailWaveShare && lost >= t.tailWaveIdle) {
        Finding f = findingOf("tail-wave");
        f.title = fmt::format("A tail wave of {} blocks: {} full waves of {} blocks, then {} of the GPU busy", tail,
                              fullWaves, perWave, percent(tailShare));
        f.evidence = fmt::format("{} SMs x {} resident blocks = {} blocks per wave; {} blocks leave the last wave "
                                 "{} full, about {} of the launch's SM time idle.",
                                 sms, c.result.activeBlocksPerSm, perWave, ctas, percent(tailShare), percent(lost));
        f.fix = fmt::format("Size the grid to a multiple of {} blocks (or many more waves, so the tail matters "
                            "less), or give each block a grid-stride loop over the work.",
                            perWave);
        out.push_back(std::move(f));
      }
    }
  }
  if (d(ctas) < t.gridBlocksToScale) {
    Finding f = findingOf("grid-too-small-to-scale");
    f.title = fmt::format("{} blocks will not fill larger GPUs", ctas);
    f.evidence = "To scale to future devices the number of blocks per launch should be in the hundreds; "
                 "thousands of blocks scale across generations ([BPG] 4.4, [Kepler] 1.4.1).";
    f.fix = "Launch more, smaller blocks (or more work per launch), keeping each block's work independent.";
    out.push_back(std::move(f));
  }
}

} // namespace

std::optional<OccupancyLift> bestOccupancyLift(const ConfigurationView &c) {
  std::optional<OccupancyLift> best;
  for (arch::OccupancyResource res : c.result.limiters)
    if (std::optional<OccupancyLift> lift = liftFor(c, res);
        lift && (!best || lift->result.occupancy > best->result.occupancy))
      best = std::move(lift);
  return best;
}

std::vector<Finding> adviseConfiguration(const ConfigurationView &c, const Thresholds &t, ConfigurationScope scope) {
  std::vector<Finding> out;
  launchability(c, out);
  occupancy(c, t, scope, out);
  blockShape(c, t, scope, out);
  gridSize(c, t, scope, out);
  return out;
}

} // namespace ptxray::advisor
