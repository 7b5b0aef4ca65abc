#include "advisor/Advisor.h"

#include "advisor/RuleContext.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <tuple>

namespace ptxray::advisor {

std::string_view priorityName(Priority p) {
  switch (p) {
  case Priority::High: return "high";
  case Priority::Medium: return "medium";
  case Priority::Low: return "low";
  }
  return "";
}

std::string_view categoryName(Category c) {
  switch (c) {
  case Category::Memory: return "memory";
  case Category::Configuration: return "execution configuration";
  case Category::Instructions: return "instructions";
  case Category::ControlFlow: return "control flow";
  case Category::Correctness: return "correctness";
  case Category::System: return "host and system";
  }
  return "";
}

namespace {

// [BPG]: OpenCL Best Practices Guide (../shared/docs/opencl-best-practices-guide.md); its Appendix A
// gives the priorities. [Kepler]: Kepler Tuning Guide; its §1.2 repeats the high-priority list.
// [Interop]: the PTX interoperability guide (ptx-interoperability.md), the ABI checker's source.
constexpr std::array kRules = {
    RuleInfo{"uncoalesced-global", Priority::High, Category::Memory, "[BPG] 3.2.1, A.2; [Kepler] 1.2",
             "global loads or stores need more transactions than the bytes they use", true},
    RuleInfo{"redundant-global-loads", Priority::Medium, Category::Memory, "[BPG] 3.2.2.2, 5.2, A.3; [Kepler] 1.2",
             "threads of a block load the same global data again and again: shared memory could serve it", true},
    RuleInfo{"shared-bank-conflicts", Priority::Medium, Category::Memory,
             "[BPG] 3.2.2.1, 3.2.2.3, A.3; [Kepler] 1.4.3.1", "shared-memory accesses serialized by bank conflicts",
             true},
    RuleInfo{"constant-divergent", Priority::Medium, Category::Memory, "[BPG] 3.2.5; [Kepler] 1.4.4.3",
             "constant memory read at different addresses by the threads of a warp", true},
    RuleInfo{"atomic-contention", Priority::High, Category::Memory, "[Kepler] 1.4.4.4",
             "global atomics on few addresses serialized in L2 for much of the launch", true},
    RuleInfo{"local-memory", Priority::Medium, Category::Memory, "[BPG] 3.2.3, 3.2.6.1; [Kepler] 1.4.4.1",
             "local-memory traffic from per-thread arrays indexed at run time or from spills", false},
    RuleInfo{"read-only-cache", Priority::Medium, Category::Memory, "[Kepler] 1.4.4.3",
             "data never written by the launch is loaded without the read-only data cache", true},
    RuleInfo{"l1-caching", Priority::Low, Category::Memory, "[Kepler] 1.4.4.2",
             "global loads with reuse are cached in L2 only where the GPU can cache them in L1", true},
    RuleInfo{"kernel-params-in-shared", Priority::Low, Category::Memory, "[BPG] 3.2.2.4, A.4",
             "a long argument list in the shared memory compute capability 1.x passes kernel arguments in", false},
    RuleInfo{"occupancy-limited", Priority::Medium, Category::Configuration, "[BPG] 4.1, 4.2, 4.5; [Kepler] 1.4.1",
             "theoretical occupancy below the level past which the guides expect no gain", true},
    RuleInfo{"occupancy-latency-hiding", Priority::Medium, Category::Configuration, "[BPG] 4.3, A.3",
             "too few resident warps to hide register dependencies", true},
    RuleInfo{"block-not-warp-multiple", Priority::Medium, Category::Configuration, "[BPG] 4.4, A.3",
             "threads per block not a multiple of the warp size", true},
    RuleInfo{"block-too-small", Priority::Low, Category::Configuration, "[BPG] 4.4",
             "blocks smaller than the guides' minimum of 64 threads", true},
    RuleInfo{"grid-below-sm-count", Priority::High, Category::Configuration, "[BPG] 4.4; [Kepler] 1.2, 1.4.1",
             "fewer blocks than multiprocessors: part of the GPU idles", true},
    RuleInfo{"tail-wave", Priority::Low, Category::Configuration, "[BPG] 4.4",
             "the last wave of blocks leaves most of the GPU idle", true},
    RuleInfo{"grid-too-small-to-scale", Priority::Low, Category::Configuration, "[BPG] 4.4; [Kepler] 1.4.1",
             "too few blocks to fill larger and future GPUs", true},
    RuleInfo{"launch-fails", Priority::High, Category::Configuration, "[BPG] 4.4",
             "the launch asks for more threads, registers or shared memory per block than the GPU has", true},
    RuleInfo{"static-shared-too-large", Priority::High, Category::Configuration, "[PG] shared memory",
             "more statically declared shared memory than a block may have (48 KB)", true},
    RuleInfo{"shared-opt-in", Priority::Medium, Category::Configuration, "[PG] shared memory",
             "shared memory beyond the default per block, which needs cudaFuncSetAttribute first", true},
    RuleInfo{"carveout-ignored", Priority::Low, Category::Configuration, "[BPG] 4.5",
             "a shared-memory carveout on a GPU that splits L1 and shared memory by cache configuration", true},
    RuleInfo{"occupancy-past-plateau", Priority::Low, Category::Configuration, "[BPG] 4.4, 4.5",
             "occupancy past the plateau: resources could buy more work per thread (the calculator's note)", true},
    RuleInfo{"block-register-banks", Priority::Low, Category::Configuration, "[BPG] 3.2.6",
             "blocks not a multiple of 64 threads on compute capability 1.x (register bank conflicts)", true},
    RuleInfo{"block-size-range", Priority::Low, Category::Configuration, "[BPG] 4.4",
             "blocks outside the recommended 128-256 threads to start from (the calculator's note)", true},
    RuleInfo{"single-block-per-sm", Priority::Low, Category::Configuration, "[BPG] 4.4",
             "one block per SM: nothing else runs while it waits at a barrier", true},
    RuleInfo{"grid-does-not-fill-gpu", Priority::Low, Category::Configuration, "[BPG] 4.4",
             "fewer blocks than the GPU holds at the computed occupancy", true},
    RuleInfo{"child-grids-too-small", Priority::Medium, Category::Configuration, "[Kepler] 1.4.2.3",
             "grids launched from the device too small to fill the GPU and shorter than their launch", true},
    RuleInfo{"launch-per-thread", Priority::Medium, Category::Configuration, "[Kepler] 1.4.2.3",
             "several threads of a block each launch a grid where one launch per block would do", true},
    RuleInfo{"recursion-too-deep", Priority::Low, Category::Configuration, "[Kepler] 1.4.2.3",
             "a recursion of device launches whose last level does less work than its launches cost", true},
    RuleInfo{"kepler-ilp", Priority::Low, Category::Configuration, "[Kepler] 1.4.1",
             "the hot code of a compute- or latency-bound Kepler launch has little instruction-level parallelism",
             true},
    RuleInfo{"fp64-in-fp32", Priority::Low, Category::Instructions, "[BPG] 5.1.3, A.4",
             "double-precision constants or math in single-precision code", false},
    RuleInfo{"int-div-mod", Priority::Low, Category::Instructions, "[BPG] 5.1.1, A.4",
             "integer division or modulo by a run-time divisor", false},
    RuleInfo{"rsqrt", Priority::Low, Category::Instructions, "[BPG] 5.1.2", "1/sqrt(x) where rsqrt(x) would do", false},
    RuleInfo{"unfused-multiply-add", Priority::High, Category::Instructions, "[BPG] 5, A.2",
             "a multiply and an add of its product the compiler was not allowed to fuse into one fma", false},
    RuleInfo{"full-precision-math", Priority::Medium, Category::Instructions, "[BPG] 5.1.4, A.3",
             "full-precision math functions where intrinsics would do", false},
    RuleInfo{"mul24", Priority::Low, Category::Instructions, "[BPG] 5.1",
             "32-bit integer multiply where 24-bit is faster (CC 1.x), or 24-bit where it is slower", false},
    RuleInfo{"fp64-heavy", Priority::Medium, Category::Instructions, "[Kepler] 1.4.5.1",
             "double-precision arithmetic on a GPU with low fp64 throughput", false},
    RuleInfo{"race-hazard", Priority::High, Category::Correctness, "[Kepler] 1.4.9; [BPG] 3.2.2",
             "racecheck: accesses of different threads to the same bytes, not ordered by a barrier", true},
    RuleInfo{"sync-hazard", Priority::High, Category::Correctness, "[BPG] 4.4, 6.1; [Kepler] 1.4.9",
             "synccheck: a barrier or warp-synchronous instruction used by the wrong threads", true},
    RuleInfo{"uninitialized-read", Priority::High, Category::Correctness, "[BPG] 3.1, 3.2.2",
             "initcheck: memory read before anything wrote it", true},
    RuleInfo{"memory-leak", Priority::Medium, Category::Correctness, "[BPG] 3.2",
             "leakcheck: device-heap blocks never freed", true},
    RuleInfo{"invalid-memory-access", Priority::High, Category::Correctness, "[BPG] 3.2",
             "memcheck: an access outside every allocation, misaligned, or to freed memory", true},
    RuleInfo{"abi-violation", Priority::High, Category::Correctness, "[Interop] 1-3",
             "the module breaks the PTX interoperability guide's ABI (parameter types, calls, system calls)", false},
    RuleInfo{"divergent-branch", Priority::High, Category::ControlFlow, "[BPG] 6.1, A.2; [Kepler] 1.2",
             "branches that split warps", true},
    RuleInfo{"low-warp-efficiency", Priority::Medium, Category::ControlFlow, "[BPG] 6.1",
             "warp instructions run with few active threads", true},
    RuleInfo{"branch-predication", Priority::Low, Category::ControlFlow, "[BPG] 6.2, A.4",
             "short divergent branches the compiler could predicate", true},
};

constexpr std::array kThresholds = {
    ThresholdInfo{"min-line-share", &Thresholds::minLineShare,
                  "lines below this share of the launch's transactions (or instructions) are not reported"},
    ThresholdInfo{"uncoalesced-ratio", &Thresholds::uncoalescedRatio,
                  "global transactions over the ideal count for the same bytes"},
    ThresholdInfo{"redundancy-factor", &Thresholds::redundancyFactor,
                  "sector requests of a load per distinct sector it touched within a block"},
    ThresholdInfo{"bank-conflict-ratio", &Thresholds::bankConflictRatio, "shared wavefronts over the ideal count"},
    ThresholdInfo{"constant-serialization", &Thresholds::constantSerialization, "constant transactions per request"},
    ThresholdInfo{"atomic-contention", &Thresholds::atomicContention,
                  "share of the launch's estimated time its global atomics spend one after another in L2"},
    ThresholdInfo{"local-share", &Thresholds::localShare, "local transactions over all global and local transactions"},
    ThresholdInfo{"divergent-branch-share", &Thresholds::divergentBranchShare,
                  "divergent executions over all executions of a branch"},
    ThresholdInfo{"divergence-min-gain", &Thresholds::divergenceMinGain,
                  "with a launch, divergent branches whose paths packed into full warps would save less than this "
                  "share of the time stay silent"},
    ThresholdInfo{"warp-efficiency", &Thresholds::warpEfficiency, "active threads over 32 per warp instruction"},
    ThresholdInfo{"occupancy-plateau", &Thresholds::occupancyPlateau,
                  "theoretical occupancy past which no gain is expected ([BPG] 4.4)"},
    ThresholdInfo{"min-block-threads", &Thresholds::minBlockThreads,
                  "threads per block below which blocks are too "
                  "small ([BPG] 4.4)"},
    ThresholdInfo{"recommended-block-min", &Thresholds::recommendedBlockMin,
                  "the recommended starting range of threads per block begins here ([BPG] 4.4)"},
    ThresholdInfo{"recommended-block-max", &Thresholds::recommendedBlockMax, "and ends here ([BPG] 4.4)"},
    ThresholdInfo{"grid-blocks-to-scale", &Thresholds::gridBlocksToScale,
                  "blocks per launch below which a grid will not fill larger GPUs ([BPG] 4.4)"},
    ThresholdInfo{"tail-wave-share", &Thresholds::tailWaveShare, "last wave's blocks over a full wave's"},
    ThresholdInfo{"tail-wave-idle", &Thresholds::tailWaveIdle,
                  "share of the launch's SM time the tail must leave idle to be reported"},
    ThresholdInfo{"kepler-ilp", &Thresholds::keplerIlp,
                  "instructions per dependency step below which Kepler's dual issue goes unused ([Kepler] 1.4.1)"},
    ThresholdInfo{"fp64-share", &Thresholds::fp64Share, "fp64 warp instructions over all, on slow-fp64 GPUs"},
    ThresholdInfo{"instruction-share", &Thresholds::instructionShare,
                  "instruction findings ignore lines below this share of the warp instructions"},
    ThresholdInfo{"instruction-min-gain", &Thresholds::instructionMinGain,
                  "with a launch, instruction findings whose estimated gain is below this share are dropped"},
    ThresholdInfo{"min-gain", &Thresholds::minGainFraction,
                  "findings whose estimated gain is below this share of the launch time are dropped"},
};

} // namespace

std::span<const RuleInfo> rules() {
  return kRules;
}

const RuleInfo *findRule(std::string_view id) {
  for (const RuleInfo &r : kRules)
    if (r.id == id)
      return &r;
  return nullptr;
}

const RuleInfo &catalogued(std::string_view id) {
  if (const RuleInfo *info = findRule(id))
    return *info;
  // A rule that makes findings must be in the catalogue: its priority, category and guide section
  // come from there (a misspelled id would otherwise rank silently last).
  throw std::logic_error(fmt::format("advisor: rule '{}' is not in the catalogue", id));
}

std::span<const ThresholdInfo> thresholdInfos() {
  return kThresholds;
}

std::string bytes(double b) {
  if (b >= 1024.0 * 1024 * 1024)
    return fmt::format("{:.2f} GiB", b / (1024.0 * 1024 * 1024));
  if (b >= 1024.0 * 1024)
    return fmt::format("{:.2f} MiB", b / (1024.0 * 1024));
  if (b >= 1024.0)
    return fmt::format("{:.1f} KiB", b / 1024.0);
  return fmt::format("{:.0f} B", b);
}

std::string percent(double fraction) {
  return fmt::format("{:.1f}%", fraction * 100);
}

// ---------------------------------------------------------------------------------------------

RuleContext::RuleContext(const AnalysisInput &in, const AdvisorOptions &o)
    : input(in), options(o), t(o.thresholds), cc(*in.target.computeCapability), launch(in.launch),
      words(vocabularyFor(in.module ? sourceLanguageOf(*in.module) : SourceLanguage::Cuda)) {
  if (launch)
    lines = model::lineProfiles(*launch);
  if (!in.module)
    return;
  const ptx::Module &m = *in.module;
  lineTable.emplace(m);
  for (const ptx::Function &f : m.functions)
    if (f.name == in.kernel)
      kernel = &f;
  if (kernel)
    functions.push_back(kernel);
  for (size_t i = 0; i < functions.size(); ++i)
    for (const ptx::Instruction &inst : functions[i]->instructions) {
      if (inst.opcode != ptx::Opcode::call)
        continue;
      for (const ptx::Operand &op : functions[i]->operandsOf(inst)) {
        if (op.kind == ptx::OperandKind::List)
          continue; // the return list
        if (op.kind == ptx::OperandKind::Symbol && op.id < m.symbols.size() &&
            m.symbols[op.id].kind == ptx::SymbolKind::Function && m.symbols[op.id].index < m.functions.size()) {
          const ptx::Function *g = &m.functions[m.symbols[op.id].index];
          if (std::find(functions.begin(), functions.end(), g) == functions.end())
            functions.push_back(g);
        }
        break; // the callee; a register callee (indirect call) is not followed
      }
    }
  if (launch) {
    for (const model::InstructionProfile &p : launch->instructions)
      sites.push_back({&m.functions[p.function], p.instruction, &p, p.counters.warpExecuted});
  } else {
    for (const ptx::Function *f : functions)
      for (uint32_t i = 0; i < f->instructions.size(); ++i)
        sites.push_back({f, i, nullptr, 1});
  }
}

std::pair<std::string, uint32_t> RuleContext::sourceOf(const Site &site) const {
  if (site.profile)
    return {site.profile->sourceFile, site.profile->sourceLine};
  auto chain = lineTable->chain(site.instruction());
  if (chain.empty())
    return {"", 0};
  return {std::string(chain[0].file), chain[0].line};
}

SourceRef RuleContext::ref(const Site &site, std::string evidence, double weight) const {
  if (site.profile)
    return ref(*site.profile, std::move(evidence), weight);
  SourceRef r;
  std::tie(r.file, r.line) = sourceOf(site);
  const ptx::Instruction &inst = site.instruction();
  r.ptxLocation = input.module->sources.position(inst.loc);
  r.ptxText = std::string(input.module->sources.trimmedLineText(inst.loc));
  r.evidence = std::move(evidence);
  r.weight = weight;
  return r;
}

Finding findingOf(std::string_view rule) {
  const RuleInfo &info = catalogued(rule);
  Finding f;
  f.rule = std::string(rule);
  f.priority = info.priority;
  f.category = info.category;
  f.guide = std::string(info.guide);
  return f;
}

Finding RuleContext::make(std::string_view rule) const {
  return findingOf(rule);
}

double RuleContext::gain(const std::function<void(model::TimeInputs &)> &change) const {
  if (!launch)
    return 0;
  model::TimeInputs in = launch->timeInputs;
  change(in);
  const double after = model::estimateTime(input.target, in).seconds;
  return std::max(0.0, launch->time.seconds - after);
}

void RuleContext::setGain(Finding &f, double seconds) const {
  f.gainSeconds = seconds;
  f.gainFraction = launch && launch->seconds() > 0 ? seconds / launch->seconds() : 0;
}

const ptx::Function &RuleContext::function(const model::InstructionProfile &p) const {
  return input.module->functions[p.function];
}

const ptx::Instruction &RuleContext::instruction(const model::InstructionProfile &p) const {
  return function(p).instructions[p.instruction];
}

SourceRef RuleContext::ref(const model::InstructionProfile &p, std::string evidence, double weight) const {
  SourceRef r;
  r.file = p.sourceFile;
  r.line = p.sourceLine;
  r.ptxLocation = p.ptxLocation;
  r.ptxText = p.ptxText;
  r.evidence = std::move(evidence);
  r.weight = weight;
  return r;
}

SourceRef RuleContext::ref(const model::LineProfile &line, std::string evidence, double weight,
                           const std::function<uint64_t(const model::InstructionCounters &)> &key) const {
  SourceRef r;
  const model::InstructionProfile *chosen = line.instructions.empty() ? nullptr : line.instructions.front();
  if (key) {
    uint64_t best = 0;
    for (const model::InstructionProfile *p : line.instructions)
      if (uint64_t k = key(p->counters); k > best) {
        best = k;
        chosen = p;
      }
  }
  if (chosen)
    r = ref(*chosen, {}, weight);
  r.file = line.file;
  r.line = line.line;
  r.evidence = std::move(evidence);
  r.weight = weight;
  return r;
}

void RuleContext::trim(std::vector<SourceRef> &refs) const {
  std::stable_sort(refs.begin(), refs.end(),
                   [](const SourceRef &a, const SourceRef &b) { return a.weight > b.weight; });
  if (refs.size() > options.maxLinesPerFinding)
    refs.resize(options.maxLinesPerFinding);
}

double RuleContext::warpInstructions() const {
  return launch ? std::max<double>(1, static_cast<double>(launch->total.warpExecuted)) : 1;
}

// ---------------------------------------------------------------------------------------------

std::vector<Finding> advise(const AnalysisInput &input, const AdvisorOptions &options) {
  for (const std::vector<std::string> *list : {&options.only, &options.ignore})
    for (const std::string &id : *list)
      if (!findRule(id))
        throw std::invalid_argument(fmt::format("unknown rule '{}' (ptxray analyze --list-rules shows them)", id));
  RuleContext ctx(input, options);
  std::vector<Finding> all;
  memoryRules(ctx, all);
  configurationRules(ctx, all);
  instructionRules(ctx, all);
  controlFlowRules(ctx, all);
  launchTreeRules(ctx, all);
  abiRules(ctx, all);
  for (Finding &f : correctnessFindings(input.hazards, ctx.words.language))
    all.push_back(std::move(f));

  auto listed = [](const std::vector<std::string> &list, const std::string &id) {
    return std::find(list.begin(), list.end(), id) != list.end();
  };
  std::vector<Finding> kept;
  for (Finding &f : all) {
    if (!options.only.empty() && !listed(options.only, f.rule))
      continue;
    if (listed(options.ignore, f.rule))
      continue;
    if (options.thresholds.minGainFraction > 0 && f.gainFraction < options.thresholds.minGainFraction)
      continue;
    // An instruction-level change the time model expects nothing from is noise next to the rest
    // ([BPG] chapter 5: "after all higher-level optimizations").
    if (input.launch && input.launch->time.seconds > 0 && f.category == Category::Instructions &&
        f.gainFraction < options.thresholds.instructionMinGain)
      continue;
    kept.push_back(std::move(f));
  }
  rankFindings(kept);
  return kept;
}

void rankFindings(std::vector<Finding> &findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding &a, const Finding &b) {
    if (a.priority != b.priority)
      return a.priority < b.priority;
    // A wrong result comes before a slow one of the same priority.
    const bool aCorrectness = a.category == Category::Correctness, bCorrectness = b.category == Category::Correctness;
    if (aCorrectness != bCorrectness)
      return aCorrectness;
    if (a.gainSeconds != b.gainSeconds)
      return a.gainSeconds > b.gainSeconds;
    return a.rule < b.rule;
  });
}

