// The host side of the virtual GPU, shaped like the CUDA driver API: a device for an architecture,
// modules loaded from PTX (or CUDA compiled by nvcc), device memory, module variables by name, and
// kernel launches checked the way the driver checks them.
#pragma once

#include "arch/ComputeCapability.h"
#include "arch/GpuDatabase.h"
#include "ptx/Diagnostics.h"
#include "ptx/Ir.h"
#include "ptx/Parser.h"
#include "vm/Events.h"
#include "vm/Fault.h"
#include "vm/LaunchOptions.h"
#include "vm/Memory.h"
#include "vm/Program.h"

#include <array>
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace ptxray::vm {

/// A host API call that cannot be carried out (bad module, unknown kernel, bad pointer...).
class VmError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class DeviceHeap;
struct LaunchState;
class WorkerPool;
class TextureTable;

/// A loaded module: its PTX, the decoded program and where its variables live.
class LoadedModule {
public:
  const ptx::Module &ptx() const { return *ptx_; }
  const Program &program() const { return program_; }
  std::string_view name() const { return name_; }
  /// A module-scope .global or .const variable by PTX name (or demangled name).
  const PlacedVariable *findVariable(std::string_view name) const;
  /// Kernel entry by PTX name or demangled name (with or without its parameter list). Throws
  /// VmError when a demangled name matches several overloads.
  const DecodedFunction *findKernel(std::string_view name) const;
  /// Device address of a variable (const variables live in the module's constant bank).
  uint64_t deviceAddress(const PlacedVariable &v) const;
  /// The part of the constant bank reserved for constant-memory kernel arguments (loadModule's
  /// `constantArgumentBytes`): offsets in the bank (what ld.const addresses), and its device address.
  uint64_t constantArgumentOffset() const { return constArgumentsOffset_; }
  uint64_t constantArgumentBytes() const { return constBankBytes_ - constArgumentsOffset_; }
  uint64_t constantBankAddress() const { return constBank_; }
  /// What the modeled GPU would not accept of the module, though the VM runs it: the instructions its
  /// compute capability lacks, each at its first use (Device::loadModule).
  const std::vector<std::string> &warnings() const { return warnings_; }

private:
  friend class Device;
  std::vector<std::string> warnings_;
  /// Device::kernelRegisters' answers by function index: the liveness estimate is a pass over the
  /// kernel, and kernels ask for it (cudaFuncGetAttributes, the occupancy calculator) from every thread.
  mutable std::mutex registersMutex_;
  mutable std::unordered_map<uint32_t, uint32_t> registers_;
  std::string name_;
  std::unique_ptr<ptx::Module> ptx_;
  Program program_;
  uint64_t constBank_ = 0;
  uint64_t constBankBytes_ = 0;
  uint64_t constArgumentsOffset_ = 0;
};

struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  uint32_t dynamicSharedBytes = 0;
  /// cudaLaunchCooperativeKernel: every CTA must be resident at once (refused otherwise, as the
  /// driver does), and the grid gets the workspace cooperative groups' grid.sync() uses.
  bool cooperative = false;
  /// clEnqueueNDRangeKernel's global work offset (x, y, z): what get_global_offset returns in OpenCL C
  /// compiled by ptxray (the driver's %envreg3-5).
  std::array<uint32_t, 3> globalOffset{};
  /// clEnqueueNDRangeKernel's work_dim: what get_work_dim returns in OpenCL C compiled by ptxray
  /// (%envreg6). 0: the highest dimension of the grid or block larger than 1.
  uint32_t workDim = 0;
};

enum class LaunchStatus : uint8_t {
  Success,
  Refused,      ///< the driver would not start it (configuration, resources, arguments)
  Faulted,      ///< a memory or execution error (cudaErrorIllegalAddress and friends)
  AssertFailed, ///< cudaErrorAssert
};

