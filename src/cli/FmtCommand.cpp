// `ptxray fmt FILE.ptx`: canonical PTX on standard output (an OpenCL C or CUDA file: its PTX).
#include "cli/Commands.h"
#include "cli/Input.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace ptxray::cli {

CommandRunner addFmtCommand(CLI::App &app) {
  auto path = std::make_shared<std::string>();
  auto buildOptions = std::make_shared<std::string>();
  CLI::App *cmd = app.add_subcommand("fmt", "Print a PTX module in canonical form");
  cmd->add_option("file", *path,
                  "PTX file, or - for standard input; an OpenCL C (.cl) or CUDA (.cu) file is compiled to PTX first")
      ->required();
  cmd->add_option("--build-options", *buildOptions, "An OpenCL C file's build options (\"-D N=4\")");
  return [cmd, path, buildOptions]() -> int {
    if (!cmd->parsed())
      return -1;
    auto input = readModuleInput(*path, *buildOptions);
    if (!input)
      return path->ends_with(".cl") || path->ends_with(".cu") ? 1 : 2;
    ptx::ParseResult result = ptx::parseModule(input->name, std::move(input->text));
    if (!result.ok()) {
      std::cerr << result.diagnostics.render(result.module->sources);
      std::cerr << result.diagnostics.summaryLine();
      return 1;
    }
    std::cout << ptx::printModule(*result.module);
    return 0;
  };
}

} // namespace ptxray::cli
