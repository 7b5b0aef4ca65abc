#include "model/PerformanceModel.h"

#include "model/SharedBanks.h"
#include "ptx/Demangle.h"
#include "ptx/LineTable.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace ptxray::model {

void InstructionCounters::scale(double f) {
  auto s = [f](uint64_t &v) { v = static_cast<uint64_t>(static_cast<double>(v) * f + 0.5); };
  for (uint64_t *v : {&warpExecuted,          &threadsActive,        &threadsPredicatedOn, &branches,
                      &divergentBranches,     &globalRequests,       &globalTransactions,  &globalIdealTransactions,
                      &globalBytesRequested,  &globalBytesMoved,     &localRequests,       &localTransactions,
                      &localBytesRequested,   &localBytesMoved,      &sharedRequests,      &sharedWavefronts,
                      &sharedIdealWavefronts, &sharedBytesRequested, &constantRequests,    &constantTransactions})
    s(*v);
}

/// Distinct sectors a worker's global accesses touched: open addressing over a power-of-two
/// table, grown at half load. What the DRAM traffic would be with perfect reuse.
class SectorSet {
public:
  void insert(uint64_t sector) {
    if ((size_ + 1) * 2 > slots_.size())
      grow();
    insertInto(slots_, sector + 1); // 0 marks an empty slot
  }
  uint64_t size() const { return size_; }
  template <class F> void forEach(F &&f) const {
    for (uint64_t s : slots_)
      if (s)
        f(s - 1);
  }

private:
  bool insertInto(std::vector<uint64_t> &slots, uint64_t key) {
    const size_t mask = slots.size() - 1;
    for (size_t i = (key * 0x9E3779B97F4A7C15ull) >> 20 & mask;; i = (i + 1) & mask) {
      if (slots[i] == key)
        return false;
      if (!slots[i]) {
        slots[i] = key;
        ++size_;
        return true;
      }
    }
  }
  void grow() {
    std::vector<uint64_t> old;
    old.swap(slots_);
    slots_.assign(std::max<size_t>(1024, old.size() * 2), 0);
    size_ = 0;
    for (uint64_t k : old)
      if (k)
        insertInto(slots_, k);
  }
  std::vector<uint64_t> slots_;
  uint64_t size_ = 0;
};

struct PerformanceModel::Worker {
  /// Counters per PTX function (by function index), allocated on the first event from it.
  std::vector<std::vector<InstructionCounters>> byFunction;
  const vm::DecodedFunction *lastFunction = nullptr;
  InstructionCounters *last = nullptr;
  SectorSet readSectors;  ///< loads and atomics (an atomic reads its line into L2)
  SectorSet writeSectors; ///< stores
};

PerformanceModel::PerformanceModel(const arch::ArchTarget &target, ModelOptions options)
    : target_(target), cc_(*target.computeCapability), options_(options),
      // The footprint is counted in the smallest unit DRAM traffic comes in: L2 sectors, or the
      // smallest transaction before there was an L2 (CC 1.x).
      footprintGranule_(cc_.global.l2SectorBytes > 0          ? cc_.global.l2SectorBytes
                        : cc_.global.transactionBytes.empty() ? 1
                                                              : *std::min_element(cc_.global.transactionBytes.begin(),
                                                                                  cc_.global.transactionBytes.end())) {}

PerformanceModel::~PerformanceModel() = default;

void PerformanceModel::onLaunchBegin(const vm::LaunchInfo &info) {
  launch_ = info;
  workers_.clear();
  for (unsigned w = 0; w < std::max(info.workers, 1u); ++w) {
    workers_.push_back(std::make_unique<Worker>());
    workers_.back()->byFunction.resize(info.kernel->module->functions.size());
  }
}

