// libcuda.so.1's entry points: the CUDA driver API over the same Runtime as the runtime library, so
// that driver-API programs (cuModuleLoadData of PTX, cuLaunchKernel) run on the virtual GPU and a
// program mixing both APIs sees one device, one memory and one error state. One device, one context
// (the primary context, current on every thread).
#include "libcuda/DriverExportTables.h"
#include "libcuda/DriverTextures.h"
#include "runtime/ApiTrace.h"
#include "runtime/Runtime.h"

#include <fmt/format.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <span>
#include <string>

using namespace ptxray::runtime;
using cuda::Error;

namespace {

using CUresult = int;
using CUdeviceptr = unsigned long long;

constexpr CUresult kCudaSuccess = 0;
constexpr CUresult kCudaErrorInvalidValue = 1;
constexpr CUresult kCudaErrorNotInitialized = 3;
constexpr CUresult kCudaErrorInvalidDevice = 101;
constexpr CUresult kCudaErrorInvalidHandle = 400;
constexpr CUresult kCudaErrorNotFound = 500;

/// The driver's code for a runtime error: the same number where both APIs have the error, else the
/// driver's nearest.
std::atomic<bool> gInitialized{false};
std::once_flag gExitHandler;

const char *driverErrorName(CUresult error);

/// Runs one driver call under the runtime's lock, traced with PTXRAY_LOG=api (its arguments and result:
/// runtime/ApiTrace.h).
template <typename F, typename... A> CUresult driver(const char *name, const trace::Args<A...> &args, F &&call) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  CUresult r = kCudaErrorNotInitialized;
  if (gInitialized)
    r = driverResult(Runtime::guarded(name, [&] { return call(rt); }));
  if (rt.config().logApi)
    Runtime::guarded(name, [&] {
      const char *result = driverErrorName(r);
      rt.log(fmt::format("{} = {}", trace::call(rt, name, args, r == kCudaSuccess),
                         result ? std::string(result) : std::to_string(r)));
      return cuda::kSuccess;
    });
  return r;
}

thread_local std::vector<int> tContextStack; ///< cuCtxPushCurrent's saved devices

