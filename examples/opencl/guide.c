// The host program NVIDIA's OpenCL Best Practices Guide would have shipped with its kernels: it runs
// the guide's coalescing experiments (copy.cl: offsetCopy, strideCopy, section 3.2.1) and its
// shared-memory matrix multiplies (multiply.cl: C = AB, section 3.2.2.2; aat.cl: C = AA^T, 3.2.2.3)
// on the first GPU (else the first device of any kind) and prints what the guide measures:
//
//   - kernel time from OpenCL events on a queue with CL_QUEUE_PROFILING_ENABLE (section 2.1.2),
//   - effective bandwidth, the bytes the algorithm reads and writes over that time (section 2.2.2),
//     in GB/s of 10^9 bytes, and GFLOP/s for the multiplies,
//   - host-to-device bandwidth of uploads staged through CL_MEM_ALLOC_HOST_PTR ("pinned") buffers
//     (section 3.1.1): map the pinned buffer, fill it, clEnqueueWriteBuffer from the mapped pointer.
//
// Every result is checked against a CPU reference. Inputs are deterministic (an LCG).
//
//   opencl_guide [--dir DIR] [--kernels copy,multiply,aat] [--size small|guide] [--repeat N]
//
// Build: gcc -std=c11 -Wall -Wextra -DCL_TARGET_OPENCL_VERSION=120 guide.c -lOpenCL
// (or the opencl_guide target of examples/opencl/Guide.cmake).
#define _POSIX_C_SOURCE 200809L

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TILE_DIM 16 // multiply.cl and aat.cl: one TILE_DIM x TILE_DIM work-group per tile of C
#define COPY_GROUP 256 // copy.cl: work-group size of the copies (a multiple of the half warp, 16)

// ---------------------------------------------------------------------------------------------
// Error handling: every cl* call goes through CL_CHECK (calls that return cl_int) or CL_CREATE
// (calls that return an object and report through their errcode_ret, which must be &cl_err).

static const char *cl_error_name(cl_int err) {
  switch (err) {
#define NAME(e) case e: return #e
    NAME(CL_SUCCESS); NAME(CL_DEVICE_NOT_FOUND); NAME(CL_DEVICE_NOT_AVAILABLE);
    NAME(CL_COMPILER_NOT_AVAILABLE); NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE); NAME(CL_OUT_OF_RESOURCES);
    NAME(CL_OUT_OF_HOST_MEMORY); NAME(CL_PROFILING_INFO_NOT_AVAILABLE); NAME(CL_MEM_COPY_OVERLAP);
    NAME(CL_IMAGE_FORMAT_MISMATCH); NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED); NAME(CL_BUILD_PROGRAM_FAILURE);
    NAME(CL_MAP_FAILURE); NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET);
    NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST); NAME(CL_COMPILE_PROGRAM_FAILURE);
    NAME(CL_LINKER_NOT_AVAILABLE); NAME(CL_LINK_PROGRAM_FAILURE); NAME(CL_DEVICE_PARTITION_FAILED);
    NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE); NAME(CL_INVALID_VALUE); NAME(CL_INVALID_DEVICE_TYPE);
    NAME(CL_INVALID_PLATFORM); NAME(CL_INVALID_DEVICE); NAME(CL_INVALID_CONTEXT);
    NAME(CL_INVALID_QUEUE_PROPERTIES); NAME(CL_INVALID_COMMAND_QUEUE); NAME(CL_INVALID_HOST_PTR);
    NAME(CL_INVALID_MEM_OBJECT); NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR); NAME(CL_INVALID_IMAGE_SIZE);
    NAME(CL_INVALID_SAMPLER); NAME(CL_INVALID_BINARY); NAME(CL_INVALID_BUILD_OPTIONS);
    NAME(CL_INVALID_PROGRAM); NAME(CL_INVALID_PROGRAM_EXECUTABLE); NAME(CL_INVALID_KERNEL_NAME);
    NAME(CL_INVALID_KERNEL_DEFINITION); NAME(CL_INVALID_KERNEL); NAME(CL_INVALID_ARG_INDEX);
    NAME(CL_INVALID_ARG_VALUE); NAME(CL_INVALID_ARG_SIZE); NAME(CL_INVALID_KERNEL_ARGS);
    NAME(CL_INVALID_WORK_DIMENSION); NAME(CL_INVALID_WORK_GROUP_SIZE); NAME(CL_INVALID_WORK_ITEM_SIZE);
    NAME(CL_INVALID_GLOBAL_OFFSET); NAME(CL_INVALID_EVENT_WAIT_LIST); NAME(CL_INVALID_EVENT);
    NAME(CL_INVALID_OPERATION); NAME(CL_INVALID_GL_OBJECT); NAME(CL_INVALID_BUFFER_SIZE);
    NAME(CL_INVALID_MIP_LEVEL); NAME(CL_INVALID_GLOBAL_WORK_SIZE); NAME(CL_INVALID_PROPERTY);
    NAME(CL_INVALID_IMAGE_DESCRIPTOR); NAME(CL_INVALID_COMPILER_OPTIONS); NAME(CL_INVALID_LINKER_OPTIONS);
    NAME(CL_INVALID_DEVICE_PARTITION_COUNT);
