// Source buffers and positions. A SourceManager owns the text of every file it loads; names in
// the IR are views into that text, so buffers never move once loaded.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::ptx {

struct SourceLoc {
  uint32_t file = 0;
  uint32_t offset = 0;
  uint32_t length = 0;
  // Positions never take part in IR identity: a re-parsed module has the same IR at new offsets.
  friend bool operator==(const SourceLoc &, const SourceLoc &) { return true; }
};

struct LineColumn {
  uint32_t line = 0;   ///< 1-based
  uint32_t column = 0; ///< 1-based, in bytes
};

class SourceManager {
public:
  /// Takes ownership of `text`; returns the file id.
  uint32_t add(std::string name, std::string text);
  std::string_view name(uint32_t file) const { return files_[file]->name; }
  std::string_view text(uint32_t file) const { return files_[file]->text; }
  size_t size() const { return files_.size(); }

  LineColumn lineColumn(SourceLoc loc) const;
  std::string_view lineText(SourceLoc loc) const;
  /// "file:line:column" of a position, as reports print it.
  std::string position(SourceLoc loc) const;
  /// The line of a position without its indentation (an instruction as written).
  std::string_view trimmedLineText(SourceLoc loc) const;

  std::string_view intern(std::string_view text);

private:
  struct File {
    std::string name;
    std::string text;
    mutable std::vector<uint32_t> lineStarts; // built on first use
  };
  const std::vector<uint32_t> &lineStarts(const File &file) const;

  std::vector<std::unique_ptr<File>> files_;
  std::deque<std::string> interned_;
};

} // namespace ptxray::ptx
