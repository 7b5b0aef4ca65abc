#include "support/ParallelSlices.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace ptxray::support {

void parallelSlices(uint64_t count, uint64_t grain, unsigned threads,
                    const std::function<void(uint64_t first, uint64_t last)> &body) {
  if (count == 0)
    return;
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  grain = std::max<uint64_t>(grain, 1);
  const uint64_t slices = std::clamp<uint64_t>(count / grain, 1, threads);
  const uint64_t step = count / slices, extra = count % slices;
  // Slice s covers step items, plus one for the first `extra` slices.
  auto bounds = [&](uint64_t s) { return s * step + std::min(s, extra); };
  std::vector<std::jthread> others;
  others.reserve(slices - 1);
  for (uint64_t s = 1; s < slices; ++s)
    others.emplace_back([&body, first = bounds(s), last = bounds(s + 1)] { body(first, last); });
  body(0, bounds(1));
}

} // namespace ptxray::support
