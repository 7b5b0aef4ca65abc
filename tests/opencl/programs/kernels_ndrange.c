/* kernels_ndrange.c: programs, kernels and NDRange execution of OpenCL 1.2 (spec sections 5.6, 5.7,
 * 5.8 and the work-item functions of 6.12.1): building from source and from binaries, program, build,
 * kernel, argument and work-group queries, NDRanges of 1, 2 and 3 dimensions with and without local
 * sizes and offsets, __local arguments, value arguments (int, float, float4, a struct), __constant
 * arguments, build options, atomics, clEnqueueTask and native kernels.
 *
 * Prints computed results, spec-fixed values and result codes, and "ok"/"FAIL" lines for what depends
 * on the device, so that the output is the same under every conforming implementation. Exit status 0
 * when every check passes, 1 otherwise. */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS /* clEnqueueTask */
#include "cltest.h"
#include <stdint.h>
#include <string.h>

/* The program comes in two strings (clCreateProgramWithSource concatenates them, 5.6.1): the first with
   an explicit length, the second NUL-terminated. */
static const char *source_head =
    "/* The host's struct Params has the same layout: float4 is 16-byte aligned on both sides. */\n"
    "typedef struct { int a; float b; float4 v; char c; } Params;\n"
    "#ifndef SCALE\n"
    "#error SCALE comes from the build options (-D SCALE=3)\n"
    "#endif\n"
    "__constant int table[4] = {10, 20, 30, 40};\n";
static const char *source_body =
    "/* 24 uints per work-item at its place in the NDRange (the offset taken away). */\n"
    "__kernel void ids(__global uint *out) {\n"
    "  size_t x = get_global_id(0) - get_global_offset(0), y = get_global_id(1) - get_global_offset(1),\n"
    "         z = get_global_id(2) - get_global_offset(2);\n"
    "  __global uint *o = out + 24 * ((z * get_global_size(1) + y) * get_global_size(0) + x);\n"
    "  for (uint d = 0; d < 3; d++) {\n"
    "    o[d] = get_global_id(d);\n"
    "    o[3 + d] = get_local_id(d);\n"
    "    o[6 + d] = get_group_id(d);\n"
    "    o[9 + d] = get_num_groups(d);\n"
    "    o[12 + d] = get_global_offset(d);\n"
    "    o[15 + d] = get_local_size(d);\n"
    "    o[18 + d] = get_global_size(d);\n"
    "  }\n"
    "  o[21] = get_work_dim();\n"
    "  o[22] = 0xabcd;\n"
    "  o[23] = 0;\n"
    "}\n"
    "/* A tree reduction in a __local argument: one partial sum per work-group. */\n"
    "__kernel void reduce(__global const int *in, __global int *partial, __local int *scratch) {\n"
    "  size_t l = get_local_id(0);\n"
    "  scratch[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {\n"
    "    if (l < s) scratch[l] += scratch[l + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) partial[get_group_id(0)] = scratch[0];\n"
    "}\n"
    "/* A static __local array: reverses each group's 64 elements. */\n"
    "__kernel void reverse_tile(__global int *data) {\n"
    "  __local int tile[64];\n"
    "  size_t l = get_local_id(0);\n"
    "  tile[l] = data[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  data[get_global_id(0)] = tile[get_local_size(0) - 1 - l];\n"
    "}\n"
    "__kernel __attribute__((reqd_work_group_size(8, 4, 1))) void fixed(__global int *out) {\n"
    "  out[get_global_id(1) * get_global_size(0) + get_global_id(0)] =\n"
    "      (int)(get_local_id(0) + 10 * get_local_id(1) + 100 * get_group_id(0) + 1000 * get_group_id(1));\n"
    "}\n"
    "/* Value arguments of several types and a __constant buffer argument. */\n"
    "__kernel void values(__global float *out, int i, float f, float4 v, Params s,\n"
    "                     __constant int *ctab, char c, ulong big) {\n"
    "  if (get_global_id(0) != 0) return;\n"
    "  out[0] = (float)i; out[1] = f;\n"
    "  out[2] = v.x; out[3] = v.y; out[4] = v.z; out[5] = v.w;\n"
    "  out[6] = (float)s.a; out[7] = s.b;\n"
    "  out[8] = s.v.x; out[9] = s.v.y; out[10] = s.v.z; out[11] = s.v.w; out[12] = (float)s.c;\n"
    "  out[13] = (float)(ctab[0] + ctab[3]);\n"
    "  out[14] = (float)(table[2] * SCALE);\n"
    "  out[15] = (float)c;\n"
    "  out[16] = (float)(big >> 40);\n"
    "}\n"
    "/* Multiply-adds of exact values: the same result with or without -cl-mad-enable. */\n"
    "__kernel void axpb(__global float *restrict out, const __global float *a, float m, float b) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = a[i] * m + b;\n"
    "}\n"
    "/* A NULL buffer argument arrives as a null pointer. */\n"
    "__kernel void null_arg(__global int *out, __global int *maybe) {\n"
    "  out[0] = maybe == 0 ? 1 : 2;\n"
    "}\n"
    "__kernel void atomics(volatile __global int *counter, volatile __global int *bins) {\n"
    "  atomic_inc(counter);\n"
    "  atomic_add(&bins[get_global_id(0) % 8], (int)get_global_id(0));\n"
    "  atomic_max(&counter[1], (int)get_global_id(0));\n"
    "}\n"
    "__kernel void fill(__global int *out, int v) {\n"
    "  out[get_global_id(0)] = v;\n"
    "}\n"
    "__kernel void task(__global uint *out) {\n"
    "  out[0] = get_global_size(0); out[1] = get_local_size(0); out[2] = get_global_id(0);\n"
    "  out[3] = get_work_dim(); out[4] = get_num_groups(0);\n"
    "}\n";