InstructionCounters &PerformanceModel::counters(const vm::WarpRef &warp, uint32_t instruction) {
  Worker &w = *workers_[warp.worker];
  if (warp.function != w.lastFunction) {
    std::vector<InstructionCounters> &fn = w.byFunction[warp.function->index];
    if (fn.empty())
      fn.resize(warp.function->source->instructions.size());
    w.lastFunction = warp.function;
    w.last = fn.data();
  }
  return w.last[instruction];
}

void PerformanceModel::onInstruction(const vm::WarpRef &warp, const vm::InstructionEvent &e) {
  InstructionCounters &c = counters(warp, e.instruction);
  ++c.warpExecuted;
  c.threadsActive += static_cast<uint32_t>(std::popcount(e.activeMask));
  c.threadsPredicatedOn += static_cast<uint32_t>(std::popcount(e.executedMask));
}

void PerformanceModel::onBranch(const vm::WarpRef &warp, const vm::BranchEvent &e) {
  InstructionCounters &c = counters(warp, e.instruction);
  ++c.branches;
  c.divergentBranches += e.divergent;
}

GlobalPath PerformanceModel::globalPath(const vm::MemoryEvent &e) const {
  const arch::GlobalMemoryRules &g = cc_.global;
  if (g.defaultLoadCaching == arch::GlobalLoadCaching::Uncached)
    return GlobalPath::Uncached; // CC 1.x: no cache for global memory
  if (e.op != vm::MemoryOp::Load)
    return GlobalPath::L2; // stores, atomics and reductions are not cached in L1 (CC 2.x-3.x)
  if (e.nonCoherent && g.readOnlyDataCache)
    return GlobalPath::ReadOnly;
  const bool l1Allowed = g.defaultLoadCaching == arch::GlobalLoadCaching::L1 ||
                         (target_.gpu ? target_.gpu->l1CachingOptIn() : g.l1CachingOptIn);
  switch (e.cache) {
  case ptx::Mod::ca: return l1Allowed ? GlobalPath::L1 : GlobalPath::L2;
  case ptx::Mod::cg:
  case ptx::Mod::cs:
  case ptx::Mod::cv: return GlobalPath::L2;
  default: break;
  }
  if (options_.loadCaching)
    return *options_.loadCaching == arch::GlobalLoadCaching::L1 && l1Allowed ? GlobalPath::L1 : GlobalPath::L2;
  return g.defaultLoadCaching == arch::GlobalLoadCaching::L1 ? GlobalPath::L1 : GlobalPath::L2;
}

