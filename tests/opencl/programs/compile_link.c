/* compile_link.c: separate compilation and linking of OpenCL 1.2 (spec sections 5.6.3 to 5.6.5):
 * clCompileProgram with an embedded header, clLinkProgram of two compiled objects and of an object with
 * a library (-create-library), CL_PROGRAM_BINARY_TYPE through the steps, and the compile and link
 * errors the spec fixes.
 *
 * Prints computed results, spec-fixed values and result codes, and "ok"/"FAIL" lines, so that the
 * output is the same under every conforming implementation. Exit status 0 when every check passes, 1
 * otherwise. */
#include "cltest.h"
#include <stdint.h>
#include <string.h>

/* The header, given to clCompileProgram as a program object named "defs.h". */
static const char *header_source = "#define OFFSET 1000\n"
                                   "int scale(int x);\n";
/* The kernel's unit: uses the header and the other unit's function, and a -D from the compile options. */
static const char *main_source = "#include \"defs.h\"\n"
                                 "__kernel void apply(__global int *data) {\n"
                                 "  size_t i = get_global_id(0);\n"
                                 "  data[i] = scale(data[i]) + OFFSET + BIAS;\n"
                                 "}\n";
static const char *helper_source = "int scale(int x) { return 3 * x; }\n";
static const char *broken_source = "__kernel void broken(__global int *out) {\n"
                                   "  out[0] = not_declared;\n"
                                   "}\n";

static cl_context ctx;
static cl_command_queue q;
static cl_device_id device;

static cl_program from_source(const char *src) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  MUST(err);
  return p;
}

static const char *binary_type_name(cl_program p) {
  cl_program_binary_type t = 99;
  if (clGetProgramBuildInfo(p, device, CL_PROGRAM_BINARY_TYPE, sizeof t, &t, NULL) != CL_SUCCESS)
    return "error";
  switch (t) {
  case CL_PROGRAM_BINARY_TYPE_NONE: return "CL_PROGRAM_BINARY_TYPE_NONE";
  case CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT: return "CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT";
  case CL_PROGRAM_BINARY_TYPE_LIBRARY: return "CL_PROGRAM_BINARY_TYPE_LIBRARY";
  case CL_PROGRAM_BINARY_TYPE_EXECUTABLE: return "CL_PROGRAM_BINARY_TYPE_EXECUTABLE";
  }
  return "other";
}

/* Runs `apply` of a linked program over 8 ints, prints them and checks them against 3x + 1000 + 5. */
static void run_apply(cl_program exe, const char *label) {
  cl_int err, data[8] = {0, 1, 2, 3, -4, -5, 100, 7};
  cl_kernel k = clCreateKernel(exe, "apply", &err);
  MUST(err);
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
  MUST(err);
  MUST(clSetKernelArg(k, 0, sizeof buf, &buf));
  const size_t g = 8;
  MUST(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
  MUST(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL));
  printf("%s:", label);
  const cl_int in[8] = {0, 1, 2, 3, -4, -5, 100, 7};
  int right = 1;
  for (int i = 0; i < 8; i++)
    printf(" %d", (int)data[i]), right &= data[i] == 3 * in[i] + 1005;
  printf("\n");
  check(right, "%s: 3x + 1000 + 5", label);
  MUST(clReleaseMemObject(buf));
  MUST(clReleaseKernel(k));
}