struct DriverErrorText {
  CUresult code;
  const char *name;
};
constexpr DriverErrorText kDriverNames[] = {
    {0, "CUDA_SUCCESS"},
    {1, "CUDA_ERROR_INVALID_VALUE"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"},
    {100, "CUDA_ERROR_NO_DEVICE"},
    {101, "CUDA_ERROR_INVALID_DEVICE"},
    {200, "CUDA_ERROR_INVALID_IMAGE"},
    {201, "CUDA_ERROR_INVALID_CONTEXT"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {215, "CUDA_ERROR_UNSUPPORTED_LIMIT"},
    {218, "CUDA_ERROR_INVALID_PTX"},
    {300, "CUDA_ERROR_INVALID_SOURCE"},
    {301, "CUDA_ERROR_FILE_NOT_FOUND"},
    {400, "CUDA_ERROR_INVALID_HANDLE"},
    {500, "CUDA_ERROR_NOT_FOUND"},
    {600, "CUDA_ERROR_NOT_READY"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
    {710, "CUDA_ERROR_ASSERT"},
    {712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"},
    {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"},
    {714, "CUDA_ERROR_HARDWARE_STACK_ERROR"},
    {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS"},
    {717, "CUDA_ERROR_INVALID_ADDRESS_SPACE"},
    {718, "CUDA_ERROR_INVALID_PC"},
    {719, "CUDA_ERROR_LAUNCH_FAILED"},
    {801, "CUDA_ERROR_NOT_SUPPORTED"},
    {999, "CUDA_ERROR_UNKNOWN"},
};

const char *driverErrorName(CUresult error) {
  for (const DriverErrorText &e : kDriverNames)
    if (e.code == error)
      return e.name;
  return nullptr;
}

std::mutex gUnsupportedMutex;
std::set<std::string> gUnsupportedReported;

void *pointer(CUdeviceptr p) {
  return reinterpret_cast<void *>(static_cast<uintptr_t>(p));
}

} // namespace

namespace ptxray::runtime {

int unsupportedDriverCall(const char *function) {
  std::lock_guard lock(gUnsupportedMutex);
  if (gUnsupportedReported.insert(function).second) {
    std::fflush(stdout);
    std::fprintf(stderr, "ptxray: %s is not supported by ptxray's CUDA driver: it returns CUDA_ERROR_NOT_SUPPORTED\n",
                 function);
  }
  return 801; // CUDA_ERROR_NOT_SUPPORTED
}

/// The graph functions' table, until src/libcuda/DriverGraphExports.cpp defines it.
__attribute__((weak)) std::span<const DriverProc> graphDriverProcs() {
  return {};
}

} // namespace ptxray::runtime

extern "C" {

CUresult cuInit(unsigned flags) {
  if (flags != 0)
    return kCudaErrorInvalidValue;
  Runtime::instance();
  // The tools' summaries and files when the program ends (a program on NVIDIA's static runtime never
  // loads libcudart.so.13, which does this otherwise).
  std::call_once(gExitHandler, [] {
    std::atexit([] {
      Runtime &rt = Runtime::instance();
      std::lock_guard lock(rt.mutex());
      Runtime::guarded("exit", [&] {
        rt.finish();
        return cuda::kSuccess;
      });
    });
  });
  gInitialized = true;
  return kCudaSuccess;
}

CUresult cuDriverGetVersion(int *version) {
  if (!version)
    return kCudaErrorInvalidValue;
  *version = kDriverVersion;
  return kCudaSuccess;
}

CUresult cuGetExportTable(const void **table, const unsigned char *uuid) {
  return driverExportTable(table, uuid);
}

CUresult cuGetErrorName(CUresult error, const char **name) {
  if (!name)
    return kCudaErrorInvalidValue;
  for (const DriverErrorText &e : kDriverNames)
    if (e.code == error) {
      *name = e.name;
      return kCudaSuccess;
    }
  *name = nullptr;
  return kCudaErrorInvalidValue;
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  if (!text)
    return kCudaErrorInvalidValue;
  *text = cuda::errorString(error == kCudaErrorInvalidHandle ? cuda::kErrorInvalidResourceHandle : error);
  return kCudaSuccess;
}

// ---- Devices and contexts ----------------------------------------------------------------------------

CUresult cuDeviceGetCount(int *count) {
  return driver("cuDeviceGetCount", PTXRAY_ARGS(count), [&](Runtime &rt) {
    if (!count)
      return cuda::kErrorInvalidValue;
    *count = rt.deviceCount();
    return cuda::kSuccess;
  });
}

CUresult cuDeviceGet(int *device, int ordinal) {
  return driver("cuDeviceGet", PTXRAY_ARGS(device, ordinal), [&](Runtime &rt) {
    if (!device)
      return cuda::kErrorInvalidValue;
    if (!rt.validDevice(ordinal))
      return cuda::kErrorInvalidDevice;
    *device = ordinal;
    return cuda::kSuccess;
  });
}

CUresult cuDeviceGetName(char *name, int length, int device) {
  return driver("cuDeviceGetName", PTXRAY_ARGS(name, length, device), [&](Runtime &rt) {
    cuda::DeviceProp p;
    if (!name || length <= 0)
      return cuda::kErrorInvalidValue;
    if (Error e = rt.properties(&p, device))
      return e;
    std::strncpy(name, p.name, static_cast<size_t>(length) - 1);
    name[length - 1] = '\0';
    return cuda::kSuccess;
  });
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, int device) {
  return driver("cuDeviceTotalMem", PTXRAY_ARGS(bytes, device), [&](Runtime &rt) {
    cuda::DeviceProp p;
    if (!bytes)
      return cuda::kErrorInvalidValue;
    if (Error e = rt.properties(&p, device))
      return e;
    *bytes = p.totalGlobalMem;
    return cuda::kSuccess;
  });
}

CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  // CUdevice_attribute numbers are cudaDeviceAttr's. NVIDIA's runtime reads some 110 of them when it
  // starts: those the architecture database has no value for (texture limits, NUMA, ...) read 0.
  return driver("cuDeviceGetAttribute", PTXRAY_ARGS(value, attribute, device), [&](Runtime &rt) {
    if (!value)
      return cuda::kErrorInvalidValue;
    return rt.attribute(value, attribute, device);
  });
}

CUresult cuDeviceGetUuid(unsigned char *uuid, int device) {
  if (!uuid)
    return kCudaErrorInvalidValue;
  if (!Runtime::instance().validDevice(device))
    return kCudaErrorInvalidDevice;
  const std::array<unsigned char, 16> id = deviceUuid(device);
  std::memcpy(uuid, id.data(), 16);
  return kCudaSuccess;
}

CUresult cuDeviceGetUuid_v2(unsigned char *uuid, int device) {
  return cuDeviceGetUuid(uuid, device);
}

CUresult cuDeviceComputeCapability(int *major, int *minor, int device) {
  return driver("cuDeviceComputeCapability", PTXRAY_ARGS(major, minor, device), [&](Runtime &rt) {
    if (!major || !minor)
      return cuda::kErrorInvalidValue;
    if (Error e = rt.attribute(major, cuda::AttrComputeCapabilityMajor, device))
      return e;
    return rt.attribute(minor, cuda::AttrComputeCapabilityMinor, device);
  });
}

CUresult cuDeviceCanAccessPeer(int *can, int device, int peer) {
  return driver("cuDeviceCanAccessPeer", PTXRAY_ARGS(can, device, peer),
                [&](Runtime &rt) { return rt.canAccessPeer(can, device, peer); });
}

CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  return driver("cuDevicePrimaryCtxRetain", PTXRAY_ARGS(context, device), [&](Runtime &rt) {
    if (!context)
      return cuda::kErrorInvalidValue;
    if (!rt.validDevice(device))
      return cuda::kErrorInvalidDevice;
    *context = primaryContext(device);
    return cuda::kSuccess;
  });
}

CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  return Runtime::instance().validDevice(device) ? kCudaSuccess : kCudaErrorInvalidDevice;
}
CUresult cuDevicePrimaryCtxRelease(int device) {
  return cuDevicePrimaryCtxRelease_v2(device);
}

/// A fresh context: the runtime's context-local state is destroyed, the sticky error goes.
CUresult cuDevicePrimaryCtxReset_v2(int device) {
  if (!Runtime::instance().validDevice(device))
    return kCudaErrorInvalidDevice;
  resetContextLocalStorage(device);
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  rt.reset();
  return kCudaSuccess;
}
CUresult cuDevicePrimaryCtxReset(int device) {
  return cuDevicePrimaryCtxReset_v2(device);
}

CUresult cuDevicePrimaryCtxGetState(int device, unsigned *flags, int *active) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  if (!rt.validDevice(device))
    return kCudaErrorInvalidDevice;
  if (flags)
    rt.deviceFlags(device, flags);
  if (active)
    *active = gInitialized ? 1 : 0;
  return kCudaSuccess;
}

// Contexts: each device has its primary context, and making a context current selects its device for
// the calling thread (as cudaSetDevice does).
CUresult cuCtxSetCurrent(void *context) {
  if (!context)
    return kCudaSuccess; // no context current: the device stays as it was
  const int device = contextDevice(context);
  if (device < 0 || !Runtime::instance().validDevice(device))
    return kCudaErrorInvalidHandle;
  Runtime::instance().setDevice(device);
  return kCudaSuccess;
}
CUresult cuCtxCreate_v4(void **context, void * /*params*/, unsigned /*flags*/, int device) {
  CUresult r = cuDevicePrimaryCtxRetain(context, device);
  return r ? r : cuCtxSetCurrent(*context);
}
CUresult cuCtxCreate_v2(void **context, unsigned /*flags*/, int device) {
  CUresult r = cuDevicePrimaryCtxRetain(context, device);
  return r ? r : cuCtxSetCurrent(*context);
}
CUresult cuCtxDestroy_v2(void *context) {
  return contextDevice(context) >= 0 ? kCudaSuccess : kCudaErrorInvalidHandle;
}
CUresult cuCtxPushCurrent_v2(void *context) {
  const int previous = Runtime::threadDevice();
  CUresult r = cuCtxSetCurrent(context);
  if (r == kCudaSuccess)
    tContextStack.push_back(previous);
  return r;
}
CUresult cuCtxPopCurrent_v2(void **context) {
  if (context)
    *context = primaryContext(Runtime::threadDevice());
  if (!tContextStack.empty()) {
    Runtime::instance().setDevice(tContextStack.back());
    tContextStack.pop_back();
  }
  return kCudaSuccess;
}
CUresult cuCtxGetCurrent(void **context) {
  if (!context)
    return kCudaErrorInvalidValue;
  *context = gInitialized ? primaryContext(Runtime::threadDevice()) : nullptr;
  return kCudaSuccess;
}
CUresult cuCtxGetDevice(int *device) {
  if (!device)
    return kCudaErrorInvalidValue;
  *device = Runtime::threadDevice();
  return kCudaSuccess;
}

CUresult cuCtxGetDevice_v2(int *device, void *context) {
  if (!context)
    return cuCtxGetDevice(device);
  if (!device)
    return kCudaErrorInvalidValue;
  const int d = contextDevice(context);
  if (d < 0)
    return kCudaErrorInvalidHandle;
  *device = d;
  return kCudaSuccess;
}

CUresult cuCtxEnablePeerAccess(void *peerContext, unsigned flags) {
  return driver("cuCtxEnablePeerAccess", PTXRAY_ARGS(peerContext, flags), [&](Runtime &rt) {
    const int peer = contextDevice(peerContext);
    if (peer < 0)
      return cuda::kErrorInvalidResourceHandle;
    return flags ? cuda::kErrorInvalidValue : rt.enablePeerAccess(peer);
  });
}

CUresult cuCtxDisablePeerAccess(void *peerContext) {
  return driver("cuCtxDisablePeerAccess", PTXRAY_ARGS(peerContext), [&](Runtime &rt) {
    const int peer = contextDevice(peerContext);
    return peer < 0 ? cuda::kErrorInvalidResourceHandle : rt.disablePeerAccess(peer);
  });
}

CUresult cuMemcpyPeer(CUdeviceptr dst, void *dstContext, CUdeviceptr src, void *srcContext, size_t bytes) {
  return driver("cuMemcpyPeer", PTXRAY_ARGS(dst, dstContext, src, srcContext, bytes), [&](Runtime &rt) {
    return rt.memcpyPeer(pointer(dst), contextDevice(dstContext), pointer(src), contextDevice(srcContext), bytes,
                         nullptr, true);
  });
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, void *dstContext, CUdeviceptr src, void *srcContext, size_t bytes,
                           void *stream) {
  return driver("cuMemcpyPeerAsync", PTXRAY_ARGS(dst, dstContext, src, srcContext, bytes, stream), [&](Runtime &rt) {
    return rt.memcpyPeer(pointer(dst), contextDevice(dstContext), pointer(src), contextDevice(srcContext), bytes,
                         stream, false);
  });
}

CUresult cuCtxGetApiVersion(void *, unsigned *version) {
  if (!version)
    return kCudaErrorInvalidValue;
  *version = 3020; // the context API of CUDA 3.2 and later
  return kCudaSuccess;
}

CUresult cuCtxSynchronize() {
  return driver("cuCtxSynchronize", PTXRAY_ARGS(), [&](Runtime &rt) {
    rt.recordSynchronize();
    return rt.synchronize();
  });
}
CUresult cuCtxSynchronize_v2(void *) {
  return cuCtxSynchronize();
}

// ---- Modules -----------------------------------------------------------------------------------------

CUresult cuModuleLoadData(void **module, const void *image) {
  return driver("cuModuleLoadData", PTXRAY_ARGS(module, image),
                [&](Runtime &rt) { return rt.loadModule(module, image); });
}

CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned, void *, void **) {
  return cuModuleLoadData(module, image);
}

CUresult cuModuleLoad(void **module, const char *path) {
  return driver("cuModuleLoad", PTXRAY_ARGS(module, path),
                [&](Runtime &rt) { return rt.loadModuleFromFile(module, path); });
}

// ---- The JIT linker (runtime/JitLink.h) --------------------------------------------------------------

CUresult cuLinkCreate_v2(unsigned numOptions, int *options, void **optionValues, void **state) {
  return driver("cuLinkCreate", PTXRAY_ARGS(numOptions, options, optionValues, state), [&](Runtime &rt) {
    return rt.linkCreate(JitLogs::fromOptions(numOptions, options, optionValues), state);
  });
}
CUresult cuLinkCreate(unsigned numOptions, int *options, void **optionValues, void **state) {
  return cuLinkCreate_v2(numOptions, options, optionValues, state);
}

CUresult cuLinkAddData_v2(void *state, int type, void *data, size_t size, const char *name, unsigned, int *, void **) {
  return driver("cuLinkAddData", PTXRAY_ARGS(state, type, data, size, name),
                [&](Runtime &rt) { return rt.linkAddData(state, type, data, size, name); });
}
CUresult cuLinkAddData(void *state, int type, void *data, size_t size, const char *name, unsigned numOptions,
                       int *options, void **values) {
  return cuLinkAddData_v2(state, type, data, size, name, numOptions, options, values);
}

CUresult cuLinkAddFile_v2(void *state, int type, const char *path, unsigned, int *, void **) {
  return driver("cuLinkAddFile", PTXRAY_ARGS(state, type, path),
                [&](Runtime &rt) { return rt.linkAddFile(state, type, path); });
}
CUresult cuLinkAddFile(void *state, int type, const char *path, unsigned numOptions, int *options, void **values) {
  return cuLinkAddFile_v2(state, type, path, numOptions, options, values);
}

CUresult cuLinkComplete(void *state, void **image, size_t *size) {
  return driver("cuLinkComplete", PTXRAY_ARGS(state, image, size),
                [&](Runtime &rt) { return rt.linkComplete(state, image, size); });
}

CUresult cuLinkDestroy(void *state) {
  return driver("cuLinkDestroy", PTXRAY_ARGS(state), [&](Runtime &rt) { return rt.linkDestroy(state); });
}

CUresult cuModuleLoadFatBinary(void **module, const void *image) {
  return cuModuleLoadData(module, image);
}

CUresult cuModuleUnload(void *module) {
  return driver("cuModuleUnload", PTXRAY_ARGS(module), [&](Runtime &rt) { return rt.unloadModule(module); });
}

CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  return driver("cuModuleGetFunction", PTXRAY_ARGS(function, module, name),
                [&](Runtime &rt) { return rt.moduleFunction(function, module, name); });
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *address, size_t *bytes, void *module, const char *name) {
  return driver("cuModuleGetGlobal", PTXRAY_ARGS(address, bytes, module, name), [&](Runtime &rt) {
    uint64_t a = 0;
    Error e = rt.moduleGlobal(&a, bytes, module, name);
    if (!e && address)
      *address = a;
    return e;
  });
}

/// CU_MODULE_LAZY_LOADING (2): libraries load when a kernel or variable of theirs is first used.
CUresult cuModuleGetLoadingMode(int *mode) {
  if (!mode)
    return kCudaErrorInvalidValue;
  *mode = 2;
  return kCudaSuccess;
}

