// Reading the user's input file (or standard input for "-").
#pragma once

#include <optional>
#include <string>

namespace ptxray::cli {

struct InputFile {
  std::string name; ///< as shown in diagnostics ("<stdin>" for "-")
  std::string text;
};

/// Reads `path` (support::readInputFile); throws support::InputFileError when it cannot, which the
/// command line reports with exit status 1.
std::optional<InputFile> readInput(const std::string &path);

/// A module's PTX: a .ptx file as it is, a .cl file (OpenCL C, with `buildOptions`) or a .cu file
/// (CUDA, for compute capability `smVersion`) compiled to PTX, named FILE.cl.ptx / FILE.cu.ptx.
/// Prints the compiler's diagnostics and returns nullopt when it cannot.
std::optional<InputFile> readModuleInput(const std::string &path, const std::string &buildOptions = {},
                                         int smVersion = 75);

} // namespace ptxray::cli