#undef NAME
  case -1001: return "CL_PLATFORM_NOT_FOUND_KHR"; // the ICD loader found no platform
  default: return "unknown OpenCL error";
  }
}

static void cl_fail(const char *call, const char *file, int line, cl_int err) {
  fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", file, line, call, cl_error_name(err), (int)err);
  exit(1);
}

#define CL_CHECK(call)                                                                               \
  do {                                                                                               \
    cl_int check_err_ = (call);                                                                      \
    if (check_err_ != CL_SUCCESS)                                                                    \
      cl_fail(#call, __FILE__, __LINE__, check_err_);                                                \
  } while (0)

static cl_int cl_err; // the errcode_ret of the object-creating call CL_CREATE wraps

static void *cl_created(void *object, const char *call, const char *file, int line) {
  if (cl_err != CL_SUCCESS)
    cl_fail(call, file, line, cl_err);
  if (object == NULL)
    cl_fail(call, file, line, CL_INVALID_VALUE); // a broken driver: success without an object
  return object;
}
#define CL_CREATE(call) (cl_err = CL_SUCCESS, cl_created((void *)(call), #call, __FILE__, __LINE__))

static void *xmalloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

// ---------------------------------------------------------------------------------------------
// The device, its queue, pinned staging buffers and timed transfers and launches.

typedef struct {
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue; // in order, CL_QUEUE_PROFILING_ENABLE
  double h2dBytes, h2dSeconds, d2hBytes, d2hSeconds; // every timed transfer, for the summary
} Env;

// The first GPU of any platform, else the first device of any kind of the first platform with one.
static void pick_device(Env *env) {
  cl_uint platformCount = 0;
  CL_CHECK(clGetPlatformIDs(0, NULL, &platformCount));
  if (platformCount == 0) {
    fprintf(stderr, "no OpenCL platform found (is an ICD installed, or OCL_ICD_VENDORS set?)\n");
    exit(1);
  }
  cl_platform_id *platforms = xmalloc(platformCount * sizeof *platforms);
  CL_CHECK(clGetPlatformIDs(platformCount, platforms, NULL));
  bool found = false;
  for (int pass = 0; pass < 2 && !found; ++pass) {
    cl_device_type type = pass == 0 ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL;
    for (cl_uint p = 0; p < platformCount && !found; ++p) {
      cl_uint count = 0;
      cl_int err = clGetDeviceIDs(platforms[p], type, 1, &env->device, &count);
      if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && count == 0))
        continue;
      CL_CHECK(err);
      env->platform = platforms[p];
      found = true;
    }
  }
  free(platforms);
  if (!found) {
    fprintf(stderr, "no OpenCL device found\n");
    exit(1);
  }
}

static char *device_string(cl_device_id device, cl_device_info what) {
  size_t size = 0;
  CL_CHECK(clGetDeviceInfo(device, what, 0, NULL, &size));
  char *s = xmalloc(size + 1);
  CL_CHECK(clGetDeviceInfo(device, what, size, s, NULL));
  s[size] = '\0';
  return s;
}

static char *platform_string(cl_platform_id platform, cl_platform_info what) {
  size_t size = 0;
  CL_CHECK(clGetPlatformInfo(platform, what, 0, NULL, &size));
  char *s = xmalloc(size + 1);
  CL_CHECK(clGetPlatformInfo(platform, what, size, s, NULL));
  s[size] = '\0';
  return s;
}

static const char *device_type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

static void open_device(Env *env) {
  pick_device(env);
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env->platform, 0};
  env->context = CL_CREATE(clCreateContext(props, 1, &env->device, NULL, NULL, &cl_err));
  // Section 2.1.2: the profiling flag makes every command's event carry its start and end times.
  env->queue = CL_CREATE(clCreateCommandQueue(env->context, env->device, CL_QUEUE_PROFILING_ENABLE, &cl_err));

  char *platformName = platform_string(env->platform, CL_PLATFORM_NAME);
  char *deviceName = device_string(env->device, CL_DEVICE_NAME);
  char *version = device_string(env->device, CL_DEVICE_VERSION);
  cl_device_type type = 0;
  size_t resolution = 0;
  cl_uint units = 0;
  CL_CHECK(clGetDeviceInfo(env->device, CL_DEVICE_TYPE, sizeof type, &type, NULL));
  CL_CHECK(clGetDeviceInfo(env->device, CL_DEVICE_PROFILING_TIMER_RESOLUTION, sizeof resolution, &resolution, NULL));
  CL_CHECK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL));
  printf("device: %s (%s, %s, %u compute units; platform %s)\n", deviceName, device_type_name(type), version,
         units, platformName);
  printf("timer: OpenCL events on a profiling queue, resolution %zu ns\n", resolution);
  free(platformName);
  free(deviceName);
  free(version);
}

