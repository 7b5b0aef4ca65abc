// The platform, its device, contexts, command queues and buffers (images and samplers: ApiImages.cpp).
#include "opencl/Api.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace ptxray::opencl {

void reportInternalError(const char *call, const char *what) {
  std::fprintf(stderr, "ptxray: internal error in %s: %s\n", call, what);
}

const char *errorName(cl_int error) {
  switch (error) {
  case CL_SUCCESS: return "CL_SUCCESS";
  case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
  case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
  case CL_COMPILER_NOT_AVAILABLE: return "CL_COMPILER_NOT_AVAILABLE";
  case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
  case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
  case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
  case CL_PROFILING_INFO_NOT_AVAILABLE: return "CL_PROFILING_INFO_NOT_AVAILABLE";
  case CL_MEM_COPY_OVERLAP: return "CL_MEM_COPY_OVERLAP";
  case CL_IMAGE_FORMAT_MISMATCH: return "CL_IMAGE_FORMAT_MISMATCH";
  case CL_IMAGE_FORMAT_NOT_SUPPORTED: return "CL_IMAGE_FORMAT_NOT_SUPPORTED";
  case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
  case CL_MAP_FAILURE: return "CL_MAP_FAILURE";
  case CL_MISALIGNED_SUB_BUFFER_OFFSET: return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
  case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST: return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
  case CL_COMPILE_PROGRAM_FAILURE: return "CL_COMPILE_PROGRAM_FAILURE";
  case CL_LINKER_NOT_AVAILABLE: return "CL_LINKER_NOT_AVAILABLE";
  case CL_LINK_PROGRAM_FAILURE: return "CL_LINK_PROGRAM_FAILURE";
  case CL_DEVICE_PARTITION_FAILED: return "CL_DEVICE_PARTITION_FAILED";
  case CL_KERNEL_ARG_INFO_NOT_AVAILABLE: return "CL_KERNEL_ARG_INFO_NOT_AVAILABLE";
  case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
  case CL_INVALID_DEVICE_TYPE: return "CL_INVALID_DEVICE_TYPE";
  case CL_INVALID_PLATFORM: return "CL_INVALID_PLATFORM";
  case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
  case CL_INVALID_CONTEXT: return "CL_INVALID_CONTEXT";
  case CL_INVALID_QUEUE_PROPERTIES: return "CL_INVALID_QUEUE_PROPERTIES";
  case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
  case CL_INVALID_HOST_PTR: return "CL_INVALID_HOST_PTR";
  case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
  case CL_INVALID_IMAGE_FORMAT_DESCRIPTOR: return "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR";
  case CL_INVALID_IMAGE_SIZE: return "CL_INVALID_IMAGE_SIZE";
  case CL_INVALID_SAMPLER: return "CL_INVALID_SAMPLER";
  case CL_INVALID_BINARY: return "CL_INVALID_BINARY";
  case CL_INVALID_BUILD_OPTIONS: return "CL_INVALID_BUILD_OPTIONS";
  case CL_INVALID_PROGRAM: return "CL_INVALID_PROGRAM";
  case CL_INVALID_PROGRAM_EXECUTABLE: return "CL_INVALID_PROGRAM_EXECUTABLE";
  case CL_INVALID_KERNEL_NAME: return "CL_INVALID_KERNEL_NAME";
  case CL_INVALID_KERNEL_DEFINITION: return "CL_INVALID_KERNEL_DEFINITION";
  case CL_INVALID_KERNEL: return "CL_INVALID_KERNEL";
  case CL_INVALID_ARG_INDEX: return "CL_INVALID_ARG_INDEX";
  case CL_INVALID_ARG_VALUE: return "CL_INVALID_ARG_VALUE";
  case CL_INVALID_ARG_SIZE: return "CL_INVALID_ARG_SIZE";
  case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
  case CL_INVALID_WORK_DIMENSION: return "CL_INVALID_WORK_DIMENSION";
  case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
  case CL_INVALID_WORK_ITEM_SIZE: return "CL_INVALID_WORK_ITEM_SIZE";
  case CL_INVALID_GLOBAL_OFFSET: return "CL_INVALID_GLOBAL_OFFSET";
  case CL_INVALID_EVENT_WAIT_LIST: return "CL_INVALID_EVENT_WAIT_LIST";
  case CL_INVALID_EVENT: return "CL_INVALID_EVENT";
  case CL_INVALID_OPERATION: return "CL_INVALID_OPERATION";
  case CL_INVALID_GL_OBJECT: return "CL_INVALID_GL_OBJECT";
  case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
  case CL_INVALID_MIP_LEVEL: return "CL_INVALID_MIP_LEVEL";
  case CL_INVALID_GLOBAL_WORK_SIZE: return "CL_INVALID_GLOBAL_WORK_SIZE";
  case CL_INVALID_PROPERTY: return "CL_INVALID_PROPERTY";
  case CL_INVALID_IMAGE_DESCRIPTOR: return "CL_INVALID_IMAGE_DESCRIPTOR";
  case CL_INVALID_COMPILER_OPTIONS: return "CL_INVALID_COMPILER_OPTIONS";
  case CL_INVALID_LINKER_OPTIONS: return "CL_INVALID_LINKER_OPTIONS";
  case CL_INVALID_DEVICE_PARTITION_COUNT: return "CL_INVALID_DEVICE_PARTITION_COUNT";
  case CL_PLATFORM_NOT_FOUND_KHR: return "CL_PLATFORM_NOT_FOUND_KHR";
  default: return "an unknown error";
  }
}

