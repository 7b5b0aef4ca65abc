// libcudart.so.13's entry points: the CUDA runtime API with C linkage and CUDA's ABI, each a thin call
// into Runtime under its lock. The symbol version `libcudart.so.13` (libcudart.map) is what programs
// linked against NVIDIA's runtime ask the dynamic loader for. Calls ptxray does not implement return
// cudaErrorNotSupported with a one-line note naming the function (Unsupported.cpp).
#include "runtime/ApiTrace.h"
#include "runtime/Runtime.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace ptxray::runtime;
using cuda::Dim3;
using cuda::Error;

namespace {

/// Runs one API call: under the runtime's lock, traced with PTXRAY_LOG=api (its arguments and result:
/// ApiTrace.h), its error remembered for cudaGetLastError.
template <typename F, typename... A> Error api(const char *name, const trace::Args<A...> &args, F &&call) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  Error e = Runtime::guarded(name, [&] { return call(rt); });
  if (rt.config().logApi)
    Runtime::guarded(name, [&] {
      rt.log(fmt::format("{} = {}", trace::call(rt, name, args, e == cuda::kSuccess), cuda::errorName(e)));
      return cuda::kSuccess;
    });
  return rt.record(e);
}

struct LaunchConfigAbi { // cudaLaunchConfig_t
  Dim3 gridDim;
  Dim3 blockDim;
  size_t dynamicSmemBytes;
  void *stream;
  void *attrs;
  unsigned numAttrs;
};

} // namespace

extern "C" {

// ---- Registration (nvcc's host code) ----------------------------------------------------------------

void **__cudaRegisterFatBinary(void *wrapper) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  return rt.registerFatBinary(wrapper);
}

void __cudaRegisterFatBinaryEnd(void ** /*handle*/) {}

void __cudaUnregisterFatBinary(void **handle) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  rt.unregisterFatBinary(handle);
}

/// Called by host code before it first touches a __managed__ variable of the binary.
char __cudaInitModule(void **handle) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  return rt.initModule(handle) ? 1 : 0;
}

void __cudaRegisterFunction(void **handle, const char *hostFunction, char * /*deviceFunction*/, const char *deviceName,
                            int /*threadLimit*/, void * /*tid*/, void * /*bid*/, void * /*blockDim*/,
                            void * /*gridDim*/, int * /*warpSize*/) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  rt.registerFunction(handle, hostFunction, deviceName);
}

void __cudaRegisterVar(void **handle, char *hostVariable, char * /*deviceAddress*/, const char *deviceName, int /*ext*/,
                       size_t size, int constant, int /*global*/) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  rt.registerVariable(handle, hostVariable, deviceName, size, constant != 0, false);
}

/// `hostVariablePointer` is where host code reads the variable's address (after __cudaInitModule).
void __cudaRegisterManagedVar(void **handle, void **hostVariablePointer, char * /*deviceAddress*/,
                              const char *deviceName, int /*ext*/, size_t size, int constant, int /*global*/) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  rt.registerVariable(handle, hostVariablePointer, deviceName, size, constant != 0, true);
}

unsigned __cudaPushCallConfiguration(Dim3 grid, Dim3 block, size_t sharedBytes, void *stream) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  rt.pushConfiguration(grid, block, sharedBytes, stream);
  return 0;
}

Error __cudaPopCallConfiguration(Dim3 *grid, Dim3 *block, size_t *sharedBytes, void **stream) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  return rt.popConfiguration(grid, block, sharedBytes, stream);
}

/// nvcc 13's launch stubs ask for a kernel handle once, then launch through it: the handle is the
/// host function's address, as registered.
Error __cudaGetKernel(const void **kernel, const void *hostFunction) {
  if (!kernel)
    return cuda::kErrorInvalidValue;
  *kernel = hostFunction;
  return cuda::kSuccess;
}

Error __cudaLaunchKernel(const void *kernel, Dim3 grid, Dim3 block, void **args, size_t sharedBytes, void *stream) {
  return api("cudaLaunchKernel", PTXRAY_ARGS(kernel, grid, block, args, sharedBytes, stream),
             [&](Runtime &rt) { return rt.launch(kernel, grid, block, args, sharedBytes, stream); });
}

Error __cudaLaunchKernel_ptsz(const void *kernel, Dim3 grid, Dim3 block, void **args, size_t sharedBytes,
                              void *stream) {
  return __cudaLaunchKernel(kernel, grid, block, args, sharedBytes, stream);
}

// ---- Launches ----------------------------------------------------------------------------------------

Error cudaLaunchKernel(const void *function, Dim3 grid, Dim3 block, void **args, size_t sharedBytes, void *stream) {
  return api("cudaLaunchKernel", PTXRAY_ARGS(function, grid, block, args, sharedBytes, stream),
             [&](Runtime &rt) { return rt.launch(function, grid, block, args, sharedBytes, stream); });
}

Error cudaLaunchKernel_ptsz(const void *function, Dim3 grid, Dim3 block, void **args, size_t sharedBytes,
                            void *stream) {
  return cudaLaunchKernel(function, grid, block, args, sharedBytes, stream);
}

