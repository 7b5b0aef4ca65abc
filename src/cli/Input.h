// Reading the user's input file (or standard input for "-").
#pragma once

#include <optional>
#include <string>

namespace ptxray::cli {

struct InputFile {
  std::string name; ///< as shown in diagnostics ("<stdin>" for "-")
  std::string text;
};

/// Reads `path`; prints an error and returns nullopt when it cannot.
std::optional<InputFile> readInput(const std::string &path);

} // namespace ptxray::cli
