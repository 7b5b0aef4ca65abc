// The driver's private interfaces that NVIDIA's CUDA runtime fetches with cuGetExportTable when it
// starts: tables of functions identified by UUIDs, undocumented by NVIDIA and documented by the ZLUDA
// project. The runtime statically linked into programs by nvcc's default `-cudart static` needs six
// of them before its first API call succeeds; ptxray serves what the CUDA 13 runtime uses (what each
// slot does is written beside it) and refuses the others.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace ptxray::runtime {

/// The CUresult of a runtime error (cudaError_t): the same number but where the two APIs differ
/// (invalid handle, not found, invalid value).
int driverResult(int runtimeError);

/// cuGetExportTable: 0 and the table for a known UUID, CUDA_ERROR_NOT_FOUND (500) otherwise.
int driverExportTable(const void **table, const unsigned char uuid[16]);

/// A device's primary context handle (each device has one context), and the device of a handle (-1
/// when it is none of them).
void *primaryContext(int device = 0);
int contextDevice(const void *context);

/// cuDevicePrimaryCtxReset: runs the destructors the runtime stored in the device's context-local
/// storage and forgets the entries.
void resetContextLocalStorage(int device);

/// What cuDriverGetVersion reports (the integrity check hashes it too).
inline constexpr int kDriverVersion = 13000;

/// The PCI location reported for device 0 (attributes 33, 34, 50), also hashed; device d is on bus
/// kPciBus + d.
inline constexpr int kPciDomain = 0, kPciBus = 0, kPciDevice = 0; // what cudaDeviceGetAttribute reports

/// Device 0's UUID (cuDeviceGetUuid), also hashed; deviceUuid(d) is device d's.
extern const unsigned char kDeviceUuid[16];
std::array<unsigned char, 16> deviceUuid(int device);

/// One ABI of a driver entry point, for cuGetProcAddress: its name (as the runtime asks for it), the
/// CUDA version that introduced it (the `_vNNNN` of its PFN typedef in cudaTypedefs.h), whether it is
/// the per-thread-default-stream variant (`_ptsz`, `_ptds`), and the function.
struct DriverProc {
  const char *name;
  int version;
  bool perThread;
  void *function;
};

/// The graph and stream-capture functions (src/libcuda/DriverGraphExports.cpp defines the table; until
/// it does, a weak definition in CudaDriverExports.cpp returns none). cuGetProcAddress searches ptxray's
/// own table first, then this one, then unsupportedDriverProcs().
std::span<const DriverProc> graphDriverProcs();

/// A stub for every function of CUDA's driver API (src/libcuda/driver_functions.txt, generated into
/// UnsupportedDriver.cpp): the one cuGetProcAddress returns for a function ptxray does not implement.
std::span<const DriverProc> unsupportedDriverProcs();

/// What each stub does: says once on stderr that `function` is not supported and returns
/// CUDA_ERROR_NOT_SUPPORTED.
int unsupportedDriverCall(const char *function);

} // namespace ptxray::runtime