int main(void) {
  cl_platform_id platform;
  pick_device(&platform, &device);
  cl_int err;
  ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  MUST(err);
  q = clCreateCommandQueue(ctx, device, 0, &err);
  MUST(err);

  /* ---- clCompileProgram (5.6.3) ---- */
  cl_program header = from_source(header_source);
  cl_program main_obj = from_source(main_source);
  cl_program helper_obj = from_source(helper_source);
  printf("before compiling: %s\n", binary_type_name(main_obj));
  const char *header_names[1] = {"defs.h"};
  expect(clCompileProgram(main_obj, 1, &device, "-D BIAS=5", 1, &header, header_names, NULL, NULL), CL_SUCCESS,
         "clCompileProgram(with the header defs.h, -D BIAS=5)");
  expect(clCompileProgram(helper_obj, 1, &device, "", 0, NULL, NULL, NULL, NULL), CL_SUCCESS,
         "clCompileProgram(helper)");
  printf("after compiling: %s\n", binary_type_name(main_obj));
  cl_build_status status = 99;
  MUST(clGetProgramBuildInfo(main_obj, device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL));
  printf("CL_PROGRAM_BUILD_STATUS: %s\n", status == CL_BUILD_SUCCESS ? "CL_BUILD_SUCCESS" : "other");
  if (status != CL_BUILD_SUCCESS)
    failures++;
  /* (Not checked: CL_INVALID_PROGRAM_EXECUTABLE for clCreateKernel on a compiled object, which PoCL 3.1
     answers CL_INVALID_KERNEL_NAME.) */

  /* ---- clLinkProgram (5.6.4) ---- */
  cl_program objs[2] = {main_obj, helper_obj};
  cl_program exe = clLinkProgram(ctx, 1, &device, "", 2, objs, NULL, NULL, &err);
  expect(err, CL_SUCCESS, "clLinkProgram(two objects)");
  if (err == CL_SUCCESS) {
    printf("linked: %s\n", binary_type_name(exe));
    size_t num_kernels = 0;
    MUST(clGetProgramInfo(exe, CL_PROGRAM_NUM_KERNELS, sizeof num_kernels, &num_kernels, NULL));
    printf("linked CL_PROGRAM_NUM_KERNELS: %zu\n", num_kernels);
    run_apply(exe, "apply of two linked objects");
    MUST(clReleaseProgram(exe));
  }
  /* A library of the helper, then an executable of the kernel's object and the library. */
  cl_program lib = clLinkProgram(ctx, 1, &device, "-create-library", 1, &helper_obj, NULL, NULL, &err);
  expect(err, CL_SUCCESS, "clLinkProgram(-create-library)");
  if (err == CL_SUCCESS) {
    printf("library: %s\n", binary_type_name(lib));
    cl_program parts[2] = {main_obj, lib};
    cl_program exe2 = clLinkProgram(ctx, 1, &device, "", 2, parts, NULL, NULL, &err);
    expect(err, CL_SUCCESS, "clLinkProgram(object and library)");
    if (err == CL_SUCCESS) {
      run_apply(exe2, "apply through the library");
      MUST(clReleaseProgram(exe2));
    }
    MUST(clReleaseProgram(lib));
  }

  /* ---- Errors (5.6.3, 5.6.4) ---- */
  cl_program broken = from_source(broken_source);
  expect(clCompileProgram(broken, 1, &device, "", 0, NULL, NULL, NULL, NULL), CL_COMPILE_PROGRAM_FAILURE,
         "clCompileProgram(undeclared identifier)");
  MUST(clGetProgramBuildInfo(broken, device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL));
  printf("CL_PROGRAM_BUILD_STATUS: %s\n", status == CL_BUILD_ERROR ? "CL_BUILD_ERROR" : "other");
  if (status != CL_BUILD_ERROR)
    failures++;
  expect(clCompileProgram(helper_obj, 1, &device, "-cl-no-such-option", 0, NULL, NULL, NULL, NULL),
         CL_INVALID_COMPILER_OPTIONS, "clCompileProgram(-cl-no-such-option)");
  /* (Not checked: CL_INVALID_VALUE for headers without names, on which PoCL 3.1 crashes.) */
  clLinkProgram(ctx, 1, &device, "", 0, objs, NULL, NULL, &err);
  expect(err, CL_INVALID_VALUE, "clLinkProgram(0 programs)");
  clLinkProgram(ctx, 1, &device, "", 2, NULL, NULL, NULL, &err);
  expect(err, CL_INVALID_VALUE, "clLinkProgram(NULL program list)");
  /* The kernel's object alone leaves scale() undefined: "CL_LINK_PROGRAM_FAILURE if there is a failure
     to link the compiled binaries and/or libraries". */
  cl_program unresolved = clLinkProgram(ctx, 1, &device, "", 1, &main_obj, NULL, NULL, &err);
  expect(err, CL_LINK_PROGRAM_FAILURE, "clLinkProgram(undefined function)");
  if (unresolved)
    MUST(clReleaseProgram(unresolved));

  MUST(clReleaseProgram(broken));
  MUST(clReleaseProgram(header));
  MUST(clReleaseProgram(main_obj));
  MUST(clReleaseProgram(helper_obj));
  MUST(clReleaseCommandQueue(q));
  MUST(clReleaseContext(ctx));
  return finish();
}