/// Why the driver would not start a launch: the class of its error, which the APIs map to their
/// error codes (LaunchResult::error says it in words).
enum class Refusal : uint8_t {
  None,
  InvalidConfiguration, ///< a grid or block dimension, the block's thread count, .maxntid/.reqntid
  OutOfResources,       ///< shared memory, local memory or registers a block needs
  CooperativeTooLarge,  ///< a cooperative launch with more blocks than can be resident at once
  InvalidArgument,      ///< parameter count or sizes
};

struct LaunchResult {
  LaunchStatus status = LaunchStatus::Success;
  Refusal refusal = Refusal::None; ///< LaunchStatus::Refused: why
  std::string error;               ///< why a launch was refused, or a one-line summary of the fault
  std::vector<Fault> faults;       ///< every fault (one without memcheck, up to maxFaults with)
  uint64_t faultCount = 0;         ///< all faults found, also those past maxFaults
  std::string printfOutput;        ///< device printf lines, as the kernel printed them
  std::string assertOutput;        ///< the messages of failed device assertions (stderr on a GPU)
  uint64_t threadInstructions = 0;
  unsigned workers = 0;
  uint64_t ctasRun = 0; ///< CTAs that ran (fewer than the grid with LaunchOptions::sampleCtas)
  /// The longest time a warp waited on its clock: the modeled cycles (LaunchClock) from the launch's
  /// start to the last clock register read of the warp that read it latest; 0 when none read one.
  uint64_t clockCycles = 0;
  /// Grids the launch's threads launched (dynamic parallelism), at every depth; their instructions,
  /// printf output and faults are the launch's.
  uint64_t childGrids = 0;
  bool ok() const { return status == LaunchStatus::Success; }
};

/// What cudaFuncGetAttributes says of a kernel (cudaFuncAttributes' fields ptxray knows).
struct FunctionAttributes {
  uint64_t sharedSizeBytes = 0; ///< static shared memory
  uint64_t constSizeBytes = 0;
  uint64_t localSizeBytes = 0; ///< the kernel's frame per thread
  int maxThreadsPerBlock = 0;  ///< the largest block the registers, the GPU and .maxntid allow
  int numRegs = 0;             ///< Device::kernelRegisters
  int ptxVersion = 0;          ///< the module's .version, as 10 x major + minor
  int binaryVersion = 0;       ///< the GPU's compute capability, as 10 x major + minor
  int maxDynamicSharedSizeBytes = 0;
};

class Device {
public:
  /// A device of the given compute capability with `smCount` SMs (for %nsmid / %smid), on `board`
  /// (the device runtime's cudaDeviceGetAttribute; nullptr: a compute capability alone).
  explicit Device(const arch::ComputeCapability &cc, int smCount = 0, const arch::Gpu *board = nullptr);
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  const arch::ComputeCapability &computeCapability() const { return cc_; }
  const arch::Gpu *board() const { return board_; }

  /// Parses, verifies and loads PTX. Throws VmError with every diagnostic when it does not verify.
  /// `constantArgumentBytes`: room after the module's own constants for kernel arguments that live
  /// in constant memory (OpenCL's __constant pointers, which the kernel reads with ld.const at an
  /// offset in the bank, as NVIDIA's OpenCL driver places them).
  LoadedModule &loadModule(std::string name, std::string ptxText, uint64_t constantArgumentBytes = 0);
  /// Links several PTX modules into one and loads it, as the device linker would (ptx::linkModules:
  /// `nvcc -rdc=true` translation units, cuLink*). Functions the driver provides (vprintf, malloc,
  /// ...) need no definition. Throws VmError with the linker's diagnostics.
  LoadedModule &loadLinkedModules(std::string name, std::vector<ptx::LinkInput> inputs,
                                  uint64_t constantArgumentBytes = 0);
  /// Whether a function needs no definition in any linked module: the driver provides it (vprintf,
  /// malloc, free, __assertfail...).
  static bool providedByDriver(std::string_view function);
  /// A .ptx file, a .cu file compiled with `nvcc -ptx -lineinfo` for this device's compute capability
  /// when nvcc is installed, or a .cl file (OpenCL C) compiled with clang and libclc with
  /// `buildOptions` (clBuildProgram's: -D, -I, -cl-mad-enable, ...). The PTX of `dir/va.cu` is named
  /// `dir/va.cu.ptx`; with `keepPtxDirectory` it is also written there (as `va.cu.ptx`), so that
  /// reports point into a file. A source that does not compile throws VmError with the compiler's
  /// diagnostics, naming the user's file.
  LoadedModule &loadModuleFile(const std::string &path, const std::string &keepPtxDirectory = {},
                               const std::vector<std::string> &buildOptions = {});
  /// Several module files linked into one (loadLinkedModules); .cu files are compiled as
  /// `nvcc -rdc=true` compiles them. One path loads as loadModuleFile.
  LoadedModule &loadModuleFiles(const std::vector<std::string> &paths, const std::string &keepPtxDirectory = {},
                                const std::vector<std::string> &buildOptions = {});

