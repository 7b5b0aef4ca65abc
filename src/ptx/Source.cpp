#include "ptx/Source.h"

#include <algorithm>

namespace ptxray::ptx {

uint32_t SourceManager::add(std::string name, std::string text) {
  auto file = std::make_unique<File>();
  file->name = std::move(name);
  file->text = std::move(text);
  files_.push_back(std::move(file));
  return static_cast<uint32_t>(files_.size() - 1);
}

const std::vector<uint32_t> &SourceManager::lineStarts(const File &file) const {
  if (!file.lineStarts.empty())
    return file.lineStarts;
  file.lineStarts.push_back(0);
  const std::string &text = file.text;
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n')
      file.lineStarts.push_back(static_cast<uint32_t>(i + 1));
  return file.lineStarts;
}

LineColumn SourceManager::lineColumn(SourceLoc loc) const {
  if (loc.file >= files_.size())
    return {};
  const auto &starts = lineStarts(*files_[loc.file]);
  auto it = std::upper_bound(starts.begin(), starts.end(), loc.offset);
  uint32_t line = static_cast<uint32_t>(it - starts.begin());
  return {line, loc.offset - starts[line - 1] + 1};
}

std::string_view SourceManager::lineText(SourceLoc loc) const {
  if (loc.file >= files_.size())
    return {};
  const File &file = *files_[loc.file];
  const auto &starts = lineStarts(file);
  auto it = std::upper_bound(starts.begin(), starts.end(), loc.offset);
  size_t begin = *(it - 1);
  size_t end = file.text.find('\n', begin);
  if (end == std::string::npos)
    end = file.text.size();
  std::string_view line(file.text.data() + begin, end - begin);
  if (!line.empty() && line.back() == '\r')
    line.remove_suffix(1);
  return line;
}

std::string_view SourceManager::intern(std::string_view text) {
  interned_.emplace_back(text);
  return interned_.back();
}

std::string SourceManager::position(SourceLoc loc) const {
  LineColumn lc = lineColumn(loc);
  return std::string(loc.file < files_.size() ? name(loc.file) : std::string_view("?")) + ":" +
         std::to_string(lc.line) + ":" + std::to_string(lc.column);
}

std::string_view SourceManager::trimmedLineText(SourceLoc loc) const {
  std::string_view text = lineText(loc);
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  return text;
}

} // namespace ptxray::ptx
