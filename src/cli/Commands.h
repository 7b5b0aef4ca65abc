// The ptxray subcommands. Each registers its options on the CLI11 app and returns an exit status.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

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

/// `ptxray exec` of `program` on `boards` boards (0: PTXRAY_BOARDS or 1) with the session's timeline
/// written to `timeline` (FILEs, "-": stderr);
/// replaces this process, so it returns only on failure.
int execWithTimeline(const std::vector<std::string> &program, const std::string &arch, unsigned threads, int boards,
                     const std::vector<std::string> &timeline);

} // namespace ptxray::cli
