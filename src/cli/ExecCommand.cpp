// `ptxray exec -- ./app args...`: runs an unmodified CUDA or OpenCL program on the virtual GPU.
// ptxray's libcuda.so.1 and libcudart.so.13 go first on LD_LIBRARY_PATH, the OpenCL loader is pointed
// at ptxray's platform alone (OCL_ICD_VENDORS for ocl-icd, OCL_ICD_FILENAMES for Khronos's loader),
// the options become the PTXRAY_* variables the libraries read, and the program replaces this
// process (found on PATH as a shell finds it, then execv: an argument vector, no shell, and never
// /bin/sh for a file with no executable format).
#include "arch/GpuDatabase.h"
#include "cli/Commands.h"
#include "cli/LaunchOptions.h"
#include "fatbin/Fatbin.h"
#include "session/Environment.h"
#include "session/KernelFilter.h"
#include "support/InputFile.h"
#include "support/Process.h"
#include "system/SystemConfig.h"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <limits>
#include <link.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ptxray::cli {
namespace {

namespace fs = std::filesystem;

/// Where libcuda.so.1 and libcudart.so.13 are: $PTXRAY_CUDA_LIB_DIR, else beside this executable in the build tree
/// (build/X/src/cli/ptxray -> build/X/lib/ptxray-cuda) or in an install tree (bin/ -> lib/ptxray-cuda).
std::optional<fs::path> cudaLibraryDirectory() {
  if (const char *dir = std::getenv(session::env::kCudaLibDir); dir && *dir)
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

/// ptxray's OpenCL platform, libptxray-opencl.so: in $PTXRAY_OPENCL_LIB_DIR, else beside this
/// executable in the build tree (lib/ptxray-opencl) or an install tree.
std::optional<fs::path> openclLibrary() {
  std::vector<fs::path> dirs;
  if (const char *dir = std::getenv(session::env::kOpenCLLibDir); dir && *dir)
    dirs.emplace_back(dir);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    dirs.push_back(exe.parent_path() / "../../lib/ptxray-opencl");
    dirs.push_back(exe.parent_path() / "../lib/ptxray-opencl");
  }
  for (const fs::path &dir : dirs)
    if (fs::exists(dir / "libptxray-opencl.so", ec))
      return fs::weakly_canonical(dir / "libptxray-opencl.so", ec);
  return std::nullopt;
}

/// The AddressSanitizer runtime this process runs with, if any (GCC's libasan.so, clang's
/// libclang_rt.asan with -shared-libsan): a library built with ASan (the sanitizer build's
/// libcudart) only loads into a program that has that runtime first.
std::string asanRuntime() {
  std::string found;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        if (info->dlpi_name &&
            (std::strstr(info->dlpi_name, "libasan.so") || std::strstr(info->dlpi_name, "libclang_rt.asan")))
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

/// A note when `file` is an ELF program that can reach no GPU code: it links no CUDA or OpenCL
/// library and embeds no fatbinary (NVIDIA's static runtime loads libcuda.so.1 itself, but its
/// programs carry a .nv_fatbin section). Such a program runs, but ptxray sees none of it unless it
/// loads a library at run time (an interpreter). Scripts and anything not ELF get no note (a script
/// may well start a CUDA program).
void noteWithoutGpuCode(const std::string &file, const std::string &shown) {
  // A large program is read for nothing: one that big uses the GPU, or the note matters little.
  std::error_code ec;
  if (const uintmax_t size = fs::file_size(file, ec); ec || size > (uintmax_t{256} << 20))
    return;
  try {
    const std::string contents =
        support::readInputFile(file, support::InputContents::Binary, support::kMaxBinaryInputBytes);
    const std::span<const std::byte> image(reinterpret_cast<const std::byte *>(contents.data()), contents.size());
    if (!fatbin::elfSection(image, ".nv_fatbin").empty())
      return;
    const std::vector<std::byte> names = fatbin::elfSection(image, ".dynstr");
    const std::string_view text(reinterpret_cast<const char *>(names.data()), names.size());
    for (std::string_view library : {"libcuda.so", "libcudart.so", "libOpenCL.so", "libnvrtc.so"})
      if (text.find(library) != std::string_view::npos)
        return;
    std::cerr << fmt::format("ptxray: note: {} links no CUDA or OpenCL library and embeds no device code; unless "
                             "it loads one at run time (dlopen), ptxray sees none of its work\n",
                             shown);
  } catch (const std::exception &) {
    // Not an ELF program we can read (a script, another format): no note.
  }
}

} // namespace

/// Why a program cannot run, and the exit status a shell gives for it: 127 when it is not found, 126
/// when it is found but cannot run. Status 0: it can.
struct Unrunnable {
  int status = 0;
  std::string reason;
};

/// Finds `program` as execvp would (a name with a slash as it is, else on PATH), into `resolved`.
Unrunnable unrunnable(const std::string &program, std::string &resolved) {
  if (program.find('/') == std::string::npos) {
    std::optional<std::string> found = support::findExecutable(program, {});
    if (!found)
      return {127, "not found on PATH"};
    resolved = *found;
    return {};
  }
  resolved = program;
  struct stat st {};
  if (::stat(program.c_str(), &st) != 0) {
    const int error = errno;
    return {error == ENOENT || error == ENOTDIR ? 127 : 126, support::errnoReason(error)};
  }
  if (S_ISDIR(st.st_mode))
    return {126, support::errnoReason(EISDIR)};
  if (::access(program.c_str(), X_OK) != 0)
    return {126, support::errnoReason(errno)};
  return {};
}

/// Runs the program as a child and waits for it (`--error-exitcode`): its exit status, or `errorExitCode`
/// when its tools found an error (the count comes through a pipe the libraries write at the end). A
/// program killed by a signal is reported as a shell reports it (128 + the signal).
int runAndWait(const std::string &resolved, std::vector<char *> &argv, session::ProgramOptions options,
               int errorExitCode) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    std::cerr << fmt::format("ptxray: error: exec: cannot make a pipe: {}\n", support::errnoReason(errno));
    return 1;
  }
  // The write end stays open in the program (the libraries write to it); the read end is ours.
  const int writeEnd = ::fcntl(fds[1], F_DUPFD, 3);
  ::close(fds[1]);
  options.errorCountFd = writeEnd;
  options.toEnvironment();
  const pid_t child = ::fork();
  if (child < 0) {
    std::cerr << fmt::format("ptxray: error: exec: cannot start the program: {}\n", support::errnoReason(errno));
    return 1;
  }
  if (child == 0) {
    execv(resolved.c_str(), argv.data());
    const int error = errno;
    std::cerr << fmt::format("ptxray: error: cannot run '{}': {}\n", argv[0],
                             error == ENOEXEC ? "not an executable format (a script needs a '#!' line)"
                                              : support::errnoReason(error));
    _exit(error == ENOENT ? 127 : 126);
  }
  ::close(writeEnd);
  // The terminal's interrupt reaches the program (same process group); ptxray waits for its end.
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGQUIT, SIG_IGN);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  std::string count;
  char buffer[64];
  // The program has ended; a child of its own still holding the pipe must not keep ptxray waiting.
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;)
    count.append(buffer, static_cast<size_t>(n));
  ::close(fds[0]);
  const int own = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
  const bool errors = !count.empty() && count != "0\n";
  return errors ? errorExitCode : own;
}

