/* cltest.h: the helpers that the OpenCL 1.2 host programs of this folder share: result codes by name,
 * "ok"/"FAIL" checks, spec-fixed result codes, calls that must succeed, the choice of device and the last
 * line. Static functions and macros only, for C11 programs of one file each; every program includes it
 * once, beside its own helpers.
 *
 * A program defines its feature macros (_POSIX_C_SOURCE, CL_USE_DEPRECATED_OPENCL_1_x_APIS) before it
 * includes this header, which includes <CL/cl.h> (for OpenCL 1.2 unless CL_TARGET_OPENCL_VERSION says
 * otherwise), <stdarg.h>, <stdio.h> and <stdlib.h>. */
#ifndef CLTEST_H
#define CLTEST_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* The number of failed checks; finish() turns it into the exit status. */
static int failures;

/* The name of an OpenCL 1.2 result code, so that error checks print what the spec names. */
static inline const char *cl_error_name(cl_int e) {
  static char unknown[32];
  switch (e) {
    /* clang-format off */
#define NAME(x) case x: return #x;
    NAME(CL_SUCCESS) NAME(CL_DEVICE_NOT_FOUND) NAME(CL_DEVICE_NOT_AVAILABLE) NAME(CL_COMPILER_NOT_AVAILABLE)
    NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE) NAME(CL_OUT_OF_RESOURCES) NAME(CL_OUT_OF_HOST_MEMORY)
    NAME(CL_PROFILING_INFO_NOT_AVAILABLE) NAME(CL_MEM_COPY_OVERLAP) NAME(CL_IMAGE_FORMAT_MISMATCH)
    NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED) NAME(CL_BUILD_PROGRAM_FAILURE) NAME(CL_MAP_FAILURE)
    NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET) NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    NAME(CL_COMPILE_PROGRAM_FAILURE) NAME(CL_LINKER_NOT_AVAILABLE) NAME(CL_LINK_PROGRAM_FAILURE)
    NAME(CL_DEVICE_PARTITION_FAILED) NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) NAME(CL_INVALID_VALUE)
    NAME(CL_INVALID_DEVICE_TYPE) NAME(CL_INVALID_PLATFORM) NAME(CL_INVALID_DEVICE) NAME(CL_INVALID_CONTEXT)
    NAME(CL_INVALID_QUEUE_PROPERTIES) NAME(CL_INVALID_COMMAND_QUEUE) NAME(CL_INVALID_HOST_PTR)
    NAME(CL_INVALID_MEM_OBJECT) NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) NAME(CL_INVALID_IMAGE_SIZE)
    NAME(CL_INVALID_SAMPLER) NAME(CL_INVALID_BINARY) NAME(CL_INVALID_BUILD_OPTIONS) NAME(CL_INVALID_PROGRAM)
    NAME(CL_INVALID_PROGRAM_EXECUTABLE) NAME(CL_INVALID_KERNEL_NAME) NAME(CL_INVALID_KERNEL_DEFINITION)
    NAME(CL_INVALID_KERNEL) NAME(CL_INVALID_ARG_INDEX) NAME(CL_INVALID_ARG_VALUE) NAME(CL_INVALID_ARG_SIZE)
    NAME(CL_INVALID_KERNEL_ARGS) NAME(CL_INVALID_WORK_DIMENSION) NAME(CL_INVALID_WORK_GROUP_SIZE)
    NAME(CL_INVALID_WORK_ITEM_SIZE) NAME(CL_INVALID_GLOBAL_OFFSET) NAME(CL_INVALID_EVENT_WAIT_LIST)
    NAME(CL_INVALID_EVENT) NAME(CL_INVALID_OPERATION) NAME(CL_INVALID_GL_OBJECT) NAME(CL_INVALID_BUFFER_SIZE)
    NAME(CL_INVALID_MIP_LEVEL) NAME(CL_INVALID_GLOBAL_WORK_SIZE) NAME(CL_INVALID_PROPERTY)
    NAME(CL_INVALID_IMAGE_DESCRIPTOR) NAME(CL_INVALID_COMPILER_OPTIONS) NAME(CL_INVALID_LINKER_OPTIONS)
    NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef NAME
    /* clang-format on */
  }
  snprintf(unknown, sizeof unknown, "error %d", (int)e);
  return unknown;
}

/* A property that depends on the device but must hold: prints "<what>: ok", or "<what>: FAIL". */
static inline void check(int cond, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf(": %s\n", cond ? "ok" : "FAIL");
  if (!cond)
    failures++;
}

/* A result code the spec fixes: prints "<what>: <its name>", with FAIL and the expected name when it
   is another. */
static inline void expect(cl_int got, cl_int want, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  if (got == want) {
    printf(": %s\n", cl_error_name(got));
  } else {
    printf(": %s", cl_error_name(got));
    printf(" (FAIL: expected %s)\n", cl_error_name(want));
    failures++;
  }
}

/* A call the rest of the program needs: on an error it prints the call and stops (exit status 1). */
#define MUST(call) must_((call), #call, __LINE__)
static inline void must_(cl_int e, const char *call, int line) {
  if (e != CL_SUCCESS) {
    printf("line %d: %s returned %s: FAIL\n", line, call, cl_error_name(e));
    exit(1);
  }
}

/* The first GPU of any platform, or else the first device of any type (a CPU under PoCL). */
static inline void pick_device(cl_platform_id *platform, cl_device_id *device) {
  cl_platform_id platforms[16];
  cl_uint count = 0;
  /* Lines reach the pipe as they are printed, so that a crash still shows how far the program got. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  MUST(clGetPlatformIDs(16, platforms, &count));
  if (count > 16)
    count = 16;
  for (int pass = 0; pass < 2; pass++) {
    for (cl_uint i = 0; i < count; i++) {
      cl_uint n = 0;
      if (clGetDeviceIDs(platforms[i], pass == 0 ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL, 1, device, &n) ==
              CL_SUCCESS &&
          n > 0) {
        *platform = platforms[i];
        return;
      }
    }
  }
  printf("no OpenCL device: FAIL\n");
  exit(1);
}

/* The last line and the exit status: 0 when every check passed. */
static inline int finish(void) {
  printf("%s\n", failures ? "FAILED" : "all checks passed");
  return failures ? 1 : 0;
}

#endif /* CLTEST_H */
