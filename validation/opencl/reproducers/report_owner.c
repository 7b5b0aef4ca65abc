/* `ptxray exec --tool initcheck --report r.json` puts the finding of a kernel whose launch faulted on
 * another kernel's analysis: `bad` reads __local memory nobody wrote and then writes past its buffer
 * (the launch faults), and r.json lists "uninitialized-read" under `good`, which is clean, and has no
 * analysis of `bad` (session/Analyses.cpp attachReports: a report whose kernel has no analysis goes to
 * the last one; with no analysis at all it is dropped).
 *   gcc -std=c11 report_owner.c -lOpenCL
 *   ptxray exec --tool initcheck --report r.json -- ./a.out
 *   jq -c '.analyses[] | {kernel, rules: [.findings[].rule]}' r.json */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *source =
    "__kernel void good(__global int *o) { o[get_global_id(0)] = 1; }\n"
    "__kernel void bad(__global int *o) {\n"
    "  __local int t[32];\n"
    "  size_t l = get_local_id(0);\n"
    "  if (l & 1) t[l] = (int)l;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  o[get_global_id(0) + 1] = t[l ^ 1];   /* even l reads t[l + 1]; odd l reads unwritten t[l - 1] */\n"
    "}\n";

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  size_t n = 32;
  clGetPlatformIDs(1, &platform, NULL);
  clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
  cl_program p = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  clBuildProgram(p, 1, &device, "", NULL, NULL);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(int), NULL, &err);
  const char *names[2] = {"good", "bad"};
  for (int i = 0; i < 2; i++) {
    cl_kernel k = clCreateKernel(p, names[i], &err);
    clSetKernelArg(k, 0, sizeof out, &out);
    clEnqueueNDRangeKernel(q, k, 1, NULL, &n, &n, 0, NULL, NULL);
    printf("%s: clFinish %d\n", names[i], (int)clFinish(q));
  }
  return 0;
}