Error cudaLaunchKernelExC(const LaunchConfigAbi *config, const void *function, void **args) {
  if (!config)
    return Runtime::instance().record(cuda::kErrorInvalidValue);
  const cuda::LaunchRequest request = cuda::readLaunchAttributes(config->attrs, config->numAttrs);
  if (request.cluster) {
    // Clusters of more than one CTA are not modelled yet: refused, not run as something else.
    Runtime &rt = Runtime::instance();
    std::lock_guard lock(rt.mutex());
    rt.log("cudaLaunchKernelExC: cluster launches are not supported by ptxray yet");
    return rt.record(cuda::kErrorNotSupported);
  }
  return api("cudaLaunchKernelExC", PTXRAY_ARGS(config, function, args), [&](Runtime &rt) {
    return rt.launch(function, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream,
                     nullptr, request.cooperative);
  });
}

Error cudaLaunchCooperativeKernel(const void *function, Dim3 grid, Dim3 block, void **args, size_t sharedBytes,
                                  void *stream) {
  return api("cudaLaunchCooperativeKernel", PTXRAY_ARGS(function, grid, block, args, sharedBytes, stream),
             [&](Runtime &rt) { return rt.launch(function, grid, block, args, sharedBytes, stream, nullptr, true); });
}

Error cudaLaunchCooperativeKernel_ptsz(const void *function, Dim3 grid, Dim3 block, void **args, size_t sharedBytes,
                                       void *stream) {
  return cudaLaunchCooperativeKernel(function, grid, block, args, sharedBytes, stream);
}

Error cudaFuncGetAttributes(cuda::FuncAttributes *attributes, const void *function) {
  return api("cudaFuncGetAttributes", PTXRAY_ARGS(attributes, function),
             [&](Runtime &rt) { return rt.funcAttributes(attributes, function); });
}

Error cudaFuncSetAttribute(const void *function, int attribute, int value) {
  return api("cudaFuncSetAttribute", PTXRAY_ARGS(function, attribute, value),
             [&](Runtime &rt) { return rt.funcSetAttribute(function, attribute, value); });
}

Error cudaFuncSetCacheConfig(const void *function, int config) {
  return api("cudaFuncSetCacheConfig", PTXRAY_ARGS(function, config),
             [&](Runtime &rt) { return rt.funcSetCacheConfig(function, config); });
}

Error cudaFuncSetSharedMemConfig(const void *function, int config) {
  return api("cudaFuncSetSharedMemConfig", PTXRAY_ARGS(function, config),
             [&](Runtime &rt) { return rt.funcSetSharedMemConfig(function, config); });
}

Error cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *function, int blockSize,
                                                    size_t dynamicShared) {
  return api("cudaOccupancyMaxActiveBlocksPerMultiprocessor", PTXRAY_ARGS(blocks, function, blockSize, dynamicShared),
             [&](Runtime &rt) { return rt.occupancyMaxActiveBlocks(blocks, function, blockSize, dynamicShared); });
}

Error cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *function, int blockSize,
                                                             size_t dynamicShared, unsigned /*flags*/) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, function, blockSize, dynamicShared);
}

// ---- Errors ------------------------------------------------------------------------------------------

Error cudaGetLastError() {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  return rt.lastError(true);
}

Error cudaPeekAtLastError() {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  return rt.lastError(false);
}

const char *cudaGetErrorName(Error error) {
  return cuda::errorName(error);
}
const char *cudaGetErrorString(Error error) {
  return cuda::errorString(error);
}

cuda::ChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, int f) {
  return {x, y, z, w, f};
}

// ---- Device ------------------------------------------------------------------------------------------

Error cudaGetDeviceCount(int *count) {
  return api("cudaGetDeviceCount", PTXRAY_ARGS(count), [&](Runtime &rt) {
    if (!count)
      return cuda::kErrorInvalidValue;
    *count = rt.deviceCount();
    return cuda::kSuccess;
  });
}

Error cudaGetDevice(int *device) {
  return api("cudaGetDevice", PTXRAY_ARGS(device), [&](Runtime &rt) {
    if (!device)
      return cuda::kErrorInvalidValue;
    *device = rt.currentDevice();
    return cuda::kSuccess;
  });
}

Error cudaSetDevice(int device) {
  return api("cudaSetDevice", PTXRAY_ARGS(device), [&](Runtime &rt) { return rt.setDevice(device); });
}

Error cudaDeviceCanAccessPeer(int *can, int device, int peer) {
  return api("cudaDeviceCanAccessPeer", PTXRAY_ARGS(can, device, peer),
             [&](Runtime &rt) { return rt.canAccessPeer(can, device, peer); });
}

Error cudaDeviceEnablePeerAccess(int peer, unsigned flags) {
  return api("cudaDeviceEnablePeerAccess", PTXRAY_ARGS(peer, flags),
             [&](Runtime &rt) { return flags ? cuda::kErrorInvalidValue : rt.enablePeerAccess(peer); });
}