void logCall(std::string_view call, cl_int result) {
  std::fflush(stdout);
  std::fprintf(stderr, "ptxray: %.*s = %s\n", static_cast<int>(call.size()), call.data(), errorName(result));
}

cl_int infoBytes(size_t size, void *value, size_t *sizeRet, const void *data, size_t bytes) {
  if (value) {
    if (size < bytes)
      return CL_INVALID_VALUE;
    if (bytes)
      std::memcpy(value, data, bytes);
  }
  if (sizeRet)
    *sizeRet = bytes;
  return CL_SUCCESS;
}

cl_int infoString(size_t size, void *value, size_t *sizeRet, std::string_view text) {
  std::string s(text);
  return infoBytes(size, value, sizeRet, s.c_str(), s.size() + 1);
}

namespace {

constexpr const char *kPlatformName = "NVIDIA CUDA (ptxray)";
constexpr const char *kVendor = "NVIDIA Corporation";

std::string deviceExtensions(const arch::ComputeCapability &cc) {
  std::string s = "cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics "
                  "cl_khr_local_int32_base_atomics cl_khr_local_int32_extended_atomics "
                  "cl_khr_byte_addressable_store cl_khr_icd cl_nv_device_attribute_query cl_nv_pragma_unroll "
                  "cl_nv_compiler_options";
  if (cc.throughput.fp64AddMulFma != arch::ArithmeticThroughput::kUnsupported)
    s += " cl_khr_fp64";
  if (cc.major >= 2)
    s += " cl_khr_int64_base_atomics cl_khr_int64_extended_atomics";
  return s;
}

bool validDevice(Platform &p, cl_device_id d) {
  return d == &p.device;
}

cl_ulong globalMemoryBytes(Platform &p) {
  const arch::Gpu *board = p.target().board();
  return board && board->memoryBytes ? board->memoryBytes : cl_ulong(1) << 30;
}

/// The largest buffer: a quarter of the memory, as NVIDIA's driver allows, and at least the 128 MiB
/// OpenCL requires.
cl_ulong maxAllocationBytes(Platform &p) {
  return std::max<cl_ulong>(globalMemoryBytes(p) / 4, 128ull << 20);
}

/// A context's properties: CL_CONTEXT_PLATFORM (ours) and CL_CONTEXT_INTEROP_USER_SYNC; anything
/// else is CL_INVALID_PROPERTY.
cl_int checkContextProperties(Platform &p, const cl_context_properties *properties,
                              std::vector<cl_context_properties> &out) {
  if (!properties)
    return CL_SUCCESS;
  std::vector<cl_context_properties> seen;
  for (size_t i = 0; properties[i]; i += 2) {
    const cl_context_properties name = properties[i];
    if (std::find(seen.begin(), seen.end(), name) != seen.end())
      return CL_INVALID_PROPERTY;
    seen.push_back(name);
    if (name == CL_CONTEXT_PLATFORM) {
      if (reinterpret_cast<cl_platform_id>(properties[i + 1]) != &p.platform)
        return CL_INVALID_PLATFORM;
    } else if (name != CL_CONTEXT_INTEROP_USER_SYNC) {
      return CL_INVALID_PROPERTY;
    }
    out.push_back(name);
    out.push_back(properties[i + 1]);
  }
  out.push_back(0);
  return CL_SUCCESS;
}

cl_context newContext(Platform &p, const cl_context_properties *properties,
                      void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *), void *data,
                      cl_int &error) {
  if (!notify && data) {
    error = CL_INVALID_VALUE;
    return nullptr;
  }
  std::vector<cl_context_properties> props;
  if ((error = checkContextProperties(p, properties, props)) != CL_SUCCESS)
    return nullptr;
  auto *c = new _cl_context;
  c->properties = std::move(props);
  c->notify = notify;
  c->notifyData = data;
  p.adopt(c);
  return c;
}

