// graphs: CUDA graphs. Stream capture of copies, memsets, kernels and a host function on two streams
// forked and joined with events, replayed 100 times; an explicit graph of kernel, memcpy (3D and 1D),
// memset, host, event record/wait, empty and child-graph nodes with dependencies; node queries,
// cudaGraphClone, cudaGraphDebugDotPrint; cudaGraphExecKernelNodeSetParams and cudaGraphExecUpdate;
// capture errors (a synchronous copy during a global capture, an unjoined fork, ending a capture that
// never began, the legacy stream). Every result is checked against a host reference; integers only.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t err_ = (call);                                             \
    if (err_ != cudaSuccess) {                                             \
      printf("CUDA error %s at %s\n", errName(err_), #call);               \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

// The capture errors by name (cudaGetErrorName for the rest).
const char* errName(cudaError_t e) {
  switch (e) {
  case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
  case cudaErrorStreamCaptureInvalidated: return "cudaErrorStreamCaptureInvalidated";
  case cudaErrorStreamCaptureUnmatched: return "cudaErrorStreamCaptureUnmatched";
  case cudaErrorStreamCaptureUnjoined: return "cudaErrorStreamCaptureUnjoined";
  case cudaErrorStreamCaptureIsolation: return "cudaErrorStreamCaptureIsolation";
  case cudaErrorIllegalState: return "cudaErrorIllegalState";
  case cudaErrorGraphExecUpdateFailure: return "cudaErrorGraphExecUpdateFailure";
  default: return cudaGetErrorName(e);
  }
}

int failures = 0;
void report(const char* what, bool ok) {
  printf("%s: %s\n", what, ok ? "ok" : "FAIL");
  if (!ok) ++failures;
}

__global__ void scale(int* out, const int* in, int factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = factor * in[i];
}
__global__ void square(int* out, const int* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i];
}
__global__ void accumulate(int* acc, const int* b, const int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) acc[i] += b[i] + c[i];
}
__global__ void axpy(int* y, const int* x, int alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += alpha * x[i];
}
__global__ void addConst(int* y, int c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += c;
}
__global__ void fill(int* y, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = v;
}

struct HostSum {
  const int* data;
  int n;
  long long sum;
  int calls;
};
void CUDART_CB sumHost(void* p) {
  HostSum* h = static_cast<HostSum*>(p);
  for (int i = 0; i < h->n; ++i) h->sum += h->data[i];
  ++h->calls;
}

constexpr int N = 1000, BLOCK = 128, GRID = (N + BLOCK - 1) / BLOCK;