Error cudaDeviceDisablePeerAccess(int peer) {
  return api("cudaDeviceDisablePeerAccess", PTXRAY_ARGS(peer), [&](Runtime &rt) { return rt.disablePeerAccess(peer); });
}

Error cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t bytes) {
  return api("cudaMemcpyPeer", PTXRAY_ARGS(dst, dstDevice, src, srcDevice, bytes),
             [&](Runtime &rt) { return rt.memcpyPeer(dst, dstDevice, src, srcDevice, bytes, nullptr, true); });
}

Error cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t bytes, void *stream) {
  return api("cudaMemcpyPeerAsync", PTXRAY_ARGS(dst, dstDevice, src, srcDevice, bytes, stream),
             [&](Runtime &rt) { return rt.memcpyPeer(dst, dstDevice, src, srcDevice, bytes, stream, false); });
}

Error cudaInitDevice(int device, unsigned deviceFlags, unsigned flags) {
  return api("cudaInitDevice", PTXRAY_ARGS(device, deviceFlags, flags), [&](Runtime &rt) {
    if (flags != 0)
      return cuda::kErrorInvalidValue;
    return rt.validDevice(device) ? rt.setDeviceFlags(device, deviceFlags) : cuda::kErrorInvalidDevice;
  });
}

/// The current device's flags (its primary context's): a schedule, cudaDeviceMapHost,
/// cudaDeviceLmemResizeToMax.
Error cudaSetDeviceFlags(unsigned flags) {
  return api("cudaSetDeviceFlags", PTXRAY_ARGS(flags),
             [&](Runtime &rt) { return rt.setDeviceFlags(rt.currentDevice(), flags); });
}

Error cudaGetDeviceFlags(unsigned *flags) {
  return api("cudaGetDeviceFlags", PTXRAY_ARGS(flags),
             [&](Runtime &rt) { return rt.deviceFlags(rt.currentDevice(), flags); });
}

Error cudaGetDeviceProperties(cuda::DeviceProp *properties, int device) {
  return api("cudaGetDeviceProperties", PTXRAY_ARGS(properties, device),
             [&](Runtime &rt) { return rt.properties(properties, device); });
}

Error cudaDeviceGetAttribute(int *value, int attribute, int device) {
  return api("cudaDeviceGetAttribute", PTXRAY_ARGS(value, attribute, device),
             [&](Runtime &rt) { return rt.attribute(value, attribute, device); });
}

Error cudaDeviceSynchronize() {
  return api("cudaDeviceSynchronize", PTXRAY_ARGS(), [&](Runtime &rt) {
    rt.recordSynchronize();
    return rt.synchronize();
  });
}

Error cudaThreadSynchronize() {
  return cudaDeviceSynchronize();
}

Error cudaDeviceReset() {
  return api("cudaDeviceReset", PTXRAY_ARGS(), [&](Runtime &rt) { return rt.reset(); });
}

Error cudaDeviceSetCacheConfig(int config) {
  return api("cudaDeviceSetCacheConfig", PTXRAY_ARGS(config), [&](Runtime &rt) { return rt.setCacheConfig(config); });
}

Error cudaDeviceGetCacheConfig(int *config) {
  return api("cudaDeviceGetCacheConfig", PTXRAY_ARGS(config), [&](Runtime &rt) { return rt.cacheConfig(config); });
}

Error cudaDeviceSetSharedMemConfig(int config) {
  return api("cudaDeviceSetSharedMemConfig", PTXRAY_ARGS(config),
             [&](Runtime &rt) { return rt.setSharedMemConfig(config); });
}

Error cudaDeviceGetSharedMemConfig(int *config) {
  return api("cudaDeviceGetSharedMemConfig", PTXRAY_ARGS(config),
             [&](Runtime &rt) { return rt.sharedMemConfig(config); });
}

Error cudaDeviceSetLimit(int limit, size_t value) {
  return api("cudaDeviceSetLimit", PTXRAY_ARGS(limit, value), [&](Runtime &rt) { return rt.setLimit(limit, value); });
}

Error cudaDeviceGetLimit(size_t *value, int limit) {
  return api("cudaDeviceGetLimit", PTXRAY_ARGS(value, limit), [&](Runtime &rt) { return rt.limit(value, limit); });
}

Error cudaDriverGetVersion(int *version) {
  if (!version)
    return cuda::kErrorInvalidValue;
  *version = 13000;
  return cuda::kSuccess;
}

Error cudaRuntimeGetVersion(int *version) {
  return cudaDriverGetVersion(version);
}

// ---- Memory ------------------------------------------------------------------------------------------

Error cudaMalloc(void **pointer, size_t bytes) {
  return api("cudaMalloc", PTXRAY_ARGS(pointer, bytes), [&](Runtime &rt) { return rt.malloc(pointer, bytes); });
}

Error cudaMallocManaged(void **pointer, size_t bytes, unsigned /*flags*/) {
  return api("cudaMallocManaged", PTXRAY_ARGS(pointer, bytes),
             [&](Runtime &rt) { return rt.mallocManaged(pointer, bytes); });
}

