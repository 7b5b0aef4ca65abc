// libcudart.so.13's entry points: the CUDA runtime API with C linkage and CUDA's ABI, each a thin call
// into Runtime under its lock. The symbol version `libcudart.so.13` (libcudart.map) is what programs
// linked against NVIDIA's runtime ask the dynamic loader for. Calls ptxray does not implement return
// cudaErrorNotSupported with a one-line note naming the function (Unsupported.cpp).
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

/// Runs one API call: under the runtime's lock, traced with PTXRAY_LOG=api, its error remembered for
/// cudaGetLastError.
template <typename F> Error api(const char *name, F &&call) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  Error e = Runtime::guarded(name, [&] { return call(rt); });
  if (rt.config().logApi)
    rt.log(fmt::format("{} = {}", name, cuda::errorName(e)));
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
  return api("cudaLaunchKernel",
             [&](Runtime &rt) { return rt.launch(kernel, grid, block, args, sharedBytes, stream); });
}

Error __cudaLaunchKernel_ptsz(const void *kernel, Dim3 grid, Dim3 block, void **args, size_t sharedBytes,
                              void *stream) {
  return __cudaLaunchKernel(kernel, grid, block, args, sharedBytes, stream);
}

// ---- Launches ----------------------------------------------------------------------------------------

Error cudaLaunchKernel(const void *function, Dim3 grid, Dim3 block, void **args, size_t sharedBytes, void *stream) {
  return api("cudaLaunchKernel",
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
  return api("cudaLaunchKernelExC", [&](Runtime &rt) {
    return rt.launch(function, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream,
                     nullptr, request.cooperative);
  });
}

Error cudaLaunchCooperativeKernel(const void *function, Dim3 grid, Dim3 block, void **args, size_t sharedBytes,
                                  void *stream) {
  return api("cudaLaunchCooperativeKernel",
             [&](Runtime &rt) { return rt.launch(function, grid, block, args, sharedBytes, stream, nullptr, true); });
}

Error cudaLaunchCooperativeKernel_ptsz(const void *function, Dim3 grid, Dim3 block, void **args, size_t sharedBytes,
                                       void *stream) {
  return cudaLaunchCooperativeKernel(function, grid, block, args, sharedBytes, stream);
}

Error cudaFuncGetAttributes(cuda::FuncAttributes *attributes, const void *function) {
  return api("cudaFuncGetAttributes", [&](Runtime &rt) { return rt.funcAttributes(attributes, function); });
}

Error cudaFuncSetAttribute(const void *function, int attribute, int value) {
  return api("cudaFuncSetAttribute", [&](Runtime &rt) { return rt.funcSetAttribute(function, attribute, value); });
}

Error cudaFuncSetCacheConfig(const void *function, int /*config*/) {
  return api("cudaFuncSetCacheConfig", [&](Runtime &rt) {
    cuda::FuncAttributes unused;
    return rt.funcAttributes(&unused, function) == cuda::kSuccess ? cuda::kSuccess : cuda::kErrorInvalidDeviceFunction;
  });
}

Error cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *function, int blockSize,
                                                    size_t dynamicShared) {
  return api("cudaOccupancyMaxActiveBlocksPerMultiprocessor",
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
  return api("cudaGetDeviceCount", [&](Runtime &rt) {
    if (!count)
      return cuda::kErrorInvalidValue;
    *count = rt.deviceCount();
    return cuda::kSuccess;
  });
}

Error cudaGetDevice(int *device) {
  return api("cudaGetDevice", [&](Runtime &rt) {
    if (!device)
      return cuda::kErrorInvalidValue;
    *device = rt.currentDevice();
    return cuda::kSuccess;
  });
}

Error cudaSetDevice(int device) {
  return api("cudaSetDevice", [&](Runtime &rt) { return rt.setDevice(device); });
}

Error cudaDeviceCanAccessPeer(int *can, int device, int peer) {
  return api("cudaDeviceCanAccessPeer", [&](Runtime &rt) { return rt.canAccessPeer(can, device, peer); });
}

Error cudaDeviceEnablePeerAccess(int peer, unsigned flags) {
  return api("cudaDeviceEnablePeerAccess",
             [&](Runtime &rt) { return flags ? cuda::kErrorInvalidValue : rt.enablePeerAccess(peer); });
}

Error cudaDeviceDisablePeerAccess(int peer) {
  return api("cudaDeviceDisablePeerAccess", [&](Runtime &rt) { return rt.disablePeerAccess(peer); });
}

Error cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t bytes) {
  return api("cudaMemcpyPeer",
             [&](Runtime &rt) { return rt.memcpyPeer(dst, dstDevice, src, srcDevice, bytes, nullptr, true); });
}

