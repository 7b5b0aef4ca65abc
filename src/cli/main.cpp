// ptxray: run PTX kernels against a modeled GPU and explain their performance.
#include "cli/Commands.h"
#include "support/InputFile.h"
#include "support/MemoryBudget.h"
#include "support/OutputFile.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace {

/// Exit status for a malformed command line, whatever CLI11 error caused it (README: "2 for a malformed
/// command line"; CLI11's own codes, 100 and up, are not part of ptxray's interface).
constexpr int kUsageStatus = 2;

/// The app and the subcommands selected on the command line, outermost first.
std::vector<const CLI::App *> selectedChain(const CLI::App &app) {
  std::vector<const CLI::App *> chain{&app};
  for (;;) {
    std::vector<CLI::App *> subs = chain.back()->get_subcommands();
    if (subs.empty())
      return chain;
    chain.push_back(subs.back());
  }
}

/// "ptxray abi layout" for the abi layout subcommand; argv[0] would print the build path instead.
std::string commandPath(const CLI::App *app) {
  std::string path;
  for (; app->get_parent() != nullptr; app = app->get_parent())
    path = " " + app->get_name() + path;
  return "ptxray" + path;
}

/// Prints CLI11's message for a malformed command line and where to find the usage: the --help of the
/// (sub)command the error belongs to. --help and --version are "errors" too in CLI11; they print and
/// succeed.
int commandLineError(const CLI::App &app, const CLI::ParseError &e, int argc, char **argv) {
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success))
    return app.exit(e);
  std::vector<const CLI::App *> chain = selectedChain(app);
  const CLI::App *where = chain.back();
  std::cerr << "ptxray: error: " << e.what() << "\n";
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::ExtrasError)) {
    // Unexpected arguments belong to the innermost command that kept them. Subcommands' options fall
    // through to ptxray's own (--max-memory), so CLI11 leaves what neither knows with ptxray: it is
    // the innermost command's when it came after that command's name.
    for (const CLI::App *sub : chain)
      if (sub->remaining_size() > 0)
        where = sub;
    if (where == &app && chain.size() > 1) {
      const std::string first = app.remaining().front(), name = chain.back()->get_name();
      int named = -1, unexpected = -1;
      for (int i = 1; i < argc; ++i) {
        if (named < 0 && argv[i] == name)
          named = i;
        if (unexpected < 0 && argv[i] == first)
          unexpected = i;
      }
      if (named >= 0 && unexpected > named)
        where = chain.back();
    }
  } else {
    // CLI11 checks required arguments before leftovers, so `ptxray run --bogus` would only say that
    // the input is missing; name the arguments it did not understand as well.
    for (const CLI::App *sub : chain)
      if (sub->remaining_size() > 0)
        std::cerr << "ptxray: error: " << CLI::ExtrasError(sub->remaining()).what() << "\n";
  }
  std::cerr << "Run with " << (where == &app ? "--help" : "'" + commandPath(where) + " --help'")
            << " for more information.\n";
  return kUsageStatus;
}

