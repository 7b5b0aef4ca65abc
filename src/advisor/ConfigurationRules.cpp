// Execution-configuration rules on a launch that ran: the launch-configuration rules
// (LaunchConfiguration.cpp: occupancy and what limits it, block size, grid size and waves; [BPG]
// chapter 4, [Kepler] 1.4.1) with the time model's gain for each fix, and Kepler's instruction-level
// parallelism, which needs the PTX. And the shared memory kernel arguments take on compute capability
// 1.x ([BPG] 3.2.2.4), with a launch or from the PTX alone.
#include "advisor/LaunchConfiguration.h"
#include "advisor/RuleContext.h"

#include "arch/OccupancyCalculator.h"
#include "model/TimeEstimate.h"
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

/// Most bytes of kernel parameters compute capability 1.x passes, in shared memory (CUDA C Programming
/// Guide 4.2, B.1.4: "via shared memory and are limited to 256 bytes"; from 2.0 constant memory, 4 KB).
constexpr uint64_t kSharedParamLimit = 256;

uint64_t alignUp(uint64_t value, uint64_t align) {
  return align > 1 ? (value + align - 1) / align * align : value;
}

/// A kernel's parameters as its parameter buffer holds them (in order, each at its alignment), and
/// what the fix leaves of them: in CUDA nothing (a __constant__ variable is no parameter); in OpenCL
/// the pointers (`.ptr` parameters: buffers and __local memory cannot move) and one __constant pointer
/// to a buffer holding the by-value arguments.
struct KernelParams {
  size_t count = 0;
  size_t movable = 0;     ///< parameters the fix moves to constant memory
  uint64_t bytes = 0;     ///< all of them
  uint64_t remaining = 0; ///< after the fix
};

KernelParams kernelParams(const ptx::Module &m, const ptx::Function &kernel, bool opencl) {
  KernelParams p;
  for (uint32_t index : kernel.params) {
    const ptx::Variable &v = m.variables[index];
    const uint64_t align = v.align ? v.align : std::max<uint32_t>(v.naturalAlign(), 1);
    p.bytes = alignUp(p.bytes, align) + v.sizeInBytes();
    ++p.count;
    if (opencl && v.isPointer)
      p.remaining = alignUp(p.remaining, align) + v.sizeInBytes();
    else
      ++p.movable;
  }
  if (!opencl)
    p.remaining = 0;
  else if (p.movable) {
    const uint64_t pointer = m.pointerBits() / 8;
    p.remaining = alignUp(p.remaining, pointer) + pointer;
  }
  return p;
}

