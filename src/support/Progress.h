// Progress of long work on the terminal: which launch is running, its kernel, how many of its blocks
// are done and for how long it has run, as one line on standard error that is redrawn in place and
// erased when the launch ends. Every front end gets it through vm::Device (the CLI's commands, the
// CUDA and OpenCL libraries under `exec`, Python), so a 50-second run is never silent.
//
// When it shows (PTXRAY_PROGRESS):
//   auto (default)  on a terminal (standard error a tty and TERM not "dumb"), once the process has
//                   been running kernels for 2 seconds: short runs and piped output stay quiet;
//   always          also when standard error is not a terminal, as whole lines (a line when a
//                   launch begins, about one a second while it runs, one when it ends): CI logs;
//   never           never.
//
// Cheap where it matters: a block's end is one relaxed atomic add (the VM counts per block, not per
// instruction), and the drawing is done by one background thread, four times a second.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace ptxray::support {

class ProgressDisplay {
public:
  enum class Mode { Terminal, Lines };

  /// One launch being run: what the VM's workers count into.
  struct Launch {
    std::string kernel;
    uint64_t number = 0; ///< the process's launch count when it began (1 for the first)
    uint64_t blocks = 0;
    std::atomic<uint64_t> blocksDone{0};
    std::chrono::steady_clock::time_point start;
    std::chrono::steady_clock::time_point lastLine; ///< Lines mode: when its last line was written
  };

  /// The process's display, or nullptr when progress is not shown (PTXRAY_PROGRESS, above). Decided
  /// once; the object lives until the process ends.
  static ProgressDisplay *instance();

  /// A launch of `blocks` blocks of `kernel` begins; the caller passes the result to blockDone and
  /// endLaunch (several launches may run at once, from different threads).
  std::shared_ptr<Launch> beginLaunch(std::string_view kernel, uint64_t blocks);
  static void blockDone(Launch &launch) { launch.blocksDone.fetch_add(1, std::memory_order_relaxed); }
  /// The launch ended: the line is erased (Terminal) or its last line written (Lines) before the
  /// caller returns, so that the program's own output never lands on a progress line.
  void endLaunch(const std::shared_ptr<Launch> &launch);

  /// The text shown for `launch` while `others` more launches run, at most `width` columns:
  /// "ptxray: launch 3 (matmul): 1,234 of 4,096 blocks (30%), 12.4 s". Exposed for tests.
  static std::string describe(const Launch &launch, size_t others, double seconds, size_t width);

  ProgressDisplay(const ProgressDisplay &) = delete;
  ProgressDisplay &operator=(const ProgressDisplay &) = delete;

private:
  explicit ProgressDisplay(Mode mode);
  void run();         ///< the drawing thread
  void drawLocked();  ///< under mutex_
  void eraseLocked(); ///< under mutex_
  void write(std::string_view text) const;
  size_t terminalWidth() const;

  Mode mode_;
  std::mutex mutex_;
  std::vector<std::shared_ptr<Launch>> running_;
  uint64_t launches_ = 0;
  bool drawn_ = false; ///< Terminal: a line is on the screen
  bool started_ = false;
  std::chrono::steady_clock::time_point firstLaunch_;
  std::thread thread_;
};

} // namespace ptxray::support
