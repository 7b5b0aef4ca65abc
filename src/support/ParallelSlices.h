// Host-side data parallelism for work outside kernels (filling and loading large buffers): a range
// cut into contiguous slices, each run on its own thread, so that preparing a run's inputs does not
// serialize a run whose launches use every core.
#pragma once

#include <cstdint>
#include <functional>

namespace ptxray::support {

/// Calls body(first, last) on disjoint slices covering [0, count), each at least `grain` items
/// long (but the last), on up to `threads` threads (0: one per hardware thread), and returns when
/// all have. One slice runs on the calling thread. `body` must not throw.
void parallelSlices(uint64_t count, uint64_t grain, unsigned threads,
                    const std::function<void(uint64_t first, uint64_t last)> &body);

} // namespace ptxray::support
