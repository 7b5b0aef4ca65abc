/* buffers.c: buffer objects of OpenCL 1.2 (spec section 5.2): creation flags, sub-buffers, reads,
 * writes, copies, fills, rectangles, maps, migration, clGetMemObjectInfo and destructor callbacks.
 *
 * Prints computed results, spec-fixed result codes and "ok"/"FAIL" lines, so that the output is the same
 * under every conforming implementation. Exit status 0 when every check passes, 1 otherwise. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, to wait for callbacks that may run on another thread */
#include "cltest.h"
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static const char *source = "__kernel void add(__global const int *a, __global const int *b, __global int *c) {\n"
                            "  size_t i = get_global_id(0);\n"
                            "  c[i] = a[i] + b[i];\n"
                            "}\n"
                            "__kernel void scale(__global int *p, int k) {\n"
                            "  size_t i = get_global_id(0);\n"
                            "  p[i] *= k;\n"
                            "}\n";

#define N 256

static cl_context ctx;
static cl_command_queue q;
static cl_kernel k_add, k_scale;

static cl_mem make(cl_mem_flags flags, size_t size, void *host) {
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, flags, size, host, &err);
  MUST(err);
  return m;
}

static void run_scale(cl_mem buf, cl_int k, size_t n) {
  MUST(clSetKernelArg(k_scale, 0, sizeof buf, &buf));
  MUST(clSetKernelArg(k_scale, 1, sizeof k, &k));
  MUST(clEnqueueNDRangeKernel(q, k_scale, 1, NULL, &n, NULL, 0, NULL, NULL));
}

static long sum_ints(const cl_int *p, size_t n) {
  long s = 0;
  for (size_t i = 0; i < n; i++)
    s += (long)p[i] * (long)(i % 7 + 1);
  return s;
}

