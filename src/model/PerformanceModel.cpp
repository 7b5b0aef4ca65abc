#include "model/PerformanceModel.h"

#include "model/SharedBanks.h"
#include "ptx/Demangle.h"
#include "ptx/LineTable.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <functional>
#include <memory>

namespace ptxray::model {

void InstructionCounters::scale(double f) {
  for (auto field : fields())
    this->*field = static_cast<uint64_t>(static_cast<double>(this->*field) * f + 0.5);
}

namespace {

/// Distinct sectors a worker's accesses touched: open addressing over a power-of-two table, grown at
/// half load. What the DRAM traffic would be with perfect reuse.
class SectorSet {
public:
  void insert(uint64_t sector) {
    if ((size_ + 1) * 2 > slots_.size())
      grow();
    insertInto(slots_, sector + 1); // 0 marks an empty slot
  }
  bool contains(uint64_t sector) const {
    if (slots_.empty())
      return false;
    const uint64_t key = sector + 1;
    const size_t mask = slots_.size() - 1;
    for (size_t i = slotOf(key, mask);; i = (i + 1) & mask) {
      if (slots_[i] == key)
        return true;
      if (!slots_[i])
        return false;
    }
  }
  uint64_t size() const { return size_; }
  template <class F> void forEach(F &&f) const {
    for (uint64_t s : slots_)
      if (s)
        f(s - 1);
  }

private:
  static size_t slotOf(uint64_t key, size_t mask) { return (key * 0x9E3779B97F4A7C15ull) >> 20 & mask; }
  bool insertInto(std::vector<uint64_t> &slots, uint64_t key) {
    const size_t mask = slots.size() - 1;
    for (size_t i = slotOf(key, mask);; i = (i + 1) & mask) {
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

/// The (site, sector) pairs of the CTA a worker is running: open addressing where a slot is empty
/// unless it carries the current generation, so clearing at each CTA is one increment.
class CtaSectorSet {
public:
  void clear() {
    size_ = 0;
    if (++generation_ == 0) { // wrapped: stale slots could match again
      for (Slot &slot : slots_)
        slot.generation = 0;
      generation_ = 1;
    }
  }
  /// True when `sector` is new for `site` in this CTA.
  bool insert(uint64_t site, uint64_t sector) {
    if ((size_ + 1) * 2 > slots_.size())
      grow();
    return insertInto(slots_, site, sector);
  }

private:
  struct Slot {
    uint64_t sector = 0;
    uint64_t site = 0;
    uint32_t generation = 0; ///< 0 never matches: generations start at 1
  };
  bool insertInto(std::vector<Slot> &slots, uint64_t site, uint64_t sector) {
    const size_t mask = slots.size() - 1;
    const uint64_t hash = (sector ^ site * 0xC2B2AE3D27D4EB4Full) * 0x9E3779B97F4A7C15ull;
    for (size_t i = (hash >> 20) & mask;; i = (i + 1) & mask) {
      Slot &slot = slots[i];
      if (slot.generation != generation_) {
        slot = {sector, site, generation_};
        ++size_;
        return true;
      }
      if (slot.sector == sector && slot.site == site)
        return false;
    }
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(std::max<size_t>(1024, old.size() * 2), Slot{});
    size_ = 0;
    for (const Slot &slot : old)
      if (slot.generation == generation_)
        insertInto(slots_, slot.site, slot.sector);
  }
  std::vector<Slot> slots_;
  uint64_t size_ = 0;
  uint32_t generation_ = 1;
};

/// A block size for addresses, as a shift when it is a power of two (a 64-bit division per lane
/// would dominate the cost of the hot path).
struct Granule {
  uint64_t bytes = 1;
  int shift = 0; ///< -1 when `bytes` is not a power of two
  explicit Granule(uint64_t size)
      : bytes(std::max<uint64_t>(size, 1)), shift((bytes & (bytes - 1)) == 0 ? std::countr_zero(bytes) : -1) {}
  uint64_t indexOf(uint64_t address) const { return shift >= 0 ? address >> shift : address / bytes; }
};

/// Granule indices of one access (or of one texture fetch's footprint): a buffer that only grows, so
/// that filling it costs plain stores (no zeroing, no per-element capacity checks).
class GranuleList {
public:
  void clear() { size_ = 0; }
  size_t size() const { return size_; }
  uint64_t *begin() { return data_.get(); }
  uint64_t *end() { return data_.get() + size_; }
  const uint64_t *begin() const { return data_.get(); }
  const uint64_t *end() const { return data_.get() + size_; }

  /// Appends the granules each lane of `mask` touches ([address, address + bytes)), in lane order,
  /// skipping a repeat of the previous one (neighbouring lanes mostly share one).
  void append(const std::array<uint64_t, vm::kWarpSize> &addresses, uint32_t mask, uint32_t bytes, Granule granule) {
    reserve(size_ + static_cast<size_t>(laneCount(mask)) * (granule.indexOf(bytes - 1) + 2));
    uint64_t *next = data_.get() + size_;
    uint64_t previous = ~uint64_t{0};
    while (mask) {
      const int lane = std::countr_zero(mask);
      mask &= mask - 1;
      const uint64_t address = addresses[static_cast<size_t>(lane)];
      const uint64_t first = granule.indexOf(address), last = granule.indexOf(address + bytes - 1);
      for (uint64_t g = first; g <= last; ++g)
        if (g != previous) {
          *next++ = g;
          previous = g;
        }
    }
    size_ = static_cast<size_t>(next - data_.get());
  }

  /// Sorts the granules and drops repeats; usually they are already ascending (a coalesced access).
  void makeDistinct() {
    if (std::adjacent_find(begin(), end(), std::greater_equal<>()) == end())
      return;
    std::sort(begin(), end());
    size_ = static_cast<size_t>(std::unique(begin(), end()) - begin());
  }

private:
  void reserve(size_t capacity) {
    if (capacity <= capacity_)
      return;
    capacity_ = std::max<size_t>(capacity, 2 * capacity_);
    auto grown = std::make_unique_for_overwrite<uint64_t[]>(capacity_);
    std::copy(begin(), end(), grown.get());
    data_ = std::move(grown);
  }
  std::unique_ptr<uint64_t[]> data_;
  size_t size_ = 0, capacity_ = 0;
};

/// What reuse inside a CTA is keyed by: the instruction's innermost source line (file and line of its
/// .loc), so that the loads of one line share their sectors (a loop unrolled into one load per
/// iteration reads the same data with different instructions); the instruction itself when it has no
/// line information.
uint64_t reuseSite(const vm::DecodedFunction &function, uint32_t instruction) {
  const ptx::Instruction &inst = function.source->instructions[instruction];
  if (inst.line != ptx::kNone) {
    const ptx::LineEntry &position = function.module->lines[inst.line];
    return uint64_t{1} << 63 | uint64_t{position.file} << 32 | position.line;
  }
  return uint64_t{function.index} << 32 | instruction;
}

} // namespace

struct PerformanceModel::Worker {
  /// Counters per PTX function (by function index), allocated on the first event from it.
  std::vector<std::vector<InstructionCounters>> byFunction;
  const vm::DecodedFunction *lastFunction = nullptr;
  InstructionCounters *last = nullptr;
  SectorSet loadSectors;   ///< loads, texture fetches, surface loads
  SectorSet atomicSectors; ///< atomics and reductions (each reads its sector into L2 and writes it)
  SectorSet writeSectors;  ///< stores, surface stores
  CtaSectorSet ctaSectors; ///< (reuseSite, sector) pairs the running CTA's global loads touched
  GranuleList granules;    ///< scratch: the granules of one access
  GranuleList texels;      ///< texture granules of the footprint parts seen so far of one fetch
};

PerformanceModel::PerformanceModel(const arch::ArchTarget &target, ModelOptions options)
    : target_(target), cc_(*target.computeCapability), options_(options),
      // The footprint is counted in the smallest unit DRAM traffic comes in: L2 sectors, or the
      // smallest transaction before there was an L2 (CC 1.x).
      footprintGranule_(cc_.global.l2SectorBytes > 0          ? cc_.global.l2SectorBytes
                        : cc_.global.transactionBytes.empty() ? 1
                                                              : *std::min_element(cc_.global.transactionBytes.begin(),
                                                                                  cc_.global.transactionBytes.end())),
      textureGranule_(cc_.textureTransactionBytes > 0 ? static_cast<uint64_t>(cc_.textureTransactionBytes)
                                                      : footprintGranule_) {}

PerformanceModel::~PerformanceModel() = default;

void PerformanceModel::onLaunchBegin(const vm::LaunchInfo &info) {
  launch_ = info;
  workers_.clear();
  // Slots past the workers' own are made when a CTA first uses one (vm::LaunchInfo::slots).
  workers_.resize(std::max({info.slots, info.workers, 1u}));
  for (unsigned w = 0; w < std::max(info.workers, 1u); ++w)
    workers_[w] = makeWorker();
}

std::unique_ptr<PerformanceModel::Worker> PerformanceModel::makeWorker() const {
  auto w = std::make_unique<Worker>();
  w->byFunction.resize(launch_.kernel->module->functions.size());
  return w;
}

void PerformanceModel::onCtaBegin(unsigned worker, vm::Dim3) {
  if (!workers_[worker])
    workers_[worker] = makeWorker();
  workers_[worker]->ctaSectors.clear();
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
  c.threadsActive += laneCount(e.activeMask);
  c.threadsPredicatedOn += laneCount(e.executedMask);
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

void PerformanceModel::globalAccess(const vm::WarpRef &warp, const vm::MemoryEvent &e, const WarpAccess &a,
                                    InstructionCounters &c) {
  const GlobalPath path = globalPath(e);
  const GlobalCost cost = globalAccessCost(cc_, a, path);
  c.globalRequests += cost.requests;
  c.globalTransactions += cost.transactions;
  c.globalIdealTransactions += cost.idealTransactions;
  c.globalBytesRequested += cost.bytesRequested;
  c.globalBytesMoved += cost.bytesMoved;

  const AccessShape shape = classifyAccess(cc_, a, path);
  ++c.globalWarpAccesses;
  switch (shape.pattern) {
  case AccessPattern::UnitStride: ++c.globalUnitStrideRequests; break;
  case AccessPattern::Misaligned: ++c.globalMisalignedRequests; break;
  case AccessPattern::Strided:
    ++c.globalStridedRequests;
    c.globalStrideBytesSum += shape.strideBytes;
    break;
  case AccessPattern::Broadcast: ++c.globalBroadcastRequests; break;
  case AccessPattern::Scattered: break;
  }

  Worker &w = *workers_[warp.worker];
  GranuleList &granules = w.granules;
  granules.clear();
  granules.append(e.addresses, e.mask, a.bytesPerLane, Granule(footprintGranule_));
  granules.makeDistinct();
  SectorSet &footprint = e.op == vm::MemoryOp::Load    ? w.loadSectors
                         : e.op == vm::MemoryOp::Store ? w.writeSectors
                                                       : w.atomicSectors;
  for (uint64_t g : granules)
    footprint.insert(g);
  if (e.op == vm::MemoryOp::Load) {
    c.globalWarpSectors += granules.size();
    const uint64_t site = reuseSite(*warp.function, e.instruction);
    for (uint64_t g : granules)
      c.globalCtaDistinctSectors += w.ctaSectors.insert(site, g);
  }
}

void PerformanceModel::textureAccess(const vm::WarpRef &warp, const vm::MemoryEvent &e, InstructionCounters &c) {
  Worker &w = *workers_[warp.worker];
  const bool surface = e.path == vm::MemoryPath::Surface;
  const uint32_t bytes = std::max<uint32_t>(uint32_t{e.width} * e.vec, 1);
  if (e.footprintPart == 0) {
    ++(surface ? c.surfaceRequests : c.textureRequests);
    w.texels.clear();
  }
  (surface ? c.surfaceBytesRequested : c.textureBytesRequested) += uint64_t(laneCount(e.mask)) * bytes;
  w.texels.append(e.addresses, e.mask, bytes, Granule(textureGranule_));
  if (e.footprintPart + 1 >= e.footprintParts) {
    w.texels.makeDistinct();
    (surface ? c.surfaceSectors : c.textureSectors) += w.texels.size();
  }
  GranuleList &granules = w.granules;
  granules.clear();
  granules.append(e.addresses, e.mask, bytes, Granule(footprintGranule_));
  SectorSet &footprint = e.op == vm::MemoryOp::Load ? w.loadSectors : w.writeSectors;
  for (uint64_t g : granules)
    footprint.insert(g);
}

void PerformanceModel::onMemory(const vm::WarpRef &warp, const vm::MemoryEvent &e) {
  if (!e.mask)
    return;
  InstructionCounters &c = counters(warp, e.instruction);
  if (e.path != vm::MemoryPath::LoadStore) {
    textureAccess(warp, e, c);
    return;
  }
  // The addresses are copied once, straight from the event (local accesses rewrite them).
  WarpAccess a{e.mask, e.addresses, std::max<uint32_t>(uint32_t{e.width} * e.vec, 1), e.op != vm::MemoryOp::Load};
  switch (e.space) {
  case vm::Space::Global:
  case vm::Space::Generic: {
    globalAccess(warp, e, a, c);
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
    SharedCost cost = sharedAccessCost(cc_, a, options_.bankWidthBytes);
    c.sharedRequests += cost.requests;
    c.sharedWavefronts += cost.wavefronts;
    c.sharedIdealWavefronts += cost.idealWavefronts;
    c.sharedBytesRequested += uint64_t(laneCount(e.mask)) * a.bytesPerLane;
    break;
  }
  case vm::Space::Const:
  case vm::Space::KernelParam: {
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
  std::erase(workers_, nullptr);
  const vm::DecodedFunction &kernel = *launch_.kernel;
  const ptx::Module &m = *kernel.module;
  LaunchProfile L;
  L.module = &m;
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
  // The footprints. Read: loaded or atomically updated; written: stored; the overlap: loaded and
  // stored or atomically updated. One worker's sets are used as they are; several are merged.
  SectorSet mergedLoads, mergedAtomics, mergedWrites;
  auto merged = [&](SectorSet Worker::*set, SectorSet &out) -> const SectorSet & {
    if (workers_.size() == 1)
      return (*workers_[0]).*set;
    for (const auto &w : workers_)
      ((*w).*set).forEach([&](uint64_t s) { out.insert(s); });
    return out;
  };
  const SectorSet &loaded = merged(&Worker::loadSectors, mergedLoads);
  const SectorSet &atomics = merged(&Worker::atomicSectors, mergedAtomics);
  const SectorSet &written = merged(&Worker::writeSectors, mergedWrites);
  uint64_t readGranules = loaded.size() + atomics.size(), loadedAndModified = 0;
  loaded.forEach([&](uint64_t s) {
    const bool atomic = atomics.contains(s);
    readGranules -= atomic;
    loadedAndModified += atomic || written.contains(s);
  });
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
  occ.cacheConfig = cacheConfig_;
  try {
    L.occupancy = arch::computeOccupancy(cc_, occ);
  } catch (const std::invalid_argument &) {
    // A launch the VM ran always has a valid block; keep the empty result otherwise.
  }

  const double sampleScale = static_cast<double>(L.ctas) / static_cast<double>(L.ctasSimulated);
  auto footprintBytes = [&](uint64_t granules) {
    return static_cast<uint64_t>(static_cast<double>(granules) * static_cast<double>(footprintGranule_) * sampleScale);
  };
  L.readFootprintBytes = footprintBytes(readGranules);
  L.writeFootprintBytes = footprintBytes(written.size());
  L.readWriteOverlapBytes = footprintBytes(loadedAndModified);

  const InstructionCounters &t = L.total;
  TimeInputs in;
  in.warpInstructionsByClass = L.warpInstructionsByClass;
  in.ctas = L.ctas;
  in.memoryRequests = t.globalRequests + t.localRequests + t.textureRequests + t.surfaceRequests;
  in.replays = (t.sharedWavefronts - std::min(t.sharedWavefronts, t.sharedRequests)) +
               (t.constantTransactions - std::min(t.constantTransactions, t.constantRequests));
  in.bytesMoved = t.globalBytesMoved + t.localBytesMoved + (t.textureSectors + t.surfaceSectors) * textureGranule_;
  in.readFootprintBytes = L.readFootprintBytes;
  in.writeFootprintBytes = L.writeFootprintBytes;
  in.bytesRequested = t.globalBytesRequested + t.textureBytesRequested + t.surfaceBytesRequested;
  in.occupancy = L.occupancy;
  in.smClockMHz = options_.smClockMHz;
  L.timeInputs = in;
  L.time = estimateTime(target_, in);
  launches_.push_back(std::move(L));
  workers_.clear();
}

void PerformanceModel::noteClockWait(uint64_t cycles) {
  if (launches_.empty() || cycles == 0)
    return;
  TimeEstimate &t = launches_.back().time;
  if (t.clockHz <= 0)
    return;
  t.clockWaitSeconds = static_cast<double>(cycles) / t.clockHz;
  const double kernel = std::max({t.computeSeconds, t.memorySeconds, t.latencySeconds});
  t.explanation += fmt::format("; clock wait {:.2f} us (a warp read its clock {} cycles after the launch began)",
                               t.clockWaitSeconds * 1e6, cycles);
  if (t.clockWaitSeconds > kernel) {
    t.seconds = t.clockWaitSeconds + t.launchOverheadSeconds;
    t.dominant = Bound::Latency;
  }
}

} // namespace ptxray::model
