// Memory rules: coalescing, redundant loads, shared bank conflicts, constant serialization, local
// memory, the read-only data cache and Kepler's L1 opt-in ([BPG] chapter 3, [Kepler] 1.4.3-1.4.4).
#include "advisor/RuleContext.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ptxray::advisor {
namespace {

// Which instruction of a line a finding points at: the one carrying the most of what it is about.
uint64_t byGlobal(const model::InstructionCounters &c) {
  return c.globalTransactions;
}
uint64_t byShared(const model::InstructionCounters &c) {
  return c.sharedWavefronts;
}
uint64_t byConstant(const model::InstructionCounters &c) {
  return c.constantTransactions;
}
uint64_t byLocal(const model::InstructionCounters &c) {
  return c.localTransactions;
}

double d(uint64_t v) {
  return static_cast<double>(v);
}

double ratio(uint64_t num, uint64_t den) {
  return den ? d(num) / d(den) : 0;
}

/// The smallest unit DRAM traffic comes in: an L2 sector, or before there was an L2 the smallest
/// transaction (the model's footprint granule).
uint64_t footprintGranule(const arch::ComputeCapability &cc) {
  if (cc.global.l2SectorBytes > 0)
    return static_cast<uint64_t>(cc.global.l2SectorBytes);
  if (cc.global.transactionBytes.empty())
    return 1;
  return static_cast<uint64_t>(*std::min_element(cc.global.transactionBytes.begin(), cc.global.transactionBytes.end()));
}

/// Bytes per thread of a memory instruction (type size x vector width).
uint32_t accessBytes(const ptx::Instruction &inst) {
  const uint32_t bits = ptx::typeInfo(inst.type()).bits;
  return std::max<uint32_t>(1, bits / 8) * std::max<uint32_t>(1, inst.vectorWidth);
}

std::string_view transactionUnit(const arch::ComputeCapability &cc) {
  return cc.global.requestPerInstruction ? "sectors" : "transactions";
}

enum class Pattern { Misaligned, Strided, Scattered };

/// The line's dominant access pattern, from the model's classification of each warp-level access.
Pattern patternOf(const model::InstructionCounters &c) {
  const uint64_t accesses = c.globalWarpAccesses;
  const uint64_t classified = c.globalStridedRequests + c.globalMisalignedRequests;
  if (c.globalStridedRequests * 2 > accesses)
    return Pattern::Strided;
  if (c.globalMisalignedRequests * 2 > accesses)
    return Pattern::Misaligned;
  if (classified * 2 > accesses)
    return c.globalStridedRequests >= c.globalMisalignedRequests ? Pattern::Strided : Pattern::Misaligned;
  return Pattern::Scattered;
}

void uncoalescedGlobal(const RuleContext &ctx, std::vector<Finding> &out) {
  const model::LaunchProfile &L = *ctx.launch;
  const uint64_t launchTransactions = L.total.globalTransactions;
  if (!launchTransactions)
    return;
  Finding f = ctx.make("uncoalesced-global");
  uint64_t transactions = 0, ideal = 0;
  double excessLoadBytes = 0, excessStoreBytes = 0;
  int patternVotes[3] = {0, 0, 0};
  for (const model::LineProfile &line : ctx.lines) {
    for (bool store : {false, true}) {
      const model::InstructionCounters &c = store ? line.inputs.stores : line.inputs.loads;
      if (!c.globalRequests || d(c.globalTransactions) < ctx.t.minLineShare * d(launchTransactions))
        continue;
      // Transactions over the ideal count, or bytes moved over the bytes the ideal transactions would
      // move: on CC 1.x a strided half-warp can take as many (larger) transactions as a coalesced one.
      // The ideal transactions move at least a granule each: a store by one thread of a warp (`if (tid
      // == 0) out[b] = v;`) moves a sector for its 4 bytes however it is written, and no fix gains.
      // (The transaction's size: a sector, or Fermi's and Kepler's 128-byte L1 lines; on CC 1.x, whose
      // transactions shrink to the bytes used, the smallest.)
      const uint64_t transactionBytes = ctx.cc.global.l2SectorBytes == 0 || !c.globalTransactions
                                            ? footprintGranule(ctx.cc)
                                            : c.globalBytesMoved / c.globalTransactions;
      const uint64_t idealBytes = std::max(c.globalBytesRequested, c.globalIdealTransactions * transactionBytes);
      const double r = std::max(ratio(c.globalTransactions, std::max<uint64_t>(c.globalIdealTransactions, 1)),
                                ratio(c.globalBytesMoved, idealBytes));
      if (r < ctx.t.uncoalescedRatio)
        continue;
      transactions += c.globalTransactions;
      ideal += c.globalIdealTransactions;
      const double excessBytes = d(c.globalBytesMoved) * (1 - 1 / r);
      (store ? excessStoreBytes : excessLoadBytes) += excessBytes;
      const Pattern p = patternOf(c);
      patternVotes[static_cast<int>(p)] += 1;
      std::string shape = p == Pattern::Strided ? "strided" : p == Pattern::Misaligned ? "misaligned" : "scattered";
      f.lines.push_back(
          ctx.ref(line,
                  fmt::format("{}: {:.1f} {} per request, ideal {:.1f}; {} of the bytes moved are used ({})",
                              store ? "stores" : "loads", ratio(c.globalTransactions, c.globalRequests),
                              transactionUnit(ctx.cc), ratio(c.globalIdealTransactions, c.globalRequests),
                              percent(ratio(c.globalBytesRequested, c.globalBytesMoved)), shape),
                  excessBytes, byGlobal));
    }
  }
  if (f.lines.empty())
    return;
  const double wasted = excessLoadBytes + excessStoreBytes;
  f.title = fmt::format("Uncoalesced global memory accesses: {:.1f}x the {} the bytes need", ratio(transactions, ideal),
                        transactionUnit(ctx.cc));
  f.evidence = fmt::format("{} lines issue {} {} where {} would carry the same bytes; {} of the {} moved are wasted "
                           "(load efficiency {}, store efficiency {} for the launch).",
                           f.lines.size(), transactions, transactionUnit(ctx.cc), ideal, bytes(wasted),
                           bytes(d(L.total.globalBytesMoved)),
                           percent(ratio(L.total.globalBytesRequested, L.total.globalBytesMoved)),
                           percent(ratio(L.total.globalBytesRequested, L.total.globalBytesMoved)));
  // The load and store efficiencies of the launch, separately.
  uint64_t ldReq = 0, ldMoved = 0, stReq = 0, stMoved = 0;
  for (const model::LineProfile &line : ctx.lines) {
    ldReq += line.inputs.loads.globalBytesRequested;
    ldMoved += line.inputs.loads.globalBytesMoved;
    stReq += line.inputs.stores.globalBytesRequested;
    stMoved += line.inputs.stores.globalBytesMoved;
  }
  f.evidence =
      fmt::format("{} line{} issue{} {} {} where {} would carry the same bytes: {} of the {} moved are "
                  "wasted (global load efficiency {}, store efficiency {}).",
                  f.lines.size(), f.lines.size() == 1 ? "" : "s", f.lines.size() == 1 ? "s" : "", transactions,
                  transactionUnit(ctx.cc), ideal, bytes(wasted), bytes(d(L.total.globalBytesMoved)),
                  ldMoved ? percent(ratio(ldReq, ldMoved)) : "n/a", stMoved ? percent(ratio(stReq, stMoved)) : "n/a");
  const int top = static_cast<int>(std::max_element(patternVotes, patternVotes + 3) - patternVotes);
  switch (static_cast<Pattern>(top)) {
  case Pattern::Strided:
    f.fix = fmt::format("Make consecutive threads access consecutive words: let {} index the fastest-varying "
                        "dimension, use a structure of arrays instead of an array of structures, or read a tile "
                        "coalesced into {} memory and access it strided there ([BPG] 3.2.1.4, 3.2.2.3).",
                        ctx.words.localIdX, ctx.words.opencl() ? "__local" : "shared");
    break;
  case Pattern::Misaligned:
    f.fix = "Align each warp's first address to the segment size: keep array offsets a multiple of 32 "
            "elements, and pad 2D rows to a multiple of the segment (cudaMallocPitch) ([BPG] 3.2.1.2-3.2.1.3).";
    break;
  case Pattern::Scattered:
    f.fix = "Reorder the data or the indices so that neighbouring threads touch neighbouring addresses, or "
            "gather through shared memory (or the read-only/texture path, which is less sensitive to "
            "scattered addresses) ([BPG] 3.2.1, 3.2.4).";
    break;
  }
  // What if the wasted bytes were not moved: less traffic, and a footprint shrunk in proportion.
  const double loadMoved = std::max(1.0, d(ldMoved)), storeMoved = std::max(1.0, d(stMoved));
  ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) {
    const double keptShare = 1 - std::min(1.0, wasted / std::max(1.0, d(in.bytesMoved)));
    in.bytesMoved -= std::min<uint64_t>(in.bytesMoved, static_cast<uint64_t>(wasted));
    in.readFootprintBytes = static_cast<uint64_t>(d(in.readFootprintBytes) * (1 - excessLoadBytes / loadMoved));
    in.writeFootprintBytes = static_cast<uint64_t>(d(in.writeFootprintBytes) * (1 - excessStoreBytes / storeMoved));
    // What coalescing also removes: L1 lookups of extra lines, DRAM units read for one sector, fills
    // of sectors stored in part (in proportion to the traffic kept).
    in.l1LineReplays = static_cast<uint64_t>(d(in.l1LineReplays) * keptShare);
    in.dramReadUnitExtraBytes = static_cast<uint64_t>(d(in.dramReadUnitExtraBytes) * keptShare);
    in.partialWriteFillBytes = static_cast<uint64_t>(d(in.partialWriteFillBytes) * keptShare);
  }));
  ctx.trim(f.lines);
  out.push_back(std::move(f));
}

