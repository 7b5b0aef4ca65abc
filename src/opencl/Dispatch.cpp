// The ICD protocol: the loader finds clIcdGetPlatformIDsKHR through clGetExtensionFunctionAddress
// (the library exports those two, clGetExtensionFunctionAddressForPlatform and clGetPlatformInfo),
// then reaches every other function through the dispatch table at the start of each object. Slots of functions ptxray
// does not implement (OpenCL 2.x SVM and pipes, graphics interop) hold a stub that says which slot
// was called and returns CL_INVALID_OPERATION.
#include "opencl/Api.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <utility>

namespace ptxray::opencl {
namespace {

constexpr size_t kSlots = sizeof(cl_icd_dispatch) / sizeof(void *);

void reportUnimplemented(size_t slot) {
  static std::mutex mutex;
  static std::set<size_t> reported;
  std::lock_guard lock(mutex);
  if (reported.insert(slot).second) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "ptxray: the program called an OpenCL function ptxray's platform does not implement (dispatch "
                 "slot %zu: OpenCL 2.x or graphics interoperability); it returns CL_INVALID_OPERATION\n",
                 slot);
  }
}

// Called through a pointer of another type: on x86-64 and AArch64 the caller's arguments are simply
// not read, and the int result is what an OpenCL function returns (a null object for a creator).
template <size_t Slot> intptr_t unimplemented() {
  reportUnimplemented(Slot);
  return CL_INVALID_OPERATION;
}

template <size_t... Slots> void fillStubs(void **table, std::index_sequence<Slots...>) {
  ((table[Slots] = reinterpret_cast<void *>(&unimplemented<Slots>)), ...);
}

cl_icd_dispatch makeTable() {
  cl_icd_dispatch table;
  fillStubs(reinterpret_cast<void **>(&table), std::make_index_sequence<kSlots>());
#define PTXRAY_SLOT(name) table.name = &api::name;
  PTXRAY_OPENCL_FUNCTIONS(PTXRAY_SLOT)
#undef PTXRAY_SLOT
  return table;
}

} // namespace

cl_icd_dispatch *dispatchTable() {
  static cl_icd_dispatch table = makeTable();
  return &table;
}

namespace api {

void *clGetExtensionFunctionAddress(const char *name);

void *clGetExtensionFunctionAddressForPlatform(cl_platform_id platform, const char *name) {
  if (platform != &Platform::instance().platform)
    return nullptr;
  return clGetExtensionFunctionAddress(name);
}

} // namespace api
} // namespace ptxray::opencl

extern "C" {

__attribute__((visibility("default"))) cl_int clIcdGetPlatformIDsKHR(cl_uint numEntries, cl_platform_id *platforms,
                                                                     cl_uint *numPlatforms) {
  return ptxray::opencl::api::clGetPlatformIDs(numEntries, platforms, numPlatforms);
}

// ocl-icd looks this one up by name too, to check the platform's "cl_khr_icd" before it trusts the
// dispatch table. The program's own calls still go to the loader, which was loaded first.
__attribute__((visibility("default"))) cl_int clGetPlatformInfo(cl_platform_id platform, cl_platform_info name,
                                                                size_t size, void *value, size_t *sizeRet) {
  return ptxray::opencl::api::clGetPlatformInfo(platform, name, size, value, sizeRet);
}

__attribute__((visibility("default"))) void *clGetExtensionFunctionAddress(const char *name) {
  return ptxray::opencl::api::clGetExtensionFunctionAddress(name);
}

__attribute__((visibility("default"))) void *clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                                                      const char *name) {
  return ptxray::opencl::api::clGetExtensionFunctionAddressForPlatform(platform, name);
}

} // extern "C"

namespace ptxray::opencl::api {

void *clGetExtensionFunctionAddress(const char *name) {
  if (!name)
    return nullptr;
  if (std::strcmp(name, "clIcdGetPlatformIDsKHR") == 0)
    return reinterpret_cast<void *>(&::clIcdGetPlatformIDsKHR);
  return nullptr;
}

} // namespace ptxray::opencl::api
