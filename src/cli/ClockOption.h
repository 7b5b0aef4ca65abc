// `--clock`: the SM clock the performance model estimates at ([KTG] §1.4.6 GPU Boost): `default`
// (the board as shipped: base where boost is opt-in, as on the K40, else the highest boost clock),
// `base`, `boost` (the highest), or a number of MHz.
#pragma once

#include "arch/GpuDatabase.h"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>
#include <string>

namespace ptxray::cli {

inline constexpr const char *kClockHelp =
    "SM clock of the time estimate: default (the board as shipped; base on a K40, whose GPU Boost is opt-in), "
    "base, boost, or MHz";

/// The MHz for ModelOptions::smClockMHz (0: the board's default). Throws std::invalid_argument.
inline int clockMHz(const std::string &clock, const arch::ArchTarget &target) {
  if (clock.empty() || clock == "default")
    return 0;
  const arch::Gpu *board = target.board();
  if (clock == "base" || clock == "boost") {
    if (!board)
      throw std::invalid_argument(
          fmt::format("--clock {}: no board of {} in the database (name a GPU)", clock, target.displayName()));
    return clock == "base" ? board->baseClockMHz : board->maxBoostClockMHz();
  }
  int mhz = 0;
  auto [end, ec] = std::from_chars(clock.data(), clock.data() + clock.size(), mhz);
  if (ec != std::errc() || end != clock.data() + clock.size() || mhz <= 0 || mhz > 10000)
    throw std::invalid_argument(
        fmt::format("--clock: expected default, base, boost or a clock in MHz (1 to 10000), found \"{}\"", clock));
  return mhz;
}

} // namespace ptxray::cli
