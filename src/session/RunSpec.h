// The run-spec format of `ptxray run SPEC.json` as a library: a JSON file naming a module, the
// buffers to set up, the launches (or a session of host operations) to run in order and the buffers
// to write back to files.
//
//   {"module": "PATH.ptx" | "PATH.cu" | "PATH.cl" | ["A.ptx", "B.cu", ...] (linked: nvcc -rdc=true units),
//    "build_options": "-D N=4 -cl-mad-enable" | [...],   (an OpenCL C module's, as clBuildProgram's)
//    "buffers": [{"name": N, "bytes": B, "init": INIT} | {"name": N, "symbol": SYM, "init": INIT}
//                | {"name": N, "bytes": B, "host": "pinned" | "pageable", "init": INIT}],
//                (a plain device buffer may name its "device": 0, 1, ... on a system of several GPUs)
//    "launches": [{"kernel": K, "grid": [x,y,z], "block": [x,y,z], "dynamic_shared_bytes": D,
//                  "cooperative": false, "args": [ARG...]}],
//                 (OpenCL's NDRange instead of grid and block: "global_work_size": [x,y,z],
//                  "local_work_size": [x,y,z], "global_work_offset": [x,y,z])
//    "operations": [{"op": OP, "stream": S, ...}],   (instead of "launches"; SpecOperation below)
//    "host": {"pcie_generation": G, "pcie_lanes": L, "boards": B},
//    "outputs": [{"buffer": N, "file": "PATH"}]}
//
//   INIT  "zero" | "none" | "PATH" (raw bytes; a shorter file is zero-padded, a longer one is an
//         error) | {"random": {"dtype", "seed", "min", "max"}} | {"iota": {"dtype"}}  (DataGenerators.h)
//         A plain buffer without "init" is zero; a symbol buffer without "init" keeps the value
//         the module gave the variable. "none" (plain buffers only) allocates it like a bare
//         cudaMalloc: nothing is copied to it, so initcheck reports reads of it that no kernel wrote
//         first (the VM's memory still reads as zero).
//   ARG   {"buffer": N, "offset": BYTES}   the device address of buffer N plus BYTES (8 bytes in an
//                                          .address_size 64 module, 4 in a 32-bit one)
//         {"type": T, "value": V}          T: u8 s8 u16 s16 u32 s32 u64 s64 b8 b16 b32 b64 f16 bf16
//                                          f32 f64; integers must fit T; floats are rounded to
//                                          nearest even ("inf", "-inf", "nan" are accepted)
//         {"type": T, "bits": "0x..."}     the exact bit pattern
//         {"type": "bytes", "hex": "..."}  a struct passed by value, byte by byte
//         {"local": BYTES}                 an OpenCL __local pointer: BYTES of the work-group's local
//                                          memory (clSetKernelArg with a size and no value)
//   grid and block take 1 to 3 entries (missing ones are 1). Relative paths are relative to the
//   spec file's folder. Keys starting with "_" are ignored (comments); other unknown keys are errors.
//
// Every error names the place in the JSON document: `spec.json: launches[1].args[2].type: unknown
// type "u33"`. Errors that need the module (unknown kernel or symbol, argument sizes) are found by
// runSpec() after loading it and before the first launch.
#pragma once

#include "arch/GpuDatabase.h"
#include "session/DataGenerators.h"
#include "vm/Device.h"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace ptxray::session {

/// A malformed spec, or one that does not fit its module. what() is "FILE: PATH: MESSAGE".
class SpecError : public std::runtime_error {
public:
  SpecError(std::string file, std::string path, std::string message);
  const std::string &file() const { return file_; }
  const std::string &path() const { return path_; } ///< JSON path ("launches[1].args[2].type"), may be empty
  const std::string &message() const { return message_; }

private:
  std::string file_, path_, message_;
};

/// How a buffer starts out.
struct BufferInit {
  enum class Kind : uint8_t { Keep, Zero, None, File, Iota, Random } kind = Kind::Zero;
  std::filesystem::path file; ///< Kind::File, resolved against the spec's folder
  DType dtype = DType::U8;    ///< Iota, Random
  uint64_t seed = 0;
  uint64_t minBits = 0, maxBits = 0; ///< integer random bounds (two's-complement patterns)
  double minValue = 0, maxValue = 1; ///< float random bounds
};

/// Where a buffer lives: device memory (the default), or host memory that copies move to and from
/// the device, page-locked ("pinned", cudaMallocHost) or ordinary ("pageable", malloc). Host buffers
/// are never kernel arguments.
enum class BufferMemory : uint8_t { Device, Pinned, Pageable };

struct SpecBuffer {
  std::string name;
  std::string symbol; ///< non-empty: a module .global/.const variable; its size comes from the module
  uint64_t bytes = 0; ///< plain buffers
  BufferInit init;
  BufferMemory memory = BufferMemory::Device; ///< "host": "pinned" | "pageable"
  /// "device": the CUDA device a plain device buffer is on (a dual-GPU board is two devices). The VM
  /// runs every device's work in one address space, so results are exact; the session places the
  /// work on its device. Module variables are device 0's.
  unsigned device = 0;
  std::string path; ///< "buffers[3]"
  bool onHost() const { return memory != BufferMemory::Device; }
};