Error cudaMallocHost(void **pointer, size_t bytes) {
  return api("cudaMallocHost", PTXRAY_ARGS(pointer, bytes), [&](Runtime &rt) { return rt.mallocHost(pointer, bytes); });
}

Error cudaHostAlloc(void **pointer, size_t bytes, unsigned /*flags*/) {
  return api("cudaHostAlloc", PTXRAY_ARGS(pointer, bytes), [&](Runtime &rt) { return rt.mallocHost(pointer, bytes); });
}

Error cudaHostGetDevicePointer(void **device, void *host, unsigned flags) {
  return api("cudaHostGetDevicePointer", PTXRAY_ARGS(device, host, flags),
             [&](Runtime &rt) { return rt.hostDevicePointer(device, host, flags); });
}

Error cudaHostGetFlags(unsigned *flags, void *host) {
  return api("cudaHostGetFlags", PTXRAY_ARGS(flags, host), [&](Runtime &rt) { return rt.hostFlags(flags, host); });
}

/// The program's own host memory, reachable by kernels at the address cudaHostGetDevicePointer gives.
Error cudaHostRegister(void *pointer, size_t bytes, unsigned flags) {
  return api("cudaHostRegister", PTXRAY_ARGS(pointer, bytes, flags),
             [&](Runtime &rt) { return rt.hostRegister(pointer, bytes, flags); });
}

Error cudaHostUnregister(void *pointer) {
  return api("cudaHostUnregister", PTXRAY_ARGS(pointer), [&](Runtime &rt) { return rt.hostUnregister(pointer); });
}

Error cudaMallocPitch(void **pointer, size_t *pitch, size_t width, size_t height) {
  return api("cudaMallocPitch", PTXRAY_ARGS(pointer, pitch, width, height), [&](Runtime &rt) {
    if (!pitch)
      return cuda::kErrorInvalidValue;
    // Rows padded to the texture pitch alignment the device reports.
    cuda::DeviceProp p;
    rt.properties(&p, 0);
    const size_t align = p.texturePitchAlignment * 16;
    if (width == 0 || width > p.memPitch)
      return cuda::kErrorInvalidValue;
    *pitch = (width + align - 1) / align * align;
    if (height > SIZE_MAX / *pitch)
      return cuda::kErrorMemoryAllocation;
    return rt.malloc(pointer, *pitch * height);
  });
}

Error cudaFree(void *pointer) {
  return api("cudaFree", PTXRAY_ARGS(pointer), [&](Runtime &rt) { return rt.free(pointer); });
}

Error cudaFreeHost(void *pointer) {
  return api("cudaFreeHost", PTXRAY_ARGS(pointer), [&](Runtime &rt) { return rt.freeHost(pointer); });
}

Error cudaMemcpy(void *dst, const void *src, size_t bytes, int kind) {
  return api("cudaMemcpy", PTXRAY_ARGS(dst, src, bytes, kind),
             [&](Runtime &rt) { return rt.streamCopy(dst, src, bytes, kind, nullptr, true); });
}

Error cudaMemcpyAsync(void *dst, const void *src, size_t bytes, int kind, void *stream) {
  return api("cudaMemcpyAsync", PTXRAY_ARGS(dst, src, bytes, kind, stream),
             [&](Runtime &rt) { return rt.streamCopy(dst, src, bytes, kind, stream, false); });
}

Error cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int kind) {
  return api("cudaMemcpy2D", PTXRAY_ARGS(dst, dpitch, src, spitch, width, height, kind), [&](Runtime &rt) {
    Error e = rt.memcpy2D(dst, dpitch, src, spitch, width, height, kind);
    if (!e)
      rt.recordCopy(dst, dpitch, src, spitch, width, height, nullptr, true);
    return e;
  });
}

Error cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int kind,
                        void *stream) {
  return api("cudaMemcpy2DAsync", PTXRAY_ARGS(dst, dpitch, src, spitch, width, height, kind, stream), [&](Runtime &rt) {
    if (!rt.validStream(stream))
      return cuda::kErrorInvalidResourceHandle;
    Error e = rt.memcpy2D(dst, dpitch, src, spitch, width, height, kind);
    if (!e)
      rt.recordCopy(dst, dpitch, src, spitch, width, height, stream, false);
    return e;
  });
}

Error cudaMemcpyToSymbol(const void *symbol, const void *src, size_t bytes, size_t offset, int kind) {
  return api("cudaMemcpyToSymbol", PTXRAY_ARGS(symbol, src, bytes, offset, kind),
             [&](Runtime &rt) { return rt.memcpyToSymbol(symbol, src, bytes, offset, kind, nullptr, true); });
}

Error cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t bytes, size_t offset, int kind,
                              void *stream) {
  return api("cudaMemcpyToSymbolAsync", PTXRAY_ARGS(symbol, src, bytes, offset, kind, stream),
             [&](Runtime &rt) { return rt.memcpyToSymbol(symbol, src, bytes, offset, kind, stream, false); });
}

Error cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t bytes, size_t offset, int kind) {
  return api("cudaMemcpyFromSymbol", PTXRAY_ARGS(dst, symbol, bytes, offset, kind),
             [&](Runtime &rt) { return rt.memcpyFromSymbol(dst, symbol, bytes, offset, kind, nullptr, true); });
}

