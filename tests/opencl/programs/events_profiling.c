/* events_profiling.c: events, profiling and synchronization of OpenCL 1.2 (spec sections 5.9 to 5.13):
 * profiling timestamps, clGetEventInfo, wait lists on an out-of-order queue, markers and barriers (1.2
 * and the 1.1 forms), user events, event callbacks, clFlush and clFinish.
 *
 * Prints computed results, spec-fixed values and result codes, and "ok"/"FAIL" lines for what depends
 * on timing or the device, so that the output is the same under every conforming implementation. Exit
 * status 0 when every check passes, 1 otherwise. */
#define _POSIX_C_SOURCE 200809L           /* nanosleep */
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS /* clEnqueueMarker, clEnqueueBarrier, clEnqueueWaitForEvents */
#include "cltest.h"
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static const char *source = "__kernel void add_k(__global const int *a, __global int *b, int k) {\n"
                            "  size_t i = get_global_id(0);\n"
                            "  b[i] = a[i] + k;\n"
                            "}\n"
                            "__kernel void mul2(__global const int *a, __global const int *b, __global int *c) {\n"
                            "  size_t i = get_global_id(0);\n"
                            "  c[i] = 2 * a[i] + b[i];\n"
                            "}\n";

#define N 1024

static cl_context ctx;
static cl_kernel k_add, k_mul2;

static void sleep_ms(int ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static cl_mem make(cl_mem_flags flags, size_t size, void *host) {
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, flags, size, host, &err);
  MUST(err);
  return m;
}

static void enqueue_add(cl_command_queue q, cl_mem a, cl_mem b, cl_int k, cl_uint nwait, const cl_event *wait,
                        cl_event *ev) {
  size_t n = N;
  MUST(clSetKernelArg(k_add, 0, sizeof a, &a));
  MUST(clSetKernelArg(k_add, 1, sizeof b, &b));
  MUST(clSetKernelArg(k_add, 2, sizeof k, &k));
  MUST(clEnqueueNDRangeKernel(q, k_add, 1, NULL, &n, NULL, nwait, wait, ev));
}

static cl_int status_of(cl_event e) {
  cl_int s = 0;
  MUST(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL));
  return s;
}

static cl_command_type type_of(cl_event e) {
  cl_command_type t = 0;
  MUST(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL));
  return t;
}

static const char *type_name(cl_command_type t) {
  switch (t) {
  case CL_COMMAND_NDRANGE_KERNEL: return "CL_COMMAND_NDRANGE_KERNEL";
  case CL_COMMAND_READ_BUFFER: return "CL_COMMAND_READ_BUFFER";
  case CL_COMMAND_WRITE_BUFFER: return "CL_COMMAND_WRITE_BUFFER";
  case CL_COMMAND_COPY_BUFFER: return "CL_COMMAND_COPY_BUFFER";
  case CL_COMMAND_MARKER: return "CL_COMMAND_MARKER";
  case CL_COMMAND_BARRIER: return "CL_COMMAND_BARRIER";
  case CL_COMMAND_USER: return "CL_COMMAND_USER";
  case CL_COMMAND_FILL_BUFFER: return "CL_COMMAND_FILL_BUFFER";
  case CL_COMMAND_MAP_BUFFER: return "CL_COMMAND_MAP_BUFFER";
  case CL_COMMAND_UNMAP_MEM_OBJECT: return "CL_COMMAND_UNMAP_MEM_OBJECT";
  }
  return "other";
}

/* The four timestamps of table 5.22, in order ("CL_PROFILING_COMMAND_QUEUED ... SUBMIT ... START ...
   END"), with a value for each. */
static int timestamps(cl_event e, cl_ulong t[4]) {
  const cl_profiling_info names[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                      CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
  for (int i = 0; i < 4; i++) {
    size_t size = 0;
    if (clGetEventProfilingInfo(e, names[i], sizeof t[i], &t[i], &size) != CL_SUCCESS || size != sizeof(cl_ulong))
      return 0;
  }
  return t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3];
}

