#include "support/OutputFile.h"

#include "support/InputFile.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>

namespace ptxray::support {

OutputFileError::OutputFileError(std::string path, std::string reason)
    : std::runtime_error("cannot write '" + path + "': " + reason), path_(std::move(path)), reason_(std::move(reason)) {
}

void writeOutputFile(const std::filesystem::path &path, std::string_view contents) {
  const std::string name = path.string();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    throw OutputFileError(name, errnoReason(errno));
  size_t at = 0;
  while (at < contents.size()) {
    ssize_t wrote = ::write(fd, contents.data() + at, contents.size() - at);
    if (wrote < 0 && errno == EINTR)
      continue;
    if (wrote <= 0) {
      const int error = wrote < 0 ? errno : ENOSPC;
      ::close(fd);
      throw OutputFileError(name, errnoReason(error));
    }
    at += static_cast<size_t>(wrote);
  }
  // Some file systems (NFS) report a failed write only here.
  if (::close(fd) != 0 && errno != EINTR)
    throw OutputFileError(name, errnoReason(errno));
}

std::string outputFileProblem(const std::filesystem::path &path, bool createsFolders) {
  namespace fs = std::filesystem;
  if (path.empty() || path == "-")
    return {};
  std::error_code ec;
  if (fs::exists(path, ec)) {
    if (fs::is_directory(path, ec))
      return errnoReason(EISDIR);
    return ::access(path.c_str(), W_OK) == 0 ? std::string() : errnoReason(errno);
  }
  // The nearest folder that exists must let a file (or the missing folders) be made in it.
  fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  while (createsFolders && !fs::exists(folder, ec)) {
    const fs::path up = folder.parent_path();
    if (up == folder || folder == ".") // the root, or a working folder that was removed
      break;
    folder = up.empty() ? fs::path(".") : up;
  }
  if (!fs::exists(folder, ec))
    return errnoReason(ENOENT);
  if (!fs::is_directory(folder, ec))
    return errnoReason(ENOTDIR);
  return ::access(folder.c_str(), W_OK | X_OK) == 0 ? std::string() : errnoReason(errno);
}

std::string standardOutputProblem() {
  errno = 0;
  std::cout.flush();
  if (std::fflush(stdout) != 0 && errno != 0)
    return errnoReason(errno);
  // An earlier write failed (its errno is long gone): say what is known.
  if (!std::cout || std::ferror(stdout))
    return "part of the output could not be written";
  return {};
}

} // namespace ptxray::support
