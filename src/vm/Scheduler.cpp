#include "vm/Scheduler.h"

#include "vm/Interpreter.h"

#include <deque>
#include <fmt/format.h>
#include <memory>
#include <new>

namespace ptxray::vm {

namespace {

/// A worker's resident CTAs all polled this many turns each while no round anywhere in the launch
/// changed anything, and every other worker's CTAs polled a whole turn meanwhile too: a hang.
/// Counted in turns, not time, so that a slow machine or slow listeners cannot fake one.
constexpr uint64_t kHangTurns = 8;

/// Every worker is quiet at `progress` (LaunchState::quietSince) or gone.
bool allQuiet(const LaunchState &L, uint64_t progress) {
  for (unsigned w = 0; w < L.workers; ++w) {
    const uint64_t q = L.quietSince[w].load(std::memory_order_acquire);
    if (q != progress + 1 && q != LaunchState::kWorkerGone)
      return false;
  }
  return true;
}

unsigned takeSlot(LaunchState &L) {
  std::lock_guard lock(L.mutex);
  // residentLimit bounds the CTAs started beyond each worker's first (Device::launch sizes
  // slotCount with room for both), so slots never run out.
  return L.nextSlot < L.slotCount ? L.nextSlot++ : L.slotCount - 1;
}

/// Ends the launch with the fault that says which host memory it could not have.
void reportHostMemory(LaunchState &L, std::string detail) {
  Fault f;
  f.kind = FaultKind::MemoryBudget;
  f.block = f.thread = Dim3{0, 0, 0}; // the launch's, not a thread's: the detail says which state
  f.kernel = f.function = L.kernel->name;
  f.detail = std::move(detail);
  L.report(std::move(f));
  L.stopAll();
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
  std::vector<Cta> spare;                       // finished CTAs' storage, for the next ones
  bool drained = false;
  // Starts the next CTA of the grid; `mustFit`: only if the GPU could keep one more resident.
  auto start = [&](bool mustFit) {
    if (drained || (mustFit && L.resident.load(std::memory_order_relaxed) >= L.residentLimit))
      return false;
    std::optional<uint64_t> id = queue.next();
    // The queue hands out blocks in increasing order: once one is stopped, so are all after it.
    if (!id || L.stopped(*id)) {
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
    Cta storage;
    if (!spare.empty()) {
      storage = std::move(spare.back());
      spare.pop_back();
    }
    resident.push_front(std::make_unique<CtaRun>(L, *id, slot, std::move(storage)));
    L.resident.fetch_add(1, std::memory_order_relaxed);
    return true;
  };
  std::atomic<uint64_t> &quiet = L.quietSince[worker];
  uint64_t polls = 0;     // consecutive polling turns, all while `progress` stayed at quietFrom
  uint64_t quietFrom = 0; // the launch's progress when they began
  // A worker thread must not throw (the pool would terminate the process): host memory the launch
  // cannot have (the memory budget, or the machine's) ends the launch with a fault instead.
  try {
    for (;;) {
      if (L.anyStopped()) {
        // Blocks an error stopped end here (LaunchState::stopFrom); the ones before it go on.
        for (auto it = resident.begin(); it != resident.end();) {
          if (!L.stopped((*it)->linearId())) {
            ++it;
            continue;
          }
          slots.push_back((*it)->slot());
          spare.push_back((*it)->finish());
          it = resident.erase(it);
          L.resident.fetch_sub(1, std::memory_order_relaxed);
        }
      }
      if (resident.empty() && !start(false))
        break;
      CtaRun &cta = *resident.front();
      if (cta.run() == CtaStep::Done) {
        slots.push_back(cta.slot());
        spare.push_back(cta.finish());
        resident.pop_front();
        L.resident.fetch_sub(1, std::memory_order_relaxed);
        L.progress.fetch_add(1, std::memory_order_relaxed);
        if (L.progressLine)
          support::ProgressDisplay::blockDone(*L.progressLine);
        quiet.store(0, std::memory_order_release);
        polls = 0;
        continue;
      }
      // It polls: what it waits for must come from another CTA. Let a new one start if the GPU could
      // hold it, else give the next resident one its turn.
      resident.push_back(std::move(resident.front()));
      resident.pop_front();
      if (start(true)) {
        quiet.store(0, std::memory_order_release); // the new CTA has not polled yet
        polls = 0;
        continue;
      }
      const uint64_t progress = L.progress.load(std::memory_order_acquire);
      if (polls == 0 || progress != quietFrom) {
        quietFrom = progress; // another worker's CTAs moved: maybe toward what these wait for
        polls = 0;
      }
      ++polls;
      if (polls % resident.size() == 0)
        quiet.store(quietFrom + 1, std::memory_order_release); // each resident CTA polled a turn
      if (polls < kHangTurns * resident.size() || !allQuiet(L, quietFrom) ||
          L.progress.load(std::memory_order_acquire) != quietFrom)
        continue;
      std::string why = fmt::format("every warp of the block that can run has polled memory for {} rounds of {} loop "
                                    "iterations without any change (on a GPU the kernel would hang)",
                                    polls / resident.size(), kYieldQuantum);
      if (uint64_t waiting = queue.remaining())
        why += fmt::format("; {} more block{} of the grid cannot start while {} are resident (at most {} fit on the "
                           "GPU at once: blocks per SM x SMs), so a block waiting for one of them waits forever",
                           waiting, waiting == 1 ? "" : "s", L.resident.load(), L.residentLimit);
      resident.back()->reportHang(why);
      break;
    }
  } catch (const support::MemoryBudgetExceeded &e) {
    reportHostMemory(L, e.what());
  } catch (const std::bad_alloc &) {
    reportHostMemory(L, fmt::format("the host has no memory left for the VM's state of the launch ({} in use of "
                                    "the memory budget of {}; --max-memory, PTXRAY_MAX_MEMORY sets a lower one "
                                    "that is refused cleanly)",
                                    support::memorySizeText(support::memoryInUse()),
                                    support::memorySizeText(support::memoryBudget())));
  }
  quiet.store(LaunchState::kWorkerGone, std::memory_order_release);
  // Any CTA still resident (host memory ran out) ends here: its listeners' onCtaEnd.
}

} // namespace ptxray::vm
