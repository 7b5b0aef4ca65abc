// An OpenCL program whose kernel writes past the end of its buffer: on a GPU the context is lost and
// the error shows at the next synchronization (CL_OUT_OF_RESOURCES). Under ptxray the fault is also
// reported with its kernel, work-item and OpenCL source line, and memcheck reports the access.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *kSource =
    "__kernel void scale(__global float *data, int n) {\n"
    "  int i = get_global_id(0);\n"
    "  data[i * 64] = 2.0f * i; // past the end for i >= n / 64\n"
    "}\n";

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  cl_int e = clGetPlatformIDs(1, &platform, NULL);
  e |= clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &e);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &e);
  cl_program program = clCreateProgramWithSource(context, 1, &kSource, NULL, &e);
  e = clBuildProgram(program, 1, &device, NULL, NULL, NULL);
  cl_kernel kernel = clCreateKernel(program, "scale", &e);
  const int n = 1024;
  cl_mem data = clCreateBuffer(context, CL_MEM_READ_WRITE, n * sizeof(float), NULL, &e);
  clSetKernelArg(kernel, 0, sizeof data, &data);
  clSetKernelArg(kernel, 1, sizeof n, &n);
  const size_t global = 256, local = 64;
  e = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
  printf("clEnqueueNDRangeKernel: %d\n", e);
  printf("clFinish: %d\n", clFinish(queue));
  float first = 0;
  printf("clEnqueueReadBuffer: %d\n", clEnqueueReadBuffer(queue, data, CL_TRUE, 0, sizeof first, &first, 0, NULL, NULL));
  return 0;
}