static void sleep_ms(int ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* Destructor callbacks (5.4.1) may run on any thread: they record their order atomically. */
static atomic_int callback_calls;
static atomic_int callback_order[8];
static void CL_CALLBACK on_destroy(cl_mem m, void *user_data) {
  (void)m;
  int slot = atomic_fetch_add(&callback_calls, 1);
  if (slot < 8)
    atomic_store(&callback_order[slot], *(int *)user_data);
}
/* Waits up to two seconds for n callbacks in all ("The user callback functions are called ... after the
   memory object is deleted": possibly later than clReleaseMemObject returns). */
static int wait_callbacks(int n) {
  for (int i = 0; i < 200 && atomic_load(&callback_calls) < n; i++)
    sleep_ms(10);
  return atomic_load(&callback_calls);
}

/* The reference for the rectangle operations (5.2.2): copies region (bytes, rows, slices) between two
   flat arrays with their own origins and pitches. */
static void rect_copy(unsigned char *dst, const size_t dst_origin[3], size_t dst_row, size_t dst_slice,
                      const unsigned char *src, const size_t src_origin[3], size_t src_row, size_t src_slice,
                      const size_t region[3]) {
  for (size_t z = 0; z < region[2]; z++)
    for (size_t y = 0; y < region[1]; y++)
      memcpy(dst + (dst_origin[2] + z) * dst_slice + (dst_origin[1] + y) * dst_row + dst_origin[0],
             src + (src_origin[2] + z) * src_slice + (src_origin[1] + y) * src_row + src_origin[0], region[0]);
}

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  pick_device(&platform, &device);
  cl_int err;
  ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  MUST(err);
  q = clCreateCommandQueue(ctx, device, 0, &err);
  MUST(err);
  cl_program program = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  MUST(err);
  MUST(clBuildProgram(program, 1, &device, "", NULL, NULL));
  k_add = clCreateKernel(program, "add", &err);
  MUST(err);
  k_scale = clCreateKernel(program, "scale", &err);
  MUST(err);
  size_t n = N;
  cl_int host[N], out[N], other[N];
  size_t size = 0;

  /* ---- Host-pointer flags (5.2.1, table 5.3) ---- */
  /* CL_MEM_USE_HOST_PTR: the buffer may cache host[] but a map returns host[]'s own storage (5.4.2: "the
     pointer value returned by clEnqueueMapBuffer will be derived from the host_ptr"), up to date. */
  for (int i = 0; i < N; i++)
    host[i] = i;
  cl_mem use = make(CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, sizeof host, host);
  run_scale(use, 3, n);
  cl_int *mapped = clEnqueueMapBuffer(q, use, CL_TRUE, CL_MAP_READ, 0, sizeof host, 0, NULL, NULL, &err);
  MUST(err);
  check(mapped == host, "USE_HOST_PTR: clEnqueueMapBuffer returns the host pointer");
  printf("USE_HOST_PTR after scale(3): checksum %ld\n", sum_ints(mapped, N));
  MUST(clEnqueueUnmapMemObject(q, use, mapped, 0, NULL, NULL));
  mapped =
      clEnqueueMapBuffer(q, use, CL_TRUE, CL_MAP_READ, 16 * sizeof(cl_int), 8 * sizeof(cl_int), 0, NULL, NULL, &err);
  MUST(err);
  check(mapped == host + 16, "USE_HOST_PTR: a map at an offset returns host pointer + offset");
  printf("USE_HOST_PTR map at 16: %d %d\n", (int)mapped[0], (int)mapped[7]);
  MUST(clEnqueueUnmapMemObject(q, use, mapped, 0, NULL, NULL));
  MUST(clFinish(q));
  void *info_ptr = NULL;
  MUST(clGetMemObjectInfo(use, CL_MEM_HOST_PTR, sizeof info_ptr, &info_ptr, NULL));
  check(info_ptr == host, "USE_HOST_PTR: CL_MEM_HOST_PTR is the host pointer");

  /* CL_MEM_COPY_HOST_PTR: the buffer copies host[] at creation; later changes to host[] don't reach it. */
  for (int i = 0; i < N; i++)
    host[i] = 1000 + i;
  cl_mem copy = make(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host);
  for (int i = 0; i < N; i++)
    host[i] = -1;
  MUST(clEnqueueReadBuffer(q, copy, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  printf("COPY_HOST_PTR: checksum %ld\n", sum_ints(out, N));
  MUST(clGetMemObjectInfo(copy, CL_MEM_HOST_PTR, sizeof info_ptr, &info_ptr, NULL));
  check(info_ptr == NULL, "COPY_HOST_PTR: CL_MEM_HOST_PTR is NULL");

  /* CL_MEM_ALLOC_HOST_PTR, alone and with CL_MEM_COPY_HOST_PTR ("CL_MEM_ALLOC_HOST_PTR and
     CL_MEM_COPY_HOST_PTR can be used together"). */
  for (int i = 0; i < N; i++)
    host[i] = 2 * i + 1;
  cl_mem alloc = make(CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, sizeof host, NULL);
  MUST(clEnqueueWriteBuffer(q, alloc, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
  run_scale(alloc, 5, n);
  MUST(clEnqueueReadBuffer(q, alloc, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  printf("ALLOC_HOST_PTR after scale(5): checksum %ld\n", sum_ints(out, N));
  cl_mem alloc_copy = make(CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR, sizeof host, host);
  MUST(clEnqueueReadBuffer(q, alloc_copy, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  printf("ALLOC_HOST_PTR|COPY_HOST_PTR: checksum %ld\n", sum_ints(out, N));

  /* Kernel access flags: two read-only inputs, one write-only output. */
  for (int i = 0; i < N; i++)
    host[i] = i * i, other[i] = 7 - i;
  cl_mem a = make(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof host, host);
  cl_mem b = make(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof other, other);
  cl_mem c = make(CL_MEM_WRITE_ONLY, sizeof out, NULL);
  MUST(clSetKernelArg(k_add, 0, sizeof a, &a));
  MUST(clSetKernelArg(k_add, 1, sizeof b, &b));
  MUST(clSetKernelArg(k_add, 2, sizeof c, &c));
  MUST(clEnqueueNDRangeKernel(q, k_add, 1, NULL, &n, NULL, 0, NULL, NULL));
  MUST(clEnqueueReadBuffer(q, c, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  printf("READ_ONLY + READ_ONLY -> WRITE_ONLY: c[0] %d c[255] %d checksum %ld\n", (int)out[0], (int)out[255],
         sum_ints(out, N));

  /* clCreateBuffer's errors (5.2.1). */
  cl_ulong max_alloc;
  MUST(clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL));
  struct {
    cl_mem_flags flags;
    size_t size;
    void *host;
    cl_int want;
    const char *what;
  } bad[] = {
      {CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, NULL, CL_INVALID_VALUE, "READ_WRITE|READ_ONLY"},
      {CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, NULL, CL_INVALID_VALUE, "READ_ONLY|WRITE_ONLY"},
      {CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 64, host, CL_INVALID_VALUE, "USE_HOST_PTR|ALLOC_HOST_PTR"},
      {CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64, host, CL_INVALID_VALUE, "USE_HOST_PTR|COPY_HOST_PTR"},
      {CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY, 64, NULL, CL_INVALID_VALUE, "HOST_WRITE_ONLY|HOST_READ_ONLY"},
      {CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_WRITE_ONLY, 64, NULL, CL_INVALID_VALUE, "HOST_NO_ACCESS|HOST_WRITE_ONLY"},
      {(cl_mem_flags)1 << 20, 64, NULL, CL_INVALID_VALUE, "an unknown flag bit"},
      {CL_MEM_USE_HOST_PTR, 64, NULL, CL_INVALID_HOST_PTR, "USE_HOST_PTR, NULL pointer"},
      {CL_MEM_COPY_HOST_PTR, 64, NULL, CL_INVALID_HOST_PTR, "COPY_HOST_PTR, NULL pointer"},
      {CL_MEM_READ_WRITE, 64, host, CL_INVALID_HOST_PTR, "a pointer without USE or COPY"},
      {CL_MEM_READ_WRITE, 0, NULL, CL_INVALID_BUFFER_SIZE, "size 0"},
      {CL_MEM_READ_WRITE, (size_t)max_alloc + 1, NULL, CL_INVALID_BUFFER_SIZE, "size MAX_MEM_ALLOC_SIZE + 1"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cl_mem m = clCreateBuffer(ctx, bad[i].flags, bad[i].size, bad[i].host, &err);
    expect(err, bad[i].want, "clCreateBuffer(%s)", bad[i].what);
    if (m)
      clReleaseMemObject(m);
  }
  /* Host access flags (5.2.2, 5.4.2): "CL_INVALID_OPERATION if clEnqueueReadBuffer is called on buffer
     which has been created with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS", and the same for
     writes and maps. */
  cl_mem host_wo = make(CL_MEM_READ_WRITE | CL_MEM_HOST_WRITE_ONLY, 64, NULL);
  cl_mem host_ro = make(CL_MEM_READ_WRITE | CL_MEM_HOST_READ_ONLY, 64, NULL);
  cl_mem host_none = make(CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS, 64, NULL);
  expect(clEnqueueWriteBuffer(q, host_wo, CL_TRUE, 0, 64, host, 0, NULL, NULL), CL_SUCCESS,
         "clEnqueueWriteBuffer(HOST_WRITE_ONLY)");
  expect(clEnqueueReadBuffer(q, host_wo, CL_TRUE, 0, 64, out, 0, NULL, NULL), CL_INVALID_OPERATION,
         "clEnqueueReadBuffer(HOST_WRITE_ONLY)");
  expect(clEnqueueReadBuffer(q, host_ro, CL_TRUE, 0, 64, out, 0, NULL, NULL), CL_SUCCESS,
         "clEnqueueReadBuffer(HOST_READ_ONLY)");
  expect(clEnqueueWriteBuffer(q, host_ro, CL_TRUE, 0, 64, host, 0, NULL, NULL), CL_INVALID_OPERATION,
         "clEnqueueWriteBuffer(HOST_READ_ONLY)");
  expect(clEnqueueReadBuffer(q, host_none, CL_TRUE, 0, 64, out, 0, NULL, NULL), CL_INVALID_OPERATION,
         "clEnqueueReadBuffer(HOST_NO_ACCESS)");
  expect(clEnqueueWriteBuffer(q, host_none, CL_TRUE, 0, 64, host, 0, NULL, NULL), CL_INVALID_OPERATION,
         "clEnqueueWriteBuffer(HOST_NO_ACCESS)");
  clEnqueueMapBuffer(q, host_wo, CL_TRUE, CL_MAP_READ, 0, 64, 0, NULL, NULL, &err);
  expect(err, CL_INVALID_OPERATION, "clEnqueueMapBuffer(HOST_WRITE_ONLY, MAP_READ)");
  clEnqueueMapBuffer(q, host_ro, CL_TRUE, CL_MAP_WRITE, 0, 64, 0, NULL, NULL, &err);
  expect(err, CL_INVALID_OPERATION, "clEnqueueMapBuffer(HOST_READ_ONLY, MAP_WRITE)");

  /* ---- clGetMemObjectInfo (5.4.5, table 5.12) ---- */
  cl_mem_object_type type = 0;
  cl_mem_flags flags = 0;
  cl_context mctx = NULL;
  cl_mem assoc = (cl_mem)&size;
  size_t offset = 99;
  MUST(clGetMemObjectInfo(a, CL_MEM_TYPE, sizeof type, &type, NULL));
  MUST(clGetMemObjectInfo(a, CL_MEM_FLAGS, sizeof flags, &flags, NULL));
  MUST(clGetMemObjectInfo(a, CL_MEM_SIZE, sizeof size, &size, NULL));
  MUST(clGetMemObjectInfo(a, CL_MEM_CONTEXT, sizeof mctx, &mctx, NULL));
  MUST(clGetMemObjectInfo(a, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, NULL));
  MUST(clGetMemObjectInfo(a, CL_MEM_OFFSET, sizeof offset, &offset, NULL));
  check(type == CL_MEM_OBJECT_BUFFER, "CL_MEM_TYPE is CL_MEM_OBJECT_BUFFER");
  check(flags == (CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR), "CL_MEM_FLAGS is the flags given");
  printf("CL_MEM_SIZE: %zu\n", size);
  check(mctx == ctx, "CL_MEM_CONTEXT is the context");
  check(assoc == NULL, "CL_MEM_ASSOCIATED_MEMOBJECT of a buffer is NULL");
  printf("CL_MEM_OFFSET: %zu\n", offset);
  cl_uint refs = 0, refs2 = 0;
  MUST(clGetMemObjectInfo(a, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  MUST(clRetainMemObject(a));
  MUST(clGetMemObjectInfo(a, CL_MEM_REFERENCE_COUNT, sizeof refs2, &refs2, NULL));
  check(refs2 == refs + 1, "clRetainMemObject adds one to CL_MEM_REFERENCE_COUNT");
  MUST(clReleaseMemObject(a));
  expect(clGetMemObjectInfo(a, 0x7fff, sizeof size, &size, NULL), CL_INVALID_VALUE,
         "clGetMemObjectInfo(unknown param)");
  expect(clGetMemObjectInfo(a, CL_MEM_SIZE, 1, &size, NULL), CL_INVALID_VALUE, "clGetMemObjectInfo(SIZE, 1 byte)");
  expect(clGetMemObjectInfo(NULL, CL_MEM_SIZE, sizeof size, &size, NULL), CL_INVALID_MEM_OBJECT,
         "clGetMemObjectInfo(NULL)");

  /* ---- Sub-buffers (5.2.1, clCreateSubBuffer) ---- */
  cl_uint align_bits;
  MUST(clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL));
  size_t align = align_bits / 8; /* bytes; at least 128 (platform_device.c checks) */
  size_t parent_ints = 4 * align / sizeof(cl_int);
  cl_int *pdata = malloc(4 * align), *pout = malloc(4 * align);
  for (size_t i = 0; i < parent_ints; i++)
    pdata[i] = (cl_int)(i % 100);
  cl_mem parent = make(CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 4 * align, pdata);
  cl_buffer_region region = {align, align}; /* the second of four blocks */
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  expect(err, CL_SUCCESS, "clCreateSubBuffer(aligned origin)");
  if (err != CL_SUCCESS)
    return finish();
  MUST(clGetMemObjectInfo(sub, CL_MEM_TYPE, sizeof type, &type, NULL));
  MUST(clGetMemObjectInfo(sub, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, NULL));
  MUST(clGetMemObjectInfo(sub, CL_MEM_OFFSET, sizeof offset, &offset, NULL));
  MUST(clGetMemObjectInfo(sub, CL_MEM_SIZE, sizeof size, &size, NULL));
  MUST(clGetMemObjectInfo(sub, CL_MEM_FLAGS, sizeof flags, &flags, NULL));
  MUST(clGetMemObjectInfo(sub, CL_MEM_HOST_PTR, sizeof info_ptr, &info_ptr, NULL));
  check(type == CL_MEM_OBJECT_BUFFER, "sub-buffer: CL_MEM_TYPE is CL_MEM_OBJECT_BUFFER");
  check(assoc == parent, "sub-buffer: CL_MEM_ASSOCIATED_MEMOBJECT is the parent");
  check(offset == align && size == align, "sub-buffer: CL_MEM_OFFSET and CL_MEM_SIZE are the region's");
  /* "If memobj is a sub-buffer, the memory access qualifiers inherited from parent buffer is also returned"
     and "host_ptr + origin value specified when memobj is created". */
  check((flags & CL_MEM_READ_WRITE) != 0, "sub-buffer: CL_MEM_FLAGS inherits READ_WRITE");
  check(info_ptr == (char *)pdata + align, "sub-buffer of USE_HOST_PTR: CL_MEM_HOST_PTR is host_ptr + origin");
  /* Reads, writes and kernels through the sub-buffer see and change the parent's second block only. */
  MUST(clEnqueueReadBuffer(q, sub, CL_TRUE, 0, align, pout, 0, NULL, NULL));
  check(memcmp(pout, (char *)pdata + align, align) == 0, "reading a sub-buffer reads the parent's region");
  size_t sub_ints = align / sizeof(cl_int);
  run_scale(sub, -2, sub_ints);
  cl_int seven = 7;
  MUST(clEnqueueWriteBuffer(q, sub, CL_TRUE, 0, sizeof seven, &seven, 0, NULL, NULL));
  MUST(clEnqueueReadBuffer(q, parent, CL_TRUE, 0, 4 * align, pout, 0, NULL, NULL));
  long before_sum = 0, inside_sum = 0, after_sum = 0;
  for (size_t i = 0; i < parent_ints; i++) {
    if (i < sub_ints)
      before_sum += pout[i] != (cl_int)(i % 100);
    else if (i < 2 * sub_ints)
      inside_sum += pout[i] != (i == sub_ints ? 7 : -2 * (cl_int)(i % 100));
    else
      after_sum += pout[i] != (cl_int)(i % 100);
  }
  check(before_sum == 0 && inside_sum == 0 && after_sum == 0,
        "a kernel and a write through a sub-buffer change only its region of the parent");
  /* clCreateSubBuffer's errors. */
  cl_buffer_region misaligned = {1, 4}; /* 1 byte is no multiple of any CL_DEVICE_MEM_BASE_ADDR_ALIGN */
  clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &misaligned, &err);
  expect(err, CL_MISALIGNED_SUB_BUFFER_OFFSET, "clCreateSubBuffer(origin 1)");
  cl_buffer_region outside = {2 * align, 3 * align};
  clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &outside, &err);
  expect(err, CL_INVALID_VALUE, "clCreateSubBuffer(region past the parent's end)");
  cl_buffer_region empty = {0, 0};
  clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &empty, &err);
  expect(err, CL_INVALID_BUFFER_SIZE, "clCreateSubBuffer(size 0)");
  cl_buffer_region inner = {0, 4};
  clCreateSubBuffer(sub, 0, CL_BUFFER_CREATE_TYPE_REGION, &inner, &err);
  expect(err, CL_INVALID_MEM_OBJECT, "clCreateSubBuffer(of a sub-buffer)");
  clCreateSubBuffer(parent, 0, 0x7fff, &region, &err);
  expect(err, CL_INVALID_VALUE, "clCreateSubBuffer(unknown create type)");
  clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, NULL, &err);
  expect(err, CL_INVALID_VALUE, "clCreateSubBuffer(NULL region)");
  clCreateSubBuffer(parent, CL_MEM_USE_HOST_PTR, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  expect(err, CL_INVALID_VALUE, "clCreateSubBuffer(USE_HOST_PTR flag)");
  cl_mem wo_parent = make(CL_MEM_WRITE_ONLY, 4 * align, NULL);
  clCreateSubBuffer(wo_parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  expect(err, CL_INVALID_VALUE, "clCreateSubBuffer(READ_WRITE of a WRITE_ONLY parent)");
  cl_mem none_parent = make(CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS, 4 * align, NULL);
  clCreateSubBuffer(none_parent, CL_MEM_HOST_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  expect(err, CL_INVALID_VALUE, "clCreateSubBuffer(HOST_READ_ONLY of a HOST_NO_ACCESS parent)");

  /* ---- Reads and writes (5.2.2) ---- */
  /* Non-blocking: the write's event orders the read; the read's event says when out[] is filled. */
  cl_mem rw = make(CL_MEM_READ_WRITE, sizeof host, NULL);
  for (int i = 0; i < N; i++)
    host[i] = 3 * i - 100, out[i] = 0;
  cl_event wrote, read;
  MUST(clEnqueueWriteBuffer(q, rw, CL_FALSE, 0, sizeof host, host, 0, NULL, &wrote));
  MUST(clEnqueueReadBuffer(q, rw, CL_FALSE, 0, sizeof out, out, 1, &wrote, &read));
  MUST(clWaitForEvents(1, &read));
  check(memcmp(host, out, sizeof out) == 0, "non-blocking write then read round-trips");
  MUST(clReleaseEvent(wrote));
  MUST(clReleaseEvent(read));
  /* Partial, at offsets. */
  cl_int patch[4] = {-1, -2, -3, -4};
  MUST(clEnqueueWriteBuffer(q, rw, CL_TRUE, 10 * sizeof(cl_int), sizeof patch, patch, 0, NULL, NULL));
  cl_int window[8];
  MUST(clEnqueueReadBuffer(q, rw, CL_TRUE, 8 * sizeof(cl_int), sizeof window, window, 0, NULL, NULL));
  printf("write at 10, read at 8:");
  for (int i = 0; i < 8; i++)
    printf(" %d", (int)window[i]);
  printf("\n");
  /* "CL_INVALID_VALUE if the region being read or written specified by (offset, size) is out of bounds
     or if ptr is a NULL value." */
  expect(clEnqueueReadBuffer(q, rw, CL_TRUE, sizeof host - 4, 8, out, 0, NULL, NULL), CL_INVALID_VALUE,
         "clEnqueueReadBuffer(past the end)");
  expect(clEnqueueWriteBuffer(q, rw, CL_TRUE, sizeof host, 4, host, 0, NULL, NULL), CL_INVALID_VALUE,
         "clEnqueueWriteBuffer(at the end)");
  expect(clEnqueueReadBuffer(q, rw, CL_TRUE, 0, 4, NULL, 0, NULL, NULL), CL_INVALID_VALUE,
         "clEnqueueReadBuffer(NULL pointer)");
  expect(clEnqueueReadBuffer(q, NULL, CL_TRUE, 0, 4, out, 0, NULL, NULL), CL_INVALID_MEM_OBJECT,
         "clEnqueueReadBuffer(NULL buffer)");

  /* ---- clEnqueueCopyBuffer (5.2.3) ---- */
  cl_mem dst = make(CL_MEM_READ_WRITE, sizeof host, NULL);
  for (int i = 0; i < N; i++)
    other[i] = 0;
  MUST(clEnqueueWriteBuffer(q, dst, CL_TRUE, 0, sizeof other, other, 0, NULL, NULL));
  MUST(clEnqueueCopyBuffer(q, rw, dst, 4 * sizeof(cl_int), 100 * sizeof(cl_int), 50 * sizeof(cl_int), 0, NULL, NULL));
  /* Within one buffer, regions that do not overlap. */
  MUST(
      clEnqueueCopyBuffer(q, dst, dst, 100 * sizeof(cl_int), 200 * sizeof(cl_int), 20 * sizeof(cl_int), 0, NULL, NULL));
  MUST(clEnqueueReadBuffer(q, dst, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  printf("clEnqueueCopyBuffer: dst[100] %d dst[149] %d dst[200] %d dst[219] %d checksum %ld\n", (int)out[100],
         (int)out[149], (int)out[200], (int)out[219], sum_ints(out, N));
  expect(clEnqueueCopyBuffer(q, dst, dst, 0, 8, 16, 0, NULL, NULL), CL_MEM_COPY_OVERLAP,
         "clEnqueueCopyBuffer(overlapping regions of one buffer)");
  expect(clEnqueueCopyBuffer(q, rw, dst, sizeof host - 8, 0, 16, 0, NULL, NULL), CL_INVALID_VALUE,
         "clEnqueueCopyBuffer(source past the end)");
  expect(clEnqueueCopyBuffer(q, rw, dst, 0, sizeof host - 8, 16, 0, NULL, NULL), CL_INVALID_VALUE,
         "clEnqueueCopyBuffer(destination past the end)");

  /* ---- clEnqueueFillBuffer (5.2.2): patterns of 1, 2, 4, 16 and 128 bytes ---- */
  unsigned char bytes[1024], fill_src[128];
  memset(bytes, 0, sizeof bytes);
  cl_mem fill = make(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof bytes, bytes);
  for (int i = 0; i < 128; i++)
    fill_src[i] = (unsigned char)(i * 3 + 1);
  cl_uchar p1 = 0xab;
  cl_ushort p2 = 0x1234;
  cl_uint p4 = 0xdeadbeef;
  MUST(clEnqueueFillBuffer(q, fill, &p1, 1, 3, 5, 0, NULL, NULL));            /* bytes 3..7 */
  MUST(clEnqueueFillBuffer(q, fill, &p2, 2, 10, 8, 0, NULL, NULL));           /* 10..17 */
  MUST(clEnqueueFillBuffer(q, fill, &p4, 4, 20, 12, 0, NULL, NULL));          /* 20..31 */
  MUST(clEnqueueFillBuffer(q, fill, fill_src, 16, 48, 48, 0, NULL, NULL));    /* 48..95 */
  MUST(clEnqueueFillBuffer(q, fill, fill_src, 128, 256, 512, 0, NULL, NULL)); /* 256..767 */
  MUST(clEnqueueReadBuffer(q, fill, CL_TRUE, 0, sizeof bytes, bytes, 0, NULL, NULL));
  unsigned char want[1024];
  memset(want, 0, sizeof want);
  memset(want + 3, 0xab, 5);
  for (int i = 10; i < 18; i += 2)
    memcpy(want + i, &p2, 2);
  for (int i = 20; i < 32; i += 4)
    memcpy(want + i, &p4, 4);
  for (int i = 48; i < 96; i += 16)
    memcpy(want + i, fill_src, 16);
  for (int i = 256; i < 768; i += 128)
    memcpy(want + i, fill_src, 128);
  check(memcmp(bytes, want, sizeof want) == 0, "fills of 1-, 2-, 4-, 16- and 128-byte patterns");
  printf("fill bytes:");
  for (int i = 0; i < 24; i++)
    printf(" %02x", bytes[i]);
  printf("\n");
  /* "CL_INVALID_VALUE if ... pattern_size is 0 or if pattern_size is not one of {1, 2, 4, 8, 16, 32, 64,
     128}", "if offset and size are not a multiple of pattern_size", "if pattern is NULL". */
  expect(clEnqueueFillBuffer(q, fill, fill_src, 3, 0, 12, 0, NULL, NULL), CL_INVALID_VALUE,
         "clEnqueueFillBuffer(3-byte pattern)");
  expect(clEnqueueFillBuffer(q, fill, &p4, 4, 2, 8, 0, NULL, NULL), CL_INVALID_VALUE,
         "clEnqueueFillBuffer(offset not a multiple)");
  expect(clEnqueueFillBuffer(q, fill, &p4, 4, 0, 6, 0, NULL, NULL), CL_INVALID_VALUE,
         "clEnqueueFillBuffer(size not a multiple)");
  expect(clEnqueueFillBuffer(q, fill, NULL, 4, 0, 8, 0, NULL, NULL), CL_INVALID_VALUE,
         "clEnqueueFillBuffer(NULL pattern)");
  expect(clEnqueueFillBuffer(q, fill, &p4, 4, 1024, 4, 0, NULL, NULL), CL_INVALID_VALUE,
         "clEnqueueFillBuffer(past the end)");

  /* ---- Rectangles (5.2.2, 5.2.3) ---- */
  /* The buffer is 3 slices of 6 rows of 40 bytes; the host array 2 slices of 8 rows of 32 bytes. */
  enum { BROW = 40, BSLICE = 40 * 6, BSIZE = BSLICE * 3, HROW = 32, HSLICE = 32 * 8, HSIZE = HSLICE * 2 };
  unsigned char bsrc[BSIZE], hbuf[HSIZE], href[HSIZE], bref[BSIZE], bgot[BSIZE];
  for (int i = 0; i < BSIZE; i++)
    bsrc[i] = (unsigned char)(i * 7 + 3);
  cl_mem rect = make(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, BSIZE, bsrc);
  const size_t b_origin[3] = {5, 1, 1}, h_origin[3] = {3, 2, 0}, rregion[3] = {12, 4, 2};
  memset(hbuf, 0xee, sizeof hbuf), memset(href, 0xee, sizeof href);
  MUST(clEnqueueReadBufferRect(q, rect, CL_TRUE, b_origin, h_origin, rregion, BROW, BSLICE, HROW, HSLICE, hbuf, 0, NULL,
                               NULL));
  rect_copy(href, h_origin, HROW, HSLICE, bsrc, b_origin, BROW, BSLICE, rregion);
  check(memcmp(hbuf, href, sizeof href) == 0, "clEnqueueReadBufferRect matches the host reference");
  /* Written back elsewhere in the buffer. */
  const size_t b_origin2[3] = {20, 0, 0};
  MUST(clEnqueueWriteBufferRect(q, rect, CL_TRUE, b_origin2, h_origin, rregion, BROW, BSLICE, HROW, HSLICE, hbuf, 0,
                                NULL, NULL));
  memcpy(bref, bsrc, sizeof bref);
  rect_copy(bref, b_origin2, BROW, BSLICE, href, h_origin, HROW, HSLICE, rregion);
  MUST(clEnqueueReadBuffer(q, rect, CL_TRUE, 0, BSIZE, bgot, 0, NULL, NULL));
  check(memcmp(bgot, bref, sizeof bref) == 0, "clEnqueueWriteBufferRect matches the host reference");
  /* Pitches of 0: "If buffer_row_pitch is 0, buffer_row_pitch is computed as region[0]"; "If
     buffer_slice_pitch is 0, buffer_slice_pitch is computed as region[1] * buffer_row_pitch". */
  const size_t zero[3] = {0, 0, 0}, tight[3] = {8, 3, 2};
  unsigned char packed[48];
  MUST(clEnqueueReadBufferRect(q, rect, CL_TRUE, zero, zero, tight, 0, 0, 0, 0, packed, 0, NULL, NULL));
  check(memcmp(packed, bgot, 48) == 0, "pitches of 0 mean tightly packed rows and slices");
  /* clEnqueueCopyBufferRect, into a second buffer and within the first (regions apart). */
  unsigned char cdata[BSIZE];
  memset(cdata, 0, sizeof cdata);
  cl_mem rect2 = make(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, BSIZE, cdata);
  const size_t d_origin[3] = {1, 2, 0};
  MUST(clEnqueueCopyBufferRect(q, rect, rect2, b_origin, d_origin, rregion, BROW, BSLICE, BROW, BSLICE, 0, NULL, NULL));
  rect_copy(cdata, d_origin, BROW, BSLICE, bref, b_origin, BROW, BSLICE, rregion);
  const size_t s_origin[3] = {0, 0, 0}, d2_origin[3] = {24, 0, 0}, nregion[3] = {10, 6, 3};
  MUST(clEnqueueCopyBufferRect(q, rect2, rect2, s_origin, d2_origin, nregion, BROW, BSLICE, BROW, BSLICE, 0, NULL,
                               NULL));
  rect_copy(cdata, d2_origin, BROW, BSLICE, cdata, s_origin, BROW, BSLICE, nregion);
  MUST(clEnqueueReadBuffer(q, rect2, CL_TRUE, 0, BSIZE, bgot, 0, NULL, NULL));
  check(memcmp(bgot, cdata, sizeof cdata) == 0, "clEnqueueCopyBufferRect matches the host reference");
  long rect_sum = 0;
  for (int i = 0; i < BSIZE; i++)
    rect_sum += bgot[i] * (i % 13 + 1);
  printf("rectangle copies: checksum %ld\n", rect_sum);
  /* Errors: a row pitch below the region's width; a region past the end; overlapping regions of one
     buffer ("CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer object and the source
     and destination regions overlap"). */
  expect(clEnqueueReadBufferRect(q, rect, CL_TRUE, b_origin, h_origin, rregion, 8, BSLICE, HROW, HSLICE, hbuf, 0, NULL,
                                 NULL),
         CL_INVALID_VALUE, "clEnqueueReadBufferRect(row pitch < region width)");
  const size_t far_origin[3] = {0, 0, 2}, tall[3] = {4, 6, 2};
  expect(clEnqueueReadBufferRect(q, rect, CL_TRUE, far_origin, zero, tall, BROW, BSLICE, HROW, HSLICE, hbuf, 0, NULL,
                                 NULL),
         CL_INVALID_VALUE, "clEnqueueReadBufferRect(region past the end)");
  const size_t o1[3] = {0, 0, 0}, o2[3] = {2, 1, 0}, r2[3] = {8, 3, 1};
  expect(clEnqueueCopyBufferRect(q, rect, rect, o1, o2, r2, BROW, BSLICE, BROW, BSLICE, 0, NULL, NULL),
         CL_MEM_COPY_OVERLAP, "clEnqueueCopyBufferRect(overlapping regions of one buffer)");

  /* ---- Maps (5.4.2) ---- */
  cl_mem mb = make(CL_MEM_READ_WRITE, sizeof host, NULL);
  for (int i = 0; i < N; i++)
    host[i] = i + 50;
  MUST(clEnqueueWriteBuffer(q, mb, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
  cl_event mapped_ev;
  cl_int *m = clEnqueueMapBuffer(q, mb, CL_FALSE, CL_MAP_READ, 0, sizeof host, 0, NULL, &mapped_ev, &err);
  MUST(err);
  MUST(clWaitForEvents(1, &mapped_ev));
  check(memcmp(m, host, sizeof host) == 0, "non-blocking CL_MAP_READ shows the buffer after its event");
  MUST(clReleaseEvent(mapped_ev));
  MUST(clEnqueueUnmapMemObject(q, mb, m, 0, NULL, NULL));
  m = clEnqueueMapBuffer(q, mb, CL_TRUE, CL_MAP_WRITE, 32 * sizeof(cl_int), 16 * sizeof(cl_int), 0, NULL, NULL, &err);
  MUST(err);
  check(m[0] == 82 && m[15] == 97, "CL_MAP_WRITE shows the buffer's contents");
  for (int i = 0; i < 16; i++)
    m[i] = -i;
  MUST(clEnqueueUnmapMemObject(q, mb, m, 0, NULL, NULL));
  /* CL_MAP_WRITE_INVALIDATE_REGION: the region's old contents are undefined, so all of it is written. */
  m = clEnqueueMapBuffer(q, mb, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 100 * sizeof(cl_int), 10 * sizeof(cl_int), 0,
                         NULL, NULL, &err);
  MUST(err);
  for (int i = 0; i < 10; i++)
    m[i] = 9000 + i;
  MUST(clEnqueueUnmapMemObject(q, mb, m, 0, NULL, NULL));
  MUST(clEnqueueReadBuffer(q, mb, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  printf("after map writes: [31] %d [32] %d [47] %d [48] %d [99] %d [100] %d [109] %d [110] %d\n", (int)out[31],
         (int)out[32], (int)out[47], (int)out[48], (int)out[99], (int)out[100], (int)out[109], (int)out[110]);
  /* Two maps of one buffer at once for reading are allowed; each unmapped by its own pointer. */
  cl_int *m1 = clEnqueueMapBuffer(q, mb, CL_TRUE, CL_MAP_READ, 0, 64, 0, NULL, NULL, &err);
  MUST(err);
  cl_int *m2 = clEnqueueMapBuffer(q, mb, CL_TRUE, CL_MAP_READ, 64, 64, 0, NULL, NULL, &err);
  MUST(err);
  cl_uint map_count = 0;
  MUST(clGetMemObjectInfo(mb, CL_MEM_MAP_COUNT, sizeof map_count, &map_count, NULL));
  check(map_count == 2, "CL_MEM_MAP_COUNT counts two maps");
  check(m1[0] == 50 && m2[0] == 66, "two read maps at once");
  MUST(clEnqueueUnmapMemObject(q, mb, m2, 0, NULL, NULL));
  MUST(clEnqueueUnmapMemObject(q, mb, m1, 0, NULL, NULL));
  MUST(clFinish(q));
  /* Map errors: "CL_INVALID_VALUE if region being mapped given by (offset, size) is out of bounds or if
     size is 0". (Not checked: "or if values specified in map_flags are not valid", CL_MAP_READ with the
     mutually exclusive CL_MAP_WRITE_INVALIDATE_REGION, which PoCL 3.1 maps.) */
  clEnqueueMapBuffer(q, mb, CL_TRUE, CL_MAP_READ, sizeof host - 4, 8, 0, NULL, NULL, &err);
  expect(err, CL_INVALID_VALUE, "clEnqueueMapBuffer(past the end)");
  clEnqueueMapBuffer(q, mb, CL_TRUE, CL_MAP_READ, 0, 0, 0, NULL, NULL, &err);
  expect(err, CL_INVALID_VALUE, "clEnqueueMapBuffer(size 0)");

  /* ---- clEnqueueMigrateMemObjects (5.4.4) ---- */
  /* To the host and back: the contents stay (without CONTENT_UNDEFINED). */
  cl_event migrated;
  expect(clEnqueueMigrateMemObjects(q, 1, &mb, CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL, &migrated), CL_SUCCESS,
         "clEnqueueMigrateMemObjects(to the host)");
  cl_command_type ctype = 0;
  MUST(clGetEventInfo(migrated, CL_EVENT_COMMAND_TYPE, sizeof ctype, &ctype, NULL));
  check(ctype == CL_COMMAND_MIGRATE_MEM_OBJECTS, "its event's type is CL_COMMAND_MIGRATE_MEM_OBJECTS");
  MUST(clReleaseEvent(migrated));
  expect(clEnqueueMigrateMemObjects(q, 1, &mb, 0, 0, NULL, NULL), CL_SUCCESS,
         "clEnqueueMigrateMemObjects(to the queue's device)");
  MUST(clEnqueueReadBuffer(q, mb, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  check(out[0] == 50 && out[32] == 0 && out[100] == 9000, "migrations keep the contents");
  expect(clEnqueueMigrateMemObjects(q, 1, &mb, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, NULL, NULL), CL_SUCCESS,
         "clEnqueueMigrateMemObjects(CONTENT_UNDEFINED)");
  expect(clEnqueueMigrateMemObjects(q, 0, &mb, 0, 0, NULL, NULL), CL_INVALID_VALUE,
         "clEnqueueMigrateMemObjects(0 objects)");
  expect(clEnqueueMigrateMemObjects(q, 1, &mb, (cl_mem_migration_flags)1 << 10, 0, NULL, NULL), CL_INVALID_VALUE,
         "clEnqueueMigrateMemObjects(unknown flag)");
  MUST(clFinish(q));

  /* ---- Destructor callbacks (5.4.1, clSetMemObjectDestructorCallback) ---- */
  /* "The registered user callback functions are called in the reverse order in which they were
     registered", once the object is deleted. */
  static int tag1 = 1, tag2 = 2, tag3 = 3;
  cl_mem doomed = make(CL_MEM_READ_WRITE, 64, NULL);
  expect(clSetMemObjectDestructorCallback(doomed, on_destroy, &tag1), CL_SUCCESS, "clSetMemObjectDestructorCallback");
  MUST(clSetMemObjectDestructorCallback(doomed, on_destroy, &tag2));
  expect(clSetMemObjectDestructorCallback(doomed, NULL, &tag1), CL_INVALID_VALUE,
         "clSetMemObjectDestructorCallback(NULL callback)");
  sleep_ms(20);
  check(atomic_load(&callback_calls) == 0, "no destructor callback before the release");
  MUST(clReleaseMemObject(doomed));
  int calls = wait_callbacks(2);
  check(calls == 2, "both destructor callbacks called once on release");
  check(atomic_load(&callback_order[0]) == 2 && atomic_load(&callback_order[1]) == 1,
        "destructor callbacks called in reverse order of registration");
  /* clReleaseMemObject: "If memobj is a buffer object, memobj cannot be deleted until all sub-buffer
     objects associated with memobj are deleted." */
  cl_mem doomed_parent = make(CL_MEM_READ_WRITE, 4 * align, NULL);
  cl_buffer_region first = {0, align};
  cl_mem doomed_sub = clCreateSubBuffer(doomed_parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &first, &err);
  MUST(err);
  MUST(clSetMemObjectDestructorCallback(doomed_parent, on_destroy, &tag3));
  MUST(clReleaseMemObject(doomed_parent));
  sleep_ms(50);
  check(atomic_load(&callback_calls) == 2, "a parent buffer outlives its release while a sub-buffer lives");
  MUST(clReleaseMemObject(doomed_sub));
  calls = wait_callbacks(3);
  check(calls == 3 && atomic_load(&callback_order[2]) == 3,
        "the parent's callback is called with the sub-buffer's release");

  MUST(clReleaseMemObject(use));
  MUST(clReleaseMemObject(copy));
  MUST(clReleaseMemObject(alloc));
  MUST(clReleaseMemObject(alloc_copy));
  MUST(clReleaseMemObject(a));
  MUST(clReleaseMemObject(b));
  MUST(clReleaseMemObject(c));
  MUST(clReleaseMemObject(host_wo));
  MUST(clReleaseMemObject(host_ro));
  MUST(clReleaseMemObject(host_none));
  MUST(clReleaseMemObject(sub));
  MUST(clReleaseMemObject(parent));
  MUST(clReleaseMemObject(wo_parent));
  MUST(clReleaseMemObject(none_parent));
  MUST(clReleaseMemObject(rw));
  MUST(clReleaseMemObject(dst));
  MUST(clReleaseMemObject(fill));
  MUST(clReleaseMemObject(rect));
  MUST(clReleaseMemObject(rect2));
  MUST(clReleaseMemObject(mb));
  free(pdata), free(pout);
  MUST(clReleaseKernel(k_add));
  MUST(clReleaseKernel(k_scale));
  MUST(clReleaseProgram(program));
  MUST(clReleaseCommandQueue(q));
  MUST(clReleaseContext(ctx));
  return finish();
}
