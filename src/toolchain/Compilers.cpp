#include "toolchain/Compilers.h"

#include "ptx/Printer.h"
#include "support/InputFile.h"
#include "support/Process.h"
#include "support/TemporaryFolder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

namespace ptxray::toolchain {

// The prelude's text, from OpenCLPrelude.cl (embedded by CMake).
extern const char *const kOpenCLPrelude;

namespace {

namespace fs = std::filesystem;

std::string replaceAll(std::string s, const std::string &from, const std::string &to) {
  if (from.empty())
    return s;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::string readFile(const fs::path &path) {
  return support::readInputFile(path);
}

void writeFile(const fs::path &path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out)
    throw CompileError(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
}

std::optional<std::string> findClang() {
  // clang 14: the compiler Debian 12's libclc-14 is built for (its bitcode must not be newer).
  if (auto clang = support::findExecutable("clang-14", {"/usr/lib/llvm-14/bin/clang"}))
    return clang;
  return support::findExecutable("clang");
}

std::optional<std::string> findLibclc() {
  for (const char *candidate : {"/usr/lib/clc/nvptx64--nvidiacl.bc", "/usr/share/clc/nvptx64--nvidiacl.bc",
                                "/usr/lib/llvm-14/lib/clc/nvptx64--nvidiacl.bc"}) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec))
      return std::string(candidate);
  }
  return std::nullopt;
}

constexpr const char *kTarget = "nvptx64-unknown-nvidiacl";

/// ptxray's prelude as LLVM bitcode, compiled once per process into a folder removed at exit.
const std::string &preludeBitcode(const std::string &clang) {
  static std::once_flag once;
  static std::unique_ptr<support::TemporaryFolder> folder;
  static std::string path, error;
  std::call_once(once, [&] {
    try {
      folder = std::make_unique<support::TemporaryFolder>("ptxray-opencl");
      const fs::path source = folder->path() / "ptxray-opencl-prelude.cl";
      writeFile(source, kOpenCLPrelude);
      const fs::path bitcode = folder->path() / "ptxray-opencl-prelude.bc";
      support::ProcessResult run = support::runProcess({clang, "-x", "cl", "-cl-std=CL1.2", "-target", kTarget, "-O2",
                                                        "-emit-llvm", "-c", "-o", bitcode.string(), source.string()});
      if (!run.ok())
        error =
            fmt::format("ptxray's OpenCL built-ins do not compile with {}:\n{}{}", clang, run.startError, run.output);
      else
        path = bitcode.string();
    } catch (const std::exception &e) {
      error = e.what();
    }
  });
  if (path.empty())
    throw CompileError(error);
  return path;
}

