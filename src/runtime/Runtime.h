// The process-wide state behind ptxray's libcudart.so.13: one virtual GPU of the architecture
// PTXRAY_ARCH, the device code the program registered (fatbinaries -> PTX modules, loaded on first
// use), the host functions and variables nvcc's host code registered, memory, streams and events, the
// error state of the context, and the tools asked for in the environment. Every method returns the
// cudaError_t the runtime API returns. Launches run to completion when they are issued; streams only
// order what already ran, so every result is exact and deterministic.
#pragma once

#include "arch/GpuDatabase.h"
#include "fatbin/Fatbin.h"
#include "runtime/CudaAbi.h"
#include "runtime/Graphs.h"
#include "runtime/JitLink.h"
#include "session/Environment.h"
#include "session/ProgramTools.h"
#include "support/MemoryBudget.h"
#include "vm/Device.h"
#include "vm/Texture.h"

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace ptxray::runtime {

/// One fatbinary the program registered, and the module made of its PTX.
struct RegisteredBinary {
  std::vector<fatbin::EmbeddedPtx> ptx;
  /// nvcc -rdc=true: the PTX of each translation unit (the prelinked fatbinaries a version-2 wrapper
  /// lists), linked into one module when the binary loads, as the driver's JIT linker links them.
  std::vector<std::vector<fatbin::EmbeddedPtx>> units;
  std::vector<std::string> unitNames; ///< the units' names (cuLinkAddData's); empty: numbered
  std::vector<int> cubinArchs;
  std::string loadError; ///< why it has no module (no PTX for the device, PTX that does not load)
  bool noImage = false;  ///< no PTX the device can run (cudaErrorNoKernelImageForDevice)
  vm::LoadedModule *module = nullptr;
  bool loadTried = false;
};

struct RegisteredFunction {
  RegisteredBinary *binary = nullptr;
  std::string name;               ///< the PTX (mangled) name
  int maxDynamicSharedBytes = -1; ///< cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize); -1: unset
};

struct RegisteredVariable {
  RegisteredBinary *binary = nullptr;
  std::string name;
  size_t size = 0;
  bool constant = false;
  bool managed = false;
  void **managedPointer = nullptr; ///< __cudaRegisterManagedVar: where the host code reads the address
};

class Runtime {
public:
  /// The process's runtime, created on first use.
  static Runtime &instance();
  ~Runtime();

  const session::ProgramOptions &config() const { return config_; }
  const arch::ArchTarget &target() const { return target_; }
  vm::Device &device() { return *device_; }
  std::mutex &mutex() { return mutex_; }
  /// NVTX (session/NvtxHook.h): where the program's session is, and a range that ended.
  size_t nvtxPosition();
  void recordNvtx(system::NvtxRange range);

  // Registration (nvcc's host code, before main).
  void **registerFatBinary(const void *wrapper);
  /// The module of an nvcc -rdc=true binary: its translation units' PTX for `sm`, linked. Null, with
  /// the binary's loadError set, when a unit has no PTX to run or the units do not link.
  vm::LoadedModule *linkUnits(RegisteredBinary &binary, int sm);
  /// A version-2 fatbinary wrapper's translation units (nvcc -rdc=true) into `binary.units`; nothing
  /// for another wrapper. Throws fatbin::FatbinError.
  static void readPrelinkedUnits(const void *wrapper, RegisteredBinary &binary);
  void unregisterFatBinary(void **handle);
  void registerFunction(void **handle, const void *hostFunction, const char *deviceName);
  void registerVariable(void **handle, const void *hostVariable, const char *deviceName, size_t size, bool constant,
                        bool managed);
  /// __cudaInitModule: loads the binary's module and points host code's __managed__ variable
  /// pointers at the variables. False when the module cannot load.
  bool initModule(void **handle);

  // Errors: the last error of the thread's API calls, and a sticky context error after a kernel fault.
  cuda::Error record(cuda::Error error); ///< remembers a failing call's error and returns it
  cuda::Error lastError(bool reset);
  cuda::Error stickyError() const { return sticky_; }

  // Devices: the boards' GPUs ([KTG] §1.4.7: a K10 or K80 board is two CUDA devices). All of them
  // run on the one virtual GPU, in one address space, so results are exact; what differs per device
  // is its streams, its memory's owner, its peers and its lane of the session (PTXRAY_TIMELINE).
  int deviceCount() const;
  bool validDevice(int device) const { return device >= 0 && device < deviceCount(); }
  int currentDevice() const { return threadDevice(); } ///< the calling thread's (cudaSetDevice, cuCtxSetCurrent)
  static int threadDevice();
  cuda::Error setDevice(int device);
  cuda::Error canAccessPeer(int *can, int device, int peer) const;
  cuda::Error enablePeerAccess(int peer);  ///< from the current device
  cuda::Error disablePeerAccess(int peer); ///< from the current device
  /// cudaMemcpyPeer(Async): `bytes` from device memory of `srcDevice` to that of `dstDevice`.
  cuda::Error memcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t bytes, void *stream,
                         bool synchronous);

  // Memory.
  cuda::Error malloc(void **pointer, size_t bytes);
  cuda::Error mallocManaged(void **pointer, size_t bytes);
  cuda::Error mallocHost(void **pointer, size_t bytes);
  cuda::Error free(void *pointer);
  cuda::Error freeHost(void *pointer);
  cuda::Error memcpy(void *dst, const void *src, size_t bytes, int kind);
  cuda::Error memcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int kind);
  cuda::Error memset(void *pointer, int value, size_t bytes);
  /// cuMemsetD16/D32: `count` copies of a `width`-byte value.
  cuda::Error memsetPattern(void *pointer, uint32_t value, unsigned width, size_t count);
  cuda::Error memGetInfo(size_t *free, size_t *total);
  cuda::Error pointerAttributes(cuda::PointerAttributes *attributes, const void *pointer);
  cuda::Error symbolAddress(void **address, const void *symbol);
  cuda::Error symbolSize(size_t *size, const void *symbol);
  // Copies and memsets as the API calls make them: on `stream` (checked), recorded in the session
  // once done; `synchronous`: the call returns when the work is (cudaMemcpy, cuMemcpyHtoD).
  cuda::Error streamCopy(void *dst, const void *src, size_t bytes, int kind, void *stream, bool synchronous);
  cuda::Error streamMemset(void *pointer, uint32_t value, unsigned width, size_t count, void *stream, bool synchronous);
  cuda::Error memcpyToSymbol(const void *symbol, const void *src, size_t bytes, size_t offset, int kind, void *stream,
                             bool synchronous);
  cuda::Error memcpyFromSymbol(void *dst, const void *symbol, size_t bytes, size_t offset, int kind, void *stream,
                               bool synchronous);

  // CUDA arrays, texture and surface objects (Textures.cpp). An array handle is its CudaArray.
  cuda::Error mallocArray(void **array, const cuda::ChannelFormatDesc *desc, size_t width, size_t height, size_t depth,
                          unsigned flags);
  cuda::Error freeArray(void *array);
  /// A 2D copy between an array (from byte column `xBytes`, row `y`) and linear memory.
  cuda::Error memcpyArray(void *array, size_t xBytes, size_t y, const void *other, size_t otherPitch, size_t widthBytes,
                          size_t height, int kind, bool toArray);
  /// An array's device address, bytes per row and rows per slice (its height; rows and slices packed),
  /// for the driver's 2D/3D copies.
  cuda::Error arrayLayout(const void *array, uint64_t &address, size_t &rowBytes, size_t &rows);
  /// An array's extent, element format and flags (cuArray3DGetDescriptor).
  cuda::Error arrayDescriptor(const void *array, size_t &width, size_t &height, size_t &depth,
                              vm::ChannelFormat &format, unsigned &flags);
  /// Whether an array holds 8- or 16-bit integers (textures may read them as normalized floats).
  bool arrayIsNormalizable(const void *array);
  /// cudaMemcpyToArray / FromArray: `bytes` from byte column `xBytes` of row `y` on, across rows.
  cuda::Error memcpyArrayLinear(void *array, size_t xBytes, size_t y, void *other, size_t bytes, int kind,
                                bool toArray);
  cuda::Error createTextureObject(unsigned long long *object, const cuda::ResourceDesc *resource,
                                  const cuda::TextureDesc *texture);
  cuda::Error createSurfaceObject(unsigned long long *object, const cuda::ResourceDesc *resource);
  cuda::Error destroyTextureObject(unsigned long long object, bool surface);

  // Kernels.
  struct CallConfiguration {
    cuda::Dim3 grid, block;
    size_t sharedBytes = 0;
    void *stream = nullptr;
  };
  void pushConfiguration(cuda::Dim3 grid, cuda::Dim3 block, size_t sharedBytes, void *stream);
  cuda::Error popConfiguration(cuda::Dim3 *grid, cuda::Dim3 *block, size_t *sharedBytes, void **stream);
  /// `args`: a pointer per parameter (cudaLaunchKernel, cuLaunchKernel's kernelParams); or, with `args`
  /// null, `extra`: cuLaunchKernel's {CU_LAUNCH_PARAM_BUFFER_POINTER, p, CU_LAUNCH_PARAM_BUFFER_SIZE,
  /// &size, CU_LAUNCH_PARAM_END} list, the parameters packed at their ABI offsets. `cooperative`:
  /// cudaLaunchCooperativeKernel (every block resident at once, grid.sync() allowed).
  cuda::Error launch(const void *hostFunction, cuda::Dim3 grid, cuda::Dim3 block, void **args, size_t sharedBytes,
                     void *stream, void **extra = nullptr, bool cooperative = false);

  // Driver API modules (libcuda.so.1): an image is PTX text, a fatbinary or a fatbinary wrapper.
  cuda::Error loadModule(void **module, const void *image);
  cuda::Error loadModuleFromFile(void **module, const char *path); ///< cuModuleLoad
  // The JIT linker (runtime/JitLink.h).
  cuda::Error linkCreate(const JitLogs &logs, void **state);
  cuda::Error linkAddData(void *state, int type, const void *data, size_t size, const char *name);
  cuda::Error linkAddFile(void *state, int type, const char *path);
  cuda::Error linkComplete(void *state, void **image, size_t *size);
  cuda::Error linkDestroy(void *state);
  cuda::Error unloadModule(void *module);
  cuda::Error moduleFunction(void **function, void *module, const char *name);
  cuda::Error moduleGlobal(uint64_t *address, size_t *bytes, void *module, const char *name);
  /// The kernel's PTX name, for cuFuncGetName and API traces; null for an unknown handle.
  const char *functionName(const void *function);
  cuda::Error funcAttributes(cuda::FuncAttributes *attributes, const void *hostFunction);
  cuda::Error funcSetAttribute(const void *hostFunction, int attribute, int value);
  cuda::Error occupancyMaxActiveBlocks(int *blocks, const void *hostFunction, int blockSize, size_t dynamicShared);

  // Device.
  cuda::Error properties(cuda::DeviceProp *properties, int device) const;
  cuda::Error attribute(int *value, int attribute, int device) const;
  cuda::Error synchronize(); ///< cudaDeviceSynchronize: the sticky error, if any
  cuda::Error reset();

  // Streams and events: handles are opaque non-null pointers; the "time" of an event is the modeled
  // device time (performance model when PTXRAY_METRICS_JSON is set, else the VM's own time).
  /// `flags`: cudaStreamNonBlocking (1): the stream does not synchronize with the legacy stream.
  cuda::Error streamCreate(void **stream, unsigned flags = 0);
  bool nonBlockingStream(void *stream) const { return nonBlockingStreams_.contains(stream); }
  /// The SMs of the modeled GPU (its reference board for a compute capability alone; 1 without one).
  int smCount() const { return target_.board() ? target_.board()->smCount : 1; }
  cuda::Error streamDestroy(void *stream);
  cuda::Error eventCreate(void **event);
  cuda::Error eventDestroy(void *event);
  cuda::Error eventRecord(void *event, void *stream);
  cuda::Error eventQuery(void *event);
  cuda::Error eventElapsed(float *ms, void *start, void *end);
  bool validStream(void *stream) const;
  /// cudaStreamWaitEvent/cuStreamWaitEvent: checked, and recorded in the session.
  cuda::Error streamWaitEvent(void *stream, void *event);

  // The session's record (PTXRAY_TIMELINE; nothing without it), called by the entry points once a call
  // has succeeded. `synchronous`: the call returns only when the work is done (cudaMemcpy).
  void recordCopy(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, void *stream,
                  bool synchronous);
  void recordMemset(void *pointer, size_t bytes, void *stream, bool synchronous);
  void recordEventRecord(void *event, void *stream);
  void recordStreamWaitEvent(void *stream, void *event);
  void recordStreamSynchronize(void *stream);
  void recordEventSynchronize(void *event);
  void recordSynchronize();
  /// The work recorded between these two comes from one cudaGraphLaunch (one call, for the clock).
  void beginGraphLaunch();
  void endGraphLaunch();
  /// A graph launch's branches in the session: work recorded while a lane is set goes to that lane
  /// (a stream of its own, numbered apart from the program's), ordered by events keyed by the
  /// graph's nodes, so that the modeled clock runs independent branches side by side as a GPU does.
  /// Lane 0 is the launch stream itself.
  void setGraphLane(void *launchStream, unsigned lane);
  /// The session's event `key` completes when `lane`'s work so far has; `lane` waits for `key`.
  void recordGraphEvent(void *launchStream, unsigned lane, const void *key);
  void recordGraphWait(void *launchStream, unsigned lane, const void *key);

  /// Runs one API call's body so that no C++ exception reaches the program (an exception through C
  /// code is a crash): std::bad_alloc becomes cudaErrorMemoryAllocation, anything else
  /// cudaErrorUnknown, with a line on stderr naming the call.
  template <typename F> static cuda::Error guarded(const char *name, F &&body) {
    try {
      return body();
    } catch (const support::MemoryBudgetExceeded &e) {
      std::fprintf(stderr, "ptxray: error: %s: %s\n", name, e.what());
      return cuda::kErrorMemoryAllocation;
    } catch (const std::bad_alloc &) {
      reportInternalError(name, "out of host memory");
      return cuda::kErrorMemoryAllocation;
    } catch (const std::exception &e) {
      reportInternalError(name, e.what());
      return cuda::kErrorUnknown;
    }
  }
  static void reportInternalError(const char *call, const char *what);

  /// A call of a runtime function ptxray does not implement: says so once per function on stderr and
  /// returns (and records) cudaErrorNotSupported.
  static cuda::Error unsupported(const char *function);

  /// The API trace (PTXRAY_LOG=api) and notes go here.
  void log(const std::string &line);
  void finish(); ///< end of the program: tool summaries, metrics file

  /// Whether [pointer, pointer + bytes) lies in one live device allocation (a driver copy whose
  /// memory type says device must not take anything else for host memory).
  bool isDeviceRange(const void *pointer, size_t bytes) const { return deviceRange(pointer, bytes) != nullptr; }

