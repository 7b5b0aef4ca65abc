/* errors.c: error results that OpenCL 1.2 fixes for kernel arguments, NDRange launches, builds, kernel
 * creation, transfers, events and invalid (NULL) objects (spec sections 5.2, 5.6 to 5.9).
 *
 * Each check prints "<call>: <result code name>", the code the spec names; where a case depends on the
 * device's limits, an "ok"/"FAIL" line instead. The output is the same under every conforming
 * implementation. Exit status 0 when every check passes, 1 otherwise.
 *
 * Where the spec lists several errors that could apply, each call is built so that only one does (every
 * other argument valid). Checks left out because PoCL 3.1 answers otherwise are named where they would
 * be, in comments starting "Not checked". Calls on NULL objects are answered by the ocl-icd loader
 * itself where the object is the one it dispatches on. */
#include "cltest.h"
#include <stdint.h>
#include <string.h>

static const char *source = "__kernel void k(__global int *out, int v, __local int *scratch) {\n"
                            "  scratch[get_local_id(0)] = v;\n"
                            "  barrier(CLK_LOCAL_MEM_FENCE);\n"
                            "  out[get_global_id(0)] = scratch[0];\n"
                            "}\n"
                            "__kernel __attribute__((reqd_work_group_size(4, 1, 1))) void fixed(__global int *out) {\n"
                            "  out[get_global_id(0)] = 1;\n"
                            "}\n"
                            "int helper(int x) { return x + 1; }\n";