cl_command_queue newQueue(Platform &p, cl_context context, cl_device_id device, cl_command_queue_properties properties,
                          cl_int &error) {
  if (!p.valid(context)) {
    error = CL_INVALID_CONTEXT;
    return nullptr;
  }
  if (!validDevice(p, device)) {
    error = CL_INVALID_DEVICE;
    return nullptr;
  }
  if (properties &
      ~static_cast<cl_command_queue_properties>(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE)) {
    error = CL_INVALID_VALUE;
    return nullptr;
  }
  auto *q = new _cl_command_queue;
  q->context = context;
  p.retain(context);
  q->properties = properties;
  p.adopt(q);
  return q;
}

} // namespace

bool validMemFlags(cl_mem_flags flags) {
  auto atMostOne = [](cl_mem_flags f) { return (f & (f - 1)) == 0; };
  if (flags & ~(kAccessFlags | kHostAccessFlags | kHostPtrFlags))
    return false;
  if (!atMostOne(flags & kAccessFlags) || !atMostOne(flags & kHostAccessFlags))
    return false;
  if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    return false;
  return true;
}

namespace api {

// ---------------------------------------------------------------------------------------------------
// Platform and device

cl_int clGetPlatformIDs(cl_uint numEntries, cl_platform_id *platforms, cl_uint *numPlatforms) {
  return call("clGetPlatformIDs", PTXRAY_CL_ARGS(numEntries, platforms, numPlatforms),
              [&](Platform &p, auto &) -> cl_int {
                if ((numEntries == 0 && platforms) || (!platforms && !numPlatforms))
                  return CL_INVALID_VALUE;
                if (platforms)
                  platforms[0] = &p.platform;
                if (numPlatforms)
                  *numPlatforms = 1;
                return CL_SUCCESS;
              });
}

cl_int clGetPlatformInfo(cl_platform_id platform, cl_platform_info name, size_t size, void *value, size_t *sizeRet) {
  return call("clGetPlatformInfo", PTXRAY_CL_ARGS(platform, name, size, value, sizeRet),
              [&](Platform &p, auto &) -> cl_int {
                if (platform && platform != &p.platform)
                  return CL_INVALID_PLATFORM;
                switch (name) {
                case CL_PLATFORM_PROFILE: return infoString(size, value, sizeRet, "FULL_PROFILE");
                case CL_PLATFORM_VERSION:
                  return infoString(size, value, sizeRet, "OpenCL 1.2 ptxray " PTXRAY_OPENCL_VERSION);
                case CL_PLATFORM_NAME: return infoString(size, value, sizeRet, kPlatformName);
                case CL_PLATFORM_VENDOR: return infoString(size, value, sizeRet, kVendor);
                case CL_PLATFORM_EXTENSIONS: return infoString(size, value, sizeRet, "cl_khr_icd");
                case CL_PLATFORM_ICD_SUFFIX_KHR: return infoString(size, value, sizeRet, "PTXRAY");
                default: return CL_INVALID_VALUE;
                }
              });
}

cl_int clGetDeviceIDs(cl_platform_id platform, cl_device_type type, cl_uint numEntries, cl_device_id *devices,
                      cl_uint *numDevices) {
  return call("clGetDeviceIDs", PTXRAY_CL_ARGS(platform, type, numEntries, devices, numDevices),
              [&](Platform &p, auto &) -> cl_int {
                if (platform && platform != &p.platform)
                  return CL_INVALID_PLATFORM;
                constexpr cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                                 CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
                if (type != CL_DEVICE_TYPE_ALL && (type & ~known))
                  return CL_INVALID_DEVICE_TYPE;
                if ((numEntries == 0 && devices) || (!devices && !numDevices))
                  return CL_INVALID_VALUE;
                const bool ours = type == CL_DEVICE_TYPE_ALL || (type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT));
                if (numDevices)
                  *numDevices = ours ? 1 : 0;
                if (!ours)
                  return CL_DEVICE_NOT_FOUND;
                if (devices)
                  devices[0] = &p.device;
                return CL_SUCCESS;
              });
}