private:
  struct CudaArray {
    uint64_t address = 0;
    vm::ChannelFormat format;
    size_t width = 0, height = 0, depth = 0;
    unsigned flags = 0;
    uint64_t rowBytes() const { return width * format.elementBytes(); }
  };
  CudaArray *cudaArray(const void *array);
  /// The session's number for a stream: 0 for the legacy and per-thread default streams.
  unsigned streamNumber(void *stream) const;
  /// The device a stream belongs to: the one current when it was created; the calling thread's
  /// current device for the default streams.
  unsigned streamDevice(void *stream) const;
  session::StreamRef streamRef(void *stream) const; ///< its device and number, as the session names it
  /// The device whose memory `pointer` is (cudaMalloc on the then current device); nullopt for host
  /// and managed memory.
  std::optional<unsigned> memoryDevice(const void *pointer) const;
  cuda::Error resource(const cuda::ResourceDesc &r, vm::TextureResource &out);
  std::vector<std::unique_ptr<CudaArray>> arrays_;

  Runtime();
  RegisteredFunction *function(const void *hostFunction);
  RegisteredVariable *variable(const void *hostVariable);
  /// The module of `binary`, loading it on first use; null (and `error` set) when it cannot load.
  vm::LoadedModule *module(RegisteredBinary &binary, std::string &error);
  /// A device address range [pointer, pointer + bytes) of a live allocation, or null.
  const vm::Allocation *deviceRange(const void *pointer, size_t bytes) const;
  cuda::Error copy(void *dst, const void *src, size_t bytes, int kind);

  session::ProgramOptions config_;
  arch::ArchTarget target_;
  int deviceCount_ = 1;
  std::unique_ptr<vm::Device> device_;
  std::unique_ptr<session::ProgramTools> tools_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<RegisteredBinary>> binaries_;
  std::vector<std::unique_ptr<LinkState>> linkStates_; ///< cuLinkCreate until cuLinkDestroy
  LinkState *findLinkState(void *state);
  std::map<const void *, RegisteredFunction> functions_;
  std::map<const void *, RegisteredVariable> variables_;
  cuda::Error sticky_ = cuda::kSuccess;
  uint64_t nextHandle_ = 1;
  /// Opaque handles (streams, events, driver functions): addresses in the never-mapped first 256 MiB.
  void *newHandle();
  std::map<void *, uint64_t> streams_;
  std::map<void *, int> streamDevices_; ///< created streams' devices
  std::set<void *> nonBlockingStreams_;
  unsigned graphLane_ = 0; ///< setGraphLane's, while a graph launch records its work
  /// The session stream of a graph's lane (0: the launch stream).
  session::StreamRef laneRef(void *launchStream, unsigned lane) const;
  std::map<uint64_t, int> memoryDevices_;          ///< cudaMalloc'd base address -> device
  std::set<std::pair<int, int>> peerAccess_;       ///< (device, peer) enabled
  std::map<void *, std::optional<double>> events_; ///< recorded device time in ms
  double deviceMs_ = 0;                            ///< device time of everything issued so far
  uint64_t mappedTop_ = 0;                         ///< the next identity-mapped range ends here
  uint64_t launches_ = 0;
  bool finished_ = false;
  std::set<std::string> unsupportedReported_;
  /// CUDA's lazy loading, for the modeled clock: the modules and kernels launched so far (their code
  /// loaded); all of it at start-up with CUDA_MODULE_LOADING=EAGER.
  std::set<const void *> loadedCode_;
  bool eagerLoading_ = false;
  /// The host time a launch of `kernel` of `module` spends loading code first, and marks it loaded.
  double lazyLoadSeconds(const vm::LoadedModule &module, const vm::DecodedFunction &kernel);
  /// The module of a registered function (loaded on first use) and its kernel: the launch's error
  /// when either is missing (no image for the GPU, PTX that does not load, no such kernel).
  cuda::Error kernelOf(RegisteredFunction &f, vm::LoadedModule *&m, const vm::DecodedFunction *&kernel);
  /// A launch's parameter bytes, one buffer per parameter: from `args` (a pointer per parameter) or,
  /// with `args` null, cuLaunchKernel's `extra` list (the parameters packed at their ABI offsets).
  static cuda::Error packArguments(const vm::DecodedFunction &kernel, void **args, void **extra,
                                   std::vector<std::vector<std::byte>> &arguments);

  // ---- Runtime calls (RuntimeCalls.cpp) ----
  // Device flags, limits, cache and shared-memory configuration, stream-ordered allocation and memory
  // pools, host memory registration, host functions: the state behind both APIs' calls of each.