/* A syntax error on line 3: the build log must name the line. */
static const char *broken_source = "__kernel void broken(__global int *out) {\n"
                                   "  int x = 1;\n"
                                   "  out[0] = x + undeclared_name;\n"
                                   "}\n";

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  pick_device(&platform, &device);
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  MUST(err);
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
  MUST(err);
  cl_program program = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  MUST(err);

  /* ---- Before the build (5.6, 5.7.1) ---- */
  /* "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable for program." */
  clCreateKernel(program, "k", &err);
  expect(err, CL_INVALID_PROGRAM_EXECUTABLE, "clCreateKernel(unbuilt program)");
  cl_uint nk;
  expect(clCreateKernelsInProgram(program, 0, NULL, &nk), CL_INVALID_PROGRAM_EXECUTABLE,
         "clCreateKernelsInProgram(unbuilt program)");
  size_t num_kernels;
  expect(clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, sizeof num_kernels, &num_kernels, NULL),
         CL_INVALID_PROGRAM_EXECUTABLE, "clGetProgramInfo(NUM_KERNELS, unbuilt program)");

  /* ---- clCreateProgramWithSource and clBuildProgram (5.6.1, 5.6.2) ---- */
  clCreateProgramWithSource(ctx, 0, &source, NULL, &err);
  expect(err, CL_INVALID_VALUE, "clCreateProgramWithSource(count 0)");
  /* (Not checked: CL_INVALID_VALUE for a NULL strings array, on which PoCL 3.1 crashes.) */
  const char *null_string = NULL;
  clCreateProgramWithSource(ctx, 1, &null_string, NULL, &err);
  expect(err, CL_INVALID_VALUE, "clCreateProgramWithSource(a NULL string)");
  clCreateProgramWithSource(NULL, 1, &source, NULL, &err);
  expect(err, CL_INVALID_CONTEXT, "clCreateProgramWithSource(NULL context)");
  expect(clBuildProgram(program, 1, NULL, "", NULL, NULL), CL_INVALID_VALUE, "clBuildProgram(1 device, NULL list)");
  expect(clBuildProgram(program, 0, &device, "", NULL, NULL), CL_INVALID_VALUE, "clBuildProgram(0 devices, a list)");
  int user_data = 0;
  expect(clBuildProgram(program, 1, &device, "", NULL, &user_data), CL_INVALID_VALUE,
         "clBuildProgram(no callback, user data)");
  expect(clBuildProgram(program, 1, &device, "-cl-no-such-option", NULL, NULL), CL_INVALID_BUILD_OPTIONS,
         "clBuildProgram(-cl-no-such-option)");
  expect(clBuildProgram(NULL, 1, &device, "", NULL, NULL), CL_INVALID_PROGRAM, "clBuildProgram(NULL program)");

  /* "CL_INVALID_BINARY if an invalid program binary was encountered for any device. binary_status will
     return specific status for each device." */
  unsigned char garbage[64];
  memset(garbage, 0x5a, sizeof garbage);
  const unsigned char *garbage_list[1] = {garbage};
  size_t garbage_size = sizeof garbage;
  cl_int binary_status = CL_SUCCESS;
  clCreateProgramWithBinary(ctx, 1, &device, &garbage_size, garbage_list, &binary_status, &err);
  expect(err, CL_INVALID_BINARY, "clCreateProgramWithBinary(64 bytes of 0x5a)");
  expect(binary_status, CL_INVALID_BINARY, "its binary_status");
  garbage_size = 0;
  clCreateProgramWithBinary(ctx, 1, &device, &garbage_size, garbage_list, &binary_status, &err);
  expect(err, CL_INVALID_VALUE, "clCreateProgramWithBinary(length 0)");

  /* A compile error: CL_BUILD_PROGRAM_FAILURE, CL_BUILD_ERROR, and a log that names line 3. */
  cl_program broken = clCreateProgramWithSource(ctx, 1, &broken_source, NULL, &err);
  MUST(err);
  expect(clBuildProgram(broken, 1, &device, "", NULL, NULL), CL_BUILD_PROGRAM_FAILURE, "clBuildProgram(syntax error)");
  cl_build_status status = 0;
  MUST(clGetProgramBuildInfo(broken, device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL));
  printf("CL_PROGRAM_BUILD_STATUS after a syntax error: %s\n", status == CL_BUILD_ERROR ? "CL_BUILD_ERROR" : "other");
  if (status != CL_BUILD_ERROR)
    failures++;
  size_t log_size = 0;
  MUST(clGetProgramBuildInfo(broken, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size));
  char *log = calloc(log_size + 1, 1);
  MUST(clGetProgramBuildInfo(broken, device, CL_PROGRAM_BUILD_LOG, log_size, log, NULL));
  check(strlen(log) > 0, "the build log of a syntax error is not empty");
  check(strstr(log, ":3:") != NULL, "the build log names the error's line (\":3:\")");
  free(log);
  clCreateKernel(broken, "broken", &err);
  expect(err, CL_INVALID_PROGRAM_EXECUTABLE, "clCreateKernel(program that failed to build)");
  MUST(clReleaseProgram(broken));

  /* ---- Kernels (5.7.1) ---- */
  MUST(clBuildProgram(program, 1, &device, "", NULL, NULL));
  clCreateKernel(program, "no_such_kernel", &err);
  expect(err, CL_INVALID_KERNEL_NAME, "clCreateKernel(unknown name)");
  /* helper is a function of the program, but no __kernel. */
  clCreateKernel(program, "helper", &err);
  expect(err, CL_INVALID_KERNEL_NAME, "clCreateKernel(a non-kernel function)");
  clCreateKernel(program, NULL, &err);
  expect(err, CL_INVALID_VALUE, "clCreateKernel(NULL name)");
  clCreateKernel(NULL, "k", &err);
  expect(err, CL_INVALID_PROGRAM, "clCreateKernel(NULL program)");
  cl_kernel k = clCreateKernel(program, "k", &err);
  MUST(err);
  cl_kernel fixed = clCreateKernel(program, "fixed", &err);
  MUST(err);
  char name[64];
  expect(clGetKernelInfo(NULL, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL), CL_INVALID_KERNEL,
         "clGetKernelInfo(NULL kernel)");
  expect(clGetKernelInfo(k, 0x7fff, sizeof name, name, NULL), CL_INVALID_VALUE, "clGetKernelInfo(unknown param)");
  /* 5.7.3: "Kernel argument information is only available if the program object associated with kernel
     is created with clCreateProgramWithSource and the program executable is built with the
     -cl-kernel-arg-info option" (this one was built without). */
  cl_kernel_arg_address_qualifier aq;
  expect(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL),
         CL_KERNEL_ARG_INFO_NOT_AVAILABLE, "clGetKernelArgInfo(built without -cl-kernel-arg-info)");

  /* ---- clSetKernelArg (5.7.2) ---- */
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096 * sizeof(cl_int), NULL, &err);
  MUST(err);
  cl_int v = 5;
  cl_long v64 = 5;
  expect(clSetKernelArg(k, 3, sizeof v, &v), CL_INVALID_ARG_INDEX, "clSetKernelArg(index 3 of 3)");
  expect(clSetKernelArg(k, 0, sizeof(cl_int), &buf), CL_INVALID_ARG_SIZE, "clSetKernelArg(buffer, 4 bytes)");
  expect(clSetKernelArg(k, 1, sizeof v64, &v64), CL_INVALID_ARG_SIZE, "clSetKernelArg(int, 8 bytes)");
  expect(clSetKernelArg(k, 2, 0, NULL), CL_INVALID_ARG_SIZE, "clSetKernelArg(__local, 0 bytes)");
  expect(clSetKernelArg(k, 2, 64, &v), CL_INVALID_ARG_VALUE, "clSetKernelArg(__local, a value)");
  expect(clSetKernelArg(k, 1, sizeof v, NULL), CL_INVALID_ARG_VALUE, "clSetKernelArg(int, NULL value)");
  expect(clSetKernelArg(NULL, 1, sizeof v, &v), CL_INVALID_KERNEL, "clSetKernelArg(NULL kernel)");

  /* ---- clEnqueueNDRangeKernel (5.8) ---- */
  size_t global = 64, local = 4;
  /* "CL_INVALID_KERNEL_ARGS if the kernel argument values have not been specified." */
  MUST(clSetKernelArg(k, 0, sizeof buf, &buf));
  expect(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS,
         "clEnqueueNDRangeKernel(arguments 1 and 2 unset)");
  MUST(clSetKernelArg(k, 1, sizeof v, &v));
  expect(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS,
         "clEnqueueNDRangeKernel(argument 2 unset)");
  size_t kwg = 0, max_items[3];
  MUST(clGetKernelWorkGroupInfo(k, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, NULL));
  MUST(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof max_items, max_items, NULL));
  /* The __local argument is sized for the largest group tried below. */
  MUST(clSetKernelArg(k, 2, sizeof(cl_int) * (kwg + 1), NULL));
  expect(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL), CL_SUCCESS,
         "clEnqueueNDRangeKernel(all arguments set)");
  /* "CL_INVALID_WORK_DIMENSION if work_dim is not a valid value (i.e. a value between 1 and 3)." */
  expect(clEnqueueNDRangeKernel(q, k, 0, NULL, &global, &local, 0, NULL, NULL), CL_INVALID_WORK_DIMENSION,
         "clEnqueueNDRangeKernel(work_dim 0)");
  size_t g4[4] = {4, 1, 1, 1}, l4[4] = {4, 1, 1, 1};
  expect(clEnqueueNDRangeKernel(q, k, 4, NULL, g4, l4, 0, NULL, NULL), CL_INVALID_WORK_DIMENSION,
         "clEnqueueNDRangeKernel(work_dim 4)");
  /* OpenCL 1.2: "CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified and number of work-items
     specified by global_work_size is not evenly divisible by size of work-group given by
     local_work_size". */
  size_t ten = 10;
  expect(clEnqueueNDRangeKernel(q, k, 1, NULL, &ten, &local, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE,
         "clEnqueueNDRangeKernel(global 10, local 4)");
  /* "CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified and the total number of work-items in the
     work-group ... is greater than the value specified by CL_KERNEL_WORK_GROUP_SIZE": a group within
     CL_DEVICE_MAX_WORK_ITEM_SIZES in each dimension whose product is one more than allowed, where the
     device's item sizes allow such a group. */
  {
    size_t l[3], g[3];
    l[0] = kwg < max_items[0] ? kwg : max_items[0];
    l[1] = (kwg + l[0]) / l[0];
    if (l[1] > max_items[1])
      l[1] = max_items[1];
    l[2] = (kwg + l[0] * l[1]) / (l[0] * l[1]);
    if (l[2] > max_items[2])
      l[2] = max_items[2];
    memcpy(g, l, sizeof g);
    int testable = l[0] * l[1] * l[2] > kwg;
    err = testable ? clEnqueueNDRangeKernel(q, k, 3, NULL, g, l, 0, NULL, NULL) : CL_INVALID_WORK_GROUP_SIZE;
    check(err == CL_INVALID_WORK_GROUP_SIZE,
          "clEnqueueNDRangeKernel(group larger than CL_KERNEL_WORK_GROUP_SIZE) is CL_INVALID_WORK_GROUP_SIZE");
  }
  /* "CL_INVALID_WORK_ITEM_SIZE if the number of work-items specified in any of local_work_size[0], ...
     local_work_size[work_dim - 1] is greater than the corresponding values specified by
     CL_DEVICE_MAX_WORK_ITEM_SIZES": one dimension one over, where that group is within the kernel's
     work-group size (else the group size error would apply as well). */
  {
    int testable = 0;
    for (int d = 0; d < 3 && !testable; d++) {
      if (max_items[d] + 1 > kwg)
        continue;
      size_t l[3] = {1, 1, 1};
      l[d] = max_items[d] + 1;
      testable = 1;
      err = clEnqueueNDRangeKernel(q, k, 3, NULL, l, l, 0, NULL, NULL);
    }
    check(!testable || err == CL_INVALID_WORK_ITEM_SIZE,
          "clEnqueueNDRangeKernel(local size over CL_DEVICE_MAX_WORK_ITEM_SIZES) is CL_INVALID_WORK_ITEM_SIZE");
  }
  /* reqd_work_group_size(4, 1, 1): "CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified and does not
     match the work-group size for kernel in the program source given by the
     __attribute__((reqd_work_group_size(X, Y, Z))) qualifier", and in 1.2 also "if local_work_size is NULL
     and the __attribute__((reqd_work_group_size(X, Y, Z))) qualifier is used". */
  MUST(clSetKernelArg(fixed, 0, sizeof buf, &buf));
  size_t eight = 8, sixteen = 16, four = 4;
  expect(clEnqueueNDRangeKernel(q, fixed, 1, NULL, &sixteen, &eight, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE,
         "clEnqueueNDRangeKernel(reqd_work_group_size 4, local 8)");
  expect(clEnqueueNDRangeKernel(q, fixed, 1, NULL, &sixteen, &four, 0, NULL, NULL), CL_SUCCESS,
         "clEnqueueNDRangeKernel(reqd_work_group_size 4, local 4)");
  expect(clEnqueueNDRangeKernel(q, fixed, 1, NULL, &sixteen, NULL, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE,
         "clEnqueueNDRangeKernel(reqd_work_group_size 4, no local size)");
  /* (Not checked: 1.2's CL_INVALID_GLOBAL_WORK_SIZE for a NULL global_work_size or a global size of 0,
     which PoCL 3.1 accepts: 2.1 made a size of 0 valid.) */
  expect(clEnqueueNDRangeKernel(NULL, k, 1, NULL, &global, &local, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE,
         "clEnqueueNDRangeKernel(NULL queue)");
  /* (Not checked: CL_INVALID_KERNEL for a NULL kernel on a valid queue, on which PoCL 3.1 crashes.) */
  /* "CL_INVALID_CONTEXT if context associated with command_queue and kernel are not the same". */
  cl_context ctx2 = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  MUST(err);
  cl_command_queue q2 = clCreateCommandQueue(ctx2, device, 0, &err);
  MUST(err);
  expect(clEnqueueNDRangeKernel(q2, k, 1, NULL, &global, &local, 0, NULL, NULL), CL_INVALID_CONTEXT,
         "clEnqueueNDRangeKernel(queue of another context)");

  /* ---- Transfers (5.2.2) ---- */
  cl_int host[16];
  expect(clEnqueueReadBuffer(q, buf, CL_TRUE, 4096 * sizeof(cl_int) - 8, 16, host, 0, NULL, NULL), CL_INVALID_VALUE,
         "clEnqueueReadBuffer(past the end)");
  expect(clEnqueueReadBuffer(q, NULL, CL_TRUE, 0, 16, host, 0, NULL, NULL), CL_INVALID_MEM_OBJECT,
         "clEnqueueReadBuffer(NULL buffer)");
  expect(clEnqueueReadBuffer(NULL, buf, CL_TRUE, 0, 16, host, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE,
         "clEnqueueReadBuffer(NULL queue)");
  /* "CL_INVALID_CONTEXT if the context associated with command_queue and buffer are not the same". */
  expect(clEnqueueReadBuffer(q2, buf, CL_TRUE, 0, 16, host, 0, NULL, NULL), CL_INVALID_CONTEXT,
         "clEnqueueReadBuffer(queue of another context)");
  /* "CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and num_events_in_wait_list > 0, or
     event_wait_list is not NULL and num_events_in_wait_list is 0". */
  cl_event some_event = NULL;
  MUST(clEnqueueMarkerWithWaitList(q, 0, NULL, &some_event));
  expect(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 16, host, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST,
         "clEnqueueReadBuffer(1 event, NULL list)");
  expect(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 16, host, 0, &some_event, NULL), CL_INVALID_EVENT_WAIT_LIST,
         "clEnqueueReadBuffer(0 events, a list)");
  clCreateBuffer(NULL, CL_MEM_READ_WRITE, 16, NULL, &err);
  expect(err, CL_INVALID_CONTEXT, "clCreateBuffer(NULL context)");

  /* ---- Events (5.9) ---- */
  expect(clWaitForEvents(0, NULL), CL_INVALID_VALUE, "clWaitForEvents(0 events)");
  expect(clWaitForEvents(1, NULL), CL_INVALID_VALUE, "clWaitForEvents(1 event, NULL list)");
  cl_int exec;
  expect(clGetEventInfo(NULL, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL), CL_INVALID_EVENT,
         "clGetEventInfo(NULL event)");
  expect(clReleaseEvent(NULL), CL_INVALID_EVENT, "clReleaseEvent(NULL)");
  expect(clGetEventInfo(some_event, 0x7fff, sizeof exec, &exec, NULL), CL_INVALID_VALUE,
         "clGetEventInfo(unknown param)");
  /* "CL_INVALID_CONTEXT if events specified in event_list do not belong to the same context". */
  cl_event other_event = NULL;
  MUST(clEnqueueMarkerWithWaitList(q2, 0, NULL, &other_event));
  cl_event mixed[2] = {some_event, other_event};
  expect(clWaitForEvents(2, mixed), CL_INVALID_CONTEXT, "clWaitForEvents(events of two contexts)");
  /* "CL_INVALID_CONTEXT if context associated with command_queue and events in event_wait_list are not
     the same". */
  expect(clEnqueueMarkerWithWaitList(q, 1, &other_event, NULL), CL_INVALID_CONTEXT,
         "clEnqueueMarkerWithWaitList(event of another context)");

  /* ---- NULL objects of every kind ---- */
  expect(clRetainMemObject(NULL), CL_INVALID_MEM_OBJECT, "clRetainMemObject(NULL)");
  expect(clReleaseMemObject(NULL), CL_INVALID_MEM_OBJECT, "clReleaseMemObject(NULL)");
  expect(clRetainKernel(NULL), CL_INVALID_KERNEL, "clRetainKernel(NULL)");
  expect(clReleaseKernel(NULL), CL_INVALID_KERNEL, "clReleaseKernel(NULL)");
  expect(clRetainProgram(NULL), CL_INVALID_PROGRAM, "clRetainProgram(NULL)");
  expect(clReleaseProgram(NULL), CL_INVALID_PROGRAM, "clReleaseProgram(NULL)");
  expect(clRetainCommandQueue(NULL), CL_INVALID_COMMAND_QUEUE, "clRetainCommandQueue(NULL)");
  expect(clRetainContext(NULL), CL_INVALID_CONTEXT, "clRetainContext(NULL)");
  expect(clFinish(NULL), CL_INVALID_COMMAND_QUEUE, "clFinish(NULL)");
  expect(clGetProgramBuildInfo(program, NULL, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL), CL_INVALID_DEVICE,
         "clGetProgramBuildInfo(NULL device)");

  MUST(clFinish(q));
  MUST(clFinish(q2));
  MUST(clReleaseEvent(some_event));
  MUST(clReleaseEvent(other_event));
  MUST(clReleaseCommandQueue(q2));
  MUST(clReleaseContext(ctx2));
  MUST(clReleaseMemObject(buf));
  MUST(clReleaseKernel(k));
  MUST(clReleaseKernel(fixed));
  MUST(clReleaseProgram(program));
  MUST(clReleaseCommandQueue(q));
  MUST(clReleaseContext(ctx));
  return finish();
}