static void close_device(Env *env) {
  CL_CHECK(clFinish(env->queue));
  CL_CHECK(clReleaseCommandQueue(env->queue));
  CL_CHECK(clReleaseContext(env->context));
}

// Seconds between an event's CL_PROFILING_COMMAND_START and _END; releases the event.
static double event_seconds(cl_event event) {
  cl_ulong start = 0, end = 0;
  CL_CHECK(clWaitForEvents(1, &event));
  CL_CHECK(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL));
  CL_CHECK(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL));
  CL_CHECK(clReleaseEvent(event));
  return end > start ? (double)(end - start) * 1e-9 : 0.0;
}

// A host buffer the driver is likely to pin (section 3.1.1: CL_MEM_ALLOC_HOST_PTR), mapped for its
// whole life: the program fills it through `data` and transfers to and from device buffers with it.
typedef struct {
  cl_mem mem;
  void *data;
  size_t bytes;
} Pinned;

static Pinned pinned_alloc(Env *env, size_t bytes) {
  Pinned p = {NULL, NULL, bytes};
  p.mem = CL_CREATE(clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &cl_err));
  p.data = CL_CREATE(clEnqueueMapBuffer(env->queue, p.mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL,
                                        NULL, &cl_err));
  return p;
}

static void pinned_free(Env *env, Pinned *p) {
  CL_CHECK(clEnqueueUnmapMemObject(env->queue, p->mem, p->data, 0, NULL, NULL));
  CL_CHECK(clFinish(env->queue));
  CL_CHECK(clReleaseMemObject(p->mem));
  p->mem = NULL;
  p->data = NULL;
}

static cl_mem device_buffer(Env *env, cl_mem_flags flags, size_t bytes) {
  return CL_CREATE(clCreateBuffer(env->context, flags, bytes, NULL, &cl_err));
}

static double gbps(double bytes, double seconds) { return seconds > 0 ? bytes / seconds * 1e-9 : 0.0; }

// A rate (GB/s, GFLOP/s) for the tables: fixed decimals when large, significant digits when an
// interpreter makes it tiny, "-" when the time was below the timer's resolution. One static buffer
// per call site's slot: `slot` 0..3.
static const char *rate(double value, int slot) {
  static char text[4][32];
  if (value <= 0)
    snprintf(text[slot], sizeof text[slot], "-");
  else if (value >= 1)
    snprintf(text[slot], sizeof text[slot], "%.3f", value);
  else
    snprintf(text[slot], sizeof text[slot], "%.3g", value);
  return text[slot];
}

// Host to device from the mapped pinned buffer, timed by its event; prints the transfer's bandwidth.
static void upload(Env *env, cl_mem dst, const Pinned *src, size_t bytes, const char *what) {
  cl_event event;
  CL_CHECK(clEnqueueWriteBuffer(env->queue, dst, CL_FALSE, 0, bytes, src->data, 0, NULL, &event));
  double s = event_seconds(event);
  env->h2dBytes += (double)bytes;
  env->h2dSeconds += s;
  printf("upload %-6s %10zu bytes host->device (pinned) in %10.3f us = %s GB/s\n", what, bytes, s * 1e6,
         rate(gbps((double)bytes, s), 0));
}

// Device to host into the mapped pinned buffer (a blocking read, section 3.1.1 step 7), timed.
static void download(Env *env, cl_mem src, Pinned *dst, size_t bytes) {
  cl_event event;
  CL_CHECK(clEnqueueReadBuffer(env->queue, src, CL_TRUE, 0, bytes, dst->data, 0, NULL, &event));
  env->d2hBytes += (double)bytes;
  env->d2hSeconds += event_seconds(event);
}

// Every word of `buffer` set to the pattern, so that a word a kernel fails to write shows.
static const uint32_t kSentinel = 0xffffffffu; // a NaN: never equal to a result
static void poison(Env *env, cl_mem buffer, size_t bytes) {
  CL_CHECK(clEnqueueFillBuffer(env->queue, buffer, &kSentinel, sizeof kSentinel, 0, bytes, 0, NULL, NULL));
}

