// The ptxray subcommands. Each registers its options on the CLI11 app and returns an exit status.
#pragma once

#include "session/Environment.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
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
CommandRunner addSweepCommand(CLI::App &app);
/// `ptxray sweep ARGS...`: the Python package's sweep (python3 -m ptxray.sweep ARGS...), replacing
/// this process; returns only on failure (2).
int runSweep(const std::vector<std::string> &arguments);

/// `ptxray exec`: `program` (the executable and its arguments) run on ptxray's API libraries with
/// `options`; replaces this process, so it returns only on failure (an exit status). Throws
/// std::invalid_argument for options that do not go together.
/// Whether a command-line word after --metrics names metrics (gpu__time_duration.sum,dram__bytes.sum)
/// rather than an input (an existing file, a .json/.ptx/.cu name, a path).
bool looksLikeMetricList(const std::string &word);

/// `errorExitCode` (--error-exitcode): run the program as a child and wait for it, returning this
/// status when its tools found an error; without it the program replaces ptxray.
int execProgram(const session::ProgramOptions &options, const std::vector<std::string> &program,
                std::optional<int> errorExitCode = std::nullopt);

} // namespace ptxray::cli