struct SpecArg {
  bool isBuffer = false;
  std::string buffer; ///< isBuffer: the buffer's name
  uint64_t offset = 0;
  /// {"local": BYTES}: an OpenCL __local pointer; the bytes are placed in the work-group's local
  /// (shared) memory after its static part, and the argument is their address there.
  bool isLocal = false;
  uint64_t localBytes = 0;
  std::vector<std::byte> bytes; ///< !isBuffer: the parameter's bytes, little-endian
  std::string type;             ///< "u32", "bytes", ... ("pointer" for buffers)
  std::string path;             ///< "launches[0].args[2]"
};

struct SpecLaunch {
  std::string kernel; ///< empty: the module's only kernel
  vm::Dim3 grid, block;
  uint32_t dynamicSharedBytes = 0;
  bool cooperative = false; ///< cudaLaunchCooperativeKernel: every CTA resident, grid.sync() allowed
  /// "global_work_offset": OpenCL's offset of the global ids (get_global_offset).
  std::array<uint32_t, 3> globalOffset{};
  uint32_t workDim = 0;     ///< OpenCL's work_dim: the length of "global_work_size" (0: from the grid)
  bool openclSizes = false; ///< given as "global_work_size" and "local_work_size"
  std::vector<SpecArg> args;
  std::string path; ///< "launches[1]"
};

/// One host operation of a session, in issue order (the order a program's host thread makes the
/// calls). A spec with "launches" has one Launch operation per launch on stream 0.
struct SpecOperation {
  enum class Kind : uint8_t {
    MemcpyH2D,         ///< "memcpy_h2d": host buffer `src` -> device buffer `dst`
    MemcpyD2H,         ///< "memcpy_d2h": device `src` -> host `dst`
    MemcpyD2D,         ///< "memcpy_d2d": device `src` -> device `dst`
    Memcpy2D,          ///< "memcpy2d": `height` rows of `width` bytes, rows `srcPitch`/`dstPitch` apart
    Memset,            ///< "memset": `bytes` bytes of device `dst` set to `value`
    Launch,            ///< "launch": spec.launches[launch]
    EventRecord,       ///< "event_record": `event` completes when the stream's earlier work has
    StreamWaitEvent,   ///< "stream_wait_event": the stream's later work waits for `event`'s last record
    StreamSynchronize, ///< "stream_synchronize": the host waits for the stream's earlier work
    Synchronize,       ///< "synchronize": the host waits for all earlier work (cudaDeviceSynchronize)
  };
  Kind kind = Kind::Launch;
  /// CUDA stream: 0 is the legacy default stream (it waits for, and is waited for by, every other
  /// stream of its device); 1, 2, ... are streams created by the program (cudaStreamCreate).
  unsigned stream = 0;
  /// "device": the device whose stream this is (cudaSetDevice before the call). Copies and memsets
  /// default to their device buffer's device (a copy between two devices' buffers, a peer copy, to
  /// the source's); the rest to 0. A kernel takes buffers of its own device only.
  unsigned device = 0;
  std::string dst, src; ///< buffer names (copies, memset)
  uint64_t dstOffset = 0, srcOffset = 0;
  uint64_t bytes = 0;             ///< copies and memset; Memcpy2D: width * height
  uint64_t width = 0, height = 0; ///< Memcpy2D: bytes per row, rows
  uint64_t dstPitch = 0, srcPitch = 0;
  uint8_t value = 0; ///< Memset
  size_t launch = 0; ///< Launch: index into RunSpec::launches
  std::string event; ///< EventRecord, StreamWaitEvent
  std::string path;  ///< "operations[4]" ("launches[1]" for a plain launch list)
  bool isCopy() const { return kind <= Kind::Memcpy2D; }
};

/// The host system a session runs on, where the spec describes it ("host": {...}); what it leaves
/// out comes from the GPU's entry in the architecture database.
struct SpecHost {
  std::optional<int> pcieGeneration; ///< "pcie_generation": 1..5; the link runs at min(host, GPU)
  std::optional<int> pcieLanes;      ///< "pcie_lanes": 1, 2, 4, 8, 16
  std::optional<int> boards;         ///< "boards": boards of the GPU in the host, 1..16
};

struct SpecOutput {
  std::string buffer;
  std::filesystem::path file; ///< resolved against the spec's folder
  std::string path;           ///< "outputs[0]"
};

struct RunSpec {
  std::string name;          ///< the spec as errors name it (its file name as given)
  std::filesystem::path dir; ///< relative paths start here (empty: the current directory)
  std::filesystem::path module;
  /// "module": [FIRST, MORE...]: the modules linked with the first, as nvcc -rdc=true translation
  /// units are (ptx::linkModules; .cu files compiled with -rdc=true).
  std::vector<std::filesystem::path> linkedModules;
  std::vector<std::string> buildOptions; ///< "build_options": an OpenCL C module's (clBuildProgram's)
  std::vector<SpecBuffer> buffers;
  std::vector<SpecLaunch> launches;      ///< every launch, in issue order
  std::vector<SpecOperation> operations; ///< every host operation, in issue order (launches included)
  std::vector<SpecOutput> outputs;
  SpecHost host;