Error cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t bytes, size_t offset, int kind, void *stream) {
  return api("cudaMemcpyFromSymbolAsync", PTXRAY_ARGS(dst, symbol, bytes, offset, kind, stream),
             [&](Runtime &rt) { return rt.memcpyFromSymbol(dst, symbol, bytes, offset, kind, stream, false); });
}

Error cudaGetSymbolAddress(void **address, const void *symbol) {
  return api("cudaGetSymbolAddress", PTXRAY_ARGS(address, symbol),
             [&](Runtime &rt) { return rt.symbolAddress(address, symbol); });
}

Error cudaGetSymbolSize(size_t *size, const void *symbol) {
  return api("cudaGetSymbolSize", PTXRAY_ARGS(size, symbol), [&](Runtime &rt) { return rt.symbolSize(size, symbol); });
}

Error cudaMemset(void *pointer, int value, size_t bytes) {
  return api("cudaMemset", PTXRAY_ARGS(pointer, value, bytes), [&](Runtime &rt) {
    return rt.streamMemset(pointer, static_cast<uint32_t>(value), 1, bytes, nullptr, true);
  });
}

Error cudaMemsetAsync(void *pointer, int value, size_t bytes, void *stream) {
  return api("cudaMemsetAsync", PTXRAY_ARGS(pointer, value, bytes, stream), [&](Runtime &rt) {
    return rt.streamMemset(pointer, static_cast<uint32_t>(value), 1, bytes, stream, false);
  });
}

Error cudaMemGetInfo(size_t *free, size_t *total) {
  return api("cudaMemGetInfo", PTXRAY_ARGS(free, total), [&](Runtime &rt) { return rt.memGetInfo(free, total); });
}

Error cudaPointerGetAttributes(cuda::PointerAttributes *attributes, const void *pointer) {
  return api("cudaPointerGetAttributes", PTXRAY_ARGS(attributes, pointer),
             [&](Runtime &rt) { return rt.pointerAttributes(attributes, pointer); });
}

Error cudaMemPrefetchAsync(const void *, size_t, int, void *) {
  return cuda::kSuccess;
}
Error cudaMemAdvise(const void *, size_t, int, int) {
  return cuda::kSuccess;
}

// ---- Arrays, textures and surfaces -------------------------------------------------------------------

Error cudaMallocArray(void **array, const cuda::ChannelFormatDesc *desc, size_t width, size_t height, unsigned flags) {
  return api("cudaMallocArray", PTXRAY_ARGS(array, desc, width, height, flags),
             [&](Runtime &rt) { return rt.mallocArray(array, desc, width, height, 0, flags); });
}

Error cudaMalloc3DArray(void **array, const cuda::ChannelFormatDesc *desc, cuda::Extent extent, unsigned flags) {
  return api("cudaMalloc3DArray", PTXRAY_ARGS(array, desc, extent, flags), [&](Runtime &rt) {
    return rt.mallocArray(array, desc, extent.width, extent.height, extent.depth, flags);
  });
}

Error cudaFreeArray(void *array) {
  return api("cudaFreeArray", PTXRAY_ARGS(array), [&](Runtime &rt) { return rt.freeArray(array); });
}

Error cudaMemcpy2DToArray(void *dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch, size_t width,
                          size_t height, int kind) {
  return api(
      "cudaMemcpy2DToArray", PTXRAY_ARGS(dst, wOffset, hOffset, src, spitch, width, height, kind),
      [&](Runtime &rt) { return rt.memcpyArray(dst, wOffset, hOffset, src, spitch, width, height, kind, true); });
}

Error cudaMemcpy2DToArrayAsync(void *dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch, size_t width,
                               size_t height, int kind, void *) {
  return cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
}

Error cudaMemcpy2DFromArray(void *dst, size_t dpitch, const void *src, size_t wOffset, size_t hOffset, size_t width,
                            size_t height, int kind) {
  return api(
      "cudaMemcpy2DFromArray", PTXRAY_ARGS(dst, dpitch, src, wOffset, hOffset, width, height, kind), [&](Runtime &rt) {
        return rt.memcpyArray(const_cast<void *>(src), wOffset, hOffset, dst, dpitch, width, height, kind, false);
      });
}

/// The deprecated 1D-style copies: `count` bytes from (wOffset, hOffset) on, row by row.
Error cudaMemcpyToArray(void *dst, size_t wOffset, size_t hOffset, const void *src, size_t count, int kind) {
  return api("cudaMemcpyToArray", PTXRAY_ARGS(dst, wOffset, hOffset, src, count, kind), [&](Runtime &rt) {
    return rt.memcpyArrayLinear(dst, wOffset, hOffset, const_cast<void *>(src), count, kind, true);
  });
}