// `repeat` launches, each timed by its event; the mean kernel time in seconds.
static double launch(Env *env, cl_kernel kernel, cl_uint dims, const size_t *global, const size_t *local, int repeat) {
  double total = 0;
  for (int r = 0; r < repeat; ++r) {
    cl_event event;
    CL_CHECK(clEnqueueNDRangeKernel(env->queue, kernel, dims, NULL, global, local, 0, NULL, &event));
    total += event_seconds(event);
  }
  return total / repeat;
}

// ---------------------------------------------------------------------------------------------
// Programs: the .cl files, built for the device; a failed build prints its log.

static char *read_file(const char *path, size_t *length) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s (use --dir DIR to say where the .cl files are)\n", path);
    exit(1);
  }
  size_t capacity = 4096, n = 0;
  char *text = xmalloc(capacity);
  for (size_t got; (got = fread(text + n, 1, capacity - n, f)) > 0;) {
    n += got;
    if (n == capacity) {
      capacity *= 2;
      char *bigger = realloc(text, capacity);
      if (!bigger) {
        fprintf(stderr, "out of host memory reading %s\n", path);
        exit(1);
      }
      text = bigger;
    }
  }
  if (ferror(f)) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  text[n] = '\0';
  *length = n;
  return text;
}

static char *join_path(const char *dir, const char *file) {
  size_t n = strlen(dir) + strlen(file) + 2;
  char *path = xmalloc(n);
  snprintf(path, n, "%s/%s", dir, file);
  return path;
}

static void print_build_log(Env *env, cl_program program, const char *path) {
  size_t size = 0;
  CL_CHECK(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size));
  char *log = xmalloc(size + 1);
  CL_CHECK(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, size, log, NULL));
  log[size] = '\0';
  fprintf(stderr, "build log of %s:\n%s\n", path, log);
  free(log);
}

static cl_program build_program(Env *env, const char *dir, const char *file) {
  char *path = join_path(dir, file);
  size_t length = 0;
  char *source = read_file(path, &length);
  const char *sources[] = {source};
  cl_program program = CL_CREATE(clCreateProgramWithSource(env->context, 1, sources, &length, &cl_err));
  cl_int err = clBuildProgram(program, 1, &env->device, "", NULL, NULL);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "%s:%d: clBuildProgram of %s failed: %s (%d)\n", __FILE__, __LINE__, path, cl_error_name(err),
            (int)err);
    if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS)
      print_build_log(env, program, path);
    exit(1);
  }
  free(source);
  free(path);
  return program;
}

static cl_kernel create_kernel(Env *env, cl_program program, const char *name, size_t groupSize) {
  cl_kernel kernel = CL_CREATE(clCreateKernel(program, name, &cl_err));
  size_t most = 0;
  CL_CHECK(clGetKernelWorkGroupInfo(kernel, env->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most, NULL));
  if (most < groupSize) {
    fprintf(stderr, "%s: the device runs work-groups of at most %zu work-items, the guide's launch needs %zu\n", name,
            most, groupSize);
    exit(1);
  }
  return kernel;
}

// ---------------------------------------------------------------------------------------------
// Deterministic inputs: a 32-bit LCG (Numerical Recipes' constants), floats in [-1, 1).

static uint32_t lcgState;
static float lcg_float(void) {
  lcgState = lcgState * 1664525u + 1013904223u;
  return (float)(lcgState >> 8) * (2.0f / 16777216.0f) - 1.0f;
}
static void lcg_fill(float *x, size_t n, uint32_t seed) {
  lcgState = seed;
  for (size_t i = 0; i < n; ++i)
    x[i] = lcg_float();
}

static double absd(double x) { return x < 0 ? -x : x; }

// ---------------------------------------------------------------------------------------------
// Options.

typedef enum { SIZE_SMALL, SIZE_GUIDE } Size;

typedef struct {
  const char *dir;
  bool copy, multiply, aat;
  Size size;
  int repeat;
} Options;

static void usage(FILE *out, const char *argv0) {
  fprintf(out,
          "usage: %s [--dir DIR] [--kernels copy,multiply,aat] [--size small|guide] [--repeat N]\n"
          "Runs the OpenCL Best Practices Guide's kernels (copy.cl, multiply.cl, aat.cl from DIR) on the first\n"
          "GPU, else the first OpenCL device, and prints kernel times from profiling events, effective\n"
          "bandwidth (bytes the algorithm reads and writes / time, GB = 10^9 bytes) and GFLOP/s, and checks\n"
          "every result against the CPU.\n"
          "  --dir DIR       folder of the .cl files (default: the examples folder compiled in, else the\n"
          "                  program's folder)\n"
          "  --kernels LIST  families to run, comma-separated: copy, multiply, aat (default: all)\n"
          "  --size S        small (default: seconds on an interpreter) or guide (the guide's experiment:\n"
          "                  offsets 0..32, strides 1..16, M = N = 1024)\n"
          "  --repeat N      timed launches per kernel, the mean is shown (default 1)\n",
          argv0);
}