cl_int clGetDeviceInfo(cl_device_id device, cl_device_info name, size_t size, void *value, size_t *sizeRet) {
  return call(
      "clGetDeviceInfo", PTXRAY_CL_ARGS(device, name, size, value, sizeRet), [&](Platform &p, auto &) -> cl_int {
        if (!validDevice(p, device))
          return CL_INVALID_DEVICE;
        const arch::ComputeCapability &cc = p.cc();
        const arch::Gpu *board = p.target().board();
        const bool fp64 = cc.throughput.fp64AddMulFma != arch::ArithmeticThroughput::kUnsupported;
        const cl_ulong memory = globalMemoryBytes(p);
        auto u = [&](cl_uint v) { return info(size, value, sizeRet, v); };
        auto ul = [&](cl_ulong v) { return info(size, value, sizeRet, v); };
        auto sz = [&](size_t v) { return info(size, value, sizeRet, v); };
        auto b = [&](bool v) { return info(size, value, sizeRet, static_cast<cl_bool>(v ? CL_TRUE : CL_FALSE)); };
        auto str = [&](std::string_view v) { return infoString(size, value, sizeRet, v); };
        const cl_device_fp_config fpConfig = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST |
                                             CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | CL_FP_FMA;
        switch (name) {
        case CL_DEVICE_TYPE: return info(size, value, sizeRet, static_cast<cl_device_type>(CL_DEVICE_TYPE_GPU));
        case CL_DEVICE_VENDOR_ID: return u(0x10de);
        case CL_DEVICE_MAX_COMPUTE_UNITS: return u(static_cast<cl_uint>(board ? board->smCount : 1));
        case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS: return u(3);
        case CL_DEVICE_MAX_WORK_ITEM_SIZES: {
          const size_t sizes[3] = {static_cast<size_t>(cc.maxBlockDim[0]), static_cast<size_t>(cc.maxBlockDim[1]),
                                   static_cast<size_t>(cc.maxBlockDim[2])};
          return infoBytes(size, value, sizeRet, sizes, sizeof sizes);
        }
        case CL_DEVICE_MAX_WORK_GROUP_SIZE: return sz(static_cast<size_t>(cc.maxThreadsPerBlock));
        case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
        case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
        case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
        case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
        case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
        case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR:
        case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT:
        case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
        case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
        case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT: return u(1); // scalar SIMT lanes
        case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
        case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE: return u(fp64 ? 1 : 0);
        case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
        case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF: return u(0);
        case CL_DEVICE_MAX_CLOCK_FREQUENCY: return u(static_cast<cl_uint>(board ? board->defaultClockMHz() : 1000));
        case CL_DEVICE_ADDRESS_BITS: return u(64);
        case CL_DEVICE_MAX_MEM_ALLOC_SIZE: return ul(maxAllocationBytes(p));
        case CL_DEVICE_GLOBAL_MEM_SIZE: return ul(memory);
        // Images through the texture unit, with NVIDIA's driver's limits: 256 read and 16 write images
        // per kernel, 32 samplers, 2D images of 16384 (32768 from Maxwell on) per side, 3D of 2048 (4096
        // from Kepler on), 1D buffers of 2^27 pixels and arrays of 2048 images.
        case CL_DEVICE_IMAGE_SUPPORT: return b(true);
        case CL_DEVICE_MAX_READ_IMAGE_ARGS: return u(256);
        case CL_DEVICE_MAX_WRITE_IMAGE_ARGS: return u(16);
        case CL_DEVICE_MAX_SAMPLERS: return u(32);
        case CL_DEVICE_IMAGE2D_MAX_WIDTH:
        case CL_DEVICE_IMAGE2D_MAX_HEIGHT: return sz(cc.major >= 5 ? 32768 : 16384);
        case CL_DEVICE_IMAGE3D_MAX_WIDTH:
        case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
        case CL_DEVICE_IMAGE3D_MAX_DEPTH: return sz(cc.major >= 3 ? 4096 : 2048);
        case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE: return sz(size_t{1} << 27);
        case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE: return sz(2048);
        // The kernel parameter space NVIDIA's OpenCL driver reports (4 KB of CUDA parameters plus the
        // work-item registers it keeps there).
        case CL_DEVICE_MAX_PARAMETER_SIZE: return sz(4352);
        case CL_DEVICE_MEM_BASE_ADDR_ALIGN: return u(4096); // bits: 512-byte aligned allocations and sub-buffers
        case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE: return u(128);
        case CL_DEVICE_SINGLE_FP_CONFIG:
          return info(size, value, sizeRet,
                      static_cast<cl_device_fp_config>(fpConfig | CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT));
        case CL_DEVICE_DOUBLE_FP_CONFIG:
          return info(size, value, sizeRet, static_cast<cl_device_fp_config>(fp64 ? fpConfig : 0));
        case CL_DEVICE_HALF_FP_CONFIG: return info(size, value, sizeRet, static_cast<cl_device_fp_config>(0));
        case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE:
          return info(size, value, sizeRet,
                      static_cast<cl_device_mem_cache_type>(cc.major >= 2 ? CL_READ_WRITE_CACHE : CL_NONE));
        case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE: return u(cc.major >= 2 ? 128 : 0);
        case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: return ul(board ? static_cast<cl_ulong>(board->l2CacheBytes) : 0);
        case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE: return ul(static_cast<cl_ulong>(cc.constantMemoryBytes));
        case CL_DEVICE_MAX_CONSTANT_ARGS: return u(9);
        case CL_DEVICE_LOCAL_MEM_TYPE:
          return info(size, value, sizeRet, static_cast<cl_device_local_mem_type>(CL_LOCAL));
        case CL_DEVICE_LOCAL_MEM_SIZE: return ul(static_cast<cl_ulong>(cc.sharedPerBlock));
        case CL_DEVICE_ERROR_CORRECTION_SUPPORT: return b(board && board->ecc);
        case CL_DEVICE_HOST_UNIFIED_MEMORY: return b(board && !board->pcieGeneration);
        case CL_DEVICE_PROFILING_TIMER_RESOLUTION: return sz(1000); // ns, as NVIDIA's driver reports
        case CL_DEVICE_ENDIAN_LITTLE:
        case CL_DEVICE_AVAILABLE: return b(true);
        case CL_DEVICE_COMPILER_AVAILABLE:
        case CL_DEVICE_LINKER_AVAILABLE: return b(toolchain::openclUnavailableReason().empty());
        case CL_DEVICE_EXECUTION_CAPABILITIES:
          return info(size, value, sizeRet, static_cast<cl_device_exec_capabilities>(CL_EXEC_KERNEL));
        case CL_DEVICE_QUEUE_PROPERTIES:
          return info(size, value, sizeRet,
                      static_cast<cl_command_queue_properties>(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                                               CL_QUEUE_PROFILING_ENABLE));
        case CL_DEVICE_PLATFORM: return info(size, value, sizeRet, static_cast<cl_platform_id>(&p.platform));
        case CL_DEVICE_NAME: return str(board && p.target().gpu ? board->name : p.target().displayName());
        case CL_DEVICE_VENDOR: return str(kVendor);
        case CL_DRIVER_VERSION: return str(PTXRAY_OPENCL_VERSION);
        case CL_DEVICE_PROFILE: return str("FULL_PROFILE");
        case CL_DEVICE_VERSION: return str("OpenCL 1.2 CUDA");
        case CL_DEVICE_OPENCL_C_VERSION: return str("OpenCL C 1.2 ");
        case CL_DEVICE_EXTENSIONS: return str(deviceExtensions(cc));
        case CL_DEVICE_PRINTF_BUFFER_SIZE: return sz(1 << 20); // CUDA's default printf FIFO
        case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC: return b(false);
        case CL_DEVICE_PARENT_DEVICE: return info(size, value, sizeRet, static_cast<cl_device_id>(nullptr));
        case CL_DEVICE_PARTITION_MAX_SUB_DEVICES: return u(0);
        case CL_DEVICE_PARTITION_PROPERTIES:
        case CL_DEVICE_PARTITION_TYPE: {
          const cl_device_partition_property none = 0;
          return info(size, value, sizeRet, none);
        }
        case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
          return info(size, value, sizeRet, static_cast<cl_device_affinity_domain>(0));
        case CL_DEVICE_REFERENCE_COUNT: return u(1);
        case CL_DEVICE_BUILT_IN_KERNELS: return str("");
        // cl_nv_device_attribute_query, which the guide's programs read.
        case CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV: return u(static_cast<cl_uint>(cc.major));
        case CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV: return u(static_cast<cl_uint>(cc.minor));
        case CL_DEVICE_REGISTERS_PER_BLOCK_NV: return u(static_cast<cl_uint>(cc.maxRegistersPerBlock));
        case CL_DEVICE_WARP_SIZE_NV: return u(static_cast<cl_uint>(cc.warpSize));
        case CL_DEVICE_GPU_OVERLAP_NV: return b(!board || board->copyEngines > 0);
        case CL_DEVICE_KERNEL_EXEC_TIMEOUT_NV: return b(false);
        case CL_DEVICE_INTEGRATED_MEMORY_NV: return b(board && !board->pcieGeneration);
        // The later cl_nv_device_attribute_query values clinfo and others read: copy engines, and the
        // device's PCI location (one virtual device: bus 0, slot 0, domain 0).
        case 0x4007: return u(static_cast<cl_uint>(board ? board->copyEngines : 1)); // ASYNC_ENGINE_COUNT_NV
        case 0x4008:                                                                 // PCI_BUS_ID_NV
        case 0x4009:                                                                 // PCI_SLOT_ID_NV
        case 0x400A: return u(0);                                                    // PCI_DOMAIN_ID_NV
        default: return CL_INVALID_VALUE;
        }
      });
}