  // Device memory (cuMemAlloc / cuMemFree / cuMemcpy*).
  uint64_t allocate(uint64_t bytes, std::string label = {});
  void free(uint64_t address);
  void copyToDevice(uint64_t address, std::span<const std::byte> data);
  void copyFromDevice(std::span<std::byte> data, uint64_t address) const;
  void memset(uint64_t address, uint8_t value, uint64_t bytes);
  /// The host's view of [address, address + bytes) of one live allocation, for host code that
  /// writes it in place (a run spec's generators fill large buffers from several threads). Counts
  /// as a host write of the whole range. Throws VmError outside every live allocation.
  std::span<std::byte> hostWriteRange(uint64_t address, uint64_t bytes);

  // Module variables (cuModuleGetGlobal + copies).
  void writeVariable(const LoadedModule &module, std::string_view name, std::span<const std::byte> data,
                     uint64_t offset = 0);
  void readVariable(const LoadedModule &module, std::string_view name, std::span<std::byte> data,
                    uint64_t offset = 0) const;

  /// Where `__managed__` module variables (`.attribute(.managed)`) are placed: memory host code reaches
  /// at the same address (the CUDA runtime library maps it). Without a placer they are ordinary
  /// module variables. The placer returns the address, or nullopt when it has no room.
  using ManagedPlacer = std::function<std::optional<uint64_t>(uint64_t bytes, std::string label)>;
  void setManagedPlacer(ManagedPlacer placer) { managedPlacer_ = std::move(placer); }

  /// The device heap for malloc/free in kernels (cudaLimitMallocHeapSize); takes effect at the next launch.
  void setHeapBytes(uint64_t bytes) { heapBytes_ = bytes; }
  uint64_t heapBytes() const { return heapBytes_; }

  /// Launches `kernel` and waits for it. `args` holds each parameter's bytes (a pointer's 8 or 4
  /// bytes, a struct's bytes); their sizes must match the kernel's parameters.
  LaunchResult launch(const LoadedModule &module, std::string_view kernel, const LaunchConfig &config,
                      std::span<const std::vector<std::byte>> args, const LaunchOptions &options = {});

  DeviceMemory &memory() { return memory_; }

  /// Attaches `listener` (null: none) to both of the device's channels (vm/Events.h): the host's
  /// allocations, releases and writes of device memory from now on, and every later launch. Attach
  /// before the first allocation for tools that shadow memory (initcheck).
  void setListener(Listener *listener) {
    listener_ = listener;
    memory_.setListener(listener);
  }
  Listener *listener() const { return listener_; }
  /// Texture and surface objects, and texture references bound to module variables.
  TextureTable &textures() { return *textures_; }

