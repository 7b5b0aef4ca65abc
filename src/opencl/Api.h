// The OpenCL API functions ptxray's platform implements, declared from the ICD headers' own function
// types (cl_api_clXxx), so that a definition with another signature does not compile. They live in
// ptxray::opencl::api; the loader reaches them through the dispatch table (Dispatch.cpp), never by
// name: the library exports only the ICD's entry points.
#pragma once

#include "opencl/ApiTrace.h"
#include "opencl/Platform.h"
#include "support/MemoryBudget.h"

#include <cstdio>

#include <type_traits>

// X(name) for each implemented function, in the dispatch table's order.
#define PTXRAY_OPENCL_FUNCTIONS(X)                                                                                     \
  X(clGetPlatformIDs)                                                                                                  \
  X(clGetPlatformInfo)                                                                                                 \
  X(clGetDeviceIDs)                                                                                                    \
  X(clGetDeviceInfo)                                                                                                   \
  X(clCreateContext)                                                                                                   \
  X(clCreateContextFromType)                                                                                           \
  X(clRetainContext)                                                                                                   \
  X(clReleaseContext)                                                                                                  \
  X(clGetContextInfo)                                                                                                  \
  X(clCreateCommandQueue)                                                                                              \
  X(clRetainCommandQueue)                                                                                              \
  X(clReleaseCommandQueue)                                                                                             \
  X(clGetCommandQueueInfo)                                                                                             \
  X(clSetCommandQueueProperty)                                                                                         \
  X(clCreateBuffer)                                                                                                    \
  X(clCreateImage2D)                                                                                                   \
  X(clCreateImage3D)                                                                                                   \
  X(clRetainMemObject)                                                                                                 \
  X(clReleaseMemObject)                                                                                                \
  X(clGetSupportedImageFormats)                                                                                        \
  X(clGetMemObjectInfo)                                                                                                \
  X(clGetImageInfo)                                                                                                    \
  X(clCreateSampler)                                                                                                   \
  X(clRetainSampler)                                                                                                   \
  X(clReleaseSampler)                                                                                                  \
  X(clGetSamplerInfo)                                                                                                  \
  X(clCreateProgramWithSource)                                                                                         \
  X(clCreateProgramWithBinary)                                                                                         \
  X(clRetainProgram)                                                                                                   \
  X(clReleaseProgram)                                                                                                  \
  X(clBuildProgram)                                                                                                    \
  X(clUnloadCompiler)                                                                                                  \
  X(clGetProgramInfo)                                                                                                  \
  X(clGetProgramBuildInfo)                                                                                             \
  X(clCreateKernel)                                                                                                    \
  X(clCreateKernelsInProgram)                                                                                          \
  X(clRetainKernel)                                                                                                    \
  X(clReleaseKernel)                                                                                                   \
  X(clSetKernelArg)                                                                                                    \
  X(clGetKernelInfo)                                                                                                   \
  X(clGetKernelWorkGroupInfo)                                                                                          \
  X(clWaitForEvents)                                                                                                   \
  X(clGetEventInfo)                                                                                                    \
  X(clRetainEvent)                                                                                                     \
  X(clReleaseEvent)                                                                                                    \
  X(clGetEventProfilingInfo)                                                                                           \
  X(clFlush)                                                                                                           \
  X(clFinish)                                                                                                          \
  X(clEnqueueReadBuffer)                                                                                               \
  X(clEnqueueWriteBuffer)                                                                                              \
  X(clEnqueueCopyBuffer)                                                                                               \
  X(clEnqueueReadImage)                                                                                                \
  X(clEnqueueWriteImage)                                                                                               \
  X(clEnqueueCopyImage)                                                                                                \
  X(clEnqueueCopyImageToBuffer)                                                                                        \
  X(clEnqueueCopyBufferToImage)                                                                                        \
  X(clEnqueueMapBuffer)                                                                                                \
  X(clEnqueueMapImage)                                                                                                 \
  X(clEnqueueUnmapMemObject)                                                                                           \
  X(clEnqueueNDRangeKernel)                                                                                            \
  X(clEnqueueTask)                                                                                                     \
  X(clEnqueueNativeKernel)                                                                                             \
  X(clEnqueueMarker)                                                                                                   \
  X(clEnqueueWaitForEvents)                                                                                            \
  X(clEnqueueBarrier)                                                                                                  \
  X(clGetExtensionFunctionAddress)                                                                                     \
  X(clSetEventCallback)                                                                                                \
  X(clCreateSubBuffer)                                                                                                 \
  X(clSetMemObjectDestructorCallback)                                                                                  \
  X(clCreateUserEvent)                                                                                                 \
  X(clSetUserEventStatus)                                                                                              \
  X(clEnqueueReadBufferRect)                                                                                           \
  X(clEnqueueWriteBufferRect)                                                                                          \
  X(clEnqueueCopyBufferRect)                                                                                           \
  X(clCreateSubDevices)                                                                                                \
  X(clRetainDevice)                                                                                                    \
  X(clReleaseDevice)                                                                                                   \
  X(clCreateImage)                                                                                                     \
  X(clCreateProgramWithBuiltInKernels)                                                                                 \
  X(clCompileProgram)                                                                                                  \
  X(clLinkProgram)                                                                                                     \
  X(clUnloadPlatformCompiler)                                                                                          \
  X(clGetKernelArgInfo)                                                                                                \
  X(clEnqueueFillBuffer)                                                                                               \
  X(clEnqueueFillImage)                                                                                                \
  X(clEnqueueMigrateMemObjects)                                                                                        \
  X(clEnqueueMarkerWithWaitList)                                                                                       \
  X(clEnqueueBarrierWithWaitList)                                                                                      \
  X(clGetExtensionFunctionAddressForPlatform)                                                                          \
  X(clCreateCommandQueueWithProperties)