cl_int clCreateSubDevices(cl_device_id device, const cl_device_partition_property *, cl_uint, cl_device_id *,
                          cl_uint *) {
  return call("clCreateSubDevices", PTXRAY_CL_ARGS(device), [&](Platform &p, auto &) -> cl_int {
    // CL_DEVICE_PARTITION_MAX_SUB_DEVICES is 0: a GPU is not partitioned.
    return validDevice(p, device) ? CL_INVALID_VALUE : CL_INVALID_DEVICE;
  });
}

cl_int clRetainDevice(cl_device_id device) {
  return call("clRetainDevice", PTXRAY_CL_ARGS(device),
              [&](Platform &p, auto &) -> cl_int { return validDevice(p, device) ? CL_SUCCESS : CL_INVALID_DEVICE; });
}

cl_int clReleaseDevice(cl_device_id device) {
  return call("clReleaseDevice", PTXRAY_CL_ARGS(device),
              [&](Platform &p, auto &) -> cl_int { return validDevice(p, device) ? CL_SUCCESS : CL_INVALID_DEVICE; });
}

// ---------------------------------------------------------------------------------------------------
// Contexts

cl_context clCreateContext(const cl_context_properties *properties, cl_uint numDevices, const cl_device_id *devices,
                           void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *), void *data,
                           cl_int *errcodeRet) {
  return create<cl_context>("clCreateContext",
                            PTXRAY_CL_ARGS(properties, numDevices, devices, notify, data, errcodeRet), errcodeRet,
                            [&](Platform &p, auto &, cl_int &e) -> cl_context {
                              if (numDevices == 0 || !devices) {
                                e = CL_INVALID_VALUE;
                                return nullptr;
                              }
                              for (cl_uint i = 0; i < numDevices; ++i)
                                if (!validDevice(p, devices[i])) {
                                  e = CL_INVALID_DEVICE;
                                  return nullptr;
                                }
                              return newContext(p, properties, notify, data, e);
                            });
}