public:
  /// cudaSetDeviceFlags / cuDevicePrimaryCtxSetFlags / cuCtxSetFlags: a schedule (cudaDeviceSchedule*),
  /// cudaDeviceMapHost, cudaDeviceLmemResizeToMax, cudaDeviceSyncMemops; other bits or two schedules
  /// are cudaErrorInvalidValue.
  cuda::Error setDeviceFlags(int device, unsigned flags);
  /// The device's flags as CUDA reports them (cudaDeviceMapHost always: unified addressing maps
  /// page-locked memory).
  cuda::Error deviceFlags(int device, unsigned *flags) const;
  /// cudaDeviceSetLimit / cuCtxSetLimit (cudaLimit numbers): the stack size, printf FIFO and heap reach
  /// the VM at the next launch; the others are stored. cudaErrorUnsupportedLimit for an unknown limit.
  cuda::Error setLimit(int limit, size_t value);
  cuda::Error limit(size_t *value, int limit) const;
  /// cudaFuncCache (PreferNone, PreferShared, PreferL1, PreferEqual) of the current device and of one
  /// function (which overrides the device's unless PreferNone); cudaSharedMemConfig (Default, FourByte,
  /// EightByte) likewise. They reach the performance model (occupancy, Kepler's bank mode) at launch.
  cuda::Error setCacheConfig(int config);
  cuda::Error cacheConfig(int *config) const;
  cuda::Error setSharedMemConfig(int config);
  cuda::Error sharedMemConfig(int *config) const;
  cuda::Error funcSetCacheConfig(const void *function, int config);
  cuda::Error funcSetSharedMemConfig(const void *function, int config);
  /// Called by launch(): the limits and the function's configuration for this launch.
  void configureLaunch(vm::LaunchOptions &options, const void *function);

  /// Stream-ordered allocation: device memory as cudaMalloc gives it, accounted to a pool (`pool` null:
  /// the current pool of the stream's device).
  cuda::Error mallocAsync(void **pointer, size_t bytes, void *pool, void *stream);
  cuda::Error freeAsync(void *pointer, void *stream);
  cuda::Error defaultMemPool(void **pool, int device);
  cuda::Error currentMemPool(void **pool, int device);
  cuda::Error setCurrentMemPool(int device, void *pool);
  /// `props`: cudaMemPoolProps / CUmemPoolProps (pinned device memory of a valid device).
  cuda::Error memPoolCreate(void **pool, const void *props);
  cuda::Error memPoolDestroy(void *pool);
  /// cudaMemPoolAttr: 1-3 int reuse policies, 4 release threshold, 5/6 reserved current/high, 7/8 used
  /// current/high (uint64).
  cuda::Error memPoolSetAttribute(void *pool, int attribute, const void *value);
  cuda::Error memPoolGetAttribute(void *pool, int attribute, void *value);
  cuda::Error memPoolTrimTo(void *pool, size_t keep);
  /// At a stream, event or device synchronization: pools hand back what exceeds their release threshold.
  void releasePoolMemory();

  /// cudaHostRegister: the program's own host memory becomes reachable by kernels (at an alias in the
  /// VM's global range: cudaHostGetDevicePointer); cudaErrorHostMemoryAlreadyRegistered for a range
  /// that overlaps a registered or page-locked one.
  cuda::Error hostRegister(void *pointer, size_t bytes, unsigned flags);
  cuda::Error hostUnregister(void *pointer);
  /// The device address of page-locked (cudaMallocHost) or registered host memory.
  cuda::Error hostDevicePointer(void **device, void *host, unsigned flags);
  /// cudaHostGetFlags / cuMemHostGetFlags.
  cuda::Error hostFlags(unsigned *flags, void *host);
  /// cudaLaunchHostFunc / cuLaunchHostFunc: the function and stream checked; on a capturing stream a
  /// host node of the capture, else `runNow`: the caller runs it (outside the lock: it may call the API).
  cuda::Error enqueueHostFunction(void *stream, void (*function)(void *), void *data, bool &runNow);
  /// cudaStreamAddCallback / cuStreamAddCallback (not in a capture), before the caller runs the
  /// callback: the stream checked, and `status`, what the callback gets (the sticky error).
  cuda::Error streamCallbackCheck(void *stream, bool haveCallback, unsigned flags, cuda::Error &status);