namespace ptxray::opencl::api {

#define PTXRAY_DECLARE(name) std::remove_pointer_t<cl_api_##name> name;
PTXRAY_OPENCL_FUNCTIONS(PTXRAY_DECLARE)
#undef PTXRAY_DECLARE

} // namespace ptxray::opencl::api

namespace ptxray::opencl {

/// A line on stderr naming the call that failed inside ptxray (never throws).
void reportInternalError(const char *call, const char *what);
/// "CL_INVALID_VALUE" for -30.
const char *errorName(cl_int error);
/// The API trace (`ptxray exec --log-api`, PTXRAY_LOG=api): one line per call, `call` being the call
/// with its arguments (opencl/ApiTrace.h).
void logCall(std::string_view call, cl_int result);

/// Runs an API call's body under the platform's lock, so that no C++ exception reaches the program
/// (std::bad_alloc: CL_OUT_HOST_MEMORY), then the callbacks that came due. `args` (PTXRAY_CL_ARGS)
/// are the call's arguments for the trace.
template <typename F, typename... A> cl_int call(const char *name, const trace::Args<A...> &args, F &&body) {
  cl_int result = CL_SUCCESS;
  {
    Platform &p = Platform::instance();
    std::unique_lock lock(p.mutex());
    try {
      result = body(p, lock);
    } catch (const support::MemoryBudgetExceeded &e) {
      std::fprintf(stderr, "ptxray: error: %s: %s\n", name, e.what());
      result = CL_OUT_OF_HOST_MEMORY;
    } catch (const std::bad_alloc &) {
      result = CL_OUT_OF_HOST_MEMORY;
    } catch (const std::exception &e) {
      reportInternalError(name, e.what());
      result = CL_OUT_OF_RESOURCES;
    }
    if (p.config().logApi)
      logCall(trace::call(name, args, result == CL_SUCCESS), result);
  }
  Platform::runCallbacks();
  return result;
}
/// A call without arguments.
template <typename F> cl_int call(const char *name, F &&body) {
  return call(name, trace::args(""), std::forward<F>(body));
}

/// The same for a call that creates an object: `body` returns it and sets the error code.
template <typename T, typename F, typename... A>
T create(const char *name, const trace::Args<A...> &args, cl_int *errcodeRet, F &&body) {
  T object = nullptr;
  cl_int error = call(name, args, [&](Platform &p, std::unique_lock<std::mutex> &lock) {
    cl_int e = CL_SUCCESS;
    object = body(p, lock, e);
    return e;
  });
  if (error != CL_SUCCESS)
    object = nullptr;
  if (errcodeRet)
    *errcodeRet = error;
  return object;
}

/// clGetXxxInfo's answer: `bytes` of `data` into (`size`, `value`), the size needed into `sizeRet`.
cl_int infoBytes(size_t size, void *value, size_t *sizeRet, const void *data, size_t bytes);
template <typename T> cl_int info(size_t size, void *value, size_t *sizeRet, const T &data) {
  static_assert(std::is_trivially_copyable_v<T>);
  return infoBytes(size, value, sizeRet, &data, sizeof data);
}
cl_int infoString(size_t size, void *value, size_t *sizeRet, std::string_view text);

/// clRetainXxx and clReleaseXxx: `invalid` (CL_INVALID_CONTEXT, ...) unless `object` is a live object
/// of the platform.
template <typename T> cl_int retainObject(const char *name, T object, cl_int invalid) {
  return call(name, PTXRAY_CL_ARGS(object), [&](Platform &p, auto &) -> cl_int {
    if (!p.valid(object))
      return invalid;
    p.retain(object);
    return CL_SUCCESS;
  });
}
template <typename T> cl_int releaseObject(const char *name, T object, cl_int invalid) {
  return call(name, PTXRAY_CL_ARGS(object), [&](Platform &p, auto &) -> cl_int {
    if (!p.valid(object))
      return invalid;
    p.release(object);
    return CL_SUCCESS;
  });
}

// Checks and records the API files share.
constexpr cl_mem_flags kAccessFlags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
constexpr cl_mem_flags kHostAccessFlags = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
constexpr cl_mem_flags kHostPtrFlags = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
/// At most one of each group of exclusive flags, and no unknown bit.
bool validMemFlags(cl_mem_flags flags);
/// CL_INVALID_COMMAND_QUEUE, or the context's lost state after a kernel fault, or CL_SUCCESS.
cl_int checkQueue(Platform &p, cl_command_queue queue);
/// The session's record of a transfer or fill (PTXRAY_TIMELINE), once it ran; `rows` of a 2D copy
/// `hostPitch` apart.
void recordTransfer(Platform &p, cl_command_queue queue, system::OpKind kind, size_t bytes, bool pinned, bool blocking,
                    uint64_t rows = 1, uint64_t hostPitch = 0);

} // namespace ptxray::opencl