cl_context clCreateContextFromType(const cl_context_properties *properties, cl_device_type type,
                                   void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *), void *data,
                                   cl_int *errcodeRet) {
  return create<cl_context>(
      "clCreateContextFromType", PTXRAY_CL_ARGS(properties, type, notify, data, errcodeRet), errcodeRet,
      [&](Platform &p, auto &, cl_int &e) -> cl_context {
        constexpr cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                         CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
        if (type != CL_DEVICE_TYPE_ALL && (type & ~known)) {
          e = CL_INVALID_DEVICE_TYPE;
          return nullptr;
        }
        if (type != CL_DEVICE_TYPE_ALL && !(type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT))) {
          e = CL_DEVICE_NOT_FOUND;
          return nullptr;
        }
        return newContext(p, properties, notify, data, e);
      });
}

cl_int clRetainContext(cl_context context) {
  return retainObject("clRetainContext", context, CL_INVALID_CONTEXT);
}

cl_int clReleaseContext(cl_context context) {
  return releaseObject("clReleaseContext", context, CL_INVALID_CONTEXT);
}

cl_int clGetContextInfo(cl_context context, cl_context_info name, size_t size, void *value, size_t *sizeRet) {
  return call("clGetContextInfo", PTXRAY_CL_ARGS(context, name, size, value, sizeRet),
              [&](Platform &p, auto &) -> cl_int {
                if (!p.valid(context))
                  return CL_INVALID_CONTEXT;
                switch (name) {
                case CL_CONTEXT_REFERENCE_COUNT: return info(size, value, sizeRet, context->refs);
                case CL_CONTEXT_NUM_DEVICES: return info(size, value, sizeRet, cl_uint{1});
                case CL_CONTEXT_DEVICES: return info(size, value, sizeRet, static_cast<cl_device_id>(&p.device));
                case CL_CONTEXT_PROPERTIES:
                  return infoBytes(size, value, sizeRet, context->properties.data(),
                                   context->properties.size() * sizeof(cl_context_properties));
                default: return CL_INVALID_VALUE;
                }
              });
}

// ---------------------------------------------------------------------------------------------------
// Command queues

cl_command_queue clCreateCommandQueue(cl_context context, cl_device_id device, cl_command_queue_properties properties,
                                      cl_int *errcodeRet) {
  return create<cl_command_queue>(
      "clCreateCommandQueue", PTXRAY_CL_ARGS(context, device, properties, errcodeRet), errcodeRet,
      [&](Platform &p, auto &, cl_int &e) { return newQueue(p, context, device, properties, e); });
}

cl_command_queue clCreateCommandQueueWithProperties(cl_context context, cl_device_id device,
                                                    const cl_queue_properties *properties, cl_int *errcodeRet) {
  return create<cl_command_queue>(
      "clCreateCommandQueueWithProperties", PTXRAY_CL_ARGS(context, device, properties, errcodeRet), errcodeRet,
      [&](Platform &p, auto &, cl_int &e) -> cl_command_queue {
        cl_command_queue_properties flags = 0;
        for (size_t i = 0; properties && properties[i]; i += 2) {
          if (properties[i] != CL_QUEUE_PROPERTIES) {
            e = CL_INVALID_VALUE; // CL_QUEUE_SIZE and the rest belong to on-device queues (2.0)
            return nullptr;
          }
          flags = properties[i + 1];
        }
        return newQueue(p, context, device, flags, e);
      });
}

