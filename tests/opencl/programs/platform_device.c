/* platform_device.c: the platform and device queries of OpenCL 1.2 (spec sections 4.1 and 4.2).
 *
 * Prints only what the spec fixes (result codes, strings it mandates) and "ok"/"FAIL" lines for
 * properties that depend on the device but must hold on any conforming one, so that the output is the
 * same under every implementation. Exit status 0 when every check passes, 1 otherwise.
 *
 * Note: ocl-icd (the loader) answers some calls itself: clGetPlatformIDs, and calls on NULL objects.
 * Those checks test the loader more than the driver; they stay because a program sees them. */
#include "cltest.h"
#include <stdint.h>
#include <string.h>

static cl_device_id device;

/* A query of a fixed-size value: the call must succeed, and the size it reports must be the size of the
   type the spec's table 4.3 gives the parameter. */
static int size_failures;
static void query(cl_device_info param, const char *name, void *value, size_t size) {
  size_t got = 0;
  cl_int e = clGetDeviceInfo(device, param, size, value, &got);
  if (e != CL_SUCCESS || got != size) {
    printf("  %s: %s, size %zu for %zu\n", name, cl_error_name(e), got, size);
    size_failures++;
  }
}
#define Q(param, var) query(param, #param, &(var), sizeof(var))

/* A string query: the reported size counts the terminating NUL (table 4.3: "char[]"). */
static char *query_string(cl_device_info param, const char *name) {
  size_t size = 0;
  cl_int e = clGetDeviceInfo(device, param, 0, NULL, &size);
  char *s = calloc(size + 1, 1);
  if (e == CL_SUCCESS)
    e = clGetDeviceInfo(device, param, size, s, NULL);
  if (e != CL_SUCCESS || size == 0 || strlen(s) + 1 != size) {
    printf("  %s: %s, size %zu, length %zu\n", name, cl_error_name(e), size, strlen(s));
    size_failures++;
  }
  return s;
}
#define QS(param) query_string(param, #param)

/* Whether a space-separated extension list names ext exactly. */
static int has_word(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
      return 1;
  return 0;
}

/* "OpenCL <major>.<minor>..." (sections 4.1 and 4.2 fix this prefix): major*10+minor, or -1. */
static int parse_version(const char *s, const char *prefix) {
  int major, minor;
  size_t n = strlen(prefix);
  if (strncmp(s, prefix, n) != 0 || sscanf(s + n, "%d.%d", &major, &minor) != 2)
    return -1;
  return major * 10 + minor;
}

