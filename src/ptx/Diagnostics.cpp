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

namespace {

/// The length of the UTF-8 sequence at `text[i]`, or 0 when the bytes there are not one.
size_t utf8Length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  const size_t n = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xe ? 3 : (lead >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > text.size() || (n == 2 && lead < 0xc2))
    return 0;
  for (size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xc0) != 0x80)
      return 0;
  return n;
}

/// Whether the byte at `text[i]` shows as itself (not a control character, part of valid UTF-8).
bool printableAt(std::string_view text, size_t i, size_t &length) {
  const auto c = static_cast<unsigned char>(text[i]);
  length = utf8Length(text, i);
  return length > 0 && c >= 0x20 && c != 0x7f;
}

/// The most columns of a source line a diagnostic shows: the rest, on either side, is elided.
constexpr size_t kShownColumns = 160;

} // namespace

std::string escapedForTerminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t length = 0;
    if (printableAt(text, i, length)) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
      ++i;
    }
  }
  return out;
}

std::string Diagnostics::summaryLine() const {
  if (!full())
    return fmt::format("{} error{} generated.\n", errorCount_, errorCount_ == 1 ? "" : "s");
  // The parser stops at the limit (a binary file would flood); later errors may have been met.
  return fmt::format("{} errors generated; stopped there (at most {} are reported).\n", errorCount_, kMaxErrors);
}

std::string Diagnostics::render(const SourceManager &sources, const Diagnostic &diag) {
  static constexpr const char *kNames[] = {"error", "warning", "note"};
  LineColumn lc = sources.lineColumn(diag.loc);
  std::string out = fmt::format("{}:{}:{}: {}: {}\n", sources.name(diag.loc.file), lc.line, lc.column,
                                kNames[static_cast<int>(diag.severity)], diag.message);
  std::string_view line = sources.lineText(diag.loc);
  uint32_t col = lc.column == 0 ? 0 : lc.column - 1;
  // A window of the line around the column (a minified or hostile file has lines of megabytes),
  // with '...' where it was cut.
  size_t first = 0;
  std::string shown;
  if (line.size() > kShownColumns) {
    first = col > kShownColumns / 2 ? std::min<size_t>(col - kShownColumns / 2, line.size() - kShownColumns) : 0;
    line = line.substr(first, kShownColumns);
    if (first > 0) {
      shown = "...";
      col = static_cast<uint32_t>(col - first + 3);
    }
  }
  // One column per byte, so that the caret stays under its byte: what a terminal would act on or
  // could not show becomes '?'.
  for (size_t i = 0; i < line.size();) {
    size_t length = 0;
    if (line[i] == '\t') {
      shown.push_back(' ');
      ++i;
    } else if (printableAt(line, i, length)) {
      shown.append(line.substr(i, length));
      i += length;
    } else {
      shown.push_back('?');
      ++i;
    }
  }
  if (first + line.size() < sources.lineText(diag.loc).size())
    shown += "...";
  std::string marker;
  out += "  " + shown + "\n  ";
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
