// libcuda.so.1's entry points: the CUDA driver API over the same Runtime as the runtime library, so
// that driver-API programs (cuModuleLoadData of PTX, cuLaunchKernel) run on the virtual GPU and a
// program mixing both APIs sees one device, one memory and one error state. One device, one context
// (the primary context, current on every thread).
#include "runtime/Runtime.h"

#include <fmt/format.h>

#include <cstring>
#include <mutex>

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
CUresult driverResult(Error e) {
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

bool gInitialized = false;

template <typename F> CUresult driver(const char *name, F &&call) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  CUresult r = gInitialized ? driverResult(call(rt)) : kCudaErrorNotInitialized;
  if (rt.config().logApi)
    rt.log(fmt::format("{} = {}", name, r));
  return r;
}

/// A handle for the one context: any stable non-null address.
int gContext = 0;
void *contextHandle() {
  return &gContext;
}

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
    {218, "CUDA_ERROR_INVALID_PTX"},
    {400, "CUDA_ERROR_INVALID_HANDLE"},
    {500, "CUDA_ERROR_NOT_FOUND"},
    {600, "CUDA_ERROR_NOT_READY"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
    {710, "CUDA_ERROR_ASSERT"},
    {714, "CUDA_ERROR_HARDWARE_STACK_ERROR"},
    {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS"},
    {717, "CUDA_ERROR_INVALID_ADDRESS_SPACE"},
    {718, "CUDA_ERROR_INVALID_PC"},
    {719, "CUDA_ERROR_LAUNCH_FAILED"},
    {801, "CUDA_ERROR_NOT_SUPPORTED"},
    {999, "CUDA_ERROR_UNKNOWN"},
};

void *pointer(CUdeviceptr p) {
  return reinterpret_cast<void *>(static_cast<uintptr_t>(p));
}

} // namespace

extern "C" {

CUresult cuInit(unsigned flags) {
  if (flags != 0)
    return kCudaErrorInvalidValue;
  Runtime::instance();
  gInitialized = true;
  return kCudaSuccess;
}

CUresult cuDriverGetVersion(int *version) {
  if (!version)
    return kCudaErrorInvalidValue;
  *version = 13000;
  return kCudaSuccess;
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
  return driver("cuDeviceGetCount", [&](Runtime &) {
    if (!count)
      return cuda::kErrorInvalidValue;
    *count = 1;
    return cuda::kSuccess;
  });
}

CUresult cuDeviceGet(int *device, int ordinal) {
  return driver("cuDeviceGet", [&](Runtime &) {
    if (!device)
      return cuda::kErrorInvalidValue;
    if (ordinal != 0)
      return cuda::kErrorInvalidDevice;
    *device = 0;
    return cuda::kSuccess;
  });
}

CUresult cuDeviceGetName(char *name, int length, int device) {
  return driver("cuDeviceGetName", [&](Runtime &rt) {
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
  return driver("cuDeviceTotalMem", [&](Runtime &rt) {
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
  // CUdevice_attribute numbers are cudaDeviceAttr's.
  return driver("cuDeviceGetAttribute", [&](Runtime &rt) { return rt.attribute(value, attribute, device); });
}

CUresult cuDeviceComputeCapability(int *major, int *minor, int device) {
  return driver("cuDeviceComputeCapability", [&](Runtime &rt) {
    if (!major || !minor)
      return cuda::kErrorInvalidValue;
    if (Error e = rt.attribute(major, cuda::AttrComputeCapabilityMajor, device))
      return e;
    return rt.attribute(minor, cuda::AttrComputeCapabilityMinor, device);
  });
}

CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  return driver("cuDevicePrimaryCtxRetain", [&](Runtime &) {
    if (!context)
      return cuda::kErrorInvalidValue;
    if (device != 0)
      return cuda::kErrorInvalidDevice;
    *context = contextHandle();
    return cuda::kSuccess;
  });
}

CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  return device == 0 ? kCudaSuccess : kCudaErrorInvalidDevice;
}

CUresult cuCtxCreate_v4(void **context, void * /*params*/, unsigned /*flags*/, int device) {
  return cuDevicePrimaryCtxRetain(context, device);
}
CUresult cuCtxCreate_v2(void **context, unsigned /*flags*/, int device) {
  return cuDevicePrimaryCtxRetain(context, device);
}
CUresult cuCtxDestroy_v2(void *context) {
  return context == contextHandle() ? kCudaSuccess : kCudaErrorInvalidHandle;
}
CUresult cuCtxSetCurrent(void *) {
  return kCudaSuccess;
}
CUresult cuCtxPushCurrent_v2(void *) {
  return kCudaSuccess;
}
CUresult cuCtxPopCurrent_v2(void **context) {
  if (context)
    *context = contextHandle();
  return kCudaSuccess;
}
CUresult cuCtxGetCurrent(void **context) {
  if (!context)
    return kCudaErrorInvalidValue;
  *context = gInitialized ? contextHandle() : nullptr;
  return kCudaSuccess;
}
CUresult cuCtxGetDevice(int *device) {
  if (!device)
    return kCudaErrorInvalidValue;
  *device = 0;
  return kCudaSuccess;
}

CUresult cuCtxSynchronize() {
  return driver("cuCtxSynchronize", [&](Runtime &rt) { return rt.synchronize(); });
}

// ---- Modules -----------------------------------------------------------------------------------------

CUresult cuModuleLoadData(void **module, const void *image) {
  return driver("cuModuleLoadData", [&](Runtime &rt) { return rt.loadModule(module, image); });
}

CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned, void *, void **) {
  return cuModuleLoadData(module, image);
}

CUresult cuModuleLoadFatBinary(void **module, const void *image) {
  return cuModuleLoadData(module, image);
}

CUresult cuModuleUnload(void *module) {
  return driver("cuModuleUnload", [&](Runtime &rt) { return rt.unloadModule(module); });
}

CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  return driver("cuModuleGetFunction", [&](Runtime &rt) { return rt.moduleFunction(function, module, name); });
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *address, size_t *bytes, void *module, const char *name) {
  return driver("cuModuleGetGlobal", [&](Runtime &rt) {
    uint64_t a = 0;
    Error e = rt.moduleGlobal(&a, bytes, module, name);
    if (!e && address)
      *address = a;
    return e;
  });
}

CUresult cuFuncGetAttribute(int *value, int attribute, void *function) {
  return driver("cuFuncGetAttribute", [&](Runtime &rt) {
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
    default: return cuda::kErrorInvalidValue;
    }
    return cuda::kSuccess;
  });
}

CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES (8) is cudaFuncAttributeMaxDynamicSharedMemorySize.
  return driver("cuFuncSetAttribute", [&](Runtime &rt) { return rt.funcSetAttribute(function, attribute, value); });
}

CUresult cuFuncGetName(const char **name, void *function) {
  return driver("cuFuncGetName", [&](Runtime &rt) {
    if (!name)
      return cuda::kErrorInvalidValue;
    *name = rt.functionName(function);
    return *name ? cuda::kSuccess : cuda::kErrorInvalidResourceHandle;
  });
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void *function, int blockSize, size_t dynamicShared) {
  return driver("cuOccupancyMaxActiveBlocksPerMultiprocessor",
                [&](Runtime &rt) { return rt.occupancyMaxActiveBlocks(blocks, function, blockSize, dynamicShared); });
}

// ---- Launches ----------------------------------------------------------------------------------------

CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned sharedBytes, void *stream, void **params, void **extra) {
  return driver("cuLaunchKernel", [&](Runtime &rt) {
    if (params && extra)
      return cuda::kErrorInvalidValue;
    return rt.launch(function, {gx, gy, gz}, {bx, by, bz}, params, sharedBytes, stream, extra);
  });
}

CUresult cuLaunchKernel_ptsz(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned sharedBytes, void *stream, void **params, void **extra) {
  return cuLaunchKernel(function, gx, gy, gz, bx, by, bz, sharedBytes, stream, params, extra);
}

// ---- Memory ------------------------------------------------------------------------------------------

CUresult cuMemAlloc_v2(CUdeviceptr *address, size_t bytes) {
  return driver("cuMemAlloc", [&](Runtime &rt) {
    if (!address || bytes == 0)
      return cuda::kErrorInvalidValue;
    void *p = nullptr;
    Error e = rt.malloc(&p, bytes);
    *address = reinterpret_cast<uintptr_t>(p);
    return e;
  });
}

CUresult cuMemAllocManaged(CUdeviceptr *address, size_t bytes, unsigned) {
  return driver("cuMemAllocManaged", [&](Runtime &rt) {
    void *p = nullptr;
    if (!address)
      return cuda::kErrorInvalidValue;
    Error e = rt.mallocManaged(&p, bytes);
    *address = reinterpret_cast<uintptr_t>(p);
    return e;
  });
}