void redundantGlobalLoads(const RuleContext &ctx, std::vector<Finding> &out) {
  const model::LaunchProfile &L = *ctx.launch;
  const uint64_t granule = footprintGranule(ctx.cc);
  Finding f = ctx.make("redundant-global-loads");
  double redundantBytes = 0, redundantRequests = 0, moved = 0, distinct = 0;
  for (const model::LineProfile &line : ctx.lines) {
    const model::InstructionCounters &c = line.inputs.loads;
    if (!c.globalCtaDistinctSectors || d(c.globalTransactions) < ctx.t.minLineShare * d(L.total.globalTransactions))
      continue;
    const double distinctBytes = d(c.globalCtaDistinctSectors) * d(granule);
    const double factor = d(c.globalBytesMoved) / distinctBytes;
    if (factor < ctx.t.redundancyFactor)
      continue;
    redundantBytes += d(c.globalBytesMoved) - distinctBytes;
    redundantRequests += d(c.globalRequests) * (1 - 1 / factor);
    moved += d(c.globalBytesMoved);
    distinct += distinctBytes;
    f.lines.push_back(ctx.ref(line,
                              fmt::format("each byte this line loads is fetched {:.1f} times per block ({} moved, "
                                          "{} distinct per block)",
                                          factor, bytes(d(c.globalBytesMoved)), bytes(distinctBytes)),
                              d(c.globalBytesMoved) - distinctBytes, byGlobal));
  }
  if (f.lines.empty())
    return;
  f.title =
      fmt::format("Redundant global loads: the threads of a block fetch the same data {:.1f} times", moved / distinct);
  f.evidence = fmt::format("{} of global loads where {} of distinct data per block would do ({} redundant).",
                           bytes(moved), bytes(distinct), bytes(redundantBytes));
  f.fix = fmt::format("Load each block's data into {0} memory once, with coalesced accesses by all its threads, "
                      "{1}, then read it from {0} memory (the tiled pattern of [BPG] 3.2.2.2, Listings 3.8-3.9).",
                      ctx.words.opencl() ? "__local" : "shared", ctx.words.barrier);
  ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) {
    in.bytesMoved -= std::min<uint64_t>(in.bytesMoved, static_cast<uint64_t>(redundantBytes));
    in.memoryRequests -= std::min<uint64_t>(in.memoryRequests, static_cast<uint64_t>(redundantRequests));
  }));
  ctx.trim(f.lines);
  out.push_back(std::move(f));
}

