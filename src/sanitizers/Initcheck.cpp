#include "sanitizers/Initcheck.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <fmt/format.h>
#include <map>
#include <tuple>

namespace ptxray::sanitizers {

namespace {

/// Calls visit(word, mask) for each 64-bit word of a one-bit-per-byte map that the bytes
/// [at, at + count) fall in, `mask` selecting their bits; stops when visit returns false.
template <class Visit> bool forEachWord(uint64_t at, uint64_t count, Visit &&visit) {
  while (count) {
    const uint64_t word = at / 64;
    const unsigned bit = static_cast<unsigned>(at % 64);
    const uint64_t take = std::min<uint64_t>(count, 64 - bit);
    const uint64_t mask = (take == 64 ? ~uint64_t{0} : (uint64_t{1} << take) - 1) << bit;
    if (!visit(word, mask))
      return false;
    at += take;
    count -= take;
  }
  return true;
}

/// A per-worker map (shared memory of a CTA, local memory of a thread): bits past its end are unset.
bool allSet(const std::vector<uint64_t> &bits, uint64_t at, uint64_t count) {
  return forEachWord(at, count,
                     [&](uint64_t word, uint64_t mask) { return word < bits.size() && (bits[word] & mask) == mask; });
}

void setBits(std::vector<uint64_t> &bits, uint64_t at, uint64_t count) {
  const uint64_t words = (at + count + 63) / 64;
  if (bits.size() < words)
    bits.resize(words, 0);
  forEachWord(at, count, [&](uint64_t word, uint64_t mask) {
    bits[word] |= mask;
    return true;
  });
}

/// atom and red read the value they replace; the other read-modify-write events (mbarrier.init and
/// the mbarrier updates of asynchronous copies) only write as far as initialization goes.
bool readsOldValue(const vm::DecodedFunction *function, uint32_t instruction) {
  if (!function || !function->source || instruction >= function->source->instructions.size())
    return true;
  const ptx::Opcode opcode = function->source->instructions[instruction].opcode;
  return opcode == ptx::Opcode::atom || opcode == ptx::Opcode::red;
}

/// A function's .param variables live in the thread's local memory; the call sequence fills them
/// (arguments, return values) without stores the listener sees.
bool isParamAccess(const vm::DecodedFunction *function, uint32_t instruction) {
  return function && function->source && instruction < function->source->instructions.size() &&
         function->source->instructions[instruction].space == ptx::StateSpace::Param;
}

const char *spaceQualifier(vm::Space space) {
  switch (space) {
  case vm::Space::Shared: return "__shared__";
  case vm::Space::Local: return "__local__";
  default: return "__global__";
  }
}

} // namespace

struct Initcheck::TrackedAllocation {
  uint64_t base = 0;
  uint64_t size = 0;
  vm::AllocationKind kind = vm::AllocationKind::Device;
  std::string label;
  bool freed = false;
  /// One bit per byte, set once the byte is written; null for allocations whose every byte starts out
  /// initialized (module variables, constant banks). Workers of a launch update it concurrently.
  std::unique_ptr<std::atomic<uint64_t>[]> written;

  bool allWritten(uint64_t offset, uint64_t count) const {
    return !written || forEachWord(offset, count, [&](uint64_t word, uint64_t mask) {
      return (written[word].load(std::memory_order_relaxed) & mask) == mask;
    });
  }
  void markWritten(uint64_t offset, uint64_t count) {
    if (written)
      forEachWord(offset, count, [&](uint64_t word, uint64_t mask) {
        if ((written[word].load(std::memory_order_relaxed) & mask) != mask)
          written[word].fetch_or(mask, std::memory_order_relaxed);
        return true;
      });
  }
  void markUnwritten(uint64_t offset, uint64_t count) {
    if (written)
      forEachWord(offset, count, [&](uint64_t word, uint64_t mask) {
        written[word].fetch_and(~mask, std::memory_order_relaxed);
        return true;
      });
  }
};

namespace {

struct ReportKey {
  vm::Space space = vm::Space::Global;
  Site site;
  auto tie() const { return std::tuple(static_cast<int>(space), site.key()); }
  bool operator<(const ReportKey &other) const { return tie() < other.tie(); }
};

/// The first occurrence: the lowest CTA, then thread, then address (the same for every worker count
/// when no CTA reads what another one writes).
struct Occurrence {
  uint64_t cta = 0;
  vm::Dim3 ctaId;
  uint32_t thread = 0;
  uint64_t address = 0;
  const Initcheck::TrackedAllocation *allocation = nullptr;
  auto tie() const { return std::tuple(cta, thread, address); }
};

struct ReportEntry {
  uint64_t count = 0;
  uint32_t bytes = 0; ///< the size of the read
  Occurrence first;
};

} // namespace

struct Initcheck::Worker {
  vm::Dim3 cta;
  uint64_t ctaIndex = 0;
  std::vector<uint64_t> shared;             ///< the running CTA's shared memory
  std::vector<std::vector<uint64_t>> local; ///< per thread of the running CTA
  TrackedAllocation *cachedAllocation = nullptr;
  std::map<ReportKey, ReportEntry> reports;

