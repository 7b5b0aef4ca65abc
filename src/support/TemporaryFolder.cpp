#include "support/TemporaryFolder.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace ptxray::support {

TemporaryFolder::TemporaryFolder(const std::string &prefix) {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec)
    base = "/tmp";
  std::string dir = (base / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(dir.data()))
    throw std::runtime_error("cannot create a temporary directory in " + base.string() + ": " + std::strerror(errno));
  path_ = dir;
}

TemporaryFolder::~TemporaryFolder() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

} // namespace ptxray::support
