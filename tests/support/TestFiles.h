// Helpers shared by the tests: locating and reading the project's fixtures.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace ptxray::test {

inline std::filesystem::path sourceDir() {
  return PTXRAY_SOURCE_DIR;
}

inline std::string readFile(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Every file with `extension` under `dir` (recursively), sorted for stable test names.
inline std::vector<std::filesystem::path> filesUnder(const std::filesystem::path &dir, const std::string &extension) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::exists(dir))
    return out;
  for (const auto &entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == extension)
      out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace ptxray::test
