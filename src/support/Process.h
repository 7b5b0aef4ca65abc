// Running the external tools ptxray relies on (nvcc, ptxas) without a shell: an argument vector goes
// straight to the program, so no file name can be read as shell syntax, whatever characters it holds.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::support {

struct ProcessResult {
  bool started = false; ///< false: the program could not be run (startError says why)
  int exitCode = -1;    ///< the exit status; 128 + N when killed by signal N
  std::string output;   ///< standard output and standard error, interleaved as written
  std::string startError;

  bool ok() const { return started && exitCode == 0; }
};

/// Runs argv[0] with arguments argv[1...] and waits for it. argv[0] is searched in PATH unless it
/// contains a slash. Standard input is /dev/null.
ProcessResult runProcess(const std::vector<std::string> &argv);

/// The path of an executable: `name` searched in PATH, else the first of `fallbacks` that exists
/// and is executable.
std::optional<std::string> findExecutable(std::string_view name, const std::vector<std::string> &fallbacks = {});

/// `path` as an argument no program can take for an option: a relative path starting with '-' gets
/// a "./" in front.
std::string pathArgument(const std::string &path);

} // namespace ptxray::support
