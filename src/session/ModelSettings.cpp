#include "session/ModelSettings.h"

#include "session/Environment.h"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

namespace ptxray::session {

int clockMHz(const std::string &clock, const arch::ArchTarget &target, SettingSource source) {
  const char *name = source == SettingSource::Environment ? env::kClock : "--clock";
  if (clock.empty() || clock == "default")
    return 0;
  const arch::Gpu *board = target.board();
  if (clock == "base" || clock == "boost") {
    if (!board)
      throw std::invalid_argument(
          fmt::format("{} {}: no board of {} in the database (name a GPU)", name, clock, target.displayName()));
    return clock == "base" ? board->baseClockMHz : board->maxBoostClockMHz();
  }
  int mhz = 0;
  auto [end, ec] = std::from_chars(clock.data(), clock.data() + clock.size(), mhz);
  if (ec != std::errc() || end != clock.data() + clock.size() || mhz <= 0 || mhz > 10000)
    throw std::invalid_argument(
        fmt::format("{}: expected default, base, boost or a clock in MHz (1 to 10000), found \"{}\"", name, clock));
  return mhz;
}

model::ModelOptions modelOptions(const ModelSettings &settings, const arch::ArchTarget &target, SettingSource source) {
  const bool fromEnvironment = source == SettingSource::Environment;
  model::ModelOptions mo;
  mo.smClockMHz = clockMHz(settings.clock, target, source);
  if (settings.dlcm == "ca")
    mo.loadCaching = arch::GlobalLoadCaching::L1;
  else if (settings.dlcm == "cg")
    mo.loadCaching = arch::GlobalLoadCaching::L2Only;
  else if (!settings.dlcm.empty())
    throw std::invalid_argument(
        fmt::format("{}: expected ca or cg, found \"{}\"", fromEnvironment ? env::kDlcm : "--dlcm", settings.dlcm));
  if (settings.bankMode != 0 && settings.bankMode != 4 && settings.bankMode != 8)
    throw std::invalid_argument(fmt::format("{}: expected 4 or 8, found {}",
                                            fromEnvironment ? env::kBankMode : "--bank-mode", settings.bankMode));
  mo.bankWidthBytes = settings.bankMode;
  return mo;
}

} // namespace ptxray::session
