// Pieces every view of an analysis shares: the summary as label/value rows, the per-line views as
// tables of cells, and the user's source files read once for excerpts.
#pragma once

#include "report/AnalysisReport.h"
#include "report/HtmlPage.h"

#include <map>
#include <string>
#include <vector>

namespace ptxray::report {

/// GPU, launch, time estimate and bound, occupancy and limiter, bandwidths (or, without a launch,
/// the kernel's resources).
std::vector<TableRow> summaryRows(const Analysis &a, bool verbose);

/// A per-line view of a launch: "memory", "shared", "divergence", "mix" or "hot". Rows are ordered by
/// cost; heat is each row's share of the view's largest cost. Empty when the launch has nothing for it.
struct View {
  std::string name;
  std::string title;
  DataTable table;
};
std::vector<View> launchViews(const model::LaunchProfile &launch, size_t maxRows);

/// Source files read on first use; a file that cannot be read gives no lines.
class SourceFiles {
public:
  explicit SourceFiles(std::vector<std::string> searchDirs = {}) : dirs_(std::move(searchDirs)) {}
  /// Line `line` (1-based) of `file`, or nullptr.
  const std::string *line(const std::string &file, uint32_t line);
  /// The path `file` was read from (a search directory's copy when the recorded path does not
  /// exist here), or `file` itself when it could not be read.
  std::string displayPath(const std::string &file);

private:
  std::vector<std::string> dirs_;
  struct File {
    std::string path;
    std::vector<std::string> lines;
  };
  const File &load(const std::string &file);
  std::map<std::string, File> files_;
};

/// "file:line" or "(no line information)".
std::string lineName(const std::string &file, uint32_t line);

} // namespace ptxray::report
