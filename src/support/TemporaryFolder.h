// A fresh folder of the process's own under the system's temporary directory, removed with all it
// holds when the object goes: where compilers write their output and ptxas reads its input.
#pragma once

#include <filesystem>
#include <string>

namespace ptxray::support {

class TemporaryFolder {
public:
  /// `prefix` names the folder (prefix-XXXXXX). Throws std::runtime_error when none can be made.
  explicit TemporaryFolder(const std::string &prefix);
  ~TemporaryFolder();
  TemporaryFolder(const TemporaryFolder &) = delete;
  TemporaryFolder &operator=(const TemporaryFolder &) = delete;
  const std::filesystem::path &path() const { return path_; }

private:
  std::filesystem::path path_;
};

} // namespace ptxray::support