/// The fix for a line's bank conflicts, from the stride its conflicting requests' lanes are apart
/// (model::InstructionCounters::sharedConflictStride*): one stride of an even number of words is a
/// column read of rows that length (pad the rows by a word); a stride that changes from one execution
/// to the next is an interleaved tree (sequential addressing).
std::string bankConflictFix(const RuleContext &ctx, const model::InstructionCounters &c, int bankWidth) {
  const int banks = ctx.cc.sharedBanks.banks;
  const char *guide = "([BPG] 3.2.2.1, 3.2.2.3)";
  if (c.sharedConflictStridedRequests > 0 && bankWidth > 0) {
    const double n = d(c.sharedConflictStridedRequests);
    const double mean = d(c.sharedConflictStrideBytes) / n;
    const double variance = std::max(0.0, d(c.sharedConflictStrideBytesSquared) / n - mean * mean);
    if (variance > 0.01 * mean * mean)
      return fmt::format("The distance between neighbouring threads' words changes from one pass to the next (about "
                         "{:.0f} bytes on average), as in a tree reduction indexing {}[2 * s * {}]: give every pass "
                         "consecutive words instead (sequential addressing: {}[{}] += {}[{} + s] with s halving), "
                         "which is conflict-free in every pass {}.",
                         mean, "sdata", ctx.words.localIdX, "sdata", ctx.words.localIdX, "sdata", ctx.words.localIdX,
                         guide);
    const auto stride = static_cast<uint64_t>(std::llround(mean));
    if (stride % static_cast<uint64_t>(bankWidth) == 0) {
      const uint64_t words = stride / static_cast<uint64_t>(bankWidth);
      if (words % 2 == 0) {
        return fmt::format("Neighbouring threads touch words {0} apart, so the threads of a warp crowd into {1} of "
                           "the {2} banks: pad each row by one word so that the stride is odd ({0}-word rows become "
                           "{3}, e.g. [..][{0}] becomes [..][{3}]), or index the array so that consecutive threads "
                           "touch consecutive words {4}.",
                           words, static_cast<uint64_t>(banks) / std::gcd(words, static_cast<uint64_t>(banks)), banks,
                           words + 1, guide);
      }
    }
  }
  return fmt::format("Make the words a warp touches fall in different banks ({} banks of {} bytes): index the array "
                     "so that consecutive threads touch consecutive words, or pad rows so that the distance between "
                     "neighbouring threads is an odd number of words {}.",
                     banks, bankWidth, guide);
}