CUresult cuMemAllocHost_v2(void **pointer, size_t bytes) {
  return driver("cuMemAllocHost", [&](Runtime &rt) { return rt.mallocHost(pointer, bytes); });
}

CUresult cuMemFree_v2(CUdeviceptr address) {
  return driver("cuMemFree", [&](Runtime &rt) { return rt.free(pointer(address)); });
}

CUresult cuMemFreeHost(void *p) {
  return driver("cuMemFreeHost", [&](Runtime &rt) { return rt.freeHost(p); });
}

CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
  return driver("cuMemGetInfo", [&](Runtime &rt) { return rt.memGetInfo(free, total); });
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  return driver("cuMemcpyHtoD", [&](Runtime &rt) { return rt.memcpy(pointer(dst), src, bytes, cuda::HostToDevice); });
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  return driver("cuMemcpyDtoH", [&](Runtime &rt) { return rt.memcpy(dst, pointer(src), bytes, cuda::DeviceToHost); });
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return driver("cuMemcpyDtoD",
                [&](Runtime &rt) { return rt.memcpy(pointer(dst), pointer(src), bytes, cuda::DeviceToDevice); });
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return driver("cuMemcpy", [&](Runtime &rt) { return rt.memcpy(pointer(dst), pointer(src), bytes, cuda::Default); });
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes, void *stream) {
  return driver("cuMemcpyHtoDAsync", [&](Runtime &rt) {
    return rt.validStream(stream) ? rt.memcpy(pointer(dst), src, bytes, cuda::HostToDevice)
                                  : cuda::kErrorInvalidResourceHandle;
  });
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, void *stream) {
  return driver("cuMemcpyDtoHAsync", [&](Runtime &rt) {
    return rt.validStream(stream) ? rt.memcpy(dst, pointer(src), bytes, cuda::DeviceToHost)
                                  : cuda::kErrorInvalidResourceHandle;
  });
}

CUresult cuMemsetD8_v2(CUdeviceptr address, unsigned char value, size_t count) {
  return driver("cuMemsetD8", [&](Runtime &rt) { return rt.memset(pointer(address), value, count); });
}

CUresult cuMemsetD32_v2(CUdeviceptr address, unsigned value, size_t count) {
  return driver("cuMemsetD32", [&](Runtime &rt) { return rt.memsetPattern(pointer(address), value, 4, count); });
}

CUresult cuMemsetD16_v2(CUdeviceptr address, unsigned short value, size_t count) {
  return driver("cuMemsetD16", [&](Runtime &rt) { return rt.memsetPattern(pointer(address), value, 2, count); });
}

// ---- Streams and events ------------------------------------------------------------------------------

CUresult cuStreamCreate(void **stream, unsigned) {
  return driver("cuStreamCreate", [&](Runtime &rt) { return rt.streamCreate(stream); });
}

CUresult cuStreamDestroy_v2(void *stream) {
  return driver("cuStreamDestroy", [&](Runtime &rt) { return rt.streamDestroy(stream); });
}

CUresult cuStreamSynchronize(void *stream) {
  return driver("cuStreamSynchronize", [&](Runtime &rt) {
    return rt.validStream(stream) ? rt.synchronize() : cuda::kErrorInvalidResourceHandle;
  });
}

CUresult cuEventCreate(void **event, unsigned) {
  return driver("cuEventCreate", [&](Runtime &rt) { return rt.eventCreate(event); });
}

CUresult cuEventDestroy_v2(void *event) {
  return driver("cuEventDestroy", [&](Runtime &rt) { return rt.eventDestroy(event); });
}

CUresult cuEventRecord(void *event, void *stream) {
  return driver("cuEventRecord", [&](Runtime &rt) { return rt.eventRecord(event, stream); });
}

CUresult cuEventSynchronize(void *event) {
  return driver("cuEventSynchronize", [&](Runtime &rt) {
    Error e = rt.eventQuery(event);
    return e ? e : rt.synchronize();
  });
}

CUresult cuEventElapsedTime(float *ms, void *start, void *end) {
  return driver("cuEventElapsedTime", [&](Runtime &rt) { return rt.eventElapsed(ms, start, end); });
}

CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end) {
  return cuEventElapsedTime(ms, start, end);
}

} // extern "C"