// Libraries (CUDA 12's context-independent modules): what NVIDIA's runtime loads the program's
// fatbinaries with. A library is a module; a CUkernel is a CUfunction.
CUresult cuLibraryLoadData(void **library, const void *code, void *, void **, unsigned, void *, void **, unsigned) {
  return driver("cuLibraryLoadData", PTXRAY_ARGS(library, code),
                [&](Runtime &rt) { return rt.loadModule(library, code); });
}

CUresult cuLibraryUnload(void *library) {
  return driver("cuLibraryUnload", PTXRAY_ARGS(library), [&](Runtime &rt) { return rt.unloadModule(library); });
}

CUresult cuLibraryGetKernel(void **kernel, void *library, const char *name) {
  return driver("cuLibraryGetKernel", PTXRAY_ARGS(kernel, library, name),
                [&](Runtime &rt) { return rt.moduleFunction(kernel, library, name); });
}

CUresult cuLibraryGetGlobal(CUdeviceptr *address, size_t *bytes, void *library, const char *name) {
  return driver("cuLibraryGetGlobal", PTXRAY_ARGS(address, bytes, library, name), [&](Runtime &rt) {
    uint64_t a = 0;
    Error e = rt.moduleGlobal(&a, bytes, library, name);
    if (!e && address)
      *address = a;
    return e;
  });
}

/// A __managed__ variable: placed where host code reaches it at the same address.
CUresult cuLibraryGetManaged(CUdeviceptr *address, size_t *bytes, void *library, const char *name) {
  return driver("cuLibraryGetManaged", PTXRAY_ARGS(address, bytes, library, name), [&](Runtime &rt) {
    uint64_t a = 0;
    Error e = rt.moduleGlobal(&a, bytes, library, name);
    if (!e && address)
      *address = a;
    return e;
  });
}

CUresult cuKernelGetFunction(void **function, void *kernel) {
  if (!function)
    return kCudaErrorInvalidValue;
  *function = kernel;
  return kCudaSuccess;
}

CUresult cuFuncGetAttribute(int *value, int attribute, void *function) {
  return driver("cuFuncGetAttribute", PTXRAY_ARGS(value, attribute, function), [&](Runtime &rt) {
    cuda::FuncAttributes a;
    if (!value)
      return cuda::kErrorInvalidValue;
    if (Error e = rt.funcAttributes(&a, function))
      return e;
    // CUfunction_attribute: 0 max threads per block, 1 shared, 2 const, 3 local, 4 registers, 5 PTX
    // version, 6 binary version, 7 cache mode CA, 8 max dynamic shared.
    switch (attribute) {
    case 0: *value = a.maxThreadsPerBlock; break;
    case 1: *value = static_cast<int>(a.sharedSizeBytes); break;
    case 2: *value = static_cast<int>(a.constSizeBytes); break;
    case 3: *value = static_cast<int>(a.localSizeBytes); break;
    case 4: *value = a.numRegs; break;
    case 5: *value = a.ptxVersion; break;
    case 6: *value = a.binaryVersion; break;
    case 7: *value = a.cacheModeCA; break;
    case 8: *value = a.maxDynamicSharedSizeBytes; break;
    case 9: *value = a.preferredShmemCarveout; break;
    case 10: // cluster size must be set
    case 11: // required cluster width, height, depth
    case 12:
    case 13:
    case 14:                    // non-portable cluster size allowed
    case 15: *value = 0; break; // cluster scheduling policy preference
    default: return cuda::kErrorInvalidValue;
    }
    return cuda::kSuccess;
  });
}

CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES (8) is cudaFuncAttributeMaxDynamicSharedMemorySize.
  return driver("cuFuncSetAttribute", PTXRAY_ARGS(function, attribute, value),
                [&](Runtime &rt) { return rt.funcSetAttribute(function, attribute, value); });
}

// CUDA 12's kernel-handle forms (what NVIDIA's static runtime calls for cudaFuncGetAttributes and
// cudaFuncSetAttribute): a CUkernel is a CUfunction here, on the one device.
CUresult cuKernelGetAttribute(int *value, int attribute, void *kernel, int device) {
  return Runtime::instance().validDevice(device) ? cuFuncGetAttribute(value, attribute, kernel)
                                                 : kCudaErrorInvalidDevice;
}

CUresult cuKernelSetAttribute(int attribute, int value, void *kernel, int device) {
  return Runtime::instance().validDevice(device) ? cuFuncSetAttribute(kernel, attribute, value)
                                                 : kCudaErrorInvalidDevice;
}

CUresult cuFuncGetName(const char **name, void *function) {
  return driver("cuFuncGetName", PTXRAY_ARGS(name, function), [&](Runtime &rt) {
    if (!name)
      return cuda::kErrorInvalidValue;
    *name = rt.functionName(function);
    return *name ? cuda::kSuccess : cuda::kErrorInvalidResourceHandle;
  });
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void *function, int blockSize, size_t dynamicShared) {
  return driver("cuOccupancyMaxActiveBlocksPerMultiprocessor", PTXRAY_ARGS(blocks, function, blockSize, dynamicShared),
                [&](Runtime &rt) { return rt.occupancyMaxActiveBlocks(blocks, function, blockSize, dynamicShared); });
}

// ---- Launches ----------------------------------------------------------------------------------------

CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned sharedBytes, void *stream, void **params, void **extra) {
  return driver("cuLaunchKernel", PTXRAY_ARGS(function, gx, gy, gz, bx, by, bz, sharedBytes, stream, params, extra),
                [&](Runtime &rt) {
                  if (params && extra)
                    return cuda::kErrorInvalidValue;
                  return rt.launch(function, {gx, gy, gz}, {bx, by, bz}, params, sharedBytes, stream, extra);
                });
}

CUresult cuLaunchKernel_ptsz(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned sharedBytes, void *stream, void **params, void **extra) {
  return cuLaunchKernel(function, gx, gy, gz, bx, by, bz, sharedBytes, stream, params, extra);
}

CUresult cuLaunchCooperativeKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                   unsigned bz, unsigned sharedBytes, void *stream, void **params) {
  return driver("cuLaunchCooperativeKernel", PTXRAY_ARGS(function, gx, gy, gz, bx, by, bz, sharedBytes, stream, params),
                [&](Runtime &rt) {
                  return rt.launch(function, {gx, gy, gz}, {bx, by, bz}, params, sharedBytes, stream, nullptr, true);
                });
}

CUresult cuLaunchCooperativeKernel_ptsz(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                        unsigned bz, unsigned sharedBytes, void *stream, void **params) {
  return cuLaunchCooperativeKernel(function, gx, gy, gz, bx, by, bz, sharedBytes, stream, params);
}

struct LaunchConfigAbi { // CUlaunchConfig
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void *stream;
  void *attrs;
  unsigned numAttrs;
};
static_assert(offsetof(LaunchConfigAbi, stream) == 32 && sizeof(LaunchConfigAbi) == 56);

CUresult cuLaunchKernelEx(const LaunchConfigAbi *config, void *function, void **params, void **extra) {
  return driver("cuLaunchKernelEx", PTXRAY_ARGS(config, function, params, extra), [&](Runtime &rt) {
    if (!config || (params && extra))
      return cuda::kErrorInvalidValue;
    const cuda::LaunchRequest request = cuda::readLaunchAttributes(config->attrs, config->numAttrs);
    if (request.cluster) {
      rt.log("cuLaunchKernelEx: cluster launches are not supported by ptxray yet");
      return cuda::kErrorNotSupported;
    }
    return rt.launch(function, {config->gridDimX, config->gridDimY, config->gridDimZ},
                     {config->blockDimX, config->blockDimY, config->blockDimZ}, params, config->sharedMemBytes,
                     config->stream, extra, request.cooperative);
  });
}

CUresult cuLaunchKernelEx_ptsz(const LaunchConfigAbi *config, void *function, void **params, void **extra) {
  return cuLaunchKernelEx(config, function, params, extra);
}

// ---- Memory ------------------------------------------------------------------------------------------

CUresult cuMemAlloc_v2(CUdeviceptr *address, size_t bytes) {
  return driver("cuMemAlloc", PTXRAY_ARGS(address, bytes), [&](Runtime &rt) {
    if (!address || bytes == 0)
      return cuda::kErrorInvalidValue;
    void *p = nullptr;
    Error e = rt.malloc(&p, bytes);
    *address = reinterpret_cast<uintptr_t>(p);
    return e;
  });
}

CUresult cuMemAllocManaged(CUdeviceptr *address, size_t bytes, unsigned) {
  return driver("cuMemAllocManaged", PTXRAY_ARGS(address, bytes), [&](Runtime &rt) {
    void *p = nullptr;
    if (!address)
      return cuda::kErrorInvalidValue;
    Error e = rt.mallocManaged(&p, bytes);
    *address = reinterpret_cast<uintptr_t>(p);
    return e;
  });
}

CUresult cuMemAllocHost_v2(void **pointer, size_t bytes) {
  return driver("cuMemAllocHost", PTXRAY_ARGS(pointer, bytes),
                [&](Runtime &rt) { return rt.mallocHost(pointer, bytes); });
}

CUresult cuMemFree_v2(CUdeviceptr address) {
  return driver("cuMemFree", PTXRAY_ARGS(address), [&](Runtime &rt) { return rt.free(pointer(address)); });
}

CUresult cuMemFreeHost(void *p) {
  return driver("cuMemFreeHost", PTXRAY_ARGS(p), [&](Runtime &rt) { return rt.freeHost(p); });
}

CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
  return driver("cuMemGetInfo", PTXRAY_ARGS(free, total), [&](Runtime &rt) { return rt.memGetInfo(free, total); });
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  return driver("cuMemcpyHtoD", PTXRAY_ARGS(dst, src, bytes), [&](Runtime &rt) {
    return rt.streamCopy(pointer(dst), src, bytes, cuda::HostToDevice, nullptr, true);
  });
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  return driver("cuMemcpyDtoH", PTXRAY_ARGS(dst, src, bytes), [&](Runtime &rt) {
    return rt.streamCopy(dst, pointer(src), bytes, cuda::DeviceToHost, nullptr, true);
  });
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return driver("cuMemcpyDtoD", PTXRAY_ARGS(dst, src, bytes), [&](Runtime &rt) {
    return rt.streamCopy(pointer(dst), pointer(src), bytes, cuda::DeviceToDevice, nullptr, true);
  });
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return driver("cuMemcpy", PTXRAY_ARGS(dst, src, bytes), [&](Runtime &rt) {
    return rt.streamCopy(pointer(dst), pointer(src), bytes, cuda::Default, nullptr, true);
  });
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes, void *stream) {
  return driver("cuMemcpyHtoDAsync", PTXRAY_ARGS(dst, src, bytes, stream), [&](Runtime &rt) {
    return rt.streamCopy(pointer(dst), src, bytes, cuda::HostToDevice, stream, false);
  });
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, void *stream) {
  return driver("cuMemcpyDtoHAsync", PTXRAY_ARGS(dst, src, bytes, stream), [&](Runtime &rt) {
    return rt.streamCopy(dst, pointer(src), bytes, cuda::DeviceToHost, stream, false);
  });
}

CUresult cuMemsetD8_v2(CUdeviceptr address, unsigned char value, size_t count) {
  return driver("cuMemsetD8", PTXRAY_ARGS(address, value, count),
                [&](Runtime &rt) { return rt.streamMemset(pointer(address), value, 1, count, nullptr, true); });
}

CUresult cuMemsetD32_v2(CUdeviceptr address, unsigned value, size_t count) {
  return driver("cuMemsetD32", PTXRAY_ARGS(address, value, count),
                [&](Runtime &rt) { return rt.streamMemset(pointer(address), value, 4, count, nullptr, true); });
}

CUresult cuMemsetD16_v2(CUdeviceptr address, unsigned short value, size_t count) {
  return driver("cuMemsetD16", PTXRAY_ARGS(address, value, count),
                [&](Runtime &rt) { return rt.streamMemset(pointer(address), value, 2, count, nullptr, true); });
}

// ---- Streams and events ------------------------------------------------------------------------------

CUresult cuStreamCreate(void **stream, unsigned flags) {
  return driver("cuStreamCreate", PTXRAY_ARGS(stream, flags),
                [&](Runtime &rt) { return rt.streamCreate(stream, flags); });
}

CUresult cuStreamDestroy_v2(void *stream) {
  return driver("cuStreamDestroy", PTXRAY_ARGS(stream), [&](Runtime &rt) { return rt.streamDestroy(stream); });
}

CUresult cuStreamSynchronize(void *stream) {
  return driver("cuStreamSynchronize", PTXRAY_ARGS(stream), [&](Runtime &rt) {
    if (!rt.validStream(stream))
      return cuda::kErrorInvalidResourceHandle;
    rt.recordStreamSynchronize(stream);
    return rt.synchronize();
  });
}

CUresult cuEventCreate(void **event, unsigned) {
  return driver("cuEventCreate", PTXRAY_ARGS(event), [&](Runtime &rt) { return rt.eventCreate(event); });
}

CUresult cuEventDestroy_v2(void *event) {
  return driver("cuEventDestroy", PTXRAY_ARGS(event), [&](Runtime &rt) { return rt.eventDestroy(event); });
}

CUresult cuEventRecord(void *event, void *stream) {
  return driver("cuEventRecord", PTXRAY_ARGS(event, stream), [&](Runtime &rt) {
    Error e = rt.eventRecord(event, stream);
    if (!e)
      rt.recordEventRecord(event, stream);
    return e;
  });
}

CUresult cuEventSynchronize(void *event) {
  return driver("cuEventSynchronize", PTXRAY_ARGS(event), [&](Runtime &rt) {
    Error e = rt.eventQuery(event);
    if (!e)
      rt.recordEventSynchronize(event);
    return e ? e : rt.synchronize();
  });
}

CUresult cuEventElapsedTime(float *ms, void *start, void *end) {
  return driver("cuEventElapsedTime", PTXRAY_ARGS(ms, start, end),
                [&](Runtime &rt) { return rt.eventElapsed(ms, start, end); });
}

CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end) {
  return cuEventElapsedTime(ms, start, end);
}

// ---- More memory, streams, events and context calls NVIDIA's runtime uses ------------------------

CUresult cuMemHostAlloc(void **pointer, size_t bytes, unsigned /*flags*/) {
  return driver("cuMemHostAlloc", PTXRAY_ARGS(pointer, bytes),
                [&](Runtime &rt) { return rt.mallocHost(pointer, bytes); });
}

/// Page-locked memory's device address is its own (unified addressing); registered memory's is its
/// alias (Runtime::hostRegister).
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *device, void *host, unsigned flags) {
  return driver("cuMemHostGetDevicePointer", PTXRAY_ARGS(device, host, flags), [&](Runtime &rt) {
    if (!device)
      return cuda::kErrorInvalidValue;
    void *p = nullptr;
    Error e = rt.hostDevicePointer(&p, host, flags);
    *device = reinterpret_cast<uintptr_t>(p);
    return e;
  });
}

CUresult cuMemHostGetFlags(unsigned *flags, void *host) {
  return driver("cuMemHostGetFlags", PTXRAY_ARGS(flags, host), [&](Runtime &rt) { return rt.hostFlags(flags, host); });
}

/// CU_MEMHOSTREGISTER_* bits are cudaHostRegister*'s.
CUresult cuMemHostRegister_v2(void *pointer, size_t bytes, unsigned flags) {
  return driver("cuMemHostRegister", PTXRAY_ARGS(pointer, bytes, flags),
                [&](Runtime &rt) { return rt.hostRegister(pointer, bytes, flags); });
}

CUresult cuMemHostRegister(void *pointer, size_t bytes, unsigned flags) {
  return cuMemHostRegister_v2(pointer, bytes, flags);
}

CUresult cuMemHostUnregister(void *pointer) {
  return driver("cuMemHostUnregister", PTXRAY_ARGS(pointer), [&](Runtime &rt) { return rt.hostUnregister(pointer); });
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, void *stream) {
  return driver("cuMemcpyAsync", PTXRAY_ARGS(dst, src, bytes, stream), [&](Runtime &rt) {
    return rt.streamCopy(pointer(dst), pointer(src), bytes, cuda::Default, stream, false);
  });
}

CUresult cuMemsetD8Async(CUdeviceptr address, unsigned char value, size_t count, void *stream) {
  return driver("cuMemsetD8Async", PTXRAY_ARGS(address, value, count, stream),
                [&](Runtime &rt) { return rt.streamMemset(pointer(address), value, 1, count, stream, false); });
}

CUresult cuMemsetD16Async(CUdeviceptr address, unsigned short value, size_t count, void *stream) {
  return driver("cuMemsetD16Async", PTXRAY_ARGS(address, value, count, stream),
                [&](Runtime &rt) { return rt.streamMemset(pointer(address), value, 2, count, stream, false); });
}

CUresult cuMemsetD32Async(CUdeviceptr address, unsigned value, size_t count, void *stream) {
  return driver("cuMemsetD32Async", PTXRAY_ARGS(address, value, count, stream),
                [&](Runtime &rt) { return rt.streamMemset(pointer(address), value, 4, count, stream, false); });
}

/// CU_POINTER_ATTRIBUTE_*: 1 context, 2 memory type, 3 device pointer, 4 host pointer, 8 is managed,
/// 9 device ordinal.
CUresult pointerAttribute(Runtime &rt, void *data, int attribute, CUdeviceptr address, bool &registered) {
  cuda::PointerAttributes a;
  rt.pointerAttributes(&a, pointer(address));
  registered = a.type != cuda::Unregistered;
  switch (attribute) {
  case 1: *static_cast<void **>(data) = registered ? primaryContext(a.device) : nullptr; break;
  case 2: // CU_MEMORYTYPE_HOST 1, DEVICE 2, UNIFIED 4
    *static_cast<unsigned *>(data) = a.type == cuda::Host           ? 1
                                     : a.type == cuda::DeviceMemory ? 2
                                     : a.type == cuda::Managed      ? 4
                                                                    : 0;
    break;
  case 3: *static_cast<CUdeviceptr *>(data) = registered ? address : 0; break;
  case 4: *static_cast<void **>(data) = a.hostPointer; break;
  case 8: *static_cast<int *>(data) = a.type == cuda::Managed; break;
  case 9: *static_cast<int *>(data) = registered ? a.device : -1; break;
  default: return kCudaErrorInvalidValue;
  }
  return kCudaSuccess;
}

CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr address) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  if (!data)
    return kCudaErrorInvalidValue;
  bool registered = false;
  CUresult r = pointerAttribute(rt, data, attribute, address, registered);
  return r ? r : registered || attribute == 2 ? kCudaSuccess : kCudaErrorInvalidValue;
}