void captured_graph() {
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  int *h_in, *h_out, *d_a, *d_b, *d_c, *d_acc;
  CHECK(cudaMallocHost(&h_in, N * sizeof(int)));
  CHECK(cudaMallocHost(&h_out, N * sizeof(int)));
  CHECK(cudaMalloc(&d_a, N * sizeof(int)));
  CHECK(cudaMalloc(&d_b, N * sizeof(int)));
  CHECK(cudaMalloc(&d_c, N * sizeof(int)));
  CHECK(cudaMalloc(&d_acc, N * sizeof(int)));
  for (int i = 0; i < N; ++i) {
    h_in[i] = i % 97 - 40;
    h_out[i] = -1;
  }
  CHECK(cudaMemset(d_acc, 0, N * sizeof(int)));
  HostSum host = {h_out, N, 0, 0};

  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus status;
  CHECK(cudaStreamIsCapturing(s2, &status));
  printf("before the fork: s2 capture status %d\n", (int)status);
  CHECK(cudaMemcpyAsync(d_a, h_in, N * sizeof(int), cudaMemcpyHostToDevice, s1));
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  CHECK(cudaStreamIsCapturing(s2, &status));
  printf("after the fork: s2 capture status %d\n", (int)status);
  CHECK(cudaMemsetAsync(d_b, 0xff, N * sizeof(int), s2));
  scale<<<GRID, BLOCK, 0, s2>>>(d_b, d_a, 3, N);
  CHECK(cudaGetLastError());
  square<<<GRID, BLOCK, 0, s1>>>(d_c, d_a, N);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(join, s2));
  CHECK(cudaStreamWaitEvent(s1, join, 0));
  accumulate<<<GRID, BLOCK, 0, s1>>>(d_acc, d_b, d_c, N);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(h_out, d_acc, N * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CHECK(cudaLaunchHostFunc(s1, sumHost, &host));
  unsigned long long id1 = 0, id2 = 0;
  cudaGraph_t capturing = nullptr;
  const cudaGraphNode_t* deps = nullptr;
  size_t numDeps = 0;
  CHECK(cudaStreamGetCaptureInfo(s1, &status, &id1, &capturing, &deps, nullptr, &numDeps));
  CHECK(cudaStreamGetCaptureInfo(s2, &status, &id2));
  printf("capture info: status %d, %zu dependency, same sequence on both streams: %s\n", (int)status, numDeps,
         id1 == id2 && id1 != 0 ? "yes" : "no");
  cudaGraph_t graph;
  CHECK(cudaStreamEndCapture(s1, &graph));
  CHECK(cudaStreamIsCapturing(s1, &status));
  int s1Status = status;
  CHECK(cudaStreamIsCapturing(s2, &status));
  printf("after the capture: capture status s1 %d s2 %d\n", s1Status, (int)status);
  CHECK(cudaMemcpy(h_out, d_acc, N * sizeof(int), cudaMemcpyDeviceToHost));
  bool untouched = host.calls == 0;
  for (int i = 0; i < N; ++i) untouched = untouched && h_out[i] == 0;
  report("nothing ran during the capture", untouched);

  size_t nodes = 0, roots = 0, edges = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  CHECK(cudaGraphGetRootNodes(graph, nullptr, &roots));
  CHECK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges));
  printf("captured graph: %zu nodes, %zu root, %zu edges\n", nodes, roots, edges);
  cudaGraphNode_t all[16];
  size_t count = 16;
  CHECK(cudaGraphGetNodes(graph, all, &count));
  int kinds[16] = {0};
  for (size_t i = 0; i < count; ++i) {
    cudaGraphNodeType type;
    CHECK(cudaGraphNodeGetType(all[i], &type));
    ++kinds[type];
  }
  printf("node types: %d kernel, %d memcpy, %d memset, %d host\n", kinds[cudaGraphNodeTypeKernel],
         kinds[cudaGraphNodeTypeMemcpy], kinds[cudaGraphNodeTypeMemset], kinds[cudaGraphNodeTypeHost]);

  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  const int launches = 100;
  for (int k = 0; k < launches; ++k) CHECK(cudaGraphLaunch(exec, s1));
  CHECK(cudaStreamSynchronize(s1));
  long long perLaunch = 0;
  bool ok = true;
  for (int i = 0; i < N; ++i) {
    long long a = h_in[i];
    long long want = launches * (3 * a + a * a);
    ok = ok && h_out[i] == want;
    perLaunch += 3 * a + a * a;
  }
  report("captured graph launched 100 times: results", ok);
  report("captured graph launched 100 times: host function", host.calls == launches &&
                                                               host.sum == perLaunch * launches * (launches + 1) / 2);
  printf("host function: %d calls, sum %lld\n", host.calls, host.sum);

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaEventDestroy(fork));
  CHECK(cudaEventDestroy(join));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaFreeHost(h_in));
  CHECK(cudaFreeHost(h_out));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaFree(d_c));
  CHECK(cudaFree(d_acc));
}

struct Seen {
  const int* data;
  int value;
  int calls;
};
void CUDART_CB look(void* p) {
  Seen* s = static_cast<Seen*>(p);
  s->value = s->data[5];
  ++s->calls;
}