/* Event callbacks (5.9, clSetEventCallback) may run on any thread. */
static atomic_int calls_complete, calls_submitted, calls_running, calls_other, wrong_status;
static void CL_CALLBACK on_event(cl_event e, cl_int status, void *user_data) {
  (void)e;
  cl_int want = *(cl_int *)user_data;
  /* "event_command_exec_status is equal to the command_exec_callback_type used while registering the
     callback" (unless the command was terminated, which none of these is). */
  if (status != want)
    atomic_fetch_add(&wrong_status, 1);
  if (want == CL_COMPLETE)
    atomic_fetch_add(&calls_complete, 1);
  else if (want == CL_SUBMITTED)
    atomic_fetch_add(&calls_submitted, 1);
  else if (want == CL_RUNNING)
    atomic_fetch_add(&calls_running, 1);
  else
    atomic_fetch_add(&calls_other, 1);
}
/* Waits up to two seconds for a counter ("the callback ... will be called asynchronously"). */
static int wait_count(atomic_int *counter, int n) {
  for (int i = 0; i < 200 && atomic_load(counter) < n; i++)
    sleep_ms(10);
  return atomic_load(counter);
}

static long checksum(const cl_int *p) {
  long s = 0;
  for (int i = 0; i < N; i++)
    s += (long)p[i] * (i % 5 + 1);
  return s;
}

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  pick_device(&platform, &device);
  cl_int err;
  ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  MUST(err);
  cl_program program = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  MUST(err);
  MUST(clBuildProgram(program, 1, &device, "", NULL, NULL));
  k_add = clCreateKernel(program, "add_k", &err);
  MUST(err);
  k_mul2 = clCreateKernel(program, "mul2", &err);
  MUST(err);
  cl_command_queue qp = clCreateCommandQueue(ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
  MUST(err);
  cl_command_queue qn = clCreateCommandQueue(ctx, device, 0, &err);
  MUST(err);
  /* The out-of-order queue where the device has one; an in-order queue honours wait lists too, and the
     results below are the same either way. */
  cl_command_queue_properties supported;
  MUST(clGetDeviceInfo(device, CL_DEVICE_QUEUE_PROPERTIES, sizeof supported, &supported, NULL));
  cl_command_queue qo = clCreateCommandQueue(ctx, device, supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
  MUST(err);
  cl_int in[N], out[N];
  for (int i = 0; i < N; i++)
    in[i] = i * 3 - 500;

  /* ---- Profiling (5.12) ---- */
  {
    cl_mem a = make(CL_MEM_READ_ONLY, sizeof in, NULL), b = make(CL_MEM_WRITE_ONLY, sizeof out, NULL);
    cl_event ew, ek, er;
    MUST(clEnqueueWriteBuffer(qp, a, CL_FALSE, 0, sizeof in, in, 0, NULL, &ew));
    enqueue_add(qp, a, b, 7, 0, NULL, &ek);
    MUST(clEnqueueReadBuffer(qp, b, CL_FALSE, 0, sizeof out, out, 0, NULL, &er));
    expect(clFinish(qp), CL_SUCCESS, "clFinish(profiling queue)");
    printf("write, add 7, read: checksum %ld\n", checksum(out));
    cl_ulong tw[4], tk[4], tr[4];
    check(timestamps(ew, tw), "write: QUEUED <= SUBMIT <= START <= END");
    check(timestamps(ek, tk), "kernel: QUEUED <= SUBMIT <= START <= END");
    check(timestamps(er, tr), "read: QUEUED <= SUBMIT <= START <= END");
    /* 5.11 (in-order execution): "a prior command on the queue completes before the following command
       begins". */
    check(tw[3] <= tk[2] && tk[3] <= tr[2], "in order: each command starts after the one before ends");
    printf("event types: %s %s %s\n", type_name(type_of(ew)), type_name(type_of(ek)), type_name(type_of(er)));
    /* Table 5.21. */
    cl_command_queue eq = NULL;
    cl_context ec = NULL;
    MUST(clGetEventInfo(ek, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, NULL));
    MUST(clGetEventInfo(ek, CL_EVENT_CONTEXT, sizeof ec, &ec, NULL));
    check(eq == qp && ec == ctx, "CL_EVENT_COMMAND_QUEUE and CL_EVENT_CONTEXT");
    printf("statuses after clFinish: %s %s %s\n", status_of(ew) == CL_COMPLETE ? "CL_COMPLETE" : "other",
           status_of(ek) == CL_COMPLETE ? "CL_COMPLETE" : "other",
           status_of(er) == CL_COMPLETE ? "CL_COMPLETE" : "other");
    cl_uint r1 = 0, r2 = 0;
    MUST(clGetEventInfo(ek, CL_EVENT_REFERENCE_COUNT, sizeof r1, &r1, NULL));
    MUST(clRetainEvent(ek));
    MUST(clGetEventInfo(ek, CL_EVENT_REFERENCE_COUNT, sizeof r2, &r2, NULL));
    check(r2 == r1 + 1, "clRetainEvent adds one to CL_EVENT_REFERENCE_COUNT");
    MUST(clReleaseEvent(ek));
    cl_ulong t;
    expect(clGetEventProfilingInfo(ek, 0x7fff, sizeof t, &t, NULL), CL_INVALID_VALUE,
           "clGetEventProfilingInfo(unknown param)");
    expect(clGetEventProfilingInfo(ek, CL_PROFILING_COMMAND_END, 4, &t, NULL), CL_INVALID_VALUE,
           "clGetEventProfilingInfo(END, 4 bytes)");
    MUST(clReleaseEvent(ew));
    MUST(clReleaseEvent(ek));
    MUST(clReleaseEvent(er));
    /* "CL_PROFILING_INFO_NOT_AVAILABLE if the CL_QUEUE_PROFILING_ENABLE flag is not set for the
       command-queue". */
    cl_event en;
    enqueue_add(qn, a, b, 1, 0, NULL, &en);
    MUST(clFinish(qn));
    expect(clGetEventProfilingInfo(en, CL_PROFILING_COMMAND_START, sizeof t, &t, NULL), CL_PROFILING_INFO_NOT_AVAILABLE,
           "clGetEventProfilingInfo(queue without profiling)");
    MUST(clReleaseEvent(en));
    MUST(clReleaseMemObject(a));
    MUST(clReleaseMemObject(b));
  }

  /* ---- Wait lists (5.11) on the out-of-order queue ---- */
  /* Four chains of write -> add -> mul2 -> read, each command waiting on the ones it reads from; only the
     events order them. */
  {
    cl_mem a[4], b[4], c[4];
    cl_int res[4][N];
    cl_event ev_read[4];
    for (int j = 0; j < 4; j++) {
      a[j] = make(CL_MEM_READ_WRITE, sizeof in, NULL);
      b[j] = make(CL_MEM_READ_WRITE, sizeof in, NULL);
      c[j] = make(CL_MEM_READ_WRITE, sizeof in, NULL);
      cl_event w, k1, k2;
      MUST(clEnqueueWriteBuffer(qo, a[j], CL_FALSE, 0, sizeof in, in, 0, NULL, &w));
      enqueue_add(qo, a[j], b[j], 100 * j, 1, &w, &k1);
      size_t n = N;
      cl_event both[2] = {w, k1};
      MUST(clSetKernelArg(k_mul2, 0, sizeof a[j], &a[j]));
      MUST(clSetKernelArg(k_mul2, 1, sizeof b[j], &b[j]));
      MUST(clSetKernelArg(k_mul2, 2, sizeof c[j], &c[j]));
      MUST(clEnqueueNDRangeKernel(qo, k_mul2, 1, NULL, &n, NULL, 2, both, &k2));
      MUST(clEnqueueReadBuffer(qo, c[j], CL_FALSE, 0, sizeof res[j], res[j], 1, &k2, &ev_read[j]));
      MUST(clReleaseEvent(w));
      MUST(clReleaseEvent(k1));
      MUST(clReleaseEvent(k2));
    }
    MUST(clFlush(qo));
    expect(clWaitForEvents(4, ev_read), CL_SUCCESS, "clWaitForEvents(four reads)");
    printf("four chains (3*in + 100*j):");
    for (int j = 0; j < 4; j++)
      printf(" %ld", checksum(res[j]));
    printf("\n");
    for (int j = 0; j < 4; j++) {
      MUST(clReleaseEvent(ev_read[j]));
      MUST(clReleaseMemObject(a[j]));
      MUST(clReleaseMemObject(b[j]));
      MUST(clReleaseMemObject(c[j]));
    }
  }

  /* ---- Markers and barriers (5.10) ---- */
  {
    /* clEnqueueMarkerWithWaitList with no list "waits on all commands previously enqueued". */
    cl_mem bufs[4];
    cl_event writes[4], marker, marker1;
    for (int j = 0; j < 4; j++) {
      bufs[j] = make(CL_MEM_READ_WRITE, sizeof in, NULL);
      MUST(clEnqueueWriteBuffer(qo, bufs[j], CL_FALSE, 0, sizeof in, in, 0, NULL, &writes[j]));
    }
    expect(clEnqueueMarkerWithWaitList(qo, 0, NULL, &marker), CL_SUCCESS, "clEnqueueMarkerWithWaitList(no list)");
    MUST(clWaitForEvents(1, &marker));
    int all = 1;
    for (int j = 0; j < 4; j++)
      all &= status_of(writes[j]) == CL_COMPLETE;
    check(all, "after a marker without a list completes, every earlier command is complete");
    printf("marker type: %s\n", type_name(type_of(marker)));
    /* With a list: waits on that event. */
    cl_event w5;
    MUST(clEnqueueWriteBuffer(qo, bufs[0], CL_FALSE, 0, sizeof in, in, 0, NULL, &w5));
    expect(clEnqueueMarkerWithWaitList(qo, 1, &w5, &marker1), CL_SUCCESS, "clEnqueueMarkerWithWaitList(one event)");
    MUST(clWaitForEvents(1, &marker1));
    check(status_of(w5) == CL_COMPLETE, "after a marker on an event completes, that event is complete");
    /* clEnqueueBarrierWithWaitList: later commands wait for all earlier ones, no events needed. */
    cl_event barrier;
    enqueue_add(qo, bufs[0], bufs[1], 11, 0, NULL, NULL);
    expect(clEnqueueBarrierWithWaitList(qo, 0, NULL, &barrier), CL_SUCCESS, "clEnqueueBarrierWithWaitList");
    enqueue_add(qo, bufs[1], bufs[2], 22, 0, NULL, NULL);
    MUST(clEnqueueBarrierWithWaitList(qo, 0, NULL, NULL));
    MUST(clEnqueueReadBuffer(qo, bufs[2], CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    printf("across barriers (in + 33): checksum %ld, barrier type: %s\n", checksum(out), type_name(type_of(barrier)));
    /* The 1.1 forms: clEnqueueBarrier and clEnqueueMarker. (Not checked: clEnqueueWaitForEvents, which
       PoCL 3.1 does not implement: it aborts the program.) */
    cl_event old_marker, wrote;
    MUST(clEnqueueWriteBuffer(qo, bufs[3], CL_FALSE, 0, sizeof in, in, 0, NULL, &wrote));
    expect(clEnqueueBarrier(qo), CL_SUCCESS, "clEnqueueBarrier");
    enqueue_add(qo, bufs[3], bufs[1], 44, 0, NULL, NULL);
    MUST(clEnqueueBarrier(qo));
    enqueue_add(qo, bufs[1], bufs[2], 55, 0, NULL, NULL);
    expect(clEnqueueMarker(qo, &old_marker), CL_SUCCESS, "clEnqueueMarker");
    MUST(clWaitForEvents(1, &old_marker));
    MUST(clEnqueueReadBuffer(qo, bufs[2], CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    printf("1.1 barrier and marker (in + 99): checksum %ld, marker type: %s\n", checksum(out),
           type_name(type_of(old_marker)));
    expect(clEnqueueMarker(qo, NULL), CL_INVALID_VALUE, "clEnqueueMarker(NULL event)");
    MUST(clFinish(qo));
    for (int j = 0; j < 4; j++)
      MUST(clReleaseEvent(writes[j])), MUST(clReleaseMemObject(bufs[j]));
    MUST(clReleaseEvent(marker));
    MUST(clReleaseEvent(marker1));
    MUST(clReleaseEvent(w5));
    MUST(clReleaseEvent(barrier));
    MUST(clReleaseEvent(old_marker));
    MUST(clReleaseEvent(wrote));
  }

  /* ---- User events (5.9, clCreateUserEvent, clSetUserEventStatus) and callbacks ---- */
  {
    cl_event user = clCreateUserEvent(ctx, &err);
    expect(err, CL_SUCCESS, "clCreateUserEvent");
    /* "The execution status of the user event object created is set to CL_SUBMITTED." */
    printf("user event: status %s, type %s\n", status_of(user) == CL_SUBMITTED ? "CL_SUBMITTED" : "other",
           type_name(type_of(user)));
    cl_command_queue uq = (cl_command_queue)&err;
    MUST(clGetEventInfo(user, CL_EVENT_COMMAND_QUEUE, sizeof uq, &uq, NULL));
    check(uq == NULL, "a user event's CL_EVENT_COMMAND_QUEUE is NULL");
    cl_ulong t;
    expect(clGetEventProfilingInfo(user, CL_PROFILING_COMMAND_QUEUED, sizeof t, &t, NULL),
           CL_PROFILING_INFO_NOT_AVAILABLE, "clGetEventProfilingInfo(user event)");
    /* A write, a kernel and a read held back by the user event, on the profiling queue. */
    cl_mem a = make(CL_MEM_READ_WRITE, sizeof in, NULL), b = make(CL_MEM_READ_WRITE, sizeof in, NULL);
    for (int i = 0; i < N; i++)
      out[i] = -7;
    cl_event w, k, r;
    MUST(clEnqueueWriteBuffer(qp, a, CL_FALSE, 0, sizeof in, in, 1, &user, &w));
    enqueue_add(qp, a, b, 1000, 1, &w, &k);
    MUST(clEnqueueReadBuffer(qp, b, CL_FALSE, 0, sizeof out, out, 1, &k, &r));
    static cl_int want_complete = CL_COMPLETE, want_submitted = CL_SUBMITTED, want_running = CL_RUNNING;
    expect(clSetEventCallback(k, CL_COMPLETE, on_event, &want_complete), CL_SUCCESS, "clSetEventCallback(CL_COMPLETE)");
    MUST(clSetEventCallback(k, CL_SUBMITTED, on_event, &want_submitted));
    MUST(clSetEventCallback(k, CL_RUNNING, on_event, &want_running));
    MUST(clSetEventCallback(r, CL_COMPLETE, on_event, &want_complete));
    expect(clSetEventCallback(k, CL_QUEUED, on_event, &want_complete), CL_INVALID_VALUE,
           "clSetEventCallback(CL_QUEUED)");
    expect(clSetEventCallback(k, CL_COMPLETE, NULL, NULL), CL_INVALID_VALUE, "clSetEventCallback(NULL callback)");
    MUST(clFlush(qp));
    sleep_ms(100);
    /* 5.9: "Enqueued commands that depend on the completion of user events ... must not be executed until
       the event is set to CL_COMPLETE". */
    int held = status_of(w) != CL_COMPLETE && status_of(k) != CL_COMPLETE && status_of(r) != CL_COMPLETE &&
               status_of(w) >= 0 && out[0] == -7 && out[N - 1] == -7;
    check(held, "commands waiting on a user event have not run");
    check(atomic_load(&calls_complete) == 0, "no CL_COMPLETE callback yet");
    /* "CL_PROFILING_INFO_NOT_AVAILABLE if ... the execution status of the command identified by event is
       not CL_COMPLETE". */
    expect(clGetEventProfilingInfo(k, CL_PROFILING_COMMAND_END, sizeof t, &t, NULL), CL_PROFILING_INFO_NOT_AVAILABLE,
           "clGetEventProfilingInfo(a command not complete)");
    expect(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS, "clSetUserEventStatus(CL_COMPLETE)");
    MUST(clWaitForEvents(1, &r));
    printf("after the user event: checksum %ld\n", checksum(out));
    printf("user event status: %s\n", status_of(user) == CL_COMPLETE ? "CL_COMPLETE" : "other");
    /* Each callback once, with the status it was registered for. */
    int complete = wait_count(&calls_complete, 2);
    wait_count(&calls_submitted, 1);
    wait_count(&calls_running, 1);
    sleep_ms(50);
    check(complete == 2 && atomic_load(&calls_complete) == 2, "each CL_COMPLETE callback called exactly once");
    check(atomic_load(&calls_submitted) == 1 && atomic_load(&calls_running) == 1,
          "CL_SUBMITTED and CL_RUNNING callbacks called exactly once");
    check(atomic_load(&wrong_status) == 0 && atomic_load(&calls_other) == 0, "callbacks get their status");
    cl_ulong tk[4];
    check(timestamps(k, tk), "a held kernel's timestamps are in order once complete");
    /* clSetUserEventStatus's errors. */
    expect(clSetUserEventStatus(user, CL_COMPLETE), CL_INVALID_OPERATION, "clSetUserEventStatus(a second time)");
    cl_event user2 = clCreateUserEvent(ctx, &err);
    MUST(err);
    expect(clSetUserEventStatus(user2, CL_RUNNING), CL_INVALID_VALUE, "clSetUserEventStatus(CL_RUNNING)");
    expect(clSetUserEventStatus(k, CL_COMPLETE), CL_INVALID_EVENT, "clSetUserEventStatus(not a user event)");
    clCreateUserEvent(NULL, &err);
    expect(err, CL_INVALID_CONTEXT, "clCreateUserEvent(NULL context)");
    MUST(clSetUserEventStatus(user2, CL_COMPLETE));
    /* (Not checked: whether a callback registered on an event that is already complete is called; 1.2
       does not say.) */
    MUST(clReleaseEvent(user2));
    MUST(clReleaseEvent(user));
    MUST(clReleaseEvent(w));
    MUST(clReleaseEvent(k));
    MUST(clReleaseEvent(r));
    MUST(clReleaseMemObject(a));
    MUST(clReleaseMemObject(b));
  }

  /* ---- A user event set to an error (5.9) ---- */
  /* In a context of its own: after a command is terminated, the behaviour of its context is
     implementation-defined. clSetUserEventStatus: "If the execution status is a negative integer value
     ... all enqueued commands that wait on this user event will be terminated"; clWaitForEvents returns
     CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST "if the execution status of any of the events in
     event_list is a negative integer value". */
  {
    cl_context ctx2 = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    MUST(err);
    cl_command_queue q2 = clCreateCommandQueue(ctx2, device, 0, &err);
    MUST(err);
    cl_mem buf = clCreateBuffer(ctx2, CL_MEM_READ_WRITE, sizeof in, NULL, &err);
    MUST(err);
    cl_event user = clCreateUserEvent(ctx2, &err);
    MUST(err);
    cl_event w;
    MUST(clEnqueueWriteBuffer(q2, buf, CL_FALSE, 0, sizeof in, in, 1, &user, &w));
    MUST(clFlush(q2));
    expect(clSetUserEventStatus(user, -1), CL_SUCCESS, "clSetUserEventStatus(-1)");
    printf("user event status: %d\n", (int)status_of(user));
    expect(clWaitForEvents(1, &w), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
           "clWaitForEvents(a command behind a failed user event)");
    check(status_of(w) < 0, "the dependent command's status is negative");
    MUST(clReleaseEvent(w));
    MUST(clReleaseEvent(user));
    MUST(clReleaseMemObject(buf));
    MUST(clReleaseCommandQueue(q2));
    MUST(clReleaseContext(ctx2));
  }

  expect(clFlush(qo), CL_SUCCESS, "clFlush");
  expect(clFinish(qo), CL_SUCCESS, "clFinish");
  MUST(clReleaseCommandQueue(qp));
  MUST(clReleaseCommandQueue(qn));
  MUST(clReleaseCommandQueue(qo));
  MUST(clReleaseKernel(k_add));
  MUST(clReleaseKernel(k_mul2));
  MUST(clReleaseProgram(program));
  MUST(clReleaseContext(ctx));
  return finish();
}