/// clBuildProgram's options as clang takes them; throws CompileError for one NVIDIA's driver refuses.
std::vector<std::string> clangOptions(const std::vector<std::string> &given, bool &optimize, bool &hasStd) {
  // Passed to clang as they are: the OpenCL 1.2 and 2.0/3.0 options (clang implements them).
  static const char *const kPassed[] = {"-cl-single-precision-constant",
                                        "-cl-denorms-are-zero",
                                        "-cl-fp32-correctly-rounded-divide-sqrt",
                                        "-cl-mad-enable",
                                        "-cl-no-signed-zeros",
                                        "-cl-unsafe-math-optimizations",
                                        "-cl-finite-math-only",
                                        "-cl-fast-relaxed-math",
                                        "-cl-uniform-work-group-size",
                                        "-w",
                                        "-Werror"};
  // Accepted with no effect on the PTX: argument information is always kept; NVIDIA's own options
  // tune ptxas, which ptxray does not run.
  static const char *const kAccepted[] = {"-cl-kernel-arg-info", "-cl-nv-verbose", "-nv-line-info",
                                          "-cl-no-subgroup-ifp"};
  std::vector<std::string> out;
  for (size_t i = 0; i < given.size(); ++i) {
    const std::string &o = given[i];
    if (o == "-D" || o == "-I") {
      if (i + 1 == given.size())
        throw BuildOptionError(fmt::format("invalid build option '{}': it needs a value", o));
      out.push_back(o);
      out.push_back(given[++i]);
    } else if ((o.starts_with("-D") || o.starts_with("-I")) && o.size() > 2) {
      out.push_back(o);
    } else if (o.starts_with("-cl-std=")) {
      static const char *const kVersions[] = {"CL1.0", "CL1.1", "CL1.2", "CL2.0", "CL3.0"};
      const std::string version = o.substr(8);
      if (std::find(std::begin(kVersions), std::end(kVersions), version) == std::end(kVersions))
        throw BuildOptionError(fmt::format("invalid build option '{}': OpenCL C versions are CL1.0 to CL3.0", o));
      hasStd = true;
      out.push_back(o);
    } else if (o == "-cl-opt-disable") {
      optimize = false;
    } else if (std::find(std::begin(kPassed), std::end(kPassed), o) != std::end(kPassed)) {
      out.push_back(o);
      // NVIDIA's compiler fuses a multiply and an add into one fma under -cl-mad-enable ([BPG] 5); clang
      // only marks the functions, which its NVPTX back end ignores, and keeps them apart unless
      // contraction is allowed outright. (-cl-unsafe-math-optimizations and -cl-fast-relaxed-math
      // already allow it.)
      if (o == "-cl-mad-enable")
        out.push_back("-ffp-contract=fast");
    } else if (std::find(std::begin(kAccepted), std::end(kAccepted), o) != std::end(kAccepted) ||
               o.starts_with("-cl-nv-maxrregcount=") || o.starts_with("-cl-nv-opt-level=") ||
               o.starts_with("-cl-nv-arch")) {
      continue;
    } else {
      throw BuildOptionError(fmt::format("invalid build option '{}'", o));
    }
  }
  return out;
}

/// The metadata nodes of an LLVM IR module: "!5" -> "!{i32 1, !\"float*\"}".
std::map<std::string, std::string, std::less<>> metadataNodes(std::string_view ir) {
  std::map<std::string, std::string, std::less<>> nodes;
  size_t at = 0;
  while (at < ir.size()) {
    size_t end = ir.find('\n', at);
    if (end == std::string_view::npos)
      end = ir.size();
    std::string_view line = ir.substr(at, end - at);
    at = end + 1;
    if (!line.starts_with('!'))
      continue;
    const size_t eq = line.find(" = ");
    if (eq == std::string_view::npos)
      continue;
    nodes.emplace(std::string(line.substr(0, eq)), std::string(line.substr(eq + 3)));
  }
  return nodes;
}

/// The operands of a metadata tuple "!{i32 1, !"a", !"b"}": integers as their digits, strings
/// unescaped (LLVM writes a byte it does not print as \XX).
std::vector<std::string> tupleOperands(std::string_view node) {
  std::vector<std::string> out;
  const size_t open = node.find("!{");
  if (open == std::string_view::npos)
    return out;
  size_t i = open + 2;
  while (i < node.size() && node[i] != '}') {
    while (i < node.size() && (node[i] == ' ' || node[i] == ','))
      ++i;
    if (i >= node.size() || node[i] == '}')
      break;
    if (node.compare(i, 2, "!\"") == 0) {
      std::string text;
      for (i += 2; i < node.size() && node[i] != '"'; ++i) {
        if (node[i] == '\\' && i + 2 < node.size()) {
          text += static_cast<char>(std::stoi(std::string(node.substr(i + 1, 2)), nullptr, 16));
          i += 2;
        } else {
          text += node[i];
        }
      }
      ++i;
      out.push_back(std::move(text));
    } else {
      // "i32 16": the value after the type.
      const size_t stop = node.find_first_of(",}", i);
      std::string_view item = node.substr(i, stop - i);
      const size_t space = item.rfind(' ');
      out.emplace_back(space == std::string_view::npos ? item : item.substr(space + 1));
      i = stop;
    }
  }
  return out;
}

} // namespace

