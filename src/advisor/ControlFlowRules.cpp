// Control-flow rules: divergent branches, warps running with few active threads, and short
// divergent branches the compiler could have predicated ([BPG] chapter 6).
#include "advisor/RuleContext.h"
#include "ptx/ControlFlowGraph.h"
#include "vm/Reconvergence.h"

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

double ratio(uint64_t num, uint64_t den) {
  return den ? d(num) / d(den) : 0;
}

/// [BPG] 6.2: the compiler predicates a branch whose body has at most this many instructions when it
/// expects divergence (4 otherwise).
constexpr uint32_t kPredicationThreshold = 7;

/// The instruction a branch's label names, or kNone.
uint32_t branchTarget(const ptx::Function &fn, const ptx::Instruction &bra) {
  auto ops = fn.operandsOf(bra);
  if (ops.empty() || ops[0].kind != ptx::OperandKind::Symbol)
    return ptx::kNone;
  uint32_t next = 0;
  for (const ptx::Statement &st : fn.statements) {
    if (st.kind == ptx::StatementKind::Instruction)
      ++next;
    else if (st.kind == ptx::StatementKind::Label && st.index == ops[0].id)
      return next;
  }
  return ptx::kNone;
}

/// The warp instructions a divergent branch's paths would not need if the lanes of a block that
/// took each path were packed into full warps (what "make the condition uniform per warp" gains).
/// The paths are the blocks between the branch and where they reconverge (its block's immediate
/// post-dominator, as the VM's SIMT stack has it; a loop's body for its backward branch). A block's
/// executions of one instruction with a lanes active in all need ceil(a / 32) warp instructions.
/// Two idioms gain nothing and count nothing: a path one lane of each warp runs (`if (lane == 0)
/// out[w] = v;`, a warp's result written by its leader: the values live in the warps' own
/// registers), and a path one warp of each block runs (the last stage of a block reduction).
class DivergentPaths {
public:
  DivergentPaths(const ptx::Module &m, const ptx::Function &fn, const model::LaunchProfile &L, uint32_t function)
      : cfg_(m, fn), reconverge_(vm::reconvergencePoints(m, fn)), byInstruction_(fn.instructions.size(), nullptr),
        ctas_(d(L.ctas)) {
    for (const model::InstructionProfile &p : L.instructions)
      if (p.function == function && p.instruction < byInstruction_.size())
        byInstruction_[p.instruction] = &p;
  }

  double savings(uint32_t branch) const {
    if (branch >= reconverge_.size() || ctas_ <= 0)
      return 0;
    const uint32_t meet = reconverge_[branch];
    const uint32_t stop = meet == ptx::kNone ? ptx::kNone : cfg_.blockOf(meet);
    const auto &blocks = cfg_.blocks();
    std::vector<char> seen(blocks.size(), 0);
    std::vector<uint32_t> work(blocks[cfg_.blockOf(branch)].successors);
    double saved = 0;
    while (!work.empty()) {
      const uint32_t b = work.back();
      work.pop_back();
      if (b >= blocks.size() || b == stop || seen[b])
        continue;
      seen[b] = 1;
      for (uint32_t i = blocks[b].firstInstruction; i < blocks[b].endInstruction; ++i)
        saved += packable(byInstruction_[i]);
      work.insert(work.end(), blocks[b].successors.begin(), blocks[b].successors.end());
    }
    return saved;
  }

private:
  double packable(const model::InstructionProfile *p) const {
    if (!p || !p->counters.warpExecuted)
      return 0;
    const double executions = d(p->counters.warpExecuted), lanes = d(p->counters.threadsActive);
    if (lanes <= executions * 1.0001) // one lane an execution: a warp's leader
      return 0;
    return std::max(0.0, executions - ctas_ * std::ceil(lanes / ctas_ / 32.0));
  }