void explicit_graph() {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaEvent_t done;
  CHECK(cudaEventCreate(&done));
  int *h_y, *h_back, *d_x, *d_y;
  CHECK(cudaMallocHost(&h_y, N * sizeof(int)));
  CHECK(cudaMallocHost(&h_back, N * sizeof(int)));
  CHECK(cudaMalloc(&d_x, N * sizeof(int)));
  CHECK(cudaMalloc(&d_y, N * sizeof(int)));
  for (int i = 0; i < N; ++i) h_y[i] = 2 * i;
  Seen seen = {h_back, 0, 0};

  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  // d_x = 1 (32-bit memset) and d_y = h_y (a 3D copy of one row) at the roots.
  cudaMemsetParams ms = {};
  ms.dst = d_x;
  ms.value = 1;
  ms.elementSize = 4;
  ms.width = N;
  ms.height = 1;
  cudaGraphNode_t nSet, nCopy, nAxpy, nEmpty, nRecord, nChild, nBack, nWait, nHost;
  CHECK(cudaGraphAddMemsetNode(&nSet, g, nullptr, 0, &ms));
  cudaMemcpy3DParms cp = {};
  cp.srcPtr = make_cudaPitchedPtr(h_y, N * sizeof(int), N * sizeof(int), 1);
  cp.dstPtr = make_cudaPitchedPtr(d_y, N * sizeof(int), N * sizeof(int), 1);
  cp.extent = make_cudaExtent(N * sizeof(int), 1, 1);
  cp.kind = cudaMemcpyHostToDevice;
  CHECK(cudaGraphAddMemcpyNode(&nCopy, g, nullptr, 0, &cp));
  // y += alpha * x: the arguments are copied when the node is made.
  int alpha = 2, n = N;
  void* args[] = {&d_y, &d_x, &alpha, &n};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)axpy;
  kp.gridDim = dim3(GRID);
  kp.blockDim = dim3(BLOCK);
  kp.kernelParams = args;
  cudaGraphNode_t both[] = {nSet, nCopy};
  CHECK(cudaGraphAddKernelNode(&nAxpy, g, both, 2, &kp));
  alpha = 99;
  CHECK(cudaGraphAddEmptyNode(&nEmpty, g, &nAxpy, 1));
  CHECK(cudaGraphAddEventRecordNode(&nRecord, g, &nEmpty, 1, done));
  // A child graph: y += 10.
  cudaGraph_t child;
  CHECK(cudaGraphCreate(&child, 0));
  int ten = 10;
  void* childArgs[] = {&d_y, &ten, &n};
  cudaKernelNodeParams ckp = {};
  ckp.func = (void*)addConst;
  ckp.gridDim = dim3(GRID);
  ckp.blockDim = dim3(BLOCK);
  ckp.kernelParams = childArgs;
  cudaGraphNode_t childKernel;
  CHECK(cudaGraphAddKernelNode(&childKernel, child, nullptr, 0, &ckp));
  CHECK(cudaGraphAddChildGraphNode(&nChild, g, &nEmpty, 1, child));
  CHECK(cudaGraphAddMemcpyNode1D(&nBack, g, &nChild, 1, h_back, d_y, N * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaGraphAddEventWaitNode(&nWait, g, &nRecord, 1, done));
  cudaHostNodeParams hp = {look, &seen};
  CHECK(cudaGraphAddHostNode(&nHost, g, &nBack, 1, &hp));
  CHECK(cudaGraphAddDependencies(g, &nWait, &nHost, nullptr, 1));

  cudaGraphNode_t order[] = {nSet, nCopy, nAxpy, nEmpty, nRecord, nChild, nBack, nWait, nHost};
  printf("node types:");
  for (cudaGraphNode_t node : order) {
    cudaGraphNodeType type;
    CHECK(cudaGraphNodeGetType(node, &type));
    printf(" %d", (int)type);
  }
  printf("\n");
  size_t nodes = 0, roots = 0, edges = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &nodes));
  CHECK(cudaGraphGetRootNodes(g, nullptr, &roots));
  CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges));
  printf("explicit graph: %zu nodes, %zu roots, %zu edges\n", nodes, roots, edges);
  // An edge added and removed again.
  CHECK(cudaGraphAddDependencies(g, &nSet, &nHost, nullptr, 1));
  CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges));
  printf("with one more edge: %zu\n", edges);
  CHECK(cudaGraphRemoveDependencies(g, &nSet, &nHost, nullptr, 1));
  CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges));
  printf("removed again: %zu\n", edges);

  cudaKernelNodeParams got = {};
  CHECK(cudaGraphKernelNodeGetParams(nAxpy, &got));
  printf("kernel node: grid %u block %u alpha %d (the local variable is %d now)\n", got.gridDim.x, got.blockDim.x,
         *static_cast<int*>(got.kernelParams[2]), alpha);
  cudaMemsetParams gotSet = {};
  CHECK(cudaGraphMemsetNodeGetParams(nSet, &gotSet));
  cudaHostNodeParams gotHost = {};
  CHECK(cudaGraphHostNodeGetParams(nHost, &gotHost));
  report("memset and host node parameters read back",
         gotSet.value == 1 && gotSet.elementSize == 4 && gotSet.width == N && gotHost.fn == look &&
             gotHost.userData == &seen);

  cudaGraph_t clone;
  CHECK(cudaGraphClone(&clone, g));
  size_t cloneNodes = 0;
  CHECK(cudaGraphGetNodes(clone, nullptr, &cloneNodes));
  printf("clone: %zu nodes\n", cloneNodes);
  const char* dot = "/tmp/ptxray_graphs_test.dot";
  CHECK(cudaGraphDebugDotPrint(g, dot, cudaGraphDebugDotFlagsVerbose));
  FILE* f = fopen(dot, "r");
  bool dotOk = f && fgetc(f) != EOF;
  if (f) fclose(f);
  remove(dot);
  report("cudaGraphDebugDotPrint wrote the graph", dotOk);

  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiateWithFlags(&exec, g, 0));
  CHECK(cudaGraphUpload(exec, s));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  bool ok = true;
  for (int i = 0; i < N; ++i) ok = ok && h_back[i] == 2 * i + 2 + 10;
  report("explicit graph: results", ok);
  printf("host node saw y[5] = %d (%d call)\n", seen.value, seen.calls);
  report("event recorded by the graph", cudaEventQuery(done) == cudaSuccess);

  // A launch with another alpha, set in the executable graph only.
  alpha = 5;
  kp.kernelParams = args;
  CHECK(cudaGraphExecKernelNodeSetParams(exec, nAxpy, &kp));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  ok = true;
  for (int i = 0; i < N; ++i) ok = ok && h_back[i] == 2 * i + 5 + 10;
  report("cudaGraphExecKernelNodeSetParams: results", ok);
  CHECK(cudaGraphKernelNodeGetParams(nAxpy, &got));
  printf("the graph's own node keeps alpha %d\n", *static_cast<int*>(got.kernelParams[2]));
  // The clone is a graph of its own: launched once, it gives the first results again.
  cudaGraphExec_t cloneExec;
  CHECK(cudaGraphInstantiate(&cloneExec, clone, 0));
  CHECK(cudaGraphLaunch(cloneExec, s));
  CHECK(cudaStreamSynchronize(s));
  ok = true;
  for (int i = 0; i < N; ++i) ok = ok && h_back[i] == 2 * i + 2 + 10;
  report("clone: results", ok);
  printf("host node calls: %d\n", seen.calls);

  CHECK(cudaGraphExecDestroy(cloneExec));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(clone));
  CHECK(cudaGraphDestroy(child));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaEventDestroy(done));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFreeHost(h_y));
  CHECK(cudaFreeHost(h_back));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_y));
}

