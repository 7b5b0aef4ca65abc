// The threads a device runs its launches' workers on: started on first use and kept, so that a
// launch costs a wake-up, not a thread creation per worker (programs make thousands of short
// launches: a sort's steps, a solver's iterations).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ptxray::vm {

class WorkerPool {
public:
  WorkerPool() = default;
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;
  ~WorkerPool();

  /// Runs task(w) for every w in [0, workers): 0 on the calling thread, the others on the pool's
  /// threads; returns when every one has. A call made while another runs (two host threads
  /// launching at once) gets threads of its own, so that neither waits for the other.
  void run(unsigned workers, const std::function<void(unsigned)> &task);

private:
  void serve(unsigned worker);

  std::mutex busy_; ///< held by the run using the pool's threads
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_; ///< threads_[i] runs worker i + 1
  const std::function<void(unsigned)> *task_ = nullptr;
  uint64_t generation_ = 0; ///< runs started
  unsigned workers_ = 0;    ///< of the current run
  unsigned pending_ = 0;    ///< pool threads still in the current run
  bool stop_ = false;
};

} // namespace ptxray::vm
