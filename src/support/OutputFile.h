// Writing the files a user asks for: written whole, closed and checked, so that a full disk, a missing
// folder or a folder given as the file is an error that names the file, never an output lost with
// exit status 0.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ptxray::support {

/// An output that could not be written. what() is "cannot write 'PATH': REASON".
class OutputFileError : public std::runtime_error {
public:
  OutputFileError(std::string path, std::string reason);
  const std::string &path() const { return path_; }
  const std::string &reason() const { return reason_; }

private:
  std::string path_;
  std::string reason_;
};

/// Writes `contents` to `path`, replacing it (a device such as /dev/stdout is written as it is).
/// Throws OutputFileError when any of it did not arrive, at the write or at the close.
void writeOutputFile(const std::filesystem::path &path, std::string_view contents);

/// Why `path` could not be written (empty when it can, or when it is "-"): a folder, a read-only file,
/// a folder that does not exist or cannot be written. Checked before long work, so that a mistyped
/// folder does not cost the whole run and then lose the output. With `createsFolders`, missing
/// folders are fine (they are made when the file is written).
std::string outputFileProblem(const std::filesystem::path &path, bool createsFolders = false);

/// Flushes standard output and returns why what was written to it did not all arrive ("" when it
/// did): the last check of a command whose result is what it prints (`ptxray fmt x.ptx > out`).
std::string standardOutputProblem();

} // namespace ptxray::support