void sharedBankConflicts(const RuleContext &ctx, std::vector<Finding> &out) {
  const model::LaunchProfile &L = *ctx.launch;
  if (!L.total.sharedWavefronts)
    return;
  Finding f = ctx.make("shared-bank-conflicts");
  uint64_t wavefronts = 0, ideal = 0;
  double modeExcess = 0;                             // wavefronts Kepler's 8-byte mode would save on 64-bit accesses
  const model::InstructionCounters *worst = nullptr; // the line with the most conflict wavefronts
  double worstExcess = 0;
  const int bankWidth =
      ctx.input.modelOptions.bankWidthBytes ? ctx.input.modelOptions.bankWidthBytes : ctx.cc.sharedBanks.bankWidthBytes;
  const auto &widths = ctx.cc.sharedBanks.selectableBankWidthsBytes;
  const bool eightByteMode = bankWidth == 4 && std::find(widths.begin(), widths.end(), 8) != widths.end();
  for (const model::LineProfile &line : ctx.lines) {
    const model::InstructionCounters &c = line.inputs.all;
    if (!c.sharedRequests || d(c.sharedWavefronts) < ctx.t.minLineShare * d(L.total.sharedWavefronts))
      continue;
    const double r = ratio(c.sharedWavefronts, std::max<uint64_t>(c.sharedIdealWavefronts, 1));
    // [Kepler] 1.4.3.1: in 8-byte mode a warp's 64-bit accesses take half the passes of 4-byte mode.
    double lineModeExcess = 0;
    if (eightByteMode)
      for (const model::InstructionProfile *p : line.instructions)
        if (p->counters.sharedRequests && accessBytes(ctx.instruction(*p)) == 8)
          lineModeExcess += d(p->counters.sharedWavefronts) / 2;
    if (r < ctx.t.bankConflictRatio && lineModeExcess < ctx.t.minLineShare * d(L.total.sharedWavefronts))
      continue;
    wavefronts += c.sharedWavefronts;
    ideal += c.sharedIdealWavefronts;
    modeExcess += lineModeExcess;
    if (const double excess = d(c.sharedWavefronts - c.sharedIdealWavefronts); excess > worstExcess) {
      worstExcess = excess;
      worst = &c;
    }
    std::string evidence =
        fmt::format("{:.1f}-way: {:.1f} wavefronts per request, ideal {:.1f}", r,
                    ratio(c.sharedWavefronts, c.sharedRequests), ratio(c.sharedIdealWavefronts, c.sharedRequests));
    if (lineModeExcess > 0)
      evidence += "; 64-bit accesses: the 8-byte bank mode halves their wavefronts";
    f.lines.push_back(
        ctx.ref(line, evidence, d(c.sharedWavefronts - c.sharedIdealWavefronts) + lineModeExcess, byShared));
  }
  if (f.lines.empty())
    return;
  const bool conflicts = wavefronts > ideal;
  f.title = conflicts ? fmt::format("Shared-memory bank conflicts: {:.1f}x the wavefronts the accesses need",
                                    ratio(wavefronts, ideal))
                      : "64-bit shared-memory accesses in the 4-byte bank mode: half the bandwidth Kepler offers";
  f.evidence = fmt::format(
      "{} shared-memory wavefronts where {} would do in this bank mode{}: each extra one replays "
      "the instruction (shared efficiency {} for the launch).",
      wavefronts, ideal, modeExcess > 0 ? fmt::format(", and about {:.0f} fewer in the 8-byte mode", modeExcess) : "",
      percent(ratio(L.total.sharedIdealWavefronts, std::max<uint64_t>(L.total.sharedWavefronts, 1))));
  if (conflicts)
    f.fix = bankConflictFix(ctx, worst ? *worst : L.total, bankWidth);
  if (modeExcess > 0)
    f.fix += std::string(conflicts ? " " : "") +
             (ctx.words.opencl()
                  ? "For the 64-bit accesses, Kepler's 8-byte bank mode would serve a warp's doubles in half the "
                    "passes, but OpenCL has no call that selects it: split them into two 32-bit halves stored "
                    "apart ([Kepler] 1.4.3.1; --bank-mode 8 models the mode)."
                  : "For the 64-bit accesses, Kepler's 8-byte bank mode serves a warp's doubles in half the passes: "
                    "cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte) ([Kepler] 1.4.3.1; model it with "
                    "--bank-mode 8).");
  const uint64_t excess = wavefronts - ideal + static_cast<uint64_t>(modeExcess);
  ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) { in.replays -= std::min(in.replays, excess); }));
  ctx.trim(f.lines);
  out.push_back(std::move(f));
}