  /// Registers per thread the launch checks assume: .maxnreg, else the PTX liveness estimate.
  uint32_t kernelRegisters(const LoadedModule &module, const DecodedFunction &kernel) const;
  /// Where cudaGetErrorName's (`name`) or cudaGetErrorString's text for `error` lies in device
  /// memory, for the device runtime's (driver memory made before the first launch that can ask).
  uint64_t errorTextAddress(int error, bool name) const;
  /// cudaFuncGetAttributes for a kernel, the host's and the device runtime's.
  /// `maxDynamicSharedBytes`: what cudaFuncSetAttribute set; -1: the default (the block's limit less
  /// the kernel's static shared memory).
  FunctionAttributes functionAttributes(const LoadedModule &module, const DecodedFunction &kernel,
                                        int maxDynamicSharedBytes = -1) const;
  /// cudaOccupancyMaxActiveBlocksPerMultiprocessor: blocks of `blockSize` threads an SM keeps resident
  /// (0 when one cannot launch); nullopt for a block size the calculator refuses.
  std::optional<int> activeBlocksPerSm(const LoadedModule &module, const DecodedFunction &kernel, int blockSize,
                                       uint64_t dynamicSharedBytes) const;
  /// CTAs of this launch the GPU keeps resident at once: blocks per SM (the occupancy calculator)
  /// x SMs. A cooperative launch may not have more.
  uint64_t residentCtaLimit(const LoadedModule &module, const DecodedFunction &kernel,
                            const LaunchConfig &config) const;

  /// Where a grid stands in its launch tree (dynamic parallelism): depth 0 for the host's.
  struct GridNesting {
    uint32_t depth = 0;
    std::shared_ptr<std::atomic<uint64_t>> pendingLaunches; ///< shared by the tree; null: a new tree
    std::shared_ptr<uint64_t> gridsHeard; ///< grids of the tree the listener heard begin (LaunchInfo::treeGrid)
    uint64_t parentGrid = 0;              ///< LaunchInfo's fields for a child grid
    GridOrigin origin{};
  };
  LaunchResult launchGrid(const LoadedModule &module, const DecodedFunction *kernel, const LaunchConfig &config,
                          std::span<const std::vector<std::byte>> args, const LaunchOptions &options,
                          const GridNesting &nesting);
  /// Runs the child grids the grid of `L` launched, into `result`.
  void runChildGrids(const LoadedModule &module, LaunchState &L, LaunchResult &result);
  /// Whether the program's kernels launch grids themselves (call cudaGetParameterBufferV2).
  static bool launchesDevice(const Program &program);
  /// The parameter buffers of device-side launches: room for 2048 pending launches (CUDA's default
  /// pending launch count) of 4 KiB of arguments each.
  static constexpr uint64_t kLaunchArenaBytes = uint64_t{8} << 20;
  std::unique_ptr<DeviceHeap> launchArena_;
  /// Refusal::None, or why the launch cannot start and the driver's words for it.
  std::pair<Refusal, std::string> checkLaunch(const LoadedModule &module, const DecodedFunction &kernel,
                                              const LaunchConfig &config,
                                              std::span<const std::vector<std::byte>> args) const;

private:
  /// The grid workspace cooperative launches share (allocated on first use, kept).
  uint64_t gridWorkspace();
  /// Writes every error's name and text into driver memory, once (errorTextAddress).
  void makeErrorTexts();

  /// Fills `loaded`'s warnings: what of it the modeled GPU lacks.
  void noteFeaturesBeyondGpu(LoadedModule &loaded) const;
  const arch::ComputeCapability &cc_;
  int smCount_ = 1;
  const arch::Gpu *board_ = nullptr;
  DeviceMemory memory_;
  Listener *listener_ = nullptr;
  std::vector<std::unique_ptr<LoadedModule>> modules_;
  uint64_t heapBytes_ = 8 * 1024 * 1024; ///< CUDA's default malloc heap
  ManagedPlacer managedPlacer_;
  std::unique_ptr<DeviceHeap> heap_;
  std::unique_ptr<TextureTable> textures_;
  uint64_t launches_ = 0;
  uint64_t gridWorkspace_ = 0;
  std::unordered_map<int, std::pair<uint64_t, uint64_t>> errorTexts_; ///< error -> (name, text) addresses
  std::pair<uint64_t, uint64_t> unknownErrorTexts_{};                 ///< for values the table lacks
  std::unique_ptr<WorkerPool> workers_; ///< the launches' worker threads, kept between launches
};

} // namespace ptxray::vm