Error cudaMemcpyFromArray(void *dst, const void *src, size_t wOffset, size_t hOffset, size_t count, int kind) {
  return api("cudaMemcpyFromArray", PTXRAY_ARGS(dst, src, wOffset, hOffset, count, kind), [&](Runtime &rt) {
    return rt.memcpyArrayLinear(const_cast<void *>(src), wOffset, hOffset, dst, count, kind, false);
  });
}

Error cudaCreateTextureObject(unsigned long long *object, const cuda::ResourceDesc *resource,
                              const cuda::TextureDesc *texture, const void * /*view*/) {
  return api("cudaCreateTextureObject", PTXRAY_ARGS(object, resource, texture),
             [&](Runtime &rt) { return rt.createTextureObject(object, resource, texture); });
}

Error cudaDestroyTextureObject(unsigned long long object) {
  return api("cudaDestroyTextureObject", PTXRAY_ARGS(object),
             [&](Runtime &rt) { return rt.destroyTextureObject(object, false); });
}

Error cudaCreateSurfaceObject(unsigned long long *object, const cuda::ResourceDesc *resource) {
  return api("cudaCreateSurfaceObject", PTXRAY_ARGS(object, resource),
             [&](Runtime &rt) { return rt.createSurfaceObject(object, resource); });
}

Error cudaDestroySurfaceObject(unsigned long long object) {
  return api("cudaDestroySurfaceObject", PTXRAY_ARGS(object),
             [&](Runtime &rt) { return rt.destroyTextureObject(object, true); });
}

// ---- Streams and events ------------------------------------------------------------------------------

Error cudaStreamCreate(void **stream) {
  return api("cudaStreamCreate", PTXRAY_ARGS(stream), [&](Runtime &rt) { return rt.streamCreate(stream); });
}

Error cudaStreamCreateWithFlags(void **stream, unsigned flags) {
  return api("cudaStreamCreateWithFlags", PTXRAY_ARGS(stream, flags),
             [&](Runtime &rt) { return rt.streamCreate(stream, flags); });
}
Error cudaStreamCreateWithPriority(void **stream, unsigned flags, int priority) {
  return api("cudaStreamCreateWithPriority", PTXRAY_ARGS(stream, flags, priority),
             [&](Runtime &rt) { return rt.streamCreate(stream, flags); });
}

Error cudaStreamDestroy(void *stream) {
  return api("cudaStreamDestroy", PTXRAY_ARGS(stream), [&](Runtime &rt) { return rt.streamDestroy(stream); });
}

Error cudaStreamSynchronize(void *stream) {
  return api("cudaStreamSynchronize", PTXRAY_ARGS(stream), [&](Runtime &rt) {
    if (!rt.validStream(stream))
      return cuda::kErrorInvalidResourceHandle;
    rt.recordStreamSynchronize(stream);
    return rt.synchronize();
  });
}

Error cudaStreamQuery(void *stream) {
  return api("cudaStreamQuery", PTXRAY_ARGS(stream), [&](Runtime &rt) {
    return rt.validStream(stream) ? rt.stickyError() : cuda::kErrorInvalidResourceHandle;
  });
}

Error cudaStreamWaitEvent(void *stream, void *event, unsigned) {
  return api("cudaStreamWaitEvent", PTXRAY_ARGS(stream, event),
             [&](Runtime &rt) { return rt.streamWaitEvent(stream, event); });
}

Error cudaEventCreate(void **event) {
  return api("cudaEventCreate", PTXRAY_ARGS(event), [&](Runtime &rt) { return rt.eventCreate(event); });
}

Error cudaEventCreateWithFlags(void **event, unsigned) {
  return cudaEventCreate(event);
}

Error cudaEventDestroy(void *event) {
  return api("cudaEventDestroy", PTXRAY_ARGS(event), [&](Runtime &rt) { return rt.eventDestroy(event); });
}

Error cudaEventRecord(void *event, void *stream) {
  return api("cudaEventRecord", PTXRAY_ARGS(event, stream), [&](Runtime &rt) {
    Error e = rt.eventRecord(event, stream);
    if (!e)
      rt.recordEventRecord(event, stream);
    return e;
  });
}

Error cudaEventRecordWithFlags(void *event, void *stream, unsigned) {
  return cudaEventRecord(event, stream);
}

Error cudaEventSynchronize(void *event) {
  return api("cudaEventSynchronize", PTXRAY_ARGS(event), [&](Runtime &rt) {
    Error e = rt.eventQuery(event);
    if (!e)
      rt.recordEventSynchronize(event);
    return e ? e : rt.synchronize();
  });
}

Error cudaEventQuery(void *event) {
  return api("cudaEventQuery", PTXRAY_ARGS(event), [&](Runtime &rt) { return rt.eventQuery(event); });
}

Error cudaEventElapsedTime(float *ms, void *start, void *end) {
  return api("cudaEventElapsedTime", PTXRAY_ARGS(ms, start, end),
             [&](Runtime &rt) { return rt.eventElapsed(ms, start, end); });
}

// ---- Profiler, host functions, stream-ordered allocation ---------------------------------------------