static bool parse_kernels(Options *o, const char *list) {
  o->copy = o->multiply = o->aat = false;
  const char *p = list;
  while (*p) {
    size_t n = strcspn(p, ",");
    if (n == 4 && strncmp(p, "copy", n) == 0)
      o->copy = true;
    else if (n == 8 && strncmp(p, "multiply", n) == 0)
      o->multiply = true;
    else if (n == 3 && strncmp(p, "aat", n) == 0)
      o->aat = true;
    else {
      fprintf(stderr, "unknown kernel family '%.*s' (copy, multiply or aat)\n", (int)n, p);
      return false;
    }
    p += n;
    if (*p == ',')
      ++p;
  }
  return o->copy || o->multiply || o->aat;
}

// The folder of the running program, for the .cl files next to an installed binary.
static char *program_folder(const char *argv0) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0)
    buf[n] = '\0';
  else
    snprintf(buf, sizeof buf, "%s", argv0);
  char *slash = strrchr(buf, '/');
  if (!slash)
    snprintf(buf, sizeof buf, ".");
  else if (slash == buf)
    buf[1] = '\0';
  else
    *slash = '\0';
  char *dir = xmalloc(strlen(buf) + 1);
  strcpy(dir, buf);
  return dir;
}

static const char *default_dir(const char *argv0) {
#ifdef PTXRAY_OPENCL_EXAMPLES
  {
    char *probe = join_path(PTXRAY_OPENCL_EXAMPLES, "copy.cl");
    bool there = access(probe, R_OK) == 0;
    free(probe);
    if (there)
      return PTXRAY_OPENCL_EXAMPLES;
  }
#endif
  return program_folder(argv0); // kept for the program's life
}

static int parse_options(Options *o, int argc, char **argv) {
  *o = (Options){NULL, true, true, true, SIZE_SMALL, 1};
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      usage(stdout, argv[0]);
      exit(0);
    }
    if (i + 1 >= argc || strncmp(arg, "--", 2) != 0) {
      fprintf(stderr, "%s: %s '%s'\n", argv[0], strncmp(arg, "--", 2) ? "unexpected argument" : "missing value for",
              arg);
      return 2;
    }
    const char *value = argv[++i];
    if (strcmp(arg, "--dir") == 0)
      o->dir = value;
    else if (strcmp(arg, "--kernels") == 0) {
      if (!parse_kernels(o, value))
        return 2;
    } else if (strcmp(arg, "--size") == 0) {
      if (strcmp(value, "small") == 0)
        o->size = SIZE_SMALL;
      else if (strcmp(value, "guide") == 0)
        o->size = SIZE_GUIDE;
      else {
        fprintf(stderr, "%s: --size is small or guide, not '%s'\n", argv[0], value);
        return 2;
      }
    } else if (strcmp(arg, "--repeat") == 0) {
      char *end = NULL;
      long n = strtol(value, &end, 10);
      if (*value == '\0' || *end != '\0' || n < 1 || n > 100000) {
        fprintf(stderr, "%s: --repeat takes a count from 1 to 100000, not '%s'\n", argv[0], value);
        return 2;
      }
      o->repeat = (int)n;
    } else {
      fprintf(stderr, "%s: unknown option '%s'\n", argv[0], arg);
      usage(stderr, argv[0]);
      return 2;
    }
  }
  if (!o->dir)
    o->dir = default_dir(argv[0]);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Section 3.2.1: offsetCopy (3.2.1.3, Figure 3.7) and strideCopy (3.2.1.4, Figure 3.9).

static bool words_equal(const float *x, size_t i, uint32_t expected) {
  uint32_t got;
  memcpy(&got, &x[i], sizeof got);
  return got == expected;
}

static uint32_t float_bits(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  return bits;
}

// The first word of the read-back odata that is not what the copy should leave: idata's word where
// the kernel copies, the sentinel elsewhere. Returns the index, or (size_t)-1 when all match.
static size_t copy_mismatch(const float *odata, const float *idata, size_t words, size_t n, int offset, int stride) {
  for (size_t j = 0; j < words; ++j) {
    bool copied = stride ? j % (size_t)stride == 0 && j / (size_t)stride < n
                         : j >= (size_t)offset && j < n + (size_t)offset;
    if (!words_equal(odata, j, copied ? float_bits(idata[j]) : kSentinel))
      return j;
  }
  return (size_t)-1;
}