Error cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t bytes, void *stream) {
  return api("cudaMemcpyPeerAsync",
             [&](Runtime &rt) { return rt.memcpyPeer(dst, dstDevice, src, srcDevice, bytes, stream, false); });
}

Error cudaInitDevice(int device, unsigned, unsigned) {
  return cudaSetDevice(device);
}
Error cudaSetDeviceFlags(unsigned) {
  return cuda::kSuccess;
}
Error cudaGetDeviceFlags(unsigned *flags) {
  if (!flags)
    return cuda::kErrorInvalidValue;
  *flags = 0;
  return cuda::kSuccess;
}

Error cudaGetDeviceProperties(cuda::DeviceProp *properties, int device) {
  return api("cudaGetDeviceProperties", [&](Runtime &rt) { return rt.properties(properties, device); });
}

Error cudaDeviceGetAttribute(int *value, int attribute, int device) {
  return api("cudaDeviceGetAttribute", [&](Runtime &rt) { return rt.attribute(value, attribute, device); });
}

Error cudaDeviceSynchronize() {
  return api("cudaDeviceSynchronize", [&](Runtime &rt) {
    rt.recordSynchronize();
    return rt.synchronize();
  });
}

Error cudaThreadSynchronize() {
  return cudaDeviceSynchronize();
}

Error cudaDeviceReset() {
  return api("cudaDeviceReset", [&](Runtime &rt) { return rt.reset(); });
}

Error cudaDeviceSetCacheConfig(int) {
  return cuda::kSuccess;
}
Error cudaDeviceSetSharedMemConfig(int) {
  return cuda::kSuccess;
}

/// cudaLimit values: 0 stack size, 1 printf FIFO, 2 malloc heap.
Error cudaDeviceSetLimit(int limit, size_t value) {
  return api("cudaDeviceSetLimit", [&](Runtime &rt) {
    if (limit == 2)
      rt.device().setHeapBytes(value);
    return limit >= 0 && limit <= 6 ? cuda::kSuccess : cuda::kErrorInvalidValue;
  });
}

Error cudaDeviceGetLimit(size_t *value, int limit) {
  if (!value)
    return cuda::kErrorInvalidValue;
  switch (limit) {
  case 0: *value = 1024; return cuda::kSuccess;        // cudaLimitStackSize's default
  case 1: *value = 1024 * 1024; return cuda::kSuccess; // cudaLimitPrintfFifoSize's default
  case 2: *value = Runtime::instance().device().heapBytes(); return cuda::kSuccess;
  default: return cuda::kErrorInvalidValue;
  }
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
  return api("cudaMalloc", [&](Runtime &rt) { return rt.malloc(pointer, bytes); });
}

Error cudaMallocManaged(void **pointer, size_t bytes, unsigned /*flags*/) {
  return api("cudaMallocManaged", [&](Runtime &rt) { return rt.mallocManaged(pointer, bytes); });
}

Error cudaMallocHost(void **pointer, size_t bytes) {
  return api("cudaMallocHost", [&](Runtime &rt) { return rt.mallocHost(pointer, bytes); });
}

Error cudaHostAlloc(void **pointer, size_t bytes, unsigned /*flags*/) {
  return api("cudaHostAlloc", [&](Runtime &rt) { return rt.mallocHost(pointer, bytes); });
}

Error cudaHostGetDevicePointer(void **device, void *host, unsigned /*flags*/) {
  return api("cudaHostGetDevicePointer", [&](Runtime &rt) {
    cuda::PointerAttributes a;
    rt.pointerAttributes(&a, host);
    if (!device || a.type != cuda::Host)
      return cuda::kErrorInvalidValue;
    *device = host; // unified addressing: the same address
    return cuda::kSuccess;
  });
}

Error cudaMallocPitch(void **pointer, size_t *pitch, size_t width, size_t height) {
  return api("cudaMallocPitch", [&](Runtime &rt) {
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
  return api("cudaFree", [&](Runtime &rt) { return rt.free(pointer); });
}

Error cudaFreeHost(void *pointer) {
  return api("cudaFreeHost", [&](Runtime &rt) { return rt.freeHost(pointer); });
}

Error cudaMemcpy(void *dst, const void *src, size_t bytes, int kind) {
  return api("cudaMemcpy", [&](Runtime &rt) { return rt.streamCopy(dst, src, bytes, kind, nullptr, true); });
}

Error cudaMemcpyAsync(void *dst, const void *src, size_t bytes, int kind, void *stream) {
  return api("cudaMemcpyAsync", [&](Runtime &rt) { return rt.streamCopy(dst, src, bytes, kind, stream, false); });
}

Error cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int kind) {
  return api("cudaMemcpy2D", [&](Runtime &rt) {
    Error e = rt.memcpy2D(dst, dpitch, src, spitch, width, height, kind);
    if (!e)
      rt.recordCopy(dst, dpitch, src, spitch, width, height, nullptr, true);
    return e;
  });
}

Error cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int kind,
                        void *stream) {
  return api("cudaMemcpy2DAsync", [&](Runtime &rt) {
    if (!rt.validStream(stream))
      return cuda::kErrorInvalidResourceHandle;
    Error e = rt.memcpy2D(dst, dpitch, src, spitch, width, height, kind);
    if (!e)
      rt.recordCopy(dst, dpitch, src, spitch, width, height, stream, false);
    return e;
  });
}