int main(void) {
  cl_platform_id platform;
  pick_device(&platform, &device);

  /* ---- Platforms (4.1) ---- */
  cl_uint num_platforms = 0;
  MUST(clGetPlatformIDs(0, NULL, &num_platforms));
  check(num_platforms >= 1, "clGetPlatformIDs finds a platform");
  /* "CL_INVALID_VALUE if num_entries is equal to zero and platforms is not NULL, or if both
     num_platforms and platforms are NULL." */
  cl_platform_id dummy_platform;
  expect(clGetPlatformIDs(0, &dummy_platform, NULL), CL_INVALID_VALUE, "clGetPlatformIDs(0 entries, array)");
  expect(clGetPlatformIDs(1, NULL, NULL), CL_INVALID_VALUE, "clGetPlatformIDs(NULL, NULL)");

  char buf[4096];
  MUST(clGetPlatformInfo(platform, CL_PLATFORM_PROFILE, sizeof buf, buf, NULL));
  /* A full-profile platform: the one programs written for the desktop expect. */
  printf("CL_PLATFORM_PROFILE: %s\n", buf);
  if (strcmp(buf, "FULL_PROFILE") != 0)
    failures++;
  MUST(clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof buf, buf, NULL));
  check(parse_version(buf, "OpenCL ") >= 12, "CL_PLATFORM_VERSION is \"OpenCL <major.minor> ...\", at least 1.2");
  MUST(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof buf, buf, NULL));
  check(buf[0] != '\0', "CL_PLATFORM_NAME is not empty");
  MUST(clGetPlatformInfo(platform, CL_PLATFORM_VENDOR, sizeof buf, buf, NULL));
  check(buf[0] != '\0', "CL_PLATFORM_VENDOR is not empty");
  /* An installable client driver must name cl_khr_icd (the ICD extension's specification). */
  MUST(clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS, sizeof buf, buf, NULL));
  check(has_word(buf, "cl_khr_icd"), "CL_PLATFORM_EXTENSIONS names cl_khr_icd");
  size_t size = 0;
  MUST(clGetPlatformInfo(platform, CL_PLATFORM_PROFILE, 0, NULL, &size));
  check(size == strlen("FULL_PROFILE") + 1, "CL_PLATFORM_PROFILE size counts the NUL");
  /* Table 4.1's errors: an unknown name, or a buffer smaller than the value. */
  expect(clGetPlatformInfo(platform, 0x7fff, sizeof buf, buf, NULL), CL_INVALID_VALUE,
         "clGetPlatformInfo(unknown param)");
  expect(clGetPlatformInfo(platform, CL_PLATFORM_PROFILE, 4, buf, NULL), CL_INVALID_VALUE,
         "clGetPlatformInfo(PROFILE, 4-byte buffer)");
  /* 5.6.1: clUnloadPlatformCompiler is a hint and succeeds; a later build must still work
     (kernels_ndrange.c builds after it). */
  expect(clUnloadPlatformCompiler(platform), CL_SUCCESS, "clUnloadPlatformCompiler");
  /* 9.2: an unknown function name gives NULL. */
  check(clGetExtensionFunctionAddressForPlatform(platform, "clNoSuchFunctionPTXRAY") == NULL,
        "clGetExtensionFunctionAddressForPlatform(unknown) is NULL");

  /* ---- Devices (4.2) ---- */
  cl_uint num_all = 0;
  MUST(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &num_all));
  check(num_all >= 1, "clGetDeviceIDs(CL_DEVICE_TYPE_ALL) finds a device");
  cl_device_id all[64];
  if (num_all > 64)
    num_all = 64;
  MUST(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, num_all, all, NULL));
  /* Each single type gives exactly the devices of CL_DEVICE_TYPE_ALL that have it, and
     CL_DEVICE_NOT_FOUND where there are none ("CL_DEVICE_NOT_FOUND if no OpenCL devices that matched
     device_type were found"). */
  const cl_device_type types[] = {CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR,
                                  CL_DEVICE_TYPE_CUSTOM};
  int consistent = 1, empty_types = 0;
  for (int t = 0; t < 4; t++) {
    cl_uint expected = 0, n = 0;
    for (cl_uint i = 0; i < num_all; i++) {
      cl_device_type type;
      MUST(clGetDeviceInfo(all[i], CL_DEVICE_TYPE, sizeof type, &type, NULL));
      if (type & types[t])
        expected++;
    }
    cl_int e = clGetDeviceIDs(platform, types[t], 0, NULL, &n);
    if (expected == 0) {
      empty_types++;
      if (e != CL_DEVICE_NOT_FOUND)
        consistent = 0;
    } else if (e != CL_SUCCESS || n != expected) {
      consistent = 0;
    }
  }
  check(consistent, "clGetDeviceIDs per type agrees with CL_DEVICE_TYPE_ALL (CL_DEVICE_NOT_FOUND when none)");
  check(empty_types >= 1, "some device type has no device (CL_DEVICE_NOT_FOUND was exercised)");
  cl_uint n_default = 0;
  expect(clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 0, NULL, &n_default), CL_SUCCESS,
         "clGetDeviceIDs(CL_DEVICE_TYPE_DEFAULT)");
  check(n_default >= 1, "CL_DEVICE_TYPE_DEFAULT finds a device");
  /* The spec asks for CL_INVALID_DEVICE_TYPE ("if device_type is not a valid value"); PoCL and Oclgrind
     answer CL_DEVICE_NOT_FOUND. Either way no device may come back. */
  cl_int e = clGetDeviceIDs(platform, (cl_device_type)1 << 40, 0, NULL, &n_default);
  check(e == CL_INVALID_DEVICE_TYPE || e == CL_DEVICE_NOT_FOUND,
        "clGetDeviceIDs(unknown type bit) is CL_INVALID_DEVICE_TYPE or CL_DEVICE_NOT_FOUND");
  cl_device_id dummy_device;
  expect(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, &dummy_device, NULL), CL_INVALID_VALUE,
         "clGetDeviceIDs(0 entries, array)");
  expect(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, NULL, NULL), CL_INVALID_VALUE, "clGetDeviceIDs(NULL, NULL)");

  /* Every parameter of table 4.3 answers with the size of its type. */
  cl_device_type type;
  cl_uint vendor_id, compute_units, dims, pref[7], native[7], clock, address_bits, read_images, write_images, samplers,
      base_align, min_align, cacheline, constant_args, max_sub, ref_count;
  size_t wg_size, item_sizes[3], img2d_w, img2d_h, img3d_w, img3d_h, img3d_d, img_buf, img_array, param_size, timer_res,
      printf_size;
  cl_ulong max_alloc, cache_size, global_mem, const_size, local_size;
  cl_bool image_support, ecc, unified, little, available, compiler, linker, interop;
  cl_device_fp_config single_fp, double_fp;
  cl_device_mem_cache_type cache_type;
  cl_device_local_mem_type local_type;
  cl_device_exec_capabilities exec_caps;
  cl_command_queue_properties queue_props;
  cl_platform_id dev_platform;
  cl_device_id parent;
  cl_device_affinity_domain affinity;
  Q(CL_DEVICE_TYPE, type);
  Q(CL_DEVICE_VENDOR_ID, vendor_id);
  Q(CL_DEVICE_MAX_COMPUTE_UNITS, compute_units);
  Q(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, dims);
  Q(CL_DEVICE_MAX_WORK_GROUP_SIZE, wg_size);
  Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, pref[0]);
  Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, pref[1]);
  Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, pref[2]);
  Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, pref[3]);
  Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, pref[4]);
  Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, pref[5]);
  Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, pref[6]);
  Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, native[0]);
  Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, native[1]);
  Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, native[2]);
  Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, native[3]);
  Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, native[4]);
  Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, native[5]);
  Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, native[6]);
  Q(CL_DEVICE_MAX_CLOCK_FREQUENCY, clock);
  Q(CL_DEVICE_ADDRESS_BITS, address_bits);
  Q(CL_DEVICE_MAX_READ_IMAGE_ARGS, read_images);
  Q(CL_DEVICE_MAX_WRITE_IMAGE_ARGS, write_images);
  Q(CL_DEVICE_MAX_MEM_ALLOC_SIZE, max_alloc);
  Q(CL_DEVICE_IMAGE2D_MAX_WIDTH, img2d_w);
  Q(CL_DEVICE_IMAGE2D_MAX_HEIGHT, img2d_h);
  Q(CL_DEVICE_IMAGE3D_MAX_WIDTH, img3d_w);
  Q(CL_DEVICE_IMAGE3D_MAX_HEIGHT, img3d_h);
  Q(CL_DEVICE_IMAGE3D_MAX_DEPTH, img3d_d);
  Q(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, img_buf);
  Q(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, img_array);
  Q(CL_DEVICE_IMAGE_SUPPORT, image_support);
  Q(CL_DEVICE_MAX_PARAMETER_SIZE, param_size);
  Q(CL_DEVICE_MAX_SAMPLERS, samplers);
  Q(CL_DEVICE_MEM_BASE_ADDR_ALIGN, base_align);
  Q(CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, min_align);
  Q(CL_DEVICE_SINGLE_FP_CONFIG, single_fp);
  Q(CL_DEVICE_DOUBLE_FP_CONFIG, double_fp);
  Q(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, cache_type);
  Q(CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, cacheline);
  Q(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, cache_size);
  Q(CL_DEVICE_GLOBAL_MEM_SIZE, global_mem);
  Q(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, const_size);
  Q(CL_DEVICE_MAX_CONSTANT_ARGS, constant_args);
  Q(CL_DEVICE_LOCAL_MEM_TYPE, local_type);
  Q(CL_DEVICE_LOCAL_MEM_SIZE, local_size);
  Q(CL_DEVICE_ERROR_CORRECTION_SUPPORT, ecc);
  Q(CL_DEVICE_HOST_UNIFIED_MEMORY, unified);
  Q(CL_DEVICE_PROFILING_TIMER_RESOLUTION, timer_res);
  Q(CL_DEVICE_ENDIAN_LITTLE, little);
  Q(CL_DEVICE_AVAILABLE, available);
  Q(CL_DEVICE_COMPILER_AVAILABLE, compiler);
  Q(CL_DEVICE_LINKER_AVAILABLE, linker);
  Q(CL_DEVICE_EXECUTION_CAPABILITIES, exec_caps);
  Q(CL_DEVICE_QUEUE_PROPERTIES, queue_props);
  Q(CL_DEVICE_PLATFORM, dev_platform);
  Q(CL_DEVICE_PRINTF_BUFFER_SIZE, printf_size);
  Q(CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, interop);
  Q(CL_DEVICE_PARENT_DEVICE, parent);
  Q(CL_DEVICE_PARTITION_MAX_SUB_DEVICES, max_sub);
  Q(CL_DEVICE_PARTITION_AFFINITY_DOMAIN, affinity);
  Q(CL_DEVICE_REFERENCE_COUNT, ref_count);
  (void)vendor_id, (void)clock, (void)min_align, (void)cacheline, (void)cache_size, (void)ecc, (void)unified,
      (void)interop, (void)affinity, (void)native;
  char *name = QS(CL_DEVICE_NAME);
  char *vendor = QS(CL_DEVICE_VENDOR);
  char *driver = QS(CL_DRIVER_VERSION);
  char *profile = QS(CL_DEVICE_PROFILE);
  char *version = QS(CL_DEVICE_VERSION);
  char *c_version = QS(CL_DEVICE_OPENCL_C_VERSION);
  char *extensions = QS(CL_DEVICE_EXTENSIONS);
  char *builtins = QS(CL_DEVICE_BUILT_IN_KERNELS);
  (void)builtins;
  /* Variable-size answers: MAX_WORK_ITEM_SIZES has one size_t per dimension; PARTITION_PROPERTIES is a
     list of at least one entry (0 when the device cannot be partitioned). */
  size_t items_bytes = 0, part_bytes = 0;
  MUST(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, 0, NULL, &items_bytes));
  MUST(clGetDeviceInfo(device, CL_DEVICE_PARTITION_PROPERTIES, 0, NULL, &part_bytes));
  if (items_bytes != dims * sizeof(size_t) || part_bytes < sizeof(cl_device_partition_property) ||
      part_bytes % sizeof(cl_device_partition_property) != 0) {
    printf("  variable-size queries: %zu bytes of item sizes, %zu of partition properties\n", items_bytes, part_bytes);
    size_failures++;
  }
  MUST(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof item_sizes, item_sizes, NULL));
  check(size_failures == 0, "every table 4.3 query succeeds with the size of its type");

  /* The values: table 4.3's minimums and the relations between them. */
  /* One of the four types, with or without the DEFAULT bit. */
  cl_device_type bare = type & ~(cl_device_type)CL_DEVICE_TYPE_DEFAULT;
  check(bare == CL_DEVICE_TYPE_CPU || bare == CL_DEVICE_TYPE_GPU || bare == CL_DEVICE_TYPE_ACCELERATOR ||
            bare == CL_DEVICE_TYPE_CUSTOM,
        "CL_DEVICE_TYPE is CPU, GPU, ACCELERATOR or CUSTOM");
  /* Table 4.3's minimums below are for devices other than CL_DEVICE_TYPE_CUSTOM. */
  int custom = bare == CL_DEVICE_TYPE_CUSTOM;
  check(compute_units >= 1, "CL_DEVICE_MAX_COMPUTE_UNITS >= 1");
  check(dims >= 3, "CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS >= 3");
  check(wg_size >= 1, "CL_DEVICE_MAX_WORK_GROUP_SIZE >= 1");
  /* Not a spec minimum, but a work-item size beyond the group size could never be used. */
  check(item_sizes[0] >= 1 && item_sizes[1] >= 1 && item_sizes[2] >= 1 && item_sizes[0] <= wg_size &&
            item_sizes[1] <= wg_size && item_sizes[2] <= wg_size,
        "1 <= CL_DEVICE_MAX_WORK_ITEM_SIZES[i] <= CL_DEVICE_MAX_WORK_GROUP_SIZE");
  check(pref[0] >= 1 && pref[1] >= 1 && pref[2] >= 1 && pref[3] >= 1 && pref[4] >= 1,
        "CL_DEVICE_PREFERRED_VECTOR_WIDTH of char, short, int, long, float >= 1");
  /* "If double precision is not supported, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE must return 0";
     with cl_khr_fp64, CL_DEVICE_DOUBLE_FP_CONFIG has at least FMA, the three directed roundings, round
     to nearest, INF/NaN and denormals. The same for half and cl_khr_fp16. */
  const cl_device_fp_config min_double =
      CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM;
  if (has_word(extensions, "cl_khr_fp64"))
    check(pref[5] >= 1 && native[5] >= 1 && (double_fp & min_double) == min_double,
          "double widths and CL_DEVICE_DOUBLE_FP_CONFIG agree with cl_khr_fp64");
  else
    check(pref[5] == 0 && native[5] == 0 && double_fp == 0,
          "double widths and CL_DEVICE_DOUBLE_FP_CONFIG agree with cl_khr_fp64");
  check(has_word(extensions, "cl_khr_fp16") || (pref[6] == 0 && native[6] == 0), "half widths agree with cl_khr_fp16");
  /* "The minimum floating-point capability for single precision: CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN". */
  check((single_fp & (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN)) == (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN),
        "CL_DEVICE_SINGLE_FP_CONFIG has round to nearest and INF/NaN");
  check(address_bits == 32 || address_bits == 64, "CL_DEVICE_ADDRESS_BITS is 32 or 64");
  check(global_mem >= max_alloc, "CL_DEVICE_GLOBAL_MEM_SIZE >= CL_DEVICE_MAX_MEM_ALLOC_SIZE");
  /* "Min. value is max(1/4th of CL_DEVICE_GLOBAL_MEM_SIZE, 128*1024*1024)" (not for custom devices). */
  check(custom || (max_alloc >= global_mem / 4 && max_alloc >= 128u * 1024 * 1024),
        "CL_DEVICE_MAX_MEM_ALLOC_SIZE >= max(global/4, 128 MiB)");
  check(custom || param_size >= 1024, "CL_DEVICE_MAX_PARAMETER_SIZE >= 1024");
  /* The size in bits of the largest built-in type, long16 in the full profile: 1024. */
  check((custom || base_align >= 1024) && (base_align & (base_align - 1)) == 0,
        "CL_DEVICE_MEM_BASE_ADDR_ALIGN >= 1024 bits and a power of two");
  check(cache_type == CL_NONE || cache_type == CL_READ_ONLY_CACHE || cache_type == CL_READ_WRITE_CACHE,
        "CL_DEVICE_GLOBAL_MEM_CACHE_TYPE is NONE, READ_ONLY or READ_WRITE");
  check(custom || const_size >= 64 * 1024, "CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE >= 64 KiB");
  check(custom || constant_args >= 8, "CL_DEVICE_MAX_CONSTANT_ARGS >= 8");
  check(local_type == CL_LOCAL || local_type == CL_GLOBAL, "CL_DEVICE_LOCAL_MEM_TYPE is LOCAL or GLOBAL");
  check(custom || local_size >= 32 * 1024, "CL_DEVICE_LOCAL_MEM_SIZE >= 32 KiB");
  check(timer_res >= 1, "CL_DEVICE_PROFILING_TIMER_RESOLUTION >= 1");
  check(little == CL_TRUE || little == CL_FALSE, "CL_DEVICE_ENDIAN_LITTLE is a cl_bool");
  check(available == CL_TRUE, "CL_DEVICE_AVAILABLE");
  /* "This can be CL_FALSE only if the profile is EMBEDDED_PROFILE." */
  check(compiler == CL_TRUE && linker == CL_TRUE, "CL_DEVICE_COMPILER_AVAILABLE and LINKER_AVAILABLE");
  check((exec_caps & CL_EXEC_KERNEL) != 0, "CL_DEVICE_EXECUTION_CAPABILITIES has CL_EXEC_KERNEL");
  /* "The mandated minimum capability is CL_QUEUE_PROFILING_ENABLE." */
  check((queue_props & CL_QUEUE_PROFILING_ENABLE) != 0, "CL_DEVICE_QUEUE_PROPERTIES has PROFILING_ENABLE");
  check((queue_props &
         ~(cl_command_queue_properties)(CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) == 0,
        "CL_DEVICE_QUEUE_PROPERTIES has no unknown bit");
  check(dev_platform == platform, "CL_DEVICE_PLATFORM is the platform");
  check(printf_size >= 1024 * 1024, "CL_DEVICE_PRINTF_BUFFER_SIZE >= 1 MiB");
  check(parent == NULL, "CL_DEVICE_PARENT_DEVICE of a root device is NULL");
  /* clRetainDevice/clReleaseDevice: "If device is a root level device, the reference count remains 1". */
  check(ref_count == 1, "CL_DEVICE_REFERENCE_COUNT of a root device is 1");
  expect(clRetainDevice(device), CL_SUCCESS, "clRetainDevice(root device)");
  expect(clReleaseDevice(device), CL_SUCCESS, "clReleaseDevice(root device)");
  MUST(clGetDeviceInfo(device, CL_DEVICE_REFERENCE_COUNT, sizeof ref_count, &ref_count, NULL));
  check(ref_count == 1, "CL_DEVICE_REFERENCE_COUNT of a root device stays 1");
  /* "The value returned cannot exceed CL_DEVICE_MAX_COMPUTE_UNITS." */
  check(max_sub <= compute_units, "CL_DEVICE_PARTITION_MAX_SUB_DEVICES <= CL_DEVICE_MAX_COMPUTE_UNITS");
  if (image_support)
    check(read_images >= 128 && write_images >= 8 && img2d_w >= 8192 && img2d_h >= 8192 && img3d_w >= 2048 &&
              img3d_h >= 2048 && img3d_d >= 2048 && img_buf >= 65536 && img_array >= 2048 && samplers >= 16,
          "image limits meet table 4.3's minimums (or no image support)");
  else
    check(1, "image limits meet table 4.3's minimums (or no image support)");
  check(name[0] != '\0' && vendor[0] != '\0' && driver[0] != '\0', "CL_DEVICE_NAME, VENDOR, DRIVER_VERSION not empty");
  printf("CL_DEVICE_PROFILE: %s\n", profile);
  if (strcmp(profile, "FULL_PROFILE") != 0)
    failures++;
  check(parse_version(version, "OpenCL ") >= 12, "CL_DEVICE_VERSION is \"OpenCL <major.minor> ...\", at least 1.2");
  check(parse_version(c_version, "OpenCL C ") >= 12,
        "CL_DEVICE_OPENCL_C_VERSION is \"OpenCL C <major.minor> ...\", at least 1.2");
  /* Table 4.3, CL_DEVICE_EXTENSIONS: "The following approved Khronos extension names must be returned by
     all devices that support OpenCL C 1.2": the 32-bit global and local atomics and byte-addressable
     stores (and cl_khr_fp64 where doubles are supported, checked above). */
  check(has_word(extensions, "cl_khr_global_int32_base_atomics") &&
            has_word(extensions, "cl_khr_global_int32_extended_atomics") &&
            has_word(extensions, "cl_khr_local_int32_base_atomics") &&
            has_word(extensions, "cl_khr_local_int32_extended_atomics") &&
            has_word(extensions, "cl_khr_byte_addressable_store"),
        "CL_DEVICE_EXTENSIONS names the 32-bit atomics and byte-addressable stores");

  /* Table 4.3's errors. */
  cl_uint u;
  expect(clGetDeviceInfo(device, 0x7fff, sizeof u, &u, NULL), CL_INVALID_VALUE, "clGetDeviceInfo(unknown param)");
  expect(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, 1, &u, NULL), CL_INVALID_VALUE,
         "clGetDeviceInfo(MAX_COMPUTE_UNITS, 1-byte buffer)");
  expect(clGetDeviceInfo(device, CL_DEVICE_NAME, 1, buf, NULL), CL_INVALID_VALUE,
         "clGetDeviceInfo(NAME, 1-byte buffer)");
  expect(clGetDeviceInfo(NULL, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof u, &u, NULL), CL_INVALID_DEVICE,
         "clGetDeviceInfo(NULL device)");
  /* A NULL value with a size: only the size is written. */
  size = 0;
  expect(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, 0, NULL, &size), CL_SUCCESS,
         "clGetDeviceInfo(NULL value, size only)");
  check(size == sizeof(cl_uint), "size-only query gives sizeof(cl_uint)");

  /* 4.3: partitioning. Where the device lists no partition type, clCreateSubDevices refuses
     (CL_INVALID_VALUE: "values specified in properties are valid but not supported by the device");
     where it lists CL_DEVICE_PARTITION_EQUALLY, sub-devices of one compute unit each have this device as
     their parent. */
  cl_device_partition_property parts[8] = {0};
  MUST(clGetDeviceInfo(device, CL_DEVICE_PARTITION_PROPERTIES, sizeof parts, parts, NULL));
  int equally = 0;
  for (int i = 0; i < 8 && parts[i] != 0; i++)
    equally |= parts[i] == CL_DEVICE_PARTITION_EQUALLY;
  cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
  cl_uint num_sub = 0;
  e = clCreateSubDevices(device, props, 0, NULL, &num_sub);
  if (!equally) {
    check(e == CL_INVALID_VALUE, "clCreateSubDevices agrees with CL_DEVICE_PARTITION_PROPERTIES");
  } else {
    int good = e == CL_SUCCESS && num_sub >= 1;
    cl_device_id subs[64];
    if (good && num_sub <= 64 && clCreateSubDevices(device, props, num_sub, subs, NULL) == CL_SUCCESS) {
      for (cl_uint i = 0; i < num_sub; i++) {
        cl_device_id p = NULL;
        cl_uint cu = 0;
        clGetDeviceInfo(subs[i], CL_DEVICE_PARENT_DEVICE, sizeof p, &p, NULL);
        clGetDeviceInfo(subs[i], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
        good = good && p == device && cu == 1;
        clReleaseDevice(subs[i]);
      }
    } else {
      good = 0;
    }
    check(good, "clCreateSubDevices agrees with CL_DEVICE_PARTITION_PROPERTIES");
  }

  free(name), free(vendor), free(driver), free(profile), free(version), free(c_version), free(extensions),
      free(builtins);
  return finish();
}
