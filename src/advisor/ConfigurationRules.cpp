// Execution-configuration rules on a launch that ran: the launch-configuration rules
// (LaunchConfiguration.cpp: occupancy and what limits it, block size, grid size and waves; [BPG]
// chapter 4, [Kepler] 1.4.1) with the time model's gain for each fix, and Kepler's instruction-level
// parallelism, which needs the PTX.
#include "advisor/LaunchConfiguration.h"
#include "advisor/RuleContext.h"

#include "arch/OccupancyCalculator.h"
#include "ptx/ControlFlowGraph.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace ptxray::advisor {
namespace {

double d(uint64_t v) {
  return static_cast<double>(v);
}

/// What the occupancy calculator knows of a launch that ran.
ConfigurationView viewOf(const RuleContext &ctx) {
  const model::LaunchProfile &L = *ctx.launch;
  ConfigurationView c;
  c.cc = &ctx.cc;
  c.input.threadsPerBlock = static_cast<int>(std::min<uint64_t>(L.block.count(), INT32_MAX));
  c.input.registersPerThread = static_cast<int>(L.registersPerThread);
  c.input.staticSharedBytes = L.staticSharedBytes;
  c.input.dynamicSharedBytes = L.dynamicSharedBytes;
  c.result = L.occupancy;
  c.gridBlocks = L.ctas;
  c.smCount = L.time.smCount;
  c.gpu = L.time.gpu;
  c.language = ctx.words.language;
  return c;
}

/// The launch-configuration rules (LaunchConfiguration.cpp) on the launch, each fix's gain from the
/// time model re-run with the change.
void launchConfiguration(const RuleContext &ctx, std::vector<Finding> &out) {
  const model::LaunchProfile &L = *ctx.launch;
  const ConfigurationView view = viewOf(ctx);
  std::optional<double> occupancyGain;
  for (Finding &f : adviseConfiguration(view, ctx.t, ConfigurationScope::Launch)) {
    if (f.rule == "occupancy-limited" || f.rule == "occupancy-latency-hiding") {
      if (!occupancyGain) {
        const std::optional<OccupancyLift> lift = bestOccupancyLift(view);
        occupancyGain = lift ? ctx.gain([&](model::TimeInputs &in) { in.occupancy = lift->result; }) : 0.0;
      }
      ctx.setGain(f, *occupancyGain);
    } else if (f.rule == "block-not-warp-multiple") {
      const uint64_t threads = L.block.count(), warpSize = static_cast<uint64_t>(ctx.cc.warpSize);
      const double used = d(threads) / d((threads + warpSize - 1) / warpSize * warpSize);
      ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) {
        for (uint64_t &n : in.warpInstructionsByClass)
          n = static_cast<uint64_t>(d(n) * used);
      }));
    } else if (f.rule == "grid-below-sm-count") {
      ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) { in.ctas = static_cast<uint64_t>(view.smCount); }));
    }
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
  launchConfiguration(ctx, out);
  keplerIlp(ctx, out);
}

} // namespace ptxray::advisor
