/* A deliberately buggy OpenCL 1.2 program for validation/opencl/compare.sh: three kernels, one bug
 * each, that a native implementation (PoCL) runs without a word:
 *
 *   oob_write    an out-of-bounds global write: work-item i writes out[i + 1], so the last one
 *                writes one element past the end of a 64-int buffer,
 *   local_race   a __local race: each work-item writes tile[lid] and reads its neighbour's
 *                tile[(lid + 1) % 64] with no barrier in between (two warps of 32 on an NVIDIA GPU:
 *                work-item 31 reads what work-item 32, of the other warp, writes),
 *   uninit_local an uninitialized __local read: only the first half of the work-group writes its
 *                element of tmp (lid >= 32 writes tmp[lid]), then, after a barrier, every work-item
 *                reads tmp[63 - lid], so work-items 32..63 read tmp[31..0], which nobody wrote.
 *
 * It runs local_race, uninit_local, then oob_write (the last, since a GPU's launch that faults leaves
 * the context unusable: NVIDIA's driver, and ptxray, fail the next blocking call), or those named on
 * the command line:   buggy [local_race] [uninit_local] [oob_write]
 * It prints what it can print the same way everywhere (a checksum of the correct part of each result)
 * and exits 0, as a program with these bugs usually does on a CPU; 2 when an OpenCL call fails.
 *
 * Build: gcc -O2 -std=c11 -DCL_TARGET_OPENCL_VERSION=120 buggy.c -lOpenCL */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 64 /* one work-group of 64 work-items per kernel */

static const char *source =
    "__kernel void oob_write(__global int *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i + 1] = (int)i;              /* i == 63 writes out[64]: out of bounds */\n"
    "}\n"
    "\n"
    "__kernel void local_race(__global int *out) {\n"
    "  __local int tile[64];\n"
    "  size_t lid = get_local_id(0);\n"
    "  tile[lid] = (int)lid * 2;\n"
    "  /* missing: barrier(CLK_LOCAL_MEM_FENCE); */\n"
    "  out[get_global_id(0)] = tile[(lid + 1) % 64];\n"
    "}\n"
    "\n"
    "__kernel void uninit_local(__global int *out) {\n"
    "  __local int tmp[64];\n"
    "  size_t lid = get_local_id(0);\n"
    "  if (lid >= 32)\n"
    "    tmp[lid] = (int)lid;            /* tmp[0..31] are never written */\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = tmp[63 - lid]; /* lid >= 32 reads tmp[31..0] */\n"
    "}\n";

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cl_int e_ = (call);                                                                            \
    if (e_ != CL_SUCCESS) {                                                                        \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)e_);               \
      exit(2);                                                                                     \
    }                                                                                              \
  } while (0)

static cl_context ctx;
static cl_command_queue queue;
static cl_program program;

/* Whether the command line asks for the kernel: no arguments, or one that names it. */
static int wanted(int argc, char **argv, const char *name) {
  if (argc < 2) return 1;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], name)) return 1;
  return 0;
}

/* Zeroes out, runs one kernel over N work-items (one work-group) on it, and reads it back into host. */
static void run(const char *name, cl_mem out, int *host) {
  cl_int err;
  const int zeros[N] = {0};
  CHECK(clEnqueueWriteBuffer(queue, out, CL_TRUE, 0, sizeof zeros, zeros, 0, NULL, NULL));
  cl_kernel k = clCreateKernel(program, name, &err);
  CHECK(err);
  CHECK(clSetKernelArg(k, 0, sizeof out, &out));
  size_t global = N, local = N;
  CHECK(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, N * sizeof(int), host, 0, NULL, NULL));
  CHECK(clReleaseKernel(k));
}

int main(int argc, char **argv) {
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  CHECK(clGetPlatformIDs(1, &platform, NULL));
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
  ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK(err);
  queue = clCreateCommandQueue(ctx, device, 0, &err);
  CHECK(err);
  program = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  CHECK(err);
  if (clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "build failed:\n%s\n", log);
    return 2;
  }

  cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(int), NULL, &err);
  CHECK(err);
  int host[N];

  if (wanted(argc, argv, "local_race")) {
    /* local_race: out[i] is 2 * ((i + 1) % 64) if work-item i + 1 wrote before work-item i read, else
       whatever tile held (local memory is not initialized). Standard output says only that it ran;
       how many work-items saw their neighbour's write goes to stderr, as it may differ between
       implementations and runs (that is the bug). */
    run("local_race", out, host);
    int seen = 0;
    for (int i = 0; i < N; i++) seen += host[i] == 2 * ((i + 1) % N);
    printf("local_race: ran\n");
    fprintf(stderr, "local_race: %d of %d work-items saw their neighbour's write\n", seen, N);
  }
  if (wanted(argc, argv, "uninit_local")) {
    /* uninit_local: out[0..31] = 63..32 are defined; out[32..63] are not. */
    run("uninit_local", out, host);
    long sum = 0;
    for (int i = 0; i < N / 2; i++) sum += host[i];
    printf("uninit_local: sum of the defined half = %ld (expected %d)\n", sum, (32 + 63) * 32 / 2);
  }
  if (wanted(argc, argv, "oob_write")) {
    /* oob_write: out[1..63] = 0..62 (the in-bounds part); out[0] stays 0. */
    run("oob_write", out, host);
    long sum = 0;
    for (int i = 0; i < N; i++) sum += host[i];
    printf("oob_write: sum of out[0..63] = %ld (expected %d)\n", sum, 62 * 63 / 2);
  }
  clReleaseMemObject(out);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(ctx);
  return 0;
}