  /// The first buffer named `name`, or null.
  const SpecBuffer *findBuffer(std::string_view name) const;
  /// Appends `buffer` to `buffers`, indexed by its name for findBuffer.
  void addBuffer(SpecBuffer buffer);

private:
  /// Positions in `buffers` by name (the first of a name), kept by addBuffer: every operation
  /// names its buffers, and a spec of 150,000 of them must not be scanned for each. Buffers
  /// appended to `buffers` directly are found by a scan.
  std::map<std::string, size_t, std::less<>> bufferIndex_;
};

/// Checks a parsed JSON document and turns it into a RunSpec. `name` prefixes every error message;
/// relative paths are resolved against `dir`. Throws SpecError.
RunSpec parseRunSpec(const nlohmann::json &document, const std::string &name, const std::filesystem::path &dir);
/// Same, from JSON text (syntax errors are SpecErrors too).
RunSpec parseRunSpecText(std::string_view text, const std::string &name, const std::filesystem::path &dir);
/// Reads a spec file; relative paths in it are relative to its folder.
RunSpec loadRunSpec(const std::filesystem::path &file);

/// Changes to every launch of a spec, for trying configurations without editing it (`ptxray run
/// SPEC.json --block-size N --dynamic-shared BYTES`, the Python module's run_spec, sweeps).
struct LaunchOverrides {
  /// Threads per block along x (y and z kept); the grid along x is resized to cover at least the
  /// threads it covered: ceil(grid.x * old block.x / new block.x), as a program that computes its
  /// grid from the problem size would. An OpenCL NDRange's global size is rounded up to a multiple
  /// of the new local size the same way (OpenCL 1.x requires one).
  std::optional<uint32_t> blockSize;
  std::optional<uint32_t> dynamicSharedBytes; ///< every launch's dynamic shared memory
  bool any() const { return blockSize || dynamicSharedBytes; }
};

/// Applies `overrides` to every launch of `spec`. Throws SpecError (naming the launch) for a block
/// size of 0 or a grid that would exceed 2^32 - 1 blocks along x.
void applyLaunchOverrides(RunSpec &spec, const LaunchOverrides &overrides);

/// Writes the bytes a buffer starts with into `dst` (its whole extent; nothing for Keep and None),
/// generators and file loads in parallel slices on up to `threads` threads (0: one per hardware
/// thread), with the same bytes whatever the count. Throws SpecError (naming `buffer.path`) when an
/// init file cannot be read or is too large.
void writeInitialContents(const RunSpec &spec, const SpecBuffer &buffer, std::span<std::byte> dst,
                          unsigned threads = 0);

struct LaunchReport {
  size_t index = 0; ///< in spec.launches
  std::string kernel;
  vm::Dim3 grid, block;
  vm::LaunchResult result;
  double seconds = 0;
  uint64_t threads() const { return grid.count() * block.count(); }
};

struct RunOptions {
  /// The GPU the spec runs on (its compute capability and SM count); the target the caller resolved.
  arch::ArchTarget target = defaultTarget();
  vm::LaunchOptions launch;
  /// Attached to the device before the module loads (vm::Device::setListener): it hears every
  /// allocation, host write and launch of the run. Null: the plain VM.
  vm::Listener *listener = nullptr;
  bool writeOutputs = true;
  bool keepBuffers = false;     ///< fill RunOutcome::buffers with every buffer's final contents
  std::string keepPtxDirectory; ///< a .cu module: where to write the PTX nvcc made of it
  /// Called after each launch, before the next one starts (printing as the run goes; the module is
  /// alive, so the launch's profile can be advised on).
  std::function<void(const LaunchReport &)> onLaunch;
  /// Called with each thing the modeled GPU would not accept of the module (vm::LoadedModule::warnings),
  /// once it has loaded.
  std::function<void(const std::string &)> onModuleWarning;

  /// sm_90, the default of `ptxray run`.
  static arch::ArchTarget defaultTarget();
};

struct RunOutcome {
  std::vector<LaunchReport> launches; ///< the launches that ran (the last one may have failed)
  size_t operationsRun = 0;           ///< of spec.operations, in order (all unless a launch failed)
  std::string printfOutput;           ///< device printf output of every launch, in order
  std::vector<std::filesystem::path> outputsWritten;
  std::map<std::string, std::vector<std::byte>> buffers; ///< RunOptions::keepBuffers
  std::string error; ///< a failure after the first launch started (a launch failed, an output unwritable)
  bool ok() const;
};

/// Runs a spec on a fresh vm::Device: loads the module, checks the spec against it, sets up the
/// buffers, runs the launches in order (stopping at the first that fails, as a CUDA context would)
/// and, when all succeeded, writes the outputs. Throws SpecError or VmError (module that does not
/// load) before the first launch; later failures are in RunOutcome.
RunOutcome runSpec(const RunSpec &spec, const RunOptions &options = {});

} // namespace ptxray::session
