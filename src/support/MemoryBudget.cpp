#include "support/MemoryBudget.h"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <string>

namespace ptxray::support {

namespace {

std::atomic<uint64_t> g_limit{0}; ///< 0: not set yet (the default on first use)
std::atomic<uint64_t> g_inUse{0};

/// The first line of a small system file, or "" when it cannot be read.
std::string firstLine(const std::string &path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

/// A cgroup memory limit file's value: bytes, or nullopt for "max" (none) and anything unreadable.
std::optional<uint64_t> cgroupLimit(const std::string &path) {
  const std::string text = firstLine(path);
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end == text.data())
    return std::nullopt;
  return value;
}

} // namespace

MemoryBudgetExceeded::MemoryBudgetExceeded(std::string_view purpose, uint64_t bytes, uint64_t inUse, uint64_t limit)
    : std::runtime_error(fmt::format("{} needs {} more, but {} of the {} memory budget {} in use (--max-memory, "
                                     "PTXRAY_MAX_MEMORY)",
                                     purpose, memorySizeText(bytes), memorySizeText(inUse), memorySizeText(limit),
                                     inUse == 1 ? "is" : "are")),
      bytes_(bytes) {}

uint64_t availableHostMemory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGE_SIZE);
  uint64_t memory =
      pages > 0 && pageSize > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize) : uint64_t{4} << 30;
  // cgroup v2: the process's own group ("0::/path" in /proc/self/cgroup) and the root's file, as
  // containers mount them; cgroup v1's memory controller. An unset limit reads "max" (or a huge
  // number in v1) and changes nothing.
  std::string group;
  {
    std::ifstream in("/proc/self/cgroup");
    for (std::string line; std::getline(in, line);)
      if (line.rfind("0::", 0) == 0)
        group = line.substr(3);
  }
  for (const std::string &file : {"/sys/fs/cgroup" + group + "/memory.max", std::string("/sys/fs/cgroup/memory.max"),
                                  std::string("/sys/fs/cgroup/memory/memory.limit_in_bytes")})
    if (std::optional<uint64_t> limit = cgroupLimit(file); limit && *limit > 0)
      memory = std::min(memory, *limit);
  return memory;
}

uint64_t defaultMemoryBudget() {
  return availableHostMemory() / 4 * 3;
}

uint64_t memoryBudget() {
  uint64_t limit = g_limit.load(std::memory_order_relaxed);
  if (limit == 0) {
    uint64_t expected = 0;
    const uint64_t fallback = defaultMemoryBudget();
    // A concurrent setMemoryBudget wins over the default.
    g_limit.compare_exchange_strong(expected, fallback, std::memory_order_relaxed);
    limit = g_limit.load(std::memory_order_relaxed);
  }
  return limit;
}

uint64_t memoryInUse() {
  return g_inUse.load(std::memory_order_relaxed);
}

void setMemoryBudget(uint64_t bytes) {
  g_limit.store(std::max<uint64_t>(bytes, 1), std::memory_order_relaxed);
}

bool tryReserveMemory(uint64_t bytes) {
  const uint64_t limit = memoryBudget();
  uint64_t inUse = g_inUse.load(std::memory_order_relaxed);
  do {
    if (bytes > limit || inUse > limit - bytes)
      return false;
  } while (!g_inUse.compare_exchange_weak(inUse, inUse + bytes, std::memory_order_relaxed));
  return true;
}

void reserveMemory(uint64_t bytes, std::string_view purpose) {
  if (!tryReserveMemory(bytes))
    throw MemoryBudgetExceeded(purpose, bytes, memoryInUse(), memoryBudget());
}

void releaseMemory(uint64_t bytes) {
  g_inUse.fetch_sub(bytes, std::memory_order_relaxed);
}

std::optional<uint64_t> parseMemorySize(std::string_view text) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
      s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
      s.remove_suffix(1);
    return s;
  };
  text = trim(text);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  if (ec != std::errc{} || end == text.data() || !std::isfinite(value) || value <= 0)
    return std::nullopt;
  std::string unit(trim(std::string_view(end, static_cast<size_t>(text.data() + text.size() - end))));
  for (char &c : unit)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double bytes = 0;
  if (unit == "%") {
    if (value > 100)
      return std::nullopt;
    bytes = static_cast<double>(availableHostMemory()) * value / 100;
  } else {
    if (unit.size() == 3 && unit.substr(1) == "IB")
      unit.resize(1);
    else if (unit.size() == 2 && unit[1] == 'B')
      unit.resize(1);
    int shift = 0;
    if (unit.empty() || unit == "B")
      shift = 0;
    else if (unit == "K")
      shift = 10;
    else if (unit == "M")
      shift = 20;
    else if (unit == "G")
      shift = 30;
    else if (unit == "T")
      shift = 40;
    else
      return std::nullopt;
    bytes = std::ldexp(value, shift);
  }
  // Up to 2^60 bytes (an exabyte): beyond any machine, and still exact in every sum the budget makes.
  if (bytes < 1 || bytes > std::ldexp(1.0, 60))
    return std::nullopt;
  return static_cast<uint64_t>(bytes);
}

std::string memorySizeText(uint64_t bytes) {
  if (bytes < 1024)
    return fmt::format("{} B", bytes);
  static constexpr const char *kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

} // namespace ptxray::support
