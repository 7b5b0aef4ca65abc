/* context_queue.c: contexts and command-queues of OpenCL 1.2 (spec sections 4.4 and 5.1).
 *
 * Prints only spec-fixed values and result codes, and "ok"/"FAIL" lines for device-dependent checks, so
 * that the output is the same under every conforming implementation. Exit status 0 when every check
 * passes, 1 otherwise.
 *
 * Reference counts are compared with what they were before (retain adds one, release takes one away),
 * except where a fresh object's count is fixed: the spec warns that counts are "immediately stale", and
 * implementations differ in which objects retain which. */
#include "cltest.h"
#include <stdint.h>
#include <string.h>

static cl_uint context_refs(cl_context c) {
  cl_uint n = 0;
  MUST(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, NULL));
  return n;
}

static cl_uint queue_refs(cl_command_queue q) {
  cl_uint n = 0;
  MUST(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof n, &n, NULL));
  return n;
}

/* Writes 64 ints through one queue and reads them back through another of the same context: both
   queues reach the context's buffers. */
static int round_trip(cl_context ctx, cl_command_queue writer, cl_command_queue reader, int seed) {
  cl_int err, in[64], out[64];
  for (int i = 0; i < 64; i++)
    in[i] = seed * 1000 + i, out[i] = -1;
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof in, NULL, &err);
  MUST(err);
  MUST(clEnqueueWriteBuffer(writer, buf, CL_TRUE, 0, sizeof in, in, 0, NULL, NULL));
  MUST(clFinish(writer));
  MUST(clEnqueueReadBuffer(reader, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  MUST(clReleaseMemObject(buf));
  return memcmp(in, out, sizeof in) == 0;
}

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  pick_device(&platform, &device);
  cl_int err;

  /* ---- Contexts (4.4) ---- */
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
  cl_context ctx = clCreateContext(props, 1, &device, NULL, NULL, &err);
  expect(err, CL_SUCCESS, "clCreateContext");
  if (err != CL_SUCCESS)
    return finish();
  /* Table 4.6 (clGetContextInfo). */
  check(context_refs(ctx) == 1, "CL_CONTEXT_REFERENCE_COUNT of a new context is 1");
  cl_uint num_devices = 0;
  MUST(clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, sizeof num_devices, &num_devices, NULL));
  printf("CL_CONTEXT_NUM_DEVICES: %u\n", num_devices);
  if (num_devices != 1)
    failures++;
  cl_device_id ctx_devices[4] = {NULL};
  size_t size = 0;
  MUST(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof ctx_devices, ctx_devices, &size));
  check(size == sizeof(cl_device_id) && ctx_devices[0] == device, "CL_CONTEXT_DEVICES is the device");
  /* "Returns the properties argument specified in clCreateContext". */
  cl_context_properties got_props[8] = {0};
  MUST(clGetContextInfo(ctx, CL_CONTEXT_PROPERTIES, sizeof got_props, got_props, &size));
  check(size == sizeof props && memcmp(got_props, props, sizeof props) == 0,
        "CL_CONTEXT_PROPERTIES is the properties given");
  expect(clGetContextInfo(ctx, 0x7fff, sizeof size, &size, NULL), CL_INVALID_VALUE, "clGetContextInfo(unknown param)");
  expect(clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, 1, &num_devices, NULL), CL_INVALID_VALUE,
         "clGetContextInfo(NUM_DEVICES, 1-byte buffer)");
  expect(clGetContextInfo(NULL, CL_CONTEXT_NUM_DEVICES, sizeof num_devices, &num_devices, NULL), CL_INVALID_CONTEXT,
         "clGetContextInfo(NULL context)");
  /* clRetainContext and clReleaseContext (4.4): one up, one down. */
  cl_uint before = context_refs(ctx);
  expect(clRetainContext(ctx), CL_SUCCESS, "clRetainContext");
  check(context_refs(ctx) == before + 1, "clRetainContext adds one to CL_CONTEXT_REFERENCE_COUNT");
  expect(clReleaseContext(ctx), CL_SUCCESS, "clReleaseContext");
  check(context_refs(ctx) == before, "clReleaseContext takes one away");
  expect(clRetainContext(NULL), CL_INVALID_CONTEXT, "clRetainContext(NULL)");
  expect(clReleaseContext(NULL), CL_INVALID_CONTEXT, "clReleaseContext(NULL)");

  /* clCreateContext's errors. */
  cl_context bad;
  bad = clCreateContext(props, 0, &device, NULL, NULL, &err);
  expect(err, CL_INVALID_VALUE, "clCreateContext(0 devices)");
  check(bad == NULL, "clCreateContext returns NULL on an error");
  clCreateContext(props, 1, NULL, NULL, NULL, &err);
  expect(err, CL_INVALID_VALUE, "clCreateContext(NULL device list)");
  int user_data = 0;
  clCreateContext(props, 1, &device, NULL, &user_data, &err);
  expect(err, CL_INVALID_VALUE, "clCreateContext(no callback, user data)");
  cl_context_properties unknown[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0x7fff, 1, 0};
  clCreateContext(unknown, 1, &device, NULL, NULL, &err);
  expect(err, CL_INVALID_PROPERTY, "clCreateContext(unknown property)");
  cl_context_properties twice[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, CL_CONTEXT_PLATFORM,
                                   (cl_context_properties)platform, 0};
  clCreateContext(twice, 1, &device, NULL, NULL, &err);
  expect(err, CL_INVALID_PROPERTY, "clCreateContext(a property twice)");
  cl_device_id null_device = NULL;
  clCreateContext(props, 1, &null_device, NULL, NULL, &err);
  expect(err, CL_INVALID_DEVICE, "clCreateContext(NULL device)");
  /* Without properties the platform is the implementation's choice (4.4); the context still works. */
  cl_context ctx_noprops = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  expect(err, CL_SUCCESS, "clCreateContext(no properties)");
  if (err == CL_SUCCESS)
    MUST(clReleaseContext(ctx_noprops));

  /* clCreateContextFromType: the device's own type finds it; a type with no device on this platform
     gives CL_DEVICE_NOT_FOUND. */
  cl_device_type type;
  MUST(clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL));
  type &= ~(cl_device_type)CL_DEVICE_TYPE_DEFAULT;
  cl_context ctx_type = clCreateContextFromType(props, type, NULL, NULL, &err);
  expect(err, CL_SUCCESS, "clCreateContextFromType(the device's type)");
  if (err == CL_SUCCESS) {
    cl_device_id list[64];
    cl_uint n = 0;
    MUST(clGetContextInfo(ctx_type, CL_CONTEXT_NUM_DEVICES, sizeof n, &n, NULL));
    if (n > 64)
      n = 64;
    MUST(clGetContextInfo(ctx_type, CL_CONTEXT_DEVICES, n * sizeof(cl_device_id), list, NULL));
    int found = 0;
    for (cl_uint i = 0; i < n; i++)
      found |= list[i] == device;
    check(found, "clCreateContextFromType's devices include the device");
    MUST(clReleaseContext(ctx_type));
  }
  const cl_device_type types[] = {CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR,
                                  CL_DEVICE_TYPE_CUSTOM};
  cl_device_type empty = 0;
  for (int t = 0; t < 4 && empty == 0; t++) {
    cl_uint n = 0;
    if (clGetDeviceIDs(platform, types[t], 0, NULL, &n) == CL_DEVICE_NOT_FOUND)
      empty = types[t];
  }
  check(empty != 0, "a device type with no device exists");
  if (empty != 0) {
    clCreateContextFromType(props, empty, NULL, NULL, &err);
    expect(err, CL_DEVICE_NOT_FOUND, "clCreateContextFromType(a type with no device)");
  }

  /* ---- Command-queues (5.1) ---- */
  cl_command_queue_properties supported;
  MUST(clGetDeviceInfo(device, CL_DEVICE_QUEUE_PROPERTIES, sizeof supported, &supported, NULL));
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
  expect(err, CL_SUCCESS, "clCreateCommandQueue(in order)");
  if (err != CL_SUCCESS)
    return finish();
  /* Table 5.2 (clGetCommandQueueInfo). */
  cl_context q_ctx = NULL;
  cl_device_id q_dev = NULL;
  cl_command_queue_properties q_props = 99;
  MUST(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof q_ctx, &q_ctx, NULL));
  MUST(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof q_dev, &q_dev, NULL));
  MUST(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof q_props, &q_props, &size));
  check(q_ctx == ctx, "CL_QUEUE_CONTEXT is the context");
  check(q_dev == device, "CL_QUEUE_DEVICE is the device");
  check(size == sizeof q_props && q_props == 0, "CL_QUEUE_PROPERTIES of an in-order queue is 0");
  check(queue_refs(q) == 1, "CL_QUEUE_REFERENCE_COUNT of a new queue is 1");
  before = queue_refs(q);
  expect(clRetainCommandQueue(q), CL_SUCCESS, "clRetainCommandQueue");
  check(queue_refs(q) == before + 1, "clRetainCommandQueue adds one to CL_QUEUE_REFERENCE_COUNT");
  expect(clReleaseCommandQueue(q), CL_SUCCESS, "clReleaseCommandQueue");
  check(queue_refs(q) == before, "clReleaseCommandQueue takes one away");
  expect(clGetCommandQueueInfo(q, 0x7fff, sizeof q_props, &q_props, NULL), CL_INVALID_VALUE,
         "clGetCommandQueueInfo(unknown param)");
  expect(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, 1, &q_ctx, NULL), CL_INVALID_VALUE,
         "clGetCommandQueueInfo(CONTEXT, 1-byte buffer)");
  expect(clGetCommandQueueInfo(NULL, CL_QUEUE_CONTEXT, sizeof q_ctx, &q_ctx, NULL), CL_INVALID_COMMAND_QUEUE,
         "clGetCommandQueueInfo(NULL queue)");
  expect(clFlush(q), CL_SUCCESS, "clFlush");
  expect(clFinish(q), CL_SUCCESS, "clFinish");
  expect(clFlush(NULL), CL_INVALID_COMMAND_QUEUE, "clFlush(NULL)");
  expect(clFinish(NULL), CL_INVALID_COMMAND_QUEUE, "clFinish(NULL)");

  /* Profiling is a mandated queue property (table 4.3). */
  cl_command_queue qp = clCreateCommandQueue(ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
  expect(err, CL_SUCCESS, "clCreateCommandQueue(CL_QUEUE_PROFILING_ENABLE)");
  if (err == CL_SUCCESS) {
    MUST(clGetCommandQueueInfo(qp, CL_QUEUE_PROPERTIES, sizeof q_props, &q_props, NULL));
    check(q_props == CL_QUEUE_PROFILING_ENABLE, "CL_QUEUE_PROPERTIES is CL_QUEUE_PROFILING_ENABLE");
    check(round_trip(ctx, q, qp, 1), "a buffer written through one queue reads back through another");
  }
  /* Out-of-order execution is optional: created where CL_DEVICE_QUEUE_PROPERTIES lists it, else
     CL_INVALID_QUEUE_PROPERTIES ("values specified in properties are valid but are not supported by the
     device"). */
  cl_command_queue qo = clCreateCommandQueue(ctx, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
  if (supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
    int good = err == CL_SUCCESS;
    if (good) {
      MUST(clGetCommandQueueInfo(qo, CL_QUEUE_PROPERTIES, sizeof q_props, &q_props, NULL));
      good = q_props == CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE && round_trip(ctx, qo, q, 2);
      MUST(clReleaseCommandQueue(qo));
    }
    check(good, "out-of-order queue created and working, or CL_INVALID_QUEUE_PROPERTIES where unsupported");
  } else {
    check(err == CL_INVALID_QUEUE_PROPERTIES,
          "out-of-order queue created and working, or CL_INVALID_QUEUE_PROPERTIES where unsupported");
  }
  /* clCreateCommandQueue's errors. (Not checked: "CL_INVALID_VALUE if values specified in properties are
     not valid" for an unknown property bit, which PoCL 3.1 accepts.) */
  clCreateCommandQueue(NULL, device, 0, &err);
  expect(err, CL_INVALID_CONTEXT, "clCreateCommandQueue(NULL context)");
  clCreateCommandQueue(ctx, NULL, 0, &err);
  expect(err, CL_INVALID_DEVICE, "clCreateCommandQueue(NULL device)");
  expect(clRetainCommandQueue(NULL), CL_INVALID_COMMAND_QUEUE, "clRetainCommandQueue(NULL)");
  expect(clReleaseCommandQueue(NULL), CL_INVALID_COMMAND_QUEUE, "clReleaseCommandQueue(NULL)");
  /* Objects of a context: clCreateBuffer on no context. */
  clCreateBuffer(NULL, CL_MEM_READ_WRITE, 64, NULL, &err);
  expect(err, CL_INVALID_CONTEXT, "clCreateBuffer(NULL context)");

  /* 4.4, clReleaseContext: "After the context reference count becomes zero and all the objects attached
     to context (such as memory objects, command-queues) are released, the context is deleted." A queue
     and a buffer keep working after their context's last release. */
  cl_context ctx2 = clCreateContext(props, 1, &device, NULL, NULL, &err);
  MUST(err);
  cl_command_queue q2 = clCreateCommandQueue(ctx2, device, 0, &err);
  MUST(err);
  cl_int in[64], out[64];
  for (int i = 0; i < 64; i++)
    in[i] = 3000 + i, out[i] = -1;
  cl_mem buf2 = clCreateBuffer(ctx2, CL_MEM_READ_WRITE, sizeof in, NULL, &err);
  MUST(err);
  MUST(clReleaseContext(ctx2));
  MUST(clEnqueueWriteBuffer(q2, buf2, CL_TRUE, 0, sizeof in, in, 0, NULL, NULL));
  MUST(clEnqueueReadBuffer(q2, buf2, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  check(memcmp(in, out, sizeof in) == 0, "a queue and a buffer outlive their context's last release");
  MUST(clReleaseMemObject(buf2));
  MUST(clGetCommandQueueInfo(q2, CL_QUEUE_CONTEXT, sizeof q_ctx, &q_ctx, NULL));
  check(q_ctx == ctx2, "CL_QUEUE_CONTEXT still names the released context");
  MUST(clReleaseCommandQueue(q2));

  if (qp)
    MUST(clReleaseCommandQueue(qp));
  MUST(clReleaseCommandQueue(q));
  MUST(clReleaseContext(ctx));
  return finish();
}