cl_int clRetainCommandQueue(cl_command_queue queue) {
  return retainObject("clRetainCommandQueue", queue, CL_INVALID_COMMAND_QUEUE);
}

cl_int clReleaseCommandQueue(cl_command_queue queue) {
  return call("clReleaseCommandQueue", PTXRAY_CL_ARGS(queue), [&](Platform &p, auto &lock) -> cl_int {
    if (!p.valid(queue))
      return CL_INVALID_COMMAND_QUEUE;
    if (queue->refs == 1)
      p.finish(lock, queue); // the specification's implicit clFlush; its commands still run
    p.release(queue);
    return CL_SUCCESS;
  });
}

cl_int clGetCommandQueueInfo(cl_command_queue queue, cl_command_queue_info name, size_t size, void *value,
                             size_t *sizeRet) {
  return call("clGetCommandQueueInfo", PTXRAY_CL_ARGS(queue, name, size, value, sizeRet),
              [&](Platform &p, auto &) -> cl_int {
                if (!p.valid(queue))
                  return CL_INVALID_COMMAND_QUEUE;
                switch (name) {
                case CL_QUEUE_CONTEXT: return info(size, value, sizeRet, queue->context);
                case CL_QUEUE_DEVICE: return info(size, value, sizeRet, static_cast<cl_device_id>(&p.device));
                case CL_QUEUE_REFERENCE_COUNT: return info(size, value, sizeRet, queue->refs);
                case CL_QUEUE_PROPERTIES: return info(size, value, sizeRet, queue->properties);
                default: return CL_INVALID_VALUE;
                }
              });
}

cl_int clSetCommandQueueProperty(cl_command_queue queue, cl_command_queue_properties properties, cl_bool enable,
                                 cl_command_queue_properties *old) {
  return call("clSetCommandQueueProperty", PTXRAY_CL_ARGS(queue, properties, enable, old),
              [&](Platform &p, auto &lock) -> cl_int {
                if (!p.valid(queue))
                  return CL_INVALID_COMMAND_QUEUE;
                if (properties & ~static_cast<cl_command_queue_properties>(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                                                           CL_QUEUE_PROFILING_ENABLE))
                  return CL_INVALID_VALUE;
                if (old)
                  *old = queue->properties;
                p.finish(lock, queue);
                queue->properties = enable ? queue->properties | properties : queue->properties & ~properties;
                return CL_SUCCESS;
              });
}

// ---------------------------------------------------------------------------------------------------
// Memory objects

cl_mem clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void *hostPtr, cl_int *errcodeRet) {
  return create<cl_mem>("clCreateBuffer", PTXRAY_CL_ARGS(context, flags, size, hostPtr, errcodeRet), errcodeRet,
                        [&](Platform &p, auto &, cl_int &e) -> cl_mem {
                          if (!p.valid(context)) {
                            e = CL_INVALID_CONTEXT;
                            return nullptr;
                          }
                          if (flags == 0)
                            flags = CL_MEM_READ_WRITE;
                          if (!validMemFlags(flags)) {
                            e = CL_INVALID_VALUE;
                            return nullptr;
                          }
                          if (size == 0 || size > maxAllocationBytes(p)) {
                            e = CL_INVALID_BUFFER_SIZE;
                            return nullptr;
                          }
                          const bool needsHostPtr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
                          if (needsHostPtr != (hostPtr != nullptr)) {
                            e = CL_INVALID_HOST_PTR;
                            return nullptr;
                          }
                          auto *m = new _cl_mem;
                          m->context = context;
                          m->flags = flags;
                          m->size = size;
                          if (flags & CL_MEM_USE_HOST_PTR)
                            m->hostPtr = hostPtr;
                          if (!p.allocate(m, hostPtr)) {
                            delete m;
                            e = CL_MEM_OBJECT_ALLOCATION_FAILURE;
                            return nullptr;
                          }
                          p.retain(context);
                          p.adopt(m);
                          return m;
                        });
}

