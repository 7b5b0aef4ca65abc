#include "support/InputFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <utility>

namespace ptxray::support {

namespace {

std::string inQuotes(const std::string &path) {
  return "'" + path + "'";
}

std::string sizeLimit(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30) && bytes % (uint64_t{1} << 30) == 0)
    return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (uint64_t{1} << 20) && bytes % (uint64_t{1} << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

struct FileDescriptor {
  int fd;
  bool owned;
  FileDescriptor(int descriptor, bool owns) : fd(descriptor), owned(owns) {}
  FileDescriptor(FileDescriptor &&other) noexcept : fd(other.fd), owned(std::exchange(other.owned, false)) {}
  FileDescriptor(const FileDescriptor &) = delete;
  FileDescriptor &operator=(const FileDescriptor &) = delete;
  ~FileDescriptor() {
    if (owned && fd >= 0)
      ::close(fd);
  }
};

} // namespace

void throwInputFileError(const std::string &name, int error) {
  InputProblem problem = error == ENOENT || error == ENOTDIR ? InputProblem::Missing
                         : error == EISDIR                   ? InputProblem::Directory
                                                             : InputProblem::Unreadable;
  throw InputFileError(name, problem, errnoReason(error));
}

namespace {

[[noreturn]] void tooLarge(const std::string &name, uint64_t maxBytes, const char *kind) {
  throw InputFileError(name, InputProblem::TooLarge,
                       "larger than the " + sizeLimit(maxBytes) + " " + kind + " input may hold");
}

} // namespace

InputFileError::InputFileError(std::string path, InputProblem problem, std::string reason)
    : std::runtime_error("cannot read " + inQuotes(path) + ": " + reason), path_(std::move(path)), problem_(problem),
      reason_(std::move(reason)) {}

std::string errnoReason(int error) {
  std::string text = std::strerror(error);
  if (text.size() > 1 && std::islower(static_cast<unsigned char>(text[1])))
    text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

namespace {

/// `path` opened for reading ("-": standard input, not closed), refused if it is a folder; its status
/// in `st`.
FileDescriptor openInput(const std::filesystem::path &path, const std::string &name, struct stat &st) {
  const bool standardInput = path == "-";
  FileDescriptor file{standardInput ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC), !standardInput};
  if (file.fd < 0)
    throwInputFileError(name, errno);
  if (::fstat(file.fd, &st) != 0)
    throwInputFileError(name, errno);
  if (S_ISDIR(st.st_mode))
    throwInputFileError(name, EISDIR);
  return file;
}

} // namespace

std::string readInputFile(const std::filesystem::path &path, InputContents contents, uint64_t maxBytes) {
  const std::string name = path == "-" ? "<stdin>" : path.string();
  struct stat st {};
  const FileDescriptor file = openInput(path, name, st);
  const char *kind = contents == InputContents::Text ? "a text" : "a binary";
  std::string bytes;
  if (S_ISREG(st.st_mode)) {
    if (static_cast<uint64_t>(st.st_size) > maxBytes)
      tooLarge(name, maxBytes, kind);
    bytes.reserve(std::max<size_t>(static_cast<size_t>(st.st_size) + 1, 4096)); // + 1: the read that sees the end
  }
  // Read in chunks whatever the kind of file (a regular file can grow while it is read; a pipe or a
  // device has no size). At the limit, one byte more is read aside: were it read into the string, the
  // string would double its memory for it. A regular file is asked for what its size says is left
  // (and a little more, to see the end or that it grew), not a whole chunk: the string is zero-filled
  // to what is asked, and a megabyte for each small file read was most of a test process's start.
  constexpr size_t kChunk = size_t{1} << 20;
  constexpr size_t kSmallestRead = 4096;
  const bool sized = S_ISREG(st.st_mode);
  while (true) {
    const size_t at = bytes.size();
    size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, maxBytes - at));
    if (sized) {
      const uint64_t left = static_cast<uint64_t>(st.st_size) > at ? static_cast<uint64_t>(st.st_size) - at : 0;
      want = static_cast<size_t>(std::min<uint64_t>(want, std::max<uint64_t>(left + 1, kSmallestRead)));
    }
    if (want == 0) {
      char beyond;
      ssize_t got = ::read(file.fd, &beyond, 1);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        throwInputFileError(name, errno);
      if (got > 0)
        tooLarge(name, maxBytes, kind);
      break;
    }
    bytes.resize(at + want);
    ssize_t got = ::read(file.fd, bytes.data() + at, want);
    if (got < 0 && errno == EINTR) {
      bytes.resize(at);
      continue;
    }
    if (got < 0)
      throwInputFileError(name, errno);
    bytes.resize(at + static_cast<size_t>(got));
    if (got == 0)
      break;
  }
  if (contents == InputContents::Text && bytes.size() >= 4 &&
      bytes.compare(0, 4,
                    "\x7f"
                    "ELF") == 0)
    throw InputFileError(name, InputProblem::Binary, "an ELF program or object file, not text");
  return bytes;
}

void checkInputFile(const std::filesystem::path &path) {
  struct stat st {};
  (void)openInput(path, path.string(), st);
}

} // namespace ptxray::support
