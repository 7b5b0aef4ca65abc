// ptxray: run PTX kernels against a modeled GPU and explain their performance.
#include "cli/Commands.h"

#include <vector>

int main(int argc, char **argv) {
  CLI::App app{"ptxray: PTX front end, virtual GPU and performance advisor"};
  app.set_version_flag("--version", "ptxray 0.1.0");
  app.require_subcommand(1);
  // One entry per subcommand, in the order `--help` lists them.
  std::vector<ptxray::cli::CommandRunner> commands;
  commands.push_back(ptxray::cli::addParseCommand(app));
  commands.push_back(ptxray::cli::addFmtCommand(app));
  commands.push_back(ptxray::cli::addAbiCommand(app));
  commands.push_back(ptxray::cli::addOccupancyCommand(app));
  commands.push_back(ptxray::cli::addArchsCommand(app));
  commands.push_back(ptxray::cli::addArchCommand(app));
  commands.push_back(ptxray::cli::addRunCommand(app));
  CLI11_PARSE(app, argc, argv);
  for (auto &run : commands) {
    int status = run();
    if (status >= 0)
      return status;
  }
  return 0;
}