void PerformanceModel::onMemory(const vm::WarpRef &warp, const vm::MemoryEvent &e) {
  if (!e.mask)
    return;
  InstructionCounters &c = counters(warp, e.instruction);
  WarpAccess a;
  a.mask = e.mask;
  a.bytesPerLane = std::max<uint32_t>(uint32_t{e.width} * e.vec, 1);
  a.isStore = e.op != vm::MemoryOp::Load;
  switch (e.space) {
  case vm::Space::Global:
  case vm::Space::Generic: {
    a.addresses = e.addresses;
    GlobalCost cost = globalAccessCost(cc_, a, globalPath(e));
    c.globalRequests += cost.requests;
    c.globalTransactions += cost.transactions;
    c.globalIdealTransactions += cost.idealTransactions;
    c.globalBytesRequested += cost.bytesRequested;
    c.globalBytesMoved += cost.bytesMoved;
    SectorSet &sectors =
        e.op == vm::MemoryOp::Store ? workers_[warp.worker]->writeSectors : workers_[warp.worker]->readSectors;
    uint32_t mask = e.mask;
    uint64_t previous = ~uint64_t{0}; // neighbouring lanes mostly share a sector: skip repeats
    while (mask) {
      int lane = std::countr_zero(mask);
      mask &= mask - 1;
      uint64_t first = e.addresses[lane] / footprintGranule_,
               last = (e.addresses[lane] + a.bytesPerLane - 1) / footprintGranule_;
      for (uint64_t s = first; s <= last; ++s)
        if (s != previous) {
          sectors.insert(s);
          previous = s;
        }
    }
    break;
  }
  case vm::Space::Local: {
    // Call-site and function .param variables live in the VM's frames, but the ABI passes them in
    // registers on the GPU: not local-memory traffic.
    if (warp.function->source->instructions[e.instruction].space == ptx::StateSpace::Param)
      break;
    // Local memory is interleaved so that consecutive threads' accesses at the same offset are
    // adjacent, in units of the access (a v4 of one thread is 16 contiguous bytes): the warp's
    // addresses in that layout.
    const uint64_t unit = a.bytesPerLane;
    for (int lane = 0; lane < kLanes; ++lane) {
      uint64_t offset = e.addresses[lane];
      a.addresses[lane] = (offset / unit) * unit * kLanes + uint64_t(lane) * unit + offset % unit;
    }
    GlobalCost cost = globalAccessCost(
        cc_, a,
        cc_.global.defaultLoadCaching == arch::GlobalLoadCaching::Uncached ? GlobalPath::Uncached : GlobalPath::L1);
    c.localRequests += cost.requests;
    c.localTransactions += cost.transactions;
    c.localBytesRequested += cost.bytesRequested;
    c.localBytesMoved += cost.bytesMoved;
    break;
  }
  case vm::Space::Shared: {
    a.addresses = e.addresses;
    SharedCost cost = sharedAccessCost(cc_, a, options_.bankWidthBytes);
    c.sharedRequests += cost.requests;
    c.sharedWavefronts += cost.wavefronts;
    c.sharedIdealWavefronts += cost.idealWavefronts;
    c.sharedBytesRequested += uint64_t(std::popcount(e.mask)) * a.bytesPerLane;
    break;
  }
  case vm::Space::Const:
  case vm::Space::KernelParam: {
    a.addresses = e.addresses;
    ConstantCost cost = constantAccessCost(cc_, a);
    c.constantRequests += cost.requests;
    c.constantTransactions += cost.transactions;
    break;
  }
  }
}

namespace {

MemoryKind memoryKindOf(const ptx::Instruction &inst) {
  switch (inst.opcode) {
  case ptx::Opcode::ld:
  case ptx::Opcode::ldu:
  case ptx::Opcode::tex:
  case ptx::Opcode::tld4:
  case ptx::Opcode::suld:
  case ptx::Opcode::ldmatrix: return MemoryKind::Load;
  case ptx::Opcode::st:
  case ptx::Opcode::sust:
  case ptx::Opcode::stmatrix: return MemoryKind::Store;
  case ptx::Opcode::atom:
  case ptx::Opcode::red:
  case ptx::Opcode::sured: return MemoryKind::Atomic;
  default: return MemoryKind::None;
  }
}

void describe(const ptx::Module &m, const ptx::LineTable &lines, const ptx::Function &fn, InstructionProfile &p) {
  const ptx::Instruction &inst = fn.instructions[p.instruction];
  p.ptxLocation = m.sources.position(inst.loc);
  p.ptxText = std::string(m.sources.trimmedLineText(inst.loc));
  auto chain = lines.chain(inst);
  if (!chain.empty()) {
    p.sourceFile = std::string(chain[0].file);
    p.sourceLine = chain[0].line;
    for (size_t i = 1; i < chain.size(); ++i)
      p.inlinedAt +=
          fmt::format("{}{}:{}", i > 1 ? " " : "", chain[i].file.empty() ? "?" : chain[i].file, chain[i].line);
  }
  p.cls = classify(inst);
  p.memory = memoryKindOf(inst);
}

} // namespace