// A graph of one fill kernel.
cudaGraph_t fillGraph(int* d, int value, int kernels) {
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  int n = N;
  void* args[] = {&d, &value, &n};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)fill;
  kp.gridDim = dim3(GRID);
  kp.blockDim = dim3(BLOCK);
  kp.kernelParams = args;
  cudaGraphNode_t node = nullptr, previous = nullptr;
  for (int k = 0; k < kernels; ++k) {
    CHECK(cudaGraphAddKernelNode(&node, g, previous ? &previous : nullptr, previous ? 1 : 0, &kp));
    previous = node;
  }
  return g;
}

int firstValue(const int* d) {
  int v = 0;
  CHECK(cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

void exec_update() {
  int* d;
  CHECK(cudaMalloc(&d, N * sizeof(int)));
  cudaGraph_t g7 = fillGraph(d, 7, 1), g42 = fillGraph(d, 42, 1), two = fillGraph(d, 3, 2);
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, g7, 0));
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  printf("update: before %d", firstValue(d));
  cudaGraphExecUpdateResultInfo info = {};
  CHECK(cudaGraphExecUpdate(exec, g42, &info));
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  printf(", after %d (result %d)\n", firstValue(d), (int)info.result);
  cudaError_t e = cudaGraphExecUpdate(exec, two, &info);
  printf("update to another topology: %s, result %d\n", errName(e), (int)info.result);
  cudaGetLastError();
  CHECK(cudaGraphLaunch(exec, 0));
  CHECK(cudaDeviceSynchronize());
  printf("the executable graph still fills %d\n", firstValue(d));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(g7));
  CHECK(cudaGraphDestroy(g42));
  CHECK(cudaGraphDestroy(two));
  CHECK(cudaFree(d));
}