int execProgram(const session::ProgramOptions &options, const std::vector<std::string> &program,
                std::optional<int> errorExitCode) {
  if (program.empty()) {
    std::cerr << "ptxray: error: exec: no program given (ptxray exec [options] -- ./app args...)\n";
    return 2;
  }
  // Exit statuses as a shell gives them: 127 for a program not found, 126 for one that cannot run.
  std::string resolved;
  if (const Unrunnable why = unrunnable(program.front(), resolved); why.status != 0) {
    std::cerr << fmt::format("ptxray: error: cannot run '{}': {}\n", program.front(), why.reason);
    return why.status;
  }
  const arch::ArchLookup lookup = arch::findArch(options.archOrDefault());
  if (!lookup) {
    std::cerr << "ptxray: error: --arch: " << lookup.error << "\n";
    return 2;
  }
  // What the libraries would refuse, refused here first, where the option is named.
  session::checkToolOptions(options.tools, !options.sanitizerJson.empty());
  std::vector<std::pair<std::string, std::string>> outputs = {{"--sanitizer-json", options.sanitizerJson},
                                                              {"--metrics-json", options.metricsJson},
                                                              {"--report", options.report}};
  for (const std::string &t : options.timeline)
    outputs.emplace_back("--timeline", t);
  outputs.emplace_back("--trace", options.trace);
  if (!outputsWritable(outputs))
    return 1;
  (void)session::modelOptions(options.model, *lookup.target);
  std::optional<fs::path> libraries = cudaLibraryDirectory();
  if (!libraries) {
    std::cerr << fmt::format("ptxray: error: exec: cannot find ptxray's libcudart.so.13 (lib/ptxray-cuda beside the "
                             "ptxray executable); set {} to its directory\n",
                             session::env::kCudaLibDir);
    return 1;
  }
  prependPath("LD_LIBRARY_PATH", libraries->string());
  // NVTX ranges the program marks go to its session (src/nvtx), unless a tool of the user's own is
  // named already.
  if (const fs::path nvtx = *libraries / "libptxray-nvtx.so"; !std::getenv("NVTX_INJECTION64_PATH")) {
    std::error_code ec;
    if (fs::exists(nvtx, ec))
      setenv("NVTX_INJECTION64_PATH", nvtx.c_str(), 1);
  }
  // OpenCL programs see ptxray's platform and no other (the host's PoCL or NVIDIA's would come first
  // for a program that takes the first platform).
  if (std::optional<fs::path> opencl = openclLibrary()) {
    setenv("OCL_ICD_VENDORS", opencl->c_str(), 1);
    setenv("OCL_ICD_FILENAMES", opencl->c_str(), 1);
  }
  if (std::string asan = asanRuntime(); !asan.empty()) {
    prependPath("LD_PRELOAD", asan);
    // Tools the libraries run (clang for an OpenCL build) are spawned without it.
    setenv("PTXRAY_SANITIZER_PRELOAD", asan.c_str(), 1);
    setenv("ASAN_OPTIONS", "detect_leaks=0", 0); // the program's own leaks are not ptxray's
  }
  std::vector<char *> argv;
  for (const std::string &a : program)
    argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  noteWithoutGpuCode(resolved, program.front());
  if (errorExitCode)
    return runAndWait(resolved, argv, options, *errorExitCode);
  options.toEnvironment();
  // execv, not execvp: execvp runs a file with no executable format through /bin/sh.
  execv(resolved.c_str(), argv.data());
  const int error = errno;
  std::cerr << fmt::format("ptxray: error: cannot run '{}': {}\n", program.front(),
                           error == ENOEXEC ? "not an executable format (a script needs a '#!' line)"
                                            : support::errnoReason(error));
  return error == ENOENT ? 127 : 126;
}

