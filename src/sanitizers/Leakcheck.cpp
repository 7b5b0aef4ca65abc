#include "sanitizers/Leakcheck.h"

#include "vm/Memory.h"

#include <bit>
#include <fmt/format.h>
#include <tuple>

namespace ptxray::sanitizers {

void Leakcheck::onLaunchBegin(const vm::LaunchInfo &info) {
  launch_ = info;
  ++launches_;
}

void Leakcheck::onLaunchEnd() {
  // Describe this launch's blocks while its program is alive.
  std::lock_guard lock(mutex_);
  std::map<Site, SiteText> described;
  for (auto &[address, block] : live_) {
    if (block.launch != launches_)
      continue;
    auto [it, inserted] = described.try_emplace(block.site);
    if (inserted)
      it->second = describeSite(block.site);
    block.siteText = it->second;
  }
}

void Leakcheck::onHeap(const vm::WarpRef &warp, const vm::HeapEvent &e) {
  std::lock_guard lock(mutex_);
  for (uint32_t mask = e.mask; mask; mask &= mask - 1) {
    const int lane = std::countr_zero(mask);
    if (e.op == vm::HeapOp::Free) {
      live_.erase(e.addresses[lane]);
      continue;
    }
    LiveBlock block;
    block.bytes = e.bytes[lane];
    block.site = {warp.function, e.instruction};
    block.siteOrder = {warp.function ? warp.function->index : 0u, e.instruction};
    block.kernel = launch_.kernel ? launch_.kernel->name : std::string();
    block.launch = launches_;
    block.cta = warp.cta;
    block.thread = threadOf(uint64_t{warp.warp} * vm::kWarpSize + static_cast<uint64_t>(lane), launch_.block);
    live_[e.addresses[lane]] = block;
  }
}

void Leakcheck::onAllocate(const vm::Allocation &allocation) {
  if (!deviceAllocations_ || allocation.kind != vm::AllocationKind::Device)
    return;
  std::lock_guard lock(mutex_);
  allocations_[allocation.base] = {allocation.size, allocation.label};
}

void Leakcheck::onRelease(const vm::Allocation &allocation) {
  std::lock_guard lock(mutex_);
  allocations_.erase(allocation.base);
}

uint64_t Leakcheck::leakedBlocks() const {
  std::lock_guard lock(mutex_);
  return live_.size() + allocations_.size();
}

uint64_t Leakcheck::leakedBytes() const {
  std::lock_guard lock(mutex_);
  uint64_t bytes = 0;
  for (const auto &[address, block] : live_)
    bytes += block.bytes;
  for (const auto &[address, allocation] : allocations_)
    bytes += allocation.bytes;
  return bytes;
}

namespace {
/// 1024 -> "1,024", as compute-sanitizer writes a leak's size.
std::string withThousands(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return out;
}
} // namespace

std::vector<Hazard> Leakcheck::leaks() const {
  std::lock_guard lock(mutex_);
  struct SiteLeaks {
    uint64_t blocks = 0, bytes = 0;
    uint64_t firstAddress = 0; ///< the lowest address: the block allocated first
    const LiveBlock *first = nullptr;
  };
  // By malloc site, then kernel (a function called from two kernels leaks in each).
  std::map<std::tuple<uint32_t, uint32_t, std::string>, SiteLeaks> bySite;
  for (const auto &[address, block] : live_) {
    SiteLeaks &s = bySite[std::tuple_cat(block.siteOrder, std::tuple(block.kernel))];
    ++s.blocks;
    s.bytes += block.bytes;
    if (!s.first) {
      s.first = &block;
      s.firstAddress = address;
    }
  }
  std::vector<Hazard> out;
  for (const auto &[key, s] : bySite) {
    const LiveBlock &b = *s.first;
    const SiteText &text = b.siteText;
    Hazard h;
    h.sites = {text};
    h.occurrences = s.blocks;
    h.headline = fmt::format("Leaked {} byte{} in {} device-heap block{} allocated by malloc at {}", s.bytes,
                             s.bytes == 1 ? "" : "s", s.blocks, s.blocks == 1 ? "" : "s", text.shortPlace());
    h.kernel = b.kernel;
    h.details.push_back(fmt::format("in kernel {}", b.kernel));
    std::string by =
        fmt::format("first: {} bytes at 0x{:x}, by thread {} in block {} of launch {} at {}  {}", b.bytes,
                    s.firstAddress, dimText(b.thread), dimText(b.cta), b.launch, text.ptxLocation, text.ptxText);
    if (text.function != b.kernel)
      by += fmt::format(" (in {})", text.function);
    h.details.push_back(by);
    h.details.push_back("no free() released them by the end of the run");
    out.push_back(std::move(h));
  }
  // The host's allocations, in address order (the order they were made: addresses are never reused).
  for (const auto &[address, a] : allocations_) {
    Hazard h;
    h.occurrences = 1;
    h.headline = fmt::format("Leaked {} byte{} at 0x{:x}", withThousands(a.bytes), a.bytes == 1 ? "" : "s", address);
    h.details.push_back(fmt::format("allocated by the program: {}", a.label));
    h.details.push_back("not freed by the end of the program");
    out.push_back(std::move(h));
  }
  return out;
}

} // namespace ptxray::sanitizers