void constantDivergent(const RuleContext &ctx, std::vector<Finding> &out) {
  const model::LaunchProfile &L = *ctx.launch;
  if (!L.total.constantRequests)
    return;
  Finding f = ctx.make("constant-divergent");
  uint64_t transactions = 0, requests = 0;
  for (const model::LineProfile &line : ctx.lines) {
    const model::InstructionCounters &c = line.inputs.all;
    if (!c.constantRequests)
      continue;
    const double r = ratio(c.constantTransactions, c.constantRequests);
    if (r < ctx.t.constantSerialization)
      continue;
    transactions += c.constantTransactions;
    requests += c.constantRequests;
    f.lines.push_back(ctx.ref(line, fmt::format("{:.1f} distinct addresses per request: served one after another", r),
                              d(c.constantTransactions - c.constantRequests), byConstant));
  }
  if (f.lines.empty())
    return;
  f.title = fmt::format("Constant memory read at divergent addresses: {:.1f} serialized reads per request",
                        ratio(transactions, requests));
  f.evidence = fmt::format("{} constant-cache reads for {} requests: the constant cache serves one address per "
                           "request at a time.",
                           transactions, requests);
  f.fix =
      ctx.cc.global.readOnlyDataCache
          ? fmt::format("Keep {} for values every thread of a warp reads at once; load data indexed by "
                        "thread through the read-only data cache instead ({}) ([Kepler] 1.4.4.3).",
                        ctx.words.opencl() ? "__constant" : "__constant__",
                        ctx.words.opencl() ? "__global const T *restrict pointers"
                                           : "const __restrict__ "
                                             "pointers or __ldg")
          : fmt::format("Keep {} for values every thread of a warp reads at once; put data indexed by thread "
                        "in global memory with coalesced accesses, or in {} memory ([BPG] 3.2.5).",
                        ctx.words.opencl() ? "__constant" : "__constant__", ctx.words.opencl() ? "__local" : "shared");
  const uint64_t excess = transactions - requests;
  ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) { in.constantReplays -= std::min(in.constantReplays, excess); }));
  ctx.trim(f.lines);
  out.push_back(std::move(f));
}