CUresult cuPointerGetAttributes(unsigned count, int *attributes, void **data, CUdeviceptr address) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  if (!attributes || !data)
    return kCudaErrorInvalidValue;
  for (unsigned i = 0; i < count; ++i) {
    bool registered = false;
    if (data[i] && pointerAttribute(rt, data[i], attributes[i], address, registered) != kCudaSuccess)
      std::memset(data[i], 0, sizeof(void *) > 4 && attributes[i] != 8 && attributes[i] != 9 ? 8 : 4);
  }
  return kCudaSuccess;
}

CUresult cuStreamCreateWithPriority(void **stream, unsigned flags, int priority) {
  return driver("cuStreamCreateWithPriority", PTXRAY_ARGS(stream, flags, priority),
                [&](Runtime &rt) { return rt.streamCreate(stream, flags); });
}

CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest) {
  if (least)
    *least = 0;
  if (greatest)
    *greatest = -5; // the range Volta and later report
  return kCudaSuccess;
}

CUresult cuStreamGetPriority(void *stream, int *priority) {
  return driver("cuStreamGetPriority", PTXRAY_ARGS(stream, priority), [&](Runtime &rt) {
    if (!priority)
      return cuda::kErrorInvalidValue;
    *priority = 0;
    return rt.validStream(stream) ? cuda::kSuccess : cuda::kErrorInvalidResourceHandle;
  });
}

CUresult cuStreamGetFlags(void *stream, unsigned *flags) {
  return driver("cuStreamGetFlags", PTXRAY_ARGS(stream, flags), [&](Runtime &rt) {
    if (!flags)
      return cuda::kErrorInvalidValue;
    *flags = 0;
    return rt.validStream(stream) ? cuda::kSuccess : cuda::kErrorInvalidResourceHandle;
  });
}

CUresult cuStreamQuery(void *stream) {
  return driver("cuStreamQuery", PTXRAY_ARGS(stream), [&](Runtime &rt) {
    return rt.validStream(stream) ? rt.stickyError() : cuda::kErrorInvalidResourceHandle;
  });
}

CUresult cuStreamWaitEvent(void *stream, void *event, unsigned) {
  return driver("cuStreamWaitEvent", PTXRAY_ARGS(stream, event),
                [&](Runtime &rt) { return rt.streamWaitEvent(stream, event); });
}

CUresult cuEventRecordWithFlags(void *event, void *stream, unsigned) {
  return cuEventRecord(event, stream);
}

CUresult cuEventQuery(void *event) {
  return driver("cuEventQuery", PTXRAY_ARGS(event), [&](Runtime &rt) { return rt.eventQuery(event); });
}

/// Host functions run when enqueued, after everything issued before them (which has completed): on the
/// calling thread, outside the runtime's lock (they may call the API).
CUresult cuLaunchHostFunc(void *stream, void (*function)(void *), void *data) {
  bool runNow = false;
  CUresult r = driver("cuLaunchHostFunc", PTXRAY_ARGS(stream, function, data),
                      [&](Runtime &rt) { return rt.enqueueHostFunction(stream, function, data, runNow); });
  if (runNow)
    function(data);
  return r;
}

/// The callback gets the stream's status: CUDA_SUCCESS, or the error a kernel left.
CUresult cuStreamAddCallback(void *stream, void (*callback)(void *, CUresult, void *), void *data, unsigned flags) {
  Error status = cuda::kSuccess;
  CUresult r = driver("cuStreamAddCallback", PTXRAY_ARGS(stream, callback, data, flags),
                      [&](Runtime &rt) { return rt.streamCallbackCheck(stream, callback != nullptr, flags, status); });
  if (r == kCudaSuccess)
    callback(stream, driverResult(status), data);
  return r;
}

/// CUlimit numbers are cudaLimit's.
CUresult cuCtxSetLimit(int limit, size_t value) {
  return driver("cuCtxSetLimit", PTXRAY_ARGS(limit, value), [&](Runtime &rt) { return rt.setLimit(limit, value); });
}

CUresult cuCtxGetLimit(size_t *value, int limit) {
  return driver("cuCtxGetLimit", PTXRAY_ARGS(value, limit), [&](Runtime &rt) { return rt.limit(value, limit); });
}

// Context flags (CU_CTX_*: the same bits as cudaSetDeviceFlags'): the primary context's of each device.
CUresult cuCtxGetFlags(unsigned *flags) {
  return driver("cuCtxGetFlags", PTXRAY_ARGS(flags),
                [&](Runtime &rt) { return rt.deviceFlags(rt.currentDevice(), flags); });
}

CUresult cuCtxSetFlags(unsigned flags) {
  return driver("cuCtxSetFlags", PTXRAY_ARGS(flags),
                [&](Runtime &rt) { return rt.setDeviceFlags(rt.currentDevice(), flags); });
}

CUresult cuDevicePrimaryCtxSetFlags_v2(int device, unsigned flags) {
  return driver("cuDevicePrimaryCtxSetFlags", PTXRAY_ARGS(device, flags),
                [&](Runtime &rt) { return rt.setDeviceFlags(device, flags); });
}

CUresult cuDevicePrimaryCtxSetFlags(int device, unsigned flags) {
  return cuDevicePrimaryCtxSetFlags_v2(device, flags);
}

// Cache and shared-memory configuration (CUfunc_cache, CUsharedconfig: cudaFuncCache's and
// cudaSharedMemConfig's numbers): stored, returned, and handed to the performance model at launch.
CUresult cuCtxSetCacheConfig(int config) {
  return driver("cuCtxSetCacheConfig", PTXRAY_ARGS(config), [&](Runtime &rt) { return rt.setCacheConfig(config); });
}

CUresult cuCtxGetCacheConfig(int *config) {
  return driver("cuCtxGetCacheConfig", PTXRAY_ARGS(config), [&](Runtime &rt) { return rt.cacheConfig(config); });
}

CUresult cuFuncSetCacheConfig(void *function, int config) {
  return driver("cuFuncSetCacheConfig", PTXRAY_ARGS(function, config),
                [&](Runtime &rt) { return rt.funcSetCacheConfig(function, config); });
}

CUresult cuKernelSetCacheConfig(void *kernel, int config, int device) {
  if (!Runtime::instance().validDevice(device))
    return kCudaErrorInvalidDevice;
  return cuFuncSetCacheConfig(kernel, config);
}

CUresult cuCtxSetSharedMemConfig(int config) {
  return driver("cuCtxSetSharedMemConfig", PTXRAY_ARGS(config),
                [&](Runtime &rt) { return rt.setSharedMemConfig(config); });
}

CUresult cuCtxGetSharedMemConfig(int *config) {
  return driver("cuCtxGetSharedMemConfig", PTXRAY_ARGS(config),
                [&](Runtime &rt) { return rt.sharedMemConfig(config); });
}

CUresult cuFuncSetSharedMemConfig(void *function, int config) {
  return driver("cuFuncSetSharedMemConfig", PTXRAY_ARGS(function, config),
                [&](Runtime &rt) { return rt.funcSetSharedMemConfig(function, config); });
}

// The profiler: nothing collects under ptxray; the calls succeed and do nothing (the trace says so).
CUresult cuProfilerInitialize(const char *configFile, const char *outputFile, int outputMode) {
  return driver("cuProfilerInitialize", PTXRAY_ARGS(configFile, outputFile, outputMode),
                [&](Runtime &) { return cuda::kSuccess; });
}

CUresult cuProfilerStart() {
  return driver("cuProfilerStart", PTXRAY_ARGS(), [&](Runtime &rt) {
    if (rt.config().logApi)
      rt.log("cuProfilerStart: no profiler runs under ptxray; nothing to start");
    return cuda::kSuccess;
  });
}

CUresult cuProfilerStop() {
  return driver("cuProfilerStop", PTXRAY_ARGS(), [&](Runtime &rt) {
    if (rt.config().logApi)
      rt.log("cuProfilerStop: no profiler runs under ptxray; nothing to stop");
    return cuda::kSuccess;
  });
}

// Stream-ordered allocation and memory pools (CUmemPool_attribute numbers are cudaMemPoolAttr's).
CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, void *stream) {
  return driver("cuMemAllocAsync", PTXRAY_ARGS(dptr, bytes, stream), [&](Runtime &rt) {
    if (!dptr)
      return cuda::kErrorInvalidValue;
    void *p = nullptr;
    Error e = rt.mallocAsync(&p, bytes, nullptr, stream);
    *dptr = reinterpret_cast<uintptr_t>(p);
    return e;
  });
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytes, void *pool, void *stream) {
  return driver("cuMemAllocFromPoolAsync", PTXRAY_ARGS(dptr, bytes, pool, stream), [&](Runtime &rt) {
    if (!dptr || !pool)
      return cuda::kErrorInvalidValue;
    void *p = nullptr;
    Error e = rt.mallocAsync(&p, bytes, pool, stream);
    *dptr = reinterpret_cast<uintptr_t>(p);
    return e;
  });
}

CUresult cuMemFreeAsync(CUdeviceptr dptr, void *stream) {
  return driver("cuMemFreeAsync", PTXRAY_ARGS(dptr, stream),
                [&](Runtime &rt) { return rt.freeAsync(pointer(dptr), stream); });
}

CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytes, void *stream) {
  return cuMemAllocAsync(dptr, bytes, stream);
}
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytes, void *pool, void *stream) {
  return cuMemAllocFromPoolAsync(dptr, bytes, pool, stream);
}
CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, void *stream) {
  return cuMemFreeAsync(dptr, stream);
}

CUresult cuDeviceGetDefaultMemPool(void **pool, int device) {
  return driver("cuDeviceGetDefaultMemPool", PTXRAY_ARGS(pool, device),
                [&](Runtime &rt) { return rt.defaultMemPool(pool, device); });
}

