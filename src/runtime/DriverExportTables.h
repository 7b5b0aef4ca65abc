// The driver's private interfaces that NVIDIA's CUDA runtime fetches with cuGetExportTable when it
// starts: tables of functions identified by UUIDs, undocumented by NVIDIA and documented by the ZLUDA
// project. The runtime statically linked into programs by nvcc's default `-cudart static` needs six
// of them before its first API call succeeds; ptxray serves what the CUDA 13 runtime uses (what each
// slot does is written beside it) and refuses the others.
#pragma once

#include <cstdint>

namespace ptxray::runtime {

/// cuGetExportTable: 0 and the table for a known UUID, CUDA_ERROR_NOT_FOUND (500) otherwise.
int driverExportTable(const void **table, const unsigned char uuid[16]);

/// The primary context's handle (one device, one context).
void *primaryContext();

/// cuDevicePrimaryCtxReset: runs the destructors the runtime stored in the context-local storage
/// and forgets the entries.
void resetContextLocalStorage();

/// What cuDriverGetVersion reports (the integrity check hashes it too).
inline constexpr int kDriverVersion = 13000;

/// The PCI location reported for the device (attributes 33, 34, 50), also hashed.
inline constexpr int kPciDomain = 0, kPciBus = 0, kPciDevice = 0; // what cudaDeviceGetAttribute reports

/// The device's UUID (cuDeviceGetUuid), also hashed.
extern const unsigned char kDeviceUuid[16];

} // namespace ptxray::runtime
