#include "cli/Input.h"

#include "toolchain/Compilers.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace ptxray::cli {

std::optional<InputFile> readInput(const std::string &path) {
  InputFile in;
  if (path == "-") {
    in.name = "<stdin>";
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    in.text = ss.str();
    return in;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::cerr << "ptxray: error: cannot open '" << path << "': " << std::strerror(errno) << "\n";
    return std::nullopt;
  }
  in.name = path;
  in.text.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  if (file.bad()) {
    std::cerr << "ptxray: error: cannot read '" << path << "'\n";
    return std::nullopt;
  }
  return in;
}

std::optional<InputFile> readModuleInput(const std::string &path, const std::string &buildOptions, int smVersion) {
  try {
    std::optional<toolchain::CompiledModule> compiled =
        path == "-" ? std::nullopt
                    : toolchain::compileModuleFile(path, smVersion, toolchain::splitBuildOptions(buildOptions));
    if (!compiled) {
      if (!buildOptions.empty()) {
        std::cerr << "ptxray: error: --build-options are for an OpenCL C module (.cl)\n";
        return std::nullopt;
      }
      return readInput(path);
    }
    std::cerr << compiled->buildLog;
    return InputFile{std::move(compiled->name), std::move(compiled->ptx)};
  } catch (const toolchain::CompileError &e) {
    std::string what = e.what();
    std::cerr << what << (what.ends_with('\n') ? "" : "\n");
    return std::nullopt;
  }
}

} // namespace ptxray::cli
