// The performance model's settings as users give them (`--clock`, `--dlcm`, `--bank-mode` on the
// command line; PTXRAY_CLOCK, PTXRAY_DLCM, PTXRAY_BANK_MODE for programs), checked and turned into
// model::ModelOptions for one target, the same way for every front end.
#pragma once

#include "arch/GpuDatabase.h"
#include "model/PerformanceModel.h"

#include <string>

namespace ptxray::session {

inline constexpr const char *kClockHelp =
    "SM clock of the time estimate: default (the board as shipped; base on a K40, whose GPU Boost is opt-in), "
    "base, boost, or MHz";

struct ModelSettings {
  /// The SM clock of the estimate ([KTG] §1.4.6 GPU Boost): "" or "default" (the board as shipped:
  /// base where boost is opt-in, as on the K40, else the highest boost clock), "base", "boost" (the
  /// highest), or a number of MHz.
  std::string clock;
  std::string dlcm; ///< "ca" (global loads cached in L1), "cg" (L2 only), "": the architecture's default
  int bankMode = 0; ///< Kepler's shared-memory bank width in bytes (4 or 8); 0: the driver's default
  bool operator==(const ModelSettings &) const = default;
};

/// Where settings come from, for the errors that name them: the command line (--clock, --dlcm,
/// --bank-mode) or a program's environment (PTXRAY_CLOCK, PTXRAY_DLCM, PTXRAY_BANK_MODE).
enum class SettingSource : uint8_t { CommandLine, Environment };

/// The MHz of `clock` for ModelOptions::smClockMHz (0: the board's default). Throws
/// std::invalid_argument naming the option or variable.
int clockMHz(const std::string &clock, const arch::ArchTarget &target,
             SettingSource source = SettingSource::CommandLine);

/// Throws std::invalid_argument for a value out of range, naming the option or variable.
model::ModelOptions modelOptions(const ModelSettings &settings, const arch::ArchTarget &target,
                                 SettingSource source = SettingSource::CommandLine);

} // namespace ptxray::session