  void record(vm::Space space, const Site &site, uint32_t bytes, uint32_t thread, uint64_t address,
              const TrackedAllocation *allocation) {
    const Occurrence occurrence{ctaIndex, cta, thread, address, allocation};
    auto [it, inserted] = reports.try_emplace(ReportKey{space, site}, ReportEntry{0, bytes, occurrence});
    ++it->second.count;
    if (!inserted && occurrence.tie() < it->second.first.tie())
      it->second.first = occurrence;
  }
};

Initcheck::Initcheck() = default;
Initcheck::~Initcheck() = default;

Initcheck::TrackedAllocation *Initcheck::findAllocation(uint64_t address) const {
  auto it = std::upper_bound(allocations_.begin(), allocations_.end(), address,
                             [](uint64_t a, const std::unique_ptr<TrackedAllocation> &t) { return a < t->base; });
  if (it == allocations_.begin())
    return nullptr;
  TrackedAllocation *a = std::prev(it)->get();
  return address - a->base < a->size ? a : nullptr;
}

void Initcheck::onAllocate(const vm::Allocation &allocation) {
  auto tracked = std::make_unique<TrackedAllocation>();
  tracked->base = allocation.base;
  tracked->size = allocation.size;
  tracked->kind = allocation.kind;
  tracked->label = allocation.label;
  // Device allocations and the heap start out unwritten; static storage (module variables and
  // constants) is initialized by the module.
  if (allocation.kind == vm::AllocationKind::Device || allocation.kind == vm::AllocationKind::Heap)
    tracked->written = std::make_unique<std::atomic<uint64_t>[]>((allocation.size + 63) / 64 + 1);
  auto at = std::upper_bound(allocations_.begin(), allocations_.end(), allocation.base,
                             [](uint64_t a, const std::unique_ptr<TrackedAllocation> &t) { return a < t->base; });
  allocations_.insert(at, std::move(tracked));
}

void Initcheck::onRelease(const vm::Allocation &allocation) {
  if (TrackedAllocation *a = findAllocation(allocation.base); a && a->base == allocation.base) {
    a->freed = true;
    if (a->written)
      a->written = std::make_unique<std::atomic<uint64_t>[]>(1); // keep it "tracked", drop the map
  }
}

void Initcheck::onHostWrite(uint64_t address, uint64_t bytes) {
  TrackedAllocation *a = findAllocation(address);
  if (!a || a->freed)
    return;
  const uint64_t offset = address - a->base;
  a->markWritten(offset, std::min(bytes, a->size - offset));
}

void Initcheck::onLaunchBegin(const vm::LaunchInfo &info) {
  launch_ = info;
  // A launch tree's child grids (dynamic parallelism) are heard after their parent: their hazards
  // are the host launch's too.
  if (info.depth == 0)
    launchHazards_.clear();
  workers_.clear();
  // Slots past the workers' own are made when a CTA first uses one (vm::LaunchInfo::slots).
  workers_.resize(std::max({info.slots, info.workers, 1u}));
  for (unsigned i = 0; i < std::max(info.workers, 1u); ++i)
    workers_[i] = makeWorker();
}

std::unique_ptr<Initcheck::Worker> Initcheck::makeWorker() const {
  const uint64_t sharedBytes = launch_.kernel->staticSharedBytes + launch_.dynamicSharedBytes;
  const uint64_t threads = (launch_.block.count() + vm::kWarpSize - 1) / vm::kWarpSize * vm::kWarpSize;
  auto w = std::make_unique<Worker>();
  w->shared.resize((sharedBytes + 63) / 64);
  w->local.resize(threads);
  return w;
}

void Initcheck::onCtaBegin(unsigned worker, vm::Dim3 cta) {
  if (!workers_[worker])
    workers_[worker] = makeWorker();
  Worker &w = *workers_[worker];
  w.cta = cta;
  w.ctaIndex = ctaLinear(cta, launch_.grid);
  std::fill(w.shared.begin(), w.shared.end(), 0);
}

void Initcheck::onWarpBegin(const vm::WarpRef &warp, uint32_t) {
  Worker &w = *workers_[warp.worker];
  const uint64_t first = uint64_t{warp.warp} * vm::kWarpSize;
  for (uint64_t t = first; t < first + vm::kWarpSize && t < w.local.size(); ++t)
    w.local[t].clear();
}

void Initcheck::onMemory(const vm::WarpRef &warp, const vm::MemoryEvent &e) {
  if (e.width == 0 || e.mask == 0 || e.path == vm::MemoryPath::Texture)
    return;
  if (e.space == vm::Space::Const || e.space == vm::Space::KernelParam)
    return;
  const bool writes = e.op != vm::MemoryOp::Load;
  bool reads = e.op == vm::MemoryOp::Load ||
               (writes && e.op != vm::MemoryOp::Store && readsOldValue(warp.function, e.instruction));
  if (e.path == vm::MemoryPath::Surface)
    reads = false; // surface stores write global memory; surface loads are not checked
  if (!reads && !writes)
    return;
  if (e.space == vm::Space::Local && isParamAccess(warp.function, e.instruction))
    return;
  Worker &w = *workers_[warp.worker];
  const uint32_t bytes = uint32_t{e.width} * e.vec;
  const Site site{warp.function, e.instruction};
  for (uint32_t mask = e.mask; mask; mask &= mask - 1) {
    const int lane = std::countr_zero(mask);
    const uint64_t address = e.addresses[lane];
    const uint32_t thread = warp.warp * vm::kWarpSize + static_cast<uint32_t>(lane);
    // Window offsets (shared, local) are below every global address, so a generic access whose lanes
    // resolved to different spaces is still told apart lane by lane.
    if (address >= vm::kGlobalBase) {
      TrackedAllocation *a = w.cachedAllocation;
      if (!a || address - a->base >= a->size) {
        a = findAllocation(address);
        if (!a)
          continue;
        w.cachedAllocation = a;
      }
      const uint64_t offset = address - a->base;
      if (!a->written || a->freed || bytes > a->size - offset)
        continue; // initialized from the start, or memcheck's business
      if (reads && !a->allWritten(offset, bytes))
        w.record(vm::Space::Global, site, bytes, thread, address, a);
      if (writes)
        a->markWritten(offset, bytes);
    } else if (e.space == vm::Space::Shared) {
      // The system's reserved shared memory (cooperative groups' tile barriers) starts zeroed.
      if (address >= vm::kReservedSharedOffset)
        continue;
      if (reads && !allSet(w.shared, address, bytes))
        w.record(vm::Space::Shared, site, bytes, thread, address, nullptr);
      if (writes && address + bytes <= w.shared.size() * 64)
        setBits(w.shared, address, bytes);
    } else if (e.space == vm::Space::Local && thread < w.local.size()) {
      std::vector<uint64_t> &bits = w.local[thread];
      if (reads && !allSet(bits, address, bytes))
        w.record(vm::Space::Local, site, bytes, thread, address, nullptr);
      if (writes)
        setBits(bits, address, bytes);
    }
  }
}

void Initcheck::onHeap(const vm::WarpRef &, const vm::HeapEvent &e) {
  if (e.op != vm::HeapOp::Malloc)
    return;
  // A block malloc returns holds whatever an earlier block at its place left: unwritten.
  for (uint32_t mask = e.mask; mask; mask &= mask - 1) {
    const int lane = std::countr_zero(mask);
    TrackedAllocation *a = findAllocation(e.addresses[lane]);
    if (!a)
      continue;
    const uint64_t offset = e.addresses[lane] - a->base;
    a->markUnwritten(offset, std::min(e.bytes[lane], a->size - offset));
  }
}

void Initcheck::onLaunchEnd() {
  std::erase(workers_, nullptr);
  std::map<ReportKey, ReportEntry> merged;
  for (const auto &w : workers_)
    for (const auto &[key, entry] : w->reports) {
      auto [it, inserted] = merged.try_emplace(key, entry);
      if (inserted)
        continue;
      it->second.count += entry.count;
      if (entry.first.tie() < it->second.first.tie())
        it->second.first = entry.first;
    }
  const vm::DecodedFunction &kernel = *launch_.kernel;
  for (const auto &[key, entry] : merged) {
    const SiteText text = describeSite(key.site);
    const Occurrence &first = entry.first;
    Hazard h;
    h.sites = {text};
    h.occurrences = entry.count;
    h.headline = fmt::format("Uninitialized {} memory read of size {} byte{} at {}", spaceQualifier(key.space),
                             entry.bytes, entry.bytes == 1 ? "" : "s", text.shortPlace());
    h.kernel = kernel.name;
    h.details.push_back(fmt::format("in kernel {}", kernel.name));
    std::string by = fmt::format("by thread {} in block {} at {}  {}", dimText(threadOf(first.thread, launch_.block)),
                                 dimText(first.ctaId), text.ptxLocation, text.ptxText);
    if (text.function != kernel.name)
      by += fmt::format(" (in {})", text.function);
    h.details.push_back(by);
    switch (key.space) {
    case vm::Space::Shared: {
      std::string where = fmt::format("address 0x{:x} (shared)", first.address);
      if (std::string variable = sharedVariableAt(kernel, first.address); !variable.empty())
        where += fmt::format(", {}", variable);
      h.details.push_back(where + ": no thread of the block wrote it");
      break;
    }
    case vm::Space::Local:
      h.details.push_back(fmt::format("address 0x{:x} (local): the thread never wrote it", first.address));
      break;
    default: {
      const TrackedAllocation &a = *first.allocation;
      h.details.push_back(fmt::format(
          "address 0x{:x} is byte {} of {} at 0x{:x}: {}", first.address, first.address - a.base, a.label, a.base,
          a.kind == vm::AllocationKind::Heap ? "no store wrote it since malloc returned its block"
                                             : "no host copy, memset or kernel store wrote it since it was allocated"));
      break;
    }
    }
    ++errors_;
    launchHazards_.push_back(std::move(h));
  }
  workers_.clear();
}

} // namespace ptxray::sanitizers