CUresult cuDeviceGetMemPool(void **pool, int device) {
  return driver("cuDeviceGetMemPool", PTXRAY_ARGS(pool, device),
                [&](Runtime &rt) { return rt.currentMemPool(pool, device); });
}

CUresult cuDeviceSetMemPool(int device, void *pool) {
  return driver("cuDeviceSetMemPool", PTXRAY_ARGS(device, pool),
                [&](Runtime &rt) { return rt.setCurrentMemPool(device, pool); });
}

CUresult cuMemPoolCreate(void **pool, const void *props) {
  return driver("cuMemPoolCreate", PTXRAY_ARGS(pool, props),
                [&](Runtime &rt) { return rt.memPoolCreate(pool, props); });
}

CUresult cuMemPoolDestroy(void *pool) {
  return driver("cuMemPoolDestroy", PTXRAY_ARGS(pool), [&](Runtime &rt) { return rt.memPoolDestroy(pool); });
}

CUresult cuMemPoolSetAttribute(void *pool, int attribute, void *value) {
  return driver("cuMemPoolSetAttribute", PTXRAY_ARGS(pool, attribute, value),
                [&](Runtime &rt) { return rt.memPoolSetAttribute(pool, attribute, value); });
}

CUresult cuMemPoolGetAttribute(void *pool, int attribute, void *value) {
  return driver("cuMemPoolGetAttribute", PTXRAY_ARGS(pool, attribute, value),
                [&](Runtime &rt) { return rt.memPoolGetAttribute(pool, attribute, value); });
}

CUresult cuMemPoolTrimTo(void *pool, size_t minBytesToKeep) {
  return driver("cuMemPoolTrimTo", PTXRAY_ARGS(pool, minBytesToKeep),
                [&](Runtime &rt) { return rt.memPoolTrimTo(pool, minBytesToKeep); });
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, void *function, int blockSize,
                                                              size_t dynamicShared, unsigned) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, function, blockSize, dynamicShared);
}

// Per-thread default stream variants (nvcc --default-stream per-thread): one stream order here.
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void *src, size_t bytes) {
  return cuMemcpyHtoD_v2(dst, src, bytes);
}
CUresult cuMemcpyDtoH_v2_ptds(void *dst, CUdeviceptr src, size_t bytes) {
  return cuMemcpyDtoH_v2(dst, src, bytes);
}
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return cuMemcpyDtoD_v2(dst, src, bytes);
}
CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return cuMemcpy(dst, src, bytes);
}
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void *src, size_t bytes, void *stream) {
  return cuMemcpyHtoDAsync_v2(dst, src, bytes, stream);
}
CUresult cuMemcpyDtoHAsync_v2_ptsz(void *dst, CUdeviceptr src, size_t bytes, void *stream) {
  return cuMemcpyDtoHAsync_v2(dst, src, bytes, stream);
}
CUresult cuMemsetD8_v2_ptds(CUdeviceptr a, unsigned char v, size_t n) {
  return cuMemsetD8_v2(a, v, n);
}
CUresult cuMemsetD16_v2_ptds(CUdeviceptr a, unsigned short v, size_t n) {
  return cuMemsetD16_v2(a, v, n);
}
CUresult cuMemsetD32_v2_ptds(CUdeviceptr a, unsigned v, size_t n) {
  return cuMemsetD32_v2(a, v, n);
}
CUresult cuStreamSynchronize_ptsz(void *stream) {
  return cuStreamSynchronize(stream);
}
CUresult cuEventRecord_ptsz(void *event, void *stream) {
  return cuEventRecord(event, stream);
}
CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t bytes, void *stream) {
  return cuMemcpyAsync(dst, src, bytes, stream);
}
CUresult cuMemsetD8Async_ptsz(CUdeviceptr a, unsigned char v, size_t n, void *s) {
  return cuMemsetD8Async(a, v, n, s);
}
CUresult cuMemsetD16Async_ptsz(CUdeviceptr a, unsigned short v, size_t n, void *s) {
  return cuMemsetD16Async(a, v, n, s);
}
CUresult cuMemsetD32Async_ptsz(CUdeviceptr a, unsigned v, size_t n, void *s) {
  return cuMemsetD32Async(a, v, n, s);
}
CUresult cuEventRecordWithFlags_ptsz(void *event, void *stream, unsigned flags) {
  return cuEventRecordWithFlags(event, stream, flags);
}
CUresult cuStreamQuery_ptsz(void *stream) {
  return cuStreamQuery(stream);
}
CUresult cuStreamWaitEvent_ptsz(void *stream, void *event, unsigned flags) {
  return cuStreamWaitEvent(stream, event, flags);
}
CUresult cuStreamGetPriority_ptsz(void *stream, int *priority) {
  return cuStreamGetPriority(stream, priority);
}
CUresult cuStreamGetFlags_ptsz(void *stream, unsigned *flags) {
  return cuStreamGetFlags(stream, flags);
}
CUresult cuLaunchHostFunc_ptsz(void *stream, void (*function)(void *), void *data) {
  return cuLaunchHostFunc(stream, function, data);
}
CUresult cuStreamAddCallback_ptsz(void *stream, void (*callback)(void *, CUresult, void *), void *data, unsigned f) {
  return cuStreamAddCallback(stream, callback, data, f);
}

CUresult cuGetProcAddress_v2(const char *symbol, void **function, int cudaVersion, unsigned long long flags,
                             int *status);

/// CUDA 11.3's form, without the status.
CUresult cuGetProcAddress(const char *symbol, void **function, int cudaVersion, unsigned long long flags) {
  return cuGetProcAddress_v2(symbol, function, cudaVersion, flags, nullptr);
}

} // extern "C"