static int run_copies(Env *env, const Options *o) {
  const bool guide = o->size == SIZE_GUIDE;
  // The guide varies the offset "from 1 to 32" (0 is the aligned baseline) and shows strides up to
  // the 16 transactions per half warp of a stride of 16. 2^18 words is `ptxray guide-charts`' default.
  const size_t n = guide ? (size_t)1 << 18 : (size_t)1 << 14;
  static const int smallOffsets[] = {0, 1, 8, 16, 17, 32}, smallStrides[] = {1, 2, 4, 8, 16};
  int offsets[33], strides[16], offsetCount = 0, strideCount = 0;
  if (guide) {
    for (int k = 0; k <= 32; ++k)
      offsets[offsetCount++] = k;
    for (int k = 1; k <= 16; ++k)
      strides[strideCount++] = k;
  } else {
    for (size_t k = 0; k < sizeof smallOffsets / sizeof *smallOffsets; ++k)
      offsets[offsetCount++] = smallOffsets[k];
    for (size_t k = 0; k < sizeof smallStrides / sizeof *smallStrides; ++k)
      strides[strideCount++] = smallStrides[k];
  }
  const int maxOffset = offsets[offsetCount - 1], maxStride = strides[strideCount - 1];
  // One input and one output large enough for the largest offset and the largest stride.
  size_t words = n * (size_t)maxStride;
  if (n + (size_t)maxOffset > words)
    words = n + (size_t)maxOffset;
  const size_t bytes = words * sizeof(float);
  const double moved = 2.0 * (double)n * sizeof(float); // n floats read + n floats written

  printf("\n== offsetCopy, strideCopy (guide 3.2.1.3 Figure 3.7, 3.2.1.4 Figure 3.9): copy.cl ==\n");
  printf("%zu floats per launch, NDRange %zu, work-group %d; effective bandwidth = 2 x %zu x 4 bytes / time\n", n, n,
         COPY_GROUP, n);

  cl_program program = build_program(env, o->dir, "copy.cl");
  cl_kernel offsetCopy = create_kernel(env, program, "offsetCopy", COPY_GROUP);
  cl_kernel strideCopy = create_kernel(env, program, "strideCopy", COPY_GROUP);

  Pinned in = pinned_alloc(env, bytes), out = pinned_alloc(env, bytes);
  lcg_fill(in.data, words, 1);
  cl_mem idata = device_buffer(env, CL_MEM_READ_ONLY, bytes), odata = device_buffer(env, CL_MEM_WRITE_ONLY, bytes);
  upload(env, idata, &in, bytes, "idata");

  int failures = 0;
  const size_t global[1] = {n}, local[1] = {COPY_GROUP};
  for (int family = 0; family < 2; ++family) {
    const bool byStride = family == 1;
    cl_kernel kernel = byStride ? strideCopy : offsetCopy;
    printf("\n%-12s %6s %12s %12s  %s\n", "kernel", byStride ? "stride" : "offset", "time (us)", "eff. GB/s",
           "check");
    for (int k = 0; k < (byStride ? strideCount : offsetCount); ++k) {
      const cl_int step = byStride ? strides[k] : offsets[k];
      poison(env, odata, bytes);
      CL_CHECK(clSetKernelArg(kernel, 0, sizeof odata, &odata));
      CL_CHECK(clSetKernelArg(kernel, 1, sizeof idata, &idata));
      CL_CHECK(clSetKernelArg(kernel, 2, sizeof step, &step));
      double s = launch(env, kernel, 1, global, local, o->repeat);
      // Read back the span the copy may touch: up to its last word.
      size_t span = byStride ? (n - 1) * (size_t)step + 1 : n + (size_t)step;
      download(env, odata, &out, span * sizeof(float));
      size_t bad = copy_mismatch(out.data, in.data, span, n, byStride ? 0 : step, byStride ? step : 0);
      printf("%-12s %6d %12.3f %12s  %s\n", byStride ? "strideCopy" : "offsetCopy", (int)step, s * 1e6,
             rate(gbps(moved, s), 0), bad == (size_t)-1 ? "ok" : "MISMATCH");
      if (bad != (size_t)-1) {
        const float *got = out.data, *src = in.data;
        bool copied = byStride ? bad % (size_t)step == 0 : bad >= (size_t)step;
        if (copied)
          printf("  first mismatch: odata[%zu] = %.9g (0x%08x), expected idata[%zu] = %.9g (0x%08x)\n", bad,
                 got[bad], float_bits(got[bad]), bad, src[bad], float_bits(src[bad]));
        else
          printf("  first mismatch: odata[%zu] = %.9g (0x%08x), a word the copy must not write (still 0x%08x)\n",
                 bad, got[bad], float_bits(got[bad]), kSentinel);
        ++failures;
      }
    }
  }
  printf("check: %s\n", failures ? "FAILED" : "ok");

  CL_CHECK(clReleaseMemObject(idata));
  CL_CHECK(clReleaseMemObject(odata));
  pinned_free(env, &in);
  pinned_free(env, &out);
  CL_CHECK(clReleaseKernel(offsetCopy));
  CL_CHECK(clReleaseKernel(strideCopy));
  CL_CHECK(clReleaseProgram(program));
  return failures;
}