/// [BPG] 3.2.2.4 (Low priority, A.4): on compute capability 1.x "shared memory holds the parameters or
/// arguments that are passed to kernels at launch"; for long argument lists constant memory saves it.
/// With a launch the rule speaks up when the occupancy calculator, given the parameter bytes as shared
/// memory of the block, fits fewer blocks per SM than with what the fix leaves of them (the calculator
/// of the rest of ptxray counts the kernel's declared shared memory only), or when they pass the 256-byte
/// limit.
/// Without a launch there is no block to place: it speaks up past half of the 256 bytes, a bound.
void kernelParamsInShared(const RuleContext &ctx, std::vector<Finding> &out) {
  if (ctx.cc.major != 1 || !ctx.kernel || !ctx.input.module)
    return;
  const bool opencl = ctx.words.opencl();
  const KernelParams p = kernelParams(*ctx.input.module, *ctx.kernel, opencl);
  if (p.bytes <= p.remaining)
    return; // nothing the fix could move
  const bool overLimit = p.bytes > kSharedParamLimit;
  const std::string list = fmt::format("{}'s {} parameter{} {} bytes", ctx.kernel->name, p.count,
                                       p.count == 1 ? " takes" : "s take", p.bytes);
  const std::string limit =
      overLimit ? fmt::format(" That is more than the {} bytes this GPU can pass: the launch fails.", kSharedParamLimit)
                : "";
  Finding f = ctx.make("kernel-params-in-shared");
  std::string alternative; // where the parameters tip the block over an allocation unit
  if (!ctx.launch) {
    if (p.bytes <= kSharedParamLimit / 2)
      return;
    f.title = fmt::format("{} bytes of kernel parameters: {} of the {} bytes of shared memory compute capability 1.x "
                          "passes them in",
                          p.bytes, percent(d(p.bytes) / d(kSharedParamLimit)), kSharedParamLimit);
    f.evidence = fmt::format("On compute capability 1.x a kernel's arguments are passed in the shared memory of each "
                             "block ([BPG] 3.2.2.4); {}, over half of what a launch can pass, taken from the shared "
                             "memory every block has.{}",
                             list, limit);
  } else {
    const ConfigurationView view = viewOf(ctx);
    arch::OccupancyInput with = view.input, after = view.input;
    with.staticSharedBytes += p.bytes;
    after.staticSharedBytes += p.remaining;
    const arch::OccupancyResult rWith = arch::computeOccupancy(ctx.cc, with);
    const arch::OccupancyResult rAfter = arch::computeOccupancy(ctx.cc, after);
    const bool costsBlocks = rAfter.activeBlocksPerSm > rWith.activeBlocksPerSm;
    if (!costsBlocks && !overLimit)
      return;
    if (costsBlocks) {
      const int lost = rAfter.activeBlocksPerSm - rWith.activeBlocksPerSm;
      f.title =
          fmt::format("{} bytes of kernel parameters in shared memory cost {} block{} per SM: {} fit instead of {}",
                      p.bytes, lost, lost == 1 ? "" : "s", rWith.activeBlocksPerSm, rAfter.activeBlocksPerSm);
      f.evidence = fmt::format(
          "On compute capability 1.x a kernel's arguments are passed in the shared memory of each block ([BPG] "
          "3.2.2.4); {}. A block of {} threads then takes {} bytes of shared memory (its own {} and the {} of "
          "parameters, rounded up to {}-byte units), so {} block{} fit an SM (occupancy {}); with {} bytes of "
          "parameters {} would ({}). The occupancy above counts the kernel's declared shared memory only.{}",
          list, with.threadsPerBlock, rWith.allocatedSharedBytesPerBlock,
          view.input.staticSharedBytes + view.input.dynamicSharedBytes, p.bytes, ctx.cc.sharedAllocationUnit,
          rWith.activeBlocksPerSm, rWith.activeBlocksPerSm == 1 ? "" : "s", percent(rWith.occupancy), p.remaining,
          rAfter.activeBlocksPerSm, percent(rAfter.occupancy), limit);
      // The other way to the same occupancy: the block's own shared memory and all the parameters within
      // the allocation the fix would leave it.
      const uint64_t own = view.input.staticSharedBytes + view.input.dynamicSharedBytes;
      if (own + p.bytes > rAfter.allocatedSharedBytesPerBlock &&
          own + p.bytes - rAfter.allocatedSharedBytesPerBlock < own)
        alternative = fmt::format(" Or take {} bytes off the block's own shared memory, so that it and the parameters "
                                  "fit the {} bytes {} blocks per SM leave each block.",
                                  own + p.bytes - rAfter.allocatedSharedBytesPerBlock,
                                  rAfter.allocatedSharedBytesPerBlock, rAfter.activeBlocksPerSm);
      if (rWith.launches()) {
        model::TimeInputs in = ctx.launch->timeInputs;
        in.occupancy = rWith;
        const double slower = model::estimateTime(ctx.input.target, in).seconds;
        in.occupancy = rAfter;
        ctx.setGain(f, std::max(0.0, slower - model::estimateTime(ctx.input.target, in).seconds));
      }
    } else {
      f.title = fmt::format("{} bytes of kernel parameters: more than the {} bytes compute capability 1.x passes in "
                            "shared memory",
                            p.bytes, kSharedParamLimit);
      f.evidence = fmt::format("On compute capability 1.x a kernel's arguments are passed in the shared memory of each "
                               "block ([BPG] 3.2.2.4); {}.{}",
                               list, limit);
    }
  }
  const std::string fast = "reads of one address by all threads of a half warp are as fast as a register ([BPG] 3.2.5)";
  f.fix = opencl ? fmt::format("Pass the {} by-value argument{} through constant memory: one struct in a buffer "
                               "(clCreateBuffer with CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR), passed as a single "
                               "__constant pointer argument and read there; {}.",
                               p.movable, p.movable == 1 ? "" : "s", fast)
                 : fmt::format("Pass the large arguments through constant memory: a __constant__ variable (a struct) "
                               "set with cudaMemcpyToSymbol before the launch and read in the kernel; {}.",
                               fast);
  f.fix += alternative;
  out.push_back(std::move(f));
}

} // namespace

void configurationRules(const RuleContext &ctx, std::vector<Finding> &out) {
  kernelParamsInShared(ctx, out);
  if (!ctx.launch)
    return;
  launchConfiguration(ctx, out);
  keplerIlp(ctx, out);
}

} // namespace ptxray::advisor