#define BUILD_OPTIONS "-D SCALE=3 -cl-mad-enable -cl-kernel-arg-info"

typedef struct {
  cl_int a;
  cl_float b;
  cl_float4 v;
  cl_char c;
} Params;

static cl_context ctx;
static cl_command_queue q;
static cl_device_id device;

static cl_mem make(cl_mem_flags flags, size_t size, void *host) {
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, flags, size, host, &err);
  MUST(err);
  return m;
}

static cl_kernel kernel(cl_program p, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  MUST(err);
  return k;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs `ids` over an NDRange and prints what the work-items saw: sums over all work-items of each
   field, and a check that each work-item's ids agree with one another (6.12.1: global id = group id *
   local size + local id + offset). Without a local size the implementation picks it (5.8), so the local
   ids, group ids, group counts and local sizes are only checked, not printed. */
static void run_ids(cl_program program, const char *label, cl_uint dims, const size_t *offset, const size_t *global,
                    const size_t *local) {
  size_t items = 1, g[3] = {1, 1, 1}, off[3] = {0, 0, 0};
  for (cl_uint d = 0; d < dims; d++) {
    items *= global[d], g[d] = global[d];
    if (offset)
      off[d] = offset[d];
  }
  cl_uint *out = calloc(items * 24, sizeof(cl_uint));
  cl_mem buf = make(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, items * 24 * sizeof(cl_uint), out);
  cl_kernel k = kernel(program, "ids");
  MUST(clSetKernelArg(k, 0, sizeof buf, &buf));
  MUST(clEnqueueNDRangeKernel(q, k, dims, offset, global, local, 0, NULL, NULL));
  MUST(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, items * 24 * sizeof(cl_uint), out, 0, NULL, NULL));
  unsigned long sums[24] = {0};
  int consistent = 1;
  for (size_t i = 0; i < items; i++) {
    const cl_uint *o = out + 24 * i;
    size_t x = i % g[0], y = i / g[0] % g[1], z = i / (g[0] * g[1]);
    size_t pos[3] = {x, y, z};
    for (int f = 0; f < 24; f++)
      sums[f] += o[f];
    for (int d = 0; d < 3; d++) {
      size_t gid = o[d], lid = o[3 + d], grp = o[6 + d], ngrp = o[9 + d], goff = o[12 + d], lsz = o[15 + d],
             gsz = o[18 + d];
      consistent &= gid == pos[d] + off[d] && goff == off[d] && gsz == g[d] && lid < lsz &&
                    gid == grp * lsz + lid + goff && ngrp * lsz == gsz && grp < ngrp;
      if (local)
        consistent &= lsz == (d < (int)dims ? local[d] : 1);
    }
    consistent &= o[21] == dims && o[22] == 0xabcd;
  }
  /* Offsets, global sizes and work_dim are the same in every work-item (checked below): item 0's. */
  printf("%s: global id sums %lu %lu %lu, offsets %u %u %u, global sizes %u %u %u, work_dim %u", label, sums[0],
         sums[1], sums[2], out[12], out[13], out[14], out[18], out[19], out[20], out[21]);
  if (local)
    printf(", local id sums %lu %lu %lu, group id sums %lu %lu %lu, group counts %lu %lu %lu", sums[3], sums[4],
           sums[5], sums[6], sums[7], sums[8], sums[9] / items, sums[10] / items, sums[11] / items);
  printf("\n");
  check(consistent, "%s: every work-item's ids agree", label);
  MUST(clReleaseKernel(k));
  MUST(clReleaseMemObject(buf));
  free(out);
}