// ---------------------------------------------------------------------------------------------
// Sections 3.2.2.2 (C = AB, Table 3.2) and 3.2.2.3 (C = AA^T, Table 3.3).

typedef struct {
  const char *name;
  const char *guide; // the guide's effective bandwidth on a GeForce GTX 280 / GTX 8800
} MultiplyKernel;

// C (rows x cols) against sum_i x[r*16+i] * y(i, c) in double, y being B (16 x cols) or A^T. The
// tolerance is relative to the sum of the terms' magnitudes, the scale of a float sum's rounding
// error whatever the cancellation. On a mismatch, describes the first one in `why`.
static bool check_product(const char *kernel, const float *c, const float *a, const float *b, size_t rows, size_t cols,
                          bool transposed, char *why, size_t whySize) {
  for (size_t r = 0; r < rows; ++r)
    for (size_t col = 0; col < cols; ++col) {
      double sum = 0, magnitude = 0;
      for (size_t i = 0; i < TILE_DIM; ++i) {
        double term = (double)a[r * TILE_DIM + i] * (transposed ? a[col * TILE_DIM + i] : b[i * cols + col]);
        sum += term;
        magnitude += absd(term);
      }
      double got = c[r * cols + col];
      if (!(absd(got - sum) <= 1e-4 * magnitude)) { // NaN (an unwritten word) fails too
        snprintf(why, whySize, "  first mismatch in %s: C[%zu][%zu] = %.9g, expected %.9g (tolerance 1e-4 x %.6g)",
                 kernel, r, col, got, sum, magnitude);
        return false;
      }
    }
  return true;
}

static int run_multiplies(Env *env, const Options *o, bool aat) {
  // The guide's text gives no matrix sizes; 1024 is the one examples/opencl/aat.json and
  // examples/guide/aat.json analyze. M and N must be multiples of TILE_DIM.
  const size_t M = o->size == SIZE_GUIDE ? 1024 : 128, N = M; // C = AA^T: N is M
  static const MultiplyKernel abKernels[] = {{"simpleMultiply", "8.8 / 0.7"},
                                             {"coalescedMultiply", "14.3 / 8.2"},
                                             {"sharedABMultiply", "29.7 / 15.7"}};
  static const MultiplyKernel aatKernels[] = {{"simpleMultiplyAAT", "1.1 / 0.5"},
                                              {"sharedMultiplyAAT", "24.8 / 13.2"},
                                              {"paddedMultiplyAAT", "30.3 / 15.6"}};
  const MultiplyKernel *kernels = aat ? aatKernels : abKernels;
  const size_t aWords = M * TILE_DIM, bWords = aat ? 0 : TILE_DIM * N, cWords = M * N;
  // Section 2.2.2: the bytes the algorithm reads (A, and B for C = AB) and writes (C), once each.
  const double moved = (double)(aWords + bWords + cWords) * sizeof(float);
  const double flops = 2.0 * (double)M * (double)N * TILE_DIM;

  if (aat) {
    printf("\n== C = AA^T, A of M x 16, C of M x M (guide 3.2.2.3, Table 3.3): aat.cl ==\n");
    printf("M = %zu, TILE_DIM %d, work-group %d x %d, NDRange %zu x %zu\n", M, TILE_DIM, TILE_DIM, TILE_DIM, M, M);
    printf("effective bandwidth = (M x 16 + M x M) x 4 bytes / time; GFLOP/s = 2 x M x M x 16 / time\n");
  } else {
    printf("\n== C = AB, A of M x 16, B of 16 x N, C of M x N (guide 3.2.2.2, Table 3.2): multiply.cl ==\n");
    printf("M = %zu, N = %zu, TILE_DIM %d, work-group %d x %d, NDRange %zu x %zu (N x M)\n", M, N, TILE_DIM, TILE_DIM,
           TILE_DIM, N, M);
    printf("effective bandwidth = (M x 16 + 16 x N + M x N) x 4 bytes / time; GFLOP/s = 2 x M x N x 16 / time\n");
  }

  cl_program program = build_program(env, o->dir, aat ? "aat.cl" : "multiply.cl");
  Pinned hostA = pinned_alloc(env, aWords * sizeof(float)), hostC = pinned_alloc(env, cWords * sizeof(float));
  Pinned hostB = {NULL, NULL, 0};
  lcg_fill(hostA.data, aWords, aat ? 3 : 1);
  cl_mem a = device_buffer(env, CL_MEM_READ_ONLY, aWords * sizeof(float));
  cl_mem b = NULL;
  cl_mem c = device_buffer(env, CL_MEM_WRITE_ONLY, cWords * sizeof(float));
  upload(env, a, &hostA, aWords * sizeof(float), "a");
  if (!aat) {
    hostB = pinned_alloc(env, bWords * sizeof(float));
    lcg_fill(hostB.data, bWords, 2);
    b = device_buffer(env, CL_MEM_READ_ONLY, bWords * sizeof(float));
    upload(env, b, &hostB, bWords * sizeof(float), "b");
  }

  printf("\n%-18s %12s %12s %10s  %-22s %s\n", "kernel", "time (us)", "eff. GB/s", "GFLOP/s",
         "guide GTX 280 / 8800", "check");
  int failures = 0;
  const size_t global[2] = {N, M}, local[2] = {TILE_DIM, TILE_DIM};
  const cl_int width = (cl_int)N; // the kernels' N (C = AB) or M (C = AA^T): C's row length
  for (int k = 0; k < 3; ++k) {
    cl_kernel kernel = create_kernel(env, program, kernels[k].name, TILE_DIM * TILE_DIM);
    cl_uint arg = 0;
    CL_CHECK(clSetKernelArg(kernel, arg++, sizeof a, &a));
    if (!aat)
      CL_CHECK(clSetKernelArg(kernel, arg++, sizeof b, &b));
    CL_CHECK(clSetKernelArg(kernel, arg++, sizeof c, &c));
    CL_CHECK(clSetKernelArg(kernel, arg++, sizeof width, &width));
    poison(env, c, cWords * sizeof(float));
    double s = launch(env, kernel, 2, global, local, o->repeat);
    download(env, c, &hostC, cWords * sizeof(float));
    char why[256];
    bool ok = check_product(kernels[k].name, hostC.data, hostA.data, aat ? NULL : hostB.data, M, N, aat, why,
                            sizeof why);
    printf("%-18s %12.3f %12s %10s  %-22s %s\n", kernels[k].name, s * 1e6, rate(gbps(moved, s), 0),
           rate(gbps(flops, s), 1), kernels[k].guide, ok ? "ok" : "MISMATCH");
    if (!ok) {
      printf("%s\n", why);
      ++failures;
    }
    CL_CHECK(clReleaseKernel(kernel));
  }
  printf("check: %s\n", failures ? "FAILED" : "ok");

  CL_CHECK(clReleaseMemObject(a));
  if (b)
    CL_CHECK(clReleaseMemObject(b));
  CL_CHECK(clReleaseMemObject(c));
  pinned_free(env, &hostA);
  pinned_free(env, &hostC);
  if (hostB.mem)
    pinned_free(env, &hostB);
  CL_CHECK(clReleaseProgram(program));
  return failures;
}