std::vector<OpenCLKernelInfo> kernelInfoFromLlvmIr(std::string_view ir) {
  const auto nodes = metadataNodes(ir);
  auto operands = [&](std::string_view define, std::string_view key) -> std::vector<std::string> {
    const std::string tag = fmt::format("!{} !", key);
    const size_t at = define.find(tag);
    if (at == std::string_view::npos)
      return {};
    const size_t idStart = at + tag.size() - 1;
    size_t idEnd = idStart + 1;
    while (idEnd < define.size() && std::isdigit(static_cast<unsigned char>(define[idEnd])))
      ++idEnd;
    auto it = nodes.find(define.substr(idStart, idEnd - idStart));
    return it == nodes.end() ? std::vector<std::string>{} : tupleOperands(it->second);
  };
  std::vector<OpenCLKernelInfo> kernels;
  size_t at = 0;
  while (at < ir.size()) {
    size_t end = ir.find('\n', at);
    if (end == std::string_view::npos)
      end = ir.size();
    std::string_view line = ir.substr(at, end - at);
    at = end + 1;
    if (!line.starts_with("define ") || line.find(" spir_kernel ") == std::string_view::npos)
      continue;
    const size_t nameAt = line.find('@');
    if (nameAt == std::string_view::npos)
      continue;
    OpenCLKernelInfo k;
    if (line.compare(nameAt + 1, 1, "\"") == 0)
      k.name = std::string(line.substr(nameAt + 2, line.find('"', nameAt + 2) - nameAt - 2));
    else
      k.name = std::string(line.substr(nameAt + 1, line.find('(', nameAt) - nameAt - 1));
    const std::vector<std::string> spaces = operands(line, "kernel_arg_addr_space");
    const std::vector<std::string> access = operands(line, "kernel_arg_access_qual");
    const std::vector<std::string> types = operands(line, "kernel_arg_type");
    const std::vector<std::string> qualifiers = operands(line, "kernel_arg_type_qual");
    const std::vector<std::string> names = operands(line, "kernel_arg_name");
    for (size_t i = 0; i < spaces.size(); ++i) {
      OpenCLKernelArg a;
      // SPIR's numbering, which clang's metadata uses whatever the target: 1 global, 2 constant, 3 local.
      const std::string &space = spaces[i];
      a.space = space == "1"   ? OpenCLKernelArg::Space::Global
                : space == "2" ? OpenCLKernelArg::Space::Constant
                : space == "3" ? OpenCLKernelArg::Space::Local
                               : OpenCLKernelArg::Space::Private;
      if (i < access.size())
        a.access = access[i];
      if (i < types.size())
        a.type = types[i];
      if (i < qualifiers.size())
        a.qualifiers = qualifiers[i];
      if (i < names.size())
        a.name = names[i];
      k.args.push_back(std::move(a));
    }
    auto dims = [&](std::string_view key, std::array<uint32_t, 3> &out) {
      const std::vector<std::string> v = operands(line, key);
      for (size_t i = 0; i < 3 && i < v.size(); ++i)
        out[i] = static_cast<uint32_t>(std::stoul(v[i]));
    };
    dims("reqd_work_group_size", k.requiredWorkGroupSize);
    dims("work_group_size_hint", k.workGroupSizeHint);
    kernels.push_back(std::move(k));
  }
  return kernels;
}