/* Runs `values` and returns its 17 floats. */
static void run_values(cl_program program, float result[17]) {
  cl_kernel k = kernel(program, "values");
  cl_mem out = make(CL_MEM_WRITE_ONLY, 17 * sizeof(float), NULL);
  cl_int ctab_host[4] = {5, 6, 7, 8};
  cl_mem ctab = make(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof ctab_host, ctab_host);
  cl_int i = -42;
  cl_float f = 2.5f;
  cl_float4 v = {{1.5f, -2.25f, 1024.0f, 0.125f}};
  Params s;
  memset(&s, 0, sizeof s);
  s.a = 77, s.b = -0.5f, s.v.s[0] = 9, s.v.s[1] = 8, s.v.s[2] = 7, s.v.s[3] = 6, s.c = -3;
  cl_char c = 'A';
  cl_ulong big = (cl_ulong)12345 << 40;
  MUST(clSetKernelArg(k, 0, sizeof out, &out));
  MUST(clSetKernelArg(k, 1, sizeof i, &i));
  MUST(clSetKernelArg(k, 2, sizeof f, &f));
  MUST(clSetKernelArg(k, 3, sizeof v, &v));
  MUST(clSetKernelArg(k, 4, sizeof s, &s));
  MUST(clSetKernelArg(k, 5, sizeof ctab, &ctab));
  MUST(clSetKernelArg(k, 6, sizeof c, &c));
  MUST(clSetKernelArg(k, 7, sizeof big, &big));
  size_t one = 1;
  MUST(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL));
  MUST(clEnqueueReadBuffer(q, out, CL_TRUE, 0, 17 * sizeof(float), result, 0, NULL, NULL));
  MUST(clReleaseMemObject(out));
  MUST(clReleaseMemObject(ctab));
  MUST(clReleaseKernel(k));
}

static const char *address_name(cl_kernel_arg_address_qualifier a) {
  switch (a) {
  case CL_KERNEL_ARG_ADDRESS_GLOBAL: return "GLOBAL";
  case CL_KERNEL_ARG_ADDRESS_LOCAL: return "LOCAL";
  case CL_KERNEL_ARG_ADDRESS_CONSTANT: return "CONSTANT";
  case CL_KERNEL_ARG_ADDRESS_PRIVATE: return "PRIVATE";
  }
  return "?";
}

/* Prints clGetKernelArgInfo's five answers for each argument (5.7.3, table 5.17). */
static void print_arg_info(cl_kernel k, const char *kname, cl_uint nargs) {
  for (cl_uint i = 0; i < nargs; i++) {
    cl_kernel_arg_address_qualifier addr = 0;
    cl_kernel_arg_access_qualifier access = 0;
    cl_kernel_arg_type_qualifier tq = 0;
    char type[64] = "", name[64] = "";
    MUST(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof addr, &addr, NULL));
    MUST(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof access, &access, NULL));
    MUST(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, NULL));
    MUST(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq, NULL));
    MUST(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof name, name, NULL));
    printf("%s arg %u: %s %s%s%s%s%s %s %s\n", kname, i, address_name(addr),
           access == CL_KERNEL_ARG_ACCESS_NONE ? "NONE" : "ACCESS?", tq & CL_KERNEL_ARG_TYPE_CONST ? " CONST" : "",
           tq & CL_KERNEL_ARG_TYPE_RESTRICT ? " RESTRICT" : "", tq & CL_KERNEL_ARG_TYPE_VOLATILE ? " VOLATILE" : "",
           tq == CL_KERNEL_ARG_TYPE_NONE ? " -" : "", type, name);
  }
}

static void CL_CALLBACK native_double(void *args) {
  struct {
    cl_int *data;
    cl_int n;
  } *a = args;
  for (cl_int i = 0; i < a->n; i++)
    a->data[i] = 2 * a->data[i] + 1;
}