private:
  struct MemPool {
    int device = 0;
    bool isDefault = false;
    int reuse[3] = {1, 1, 1}; ///< cudaMemPoolReuse*: 1 follow event dependencies, 2 opportunistic, 3 internal
    uint64_t releaseThreshold = 0;
    uint64_t maxSize = 0; ///< cudaMemPoolProps::maxSize (0: the device's memory)
    uint64_t used = 0, usedHigh = 0, reserved = 0, reservedHigh = 0;
  };
  MemPool *memPool(void *pool);
  void *devicePool(int device); ///< the device's default pool, created on first use
  std::map<void *, MemPool> pools_;
  std::map<int, void *> defaultPools_, currentPools_;
  std::map<uint64_t, std::pair<void *, uint64_t>> poolAllocations_; ///< base -> (pool, bytes)
  std::map<int, unsigned> deviceFlags_;
  std::map<int, size_t> limits_; ///< set by the program (cudaLimit -> value)
  std::map<int, int> deviceCacheConfig_, deviceSharedConfig_;
  std::map<const void *, int> functionCacheConfig_, functionSharedConfig_;
  std::unique_ptr<class HostRegistry> hostRegistry_;
  std::map<uint64_t, unsigned> hostRegisterFlags_; ///< registered base -> cudaHostRegister flags

  // ---- Graphs (Graphs.cpp) ----
