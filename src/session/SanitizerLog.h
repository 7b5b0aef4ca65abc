// compute-sanitizer's conventions for a run's tool reports, whoever runs it (`ptxray run`, a program
// under `ptxray exec`): each launch's reports on the error stream as they come, every tool's summary
// line at the end (the leak check's with its bytes and blocks), the exit status they imply, and the
// same reports as one JSON document (schema ptxray-sanitizers, docs/sanitizers.md).
#pragma once

#include "ptx/Demangle.h"
#include "session/Tools.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <span>
#include <string>

namespace ptxray::session {

class SanitizerLog {
public:
  /// Prints on `err`, at most `printLimit` reports (0: all; compute-sanitizer's --print-limit);
  /// keeps the reports for document() when `keepJson`.
  /// `names`: how the printed reports name kernels (the JSON keeps the PTX names).
  SanitizerLog(Instruments &instruments, std::ostream &err, bool keepJson, uint64_t printLimit = 0,
               ptx::NameStyle names = ptx::NameStyle::Full);

  /// A launch's reports (Instruments::launchReports): racecheck, synccheck and initcheck's on the
  /// error stream (memcheck's faults are printed with the launch's failure, as without memcheck);
  /// all of them kept for the JSON. `launch` is the launch's index in the run, `kernel` its name.
  void afterLaunch(std::span<const ToolReport> reports, size_t launch, const std::string &kernel);
  /// At the end of the run: the leak reports and every tool's summary line. True when a tool
  /// reported an error (the run's exit status is then 1).
  bool finish();
  /// A launch the kernel filters left out: its tools' counts (the summaries after it less those
  /// before) are not the run's.
  void exclude(std::span<const ToolSummary> before, std::span<const ToolSummary> after);
  /// The errors every tool found (after finish()): what compute-sanitizer's ERROR SUMMARY counts.
  uint64_t errorCount() const { return errors_; }

  /// {"schema": "ptxray-sanitizers", "version": 1, "arch", "tools", "reports", "summary"}.
  nlohmann::json document(const std::string &arch) const;

private:
  Instruments &instruments_;
  std::ostream &err_;
  bool keepJson_;
  uint64_t printLimit_ = 0;
  ptx::NameStyle names_ = ptx::NameStyle::Full;
  uint64_t printed_ = 0, notPrinted_ = 0;
  uint64_t errors_ = 0;
  std::vector<ToolSummary> excluded_; ///< per tool: counts of launches left out
  /// Prints `report` unless the print limit has been reached (then counts it).
  void print(const ToolReport &report);
  nlohmann::json reports_ = nlohmann::json::array();
  nlohmann::json summary_ = nlohmann::json::object();
  void keep(const ToolReport &report, std::optional<size_t> launch, const std::string *kernel);
};

/// A report's source sites as JSON ({"source_line", "file", "line", "ptx_location", "ptx_text",
/// "function"}).
nlohmann::json siteJson(const sanitizers::SiteText &site);

} // namespace ptxray::session