int main(void) {
  cl_platform_id platform;
  pick_device(&platform, &device);
  cl_int err;
  ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  MUST(err);
  q = clCreateCommandQueue(ctx, device, 0, &err);
  MUST(err);
  size_t dev_max_wg;
  MUST(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof dev_max_wg, &dev_max_wg, NULL));

  /* ---- Building from source (5.6.1, 5.6.2) ---- */
  const char *strings[2] = {source_head, source_body};
  size_t lengths[2] = {strlen(source_head), 0};
  cl_program program = clCreateProgramWithSource(ctx, 2, strings, lengths, &err);
  MUST(err);
  cl_build_status status = 99;
  MUST(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL));
  printf("CL_PROGRAM_BUILD_STATUS before the build: %s\n", status == CL_BUILD_NONE ? "CL_BUILD_NONE" : "other");
  if (status != CL_BUILD_NONE)
    failures++;
  expect(clBuildProgram(program, 1, &device, BUILD_OPTIONS, NULL, NULL), CL_SUCCESS,
         "clBuildProgram(" BUILD_OPTIONS ")");
  MUST(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL));
  printf("CL_PROGRAM_BUILD_STATUS: %s\n", status == CL_BUILD_SUCCESS ? "CL_BUILD_SUCCESS" : "other");
  if (status != CL_BUILD_SUCCESS)
    failures++;
  char options[256] = "";
  MUST(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_OPTIONS, sizeof options, options, NULL));
  printf("CL_PROGRAM_BUILD_OPTIONS: %s\n", options);
  size_t log_size = 0;
  MUST(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size));
  char *log = malloc(log_size + 1);
  log[log_size] = 'x';
  MUST(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, log_size, log, NULL));
  check(log_size >= 1 && log[log_size - 1] == '\0', "CL_PROGRAM_BUILD_LOG is a NUL-terminated string");
  free(log);
  cl_program_binary_type btype = 0;
  MUST(clGetProgramBuildInfo(program, device, CL_PROGRAM_BINARY_TYPE, sizeof btype, &btype, NULL));
  check(btype == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "CL_PROGRAM_BINARY_TYPE is EXECUTABLE after a build");

  /* Program queries (5.6.7, table 5.14). */
  cl_uint pdevs = 0, prefs = 0;
  cl_device_id pdev = NULL;
  cl_context pctx = NULL;
  MUST(clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof pdevs, &pdevs, NULL));
  MUST(clGetProgramInfo(program, CL_PROGRAM_DEVICES, sizeof pdev, &pdev, NULL));
  MUST(clGetProgramInfo(program, CL_PROGRAM_CONTEXT, sizeof pctx, &pctx, NULL));
  MUST(clGetProgramInfo(program, CL_PROGRAM_REFERENCE_COUNT, sizeof prefs, &prefs, NULL));
  printf("CL_PROGRAM_NUM_DEVICES: %u\n", pdevs);
  check(pdev == device && pctx == ctx, "CL_PROGRAM_DEVICES and CL_PROGRAM_CONTEXT");
  check(prefs == 1, "CL_PROGRAM_REFERENCE_COUNT of a new program is 1");
  /* "The source string returned is a concatenation of all source strings specified". */
  size_t src_size = 0;
  MUST(clGetProgramInfo(program, CL_PROGRAM_SOURCE, 0, NULL, &src_size));
  char *src = malloc(src_size);
  MUST(clGetProgramInfo(program, CL_PROGRAM_SOURCE, src_size, src, NULL));
  check(src_size == strlen(source_head) + strlen(source_body) + 1 &&
            strncmp(src, source_head, strlen(source_head)) == 0 && strcmp(src + strlen(source_head), source_body) == 0,
        "CL_PROGRAM_SOURCE is the concatenated source");
  free(src);
  size_t num_kernels = 0;
  MUST(clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, sizeof num_kernels, &num_kernels, NULL));
  printf("CL_PROGRAM_NUM_KERNELS: %zu\n", num_kernels);
  /* The names are separated by semicolons in an order the implementation picks: sorted here. */
  char names[512] = "";
  MUST(clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL));
  char *list[32];
  int count = 0;
  for (char *t = strtok(names, ";"); t && count < 32; t = strtok(NULL, ";"))
    list[count++] = t;
  qsort(list, count, sizeof list[0], compare_names);
  printf("CL_PROGRAM_KERNEL_NAMES (sorted):");
  for (int i = 0; i < count; i++)
    printf(" %s", list[i]);
  printf("\n");

  /* clCreateKernelsInProgram (5.7.1): all kernels, or CL_INVALID_VALUE for too small an array. */
  cl_uint nk = 0;
  MUST(clCreateKernelsInProgram(program, 0, NULL, &nk));
  printf("clCreateKernelsInProgram count: %u\n", nk);
  cl_kernel all[32];
  expect(clCreateKernelsInProgram(program, 1, all, NULL), CL_INVALID_VALUE, "clCreateKernelsInProgram(1 slot)");
  MUST(clCreateKernelsInProgram(program, nk < 32 ? nk : 32, all, NULL));
  char *knames[32];
  for (cl_uint i = 0; i < nk && i < 32; i++) {
    knames[i] = calloc(64, 1);
    MUST(clGetKernelInfo(all[i], CL_KERNEL_FUNCTION_NAME, 64, knames[i], NULL));
  }
  qsort(knames, nk, sizeof knames[0], compare_names);
  printf("kernels (sorted):");
  for (cl_uint i = 0; i < nk && i < 32; i++)
    printf(" %s", knames[i]), free(knames[i]);
  printf("\n");
  for (cl_uint i = 0; i < nk && i < 32; i++)
    MUST(clReleaseKernel(all[i]));

  /* Kernel queries (5.7.3, table 5.15). */
  cl_kernel kv = kernel(program, "values");
  char fname[64] = "";
  cl_uint nargs = 0, krefs = 0;
  cl_context kctx = NULL;
  cl_program kprog = NULL;
  MUST(clGetKernelInfo(kv, CL_KERNEL_FUNCTION_NAME, sizeof fname, fname, NULL));
  MUST(clGetKernelInfo(kv, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL));
  MUST(clGetKernelInfo(kv, CL_KERNEL_REFERENCE_COUNT, sizeof krefs, &krefs, NULL));
  MUST(clGetKernelInfo(kv, CL_KERNEL_CONTEXT, sizeof kctx, &kctx, NULL));
  MUST(clGetKernelInfo(kv, CL_KERNEL_PROGRAM, sizeof kprog, &kprog, NULL));
  printf("CL_KERNEL_FUNCTION_NAME: %s, CL_KERNEL_NUM_ARGS: %u\n", fname, nargs);
  check(krefs == 1 && kctx == ctx && kprog == program, "CL_KERNEL_REFERENCE_COUNT, CONTEXT and PROGRAM");
  /* Argument queries, available because of -cl-kernel-arg-info (5.7.3, table 5.17). */
  print_arg_info(kv, "values", nargs);
  cl_kernel ka = kernel(program, "axpb"), kat = kernel(program, "atomics"), kr = kernel(program, "reduce");
  print_arg_info(ka, "axpb", 4);
  print_arg_info(kat, "atomics", 2);
  print_arg_info(kr, "reduce", 3);
  char tname[64];
  expect(clGetKernelArgInfo(kv, nargs, CL_KERNEL_ARG_TYPE_NAME, sizeof tname, tname, NULL), CL_INVALID_ARG_INDEX,
         "clGetKernelArgInfo(index = number of arguments)");

  /* Work-group queries (5.7.3, table 5.16). "device ... can be NULL if there is a single device
     associated with kernel." */
  size_t kwg = 0, compiled[3] = {9, 9, 9}, multiple = 0;
  cl_ulong klocal = 0, kprivate = 0;
  cl_kernel kids = kernel(program, "ids"), kfix = kernel(program, "fixed"), krev = kernel(program, "reverse_tile");
  MUST(clGetKernelWorkGroupInfo(kids, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, NULL));
  check(kwg >= 1 && kwg <= dev_max_wg, "1 <= CL_KERNEL_WORK_GROUP_SIZE <= CL_DEVICE_MAX_WORK_GROUP_SIZE");
  size_t kwg_null = 0;
  err = clGetKernelWorkGroupInfo(kids, NULL, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg_null, &kwg_null, NULL);
  check(err == CL_SUCCESS && kwg_null == kwg, "clGetKernelWorkGroupInfo with a NULL device (one device)");
  MUST(clGetKernelWorkGroupInfo(kids, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof compiled, compiled, NULL));
  printf("CL_KERNEL_COMPILE_WORK_GROUP_SIZE of ids: %zu %zu %zu\n", compiled[0], compiled[1], compiled[2]);
  MUST(clGetKernelWorkGroupInfo(kfix, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof compiled, compiled, NULL));
  printf("CL_KERNEL_COMPILE_WORK_GROUP_SIZE of fixed: %zu %zu %zu\n", compiled[0], compiled[1], compiled[2]);
  MUST(clGetKernelWorkGroupInfo(kids, device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof multiple, &multiple,
                                NULL));
  check(multiple >= 1, "CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE >= 1");
  MUST(clGetKernelWorkGroupInfo(kids, device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof kprivate, &kprivate, NULL));
  MUST(clGetKernelWorkGroupInfo(krev, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof klocal, &klocal, NULL));
  check(klocal >= 64 * sizeof(cl_int), "CL_KERNEL_LOCAL_MEM_SIZE counts a static __local int[64]");
  /* "If the local memory size, for any pointer argument to the kernel declared with the __local address
     qualifier, is not specified, its size is assumed to be 0": once set, it counts. */
  MUST(clSetKernelArg(kr, 2, 1000, NULL));
  MUST(clGetKernelWorkGroupInfo(kr, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof klocal, &klocal, NULL));
  check(klocal >= 1000, "CL_KERNEL_LOCAL_MEM_SIZE counts a 1000-byte __local argument");
  MUST(clGetKernelWorkGroupInfo(kids, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, NULL));
  expect(clGetKernelWorkGroupInfo(kids, device, 0x7fff, sizeof kwg, &kwg, NULL), CL_INVALID_VALUE,
         "clGetKernelWorkGroupInfo(unknown param)");

  /* ---- NDRanges (5.8) with the work-item functions (6.12.1) ---- */
  const size_t g1 = 256, l1a = 32, l1b = 64, off1 = 1000, off1b = 7;
  run_ids(program, "1D global 256 local 32", 1, NULL, &g1, &l1a);
  run_ids(program, "1D global 256 local 64 offset 1000", 1, &off1, &g1, &l1b);
  run_ids(program, "1D global 256 no local offset 7", 1, &off1b, &g1, NULL);
  const size_t g2[2] = {16, 8}, l2[2] = {8, 2}, off2[2] = {3, 5};
  run_ids(program, "2D global 16x8 local 8x2 offset 3,5", 2, off2, g2, l2);
  run_ids(program, "2D global 16x8 no local", 2, NULL, g2, NULL);
  const size_t g3[3] = {8, 4, 4}, l3[3] = {2, 2, 4}, off3[3] = {1, 2, 3};
  run_ids(program, "3D global 8x4x4 local 2x2x4 offset 1,2,3", 3, off3, g3, l3);
  run_ids(program, "3D global 8x4x4 no local", 3, NULL, g3, NULL);

  /* The required work-group size: runs with exactly (8, 4, 1). */
  {
    int out[16 * 8];
    cl_mem buf = make(CL_MEM_WRITE_ONLY, sizeof out, NULL);
    MUST(clSetKernelArg(kfix, 0, sizeof buf, &buf));
    const size_t g[2] = {16, 8}, l[2] = {8, 4};
    MUST(clEnqueueNDRangeKernel(q, kfix, 2, NULL, g, l, 0, NULL, NULL));
    MUST(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    printf("fixed (8,4,1): out[0] %d out[9] %d out[16*5+12] %d out[127] %d\n", out[0], out[9], out[16 * 5 + 12],
           out[127]);
    MUST(clReleaseMemObject(buf));
  }

  /* A work-group reduction through a __local argument (clSetKernelArg with a size and a NULL value). */
  {
    enum { ITEMS = 2048, GROUP = 64 };
    cl_int in[ITEMS], partial[ITEMS / GROUP];
    for (int i = 0; i < ITEMS; i++)
      in[i] = (i * 37) % 101 - 50;
    long want = 0;
    for (int i = 0; i < ITEMS; i++)
      want += in[i];
    cl_mem bin = make(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in);
    cl_mem bpart = make(CL_MEM_WRITE_ONLY, sizeof partial, NULL);
    MUST(clSetKernelArg(kr, 0, sizeof bin, &bin));
    MUST(clSetKernelArg(kr, 1, sizeof bpart, &bpart));
    MUST(clSetKernelArg(kr, 2, GROUP * sizeof(cl_int), NULL));
    size_t rwg = 0;
    MUST(clGetKernelWorkGroupInfo(kr, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof rwg, &rwg, NULL));
    check(rwg >= GROUP, "reduce's CL_KERNEL_WORK_GROUP_SIZE allows groups of 64");
    const size_t g = ITEMS, l = GROUP;
    MUST(clEnqueueNDRangeKernel(q, kr, 1, NULL, &g, &l, 0, NULL, NULL));
    MUST(clEnqueueReadBuffer(q, bpart, CL_TRUE, 0, sizeof partial, partial, 0, NULL, NULL));
    long total = 0;
    for (int i = 0; i < ITEMS / GROUP; i++)
      total += partial[i];
    printf("reduce (__local argument): partial[0] %d partial[31] %d total %ld (host %ld)\n", (int)partial[0],
           (int)partial[31], total, want);
    MUST(clReleaseMemObject(bin));
    MUST(clReleaseMemObject(bpart));
  }

  /* A static __local array. */
  {
    cl_int data[256];
    for (int i = 0; i < 256; i++)
      data[i] = i;
    cl_mem buf = make(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data);
    MUST(clSetKernelArg(krev, 0, sizeof buf, &buf));
    const size_t g = 256, l = 64;
    MUST(clEnqueueNDRangeKernel(q, krev, 1, NULL, &g, &l, 0, NULL, NULL));
    MUST(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL));
    printf("reverse_tile (static __local): %d %d %d %d\n", (int)data[0], (int)data[63], (int)data[64], (int)data[255]);
    MUST(clReleaseMemObject(buf));
  }

  /* Value arguments, a struct, a __constant buffer, a program-scope __constant array and -D. */
  float vals[17];
  run_values(program, vals);
  printf("values:");
  for (int i = 0; i < 17; i++)
    printf(" %g", vals[i]);
  printf("\n");

  /* -cl-mad-enable: exact operands give the exact result either way. */
  {
    float a[64], o[64];
    for (int i = 0; i < 64; i++)
      a[i] = (float)i * 0.5f;
    cl_mem ba = make(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a);
    cl_mem bo = make(CL_MEM_WRITE_ONLY, sizeof o, NULL);
    cl_float m = 3.0f, b = 0.25f;
    MUST(clSetKernelArg(ka, 0, sizeof bo, &bo));
    MUST(clSetKernelArg(ka, 1, sizeof ba, &ba));
    MUST(clSetKernelArg(ka, 2, sizeof m, &m));
    MUST(clSetKernelArg(ka, 3, sizeof b, &b));
    const size_t g = 64;
    MUST(clEnqueueNDRangeKernel(q, ka, 1, NULL, &g, NULL, 0, NULL, NULL));
    MUST(clEnqueueReadBuffer(q, bo, CL_TRUE, 0, sizeof o, o, 0, NULL, NULL));
    printf("axpb (-cl-mad-enable): %g %g %g\n", o[0], o[1], o[63]);
    MUST(clReleaseMemObject(ba));
    MUST(clReleaseMemObject(bo));
  }

  /* A NULL buffer argument (5.7.2: "If the argument is a buffer object, the arg_value pointer can be NULL
     or point to a NULL value in which case a NULL value will be used as the value for the argument"). */
  {
    cl_kernel kn = kernel(program, "null_arg");
    cl_int r[2] = {0, 0};
    cl_mem buf = make(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof r, r);
    cl_mem none = NULL;
    const size_t one = 1;
    MUST(clSetKernelArg(kn, 0, sizeof buf, &buf));
    MUST(clSetKernelArg(kn, 1, sizeof(cl_mem), NULL));
    MUST(clEnqueueNDRangeKernel(q, kn, 1, NULL, &one, NULL, 0, NULL, NULL));
    MUST(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(cl_int), &r[0], 0, NULL, NULL));
    MUST(clSetKernelArg(kn, 1, sizeof(cl_mem), &none));
    MUST(clEnqueueNDRangeKernel(q, kn, 1, NULL, &one, NULL, 0, NULL, NULL));
    MUST(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(cl_int), &r[1], 0, NULL, NULL));
    printf("null_arg: value NULL -> %d, pointer to NULL -> %d\n", (int)r[0], (int)r[1]);
    MUST(clReleaseMemObject(buf));
    MUST(clReleaseKernel(kn));
  }

  /* Global atomics (6.12.11). */
  {
    cl_int zeros[10] = {0};
    cl_mem counter = make(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 2 * sizeof(cl_int), zeros);
    cl_mem bins = make(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 8 * sizeof(cl_int), zeros);
    MUST(clSetKernelArg(kat, 0, sizeof counter, &counter));
    MUST(clSetKernelArg(kat, 1, sizeof bins, &bins));
    const size_t g = 1024;
    MUST(clEnqueueNDRangeKernel(q, kat, 1, NULL, &g, NULL, 0, NULL, NULL));
    cl_int c[2], h[8];
    MUST(clEnqueueReadBuffer(q, counter, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL));
    MUST(clEnqueueReadBuffer(q, bins, CL_TRUE, 0, sizeof h, h, 0, NULL, NULL));
    printf("atomics: count %d max %d bins", (int)c[0], (int)c[1]);
    for (int i = 0; i < 8; i++)
      printf(" %d", (int)h[i]);
    printf("\n");
    MUST(clReleaseMemObject(counter));
    MUST(clReleaseMemObject(bins));
  }

  /* Arguments are captured when the kernel is enqueued (5.8: "the argument values ... at the time
     clEnqueueNDRangeKernel is called"); two kernel objects of one function keep their own arguments. */
  {
    cl_kernel k1 = kernel(program, "fill"), k2 = kernel(program, "fill");
    cl_int out[96];
    cl_mem buf = make(CL_MEM_WRITE_ONLY, sizeof out, NULL);
    cl_int v = 1, w = 3;
    MUST(clSetKernelArg(k1, 0, sizeof buf, &buf));
    MUST(clSetKernelArg(k2, 0, sizeof buf, &buf));
    MUST(clSetKernelArg(k2, 1, sizeof w, &w));
    MUST(clSetKernelArg(k1, 1, sizeof v, &v));
    const size_t g = 32, o1 = 0, o2 = 32, o3 = 64;
    MUST(clEnqueueNDRangeKernel(q, k1, 1, &o1, &g, NULL, 0, NULL, NULL));
    v = 2;
    MUST(clSetKernelArg(k1, 1, sizeof v, &v));
    MUST(clEnqueueNDRangeKernel(q, k1, 1, &o2, &g, NULL, 0, NULL, NULL));
    MUST(clEnqueueNDRangeKernel(q, k2, 1, &o3, &g, NULL, 0, NULL, NULL));
    MUST(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    printf("arguments captured at enqueue: %d %d %d %d %d %d\n", (int)out[0], (int)out[31], (int)out[32], (int)out[63],
           (int)out[64], (int)out[95]);
    MUST(clReleaseMemObject(buf));
    MUST(clReleaseKernel(k1));
    MUST(clReleaseKernel(k2));
  }

  /* clEnqueueTask (5.8): one work-group of one work-item. */
  {
    cl_kernel kt = kernel(program, "task");
    cl_uint out[5];
    cl_mem buf = make(CL_MEM_WRITE_ONLY, sizeof out, NULL);
    MUST(clSetKernelArg(kt, 0, sizeof buf, &buf));
    cl_event ev;
    MUST(clEnqueueTask(q, kt, 0, NULL, &ev));
    MUST(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    /* (Not checked: the event's CL_EVENT_COMMAND_TYPE, CL_COMMAND_TASK in table 5.21, for which PoCL 3.1
       answers CL_COMMAND_NDRANGE_KERNEL.) */
    printf("clEnqueueTask: global %u local %u id %u work_dim %u groups %u\n", out[0], out[1], out[2], out[3], out[4]);
    MUST(clReleaseEvent(ev));
    MUST(clReleaseMemObject(buf));
    MUST(clReleaseKernel(kt));
  }

  /* ---- Binaries (5.6.1, 5.6.7) ---- */
  /* The built program's binary makes a program that builds and gives the same results. */
  {
    size_t bin_size = 0;
    MUST(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof bin_size, &bin_size, NULL));
    check(bin_size > 0, "CL_PROGRAM_BINARY_SIZES is not 0");
    unsigned char *bin = malloc(bin_size);
    unsigned char *bins[1] = {bin};
    MUST(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL));
    cl_int bin_status = 99;
    const unsigned char *cbins[1] = {bin};
    cl_program from_bin = clCreateProgramWithBinary(ctx, 1, &device, &bin_size, cbins, &bin_status, &err);
    expect(err, CL_SUCCESS, "clCreateProgramWithBinary");
    expect(bin_status, CL_SUCCESS, "clCreateProgramWithBinary binary_status");
    if (err == CL_SUCCESS) {
      expect(clBuildProgram(from_bin, 1, &device, BUILD_OPTIONS, NULL, NULL), CL_SUCCESS,
             "clBuildProgram(from the binary)");
      run_ids(from_bin, "from the binary: 2D global 16x8 local 8x2 offset 3,5", 2, off2, g2, l2);
      float vals2[17];
      run_values(from_bin, vals2);
      check(memcmp(vals, vals2, sizeof vals) == 0, "from the binary: values gives the same results");
      MUST(clReleaseProgram(from_bin));
    }
    free(bin);
  }

  /* ---- Native kernels (5.8, clEnqueueNativeKernel) ---- */
  /* Optional: run where CL_DEVICE_EXECUTION_CAPABILITIES has CL_EXEC_NATIVE_KERNEL, and "CL_INVALID_OPERATION
     if the device associated with command_queue cannot execute the native kernel" elsewhere. The buffer
     in args is replaced by a pointer to its contents. */
  {
    cl_device_exec_capabilities caps;
    MUST(clGetDeviceInfo(device, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof caps, &caps, NULL));
    cl_int data[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    cl_mem buf = make(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data);
    struct {
      cl_mem data;
      cl_int n;
    } args = {buf, 8};
    const void *locs[1] = {&args.data};
    err = clEnqueueNativeKernel(q, native_double, &args, sizeof args, 1, &buf, locs, 0, NULL, NULL);
    int good;
    if (caps & CL_EXEC_NATIVE_KERNEL) {
      good = err == CL_SUCCESS &&
             clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL) == CL_SUCCESS && data[0] == 1 &&
             data[7] == 15;
    } else {
      good = err == CL_INVALID_OPERATION;
    }
    check(good, "clEnqueueNativeKernel runs where CL_EXEC_NATIVE_KERNEL, else CL_INVALID_OPERATION");
    MUST(clReleaseMemObject(buf));
  }

  MUST(clReleaseKernel(kv));
  MUST(clReleaseKernel(ka));
  MUST(clReleaseKernel(kat));
  MUST(clReleaseKernel(kr));
  MUST(clReleaseKernel(kids));
  MUST(clReleaseKernel(kfix));
  MUST(clReleaseKernel(krev));
  MUST(clReleaseProgram(program));
  MUST(clReleaseCommandQueue(q));
  MUST(clReleaseContext(ctx));
  return finish();
}
