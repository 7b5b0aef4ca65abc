#include "cli/Input.h"

#include "cli/Commands.h"

#include "support/InputFile.h"
#include "toolchain/Compilers.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>

namespace ptxray::cli {

std::optional<InputFile> readInput(const std::string &path) {
  return InputFile{path == "-" ? "<stdin>" : path, support::readInputFile(path)};
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

bool looksLikeMetricList(const std::string &word) {
  if (word.empty() || word.starts_with("-") || word.find('/') != std::string::npos)
    return false;
  for (const char *extension : {".json", ".ptx", ".cu", ".cl"})
    if (word.ends_with(extension))
      return false;
  std::error_code ec;
  if (std::filesystem::exists(word, ec))
    return false;
  // Metric names: letters, digits, '_' and '.'; several joined by commas.
  return std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ',';
  });
}

} // namespace ptxray::cli