// ---- atomic-contention -------------------------------------------------------------------------

/// Global atomics on few addresses: L2 performs them one after another in the unit that owns the
/// address (arch::Latencies::atomicSectorCycles, sameAddressAtomicCycles), so the launch lasts at
/// least that long whatever its occupancy.
void atomicContention(const RuleContext &ctx, std::vector<Finding> &out) {
  const model::LaunchProfile &L = *ctx.launch;
  const double seconds = L.time.clockHz > 0 ? L.timeInputs.hottestAtomicRegionCycles / L.time.clockHz : 0;
  if (seconds <= 0 || L.time.seconds <= 0 || seconds < ctx.t.atomicContention * L.time.seconds)
    return;
  Finding f = ctx.make("atomic-contention");
  for (const model::InstructionProfile &p : L.instructions)
    if (p.memory == model::MemoryKind::Atomic && p.counters.globalRequests)
      f.lines.push_back(
          ctx.ref(p, fmt::format("{} warp-level atomics", p.counters.globalRequests), d(p.counters.globalRequests)));
  if (f.lines.empty())
    return;
  f.title = fmt::format("Atomics contend for a few addresses: {:.0f}% of the launch is spent on them one after "
                        "another",
                        100 * seconds / L.time.seconds);
  f.evidence = fmt::format(
      "The busiest L2 atomic unit performs {:.0f} cycles of updates ({:.1f} us of the estimated {:.1f} us): "
      "each sector a warp updates costs one turn there, and each further lane on an address already updated "
      "by the warp another.",
      L.timeInputs.hottestAtomicRegionCycles, seconds * 1e6, L.time.seconds * 1e6);
  f.fix = ctx.words.opencl()
              ? "Combine before updating: reduce within the work-group in __local memory (or with "
                "work_group_reduce_add) and let one work-item per group do the global atomic_add; for histograms, "
                "keep a private histogram per work-group in __local memory and add it to the global one once "
                "([Kepler] 1.4.4.4)."
              : "Combine before updating: reduce a warp's values with __reduce_add_sync or __shfl_xor_sync and let "
                "one lane per warp do the atomicAdd (or per block through shared memory); for histograms, keep a "
                "per-block histogram in shared memory and add it to the global one once ([Kepler] 1.4.4.4).";
  // What if every warp combined its lanes first: a warp's updates to one address become one.
  ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) {
    in.hottestAtomicRegionCycles /= static_cast<double>(ctx.cc.warpSize > 0 ? ctx.cc.warpSize : 32);
  }));
  ctx.trim(f.lines);
  out.push_back(std::move(f));
}

