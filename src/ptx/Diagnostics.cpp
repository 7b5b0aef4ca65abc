#include "ptx/Diagnostics.h"

#include <fmt/format.h>

namespace ptxray::ptx {

void Diagnostics::error(SourceLoc loc, std::string message) {
  if (full())
    return;
  diags_.push_back({Severity::Error, loc, std::move(message)});
  ++errorCount_;
}

void Diagnostics::warning(SourceLoc loc, std::string message) {
  diags_.push_back({Severity::Warning, loc, std::move(message)});
}

void Diagnostics::note(SourceLoc loc, std::string message) {
  diags_.push_back({Severity::Note, loc, std::move(message)});
}

std::string Diagnostics::render(const SourceManager &sources, const Diagnostic &diag) {
  static constexpr const char *kNames[] = {"error", "warning", "note"};
  LineColumn lc = sources.lineColumn(diag.loc);
  std::string out = fmt::format("{}:{}:{}: {}: {}\n", sources.name(diag.loc.file), lc.line, lc.column,
                                kNames[static_cast<int>(diag.severity)], diag.message);
  std::string_view line = sources.lineText(diag.loc);
  std::string shown;
  std::string marker;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i] == '\t' ? ' ' : line[i];
    shown.push_back(c);
  }
  out += "  " + shown + "\n  ";
  uint32_t col = lc.column == 0 ? 0 : lc.column - 1;
  marker.assign(std::min<size_t>(col, shown.size()), ' ');
  marker.push_back('^');
  size_t width = diag.loc.length;
  if (width > 1 && col + width <= shown.size())
    marker.append(width - 1, '~');
  out += marker + "\n";
  return out;
}

std::string Diagnostics::render(const SourceManager &sources) const {
  std::string out;
  for (const Diagnostic &diag : diags_)
    out += render(sources, diag);
  return out;
}

} // namespace ptxray::ptx