public:
  /// CUDA graphs, executable graphs and stream captures (created on first use).
  graphs::GraphState &graphs();
  /// While `stream` captures (cudaStreamBeginCapture), the work issued to it becomes a node of the
  /// capture's graph instead of running: these give the call's result then, and nullopt when the call
  /// runs as usual. A synchronous call the thread's captures forbid fails (and invalidates them) as
  /// CUDA's do.
  std::optional<cuda::Error> captureLaunch(const void *hostFunction, cuda::Dim3 grid, cuda::Dim3 block, void **args,
                                           size_t sharedBytes, void *stream, void **extra, bool cooperative);
  std::optional<cuda::Error> captureCopy(void *dst, const void *src, size_t bytes, int kind, void *stream,
                                         bool synchronous);
  std::optional<cuda::Error> captureMemset(void *pointer, uint32_t value, unsigned width, size_t count, void *stream,
                                           bool synchronous);
  std::optional<cuda::Error> captureEventRecord(void *event, void *stream);
  std::optional<cuda::Error> captureWaitEvent(void *stream, void *event);
  /// cudaLaunchHostFunc / cuLaunchHostFunc on a capturing stream: a host node.
  std::optional<cuda::Error> captureHostFunction(void *stream, void (*function)(void *), void *data);
  std::optional<cuda::Error> captureSynchronize(); ///< cudaDeviceSynchronize, cudaStreamSynchronize...
  bool capturing(void *stream);
  /// A launch's arguments copied, one buffer per kernel parameter, from `args` or `extra` as launch()
  /// reads them (a kernel node keeps them).
  cuda::Error kernelArguments(const void *hostFunction, void **args, void **extra,
                              std::vector<std::vector<std::byte>> &arguments);

private:
  std::unique_ptr<graphs::GraphState> graphs_;
};

} // namespace ptxray::runtime