  ptx::ControlFlowGraph cfg_;
  std::vector<uint32_t> reconverge_;
  std::vector<const model::InstructionProfile *> byInstruction_;
  double ctas_;
};

void divergentBranches(const RuleContext &ctx, std::vector<Finding> &out) {
  const model::LaunchProfile &L = *ctx.launch;
  if (!L.total.divergentBranches)
    return;
  Finding f = ctx.make("divergent-branch");
  Finding shortOnes = ctx.make("branch-predication");
  double savedWarpInstructions = 0;
  std::map<uint32_t, DivergentPaths> paths; // by PTX function
  auto pathsOf = [&](const model::InstructionProfile &p) -> const DivergentPaths & {
    auto it = paths.find(p.function);
    if (it == paths.end())
      it = paths.emplace(p.function, DivergentPaths(*ctx.input.module, ctx.function(p), L, p.function)).first;
    return it->second;
  };
  for (const model::LineProfile &line : ctx.lines) {
    const model::InstructionCounters &c = line.inputs.all;
    if (!c.divergentBranches || ratio(c.divergentBranches, c.branches) < ctx.t.divergentBranchShare ||
        d(c.divergentBranches) < ctx.t.minLineShare * d(L.total.divergentBranches))
      continue;
    f.lines.push_back(ctx.ref(line,
                              fmt::format("{} of {} executions split the warp ({})", c.divergentBranches, c.branches,
                                          percent(ratio(c.divergentBranches, c.branches))),
                              d(c.divergentBranches),
                              [](const model::InstructionCounters &k) { return k.divergentBranches; }));
    for (const model::InstructionProfile *p : line.instructions) {
      if (!p->counters.divergentBranches)
        continue;
      const ptx::Function &fn = ctx.function(*p);
      const uint32_t target = branchTarget(fn, ctx.instruction(*p));
      savedWarpInstructions += pathsOf(*p).savings(p->instruction);
      if (target != ptx::kNone && target > p->instruction && target - p->instruction - 1 <= kPredicationThreshold)
        shortOnes.lines.push_back(ctx.ref(*p,
                                          fmt::format("skips {} instructions; diverged {} times",
                                                      target - p->instruction - 1, p->counters.divergentBranches),
                                          d(p->counters.divergentBranches)));
    }
  }
  if (!f.lines.empty()) {
    f.title = fmt::format("Divergent branches: {} of {} branch executions split a warp", L.total.divergentBranches,
                          L.total.branches);
    f.evidence = fmt::format("When a warp's threads take different paths, the paths run one after the other "
                             "(branch efficiency {}, warp execution efficiency {}).",
                             percent(ratio(L.total.branches - L.total.divergentBranches, L.total.branches)),
                             percent(ratio(L.total.threadsActive, L.total.warpExecuted * 32)));
    f.fix = fmt::format("Make the condition uniform across each warp: derive it from {0} / 32 rather than from "
                        "{0} itself (e.g. give even and odd warps, not even and odd threads, the two paths), or ",
                        ctx.words.localIdX) +
            std::string("regroup the data so that threads taking the same path are neighbours ([BPG] 6.1).");
    // What packing each path's lanes into full warps would save: the paths' warp instructions in
    // proportion. A branch whose divergent path is a warp's one-lane epilogue (`if (lane == 0)
    // out[w] = v;`) saves next to nothing and stays silent.
    const double share = std::min(1.0, savedWarpInstructions / ctx.warpInstructions());
    ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) {
      for (uint64_t &n : in.warpInstructionsByClass)
        n = static_cast<uint64_t>(d(n) * (1 - share));
    }));
    ctx.trim(f.lines);
    if (L.time.seconds > 0 && f.gainFraction < ctx.t.divergenceMinGain)
      shortOnes.lines.clear(); // the same branches: predicating them gains no more
    else
      out.push_back(std::move(f));
  }
  // One entry a source line: its branches' counts added up (an unrolled loop has a branch a copy).
  for (size_t i = 0; i < shortOnes.lines.size(); ++i)
    for (size_t j = i + 1; j < shortOnes.lines.size();)
      if (!shortOnes.lines[i].file.empty() && shortOnes.lines[j].file == shortOnes.lines[i].file &&
          shortOnes.lines[j].line == shortOnes.lines[i].line) {
        shortOnes.lines[i].weight += shortOnes.lines[j].weight;
        shortOnes.lines.erase(shortOnes.lines.begin() + static_cast<std::ptrdiff_t>(j));
      } else
        ++j;
  if (!shortOnes.lines.empty()) {
    shortOnes.title = "Short divergent branches the compiler did not predicate";
    shortOnes.evidence =
        fmt::format("{} branch{} skip at most {} instructions yet diverge: predicated, no warp would split.",
                    shortOnes.lines.size(), shortOnes.lines.size() == 1 ? "" : "es", kPredicationThreshold);
    shortOnes.fix = "Write short conditional work so the compiler can predicate it (a conditional expression or "
                    "select instead of an if with side effects, no early exits), and unroll short loops with "
                    "#pragma unroll ([BPG] 6.2).";
    ctx.trim(shortOnes.lines);
    out.push_back(std::move(shortOnes));
  }
}

