// Reading the files a user hands to ptxray: one path for every command and library, so that a missing
// file, a folder, an endless device or a program given where text belongs gives the same located error
// and never a crash or an unbounded read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace ptxray::support {

/// The most bytes a text input (PTX, C, JSON) may hold: the largest PTX modules nvcc writes for whole
/// libraries are a few hundred MB. Larger or endless inputs (/dev/zero) are refused, not read until
/// memory runs out.
inline constexpr uint64_t kMaxTextInputBytes = uint64_t{1} << 30;
/// The most bytes a program or object file read for its device code may hold (statically linked CUDA
/// libraries make executables of a few GB).
inline constexpr uint64_t kMaxBinaryInputBytes = uint64_t{8} << 30;

/// Why an input cannot be used.
enum class InputProblem {
  Missing,    ///< no such file (or a path component is not a folder)
  Directory,  ///< a folder where a file belongs
  Unreadable, ///< permission denied, or the read failed
  TooLarge,   ///< more bytes than the input may hold
  Binary,     ///< an ELF program or object where text belongs
};

/// An input that cannot be used. what() is "cannot read 'PATH': REASON"; front ends print it as an
/// error and exit with the status documented for unreadable inputs (1 for the CLI).
class InputFileError : public std::runtime_error {
public:
  InputFileError(std::string path, InputProblem problem, std::string reason);
  const std::string &path() const { return path_; }
  InputProblem problem() const { return problem_; }
  const std::string &reason() const { return reason_; }

private:
  std::string path_;
  InputProblem problem_;
  std::string reason_;
};

/// What the bytes of an input must be.
enum class InputContents {
  Text,   ///< PTX, C, JSON: an ELF file is refused (InputProblem::Binary)
  Binary, ///< anything (a program, a fatbinary)
};

/// The whole of `path` ("-" is standard input, named "<stdin>"): a regular file, a pipe or a device,
/// never more than `maxBytes`. Throws InputFileError.
std::string readInputFile(const std::filesystem::path &path, InputContents contents = InputContents::Text,
                          uint64_t maxBytes = kMaxTextInputBytes);

/// Checks that `path` names a readable file (not a folder) without reading it: for inputs another tool
/// reads (nvcc, clang). Throws InputFileError.
void checkInputFile(const std::filesystem::path &path);

/// Throws the InputFileError an errno from opening or reading `path` means.
[[noreturn]] void throwInputFileError(const std::string &path, int error);

/// The reason an errno gives, as a lower-case phrase ("no such file or directory").
std::string errnoReason(int error);

} // namespace ptxray::support