namespace {

#define PTXRAY_PROC(name, version, function)                                                                           \
  { name, version, false, reinterpret_cast<void *>(&function) }
#define PTXRAY_PROC_PT(name, version, function)                                                                        \
  { name, version, true, reinterpret_cast<void *>(&function) }

/// Each ABI of a driver entry point (DriverProc: the CUDA version that introduced it, the `_vNNNN` of
/// its PFN typedef in cudaTypedefs.h, and whether it is the per-thread-default-stream variant).
const DriverProc kProcs[] = {
    PTXRAY_PROC("cuGetProcAddress", 11030, cuGetProcAddress),
    PTXRAY_PROC("cuGetProcAddress", 12000, cuGetProcAddress_v2),
    PTXRAY_PROC("cuGetExportTable", 3000, cuGetExportTable),
    PTXRAY_PROC("cuGetErrorString", 6000, cuGetErrorString),
    PTXRAY_PROC("cuGetErrorName", 6000, cuGetErrorName),
    PTXRAY_PROC("cuInit", 2000, cuInit),
    PTXRAY_PROC("cuDriverGetVersion", 2020, cuDriverGetVersion),
    PTXRAY_PROC("cuDeviceGet", 2000, cuDeviceGet),
    PTXRAY_PROC("cuDeviceGetCount", 2000, cuDeviceGetCount),
    PTXRAY_PROC("cuDeviceCanAccessPeer", 4000, cuDeviceCanAccessPeer),
    PTXRAY_PROC("cuCtxEnablePeerAccess", 4000, cuCtxEnablePeerAccess),
    PTXRAY_PROC("cuCtxDisablePeerAccess", 4000, cuCtxDisablePeerAccess),
    PTXRAY_PROC("cuMemcpyPeer", 4000, cuMemcpyPeer),
    PTXRAY_PROC("cuMemcpyPeerAsync", 4000, cuMemcpyPeerAsync),
    PTXRAY_PROC("cuDeviceGetName", 2000, cuDeviceGetName),
    PTXRAY_PROC("cuDeviceGetUuid", 9020, cuDeviceGetUuid),
    PTXRAY_PROC("cuDeviceGetUuid", 11040, cuDeviceGetUuid_v2),
    PTXRAY_PROC("cuDeviceTotalMem", 3020, cuDeviceTotalMem_v2),
    PTXRAY_PROC("cuDeviceGetAttribute", 2000, cuDeviceGetAttribute),
    PTXRAY_PROC("cuDeviceComputeCapability", 2000, cuDeviceComputeCapability),
    PTXRAY_PROC("cuDevicePrimaryCtxRetain", 7000, cuDevicePrimaryCtxRetain),
    PTXRAY_PROC("cuDevicePrimaryCtxRelease", 7000, cuDevicePrimaryCtxRelease),
    PTXRAY_PROC("cuDevicePrimaryCtxRelease", 11000, cuDevicePrimaryCtxRelease_v2),
    PTXRAY_PROC("cuDevicePrimaryCtxReset", 7000, cuDevicePrimaryCtxReset),
    PTXRAY_PROC("cuDevicePrimaryCtxReset", 11000, cuDevicePrimaryCtxReset_v2),
    PTXRAY_PROC("cuDevicePrimaryCtxGetState", 7000, cuDevicePrimaryCtxGetState),
    PTXRAY_PROC("cuCtxCreate", 3020, cuCtxCreate_v2),
    PTXRAY_PROC("cuCtxCreate", 12050, cuCtxCreate_v4),
    PTXRAY_PROC("cuCtxDestroy", 4000, cuCtxDestroy_v2),
    PTXRAY_PROC("cuCtxSetCurrent", 4000, cuCtxSetCurrent),
    PTXRAY_PROC("cuCtxGetCurrent", 4000, cuCtxGetCurrent),
    PTXRAY_PROC("cuCtxPushCurrent", 4000, cuCtxPushCurrent_v2),
    PTXRAY_PROC("cuCtxPopCurrent", 4000, cuCtxPopCurrent_v2),
    PTXRAY_PROC("cuCtxGetDevice", 2000, cuCtxGetDevice),
    PTXRAY_PROC("cuCtxGetDevice", 13000, cuCtxGetDevice_v2),
    PTXRAY_PROC("cuCtxSynchronize", 2000, cuCtxSynchronize),
    PTXRAY_PROC("cuCtxSynchronize", 13000, cuCtxSynchronize_v2),
    PTXRAY_PROC("cuCtxGetApiVersion", 3020, cuCtxGetApiVersion),
    PTXRAY_PROC("cuModuleGetLoadingMode", 11070, cuModuleGetLoadingMode),
    PTXRAY_PROC("cuModuleLoad", 2000, cuModuleLoad),
    PTXRAY_PROC("cuModuleLoadData", 2000, cuModuleLoadData),
    PTXRAY_PROC("cuLinkCreate", 5050, cuLinkCreate),
    PTXRAY_PROC("cuLinkCreate", 6050, cuLinkCreate_v2),
    PTXRAY_PROC("cuLinkAddData", 5050, cuLinkAddData),
    PTXRAY_PROC("cuLinkAddData", 6050, cuLinkAddData_v2),
    PTXRAY_PROC("cuLinkAddFile", 5050, cuLinkAddFile),
    PTXRAY_PROC("cuLinkAddFile", 6050, cuLinkAddFile_v2),
    PTXRAY_PROC("cuLinkComplete", 5050, cuLinkComplete),
    PTXRAY_PROC("cuLinkDestroy", 5050, cuLinkDestroy),
    PTXRAY_PROC("cuModuleLoadDataEx", 2010, cuModuleLoadDataEx),
    PTXRAY_PROC("cuModuleLoadFatBinary", 2000, cuModuleLoadFatBinary),
    PTXRAY_PROC("cuModuleUnload", 2000, cuModuleUnload),
    PTXRAY_PROC("cuModuleGetFunction", 2000, cuModuleGetFunction),
    PTXRAY_PROC("cuModuleGetGlobal", 3020, cuModuleGetGlobal_v2),
    PTXRAY_PROC("cuLibraryLoadData", 12000, cuLibraryLoadData),
    PTXRAY_PROC("cuLibraryUnload", 12000, cuLibraryUnload),
    PTXRAY_PROC("cuLibraryGetKernel", 12000, cuLibraryGetKernel),
    PTXRAY_PROC("cuLibraryGetGlobal", 12000, cuLibraryGetGlobal),
    PTXRAY_PROC("cuLibraryGetManaged", 12000, cuLibraryGetManaged),
    PTXRAY_PROC("cuKernelGetFunction", 12000, cuKernelGetFunction),
    PTXRAY_PROC("cuFuncGetAttribute", 2020, cuFuncGetAttribute),
    PTXRAY_PROC("cuKernelGetAttribute", 12000, cuKernelGetAttribute),
    PTXRAY_PROC("cuKernelSetAttribute", 12000, cuKernelSetAttribute),
    PTXRAY_PROC("cuKernelSetCacheConfig", 12000, cuKernelSetCacheConfig),
    PTXRAY_PROC("cuFuncSetAttribute", 9000, cuFuncSetAttribute),
    PTXRAY_PROC("cuFuncGetName", 12030, cuFuncGetName),
    PTXRAY_PROC("cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050, cuOccupancyMaxActiveBlocksPerMultiprocessor),
    PTXRAY_PROC("cuLaunchKernel", 4000, cuLaunchKernel),
    PTXRAY_PROC_PT("cuLaunchKernel", 7000, cuLaunchKernel_ptsz),
    PTXRAY_PROC("cuLaunchCooperativeKernel", 9000, cuLaunchCooperativeKernel),
    PTXRAY_PROC_PT("cuLaunchCooperativeKernel", 9000, cuLaunchCooperativeKernel_ptsz),
    PTXRAY_PROC("cuLaunchKernelEx", 11060, cuLaunchKernelEx),
    PTXRAY_PROC_PT("cuLaunchKernelEx", 11060, cuLaunchKernelEx_ptsz),
    PTXRAY_PROC("cuMemAlloc", 3020, cuMemAlloc_v2),
    PTXRAY_PROC("cuMemAllocManaged", 6000, cuMemAllocManaged),
    PTXRAY_PROC("cuMemAllocHost", 3020, cuMemAllocHost_v2),
    PTXRAY_PROC("cuMemFree", 3020, cuMemFree_v2),
    PTXRAY_PROC("cuMemFreeHost", 2000, cuMemFreeHost),
    PTXRAY_PROC("cuMemGetInfo", 3020, cuMemGetInfo_v2),
    PTXRAY_PROC("cuMemcpy", 4000, cuMemcpy),
    PTXRAY_PROC_PT("cuMemcpy", 7000, cuMemcpy_ptds),
    PTXRAY_PROC("cuMemcpyHtoD", 3020, cuMemcpyHtoD_v2),
    PTXRAY_PROC_PT("cuMemcpyHtoD", 7000, cuMemcpyHtoD_v2_ptds),
    PTXRAY_PROC("cuMemcpyDtoH", 3020, cuMemcpyDtoH_v2),
    PTXRAY_PROC_PT("cuMemcpyDtoH", 7000, cuMemcpyDtoH_v2_ptds),
    PTXRAY_PROC("cuMemcpyDtoD", 3020, cuMemcpyDtoD_v2),
    PTXRAY_PROC_PT("cuMemcpyDtoD", 7000, cuMemcpyDtoD_v2_ptds),
    PTXRAY_PROC("cuMemcpyHtoDAsync", 3020, cuMemcpyHtoDAsync_v2),
    PTXRAY_PROC_PT("cuMemcpyHtoDAsync", 7000, cuMemcpyHtoDAsync_v2_ptsz),
    PTXRAY_PROC("cuMemcpyDtoHAsync", 3020, cuMemcpyDtoHAsync_v2),
    PTXRAY_PROC_PT("cuMemcpyDtoHAsync", 7000, cuMemcpyDtoHAsync_v2_ptsz),
    PTXRAY_PROC("cuMemsetD8", 3020, cuMemsetD8_v2),
    PTXRAY_PROC_PT("cuMemsetD8", 7000, cuMemsetD8_v2_ptds),
    PTXRAY_PROC("cuMemsetD16", 3020, cuMemsetD16_v2),
    PTXRAY_PROC_PT("cuMemsetD16", 7000, cuMemsetD16_v2_ptds),
    PTXRAY_PROC("cuMemsetD32", 3020, cuMemsetD32_v2),
    PTXRAY_PROC_PT("cuMemsetD32", 7000, cuMemsetD32_v2_ptds),
    PTXRAY_PROC("cuStreamCreate", 2000, cuStreamCreate),
    PTXRAY_PROC("cuStreamDestroy", 4000, cuStreamDestroy_v2),
    PTXRAY_PROC("cuStreamSynchronize", 2000, cuStreamSynchronize),
    PTXRAY_PROC_PT("cuStreamSynchronize", 7000, cuStreamSynchronize_ptsz),
    PTXRAY_PROC("cuEventCreate", 2000, cuEventCreate),
    PTXRAY_PROC("cuEventDestroy", 4000, cuEventDestroy_v2),
    PTXRAY_PROC("cuEventRecord", 2000, cuEventRecord),
    PTXRAY_PROC_PT("cuEventRecord", 7000, cuEventRecord_ptsz),
    PTXRAY_PROC("cuEventSynchronize", 2000, cuEventSynchronize),
    PTXRAY_PROC("cuEventElapsedTime", 2000, cuEventElapsedTime),
    PTXRAY_PROC("cuEventElapsedTime", 12080, cuEventElapsedTime_v2),
    PTXRAY_PROC("cuArrayCreate", 3020, cuArrayCreate_v2),
    PTXRAY_PROC("cuArray3DCreate", 3020, cuArray3DCreate_v2),
    PTXRAY_PROC("cuArrayDestroy", 2000, cuArrayDestroy),
    PTXRAY_PROC("cuArrayGetDescriptor", 3020, cuArrayGetDescriptor_v2),
    PTXRAY_PROC("cuArray3DGetDescriptor", 3020, cuArray3DGetDescriptor_v2),
    PTXRAY_PROC("cuMemcpy2D", 3020, cuMemcpy2D_v2),
    PTXRAY_PROC_PT("cuMemcpy2D", 7000, cuMemcpy2D_v2_ptds),
    PTXRAY_PROC("cuMemcpy2DUnaligned", 3020, cuMemcpy2DUnaligned_v2),
    PTXRAY_PROC_PT("cuMemcpy2DUnaligned", 7000, cuMemcpy2DUnaligned_v2_ptds),
    PTXRAY_PROC("cuMemcpy2DAsync", 3020, cuMemcpy2DAsync_v2),
    PTXRAY_PROC_PT("cuMemcpy2DAsync", 7000, cuMemcpy2DAsync_v2_ptsz),
    PTXRAY_PROC("cuMemcpy3D", 3020, cuMemcpy3D_v2),
    PTXRAY_PROC_PT("cuMemcpy3D", 7000, cuMemcpy3D_v2_ptds),
    PTXRAY_PROC("cuMemcpy3DAsync", 3020, cuMemcpy3DAsync_v2),
    PTXRAY_PROC_PT("cuMemcpy3DAsync", 7000, cuMemcpy3DAsync_v2_ptsz),
    PTXRAY_PROC("cuTexObjectCreate", 5000, cuTexObjectCreate),
    PTXRAY_PROC("cuTexObjectDestroy", 5000, cuTexObjectDestroy),
    PTXRAY_PROC("cuSurfObjectCreate", 5000, cuSurfObjectCreate),
    PTXRAY_PROC("cuSurfObjectDestroy", 5000, cuSurfObjectDestroy),
    PTXRAY_PROC("cuMemHostAlloc", 2020, cuMemHostAlloc),
    PTXRAY_PROC("cuMemHostGetDevicePointer", 3020, cuMemHostGetDevicePointer_v2),
    PTXRAY_PROC("cuMemHostGetFlags", 2030, cuMemHostGetFlags),
    PTXRAY_PROC_PT("cuMemcpyAsync", 7000, cuMemcpyAsync_ptsz),
    PTXRAY_PROC("cuMemcpyAsync", 4000, cuMemcpyAsync),
    PTXRAY_PROC("cuMemsetD8Async", 3020, cuMemsetD8Async),
    PTXRAY_PROC_PT("cuMemsetD8Async", 7000, cuMemsetD8Async_ptsz),
    PTXRAY_PROC("cuMemsetD16Async", 3020, cuMemsetD16Async),
    PTXRAY_PROC_PT("cuMemsetD16Async", 7000, cuMemsetD16Async_ptsz),
    PTXRAY_PROC("cuMemsetD32Async", 3020, cuMemsetD32Async),
    PTXRAY_PROC_PT("cuMemsetD32Async", 7000, cuMemsetD32Async_ptsz),
    PTXRAY_PROC("cuPointerGetAttribute", 4000, cuPointerGetAttribute),
    PTXRAY_PROC("cuPointerGetAttributes", 7000, cuPointerGetAttributes),
    PTXRAY_PROC("cuStreamCreateWithPriority", 5050, cuStreamCreateWithPriority),
    PTXRAY_PROC("cuCtxGetStreamPriorityRange", 5050, cuCtxGetStreamPriorityRange),
    PTXRAY_PROC("cuStreamGetPriority", 5050, cuStreamGetPriority),
    PTXRAY_PROC_PT("cuStreamGetPriority", 7000, cuStreamGetPriority_ptsz),
    PTXRAY_PROC("cuStreamGetFlags", 5050, cuStreamGetFlags),
    PTXRAY_PROC_PT("cuStreamGetFlags", 7000, cuStreamGetFlags_ptsz),
    PTXRAY_PROC("cuStreamQuery", 2000, cuStreamQuery),
    PTXRAY_PROC_PT("cuStreamQuery", 7000, cuStreamQuery_ptsz),
    PTXRAY_PROC("cuStreamWaitEvent", 3020, cuStreamWaitEvent),
    PTXRAY_PROC_PT("cuStreamWaitEvent", 7000, cuStreamWaitEvent_ptsz),
    PTXRAY_PROC("cuEventRecordWithFlags", 11010, cuEventRecordWithFlags),
    PTXRAY_PROC_PT("cuEventRecordWithFlags", 11010, cuEventRecordWithFlags_ptsz),
    PTXRAY_PROC("cuEventQuery", 2000, cuEventQuery),
    PTXRAY_PROC("cuLaunchHostFunc", 10000, cuLaunchHostFunc),
    PTXRAY_PROC_PT("cuLaunchHostFunc", 10000, cuLaunchHostFunc_ptsz),
    PTXRAY_PROC("cuStreamAddCallback", 5000, cuStreamAddCallback),
    PTXRAY_PROC_PT("cuStreamAddCallback", 7000, cuStreamAddCallback_ptsz),
    PTXRAY_PROC("cuCtxSetLimit", 3010, cuCtxSetLimit),
    PTXRAY_PROC("cuCtxGetLimit", 3010, cuCtxGetLimit),
    PTXRAY_PROC("cuCtxGetFlags", 7000, cuCtxGetFlags),
    PTXRAY_PROC("cuCtxSetCacheConfig", 3020, cuCtxSetCacheConfig),
    PTXRAY_PROC("cuCtxGetCacheConfig", 3020, cuCtxGetCacheConfig),
    PTXRAY_PROC("cuFuncSetCacheConfig", 3000, cuFuncSetCacheConfig),
    PTXRAY_PROC("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", 7000,
                cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags),
    PTXRAY_PROC("cuProfilerInitialize", 4000, cuProfilerInitialize),
    PTXRAY_PROC("cuProfilerStart", 4000, cuProfilerStart),
    PTXRAY_PROC("cuProfilerStop", 4000, cuProfilerStop),
    PTXRAY_PROC("cuDevicePrimaryCtxSetFlags", 7000, cuDevicePrimaryCtxSetFlags),
    PTXRAY_PROC("cuDevicePrimaryCtxSetFlags", 11000, cuDevicePrimaryCtxSetFlags_v2),
    PTXRAY_PROC("cuCtxSetFlags", 12010, cuCtxSetFlags),
    PTXRAY_PROC("cuCtxSetSharedMemConfig", 4020, cuCtxSetSharedMemConfig),
    PTXRAY_PROC("cuCtxGetSharedMemConfig", 4020, cuCtxGetSharedMemConfig),
    PTXRAY_PROC("cuFuncSetSharedMemConfig", 4020, cuFuncSetSharedMemConfig),
    PTXRAY_PROC("cuMemHostRegister", 4000, cuMemHostRegister),
    PTXRAY_PROC("cuMemHostRegister", 6050, cuMemHostRegister_v2),
    PTXRAY_PROC("cuMemHostUnregister", 4000, cuMemHostUnregister),
    PTXRAY_PROC("cuMemAllocAsync", 11020, cuMemAllocAsync),
    PTXRAY_PROC_PT("cuMemAllocAsync", 11020, cuMemAllocAsync_ptsz),
    PTXRAY_PROC("cuMemAllocFromPoolAsync", 11020, cuMemAllocFromPoolAsync),
    PTXRAY_PROC_PT("cuMemAllocFromPoolAsync", 11020, cuMemAllocFromPoolAsync_ptsz),
    PTXRAY_PROC("cuMemFreeAsync", 11020, cuMemFreeAsync),
    PTXRAY_PROC_PT("cuMemFreeAsync", 11020, cuMemFreeAsync_ptsz),
    PTXRAY_PROC("cuDeviceGetDefaultMemPool", 11020, cuDeviceGetDefaultMemPool),
    PTXRAY_PROC("cuDeviceGetMemPool", 11020, cuDeviceGetMemPool),
    PTXRAY_PROC("cuDeviceSetMemPool", 11020, cuDeviceSetMemPool),
    PTXRAY_PROC("cuMemPoolCreate", 11020, cuMemPoolCreate),
    PTXRAY_PROC("cuMemPoolDestroy", 11020, cuMemPoolDestroy),
    PTXRAY_PROC("cuMemPoolSetAttribute", 11020, cuMemPoolSetAttribute),
    PTXRAY_PROC("cuMemPoolGetAttribute", 11020, cuMemPoolGetAttribute),
    PTXRAY_PROC("cuMemPoolTrimTo", 11020, cuMemPoolTrimTo),
};

#undef PTXRAY_PROC
#undef PTXRAY_PROC_PT

} // namespace

extern "C" {

/// The entry point NVIDIA's runtime resolves every other driver function with: for `symbol`, the
/// newest ABI introduced at or before `cudaVersion`, the per-thread-stream one with flags bit 1
/// (CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) where there is one. Searched: ptxray's functions,
/// then the graph functions (graphDriverProcs), then every other function of CUDA's driver API, which
/// gets a stub that says it is not supported when called (unsupportedDriverProcs). Status: 0 found,
/// 1 symbol not found, 2 version not sufficient. The lookups are traced with PTXRAY_LOG=procs.
CUresult cuGetProcAddress_v2(const char *symbol, void **function, int cudaVersion, unsigned long long flags,
                             int *status) {
  if (!symbol || !function)
    return kCudaErrorInvalidValue;
  const bool perThread = flags & 2;
  const DriverProc *best = nullptr;
  bool known = false;
  auto search = [&](std::span<const DriverProc> procs) {
    for (const DriverProc &v : procs) {
      if (std::strcmp(v.name, symbol) != 0)
        continue;
      known = true;
      if (v.version > cudaVersion || (v.perThread && !perThread))
        continue;
      // Prefer the per-thread variant when asked for, then the newest version.
      if (!best || (v.perThread && !best->perThread) || (v.perThread == best->perThread && v.version > best->version))
        best = &v;
    }
  };
  search(kProcs);
  if (!known)
    search(graphDriverProcs());
  bool stub = false;
  if (!known) {
    search(unsupportedDriverProcs());
    stub = best != nullptr;
  }
  if (Runtime::instance().config().logProcs)
    Runtime::instance().log(fmt::format("cuGetProcAddress({}, {}, {}) = {}", symbol, cudaVersion, flags,
                                        stub    ? "not supported by ptxray (a stub)"
                                        : best  ? "found"
                                        : known ? "version not sufficient"
                                                : "not found"));
  if (status)
    *status = best ? 0 : known ? 2 : 1;
  *function = best ? best->function : nullptr;
  return best ? kCudaSuccess : kCudaErrorNotFound;
}

} // extern "C"

int ptxray::runtime::driverResult(int e) {
  switch (e) {
  case cuda::kErrorInvalidDeviceFunction:
  case cuda::kErrorInvalidResourceHandle: return kCudaErrorInvalidHandle;
  case cuda::kErrorInvalidSymbol: return kCudaErrorNotFound;
  case cuda::kErrorInvalidConfiguration:
  case cuda::kErrorInvalidPitchValue:
  case cuda::kErrorInvalidMemcpyDirection:
  case cuda::kErrorInvalidDevicePointer:
  case cuda::kErrorMissingConfiguration: return kCudaErrorInvalidValue;
  default: return e;
  }
}