// ---------------------------------------------------------------------------------------------

int main(int argc, char **argv) {
  Options o;
  int rc = parse_options(&o, argc, argv);
  if (rc)
    return rc;
  setvbuf(stdout, NULL, _IOLBF, 0);

  // The sources first: a wrong --dir fails before the device opens.
  const char *files[] = {o.copy ? "copy.cl" : NULL, o.multiply ? "multiply.cl" : NULL, o.aat ? "aat.cl" : NULL};
  for (size_t f = 0; f < sizeof files / sizeof *files; ++f) {
    if (!files[f])
      continue;
    char *path = join_path(o.dir, files[f]);
    if (access(path, R_OK) != 0) {
      fprintf(stderr, "cannot read %s (use --dir DIR to say where the .cl files are)\n", path);
      return 1;
    }
    free(path);
  }

  Env env;
  memset(&env, 0, sizeof env);
  open_device(&env);
  printf("kernels from %s; size %s; %d timed launch%s per kernel (mean shown)\n", o.dir,
         o.size == SIZE_GUIDE ? "guide" : "small", o.repeat, o.repeat == 1 ? "" : "es");

  int failures = 0;
  if (o.copy)
    failures += run_copies(&env, &o);
  if (o.multiply)
    failures += run_multiplies(&env, &o, false);
  if (o.aat)
    failures += run_multiplies(&env, &o, true);

  printf("\ntransfers (pinned host buffers, event-timed): host->device %.0f bytes in %.3f us = %s GB/s; "
         "device->host %.0f bytes in %.3f us = %s GB/s\n",
         env.h2dBytes, env.h2dSeconds * 1e6, rate(gbps(env.h2dBytes, env.h2dSeconds), 0), env.d2hBytes,
         env.d2hSeconds * 1e6, rate(gbps(env.d2hBytes, env.d2hSeconds), 1));
  close_device(&env);
  if (failures) {
    printf("%d result%s did not match the CPU reference\n", failures, failures == 1 ? "" : "s");
    return 1;
  }
  return 0;
}