cl_mem clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type type, const void *createInfo,
                         cl_int *errcodeRet) {
  return create<cl_mem>(
      "clCreateSubBuffer", PTXRAY_CL_ARGS(buffer, flags, type, createInfo, errcodeRet), errcodeRet,
      [&](Platform &p, auto &, cl_int &e) -> cl_mem {
        if (!p.valid(buffer) || buffer->parent) {
          e = CL_INVALID_MEM_OBJECT;
          return nullptr;
        }
        if (type != CL_BUFFER_CREATE_TYPE_REGION || !createInfo || (flags & kHostPtrFlags) || !validMemFlags(flags)) {
          e = CL_INVALID_VALUE;
          return nullptr;
        }
        // Access the parent forbids may not be asked for.
        if (((buffer->flags & CL_MEM_WRITE_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))) ||
            ((buffer->flags & CL_MEM_READ_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))) ||
            ((buffer->flags & CL_MEM_HOST_WRITE_ONLY) && (flags & CL_MEM_HOST_READ_ONLY)) ||
            ((buffer->flags & CL_MEM_HOST_READ_ONLY) && (flags & CL_MEM_HOST_WRITE_ONLY)) ||
            ((buffer->flags & CL_MEM_HOST_NO_ACCESS) && (flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY)))) {
          e = CL_INVALID_VALUE;
          return nullptr;
        }
        const auto *region = static_cast<const cl_buffer_region *>(createInfo);
        if (region->size == 0) {
          e = CL_INVALID_BUFFER_SIZE;
          return nullptr;
        }
        if (region->origin > buffer->size || region->size > buffer->size - region->origin) {
          e = CL_INVALID_VALUE;
          return nullptr;
        }
        if (region->origin % 512) { // CL_DEVICE_MEM_BASE_ADDR_ALIGN, in bytes
          e = CL_MISALIGNED_SUB_BUFFER_OFFSET;
          return nullptr;
        }
        auto *m = new _cl_mem;
        m->context = buffer->context;
        p.retain(m->context);
        // Unspecified access and host flags are the parent's, as is the host pointer flag.
        cl_mem_flags inherited = buffer->flags & kHostPtrFlags;
        inherited |= (flags & kAccessFlags) ? (flags & kAccessFlags) : (buffer->flags & kAccessFlags);
        inherited |= (flags & kHostAccessFlags) ? (flags & kHostAccessFlags) : (buffer->flags & kHostAccessFlags);
        m->flags = inherited;
        m->size = region->size;
        m->origin = region->origin;
        m->address = buffer->address + region->origin;
        m->parent = buffer;
        if (buffer->hostPtr)
          m->hostPtr = static_cast<std::byte *>(buffer->hostPtr) + region->origin;
        p.retain(buffer);
        p.adopt(m);
        return m;
      });
}

cl_int clRetainMemObject(cl_mem memobj) {
  return retainObject("clRetainMemObject", memobj, CL_INVALID_MEM_OBJECT);
}

cl_int clReleaseMemObject(cl_mem memobj) {
  return releaseObject("clReleaseMemObject", memobj, CL_INVALID_MEM_OBJECT);
}

cl_int clSetMemObjectDestructorCallback(cl_mem memobj, void(CL_CALLBACK *notify)(cl_mem, void *), void *data) {
  return call("clSetMemObjectDestructorCallback", PTXRAY_CL_ARGS(memobj, notify, data),
              [&](Platform &p, auto &) -> cl_int {
                if (!p.valid(memobj))
                  return CL_INVALID_MEM_OBJECT;
                if (!notify)
                  return CL_INVALID_VALUE;
                memobj->destructors.emplace_back(notify, data);
                return CL_SUCCESS;
              });
}

cl_int clGetMemObjectInfo(cl_mem memobj, cl_mem_info name, size_t size, void *value, size_t *sizeRet) {
  return call("clGetMemObjectInfo", PTXRAY_CL_ARGS(memobj, name, size, value, sizeRet),
              [&](Platform &p, auto &) -> cl_int {
                if (!p.valid(memobj))
                  return CL_INVALID_MEM_OBJECT;
                switch (name) {
                case CL_MEM_TYPE: return info(size, value, sizeRet, memobj->type);
                case CL_MEM_FLAGS: return info(size, value, sizeRet, memobj->flags);
                case CL_MEM_SIZE: return info(size, value, sizeRet, memobj->size);
                case CL_MEM_HOST_PTR: return info(size, value, sizeRet, memobj->hostPtr);
                case CL_MEM_MAP_COUNT: return info(size, value, sizeRet, memobj->mapCount);
                case CL_MEM_REFERENCE_COUNT: return info(size, value, sizeRet, memobj->refs);
                case CL_MEM_CONTEXT: return info(size, value, sizeRet, memobj->context);
                case CL_MEM_ASSOCIATED_MEMOBJECT: return info(size, value, sizeRet, memobj->parent);
                case CL_MEM_OFFSET: return info(size, value, sizeRet, memobj->origin);
                default: return CL_INVALID_VALUE;
                }
              });
}

} // namespace api
} // namespace ptxray::opencl