void warpEfficiency(const RuleContext &ctx, std::vector<Finding> &out) {
  const model::LaunchProfile &L = *ctx.launch;
  if (!L.total.warpExecuted)
    return;
  const double lanes = 32;
  const double efficiency = d(L.total.threadsActive) / (d(L.total.warpExecuted) * lanes);
  if (efficiency >= ctx.t.warpEfficiency)
    return;
  // A partial last warp (a block size that is not a multiple of 32) is its own finding; only report
  // what the block shape does not explain.
  const uint64_t threads = L.block.count();
  const double blockEfficiency = d(threads) / (d((threads + 31) / 32) * lanes);
  if (efficiency >= ctx.t.warpEfficiency * blockEfficiency)
    return;
  Finding f = ctx.make("low-warp-efficiency");
  for (const model::LineProfile &line : ctx.lines) {
    const model::InstructionCounters &c = line.inputs.all;
    const double idle = d(c.warpExecuted) * lanes - d(c.threadsActive);
    const double lineEfficiency = ratio(c.threadsActive, c.warpExecuted * 32);
    if (lineEfficiency >= ctx.t.warpEfficiency || idle < ctx.t.minLineShare * d(L.total.warpExecuted) * lanes)
      continue;
    f.lines.push_back(ctx.ref(line,
                              fmt::format("{:.1f} of 32 threads active on average over {} warp instructions",
                                          lineEfficiency * lanes, c.warpExecuted),
                              idle));
  }
  f.title = fmt::format("Warp execution efficiency {}: warps run with {:.1f} of 32 threads active", percent(efficiency),
                        efficiency * lanes);
  f.evidence = fmt::format("{} warp instructions ran {} thread instructions: the idle lanes are divergence "
                           "(paths or loop trip counts that differ between the threads of a warp) ([BPG] 6.1).",
                           L.total.warpExecuted, L.total.threadsActive);
  f.fix = "Give the threads of a warp the same amount of work: uniform loop trip counts, sort or bin work items by "
          "cost, or compact the active items so that full warps process them.";
  // Upper bound: the same thread instructions packed into full warps.
  ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) {
    for (uint64_t &n : in.warpInstructionsByClass)
      n = static_cast<uint64_t>(d(n) * efficiency / blockEfficiency);
  }));
  ctx.trim(f.lines);
  out.push_back(std::move(f));
}

} // namespace

void controlFlowRules(const RuleContext &ctx, std::vector<Finding> &out) {
  if (!ctx.launch)
    return;
  divergentBranches(ctx, out);
  warpEfficiency(ctx, out);
}

} // namespace ptxray::advisor