std::string compileCuda(const fs::path &source, const std::string &displayName, int smVersion, bool relocatable) {
  std::optional<std::string> nvcc = support::findExecutable("nvcc", {"/usr/local/cuda/bin/nvcc"});
  if (!nvcc)
    throw CompileError(
        fmt::format("{}: compiling CUDA needs nvcc, which is not installed; pass the PTX instead", displayName));
  const int arch = std::max(smVersion, 75); // nvcc 13 targets compute_75 and newer
  // nvcc hands file names to a shell of its own (and resolves links to the source first), so it never
  // sees the user's: it compiles a copy with a plain name, and finds the source's headers through a
  // link to its directory (include paths are passed on as given).
  support::TemporaryFolder scratch("ptxray-nvcc");
  const fs::path &dir = scratch.path();
  std::error_code ec;
  const fs::path absolute = fs::absolute(source, ec);
  fs::copy_file(absolute, dir / "source.cu", ec);
  if (!ec)
    fs::create_directory_symlink(absolute.parent_path(), dir / "include", ec);
  if (ec)
    throw CompileError(fmt::format("{}: cannot prepare the nvcc run: {}", displayName, ec.message()));
  std::vector<std::string> command{*nvcc, "-ptx", "-lineinfo", fmt::format("-arch=compute_{}", arch)};
  if (relocatable) // device code that names functions and variables of other files (nvcc -rdc=true)
    command.push_back("-rdc=true");
  for (std::string arg : {std::string("-I"), (dir / "include").string(), std::string("-o"), (dir / "out.ptx").string(),
                          (dir / "source.cu").string()})
    command.push_back(std::move(arg));
  support::ProcessResult run = support::runProcess(command);
  if (!run.started)
    throw CompileError(fmt::format("{}: {}", displayName, run.startError));
  if (run.exitCode != 0) // diagnostics name the copy: give them the user's name back
    throw CompileError(fmt::format("nvcc failed on {} (exit status {}):\n{}", displayName, run.exitCode,
                                   replaceAll(run.output, (dir / "source.cu").string(), displayName)));
  // The .file directives name the copy too.
  return replaceAll(readFile(dir / "out.ptx"), ptx::quotedString((dir / "source.cu").string()),
                    ptx::quotedString(displayName));
}

std::vector<std::string> splitBuildOptions(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  bool inWord = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        current += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      inWord = true;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (inWord)
        out.push_back(std::move(current));
      current.clear();
      inWord = false;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (inWord)
    out.push_back(std::move(current));
  return out;
}

std::optional<CompiledModule> compileModuleFile(const fs::path &path, int smVersion,
                                                const std::vector<std::string> &buildOptions, bool relocatable) {
  const bool cuda = path.extension() == ".cu", opencl = path.extension() == ".cl";
  if (!cuda && !opencl)
    return std::nullopt;
  CompiledModule out;
  out.name = path.string() + ".ptx";
  if (cuda) {
    if (!buildOptions.empty())
      throw CompileError(fmt::format("{}: build options are for OpenCL C sources", path.string()));
    support::checkInputFile(path); // before nvcc is looked for: a missing file is the first thing to say
    // nvcc copies the source's path into the PTX's .file directive as it is: a line break there ends
    // the string (a PTX string is one line), and the module would fail on its .loc lines instead.
    if (const std::string name = path.string(); name.find_first_of("\n\r") != std::string::npos) {
      std::string shown;
      for (char c : name)
        shown += c == '\n' ? std::string("\\n") : c == '\r' ? std::string("\\r") : std::string(1, c);
      throw CompileError(fmt::format("{}: the file name has a line break, which nvcc would copy into the PTX's "
                                     ".file directive, where a string cannot hold one; rename the file",
                                     shown));
    }
    out.ptx = compileCuda(path, path.string(), smVersion, relocatable);
    return out;
  }
  OpenCLOptions options;
  options.options = buildOptions;
  // The source is compiled from a copy: its own folder is where #include "..." must look first.
  options.includeDirectory = path.has_parent_path() ? path.parent_path() : fs::path(".");
  OpenCLResult built = compileOpenCL(readFile(path), path.string(), options);
  out.ptx = std::move(built.ptx);
  out.buildLog = std::move(built.buildLog);
  return out;
}

std::string openclUnavailableReason() {
  if (!findClang())
    return "compiling OpenCL C needs clang (Debian: clang-14), which is not installed";
  if (!findLibclc())
    return "compiling OpenCL C needs libclc's nvptx64 library (Debian: libclc-14), which is not installed";
  return {};
}

