#include "ptx/Diagnostics.h"

#include <fmt/format.h>

#include <algorithm>

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
  // Source order, as a compiler prints them; a note stays with the diagnostic it explains.
  std::vector<std::pair<size_t, size_t>> groups; // [begin, end) into diags_
  for (size_t i = 0; i < diags_.size(); ++i) {
    if (diags_[i].severity == Severity::Note && !groups.empty())
      groups.back().second = i + 1;
    else
      groups.emplace_back(i, i + 1);
  }
  std::stable_sort(groups.begin(), groups.end(), [&](const auto &a, const auto &b) {
    const SourceLoc &x = diags_[a.first].loc, &y = diags_[b.first].loc;
    return x.file != y.file ? x.file < y.file : x.offset < y.offset;
  });
  std::string out;
  for (const auto &[begin, end] : groups)
    for (size_t i = begin; i < end; ++i)
      out += render(sources, diags_[i]);
  return out;
}

} // namespace ptxray::ptx