std::vector<Finding> correctnessFindings(const std::vector<CorrectnessReport> &reports, SourceLanguage language) {
  const Vocabulary &words = vocabularyFor(language);
  std::vector<Finding> out;
  for (const CorrectnessReport &r : reports) {
    Finding f;
    f.rule = r.rule;
    const RuleInfo &info = catalogued(r.rule);
    f.category = Category::Correctness;
    f.guide = std::string(info.guide);
    f.priority = !r.error ? Priority::Medium : info.priority;
    f.title = r.headline;
    for (std::string d : r.details) {
      while (!d.empty() && (d.back() == ';' || d.back() == ' '))
        d.pop_back(); // a PTX statement's own semicolon, before the separator
      if (!f.evidence.empty())
        f.evidence += "; ";
      f.evidence += d;
    }
    f.evidence += fmt::format(" ({} occurrence{}{}).", r.occurrences, r.occurrences == 1 ? "" : "s",
                              r.error ? "" : "; a warning on this GPU");
    if (r.rule == "race-hazard")
      f.fix = words.opencl()
                  ? fmt::format("Order the two accesses: {} between a write and another work-item's read (or "
                                "atomics when both update), also between work-items of one warp: since Volta the "
                                "lanes of a warp do not run in lock-step, so volatile alone is no longer enough "
                                "([Kepler] 1.4.9).",
                                words.barrier)
                  : "Order the two accesses: __syncthreads() between a write and another warp's read (or atomics "
                    "when both update); inside a warp __syncwarp() between dependent steps, or the .sync "
                    "intrinsics (__shfl_sync) instead of shared memory. Since Volta the lanes of a warp do not run "
                    "in lock-step, so volatile alone is no longer enough ([Kepler] 1.4.9).";
    else if (r.rule == "sync-hazard")
      f.fix = fmt::format("Let every thread of the block reach each {} (no barrier under a thread-dependent "
                          "condition or after an early return){}",
                          words.barrier,
                          words.opencl() ? "."
                                         : ", and give warp intrinsics a member mask naming exactly the lanes that "
                                           "execute them; shuffle only from lanes inside the mask.");
    else if (r.rule == "uninitialized-read")
      f.fix = words.opencl()
                  ? "Write the memory before reading it: initialise the buffer from the host (clEnqueueWriteBuffer, "
                    "clEnqueueFillBuffer, CL_MEM_COPY_HOST_PTR), or have every element of a __local tile stored "
                    "before the barrier that precedes its reads."
                  : "Write the memory before reading it: initialise the buffer from the host (cudaMemset, "
                    "cudaMemcpy), or have every element of a shared tile stored before the barrier that precedes "
                    "its reads.";
    else if (r.rule == "invalid-memory-access")
      f.fix = words.opencl()
                  ? "Keep every access inside its buffer: guard the index with the data's size (an NDRange rounded "
                    "up to the work-group size has work-items past the end), size the buffer for the whole NDRange, "
                    "and align vector accesses to their size."
                  : "Keep every access inside its allocation: guard the index with the data's size (a grid rounded "
                    "up to the block size has threads past the end), size the allocation for the whole grid, align "
                    "vector accesses to their size, and do not use memory after cudaFree.";
    else
      f.fix = "free() every block device-side malloc() returns before the kernels that use it are done, or "
              "allocate from the host with cudaMalloc.";
    f.lines = r.lines;
    for (SourceRef &l : f.lines)
      l.weight = 1;
    out.push_back(std::move(f));
  }
  return out;
}

} // namespace ptxray::advisor
