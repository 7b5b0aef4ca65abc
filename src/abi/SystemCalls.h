// The system calls of ptx-interoperability.md §3 (vprintf, malloc, free, __assertfail) as data, for the
// ABI checker and the VM to compare against, and the vprintf argument buffer layout.
#pragma once

#include "abi/CType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::abi {

/// OpenCLPrintf: OpenCL C's printf as clang compiles it for NVIDIA's OpenCL target, a variadic call
/// to `printf` (the format, then each argument a parameter of its own), which NVIDIA's OpenCL driver
/// provides (findDriverFunction; not one of the interoperability guide's system calls).
///
/// The device runtime (dynamic parallelism, CDP2: cuda_device_runtime_api.h): what nvcc 13 emits for
/// `kernel<<<g, b, s, stream>>>(...)` in device code, a parameter buffer for the child grid
/// (DeviceGetParameterBuffer) filled by the parent and launched (DeviceLaunch), and the calling
/// thread's error state (DeviceGetLastError, DevicePeekAtLastError), streams created in device code
/// (DeviceStreamCreate, DeviceStreamDestroy). DeviceRuntimeUnsupported: the
/// rest of the device runtime's functions, which ptxray does not implement yet (a located fault
/// says which).
enum class SystemCallId {
  Vprintf,
  Malloc,
  Free,
  AssertFail,
  OpenCLPrintf,
  DeviceGetParameterBuffer,
  DeviceLaunch,
  DeviceGetLastError,
  DevicePeekAtLastError,
  DeviceStreamCreate,
  DeviceStreamDestroy,
  DeviceMalloc, ///< cudaMalloc in device code: the device heap
  DeviceFree,   ///< cudaFree in device code
  /// cudaGetDevice, cudaGetDeviceCount, cudaRuntimeGetVersion, cudaDeviceGetCacheConfig,
  /// cudaDeviceGetSharedMemConfig: an int through a pointer
  DeviceQuery,
  DeviceEventCreate,       ///< cudaEventCreateWithFlags in device code: a handle
  DeviceEventNoOp,         ///< cudaEventRecord(WithFlags), cudaEventDestroy, cudaStreamWaitEvent in device code
  DeviceErrorText,         ///< cudaGetErrorName, cudaGetErrorString: a string in device memory
  DeviceGetAttribute,      ///< cudaDeviceGetAttribute
  DeviceGetLimit,          ///< cudaDeviceGetLimit
  DeviceFuncGetAttributes, ///< cudaFuncGetAttributes
  DeviceOccupancy,         ///< cudaOccupancyMaxActiveBlocksPerMultiprocessor(WithFlags)
  /// cudaMemcpyAsync, cudaMemcpy2DAsync, cudaMemcpy3DAsync, cudaMemsetAsync, cudaMemset2DAsync,
  /// cudaMemset3DAsync in device code: copies into the stream, run in order with its grids
  DeviceMemcpyAsync,
  DeviceMemcpy2DAsync,
  DeviceMemcpy3DAsync,
  DeviceMemsetAsync,
  DeviceMemset2DAsync,
  DeviceMemset3DAsync,
  DeviceRuntimeUnsupported
};

struct SysParam {
  std::string name;    ///< the guide's name ("format", "valist", "status"...)
  std::string ptxType; ///< ".b32", ".b64", ".s32"
};

struct SystemCall {
  SystemCallId id = SystemCallId::Vprintf;
  std::string name;               ///< "vprintf", "malloc", "free", "__assertfail"
  std::optional<SysParam> result; ///< free and __assertfail return nothing
  std::vector<SysParam> params;
  /// ".extern .func (.param .s32 status) vprintf (.param .b64 format, .param .b64 valist);"
  std::string prototype() const;
};

/// The four prototypes for `.address_size` 32 or 64 (pointers and size_t follow the address size).
std::vector<SystemCall> systemCalls(unsigned addressSize);
/// One of them by PTX name, or nullopt when `name` is not a system call.
std::optional<SystemCall> findSystemCall(std::string_view name, unsigned addressSize);
/// The functions the driver provides without a definition: the system calls, OpenCL C's printf, and the
/// device runtime's (its CDP2 names, `__cudaCDP2...`, and the CDP2 launch ABI's cudaGetParameterBufferV2
/// and cudaLaunchDeviceV2).
std::optional<SystemCall> findDriverFunction(std::string_view name, unsigned addressSize);

struct VprintfArgument {
  TypeRef type;             ///< as passed (after default argument promotions when requested)
  std::uint64_t offset = 0; ///< byte offset in the buffer
  std::uint64_t size = 0;
};

struct VprintfBuffer {
  std::vector<VprintfArgument> arguments;
  std::uint64_t size = 0; ///< bytes used (end of the last argument)
  unsigned align = 1;     ///< the buffer's alignment: its most strictly aligned argument (at least 1)
};

/// Lays out the arguments following the format string in vprintf's argument buffer: each argument at
/// the next offset aligned to its size (§3). With `promote`, C's default argument promotions apply first
/// (float → double; _Bool, char, short → int; unsigned char/short → int), as printf's arguments get them.
/// Only scalars, enums, pointers and handles can be printf arguments; others (and .f16 without
/// promotion, long double) throw AbiError.
VprintfBuffer vprintfBuffer(const std::vector<TypeRef> &arguments, unsigned addressSize = 64, bool promote = true);

} // namespace ptxray::abi