Error cudaMemcpyToSymbol(const void *symbol, const void *src, size_t bytes, size_t offset, int kind) {
  return api("cudaMemcpyToSymbol",
             [&](Runtime &rt) { return rt.memcpyToSymbol(symbol, src, bytes, offset, kind, nullptr, true); });
}

Error cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t bytes, size_t offset, int kind,
                              void *stream) {
  return api("cudaMemcpyToSymbolAsync",
             [&](Runtime &rt) { return rt.memcpyToSymbol(symbol, src, bytes, offset, kind, stream, false); });
}

Error cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t bytes, size_t offset, int kind) {
  return api("cudaMemcpyFromSymbol",
             [&](Runtime &rt) { return rt.memcpyFromSymbol(dst, symbol, bytes, offset, kind, nullptr, true); });
}

Error cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t bytes, size_t offset, int kind, void *stream) {
  return api("cudaMemcpyFromSymbolAsync",
             [&](Runtime &rt) { return rt.memcpyFromSymbol(dst, symbol, bytes, offset, kind, stream, false); });
}

Error cudaGetSymbolAddress(void **address, const void *symbol) {
  return api("cudaGetSymbolAddress", [&](Runtime &rt) { return rt.symbolAddress(address, symbol); });
}

Error cudaGetSymbolSize(size_t *size, const void *symbol) {
  return api("cudaGetSymbolSize", [&](Runtime &rt) { return rt.symbolSize(size, symbol); });
}

Error cudaMemset(void *pointer, int value, size_t bytes) {
  return api("cudaMemset", [&](Runtime &rt) {
    return rt.streamMemset(pointer, static_cast<uint32_t>(value), 1, bytes, nullptr, true);
  });
}

Error cudaMemsetAsync(void *pointer, int value, size_t bytes, void *stream) {
  return api("cudaMemsetAsync", [&](Runtime &rt) {
    return rt.streamMemset(pointer, static_cast<uint32_t>(value), 1, bytes, stream, false);
  });
}

Error cudaMemGetInfo(size_t *free, size_t *total) {
  return api("cudaMemGetInfo", [&](Runtime &rt) { return rt.memGetInfo(free, total); });
}

Error cudaPointerGetAttributes(cuda::PointerAttributes *attributes, const void *pointer) {
  return api("cudaPointerGetAttributes", [&](Runtime &rt) { return rt.pointerAttributes(attributes, pointer); });
}

Error cudaMemPrefetchAsync(const void *, size_t, int, void *) {
  return cuda::kSuccess;
}
Error cudaMemAdvise(const void *, size_t, int, int) {
  return cuda::kSuccess;
}

// ---- Arrays, textures and surfaces -------------------------------------------------------------------

Error cudaMallocArray(void **array, const cuda::ChannelFormatDesc *desc, size_t width, size_t height, unsigned flags) {
  return api("cudaMallocArray", [&](Runtime &rt) { return rt.mallocArray(array, desc, width, height, 0, flags); });
}

Error cudaMalloc3DArray(void **array, const cuda::ChannelFormatDesc *desc, cuda::Extent extent, unsigned flags) {
  return api("cudaMalloc3DArray", [&](Runtime &rt) {
    return rt.mallocArray(array, desc, extent.width, extent.height, extent.depth, flags);
  });
}

Error cudaFreeArray(void *array) {
  return api("cudaFreeArray", [&](Runtime &rt) { return rt.freeArray(array); });
}

Error cudaMemcpy2DToArray(void *dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch, size_t width,
                          size_t height, int kind) {
  return api("cudaMemcpy2DToArray", [&](Runtime &rt) {
    return rt.memcpyArray(dst, wOffset, hOffset, src, spitch, width, height, kind, true);
  });
}

Error cudaMemcpy2DToArrayAsync(void *dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch, size_t width,
                               size_t height, int kind, void *) {
  return cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
}

