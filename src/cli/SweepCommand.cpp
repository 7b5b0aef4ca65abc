// `ptxray sweep`: many runs of run specs over GPUs and launch configurations, on Dask. The sweep
// itself is the Python package's (ptxray.sweep, docs/sweep.md), because Dask is Python's; this
// command finds the package and an interpreter and hands its arguments over unchanged, replacing
// this process (an argument vector, no shell).
#include "cli/Commands.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

namespace ptxray::cli {
namespace {

namespace fs = std::filesystem;

/// The folder holding the `ptxray` package: $PTXRAY_PYTHONPATH, else beside this executable in the
/// build tree (build/X/src/cli/ptxray -> build/X/python) or in an install tree (bin/ ->
/// lib/ptxray/python).
std::optional<fs::path> packageDirectory() {
  std::vector<fs::path> dirs;
  if (const char *dir = std::getenv("PTXRAY_PYTHONPATH"); dir && *dir)
    dirs.emplace_back(dir);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    dirs.push_back(exe.parent_path() / "../../python");
    dirs.push_back(exe.parent_path() / "../lib/ptxray/python");
  }
  for (const fs::path &dir : dirs)
    if (fs::exists(dir / "ptxray" / "sweep.py", ec))
      return fs::weakly_canonical(dir, ec);
  return std::nullopt;
}

} // namespace

int runSweep(const std::vector<std::string> &arguments) {
  const std::optional<fs::path> package = packageDirectory();
  if (!package) {
    std::cerr << "ptxray: error: sweep needs ptxray's Python module, which this build does not have (it is built "
                 "when pybind11 and Python's headers are installed: scripts/install-deps.sh; or set "
                 "PTXRAY_PYTHONPATH to the folder holding the ptxray package)\n";
    return 2;
  }
  std::string pythonPath = package->string();
  if (const char *existing = std::getenv("PYTHONPATH"); existing && *existing)
    pythonPath += std::string(":") + existing;
  setenv("PYTHONPATH", pythonPath.c_str(), 1);
  // Debian's interpreter has the packages the sweep uses (NumPy, Dask); PTXRAY_PYTHON names another.
  std::string python = "python3";
  if (const char *named = std::getenv("PTXRAY_PYTHON"); named && *named)
    python = named;
  else if (access("/usr/bin/python3", X_OK) == 0)
    python = "/usr/bin/python3";
  std::vector<std::string> words = {python, "-m", "ptxray.sweep"};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char *> argv;
  for (std::string &w : words)
    argv.push_back(w.data());
  argv.push_back(nullptr);
  std::cout.flush();
  execvp(argv[0], argv.data());
  std::cerr << "ptxray: error: sweep: cannot run " << python << ": " << std::strerror(errno)
            << " (PTXRAY_PYTHON names the interpreter)\n";
  return 2;
}

CommandRunner addSweepCommand(CLI::App &app) {
  CLI::App *cmd = app.add_subcommand(
      "sweep", "Run specs over many GPUs and launch configurations on Dask, as one table (JSON, CSV, HTML charts); "
               "`ptxray sweep --help` and docs/sweep.md");
  // main() hands `ptxray sweep ...` to runSweep before parsing; this entry lists it in --help.
  cmd->prefix_command();
  return [cmd]() -> int {
    if (!cmd->parsed())
      return -1;
    return runSweep(cmd->remaining());
  };
}

} // namespace ptxray::cli