/// No profiler collects anything under ptxray: the calls succeed and do nothing (the trace says so).
Error cudaProfilerStart() {
  return api("cudaProfilerStart", PTXRAY_ARGS(), [&](Runtime &rt) {
    if (rt.config().logApi)
      rt.log("cudaProfilerStart: no profiler runs under ptxray; nothing to start");
    return cuda::kSuccess;
  });
}
Error cudaProfilerStop() {
  return api("cudaProfilerStop", PTXRAY_ARGS(), [&](Runtime &rt) {
    if (rt.config().logApi)
      rt.log("cudaProfilerStop: no profiler runs under ptxray; nothing to stop");
    return cuda::kSuccess;
  });
}

/// Work already issued to the stream has completed (it runs when issued), so the function runs now, on
/// the calling thread, outside the runtime's lock (it may call the API).
Error cudaLaunchHostFunc(void *stream, void (*function)(void *), void *data) {
  bool runNow = false;
  Error e = api("cudaLaunchHostFunc", PTXRAY_ARGS(stream, function, data),
                [&](Runtime &rt) { return rt.enqueueHostFunction(stream, function, data, runNow); });
  if (runNow)
    function(data);
  return e;
}

Error cudaLaunchHostFunc_ptsz(void *stream, void (*function)(void *), void *data) {
  return cudaLaunchHostFunc(stream, function, data);
}

/// The callback gets the stream's status: cudaSuccess, or the error a kernel left.
Error cudaStreamAddCallback(void *stream, void (*callback)(void *, Error, void *), void *data, unsigned flags) {
  Error status = cuda::kSuccess;
  Error e = api("cudaStreamAddCallback", PTXRAY_ARGS(stream, callback, data, flags),
                [&](Runtime &rt) { return rt.streamCallbackCheck(stream, callback != nullptr, flags, status); });
  if (e == cuda::kSuccess)
    callback(stream, status, data);
  return e;
}

Error cudaStreamAddCallback_ptsz(void *stream, void (*callback)(void *, Error, void *), void *data, unsigned flags) {
  return cudaStreamAddCallback(stream, callback, data, flags);
}

Error cudaMallocAsync(void **pointer, size_t bytes, void *stream) {
  return api("cudaMallocAsync", PTXRAY_ARGS(pointer, bytes, stream),
             [&](Runtime &rt) { return rt.mallocAsync(pointer, bytes, nullptr, stream); });
}

Error cudaMallocAsync_ptsz(void **pointer, size_t bytes, void *stream) {
  return cudaMallocAsync(pointer, bytes, stream);
}

Error cudaMallocFromPoolAsync(void **pointer, size_t bytes, void *pool, void *stream) {
  return api("cudaMallocFromPoolAsync", PTXRAY_ARGS(pointer, bytes, pool, stream), [&](Runtime &rt) {
    return pool ? rt.mallocAsync(pointer, bytes, pool, stream) : cuda::kErrorInvalidValue;
  });
}

Error cudaMallocFromPoolAsync_ptsz(void **pointer, size_t bytes, void *pool, void *stream) {
  return cudaMallocFromPoolAsync(pointer, bytes, pool, stream);
}

Error cudaFreeAsync(void *pointer, void *stream) {
  return api("cudaFreeAsync", PTXRAY_ARGS(pointer, stream), [&](Runtime &rt) { return rt.freeAsync(pointer, stream); });
}

Error cudaFreeAsync_ptsz(void *pointer, void *stream) {
  return cudaFreeAsync(pointer, stream);
}

Error cudaDeviceGetDefaultMemPool(void **pool, int device) {
  return api("cudaDeviceGetDefaultMemPool", PTXRAY_ARGS(pool, device),
             [&](Runtime &rt) { return rt.defaultMemPool(pool, device); });
}

Error cudaDeviceGetMemPool(void **pool, int device) {
  return api("cudaDeviceGetMemPool", PTXRAY_ARGS(pool, device),
             [&](Runtime &rt) { return rt.currentMemPool(pool, device); });
}

Error cudaDeviceSetMemPool(int device, void *pool) {
  return api("cudaDeviceSetMemPool", PTXRAY_ARGS(device, pool),
             [&](Runtime &rt) { return rt.setCurrentMemPool(device, pool); });
}

/// CUDA 13's forms by location (cudaMemLocation {type, id}) and allocation type: device locations and
/// pinned allocations (cudaMemAllocationTypePinned) only.
struct MemLocationAbi {
  int type; ///< cudaMemLocationTypeDevice (1)
  int id;
};

Error cudaMemGetDefaultMemPool(void **pool, const MemLocationAbi *location, int type) {
  return api("cudaMemGetDefaultMemPool", PTXRAY_ARGS(pool, location, type), [&](Runtime &rt) {
    if (!location || location->type != 1 || type != 1)
      return cuda::kErrorInvalidValue;
    return rt.defaultMemPool(pool, location->id);
  });
}

Error cudaMemGetMemPool(void **pool, const MemLocationAbi *location, int type) {
  return api("cudaMemGetMemPool", PTXRAY_ARGS(pool, location, type), [&](Runtime &rt) {
    if (!location || location->type != 1 || type != 1)
      return cuda::kErrorInvalidValue;
    return rt.currentMemPool(pool, location->id);
  });
}

