// The ptxray subcommands. Each registers its options on the CLI11 app and returns an exit status.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace ptxray::cli {

using CommandRunner = std::function<int()>;

CommandRunner addParseCommand(CLI::App &app);
CommandRunner addFmtCommand(CLI::App &app);
CommandRunner addOccupancyCommand(CLI::App &app);
CommandRunner addArchsCommand(CLI::App &app);
CommandRunner addArchCommand(CLI::App &app);
CommandRunner addAbiCommand(CLI::App &app);
CommandRunner addRunCommand(CLI::App &app);
CommandRunner addAnalyzeCommand(CLI::App &app);
CommandRunner addCompareCommand(CLI::App &app);
CommandRunner addGuideChartsCommand(CLI::App &app);
CommandRunner addExecCommand(CLI::App &app);
CommandRunner addFatbinCommand(CLI::App &app);
CommandRunner addTimelineCommand(CLI::App &app);

} // namespace ptxray::cli
