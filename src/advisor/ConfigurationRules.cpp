// Execution-configuration rules: occupancy and what limits it, block size, grid size and waves
// ([BPG] chapter 4, [Kepler] 1.4.1). The change that lifts an occupancy limit comes from the
// occupancy calculator, re-run with the changed resource.
#include "advisor/RuleContext.h"

#include "arch/OccupancyAdvice.h"
#include "arch/OccupancyCalculator.h"
#include "ptx/ControlFlowGraph.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace ptxray::advisor {
namespace {

/// The guides' rules of thumb (minimum block size, grid sizes that scale), from the arch stage.
const arch::GuideHeuristics kGuide;

double d(uint64_t v) {
  return static_cast<double>(v);
}

arch::OccupancyInput occupancyInput(const model::LaunchProfile &L) {
  arch::OccupancyInput in;
  in.threadsPerBlock = static_cast<int>(std::min<uint64_t>(L.block.count(), INT32_MAX));
  in.registersPerThread = static_cast<int>(L.registersPerThread);
  in.staticSharedBytes = L.staticSharedBytes;
  in.dynamicSharedBytes = L.dynamicSharedBytes;
  return in;
}

/// A change of one resource that raises occupancy, and the occupancy it gives.
struct Lift {
  std::string change;
  arch::OccupancyResult result;
};

std::optional<Lift> liftFor(const arch::ComputeCapability &cc, const model::LaunchProfile &L,
                            arch::OccupancyResource limiter) {
  const arch::OccupancyInput base = occupancyInput(L);
  const int current = L.occupancy.activeBlocksPerSm;
  switch (limiter) {
  case arch::OccupancyResource::Registers: {
    // The most registers per thread that still fits one block more.
    for (int regs = base.registersPerThread - 1; regs >= 1; --regs) {
      arch::OccupancyInput in = base;
      in.registersPerThread = regs;
      arch::OccupancyResult r = arch::computeOccupancy(cc, in);
      if (r.activeBlocksPerSm > current)
        return Lift{fmt::format("at most {} registers per thread (now {}): __launch_bounds__({}, {}) or "
                                "-maxrregcount={}",
                                regs, base.registersPerThread, base.threadsPerBlock, r.activeBlocksPerSm, regs),
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
    return Lift{fmt::format("at most {} of shared memory per block (now {}): smaller tiles, or fewer bytes "
                            "per element",
                            bytes(static_cast<double>(*fits)),
                            bytes(d(base.staticSharedBytes + base.dynamicSharedBytes))),
                arch::computeOccupancy(cc, in)};
  }
  case arch::OccupancyResource::Blocks:
  case arch::OccupancyResource::Warps: {
    // Larger or differently sized blocks: the calculator's best block size for this kernel.
    arch::LaunchConfiguration best = arch::suggestLaunchConfiguration(cc, base, 1);
    if (!best.blockSize || best.occupancy <= L.occupancy.occupancy)
      return std::nullopt;
    arch::OccupancyInput in = base;
    in.threadsPerBlock = best.blockSize;
    return Lift{fmt::format("{} threads per block (now {}), with the work per block scaled to match", best.blockSize,
                            base.threadsPerBlock),
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

void occupancy(const RuleContext &ctx, std::vector<Finding> &out) {
  const model::LaunchProfile &L = *ctx.launch;
  const arch::OccupancyResult &o = L.occupancy;
  if (!o.launches() || o.maxWarpsPerSm == 0 || o.occupancy >= ctx.t.occupancyPlateau)
    return;
  std::optional<Lift> best;
  for (arch::OccupancyResource res : o.limiters)
    if (std::optional<Lift> lift = liftFor(ctx.cc, L, res);
        lift && (!best || lift->result.occupancy > best->result.occupancy))
      best = lift;
  std::string fix;
  double gain = 0;
  if (best) {
    fix = fmt::format("Use {}: occupancy becomes {} ({} warps per SM).", best->change, percent(best->result.occupancy),
                      best->result.activeWarpsPerSm);
    const arch::OccupancyResult lifted = best->result;
    gain = ctx.gain([&](model::TimeInputs &in) { in.occupancy = lifted; });
  } else {
    fix = "No single resource change raises it: restructure the kernel (fewer live values, smaller shared tiles) "
          "or rely on instruction-level parallelism ([Kepler] 1.4.1).";
  }
  if (ctx.cc.major == 3 &&
      std::find(o.limiters.begin(), o.limiters.end(), arch::OccupancyResource::Registers) != o.limiters.end())
    fix += " Kepler's register file is twice Fermi's (GK210: four times), so register-limited Fermi kernels "
           "already fit more blocks here ([Kepler] 1.4.1).";
  const std::string perBlock =
      fmt::format(" Per block: {} threads, {} registers per thread, {} of shared memory.", L.block.count(),
                  L.registersPerThread, bytes(d(L.staticSharedBytes + L.dynamicSharedBytes)));

  Finding f = ctx.make("occupancy-limited");
  f.title = fmt::format("Occupancy {} ({} of {} warps per SM), limited by {}", percent(o.occupancy), o.activeWarpsPerSm,
                        o.maxWarpsPerSm, limiterNames(o));
  f.evidence = fmt::format("{} blocks fit an SM; below {} occupancy too few warps are resident to hide memory "
                           "latency ([BPG] 4.1, 4.4).",
                           o.activeBlocksPerSm, percent(ctx.t.occupancyPlateau)) +
               perBlock;
  f.fix = fix;
  ctx.setGain(f, gain);
  out.push_back(std::move(f));

  if (o.occupancy < ctx.cc.minOccupancyToHideRegisterLatency) {
    Finding h = ctx.make("occupancy-latency-hiding");
    h.title = fmt::format("{} resident threads per SM cannot hide register dependencies",
                          o.activeWarpsPerSm * ctx.cc.warpSize);
    h.evidence = fmt::format("An arithmetic result is ready about {} cycles after it issues; hiding that takes at "
                             "least {} resident threads ({} occupancy) on this GPU, and the launch has {} ({}) "
                             "([BPG] 4.3).",
                             ctx.cc.latency.registerReadAfterWriteCycles, ctx.cc.registerLatencyHidingThreads,
                             percent(ctx.cc.minOccupancyToHideRegisterLatency), o.activeWarpsPerSm * ctx.cc.warpSize,
                             percent(o.occupancy));
    h.fix = fix;
    ctx.setGain(h, gain);
    out.push_back(std::move(h));
  }
}

void blockShape(const RuleContext &ctx, std::vector<Finding> &out) {
  const model::LaunchProfile &L = *ctx.launch;
  const uint64_t threads = L.block.count();
  const uint64_t warpSize = static_cast<uint64_t>(ctx.cc.warpSize);
  if (threads % warpSize) {
    Finding f = ctx.make("block-not-warp-multiple");
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
    ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) {
      for (uint64_t &n : in.warpInstructionsByClass)
        n = static_cast<uint64_t>(d(n) * used);
    }));
    out.push_back(std::move(f));
  }
  if (threads < static_cast<uint64_t>(kGuide.minThreadsPerBlock)) {
    Finding f = ctx.make("block-too-small");
    f.title = fmt::format("{} threads per block: below the guides' minimum of {}", threads, kGuide.minThreadsPerBlock);
    f.evidence = fmt::format(
        "An SM holds at most {} blocks, so {}-thread blocks fill at most {} of its {} warps "
        "(occupancy {} here), and blocks waiting at a barrier leave little else to run "
        "([BPG] 4.4).",
        ctx.cc.maxBlocksPerSm, threads,
        std::min<uint64_t>(static_cast<uint64_t>(ctx.cc.maxBlocksPerSm) * ((threads + warpSize - 1) / warpSize),
                           static_cast<uint64_t>(ctx.cc.maxWarpsPerSm)),
        ctx.cc.maxWarpsPerSm, percent(L.occupancy.occupancy));
    f.fix = fmt::format(
        "Use {} to {} threads per block (several blocks per SM still fit), letting each block do the work of "
        "several small ones.",
        kGuide.recommendedMinThreadsPerBlock, kGuide.recommendedMaxThreadsPerBlock);
    out.push_back(std::move(f));
  }
}

void gridSize(const RuleContext &ctx, std::vector<Finding> &out) {
  const model::LaunchProfile &L = *ctx.launch;
  const int sms = L.time.smCount;
  if (sms <= 0)
    return;
  const uint64_t ctas = L.ctas;
  if (ctas < static_cast<uint64_t>(sms)) {
    Finding f = ctx.make("grid-below-sm-count");
    f.title = fmt::format("{} blocks for {} SMs: {} SMs idle", ctas, sms, sms - static_cast<int>(ctas));
    f.evidence = fmt::format("{} has {} multiprocessors; a grid needs at least that many blocks to give each one "
                             "work, and several per SM to hide latency ([BPG] 4.4).",
                             L.time.gpu, sms);
    f.fix = fmt::format("Split the work into at least {} blocks (smaller blocks, or more work items per launch); "
                        "with {} blocks per SM resident, {} blocks fill the GPU.",
                        sms, L.occupancy.activeBlocksPerSm,
                        static_cast<uint64_t>(sms) * static_cast<uint64_t>(std::max(1, L.occupancy.activeBlocksPerSm)));
    ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) { in.ctas = static_cast<uint64_t>(sms); }));
    out.push_back(std::move(f));
    return;
  }
  const uint64_t perWave =
      static_cast<uint64_t>(sms) * static_cast<uint64_t>(std::max(1, L.occupancy.activeBlocksPerSm));
  const uint64_t fullWaves = ctas / perWave, tail = ctas % perWave;
  if (fullWaves >= 1 && tail > 0) {
    const double tailShare = d(tail) / d(perWave);
    const double lost = (1 - tailShare) / d(fullWaves + 1);
    if (tailShare < ctx.t.tailWaveShare && lost >= ctx.t.tailWaveIdle) {
      Finding f = ctx.make("tail-wave");
      f.title = fmt::format("A tail wave of {} blocks: {} full waves of {} blocks, then {} of the GPU busy", tail,
                            fullWaves, perWave, percent(tailShare));
      f.evidence = fmt::format("{} SMs x {} resident blocks = {} blocks per wave; {} blocks leave the last wave "
                               "{} full, about {} of the launch's SM time idle.",
                               sms, L.occupancy.activeBlocksPerSm, perWave, ctas, percent(tailShare), percent(lost));
      f.fix = fmt::format("Size the grid to a multiple of {} blocks (or many more waves, so the tail matters "
                          "less), or give each block a grid-stride loop over the work.",
                          perWave);
      out.push_back(std::move(f));
    }
  }
  if (ctas < static_cast<uint64_t>(kGuide.minGridBlocksToScale)) {
    Finding f = ctx.make("grid-too-small-to-scale");
    f.title = fmt::format("{} blocks will not fill larger GPUs", ctas);
    f.evidence = "To scale to future devices the number of blocks per launch should be in the hundreds; "
                 "thousands of blocks scale across generations ([BPG] 4.4, [Kepler] 1.4.1).";
    f.fix = "Launch more, smaller blocks (or more work per launch), keeping each block's work independent.";
    out.push_back(std::move(f));
  }
}

/// Instruction-level parallelism of a basic block: its instructions over its longest chain of
/// register dependencies (each instruction counted once: a first-order view of what one warp can
/// issue back to back).
struct BlockIlp {
  uint32_t instructions = 0;
  uint32_t chain = 0;
  double ilp() const { return chain ? static_cast<double>(instructions) / chain : 0; }
};

BlockIlp blockIlp(const ptx::Function &fn, const ptx::BasicBlock &block) {
  BlockIlp r;
  std::unordered_map<uint32_t, uint32_t> depthOf; // register -> chain length ending in its last write
  for (uint32_t i = block.firstInstruction; i < block.endInstruction; ++i) {
    const ptx::Instruction &inst = fn.instructions[i];
    if (inst.opcode == ptx::Opcode::bra || inst.opcode == ptx::Opcode::ret || inst.opcode == ptx::Opcode::exit)
      continue;
    const ptx::RegisterAccess access = ptx::registerAccess(fn, inst);
    uint32_t depth = 0;
    for (uint32_t use : access.uses)
      if (auto it = depthOf.find(use); it != depthOf.end())
        depth = std::max(depth, it->second);
    ++depth;
    for (uint32_t def : access.defs)
      depthOf[def] = depth;
    r.chain = std::max(r.chain, depth);
    ++r.instructions;
  }
  return r;
}

void keplerIlp(const RuleContext &ctx, std::vector<Finding> &out) {
  const model::LaunchProfile &L = *ctx.launch;
  if (ctx.cc.major != 3 || !L.occupancy.launches() || !ctx.input.module)
    return;
  if (L.time.dominant != model::Bound::Compute && L.time.dominant != model::Bound::Latency)
    return;
  // The hottest basic block (by warp instructions executed in it) and its ILP.
  const ptx::Function *hotFunction = nullptr;
  uint32_t hotBlock = 0;
  uint64_t hotCount = 0, total = 0;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> byBlock;
  std::map<uint32_t, ptx::ControlFlowGraph> graphs;
  for (const model::InstructionProfile &p : L.instructions) {
    const ptx::Function &fn = ctx.function(p);
    auto [g, inserted] = graphs.try_emplace(p.function, *ctx.input.module, fn);
    const uint32_t block = g->second.blockOf(p.instruction);
    uint64_t &n = byBlock[{p.function, block}];
    n += p.counters.warpExecuted;
    total += p.counters.warpExecuted;
    if (n > hotCount) {
      hotCount = n;
      hotFunction = &fn;
      hotBlock = block;
    }
  }
  if (!hotFunction || total == 0)
    return;
  const ptx::BasicBlock &block =
      graphs.at(static_cast<uint32_t>(hotFunction - ctx.input.module->functions.data())).blocks()[hotBlock];
  const BlockIlp ilp = blockIlp(*hotFunction, block);
  // An SMX issues up to two independent instructions per warp per clock ([Kepler] 1.4.1): below
  // that much independent work in the hot code, the dual issue goes unused.
  if (ilp.instructions < 4 || ilp.ilp() >= ctx.t.keplerIlp)
    return;
  Finding f = ctx.make("kepler-ilp");
  f.title = fmt::format("Little instruction-level parallelism: the hot code has {:.1f} independent instructions per "
                        "step",
                        ilp.ilp());
  f.evidence = fmt::format("The hottest basic block ({} of the warp instructions) runs {} instructions along a "
                           "dependency chain of {}; the launch is {}-bound with {} occupancy, and an SMX issues one "
                           "or two independent instructions from each of four warps per clock, so it needs about "
                           "twice Fermi's parallelism per SM ([Kepler] 1.4.1).",
                           percent(static_cast<double>(hotCount) / static_cast<double>(total)), ilp.instructions,
                           ilp.chain, model::boundName(L.time.dominant), percent(L.occupancy.occupancy));
  f.fix = "Give each thread several independent items (process two or four elements per thread, unroll loops with "
          "independent accumulators), watching register pressure.";
  for (const model::InstructionProfile &p : L.instructions)
    if (&ctx.function(p) == hotFunction && p.instruction >= block.firstInstruction &&
        p.instruction < block.endInstruction) {
      f.lines.push_back(
          ctx.ref(p, fmt::format("in the hottest block ({} instructions, chain {})", ilp.instructions, ilp.chain), 1));
      break;
    }
  out.push_back(std::move(f));
}

} // namespace

void configurationRules(const RuleContext &ctx, std::vector<Finding> &out) {
  if (!ctx.launch)
    return;
  occupancy(ctx, out);
  blockShape(ctx, out);
  gridSize(ctx, out);
  keplerIlp(ctx, out);
}

} // namespace ptxray::advisor
