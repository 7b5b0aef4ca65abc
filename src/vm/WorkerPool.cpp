#include "vm/WorkerPool.h"

namespace ptxray::vm {

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread &t : threads_)
    t.join();
}

void WorkerPool::serve(unsigned worker) {
  uint64_t seen = 0;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || (generation_ != seen && worker < workers_); });
    if (stop_)
      return;
    seen = generation_;
    const std::function<void(unsigned)> &task = *task_;
    lock.unlock();
    task(worker);
    lock.lock();
    if (--pending_ == 0)
      done_.notify_all();
  }
}

void WorkerPool::run(unsigned workers, const std::function<void(unsigned)> &task) {
  if (workers <= 1) {
    task(0);
    return;
  }
  std::unique_lock busy(busy_, std::try_to_lock);
  if (!busy) {
    std::vector<std::jthread> own;
    for (unsigned w = 1; w < workers; ++w)
      own.emplace_back([&task, w] { task(w); });
    task(0);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    while (threads_.size() + 1 < workers) {
      const auto worker = static_cast<unsigned>(threads_.size() + 1);
      threads_.emplace_back([this, worker] { serve(worker); });
    }
    task_ = &task;
    workers_ = workers;
    pending_ = workers - 1;
    ++generation_;
  }
  wake_.notify_all();
  task(0);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
}

} // namespace ptxray::vm