Error cudaMemSetMemPool(const MemLocationAbi *location, int type, void *pool) {
  return api("cudaMemSetMemPool", PTXRAY_ARGS(location, type, pool), [&](Runtime &rt) {
    if (!location || location->type != 1 || type != 1)
      return cuda::kErrorInvalidValue;
    return rt.setCurrentMemPool(location->id, pool);
  });
}

Error cudaMemPoolCreate(void **pool, const void *props) {
  return api("cudaMemPoolCreate", PTXRAY_ARGS(pool, props), [&](Runtime &rt) { return rt.memPoolCreate(pool, props); });
}

Error cudaMemPoolDestroy(void *pool) {
  return api("cudaMemPoolDestroy", PTXRAY_ARGS(pool), [&](Runtime &rt) { return rt.memPoolDestroy(pool); });
}

Error cudaMemPoolSetAttribute(void *pool, int attribute, void *value) {
  return api("cudaMemPoolSetAttribute", PTXRAY_ARGS(pool, attribute, value),
             [&](Runtime &rt) { return rt.memPoolSetAttribute(pool, attribute, value); });
}

Error cudaMemPoolGetAttribute(void *pool, int attribute, void *value) {
  return api("cudaMemPoolGetAttribute", PTXRAY_ARGS(pool, attribute, value),
             [&](Runtime &rt) { return rt.memPoolGetAttribute(pool, attribute, value); });
}

Error cudaMemPoolTrimTo(void *pool, size_t minBytesToKeep) {
  return api("cudaMemPoolTrimTo", PTXRAY_ARGS(pool, minBytesToKeep),
             [&](Runtime &rt) { return rt.memPoolTrimTo(pool, minBytesToKeep); });
}

// Per-thread default stream builds (nvcc --default-stream per-thread) call these names; with every
// operation complete when issued there is one stream order, so they are the same functions.
Error cudaMemcpy_ptds(void *dst, const void *src, size_t bytes, int kind) {
  return cudaMemcpy(dst, src, bytes, kind);
}
Error cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t bytes, int kind, void *stream) {
  return cudaMemcpyAsync(dst, src, bytes, kind, stream);
}
Error cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                        int kind) {
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
Error cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                             int kind, void *stream) {
  return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream);
}
Error cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t bytes, size_t offset, int kind) {
  return cudaMemcpyToSymbol(symbol, src, bytes, offset, kind);
}
Error cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t bytes, size_t offset, int kind) {
  return cudaMemcpyFromSymbol(dst, symbol, bytes, offset, kind);
}
Error cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t bytes, size_t offset, int kind,
                                   void *stream) {
  return cudaMemcpyToSymbolAsync(symbol, src, bytes, offset, kind, stream);
}
Error cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t bytes, size_t offset, int kind,
                                     void *stream) {
  return cudaMemcpyFromSymbolAsync(dst, symbol, bytes, offset, kind, stream);
}
Error cudaMemcpy2DToArray_ptds(void *dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch, size_t width,
                               size_t height, int kind) {
  return cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
}
Error cudaMemcpy2DFromArray_ptds(void *dst, size_t dpitch, const void *src, size_t wOffset, size_t hOffset,
                                 size_t width, size_t height, int kind) {
  return cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind);
}
Error cudaMemcpyToArray_ptds(void *dst, size_t wOffset, size_t hOffset, const void *src, size_t count, int kind) {
  return cudaMemcpyToArray(dst, wOffset, hOffset, src, count, kind);
}
Error cudaMemcpyFromArray_ptds(void *dst, const void *src, size_t wOffset, size_t hOffset, size_t count, int kind) {
  return cudaMemcpyFromArray(dst, src, wOffset, hOffset, count, kind);
}
Error cudaMemset_ptds(void *pointer, int value, size_t bytes) {
  return cudaMemset(pointer, value, bytes);
}
Error cudaMemsetAsync_ptsz(void *pointer, int value, size_t bytes, void *stream) {
  return cudaMemsetAsync(pointer, value, bytes, stream);
}
Error cudaStreamSynchronize_ptsz(void *stream) {
  return cudaStreamSynchronize(stream);
}
Error cudaStreamQuery_ptsz(void *stream) {
  return cudaStreamQuery(stream);
}
Error cudaStreamWaitEvent_ptsz(void *stream, void *event, unsigned flags) {
  return cudaStreamWaitEvent(stream, event, flags);
}
Error cudaEventRecord_ptsz(void *event, void *stream) {
  return cudaEventRecord(event, stream);
}
Error cudaEventRecordWithFlags_ptsz(void *event, void *stream, unsigned flags) {
  return cudaEventRecordWithFlags(event, stream, flags);
}
Error cudaLaunchKernelExC_ptsz(const LaunchConfigAbi *config, const void *function, void **args) {
  return cudaLaunchKernelExC(config, function, args);
}

} // extern "C"

namespace {
/// Summaries and files at exit, also for a program that never unregisters its device code.
__attribute__((destructor)) void finishAtExit() {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  rt.finish();
}
} // namespace
