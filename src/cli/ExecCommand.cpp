// `ptxray exec -- ./app args...`: runs an unmodified CUDA program on the virtual GPU. ptxray's
// libcuda.so.1 and libcudart.so.13 go first on LD_LIBRARY_PATH, the options become the PTXRAY_* variables the
// library reads, and the program replaces this process (execvp: an argument vector, no shell).
#include "arch/GpuDatabase.h"
#include "cli/Commands.h"
#include "system/SystemConfig.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <link.h>
#include <unistd.h>

namespace ptxray::cli {
namespace {

namespace fs = std::filesystem;

struct ExecOptions {
  std::string arch;
  unsigned threads = 0;
  int boards = 0; ///< 0: PTXRAY_BOARDS or 1
  std::vector<std::string> tools;
  std::string metricsJson;
  std::string report;
  bool logApi = false;
  bool strictPtx = false;
  uint64_t maxInstructions = 0;
  std::vector<std::string> timeline; ///< FILEs ("-": stderr)
  std::vector<std::string> program;
};

/// Where libcuda.so.1 and libcudart.so.13 are: $PTXRAY_CUDA_LIB_DIR, else beside this executable in the build tree
/// (build/X/src/cli/ptxray -> build/X/lib/ptxray-cuda) or in an install tree (bin/ -> lib/ptxray-cuda).
std::optional<fs::path> cudaLibraryDirectory() {
  if (const char *dir = std::getenv("PTXRAY_CUDA_LIB_DIR"); dir && *dir)
    return fs::path(dir);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    return std::nullopt;
  for (const fs::path &candidate :
       {exe.parent_path() / "../../lib/ptxray-cuda", exe.parent_path() / "../lib/ptxray-cuda"})
    if (fs::exists(candidate / "libcudart.so.13", ec))
      return fs::weakly_canonical(candidate, ec);
  return std::nullopt;
}

/// The AddressSanitizer runtime this process runs with, if any: a library built with ASan (the
/// sanitizer build's libcudart) only loads into a program that has that runtime first.
std::string asanRuntime() {
  std::string found;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        if (info->dlpi_name && std::strstr(info->dlpi_name, "libasan.so"))
          *static_cast<std::string *>(data) = info->dlpi_name;
        return 0;
      },
      &found);
  return found;
}

void prependPath(const char *variable, const std::string &entry) {
  const char *old = std::getenv(variable);
  const std::string value = old && *old ? entry + ":" + old : entry;
  setenv(variable, value.c_str(), 1);
}

int execCommand(const ExecOptions &o) {
  if (o.program.empty()) {
    std::cerr << "ptxray: error: exec: no program given (ptxray exec [options] -- ./app args...)\n";
    return 2;
  }
  if (!o.arch.empty()) {
    if (arch::ArchLookup lookup = arch::findArch(o.arch); !lookup) {
      std::cerr << "ptxray: error: --arch: " << lookup.error << "\n";
      return 2;
    }
    setenv("PTXRAY_ARCH", o.arch.c_str(), 1);
  }
  for (const std::string &tool : o.tools)
    if (tool != "memcheck" && tool != "racecheck" && tool != "synccheck" && tool != "initcheck" &&
        tool != "leakcheck") {
      std::cerr << fmt::format(
          "ptxray: error: --tool: unknown tool \"{}\" (memcheck, racecheck, synccheck, initcheck, leakcheck)\n", tool);
      return 2;
    }
  std::optional<fs::path> libraries = cudaLibraryDirectory();
  if (!libraries) {
    std::cerr << "ptxray: error: exec: cannot find ptxray's libcudart.so.13 (lib/ptxray-cuda beside the ptxray "
                 "executable); set PTXRAY_CUDA_LIB_DIR to its directory\n";
    return 1;
  }
  prependPath("LD_LIBRARY_PATH", libraries->string());
  if (o.threads)
    setenv("PTXRAY_THREADS", std::to_string(o.threads).c_str(), 1);
  if (o.boards)
    setenv("PTXRAY_BOARDS", std::to_string(o.boards).c_str(), 1);
  if (!o.tools.empty())
    setenv("PTXRAY_TOOL", fmt::format("{}", fmt::join(o.tools, ",")).c_str(), 1);
  if (!o.metricsJson.empty())
    setenv("PTXRAY_METRICS_JSON", fs::absolute(o.metricsJson).c_str(), 1);
  if (!o.report.empty())
    setenv("PTXRAY_REPORT", fs::absolute(o.report).c_str(), 1);
  if (o.logApi)
    setenv("PTXRAY_LOG", "api", 1);
  if (o.strictPtx)
    setenv("PTXRAY_PTX", "strict", 1);
  if (o.maxInstructions)
    setenv("PTXRAY_MAX_INSTRUCTIONS", std::to_string(o.maxInstructions).c_str(), 1);
  if (!o.timeline.empty()) {
    std::vector<std::string> files;
    for (const std::string &f : o.timeline)
      files.push_back(f == "-" ? f : fs::absolute(f).string());
    setenv("PTXRAY_TIMELINE", fmt::format("{}", fmt::join(files, ",")).c_str(), 1);
  }
  if (std::string asan = asanRuntime(); !asan.empty()) {
    prependPath("LD_PRELOAD", asan);
    setenv("ASAN_OPTIONS", "detect_leaks=0", 0); // the program's own leaks are not ptxray's
  }
  std::vector<char *> argv;
  for (const std::string &a : o.program)
    argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  std::cerr << fmt::format("ptxray: error: exec: cannot run {}: {}\n", o.program.front(), std::strerror(errno));
  return 127;
}

} // namespace