OpenCLResult compileOpenCL(std::string_view source, const std::string &displayName, const OpenCLOptions &options) {
  if (std::string why = openclUnavailableReason(); !why.empty())
    throw CompileError(fmt::format("{}: {}", displayName, why));
  const std::string clang = *findClang();
  const std::string libclc = *findLibclc();
  const std::string &prelude = preludeBitcode(clang);
  bool optimize = true, hasStd = false;
  const std::vector<std::string> userOptions = clangOptions(options.options, optimize, hasStd);

  // The source is compiled as a file named like the user's, in a folder of its own; diagnostics and
  // .file directives then name that folder, which is replaced by the user's.
  support::TemporaryFolder scratch("ptxray-opencl");
  std::string base = fs::path(displayName).filename().string();
  if (base.empty() || base.starts_with('-') || base == "." || base == "..")
    base = "program.cl";
  const fs::path file = scratch.path() / base, ptx = scratch.path() / "out.ptx";
  writeFile(file, source);
  std::vector<std::string> argv{clang, "-x", "cl", "-target", kTarget, optimize ? "-O2" : "-O0", "-gline-tables-only",
                                // PTX ISA 4.3 for sm_20 (clang's default is 3.2): the image built-ins
                                // query array sizes (txq/suq .array_size, PTX 4.1)
                                "-Xclang", "-target-feature", "-Xclang", "+ptx43",
                                // every OpenCL C built-in declared (clang's default set lacks
                                // vload_half and friends, which libclc defines)
                                "-cl-no-stdinc", "-Xclang", "-finclude-default-header",
                                // .file names the source relative to the compilation directory: the
                                // scratch folder, whatever the current one (replaced below)
                                "-fdebug-compilation-dir=" + scratch.path().string(), "-S", "-o", ptx.string(),
                                "-Xclang", "-mlink-builtin-bitcode", "-Xclang", prelude, "-Xclang",
                                "-mlink-builtin-bitcode", "-Xclang", libclc};
  if (!hasStd)
    argv.push_back("-cl-std=CL1.2");
  if (!options.includeDirectory.empty()) {
    argv.push_back("-I");
    argv.push_back(options.includeDirectory.string());
  }
  argv.insert(argv.end(), userOptions.begin(), userOptions.end());
  argv.push_back(file.string());
  support::ProcessResult run = support::runProcess(argv);
  if (!run.started)
    throw CompileError(fmt::format("{}: {}", displayName, run.startError));
  const std::string userFile = displayName.empty() ? base : displayName;
  if (run.exitCode != 0)
    throw CompileError(replaceAll(run.output, file.string(), userFile));
  std::vector<OpenCLKernelInfo> kernels;
  if (options.kernelInfo) {
    // The kernels' argument metadata: clang's front end alone, to LLVM IR (the PTX has lost the
    // pointers' address spaces and the types' names).
    const fs::path ir = scratch.path() / "out.ll";
    std::vector<std::string> irArgv{clang,
                                    "-x",
                                    "cl",
                                    "-target",
                                    kTarget,
                                    "-emit-llvm",
                                    "-S",
                                    "-Xclang",
                                    "-disable-llvm-passes",
                                    "-cl-kernel-arg-info",
                                    "-cl-no-stdinc",
                                    "-Xclang",
                                    "-finclude-default-header",
                                    "-o",
                                    ir.string()};
    irArgv.push_back(hasStd ? "" : "-cl-std=CL1.2");
    if (irArgv.back().empty())
      irArgv.pop_back();
    if (!options.includeDirectory.empty()) {
      irArgv.push_back("-I");
      irArgv.push_back(options.includeDirectory.string());
    }
    irArgv.insert(irArgv.end(), userOptions.begin(), userOptions.end());
    irArgv.push_back(file.string());
    support::ProcessResult described = support::runProcess(irArgv);
    if (!described.ok())
      throw CompileError(replaceAll(described.output, file.string(), userFile));
    kernels = kernelInfoFromLlvmIr(readFile(ir));
  }
  std::string text = readFile(ptx);
  // `.file 1 "<scratch>" "<base>"`: the user's folder instead (or none for a bare name).
  const fs::path parent = fs::path(userFile).parent_path();
  text =
      replaceAll(std::move(text), ptx::quotedString(scratch.path().string()) + " " + ptx::quotedString(base),
                 ptx::quotedString(parent.string()) + " " + ptx::quotedString(fs::path(userFile).filename().string()));
  return {std::move(text), replaceAll(run.output, file.string(), userFile), std::move(kernels)};
}

} // namespace ptxray::toolchain
