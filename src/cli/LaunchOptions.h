// One launch described on the command line (--kernel, --grid, --block, --buffer, --arg, --output),
// shared by `ptxray run` and `ptxray analyze`, and turned into the run spec it stands for.
#pragma once

#include "session/KernelFilter.h"
#include "session/RunSpec.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::cli {

struct LaunchCommandLine {
  std::string kernel;
  std::string grid;
  std::string block;
  uint64_t shared = 0;
  bool cooperative = false;
  std::vector<std::string> buffers;
  std::vector<std::string> args;
  std::vector<std::string> outputs;
  std::string buildOptions; ///< --build-options: an OpenCL C module's
  std::string globalOffset; ///< --global-offset X[,Y[,Z]]: OpenCL's global work offset
  /// The positional modules after the first: linked with it (nvcc -rdc=true translation units).
  std::vector<std::string> linkedModules;
  bool any() const; ///< whether any launch option was given
};

/// Registers the launch options on a subcommand.
void addLaunchOptions(CLI::App &cmd, LaunchCommandLine &o);

/// The launch filters of `run` and `analyze` on a spec of several launches, as `exec` has them:
/// -k/--kernel-name, --kernel-name-exclude, -s/--launch-skip, -c/--launch-count.
struct KernelFilterOptions {
  std::vector<std::string> names, excludes;
  uint64_t launchSkip = 0, launchCount = 0;
  /// Throws std::invalid_argument naming the option whose value does not parse.
  session::KernelFilter filter() const { return session::KernelFilter(names, excludes, launchSkip, launchCount); }
};
/// Registers them; `keeps` says what a filter keeps ("the launches the tools report on, ...").
void addKernelFilterOptions(CLI::App &cmd, KernelFilterOptions &o, const std::string &keeps);

/// The run spec for one launch of `module`. Throws std::invalid_argument for malformed options.
nlohmann::json commandLineSpec(const std::string &module, const LaunchCommandLine &o);

/// A spec error's place (a JSON path of the spec) named by the option that caused it.
std::string commandLinePlace(const LaunchCommandLine &o, const std::string &path);

/// The run spec of `input`: a spec file (SPEC.json), or a module with the launch options. Prints why
/// and returns nullopt when it is malformed (exit status 2); throws std::invalid_argument for
/// malformed launch options.
std::optional<session::RunSpec> loadSpec(const std::string &input, const LaunchCommandLine &o);
/// A spec error as the command line shows it: a spec file's errors name the JSON path, the launch
/// options' name the option.
std::string specErrorText(const session::SpecError &e, const std::string &input, const LaunchCommandLine &o);

/// Checks, before any work, that every (option, file) output can be written (support::outputFileProblem);
/// prints "ptxray: error: OPTION: cannot write 'FILE': REASON (nothing was run)" for each that cannot.
bool outputsWritable(const std::vector<std::pair<std::string, std::string>> &outputs);
/// The same for a run spec's outputs (their missing folders are made when they are written), named
/// by the spec's JSON path or the --output option that gave them.
bool specOutputsWritable(const session::RunSpec &spec, const std::string &input, const LaunchCommandLine &o);

/// A count with an optional K/M/G suffix; throws std::invalid_argument naming `where`.
uint64_t parseCount(std::string_view text, bool allowSuffix, const std::string &where);

/// How the launch options are written, for help footers.
inline constexpr const char *kLaunchOptionsHelp =
    R"(  --buffer NAME=BYTES[:INIT]  a device allocation; BYTES: 4096, 64K (KiB), 1M (MiB)
        INIT: zero (default) | none (never written, for initcheck) | iota:DTYPE
              | random:DTYPE[:SEED[:MIN:MAX]] | @FILE (raw bytes)
        DTYPE: u8 s8 u16 s16 u32 s32 u64 s64 f32 f64
  --arg buf:NAME[+OFFSET]     a pointer to buffer NAME (plus OFFSET bytes)
  --arg TYPE:VALUE            TYPE: u8 s8 u16 s16 u32 s32 u64 s64 b8 b16 b32 b64 f16 bf16 f32 f64;
                              VALUE 0x... is the exact bit pattern (f32:0x3f800000)
  --arg bytes:HEX             a struct passed by value, byte by byte (bytes:0100000002000000)
  --arg local:BYTES           an OpenCL __local pointer: BYTES of the work-group's local memory
  --output NAME=FILE          write buffer NAME to FILE after the launch
Arguments are in the kernel's parameter order. Without --kernel, the module's only kernel runs.)";

} // namespace ptxray::cli
