#include "vm/Scheduler.h"

#include "vm/Interpreter.h"

#include <chrono>
#include <deque>
#include <fmt/format.h>
#include <memory>

namespace ptxray::vm {

namespace {

/// A worker's resident CTAs all polled this many times each, over at least kHangTime, with no
/// progress anywhere in the launch: a hang. The time gives other workers' CTAs, which may be about
/// to write what is polled, the chance to show progress.
constexpr uint64_t kHangRounds = 8;
constexpr std::chrono::milliseconds kHangTime{200};

unsigned takeSlot(LaunchState &L) {
  std::lock_guard lock(L.mutex);
  // residentLimit bounds the CTAs started beyond each worker's first (Device::launch sizes
  // slotCount with room for both), so slots never run out.
  return L.nextSlot < L.slotCount ? L.nextSlot++ : L.slotCount - 1;
}

} // namespace

std::optional<uint64_t> CtaQueue::next() {
  uint64_t k = next_.fetch_add(1);
  if (k >= runs_)
    return std::nullopt;
  return runs_ == ctas_ || runs_ == 1 ? k : k * (ctas_ - 1) / (runs_ - 1);
}

uint64_t CtaQueue::remaining() const {
  uint64_t started = next_.load();
  return started >= runs_ ? 0 : runs_ - started;
}

void runWorker(LaunchState &L, unsigned worker, CtaQueue &queue) {
  std::deque<std::unique_ptr<CtaRun>> resident; // front: the one to run next
  std::vector<unsigned> slots{worker};          // this worker's free listener slots
  bool drained = false;
  // Starts the next CTA of the grid; `mustFit`: only if the GPU could keep one more resident.
  auto start = [&](bool mustFit) {
    if (drained || (mustFit && L.resident.load(std::memory_order_relaxed) >= L.residentLimit))
      return false;
    std::optional<uint64_t> id = queue.next();
    if (!id) {
      drained = true;
      return false;
    }
    unsigned slot;
    if (!slots.empty()) {
      slot = slots.back();
      slots.pop_back();
    } else {
      slot = takeSlot(L);
    }
    L.resident.fetch_add(1, std::memory_order_relaxed);
    resident.push_front(std::make_unique<CtaRun>(L, *id, slot));
    return true;
  };
  uint64_t stuck = 0; // consecutive polling returns with nothing new to start
  std::chrono::steady_clock::time_point stuckSince;
  uint64_t progressWhenStuck = 0;
  while (!L.abort.load(std::memory_order_relaxed)) {
    if (resident.empty() && !start(false))
      break;
    CtaRun &cta = *resident.front();
    if (cta.run() == CtaStep::Done) {
      slots.push_back(cta.slot());
      resident.pop_front();
      L.resident.fetch_sub(1, std::memory_order_relaxed);
      L.progress.fetch_add(1, std::memory_order_relaxed);
      stuck = 0;
      continue;
    }
    // It polls: what it waits for must come from another CTA. Let a new one start if the GPU could
    // hold it, else give the next resident one its turn.
    resident.push_back(std::move(resident.front()));
    resident.pop_front();
    if (start(true)) {
      stuck = 0;
      continue;
    }
    const auto now = std::chrono::steady_clock::now();
    if (stuck++ == 0) {
      stuckSince = now;
      progressWhenStuck = L.progress.load(std::memory_order_relaxed);
      continue;
    }
    if (stuck < kHangRounds * resident.size() || now - stuckSince < kHangTime)
      continue;
    if (L.progress.load(std::memory_order_relaxed) != progressWhenStuck) {
      stuck = 0; // another worker's CTAs moved: maybe toward what these wait for
      continue;
    }
    std::string why = fmt::format("every warp of the block that can run has polled memory for {} rounds of {} loop "
                                  "iterations without any change (on a GPU the kernel would hang)",
                                  stuck / resident.size(), kYieldQuantum);
    if (uint64_t waiting = queue.remaining())
      why += fmt::format("; {} more block{} of the grid cannot start while {} are resident (at most {} fit on the "
                         "GPU at once: blocks per SM x SMs), so a block waiting for one of them waits forever",
                         waiting, waiting == 1 ? "" : "s", L.resident.load(), L.residentLimit);
    resident.back()->reportHang(why);
    break;
  }
  // Any CTA still resident (the launch aborted) ends here: its listeners' onCtaEnd.
}

} // namespace ptxray::vm
