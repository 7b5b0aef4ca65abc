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
  size_t errorCount() const { return errorCount_; }
  bool full() const { return errorCount_ >= kMaxErrors; }
  const std::vector<Diagnostic> &all() const { return diags_; }

  /// Renders every diagnostic with its source line and caret.
  std::string render(const SourceManager &sources) const;
  static std::string render(const SourceManager &sources, const Diagnostic &diag);

private:
  std::vector<Diagnostic> diags_;
  size_t errorCount_ = 0;
};

} // namespace ptxray::ptx