void localMemory(const RuleContext &ctx, std::vector<Finding> &out) {
  Finding f = ctx.make("local-memory");
  const bool fixedRegisterLimit = ctx.cc.maxRegistersPerThread < 255;
  std::string registers =
      fixedRegisterLimit
          ? fmt::format(" This GPU gives a thread at most {} registers; GK110 and later allow 255, which removes "
                        "spills at the cost of occupancy ([Kepler] 1.4.4.1).",
                        ctx.cc.maxRegistersPerThread)
          : fmt::format(" Spills (from register pressure) show in ptxas -v as spill stores and loads: trade "
                        "occupancy for registers with {} ([Kepler] 1.4.4.1).",
                        ctx.words.opencl() ? "-cl-nv-maxrregcount" : "__launch_bounds__ or -maxrregcount");
  if (ctx.launch) {
    const model::LaunchProfile &L = *ctx.launch;
    const uint64_t all = L.total.localTransactions + L.total.globalTransactions;
    if (!L.total.localTransactions || d(L.total.localTransactions) < ctx.t.localShare * d(all))
      return;
    for (const model::LineProfile &line : ctx.lines) {
      const model::InstructionCounters &c = line.inputs.all;
      if (!c.localRequests)
        continue;
      f.lines.push_back(ctx.ref(line,
                                fmt::format("{} local {} ({} moved, {:.1f} per request)", c.localTransactions,
                                            transactionUnit(ctx.cc), bytes(d(c.localBytesMoved)),
                                            ratio(c.localTransactions, c.localRequests)),
                                d(c.localTransactions), byLocal));
    }
    f.title = fmt::format("Local-memory traffic: {} of the launch's memory transactions",
                          percent(ratio(L.total.localTransactions, all)));
    f.evidence = fmt::format("{} local {} move {}: local memory is off-chip, as slow as global memory "
                             "([BPG] 3.2.3).",
                             L.total.localTransactions, transactionUnit(ctx.cc), bytes(d(L.total.localBytesMoved)));
    const uint64_t requests = L.total.localRequests, moved = L.total.localBytesMoved;
    ctx.setGain(f, ctx.gain([&](model::TimeInputs &in) {
      in.memoryRequests -= std::min(in.memoryRequests, requests);
      in.bytesMoved -= std::min(in.bytesMoved, moved);
      auto &ls = in.warpInstructionsByClass[static_cast<int>(model::InstructionClass::LoadStore)];
      ls -= std::min(ls, requests);
    }));
  } else {
    for (const ptx::Function *fn : ctx.functions)
      for (const ptx::Instruction &inst : fn->instructions)
        if ((inst.opcode == ptx::Opcode::ld || inst.opcode == ptx::Opcode::st) &&
            inst.space == ptx::StateSpace::Local) {
          SourceRef r;
          r.ptxLocation = ctx.input.module->sources.position(inst.loc);
          r.ptxText = std::string(ctx.input.module->sources.trimmedLineText(inst.loc));
          r.evidence = "a local-memory access";
          r.weight = 1;
          f.lines.push_back(std::move(r));
        }
    if (f.lines.empty())
      return;
    f.title = fmt::format("Local memory: {} ld/st.local instructions", f.lines.size());
    f.evidence = "The kernel keeps per-thread data in local memory, which is off-chip and as slow as global "
                 "memory ([BPG] 3.2.3). Run it with a launch to see the traffic.";
  }
  f.fix = "A per-thread array indexed with a run-time value lives in local memory: index it with compile-time "
          "constants (fully unroll the loops over it with #pragma unroll) so it stays in registers, or keep it in "
          "shared memory." +
          registers;
  ctx.trim(f.lines);
  out.push_back(std::move(f));
}