CommandRunner addExecCommand(CLI::App &app) {
  struct ExecOptions {
    session::ProgramOptions program;
    std::vector<std::string> tools;
    std::vector<std::string> argv;
    std::string leakCheck;
    std::optional<int> errorExitCode;
    std::string demangle;
  };
  auto o = std::make_shared<ExecOptions>();
  session::ProgramOptions &p = o->program;
  CLI::App *cmd = app.add_subcommand(
      "exec",
      "Run an unmodified CUDA or OpenCL program on the virtual GPU (nvcc's default build, -cudart shared, driver "
      "API; OpenCL through ptxray's platform, libptxray-opencl.so)");
  cmd->add_option("--arch", p.arch, "GPU or compute capability the program sees (default: H100)");
  cmd->add_option("--threads", p.threads, "Worker threads running CTAs (default: all cores)")
      ->check(CLI::Range(0LL, 4096LL, "WORKERS"));
  cmd->add_option("--boards", p.boards,
                  "Boards of the GPU the program sees (default 1; a K10 or K80 board is two devices)")
      ->check(CLI::Range(1, system::kMaxBoards));
  cmd->add_option("--tool", o->tools, "Sanitizer tools, repeatable or comma-separated: " + session::toolNameList())
      ->allow_extra_args(false);
  cmd->add_flag("--racecheck-global", p.tools.racecheckGlobal,
                "racecheck also checks global memory for races between threads of the same block");
  cmd->add_option("--sanitizer-json", p.sanitizerJson,
                  "FILE: every report of every tool and the summaries, as one JSON document (docs/sanitizers.md)");
  cmd->add_option("--metrics-json", p.metricsJson, "FILE: the performance model's metrics of every launch");
  cmd->add_option("--report", p.report,
                  "FILE: the advisor's report over the program's kernels (FILE.html, FILE.json, else text), with the "
                  "sanitizers' findings when --tool runs them");
  cmd->add_option("--clock", p.model.clock, session::kClockHelp);
  cmd->add_option("--dlcm", p.model.dlcm, "Global loads cached in L1 (ca) or L2 only (cg), as -Xptxas -dlcm")
      ->check(CLI::IsMember({"ca", "cg"}));
  cmd->add_option("--bank-mode", p.model.bankMode, "Kepler shared-memory bank width in bytes (4 or 8)")
      ->check(CLI::IsMember({4, 8}));
  cmd->add_flag("--strict-ptx", p.strictPtx,
                "Refuse a program without PTX the GPU could run, as the driver does (default: run its oldest PTX "
                "on an older modeled GPU, with a note)");
  cmd->add_flag("--log-api", p.logApi, "Trace every CUDA runtime or OpenCL call on stderr");
  cmd->add_flag_callback(
      "--no-model", [q = &p] { q->modelClock = false; },
      "No modeled clock: launches run the plain VM at full speed and the program's events read the host's time "
      "of the simulation (default: the performance and system models time every operation, and events, "
      "clock64() and %globaltimer read the modeled GPU's clock)");
  cmd->add_option("--max-instructions", p.maxInstructions,
                  "Thread-instruction budget per launch (0: the default, 10^10; at most 10^15)")
      ->check(CLI::Range(uint64_t{0}, session::env::kMaxInstructionBudget));
  cmd->add_option("--timeline", p.timeline,
                  "FILE: the session's copies, launches and synchronizations on the modeled system at exit "
                  "(FILE.json, FILE.html, else text; - for stderr); repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--trace", p.trace,
                  "FILE: the timeline at exit in the Trace Event Format, for ui.perfetto.dev and chrome://tracing "
                  "(as nsys users view a run: a row per stream, the host's waits)");
  cmd->add_option("--leak-check", o->leakCheck,
                  "full: memcheck, and report the device memory the program never freed (cudaMalloc, cuMemAlloc, "
                  "clCreateBuffer) and device-heap blocks, as compute-sanitizer's --leak-check full (default: no)")
      ->check(CLI::IsMember({"full", "no"}));
  cmd->add_option("--error-exitcode", o->errorExitCode,
                  "N: the exit status when a tool found an error (default: the program's own), as "
                  "compute-sanitizer's")
      ->check(CLI::Range(1, 255));
  cmd->add_option(
         "--print-limit", p.printLimit,
         "N: the tools print at most N reports (memcheck: per launch), and count the rest (default 100; 0: all)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{std::numeric_limits<int32_t>::max()}));
  cmd->add_option("--log-file", p.logFile,
                  "FILE: the tools' reports and summaries go to FILE instead of stderr (%p: the program's process id)");
  cmd->add_option(
         "-k,--kernel-name", p.kernelNames,
         "The launches the tools report on and --report and --metrics-json keep: NAME (the function's name, as "
         "ncu -k) or regex:EXPR (ncu), kne=MANGLED, kns=SUBSTRING or regex=EXPR (compute-sanitizer, on the "
         "mangled name); repeatable, any may match (default: every launch)")
      ->allow_extra_args(false);
  cmd->add_option("--kernel-name-exclude", p.kernelNamesExclude,
                  "Launches of kernels matching this (the same forms) are left out; repeatable")
      ->allow_extra_args(false);
  cmd->add_option("-s,--launch-skip", p.launchSkip, "Leave out the first N launches that match the filters")
      ->check(CLI::Range(uint64_t{0}, uint64_t{std::numeric_limits<int64_t>::max()}));
  cmd->add_option("-c,--launch-count", p.launchCount, "Keep at most N matching launches after those skipped (0: all)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{std::numeric_limits<int64_t>::max()}));
  cmd->add_option("--demangle", o->demangle,
                  "How reports name kernels: full (void scale<float>(float*, int, float), the default), simple "
                  "(scale) or no (the mangled name), as compute-sanitizer's --demangle")
      ->check(CLI::IsMember({"full", "simple", "no"}));
  cmd->add_option("program", o->argv, "-- PROGRAM ARGS...: the program and its arguments")->required();
  cmd->footer(fmt::format(R"(Examples:
  ptxray exec -- ./vector_add
  ptxray exec --arch k40 --tool memcheck,racecheck -- ./app input.dat
The same settings as environment variables, with LD_LIBRARY_PATH=<build>/lib/ptxray-cuda:
  {}, {}, {}, {}, {}, {}, {}, {},
  {}, {}, {}, {}=api, {}=strict, {}, {}=FILE[,FILE...], {}.
A CUDA program must embed PTX (nvcc -arch=sm_XX does); ptxray's libcuda.so.1 and libcudart.so.13
replace NVIDIA's for it. An OpenCL program sees one platform, ptxray's (OCL_ICD_VENDORS and
OCL_ICD_FILENAMES name <build>/lib/ptxray-opencl/libptxray-opencl.so), whose device is the GPU of --arch.)",
                          session::env::kArch, session::env::kThreads, session::env::kBoards, session::env::kTool,
                          session::env::kRacecheckGlobal, session::env::kSanitizerJson, session::env::kMetricsJson,
                          session::env::kReport, session::env::kClock, session::env::kDlcm, session::env::kBankMode,
                          session::env::kLog, session::env::kPtx, session::env::kMaxInstructions,
                          session::env::kTimeline, session::env::kTrace));
  return [cmd, o]() -> int {
    if (!cmd->parsed())
      return -1;
    try {
      o->program.tools.tools = session::parseTools(o->tools, "--tool");
      // Filters that do not parse are refused here, where the option is named.
      (void)session::KernelFilter(o->program.kernelNames, o->program.kernelNamesExclude, o->program.launchSkip,
                                  o->program.launchCount);
      if (!o->demangle.empty())
        o->program.names = *ptx::parseNameStyle(o->demangle);
      if (o->leakCheck == "full")
        for (session::Tool t : {session::Tool::Memcheck, session::Tool::Leakcheck})
          if (!o->program.tools.has(t))
            o->program.tools.tools.push_back(t);
      return execProgram(o->program, o->argv, o->errorExitCode);
    } catch (const std::invalid_argument &e) {
      std::cerr << "ptxray: error: " << e.what() << "\n";
      return 2;
    }
  };
}

} // namespace ptxray::cli