void PerformanceModel::onLaunchEnd() {
  const vm::DecodedFunction &kernel = *launch_.kernel;
  const ptx::Module &m = *kernel.module;
  LaunchProfile L;
  L.kernel = kernel.name;
  L.demangled = ptx::demangle(kernel.name);
  L.grid = launch_.grid;
  L.block = launch_.block;
  L.staticSharedBytes = kernel.staticSharedBytes;
  L.dynamicSharedBytes = launch_.dynamicSharedBytes;
  L.registersPerThread = launch_.registersPerThread;
  L.arch = target_.displayName();
  L.ctas = launch_.grid.count();

  // Merge the workers, function by function.
  ptx::LineTable lines(m);
  SectorSet readFootprint, writeFootprint;
  for (uint32_t f = 0; f < m.functions.size(); ++f) {
    std::vector<InstructionCounters> merged;
    for (const auto &w : workers_) {
      const auto &mine = w->byFunction[f];
      if (mine.empty())
        continue;
      if (merged.empty())
        merged.resize(mine.size());
      for (size_t i = 0; i < mine.size(); ++i)
        merged[i].add(mine[i]);
    }
    for (uint32_t i = 0; i < merged.size(); ++i) {
      if (!merged[i].warpExecuted)
        continue;
      InstructionProfile p;
      p.function = f;
      p.instruction = i;
      p.functionName = std::string(m.functions[f].name);
      p.counters = merged[i];
      describe(m, lines, m.functions[f], p);
      L.total.add(p.counters);
      L.warpInstructionsByClass[static_cast<int>(p.cls)] += p.counters.warpExecuted;
      L.instructions.push_back(std::move(p));
    }
  }
  for (const auto &w : workers_) {
    w->readSectors.forEach([&](uint64_t s) { readFootprint.insert(s); });
    w->writeSectors.forEach([&](uint64_t s) { writeFootprint.insert(s); });
  }
  // Sampling: the CTAs that ran stand for the whole grid.
  L.ctasSimulated = launch_.ctasRun ? launch_.ctasRun : L.ctas;
  if (L.ctasSimulated < L.ctas) {
    const double factor = static_cast<double>(L.ctas) / static_cast<double>(L.ctasSimulated);
    L.total = {};
    L.warpInstructionsByClass = {};
    for (InstructionProfile &p : L.instructions) {
      p.counters.scale(factor);
      L.total.add(p.counters);
      L.warpInstructionsByClass[static_cast<int>(p.cls)] += p.counters.warpExecuted;
    }
  }

  arch::OccupancyInput occ;
  occ.threadsPerBlock = static_cast<int>(std::min<uint64_t>(launch_.block.count(), INT32_MAX));
  occ.registersPerThread = static_cast<int>(launch_.registersPerThread);
  occ.staticSharedBytes = kernel.staticSharedBytes;
  occ.dynamicSharedBytes = launch_.dynamicSharedBytes;
  try {
    L.occupancy = arch::computeOccupancy(cc_, occ);
  } catch (const std::invalid_argument &) {
    // A launch the VM ran always has a valid block; keep the empty result otherwise.
  }

  TimeInputs in;
  in.warpInstructionsByClass = L.warpInstructionsByClass;
  in.ctas = L.ctas;
  in.memoryRequests = L.total.globalRequests + L.total.localRequests;
  in.replays = (L.total.sharedWavefronts - std::min(L.total.sharedWavefronts, L.total.sharedRequests)) +
               (L.total.constantTransactions - std::min(L.total.constantTransactions, L.total.constantRequests));
  in.bytesMoved = L.total.globalBytesMoved + L.total.localBytesMoved;
  const double sampleScale = static_cast<double>(L.ctas) / static_cast<double>(L.ctasSimulated);
  in.readFootprintBytes =
      static_cast<uint64_t>(static_cast<double>(readFootprint.size()) * footprintGranule_ * sampleScale);
  in.writeFootprintBytes =
      static_cast<uint64_t>(static_cast<double>(writeFootprint.size()) * footprintGranule_ * sampleScale);
  in.bytesRequested = L.total.globalBytesRequested;
  in.occupancy = L.occupancy;
  L.time = estimateTime(target_, in);
  launches_.push_back(std::move(L));
  workers_.clear();
}

} // namespace ptxray::model
