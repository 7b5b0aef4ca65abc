// 1D and 2D image arrays and 1D image buffers (OpenCL 1.2, 5.3): created from host data, read by a
// kernel (with a sampler and without, the layer taken from the coordinate's last component, rounded
// and clamped, 6.12.14.2), written by a kernel and read back, and their clGetImageInfo values.
// Float and 32-bit integer channels only, so every implementation prints the same values.
#define CL_TARGET_OPENCL_VERSION 120
#include "cltest.h"

#include <string.h>

// Unlike the header's MUST, CHECK prints the code as a number and returns from main.
#define CHECK(call)                                                                                        \
  do {                                                                                                     \
    cl_int e_ = (call);                                                                                    \
    if (e_ != CL_SUCCESS) {                                                                                \
      printf("line %d: %s returned %d: FAIL\n", __LINE__, #call, e_);                                      \
      return 1;                                                                                            \
    }                                                                                                      \
  } while (0)

static const char *kSource =
    "__kernel void readArrays(read_only image1d_array_t a1, read_only image2d_array_t a2,\n"
    "                         read_only image1d_buffer_t b1, sampler_t s, __global float *out) {\n"
    "  int i = get_global_id(0);\n"
    "  out[i * 6 + 0] = read_imagef(a1, s, (int2)(i % 8, i / 8)).x;\n"
    "  out[i * 6 + 1] = read_imagef(a1, (int2)(i % 8, 2)).y;\n"
    "  out[i * 6 + 2] = read_imagef(a2, s, (int4)(i % 4, (i / 4) % 2, i / 8, 0)).x;\n"
    "  out[i * 6 + 3] = read_imagef(a2, s, (float4)(i % 4 + 0.5f, 0.5f, 7.0f, 0)).x; // layer clamped\n"
    "  out[i * 6 + 4] = read_imagef(b1, i).x;\n"
    "  out[i * 6 + 5] = (float)(get_image_array_size(a1) * 100 + get_image_array_size(a2) * 10 +\n"
    "                           get_image_width(a1));\n"
    "}\n"
    "__kernel void writeArray(write_only image2d_array_t a, write_only image1d_array_t b) {\n"
    "  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
    "  write_imageui(a, (int4)(x, y, z, 0), (uint4)(x + 10 * y + 100 * z, 7, 8, 9));\n"
    "  if (y == 0) write_imagef(b, (int2)(x, z), (float4)(x * 0.5f, z, 0, 1));\n"
    "}\n";

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  CHECK(clGetPlatformIDs(1, &platform, NULL));
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
  cl_bool images = CL_FALSE;
  CHECK(clGetDeviceInfo(device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL));
  if (!images) {
    printf("no image support\n");
    return 1;
  }
  cl_int e;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &e);
  CHECK(e);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &e);
  CHECK(e);

  // A 1D array of 3 layers of 8 RGBA floats: value = 10 * layer + x (red), layer (green).
  float a1Data[3][8][4];
  for (int l = 0; l < 3; ++l)
    for (int x = 0; x < 8; ++x) {
      a1Data[l][x][0] = (float)(10 * l + x);
      a1Data[l][x][1] = (float)l;
      a1Data[l][x][2] = 0;
      a1Data[l][x][3] = 1;
    }
  cl_image_format rgbaFloat = {CL_RGBA, CL_FLOAT}, rFloat = {CL_R, CL_FLOAT}, rgbaUint = {CL_RGBA, CL_UNSIGNED_INT32};
  cl_image_desc d1 = {0};
  d1.image_type = CL_MEM_OBJECT_IMAGE1D_ARRAY;
  d1.image_width = 8;
  d1.image_array_size = 3;
  cl_mem a1 = clCreateImage(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &rgbaFloat, &d1, a1Data, &e);
  CHECK(e);
  // A 2D array of 2 layers of 4 x 2 R floats: value = 100 * layer + 10 * y + x.
  float a2Data[2][2][4];
  for (int l = 0; l < 2; ++l)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 4; ++x)
        a2Data[l][y][x] = (float)(100 * l + 10 * y + x);
  cl_image_desc d2 = {0};
  d2.image_type = CL_MEM_OBJECT_IMAGE2D_ARRAY;
  d2.image_width = 4;
  d2.image_height = 2;
  d2.image_array_size = 2;
  cl_mem a2 = clCreateImage(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &rFloat, &d2, a2Data, &e);
  CHECK(e);
  // A 1D image over a buffer of 16 floats: value = 1000 + i.
  float bufData[16];
  for (int i = 0; i < 16; ++i)
    bufData[i] = (float)(1000 + i);
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof bufData, bufData, &e);
  CHECK(e);
  cl_image_desc db = {0};
  db.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
  db.image_width = 16;
  db.buffer = buffer;
  cl_mem b1 = clCreateImage(context, CL_MEM_READ_ONLY, &rFloat, &db, NULL, &e);
  CHECK(e);

  size_t v = 0;
  CHECK(clGetImageInfo(a1, CL_IMAGE_ARRAY_SIZE, sizeof v, &v, NULL));
  printf("1D array: CL_IMAGE_ARRAY_SIZE %zu", v);
  CHECK(clGetImageInfo(a1, CL_IMAGE_HEIGHT, sizeof v, &v, NULL));
  printf(", CL_IMAGE_HEIGHT %zu\n", v);
  CHECK(clGetImageInfo(a2, CL_IMAGE_ARRAY_SIZE, sizeof v, &v, NULL));
  printf("2D array: CL_IMAGE_ARRAY_SIZE %zu", v);
  CHECK(clGetImageInfo(a2, CL_IMAGE_DEPTH, sizeof v, &v, NULL));
  printf(", CL_IMAGE_DEPTH %zu\n", v);
  cl_mem associated = NULL;
  CHECK(clGetImageInfo(b1, CL_IMAGE_BUFFER, sizeof associated, &associated, NULL));
  check(associated == buffer, "CL_IMAGE_BUFFER names the 1D image buffer's buffer");

  cl_program program = clCreateProgramWithSource(context, 1, &kSource, NULL, &e);
  CHECK(e);
  if (clBuildProgram(program, 1, &device, NULL, NULL, NULL) != CL_SUCCESS) {
    char log[4096] = {0};
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    printf("build failed: FAIL\n%s\n", log);
    return 1;
  }
  cl_kernel reader = clCreateKernel(program, "readArrays", &e);
  CHECK(e);
  cl_sampler sampler = clCreateSampler(context, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &e);
  CHECK(e);
  cl_mem out = clCreateBuffer(context, CL_MEM_WRITE_ONLY, 16 * 6 * sizeof(float), NULL, &e);
  CHECK(e);
  CHECK(clSetKernelArg(reader, 0, sizeof a1, &a1));
  CHECK(clSetKernelArg(reader, 1, sizeof a2, &a2));
  CHECK(clSetKernelArg(reader, 2, sizeof b1, &b1));
  CHECK(clSetKernelArg(reader, 3, sizeof sampler, &sampler));
  CHECK(clSetKernelArg(reader, 4, sizeof out, &out));
  const size_t items = 16;
  CHECK(clEnqueueNDRangeKernel(queue, reader, 1, NULL, &items, NULL, 0, NULL, NULL));
  float results[16 * 6];
  CHECK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof results, results, 0, NULL, NULL));
  for (int i = 0; i < 16; ++i)
    printf("work-item %2d: %g %g %g %g %g %g\n", i, results[i * 6], results[i * 6 + 1], results[i * 6 + 2],
           results[i * 6 + 3], results[i * 6 + 4], results[i * 6 + 5]);

  // Kernel writes: a 2D array of uint4 and a 1D array of float4, read back by the host.
  cl_image_desc w2 = {0};
  w2.image_type = CL_MEM_OBJECT_IMAGE2D_ARRAY;
  w2.image_width = 3;
  w2.image_height = 2;
  w2.image_array_size = 2;
  cl_mem wa = clCreateImage(context, CL_MEM_WRITE_ONLY, &rgbaUint, &w2, NULL, &e);
  CHECK(e);
  cl_image_desc w1 = {0};
  w1.image_type = CL_MEM_OBJECT_IMAGE1D_ARRAY;
  w1.image_width = 3;
  w1.image_array_size = 2;
  cl_mem wb = clCreateImage(context, CL_MEM_WRITE_ONLY, &rgbaFloat, &w1, NULL, &e);
  CHECK(e);
  cl_kernel writer = clCreateKernel(program, "writeArray", &e);
  CHECK(e);
  CHECK(clSetKernelArg(writer, 0, sizeof wa, &wa));
  CHECK(clSetKernelArg(writer, 1, sizeof wb, &wb));
  const size_t grid[3] = {3, 2, 2};
  CHECK(clEnqueueNDRangeKernel(queue, writer, 3, NULL, grid, NULL, 0, NULL, NULL));
  cl_uint written[2][2][3][4];
  const size_t origin[3] = {0, 0, 0}, region2[3] = {3, 2, 2}, region1[3] = {3, 2, 1};
  CHECK(clEnqueueReadImage(queue, wa, CL_TRUE, origin, region2, 0, 0, written, 0, NULL, NULL));
  printf("2D array written:");
  for (int l = 0; l < 2; ++l)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 3; ++x)
        printf(" %u", written[l][y][x][0]);
  printf(" (other channels %u %u %u)\n", written[1][1][2][1], written[1][1][2][2], written[1][1][2][3]);
  float written1[2][3][4];
  CHECK(clEnqueueReadImage(queue, wb, CL_TRUE, origin, region1, 0, 0, written1, 0, NULL, NULL));
  printf("1D array written:");
  for (int l = 0; l < 2; ++l)
    for (int x = 0; x < 3; ++x)
      printf(" (%g,%g)", written1[l][x][0], written1[l][x][1]);
  printf("\n");

  // A host write into one layer of the 2D array, read back.
  float layer1[2][4] = {{-1, -2, -3, -4}, {-5, -6, -7, -8}};
  const size_t at[3] = {0, 0, 1}, oneLayer[3] = {4, 2, 1};
  CHECK(clEnqueueWriteImage(queue, a2, CL_TRUE, at, oneLayer, 0, 0, layer1, 0, NULL, NULL));
  float back[2][2][4];
  const size_t all[3] = {4, 2, 2};
  CHECK(clEnqueueReadImage(queue, a2, CL_TRUE, origin, all, 0, 0, back, 0, NULL, NULL));
  check(back[0][1][3] == 13 && back[1][0][0] == -1 && back[1][1][3] == -8, "a host write lands in its layer");

  clReleaseMemObject(b1);
  clReleaseMemObject(buffer);
  clReleaseMemObject(a1);
  clReleaseMemObject(a2);
  clReleaseMemObject(wa);
  clReleaseMemObject(wb);
  clReleaseMemObject(out);
  clReleaseSampler(sampler);
  clReleaseKernel(reader);
  clReleaseKernel(writer);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return finish();
}