Error cudaMemcpy2DFromArray(void *dst, size_t dpitch, const void *src, size_t wOffset, size_t hOffset, size_t width,
                            size_t height, int kind) {
  return api("cudaMemcpy2DFromArray", [&](Runtime &rt) {
    return rt.memcpyArray(const_cast<void *>(src), wOffset, hOffset, dst, dpitch, width, height, kind, false);
  });
}

/// The deprecated 1D-style copies: `count` bytes from (wOffset, hOffset) on, row by row.
Error cudaMemcpyToArray(void *dst, size_t wOffset, size_t hOffset, const void *src, size_t count, int kind) {
  return api("cudaMemcpyToArray", [&](Runtime &rt) {
    return rt.memcpyArrayLinear(dst, wOffset, hOffset, const_cast<void *>(src), count, kind, true);
  });
}

Error cudaMemcpyFromArray(void *dst, const void *src, size_t wOffset, size_t hOffset, size_t count, int kind) {
  return api("cudaMemcpyFromArray", [&](Runtime &rt) {
    return rt.memcpyArrayLinear(const_cast<void *>(src), wOffset, hOffset, dst, count, kind, false);
  });
}

Error cudaCreateTextureObject(unsigned long long *object, const cuda::ResourceDesc *resource,
                              const cuda::TextureDesc *texture, const void * /*view*/) {
  return api("cudaCreateTextureObject", [&](Runtime &rt) { return rt.createTextureObject(object, resource, texture); });
}

Error cudaDestroyTextureObject(unsigned long long object) {
  return api("cudaDestroyTextureObject", [&](Runtime &rt) { return rt.destroyTextureObject(object, false); });
}

Error cudaCreateSurfaceObject(unsigned long long *object, const cuda::ResourceDesc *resource) {
  return api("cudaCreateSurfaceObject", [&](Runtime &rt) { return rt.createSurfaceObject(object, resource); });
}

Error cudaDestroySurfaceObject(unsigned long long object) {
  return api("cudaDestroySurfaceObject", [&](Runtime &rt) { return rt.destroyTextureObject(object, true); });
}

// ---- Streams and events ------------------------------------------------------------------------------

Error cudaStreamCreate(void **stream) {
  return api("cudaStreamCreate", [&](Runtime &rt) { return rt.streamCreate(stream); });
}

Error cudaStreamCreateWithFlags(void **stream, unsigned) {
  return cudaStreamCreate(stream);
}
Error cudaStreamCreateWithPriority(void **stream, unsigned, int) {
  return cudaStreamCreate(stream);
}

Error cudaStreamDestroy(void *stream) {
  return api("cudaStreamDestroy", [&](Runtime &rt) { return rt.streamDestroy(stream); });
}

Error cudaStreamSynchronize(void *stream) {
  return api("cudaStreamSynchronize", [&](Runtime &rt) {
    if (!rt.validStream(stream))
      return cuda::kErrorInvalidResourceHandle;
    rt.recordStreamSynchronize(stream);
    return rt.synchronize();
  });
}

Error cudaStreamQuery(void *stream) {
  return api("cudaStreamQuery", [&](Runtime &rt) {
    return rt.validStream(stream) ? rt.stickyError() : cuda::kErrorInvalidResourceHandle;
  });
}

Error cudaStreamWaitEvent(void *stream, void *event, unsigned) {
  return api("cudaStreamWaitEvent", [&](Runtime &rt) { return rt.streamWaitEvent(stream, event); });
}

Error cudaEventCreate(void **event) {
  return api("cudaEventCreate", [&](Runtime &rt) { return rt.eventCreate(event); });
}

Error cudaEventCreateWithFlags(void **event, unsigned) {
  return cudaEventCreate(event);
}

Error cudaEventDestroy(void *event) {
  return api("cudaEventDestroy", [&](Runtime &rt) { return rt.eventDestroy(event); });
}

Error cudaEventRecord(void *event, void *stream) {
  return api("cudaEventRecord", [&](Runtime &rt) {
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
  return api("cudaEventSynchronize", [&](Runtime &rt) {
    Error e = rt.eventQuery(event);
    if (!e)
      rt.recordEventSynchronize(event);
    return e ? e : rt.synchronize();
  });
}

Error cudaEventQuery(void *event) {
  return api("cudaEventQuery", [&](Runtime &rt) { return rt.eventQuery(event); });
}

Error cudaEventElapsedTime(float *ms, void *start, void *end) {
  return api("cudaEventElapsedTime", [&](Runtime &rt) { return rt.eventElapsed(ms, start, end); });
}

Error cudaProfilerStart() {
  return cuda::kSuccess;
}
Error cudaProfilerStop() {
  return cuda::kSuccess;
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