void readOnlyCache(const RuleContext &ctx, std::vector<Finding> &out) {
  const model::LaunchProfile &L = *ctx.launch;
  if (!ctx.cc.global.readOnlyDataCache || ctx.cc.global.defaultLoadCaching == arch::GlobalLoadCaching::L1)
    return;
  // Only a launch that writes nothing it reads proves that its loads read read-only data; the guide
  // expects the gain in bandwidth-limited kernels (waiting on memory, not issuing instructions).
  if (L.readWriteOverlapBytes > 0 || L.time.dominant == model::Bound::Compute ||
      L.time.dominant == model::Bound::LaunchOverhead)
    return;
  Finding f = ctx.make("read-only-cache");
  uint64_t transactions = 0;
  for (const model::LineProfile &line : ctx.lines) {
    uint64_t lineTransactions = 0;
    for (const model::InstructionProfile *p : line.instructions) {
      const ptx::Instruction &inst = ctx.instruction(*p);
      if (p->memory != model::MemoryKind::Load || !p->counters.globalRequests || inst.opcode != ptx::Opcode::ld ||
          inst.has(ptx::Mod::nc))
        continue;
      lineTransactions += p->counters.globalTransactions;
    }
    if (!lineTransactions || d(lineTransactions) < ctx.t.minLineShare * d(L.total.globalTransactions))
      continue;
    transactions += lineTransactions;
    f.lines.push_back(ctx.ref(line,
                              fmt::format("{} {} loaded through L2 only", lineTransactions, transactionUnit(ctx.cc)),
                              d(lineTransactions), byGlobal));
  }
  if (f.lines.empty())
    return;
  f.title = "Read-only data loaded without the read-only data cache";
  f.evidence =
      fmt::format("No byte these loads read is written during the launch, yet their {} {} bypass the "
                  "read-only data cache ({} of global loads).",
                  transactions, transactionUnit(ctx.cc), percent(ratio(transactions, L.total.globalTransactions)));
  f.fix = ctx.words.opencl()
              ? "Declare the pointers __global const T *restrict (every pointer argument restrict, so the compiler "
                "can prove no aliasing): the loads become ld.global.nc and go through the read-only data cache, with "
                "its separate pipe and relaxed coalescing ([Kepler] 1.4.4.3)."
              : "Mark the pointers const and __restrict__ (every pointer argument, so the compiler can prove no "
                "aliasing) or load with __ldg(): the loads become ld.global.nc and go through the read-only data "
                "cache, with its separate pipe and relaxed coalescing ([Kepler] 1.4.4.3).";
  ctx.trim(f.lines);
  out.push_back(std::move(f));
}

void l1Caching(const RuleContext &ctx, std::vector<Finding> &out) {
  const model::LaunchProfile &L = *ctx.launch;
  const bool optIn = ctx.input.target.gpu ? ctx.input.target.gpu->l1CachingOptIn() : ctx.cc.global.l1CachingOptIn;
  if (!optIn || ctx.cc.global.defaultLoadCaching != arch::GlobalLoadCaching::L2Only)
    return;
  if (ctx.input.modelOptions.loadCaching == arch::GlobalLoadCaching::L1)
    return;
  const uint64_t granule = footprintGranule(ctx.cc);
  Finding f = ctx.make("l1-caching");
  for (const model::LineProfile &line : ctx.lines) {
    const model::InstructionCounters &c = line.inputs.loads;
    if (!c.globalCtaDistinctSectors || d(c.globalTransactions) < ctx.t.minLineShare * d(L.total.globalTransactions))
      continue;
    const double reuse = d(c.globalBytesMoved) / (d(c.globalCtaDistinctSectors) * d(granule));
    if (reuse < 2)
      continue;
    f.lines.push_back(ctx.ref(line, fmt::format("each loaded byte is fetched {:.1f} times per block", reuse),
                              d(c.globalBytesMoved), byGlobal));
  }
  if (f.lines.empty())
    return;
  f.title = "Global loads with reuse are cached in L2 only";
  f.evidence = fmt::format("{} caches global loads in L2 only by default but can cache them in L1, and these "
                           "loads fetch the same bytes several times per block.",
                           ctx.input.target.displayName());
  f.fix = ctx.words.opencl()
              ? "Stage the reused data in __local memory; caching global loads in L1 (what -Xptxas -dlcm=ca does for "
                "CUDA) has no OpenCL build option (--dlcm ca models it) ([Kepler] 1.4.4.2)."
              : "Compile with -Xptxas -dlcm=ca to cache global loads in L1 (model it with --dlcm ca and compare), or "
                "stage the reused data in shared memory ([Kepler] 1.4.4.2).";
  ctx.trim(f.lines);
  out.push_back(std::move(f));
}

} // namespace

void memoryRules(const RuleContext &ctx, std::vector<Finding> &out) {
  if (ctx.launch) {
    uncoalescedGlobal(ctx, out);
    redundantGlobalLoads(ctx, out);
    sharedBankConflicts(ctx, out);
    constantDivergent(ctx, out);
    atomicContention(ctx, out);
    readOnlyCache(ctx, out);
    l1Caching(ctx, out);
  }
  localMemory(ctx, out);
}

} // namespace ptxray::advisor