/// A missing, unreadable or wrong-kind input, wherever a command met it: one message, exit status 1.
int inputFileError(const ptxray::support::InputFileError &e) {
  std::cerr << "ptxray: error: " << e.what() << "\n";
  if (e.problem() == ptxray::support::InputProblem::Binary)
    std::cerr << "ptxray: note: to run a CUDA or OpenCL program: ptxray exec -- " << e.path()
              << "; to see the PTX it embeds: ptxray fatbin " << e.path() << " --ptx\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  // `ptxray sweep ...`: every word after it is the Python sweep's own, --help included.
  if (argc >= 2 && std::string_view(argv[1]) == "sweep")
    return ptxray::cli::runSweep(std::vector<std::string>(argv + 2, argv + argc));
  CLI::App app{"ptxray: PTX front end, virtual GPU and performance advisor", "ptxray"};
  app.set_version_flag("--version", "ptxray 0.1.0");
  app.require_subcommand(1);
  // Options of ptxray itself, accepted before or after the command (subcommands fall through to them).
  app.fallthrough();
  std::string maxMemory;
  app.add_option("--max-memory", maxMemory,
                 "Host memory the modeled GPU may take (device allocations, the blocks being run, sanitizer "
                 "shadow memory): bytes, a number with K, M, G or T, or a percentage of the machine's memory. "
                 "Default: 75% (PTXRAY_MAX_MEMORY)")
      ->type_name("SIZE")
      ->check(CLI::Validator(
          [](std::string &text) -> std::string {
            return ptxray::support::parseMemorySize(text)
                       ? ""
                       : "not a size: bytes, a number with K, M, G or T (binary), or a percentage up to 100%";
          },
          ""));
  // One entry per subcommand, in the order `--help` lists them.
  std::vector<ptxray::cli::CommandRunner> commands;
  commands.push_back(ptxray::cli::addParseCommand(app));
  commands.push_back(ptxray::cli::addFmtCommand(app));
  commands.push_back(ptxray::cli::addAbiCommand(app));
  commands.push_back(ptxray::cli::addOccupancyCommand(app));
  commands.push_back(ptxray::cli::addArchsCommand(app));
  commands.push_back(ptxray::cli::addArchCommand(app));
  commands.push_back(ptxray::cli::addRunCommand(app));
  commands.push_back(ptxray::cli::addAnalyzeCommand(app));
  commands.push_back(ptxray::cli::addCompareCommand(app));
  commands.push_back(ptxray::cli::addTimelineCommand(app));
  commands.push_back(ptxray::cli::addSweepCommand(app));
  commands.push_back(ptxray::cli::addGuideChartsCommand(app));
  commands.push_back(ptxray::cli::addExecCommand(app));
  commands.push_back(ptxray::cli::addFatbinCommand(app));
  // nvcc's spelling, -arch sm_35 or -arch=sm_35, is --arch here too (not -a -r -c -h). Only ptxray's
  // own arguments: what follows "--" belongs to the program `exec` runs.
  std::vector<std::string> arguments(argv + 1, argv + argc);
  for (size_t i = 0; i < arguments.size(); ++i) {
    std::string &a = arguments[i];
    if (a == "--")
      break;
    if (a == "-arch" || a.starts_with("-arch="))
      a.insert(0, "-");
    // ncu's --metrics NAME,NAME... beside ptxray's --metrics switch: a list (--metrics=LIST, or
    // --metrics followed by metric names rather than a file) travels in --metrics-list.
    if (a.starts_with("--metrics=")) {
      const std::string list = a.substr(10);
      a = "--metrics";
      arguments.insert(arguments.begin() + static_cast<std::ptrdiff_t>(i) + 1, "--metrics-list=" + list);
      ++i;
    } else if (a == "--metrics" && i + 1 < arguments.size() && ptxray::cli::looksLikeMetricList(arguments[i + 1])) {
      arguments[i + 1].insert(0, "--metrics-list=");
      ++i;
    }
  }
  std::reverse(arguments.begin(), arguments.end()); // CLI11 takes them last first
  // Not CLI11_PARSE: it returns CLI11's own exit codes (105, 106, 109...).
  try {
    app.parse(arguments);
  } catch (const CLI::ParseError &e) {
    return commandLineError(app, e, argc, argv);
  }
  // The budget: the option, else PTXRAY_MAX_MEMORY, else the default. A program `exec` runs reads
  // the variable, so the option travels in it.
  if (!maxMemory.empty()) {
    const uint64_t bytes = *ptxray::support::parseMemorySize(maxMemory);
    ptxray::support::setMemoryBudget(bytes);
    setenv("PTXRAY_MAX_MEMORY", std::to_string(bytes).c_str(), 1);
  } else if (const char *fromEnvironment = std::getenv("PTXRAY_MAX_MEMORY"); fromEnvironment && *fromEnvironment) {
    if (auto bytes = ptxray::support::parseMemorySize(fromEnvironment))
      ptxray::support::setMemoryBudget(*bytes);
    else
      std::cerr << "ptxray: warning: PTXRAY_MAX_MEMORY: \"" << fromEnvironment
                << "\" is not a size (bytes, or a number with K, M, G or T, or a percentage of the machine's "
                   "memory); the default budget\n";
  }
  try {
    for (auto &run : commands) {
      int status = run();
      if (status < 0)
        continue;
      // A command's result is often what it prints: a full disk behind `>` must not end in status 0.
      if (std::string problem = ptxray::support::standardOutputProblem(); !problem.empty()) {
        std::cerr << "ptxray: error: cannot write standard output: " << problem << "\n";
        return status == 0 ? 1 : status;
      }
      return status;
    }
  } catch (const ptxray::support::InputFileError &e) {
    return inputFileError(e);
  } catch (const ptxray::support::OutputFileError &e) {
    std::cerr << "ptxray: error: " << e.what() << "\n";
    return 1;
  } catch (const ptxray::support::MemoryBudgetExceeded &e) {
    std::cerr << "ptxray: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