void capture_errors() {
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t fork;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  int *d, h[4] = {0, 0, 0, 0};
  CHECK(cudaMalloc(&d, N * sizeof(int)));
  CHECK(cudaMemset(d, 0, N * sizeof(int)));

  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  printf("thread capture mode was %d\n", (int)mode);
  CHECK(cudaThreadExchangeStreamCaptureMode(&mode));

  // A synchronous copy during a global capture of a non-blocking stream: the legacy stream the copy
  // runs on does not synchronize with that stream, so the copy is allowed and the capture goes on.
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  fill<<<GRID, BLOCK, 0, s1>>>(d, 1, N);
  cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("cudaMemcpy during a global capture: %s\n", errName(e));
  cudaStreamCaptureStatus status;
  CHECK(cudaStreamIsCapturing(s1, &status));
  printf("capture status: %d\n", (int)status);
  cudaGraph_t graph = nullptr;
  e = cudaStreamEndCapture(s1, &graph);
  printf("ending the invalidated capture: %s, graph %s\n", errName(e), graph ? "made" : "null");
  CHECK(cudaStreamIsCapturing(s1, &status));
  printf("capture status after: %d\n", (int)status);
  if (graph)
    CHECK(cudaGraphDestroy(graph));
  cudaGetLastError();

  // Of a blocking stream: the copy would synchronize with the capturing stream: refused, and the
  // capture is invalidated.
  cudaStream_t blocking;
  CHECK(cudaStreamCreate(&blocking));
  CHECK(cudaStreamBeginCapture(blocking, cudaStreamCaptureModeGlobal));
  fill<<<GRID, BLOCK, 0, blocking>>>(d, 1, N);
  e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("cudaMemcpy during a global capture of a blocking stream: %s\n", errName(e));
  CHECK(cudaStreamIsCapturing(blocking, &status));
  printf("capture status: %d\n", (int)status);
  graph = nullptr;
  e = cudaStreamEndCapture(blocking, &graph);
  printf("ending the invalidated capture: %s, graph %s\n", errName(e), graph ? "made" : "null");
  cudaGetLastError();
  CHECK(cudaStreamDestroy(blocking));

  // A relaxed capture allows the copy.
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
  fill<<<GRID, BLOCK, 0, s1>>>(d, 2, N);
  e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("cudaMemcpy during a relaxed capture: %s\n", errName(e));
  CHECK(cudaStreamEndCapture(s1, &graph));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  printf("relaxed capture: %zu node\n", nodes);
  CHECK(cudaGraphDestroy(graph));

  // A fork that never joins the origin stream.
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  fill<<<GRID, BLOCK, 0, s2>>>(d, 3, N);
  graph = nullptr;
  e = cudaStreamEndCapture(s1, &graph);
  printf("ending the capture with an unjoined fork: %s, graph %s\n", errName(e), graph ? "made" : "null");
  cudaGetLastError();
  e = cudaStreamEndCapture(s1, &graph);
  printf("ending a capture that never began: %s\n", errName(e));
  cudaGetLastError();
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK(cudaStreamEndCapture(s1, &graph));
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  printf("empty capture: %zu nodes\n", nodes);
  CHECK(cudaGraphDestroy(graph));
  e = cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal);
  printf("capturing the legacy stream: %s\n", errName(e));
  cudaGetLastError();

  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  printf("device memory holds %d (no captured launch ran)\n", h[0]);
  CHECK(cudaEventDestroy(fork));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaFree(d));
}

int main() {
  captured_graph();
  explicit_graph();
  exec_update();
  capture_errors();
  CHECK(cudaDeviceSynchronize());
  printf("graphs: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
