/* __local memory beyond CL_DEVICE_LOCAL_MEM_SIZE: on the default device (H100, which reports 49152
 * bytes) ptxray runs a kernel with a 65536-byte __local argument, and one with 65536 bytes of static
 * __local, where OpenCL 1.2 (5.8, clEnqueueNDRangeKernel) has CL_OUT_OF_RESOURCES (or, for the static
 * array, a build failure, as NVIDIA's compiler gives). With --arch k20x or gtx280 the same launches
 * are refused, as expected: ptxray checks an sm_90 launch against CUDA's opt-in limit (232448 bytes)
 * instead of the limit its OpenCL device reports. (PoCL's device has 1 MiB: both run there.)
 *   gcc -std=c11 local_mem_limit.c -lOpenCL && ptxray exec -- ./a.out */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *source =
    "__kernel void dyn(__global int *o, __local int *l) {\n"
    "  l[get_local_id(0)] = 1; barrier(CLK_LOCAL_MEM_FENCE); o[get_global_id(0)] = l[0]; }\n"
    "__kernel void fixed(__global int *o) { __local int s[16384];\n"
    "  s[get_local_id(0)] = 1; barrier(CLK_LOCAL_MEM_FENCE); o[get_global_id(0)] = s[16383 - get_local_id(0)]; }\n";

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  cl_ulong local_mem;
  clGetPlatformIDs(1, &platform, NULL);
  clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
  clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, NULL);
  printf("CL_DEVICE_LOCAL_MEM_SIZE %llu\n", (unsigned long long)local_mem);
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
  cl_program p = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  printf("clBuildProgram %d\n", (int)clBuildProgram(p, 1, &device, "", NULL, NULL));
  cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
  size_t global = 64, local = 64;
  const int expected = 65536 > local_mem ? CL_OUT_OF_RESOURCES : CL_SUCCESS;

  cl_kernel dyn = clCreateKernel(p, "dyn", &err);
  clSetKernelArg(dyn, 0, sizeof out, &out);
  clSetKernelArg(dyn, 1, 65536, NULL);
  printf("dyn, 65536-byte __local argument: clEnqueueNDRangeKernel %d (expected %d)\n",
         (int)clEnqueueNDRangeKernel(q, dyn, 1, NULL, &global, &local, 0, NULL, NULL), expected);
  printf("clFinish %d\n", (int)clFinish(q));

  cl_kernel fixed = clCreateKernel(p, "fixed", &err);
  cl_ulong kernel_local = 0;
  clGetKernelWorkGroupInfo(fixed, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof kernel_local, &kernel_local, NULL);
  clSetKernelArg(fixed, 0, sizeof out, &out);
  printf("fixed, CL_KERNEL_LOCAL_MEM_SIZE %llu: clEnqueueNDRangeKernel %d (expected %d)\n",
         (unsigned long long)kernel_local,
         (int)clEnqueueNDRangeKernel(q, fixed, 1, NULL, &global, &local, 0, NULL, NULL), expected);
  printf("clFinish %d\n", (int)clFinish(q));
  return 0;
}