int execWithTimeline(const std::vector<std::string> &program, const std::string &arch, unsigned threads, int boards,
                     const std::vector<std::string> &timeline) {
  ExecOptions o;
  o.program = program;
  o.arch = arch;
  o.threads = threads;
  o.boards = boards;
  o.timeline = timeline;
  return execCommand(o);
}

CommandRunner addExecCommand(CLI::App &app) {
  auto o = std::make_shared<ExecOptions>();
  CLI::App *cmd = app.add_subcommand(
      "exec", "Run an unmodified CUDA program on the virtual GPU (nvcc's default build, -cudart shared, driver API)");
  cmd->add_option("--arch", o->arch, "GPU or compute capability the program sees (default: H100)");
  cmd->add_option("--threads", o->threads, "Worker threads running CTAs (default: all cores)")
      ->check(CLI::Range(0LL, 4096LL, "WORKERS"));
  cmd->add_option("--boards", o->boards,
                  "Boards of the GPU the program sees (default 1; a K10 or K80 board is two devices)")
      ->check(CLI::Range(1, system::kMaxBoards));
  cmd->add_option("--tool", o->tools,
                  "Sanitizer tools, repeatable or comma-separated: memcheck, racecheck, synccheck, initcheck, "
                  "leakcheck")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--metrics-json", o->metricsJson, "FILE: the performance model's metrics of every launch");
  cmd->add_option("--report", o->report,
                  "FILE: the advisor's report over the program's kernels (FILE.html, FILE.json, else text)");
  cmd->add_flag("--strict-ptx", o->strictPtx,
                "Refuse a program without PTX the GPU could run, as the driver does (default: run its oldest PTX "
                "on an older modeled GPU, with a note)");
  cmd->add_flag("--log-api", o->logApi, "Trace every CUDA runtime call on stderr");
  cmd->add_option("--max-instructions", o->maxInstructions, "Thread-instruction budget per launch (0: default)");
  cmd->add_option("--timeline", o->timeline,
                  "FILE: the session's copies, launches and synchronizations on the modeled system at exit "
                  "(FILE.json, FILE.html, else text; - for stderr); repeatable")
      ->allow_extra_args(false);
  cmd->add_option("program", o->program, "-- PROGRAM ARGS...: the program and its arguments")->required();
  cmd->footer(R"(Examples:
  ptxray exec -- ./vector_add
  ptxray exec --arch k40 --tool memcheck,racecheck -- ./app input.dat
The same settings as environment variables, with LD_LIBRARY_PATH=<build>/lib/ptxray-cuda:
  PTXRAY_ARCH, PTXRAY_THREADS, PTXRAY_TOOL, PTXRAY_METRICS_JSON, PTXRAY_REPORT, PTXRAY_LOG=api,
  PTXRAY_PTX=strict, PTXRAY_MAX_INSTRUCTIONS, PTXRAY_TIMELINE=FILE[,FILE...], PTXRAY_BOARDS.
The program must embed PTX (nvcc -arch=sm_XX does); ptxray's libcuda.so.1 and libcudart.so.13 replace
NVIDIA's for it.)");
  return [cmd, o]() -> int {
    if (!cmd->parsed())
      return -1;
    return execCommand(*o);
  };
}

} // namespace ptxray::cli
