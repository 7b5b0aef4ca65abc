/* OpenCL 1.2 built-ins that ptxray's compiler does not know: printf (6.12.13) and the vload_half /
 * vstore_half family (6.12.7). Prints clBuildProgram's status for each kernel (0 expected: PoCL
 * builds both), then the build log when it fails.
 *   gcc -std=c11 builtins.c -lOpenCL && ptxray exec -- ./a.out */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

int main(void) {
  const char *sources[] = {
      "__kernel void k(int x) { printf(\"x = %d\\n\", x); }\n",
      "__kernel void k(__global const half *h, __global float *f) {\n"
      "  f[0] = vload_half(0, h); vstore_half(f[0], 1, (__global half *)f); }\n",
  };
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  cl_ulong printf_buffer = 0;
  clGetPlatformIDs(1, &platform, NULL);
  clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
  clGetDeviceInfo(device, CL_DEVICE_PRINTF_BUFFER_SIZE, sizeof printf_buffer, &printf_buffer, NULL);
  printf("CL_DEVICE_PRINTF_BUFFER_SIZE %llu\n", (unsigned long long)printf_buffer);
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  for (int i = 0; i < 2; i++) {
    cl_program p = clCreateProgramWithSource(ctx, 1, &sources[i], NULL, &err);
    err = clBuildProgram(p, 1, &device, "", NULL, NULL);
    printf("%s: clBuildProgram %d\n", i == 0 ? "printf" : "vload_half/vstore_half", (int)err);
    if (err != CL_SUCCESS) {
      char log[4096] = "";
      clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
      printf("%s", log);
    }
    clReleaseProgram(p);
  }
  clReleaseContext(ctx);
  return 0;
}
