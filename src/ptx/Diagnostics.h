// Diagnostics in the compiler style users know: `file:line:col: error: message`, the offending
// line, and a caret under the token. Every problem is collected, not just the first.
#pragma once

#include "ptx/Source.h"

#include <string>
#include <vector>

namespace ptxray::ptx {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLoc loc;
  std::string message;
};

class Diagnostics {
public:
  /// Parsing stops collecting after this many errors (a binary file would otherwise flood).
  static constexpr size_t kMaxErrors = 200;

  void error(SourceLoc loc, std::string message);
  void warning(SourceLoc loc, std::string message);
  void note(SourceLoc loc, std::string message);

  bool hasErrors() const { return errorCount_ > 0; }
  /// The errors kept (at most kMaxErrors).
  size_t errorCount() const { return errorCount_; }
  bool full() const { return errorCount_ >= kMaxErrors; }
  /// "N errors generated." as a compiler ends, saying so when it stopped at the limit.
  std::string summaryLine() const;
  const std::vector<Diagnostic> &all() const { return diags_; }

  /// Renders every diagnostic with its source line and caret.
  std::string render(const SourceManager &sources) const;
  static std::string render(const SourceManager &sources, const Diagnostic &diag);

private:
  std::vector<Diagnostic> diags_;
  size_t errorCount_ = 0;
};

/// `text` with every byte a terminal could act on (control characters, DEL, bytes that are not
/// UTF-8) written as \xNN: diagnostics quote the input, and the input may be hostile.
std::string escapedForTerminal(std::string_view text);

} // namespace ptxray::ptx
