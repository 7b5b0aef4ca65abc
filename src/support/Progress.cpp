#include "support/Progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/ioctl.h>
#include <unistd.h>

namespace ptxray::support {

namespace {

using Clock = std::chrono::steady_clock;

/// How long a process runs kernels before a terminal shows their progress: short runs stay quiet.
constexpr auto kTerminalDelay = std::chrono::seconds(2);
constexpr auto kTick = std::chrono::milliseconds(250);
/// Lines mode: at most one line a second per running launch.
constexpr auto kLineInterval = std::chrono::seconds(1);

double secondsSince(Clock::time_point start, Clock::time_point now) {
  return std::chrono::duration<double>(now - start).count();
}

std::string grouped(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return out;
}

} // namespace

ProgressDisplay *ProgressDisplay::instance() {
  // Never destroyed: launches may still end while static destructors run (the CUDA libraries write
  // their outputs at exit), and the drawing thread must not outlive its object.
  static ProgressDisplay *const display = []() -> ProgressDisplay * {
    const char *setting = std::getenv("PTXRAY_PROGRESS");
    const std::string_view value = setting ? setting : "auto";
    if (value == "never" || value == "0" || value == "off")
      return nullptr;
    if (value == "always" || value == "1" || value == "on")
      return new ProgressDisplay(isatty(STDERR_FILENO) ? Mode::Terminal : Mode::Lines);
    const char *term = std::getenv("TERM");
    if (!isatty(STDERR_FILENO) || (term && std::string_view(term) == "dumb"))
      return nullptr;
    return new ProgressDisplay(Mode::Terminal);
  }();
  return display;
}

ProgressDisplay::ProgressDisplay(Mode mode) : mode_(mode) {}

std::string ProgressDisplay::describe(const Launch &launch, size_t others, double seconds, size_t width) {
  const uint64_t done = std::min(launch.blocksDone.load(std::memory_order_relaxed), launch.blocks);
  const int percent = launch.blocks ? static_cast<int>(done * 100 / launch.blocks) : 100;
  std::string tail = fmt::format("): {} of {} block{} ({}%), {:.1f} s", grouped(done), grouped(launch.blocks),
                                 launch.blocks == 1 ? "" : "s", percent, seconds);
  if (others)
    tail += fmt::format(", {} more launch{} running", others, others == 1 ? "" : "es");
  const std::string head = fmt::format("ptxray: launch {} (", launch.number);
  std::string kernel = launch.kernel;
  // A long (demangled, templated) name is what gives way when the line is too wide.
  if (width > 0 && head.size() + kernel.size() + tail.size() > width) {
    const size_t room = width > head.size() + tail.size() + 3 ? width - head.size() - tail.size() : 3;
    if (kernel.size() > room)
      kernel = kernel.substr(0, room - 3) + "...";
  }
  return head + kernel + tail;
}

std::shared_ptr<ProgressDisplay::Launch> ProgressDisplay::beginLaunch(std::string_view kernel, uint64_t blocks) {
  auto launch = std::make_shared<Launch>();
  launch->kernel = std::string(kernel);
  launch->blocks = blocks;
  launch->start = Clock::now();
  std::lock_guard lock(mutex_);
  launch->number = ++launches_;
  running_.push_back(launch);
  if (!started_) {
    started_ = true;
    firstLaunch_ = launch->start;
    thread_ = std::thread([this] { run(); });
    thread_.detach();
  }
  if (mode_ == Mode::Lines) {
    launch->lastLine = launch->start;
    write(describe(*launch, running_.size() - 1, 0, 0) + "\n");
  }
  return launch;
}

void ProgressDisplay::endLaunch(const std::shared_ptr<Launch> &launch) {
  std::lock_guard lock(mutex_);
  std::erase(running_, launch);
  if (mode_ == Mode::Lines)
    write(describe(*launch, running_.size(), secondsSince(launch->start, Clock::now()), 0) + "\n");
  else
    eraseLocked();
}

void ProgressDisplay::run() {
  for (;;) {
    std::this_thread::sleep_for(kTick);
    std::lock_guard lock(mutex_);
    drawLocked();
  }
}

void ProgressDisplay::drawLocked() {
  if (running_.empty())
    return;
  const Clock::time_point now = Clock::now();
  if (mode_ == Mode::Lines) {
    for (const auto &launch : running_)
      if (now - launch->lastLine >= kLineInterval) {
        launch->lastLine = now;
        write(describe(*launch, running_.size() - 1, secondsSince(launch->start, now), 0) + "\n");
      }
    return;
  }
  if (now - firstLaunch_ < kTerminalDelay)
    return;
  // The latest launch is the one shown; the others are counted.
  const Launch &shown = *running_.back();
  const size_t width = terminalWidth();
  // "\r" back to the line's start, the text, then erase what a longer previous text left.
  write(fmt::format("\r{}\x1b[K",
                    describe(shown, running_.size() - 1, secondsSince(shown.start, now), width > 1 ? width - 1 : 0)));
  drawn_ = true;
}

void ProgressDisplay::eraseLocked() {
  if (!drawn_)
    return;
  write("\r\x1b[K");
  drawn_ = false;
}

void ProgressDisplay::write(std::string_view text) const {
  // write(2) straight to the descriptor: no stdio buffer shared with the program's own stderr.
  while (!text.empty()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data(), text.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return; // a closed or full terminal: progress is not worth an error
    text.remove_prefix(static_cast<size_t>(n));
  }
}

size_t ProgressDisplay::terminalWidth() const {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return size.ws_col;
  return 80;
}

} // namespace ptxray::support
