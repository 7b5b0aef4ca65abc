// The compilers that turn sources into PTX for ptxray, run with an argument vector (no shell: any
// file name is safe): nvcc for CUDA C++, clang with libclc for OpenCL C. Their diagnostics come back
// naming the user's file, and the PTX's .file directives name it too, so that every finding, fault
// and sanitizer report points at the user's source line.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::toolchain {

/// A compiler that is missing, cannot run, or rejects the source. what() is the whole message: the
/// compiler's diagnostics (file:line:col: error: ...) for a rejected source.
class CompileError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A build option the compiler refuses (clBuildProgram's CL_INVALID_BUILD_OPTIONS).
class BuildOptionError : public CompileError {
public:
  using CompileError::CompileError;
};

/// CUDA C++ to PTX with `nvcc -ptx -lineinfo` for compute capability `smVersion` (at least 75, what
/// nvcc 13 targets). `displayName` names the source in diagnostics and .file directives.
std::string compileCuda(const std::filesystem::path &source, const std::string &displayName, int smVersion,
                        bool relocatable = false);

/// What an OpenCL build is given: clBuildProgram's options (-D, -I, -cl-std=, -cl-mad-enable,
/// -cl-fast-relaxed-math, ...). Unknown options are refused as NVIDIA's driver refuses them.
struct OpenCLOptions {
  std::vector<std::string> options;
  std::filesystem::path includeDirectory; ///< where #include "..." looks first (the source's folder)
  /// Also describe each kernel's arguments (OpenCLResult::kernels): what an OpenCL platform needs to
  /// tell a buffer from a __local size, and clGetKernelArgInfo returns.
  bool kernelInfo = false;
};

/// One kernel argument as OpenCL C declares it (clGetKernelArgInfo), from clang's kernel metadata.
struct OpenCLKernelArg {
  /// The pointee's address space for pointers (__global, __constant, __local); Private for values.
  enum class Space : uint8_t { Private, Global, Constant, Local };
  Space space = Space::Private;
  std::string access = "none"; ///< images: read_only, write_only, read_write
  std::string type;            ///< as written, typedefs kept: "float*", "float4", "image2d_t"
  std::string qualifiers;      ///< "const", "restrict", "volatile", space-separated
  std::string name;
};

struct OpenCLKernelInfo {
  std::string name;
  std::vector<OpenCLKernelArg> args;
  std::array<uint32_t, 3> requiredWorkGroupSize{}; ///< __attribute__((reqd_work_group_size)); zeros: none
  std::array<uint32_t, 3> workGroupSizeHint{};     ///< __attribute__((work_group_size_hint)); zeros: none
};

/// The kernels clang describes in an OpenCL C module's LLVM IR (text): their argument metadata.
std::vector<OpenCLKernelInfo> kernelInfoFromLlvmIr(std::string_view ir);

/// The options of an OpenCL build string ("-D N=4 -cl-mad-enable") as a list; quotes group.
std::vector<std::string> splitBuildOptions(std::string_view text);

struct OpenCLResult {
  std::string ptx;
  std::string buildLog;                  ///< clang's warnings, naming the user's source (empty when it had none)
  std::vector<OpenCLKernelInfo> kernels; ///< with OpenCLOptions::kernelInfo
};

/// OpenCL C (1.2 by default; -cl-std= chooses) to PTX with clang and libclc for NVIDIA's OpenCL target
/// (nvptx64-nvidiacl), the work-item functions and math library inlined, `.loc` lines pointing into
/// the source named `displayName`. Throws CompileError with clang's diagnostics (the build log).
OpenCLResult compileOpenCL(std::string_view source, const std::string &displayName, const OpenCLOptions &options);

/// A module file's PTX when it is a source: a .cu file compiled by compileCuda for `smVersion`, a .cl
/// file by compileOpenCL with `buildOptions` (#include "..." also looks in the file's folder); the
/// PTX is named FILE.cu.ptx / FILE.cl.ptx, so that a PTX position (va.cu.ptx:60:2) is never read as a
/// line of the source (va.cu:2). Nullopt for anything else (PTX: read it as it is). Throws
/// CompileError; build options for a .cu file are an error. clang's warnings go to `buildLog`.
struct CompiledModule {
  std::string name; ///< FILE.cu.ptx, FILE.cl.ptx
  std::string ptx;
  std::string buildLog;
};
/// `relocatable`: a .cu file is compiled as nvcc -rdc=true compiles it, its external functions and
/// variables left to the linker (ptx::linkModules).
std::optional<CompiledModule> compileModuleFile(const std::filesystem::path &path, int smVersion,
                                                const std::vector<std::string> &buildOptions = {},
                                                bool relocatable = false);

/// Whether OpenCL C can be compiled here (clang and libclc's nvptx64 library found), and if not why.
std::string openclUnavailableReason();

} // namespace ptxray::toolchain
