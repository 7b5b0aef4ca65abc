// The driver's private interfaces that NVIDIA's CUDA runtime fetches with cuGetExportTable when it
// starts: tables of functions identified by UUIDs, undocumented by NVIDIA and documented by the ZLUDA
// project. The runtime statically linked into programs by nvcc's default `-cudart static` needs six
// of them before its first API call succeeds; ptxray serves what the CUDA 13 runtime uses (what each
// slot does is written beside it) and refuses the others.
#pragma once

#include <array>
#include <cstdint>

namespace ptxray::runtime {

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

} // namespace ptxray::runtime
