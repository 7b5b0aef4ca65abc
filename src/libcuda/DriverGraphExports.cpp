// libcuda.so.1's CUDA graph and stream capture entry points: the driver API over the same
// graphs::GraphState as libcudart.so.13's, so that NVIDIA's static runtime (which reaches every one of
// them through cuGetProcAddress: graphDriverProcs() is the table it searches after the main one) and
// driver-API programs capture, build and launch graphs on the virtual GPU. A CUgraph is a
// graphs::Graph, a CUgraphNode a graphs::Node, a CUgraphExec a graphs::Exec; a kernel node's CUfunction
// or CUkernel is the handle cuLaunchKernel takes (Runtime::launch resolves both).
#include "libcuda/DriverExportTables.h"
#include "runtime/Graphs.h"
#include "runtime/Runtime.h"

#include <fmt/format.h>

#include <cstring>
#include <mutex>
#include <span>

using namespace ptxray::runtime;
using namespace ptxray::runtime::graphs;
using cuda::Error;

namespace {

using CUresult = int;

/// The driver's code for a runtime error (CudaDriverExports.cpp's mapping; the capture and graph
/// errors have the same numbers in both APIs).
template <typename F> CUresult driver(const char *name, F &&call) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  CUresult r = driverResult(Runtime::guarded(name, [&] { return call(rt.graphs()); }));
  if (rt.config().logApi)
    rt.log(fmt::format("{} = {}", name, r));
  return r;
}

template <typename F>
CUresult addNode(const char *name, Node **out, Graph *graph, Node *const *deps, size_t count, F &&fill) {
  return driver(name, [&](GraphState &g) {
    auto n = std::make_unique<Node>();
    if (Error e = fill(g, *n))
      return e;
    return g.addNode(out, graph, deps, count, std::move(n));
  });
}

Node *typed(GraphState &g, Node *handle, NodeType type) {
  Node *n = g.node(handle);
  return n && n->type == type ? n : nullptr;
}

/// CUDA_KERNEL_NODE_PARAMS of either ABI (v1: the first 56 bytes) as one struct.
DriverKernelNodeParams readKernel(const void *p, bool v2) {
  DriverKernelNodeParams k{};
  std::memcpy(&k, p, v2 ? sizeof k : kDriverKernelNodeParamsV1Size);
  return k;
}

Error kernelInto(GraphState &g, Node &n, const DriverKernelNodeParams &k) {
  const void *function = k.func ? k.func : k.kern;
  if (Error e = g.kernelNode(n, function, {k.gridDimX, k.gridDimY, k.gridDimZ}, {k.blockDimX, k.blockDimY, k.blockDimZ},
                             k.sharedMemBytes, k.kernelParams, k.extra))
    return e;
  n.driverKernel = k.kern;
  return cuda::kSuccess;
}

Error setKernel(GraphState &g, Node *n, const void *p, bool v2) {
  if (!n || !p)
    return cuda::kErrorInvalidValue;
  Node fresh;
  if (Error e = kernelInto(g, fresh, readKernel(p, v2)))
    return e;
  n->function = fresh.function;
  n->driverKernel = fresh.driverKernel;
  n->grid = fresh.grid;
  n->block = fresh.block;
  n->sharedBytes = fresh.sharedBytes;
  n->arguments = std::move(fresh.arguments);
  n->pointers = std::move(fresh.pointers);
  return cuda::kSuccess;
}

Error getKernel(GraphState &g, Node *node, void *p, bool v2) {
  Node *n = typed(g, node, NodeType::Kernel);
  if (!n || !p)
    return cuda::kErrorInvalidValue;
  DriverKernelNodeParams k{};
  k.func = const_cast<void *>(n->function);
  k.gridDimX = n->grid.x, k.gridDimY = n->grid.y, k.gridDimZ = n->grid.z;
  k.blockDimX = n->block.x, k.blockDimY = n->block.y, k.blockDimZ = n->block.z;
  k.sharedMemBytes = n->sharedBytes;
  k.kernelParams = n->pointers.data();
  k.kern = n->driverKernel;
  std::memcpy(p, &k, v2 ? sizeof k : kDriverKernelNodeParamsV1Size);
  return cuda::kSuccess;
}

Error eventNode(Node &n, void *event, NodeType type) {
  if (Runtime::instance().eventQuery(event) == cuda::kErrorInvalidResourceHandle)
    return cuda::kErrorInvalidResourceHandle;
  n.type = type;
  n.event = event;
  return cuda::kSuccess;
}

CUresult launchGraph(const char *name, void *exec, void *stream) {
  Runtime &rt = Runtime::instance();
  std::unique_lock lock(rt.mutex());
  CUresult r =
      driverResult(Runtime::guarded(name, [&] { return rt.graphs().launch(static_cast<Exec *>(exec), stream, lock); }));
  if (rt.config().logApi)
    rt.log(fmt::format("{} = {}", name, r));
  return r;
}

} // namespace

extern "C" {

// ---- Stream capture ----------------------------------------------------------------------------------

CUresult cuStreamBeginCapture_v2(void *stream, int mode) {
  return driver("cuStreamBeginCapture", [&](GraphState &g) { return g.beginCapture(stream, mode); });
}
CUresult cuStreamBeginCapture_v2_ptsz(void *stream, int mode) {
  return cuStreamBeginCapture_v2(stream, mode);
}
/// CUDA 10.0's form: a global capture.
CUresult cuStreamBeginCapture(void *stream) {
  return cuStreamBeginCapture_v2(stream, ModeGlobal);
}
CUresult cuStreamBeginCapture_ptsz(void *stream) {
  return cuStreamBeginCapture_v2(stream, ModeGlobal);
}

CUresult cuStreamEndCapture(void *stream, Graph **graph) {
  return driver("cuStreamEndCapture", [&](GraphState &g) { return g.endCapture(stream, graph); });
}
CUresult cuStreamEndCapture_ptsz(void *stream, Graph **graph) {
  return cuStreamEndCapture(stream, graph);
}

CUresult cuStreamIsCapturing(void *stream, int *status) {
  return driver("cuStreamIsCapturing", [&](GraphState &g) {
    return g.captureInfo(stream, status, nullptr, nullptr, nullptr, nullptr, nullptr);
  });
}
CUresult cuStreamIsCapturing_ptsz(void *stream, int *status) {
  return cuStreamIsCapturing(stream, status);
}

CUresult cuStreamGetCaptureInfo(void *stream, int *status, unsigned long long *id) {
  return driver("cuStreamGetCaptureInfo",
                [&](GraphState &g) { return g.captureInfo(stream, status, id, nullptr, nullptr, nullptr, nullptr); });
}
CUresult cuStreamGetCaptureInfo_ptsz(void *stream, int *status, unsigned long long *id) {
  return cuStreamGetCaptureInfo(stream, status, id);
}
CUresult cuStreamGetCaptureInfo_v2(void *stream, int *status, unsigned long long *id, Graph **graph, Node *const **deps,
                                   size_t *count) {
  return driver("cuStreamGetCaptureInfo_v2",
                [&](GraphState &g) { return g.captureInfo(stream, status, id, graph, deps, nullptr, count); });
}
CUresult cuStreamGetCaptureInfo_v2_ptsz(void *stream, int *status, unsigned long long *id, Graph **graph,
                                        Node *const **deps, size_t *count) {
  return cuStreamGetCaptureInfo_v2(stream, status, id, graph, deps, count);
}
CUresult cuStreamGetCaptureInfo_v3(void *stream, int *status, unsigned long long *id, Graph **graph, Node *const **deps,
                                   const EdgeData **edgeData, size_t *count) {
  return driver("cuStreamGetCaptureInfo_v3",
                [&](GraphState &g) { return g.captureInfo(stream, status, id, graph, deps, edgeData, count); });
}
CUresult cuStreamGetCaptureInfo_v3_ptsz(void *stream, int *status, unsigned long long *id, Graph **graph,
                                        Node *const **deps, const EdgeData **edgeData, size_t *count) {
  return cuStreamGetCaptureInfo_v3(stream, status, id, graph, deps, edgeData, count);
}

CUresult cuThreadExchangeStreamCaptureMode(int *mode) {
  return driver("cuThreadExchangeStreamCaptureMode", [&](GraphState &) { return GraphState::exchangeMode(mode); });
}

// ---- Graphs ------------------------------------------------------------------------------------------

CUresult cuGraphCreate(Graph **graph, unsigned flags) {
  return driver("cuGraphCreate",
                [&](GraphState &g) { return flags ? cuda::kErrorInvalidValue : g.createGraph(graph); });
}

CUresult cuGraphDestroy(Graph *graph) {
  return driver("cuGraphDestroy", [&](GraphState &g) { return g.destroyGraph(graph); });
}

CUresult cuGraphClone(Graph **clone, Graph *original) {
  return driver("cuGraphClone", [&](GraphState &g) { return g.cloneGraph(clone, original); });
}

CUresult cuGraphNodeFindInClone(Node **node, Node *original, Graph *clone) {
  return driver("cuGraphNodeFindInClone", [&](GraphState &g) { return g.findInClone(node, original, clone); });
}

CUresult cuGraphDestroyNode(Node *node) {
  return driver("cuGraphDestroyNode", [&](GraphState &g) { return g.destroyNode(node); });
}

CUresult cuGraphAddKernelNode(Node **node, Graph *graph, Node *const *deps, size_t count, const void *p) {
  return addNode("cuGraphAddKernelNode", node, graph, deps, count, [&](GraphState &g, Node &n) {
    return p ? kernelInto(g, n, readKernel(p, false)) : cuda::kErrorInvalidValue;
  });
}
CUresult cuGraphAddKernelNode_v2(Node **node, Graph *graph, Node *const *deps, size_t count, const void *p) {
  return addNode("cuGraphAddKernelNode_v2", node, graph, deps, count, [&](GraphState &g, Node &n) {
    return p ? kernelInto(g, n, readKernel(p, true)) : cuda::kErrorInvalidValue;
  });
}

CUresult cuGraphKernelNodeGetParams(Node *node, void *p) {
  return driver("cuGraphKernelNodeGetParams", [&](GraphState &g) { return getKernel(g, node, p, false); });
}
CUresult cuGraphKernelNodeGetParams_v2(Node *node, void *p) {
  return driver("cuGraphKernelNodeGetParams_v2", [&](GraphState &g) { return getKernel(g, node, p, true); });
}
CUresult cuGraphKernelNodeSetParams(Node *node, const void *p) {
  return driver("cuGraphKernelNodeSetParams",
                [&](GraphState &g) { return setKernel(g, typed(g, node, NodeType::Kernel), p, false); });
}
CUresult cuGraphKernelNodeSetParams_v2(Node *node, const void *p) {
  return driver("cuGraphKernelNodeSetParams_v2",
                [&](GraphState &g) { return setKernel(g, typed(g, node, NodeType::Kernel), p, true); });
}

CUresult cuGraphAddMemcpyNode(Node **node, Graph *graph, Node *const *deps, size_t count, const DriverMemcpy3D *p,
                              void * /*context*/) {
  return addNode("cuGraphAddMemcpyNode", node, graph, deps, count,
                 [&](GraphState &g, Node &n) { return p ? g.driverCopyNode(n, *p) : cuda::kErrorInvalidValue; });
}

CUresult cuGraphMemcpyNodeGetParams(Node *node, DriverMemcpy3D *p) {
  return driver("cuGraphMemcpyNodeGetParams", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::Memcpy);
    if (!n || !p || !n->driverCopy)
      return cuda::kErrorInvalidValue;
    *p = *n->driverCopy;
    return cuda::kSuccess;
  });
}

CUresult cuGraphMemcpyNodeSetParams(Node *node, const DriverMemcpy3D *p) {
  return driver("cuGraphMemcpyNodeSetParams", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::Memcpy);
    return n && p ? g.driverCopyNode(*n, *p) : cuda::kErrorInvalidValue;
  });
}

CUresult cuGraphAddMemsetNode(Node **node, Graph *graph, Node *const *deps, size_t count, const MemsetParams *p,
                              void * /*context*/) {
  return addNode("cuGraphAddMemsetNode", node, graph, deps, count,
                 [&](GraphState &g, Node &n) { return p ? g.memsetNode(n, *p) : cuda::kErrorInvalidValue; });
}

CUresult cuGraphMemsetNodeGetParams(Node *node, MemsetParams *p) {
  return driver("cuGraphMemsetNodeGetParams", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::Memset);
    if (!n || !p)
      return cuda::kErrorInvalidValue;
    *p = n->memset;
    return cuda::kSuccess;
  });
}

CUresult cuGraphMemsetNodeSetParams(Node *node, const MemsetParams *p) {
  return driver("cuGraphMemsetNodeSetParams", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::Memset);
    return n && p ? g.memsetNode(*n, *p) : cuda::kErrorInvalidValue;
  });
}

CUresult cuGraphAddHostNode(Node **node, Graph *graph, Node *const *deps, size_t count, const HostNodeParams *p) {
  return addNode("cuGraphAddHostNode", node, graph, deps, count, [&](GraphState &, Node &n) {
    if (!p || !p->fn)
      return cuda::kErrorInvalidValue;
    n.type = NodeType::Host;
    n.host = *p;
    return cuda::kSuccess;
  });
}

CUresult cuGraphHostNodeGetParams(Node *node, HostNodeParams *p) {
  return driver("cuGraphHostNodeGetParams", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::Host);
    if (!n || !p)
      return cuda::kErrorInvalidValue;
    *p = n->host;
    return cuda::kSuccess;
  });
}

CUresult cuGraphHostNodeSetParams(Node *node, const HostNodeParams *p) {
  return driver("cuGraphHostNodeSetParams", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::Host);
    if (!n || !p || !p->fn)
      return cuda::kErrorInvalidValue;
    n->host = *p;
    return cuda::kSuccess;
  });
}

CUresult cuGraphAddChildGraphNode(Node **node, Graph *graph, Node *const *deps, size_t count, Graph *child) {
  return addNode("cuGraphAddChildGraphNode", node, graph, deps, count,
                 [&](GraphState &g, Node &n) { return g.childNode(n, child); });
}

CUresult cuGraphChildGraphNodeGetGraph(Node *node, Graph **graph) {
  return driver("cuGraphChildGraphNodeGetGraph", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::Graph);
    if (!n || !graph)
      return cuda::kErrorInvalidValue;
    *graph = n->child.get();
    return cuda::kSuccess;
  });
}

CUresult cuGraphAddEmptyNode(Node **node, Graph *graph, Node *const *deps, size_t count) {
  return addNode("cuGraphAddEmptyNode", node, graph, deps, count, [&](GraphState &, Node &n) {
    n.type = NodeType::Empty;
    return cuda::kSuccess;
  });
}

CUresult cuGraphAddEventRecordNode(Node **node, Graph *graph, Node *const *deps, size_t count, void *event) {
  return addNode("cuGraphAddEventRecordNode", node, graph, deps, count,
                 [&](GraphState &, Node &n) { return eventNode(n, event, NodeType::EventRecord); });
}

CUresult cuGraphAddEventWaitNode(Node **node, Graph *graph, Node *const *deps, size_t count, void *event) {
  return addNode("cuGraphAddEventWaitNode", node, graph, deps, count,
                 [&](GraphState &, Node &n) { return eventNode(n, event, NodeType::WaitEvent); });
}

CUresult cuGraphEventRecordNodeGetEvent(Node *node, void **event) {
  return driver("cuGraphEventRecordNodeGetEvent", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::EventRecord);
    if (!n || !event)
      return cuda::kErrorInvalidValue;
    *event = n->event;
    return cuda::kSuccess;
  });
}

CUresult cuGraphEventWaitNodeGetEvent(Node *node, void **event) {
  return driver("cuGraphEventWaitNodeGetEvent", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::WaitEvent);
    if (!n || !event)
      return cuda::kErrorInvalidValue;
    *event = n->event;
    return cuda::kSuccess;
  });
}

CUresult cuGraphEventRecordNodeSetEvent(Node *node, void *event) {
  return driver("cuGraphEventRecordNodeSetEvent", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::EventRecord);
    return n ? eventNode(*n, event, NodeType::EventRecord) : cuda::kErrorInvalidValue;
  });
}

CUresult cuGraphEventWaitNodeSetEvent(Node *node, void *event) {
  return driver("cuGraphEventWaitNodeSetEvent", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::WaitEvent);
    return n ? eventNode(*n, event, NodeType::WaitEvent) : cuda::kErrorInvalidValue;
  });
}

CUresult cuGraphNodeGetType(Node *node, int *type) {
  return driver("cuGraphNodeGetType", [&](GraphState &g) {
    Node *n = g.node(node);
    if (!n || !type)
      return cuda::kErrorInvalidValue;
    *type = static_cast<int>(n->type);
    return cuda::kSuccess;
  });
}

CUresult cuGraphGetNodes(Graph *graph, Node **nodes, size_t *count) {
  return driver("cuGraphGetNodes", [&](GraphState &g) { return g.nodes(graph, nodes, count, false); });
}

CUresult cuGraphGetRootNodes(Graph *graph, Node **nodes, size_t *count) {
  return driver("cuGraphGetRootNodes", [&](GraphState &g) { return g.nodes(graph, nodes, count, true); });
}

CUresult cuGraphGetEdges(Graph *graph, Node **from, Node **to, size_t *count) {
  return driver("cuGraphGetEdges", [&](GraphState &g) { return g.edges(graph, from, to, nullptr, count); });
}
CUresult cuGraphGetEdges_v2(Graph *graph, Node **from, Node **to, EdgeData *data, size_t *count) {
  return driver("cuGraphGetEdges_v2", [&](GraphState &g) { return g.edges(graph, from, to, data, count); });
}

CUresult cuGraphNodeGetDependencies(Node *node, Node **deps, size_t *count) {
  return driver("cuGraphNodeGetDependencies",
                [&](GraphState &g) { return g.neighbours(node, deps, nullptr, count, false); });
}
CUresult cuGraphNodeGetDependencies_v2(Node *node, Node **deps, EdgeData *data, size_t *count) {
  return driver("cuGraphNodeGetDependencies_v2",
                [&](GraphState &g) { return g.neighbours(node, deps, data, count, false); });
}
CUresult cuGraphNodeGetDependentNodes(Node *node, Node **deps, size_t *count) {
  return driver("cuGraphNodeGetDependentNodes",
                [&](GraphState &g) { return g.neighbours(node, deps, nullptr, count, true); });
}
CUresult cuGraphNodeGetDependentNodes_v2(Node *node, Node **deps, EdgeData *data, size_t *count) {
  return driver("cuGraphNodeGetDependentNodes_v2",
                [&](GraphState &g) { return g.neighbours(node, deps, data, count, true); });
}

CUresult cuGraphAddDependencies(Graph *graph, Node *const *from, Node *const *to, size_t count) {
  return driver("cuGraphAddDependencies",
                [&](GraphState &g) { return g.addDependencies(graph, from, to, count, false); });
}
CUresult cuGraphAddDependencies_v2(Graph *graph, Node *const *from, Node *const *to, const EdgeData *, size_t count) {
  return cuGraphAddDependencies(graph, from, to, count);
}
CUresult cuGraphRemoveDependencies(Graph *graph, Node *const *from, Node *const *to, size_t count) {
  return driver("cuGraphRemoveDependencies",
                [&](GraphState &g) { return g.addDependencies(graph, from, to, count, true); });
}
CUresult cuGraphRemoveDependencies_v2(Graph *graph, Node *const *from, Node *const *to, const EdgeData *,
                                      size_t count) {
  return cuGraphRemoveDependencies(graph, from, to, count);
}

CUresult cuGraphDebugDotPrint(Graph *graph, const char *path, unsigned flags) {
  return driver("cuGraphDebugDotPrint", [&](GraphState &g) { return g.dotPrint(graph, path, flags); });
}

// ---- Executable graphs -------------------------------------------------------------------------------

/// CUDA 10/11's cuGraphInstantiate: an error node and a log buffer besides.
CUresult cuGraphInstantiate_v2(Exec **exec, Graph *graph, Node **errorNode, char *log, size_t logBytes) {
  return driver("cuGraphInstantiate", [&](GraphState &g) {
    if (errorNode)
      *errorNode = nullptr;
    if (log && logBytes)
      log[0] = '\0';
    return g.instantiate(exec, graph);
  });
}

CUresult cuGraphInstantiateWithFlags(Exec **exec, Graph *graph, unsigned long long /*flags*/) {
  return driver("cuGraphInstantiateWithFlags", [&](GraphState &g) { return g.instantiate(exec, graph); });
}

CUresult cuGraphInstantiateWithParams(Exec **exec, Graph *graph, InstantiateParams *params) {
  return driver("cuGraphInstantiateWithParams", [&](GraphState &g) {
    if (!params)
      return cuda::kErrorInvalidValue;
    Error e = g.instantiate(exec, graph);
    params->errNode_out = nullptr;
    params->result_out = e ? 1 : 0; // CUDA_GRAPH_INSTANTIATE_ERROR, CUDA_GRAPH_INSTANTIATE_SUCCESS
    return e;
  });
}
CUresult cuGraphInstantiateWithParams_ptsz(Exec **exec, Graph *graph, InstantiateParams *params) {
  return cuGraphInstantiateWithParams(exec, graph, params);
}

CUresult cuGraphExecGetFlags(Exec *exec, unsigned long long *flags) {
  return driver("cuGraphExecGetFlags", [&](GraphState &g) {
    if (!g.exec(exec) || !flags)
      return cuda::kErrorInvalidValue;
    *flags = 0;
    return cuda::kSuccess;
  });
}

CUresult cuGraphExecDestroy(Exec *exec) {
  return driver("cuGraphExecDestroy", [&](GraphState &g) { return g.destroyExec(exec); });
}

CUresult cuGraphExecKernelNodeSetParams(Exec *exec, Node *node, const void *p) {
  return driver("cuGraphExecKernelNodeSetParams", [&](GraphState &g) {
    Node *n = g.execNode(exec, node);
    return setKernel(g, n && n->type == NodeType::Kernel ? n : nullptr, p, false);
  });
}
CUresult cuGraphExecKernelNodeSetParams_v2(Exec *exec, Node *node, const void *p) {
  return driver("cuGraphExecKernelNodeSetParams_v2", [&](GraphState &g) {
    Node *n = g.execNode(exec, node);
    return setKernel(g, n && n->type == NodeType::Kernel ? n : nullptr, p, true);
  });
}

CUresult cuGraphExecMemcpyNodeSetParams(Exec *exec, Node *node, const DriverMemcpy3D *p, void * /*context*/) {
  return driver("cuGraphExecMemcpyNodeSetParams", [&](GraphState &g) {
    Node *n = g.execNode(exec, node);
    return n && p && n->type == NodeType::Memcpy ? g.driverCopyNode(*n, *p) : cuda::kErrorInvalidValue;
  });
}

CUresult cuGraphExecMemsetNodeSetParams(Exec *exec, Node *node, const MemsetParams *p, void * /*context*/) {
  return driver("cuGraphExecMemsetNodeSetParams", [&](GraphState &g) {
    Node *n = g.execNode(exec, node);
    return n && p && n->type == NodeType::Memset ? g.memsetNode(*n, *p) : cuda::kErrorInvalidValue;
  });
}

CUresult cuGraphExecHostNodeSetParams(Exec *exec, Node *node, const HostNodeParams *p) {
  return driver("cuGraphExecHostNodeSetParams", [&](GraphState &g) {
    Node *n = g.execNode(exec, node);
    if (!n || !p || !p->fn || n->type != NodeType::Host)
      return cuda::kErrorInvalidValue;
    n->host = *p;
    return cuda::kSuccess;
  });
}

CUresult cuGraphExecEventRecordNodeSetEvent(Exec *exec, Node *node, void *event) {
  return driver("cuGraphExecEventRecordNodeSetEvent", [&](GraphState &g) {
    Node *n = g.execNode(exec, node);
    return n && n->type == NodeType::EventRecord ? eventNode(*n, event, NodeType::EventRecord)
                                                 : cuda::kErrorInvalidValue;
  });
}

CUresult cuGraphExecEventWaitNodeSetEvent(Exec *exec, Node *node, void *event) {
  return driver("cuGraphExecEventWaitNodeSetEvent", [&](GraphState &g) {
    Node *n = g.execNode(exec, node);
    return n && n->type == NodeType::WaitEvent ? eventNode(*n, event, NodeType::WaitEvent) : cuda::kErrorInvalidValue;
  });
}

/// CUDA 10.2's form: the error node and the result apart.
CUresult cuGraphExecUpdate(Exec *exec, Graph *graph, Node **errorNode, int *result) {
  return driver("cuGraphExecUpdate", [&](GraphState &g) {
    UpdateResultInfo info{};
    Error e = g.update(exec, graph, &info);
    if (errorNode)
      *errorNode = static_cast<Node *>(info.errorNode);
    if (result)
      *result = info.result;
    return e;
  });
}
CUresult cuGraphExecUpdate_v2(Exec *exec, Graph *graph, UpdateResultInfo *info) {
  return driver("cuGraphExecUpdate_v2", [&](GraphState &g) { return g.update(exec, graph, info); });
}

CUresult cuGraphUpload(Exec *exec, void *stream) {
  return driver("cuGraphUpload", [&](GraphState &g) { return g.upload(exec, stream); });
}
CUresult cuGraphUpload_ptsz(Exec *exec, void *stream) {
  return cuGraphUpload(exec, stream);
}

CUresult cuGraphLaunch(Exec *exec, void *stream) {
  return launchGraph("cuGraphLaunch", exec, stream);
}
CUresult cuGraphLaunch_ptsz(Exec *exec, void *stream) {
  return launchGraph("cuGraphLaunch", exec, stream);
}

} // extern "C"

// ---- cuGetProcAddress --------------------------------------------------------------------------------

namespace {

#define PTXRAY_PROC(name, version, function)                                                                           \
  DriverProc {                                                                                                         \
    name, version, false, reinterpret_cast<void *>(&function)                                                          \
  }
#define PTXRAY_PROC_PT(name, version, function)                                                                        \
  DriverProc {                                                                                                         \
    name, version, true, reinterpret_cast<void *>(&function)                                                           \
  }

/// Each ABI with the CUDA version that introduced it (the `_vNNNNN` of its PFN typedef in cudaTypedefs.h).
const DriverProc kGraphProcs[] = {
    PTXRAY_PROC("cuStreamBeginCapture", 10000, cuStreamBeginCapture),
    PTXRAY_PROC_PT("cuStreamBeginCapture", 10000, cuStreamBeginCapture_ptsz),
    PTXRAY_PROC("cuStreamBeginCapture", 10010, cuStreamBeginCapture_v2),
    PTXRAY_PROC_PT("cuStreamBeginCapture", 10010, cuStreamBeginCapture_v2_ptsz),
    PTXRAY_PROC("cuStreamEndCapture", 10000, cuStreamEndCapture),
    PTXRAY_PROC_PT("cuStreamEndCapture", 10000, cuStreamEndCapture_ptsz),
    PTXRAY_PROC("cuStreamIsCapturing", 10000, cuStreamIsCapturing),
    PTXRAY_PROC_PT("cuStreamIsCapturing", 10000, cuStreamIsCapturing_ptsz),
    PTXRAY_PROC("cuStreamGetCaptureInfo", 10010, cuStreamGetCaptureInfo),
    PTXRAY_PROC_PT("cuStreamGetCaptureInfo", 10010, cuStreamGetCaptureInfo_ptsz),
    PTXRAY_PROC("cuStreamGetCaptureInfo", 11030, cuStreamGetCaptureInfo_v2),
    PTXRAY_PROC_PT("cuStreamGetCaptureInfo", 11030, cuStreamGetCaptureInfo_v2_ptsz),
    PTXRAY_PROC("cuStreamGetCaptureInfo", 12030, cuStreamGetCaptureInfo_v3),
    PTXRAY_PROC_PT("cuStreamGetCaptureInfo", 12030, cuStreamGetCaptureInfo_v3_ptsz),
    PTXRAY_PROC("cuThreadExchangeStreamCaptureMode", 10010, cuThreadExchangeStreamCaptureMode),
    PTXRAY_PROC("cuGraphCreate", 10000, cuGraphCreate),
    PTXRAY_PROC("cuGraphDestroy", 10000, cuGraphDestroy),
    PTXRAY_PROC("cuGraphClone", 10000, cuGraphClone),
    PTXRAY_PROC("cuGraphNodeFindInClone", 10000, cuGraphNodeFindInClone),
    PTXRAY_PROC("cuGraphDestroyNode", 10000, cuGraphDestroyNode),
    PTXRAY_PROC("cuGraphAddKernelNode", 10000, cuGraphAddKernelNode),
    PTXRAY_PROC("cuGraphAddKernelNode", 12000, cuGraphAddKernelNode_v2),
    PTXRAY_PROC("cuGraphKernelNodeGetParams", 10000, cuGraphKernelNodeGetParams),
    PTXRAY_PROC("cuGraphKernelNodeGetParams", 12000, cuGraphKernelNodeGetParams_v2),
    PTXRAY_PROC("cuGraphKernelNodeSetParams", 10000, cuGraphKernelNodeSetParams),
    PTXRAY_PROC("cuGraphKernelNodeSetParams", 12000, cuGraphKernelNodeSetParams_v2),
    PTXRAY_PROC("cuGraphAddMemcpyNode", 10000, cuGraphAddMemcpyNode),
    PTXRAY_PROC("cuGraphMemcpyNodeGetParams", 10000, cuGraphMemcpyNodeGetParams),
    PTXRAY_PROC("cuGraphMemcpyNodeSetParams", 10000, cuGraphMemcpyNodeSetParams),
    PTXRAY_PROC("cuGraphAddMemsetNode", 10000, cuGraphAddMemsetNode),
    PTXRAY_PROC("cuGraphMemsetNodeGetParams", 10000, cuGraphMemsetNodeGetParams),
    PTXRAY_PROC("cuGraphMemsetNodeSetParams", 10000, cuGraphMemsetNodeSetParams),
    PTXRAY_PROC("cuGraphAddHostNode", 10000, cuGraphAddHostNode),
    PTXRAY_PROC("cuGraphHostNodeGetParams", 10000, cuGraphHostNodeGetParams),
    PTXRAY_PROC("cuGraphHostNodeSetParams", 10000, cuGraphHostNodeSetParams),
    PTXRAY_PROC("cuGraphAddChildGraphNode", 10000, cuGraphAddChildGraphNode),
    PTXRAY_PROC("cuGraphChildGraphNodeGetGraph", 10000, cuGraphChildGraphNodeGetGraph),
    PTXRAY_PROC("cuGraphAddEmptyNode", 10000, cuGraphAddEmptyNode),
    PTXRAY_PROC("cuGraphAddEventRecordNode", 11010, cuGraphAddEventRecordNode),
    PTXRAY_PROC("cuGraphAddEventWaitNode", 11010, cuGraphAddEventWaitNode),
    PTXRAY_PROC("cuGraphEventRecordNodeGetEvent", 11010, cuGraphEventRecordNodeGetEvent),
    PTXRAY_PROC("cuGraphEventRecordNodeSetEvent", 11010, cuGraphEventRecordNodeSetEvent),
    PTXRAY_PROC("cuGraphEventWaitNodeGetEvent", 11010, cuGraphEventWaitNodeGetEvent),
    PTXRAY_PROC("cuGraphEventWaitNodeSetEvent", 11010, cuGraphEventWaitNodeSetEvent),
    PTXRAY_PROC("cuGraphNodeGetType", 10000, cuGraphNodeGetType),
    PTXRAY_PROC("cuGraphGetNodes", 10000, cuGraphGetNodes),
    PTXRAY_PROC("cuGraphGetRootNodes", 10000, cuGraphGetRootNodes),
    PTXRAY_PROC("cuGraphGetEdges", 10000, cuGraphGetEdges),
    PTXRAY_PROC("cuGraphGetEdges", 12030, cuGraphGetEdges_v2),
    PTXRAY_PROC("cuGraphNodeGetDependencies", 10000, cuGraphNodeGetDependencies),
    PTXRAY_PROC("cuGraphNodeGetDependencies", 12030, cuGraphNodeGetDependencies_v2),
    PTXRAY_PROC("cuGraphNodeGetDependentNodes", 10000, cuGraphNodeGetDependentNodes),
    PTXRAY_PROC("cuGraphNodeGetDependentNodes", 12030, cuGraphNodeGetDependentNodes_v2),
    PTXRAY_PROC("cuGraphAddDependencies", 10000, cuGraphAddDependencies),
    PTXRAY_PROC("cuGraphAddDependencies", 12030, cuGraphAddDependencies_v2),
    PTXRAY_PROC("cuGraphRemoveDependencies", 10000, cuGraphRemoveDependencies),
    PTXRAY_PROC("cuGraphRemoveDependencies", 12030, cuGraphRemoveDependencies_v2),
    PTXRAY_PROC("cuGraphDebugDotPrint", 11030, cuGraphDebugDotPrint),
    PTXRAY_PROC("cuGraphInstantiate", 10000, cuGraphInstantiate_v2),
    PTXRAY_PROC("cuGraphInstantiate", 11000, cuGraphInstantiate_v2),
    PTXRAY_PROC("cuGraphInstantiateWithFlags", 11040, cuGraphInstantiateWithFlags),
    PTXRAY_PROC("cuGraphInstantiateWithParams", 12000, cuGraphInstantiateWithParams),
    PTXRAY_PROC_PT("cuGraphInstantiateWithParams", 12000, cuGraphInstantiateWithParams_ptsz),
    PTXRAY_PROC("cuGraphExecGetFlags", 12000, cuGraphExecGetFlags),
    PTXRAY_PROC("cuGraphExecDestroy", 10000, cuGraphExecDestroy),
    PTXRAY_PROC("cuGraphExecKernelNodeSetParams", 10010, cuGraphExecKernelNodeSetParams),
    PTXRAY_PROC("cuGraphExecKernelNodeSetParams", 12000, cuGraphExecKernelNodeSetParams_v2),
    PTXRAY_PROC("cuGraphExecMemcpyNodeSetParams", 10020, cuGraphExecMemcpyNodeSetParams),
    PTXRAY_PROC("cuGraphExecMemsetNodeSetParams", 10020, cuGraphExecMemsetNodeSetParams),
    PTXRAY_PROC("cuGraphExecHostNodeSetParams", 10020, cuGraphExecHostNodeSetParams),
    PTXRAY_PROC("cuGraphExecEventRecordNodeSetEvent", 11010, cuGraphExecEventRecordNodeSetEvent),
    PTXRAY_PROC("cuGraphExecEventWaitNodeSetEvent", 11010, cuGraphExecEventWaitNodeSetEvent),
    PTXRAY_PROC("cuGraphExecUpdate", 10020, cuGraphExecUpdate),
    PTXRAY_PROC("cuGraphExecUpdate", 12000, cuGraphExecUpdate_v2),
    PTXRAY_PROC("cuGraphUpload", 11010, cuGraphUpload),
    PTXRAY_PROC_PT("cuGraphUpload", 11010, cuGraphUpload_ptsz),
    PTXRAY_PROC("cuGraphLaunch", 10000, cuGraphLaunch),
    PTXRAY_PROC_PT("cuGraphLaunch", 10000, cuGraphLaunch_ptsz),
};

#undef PTXRAY_PROC
#undef PTXRAY_PROC_PT

} // namespace

namespace ptxray::runtime {
std::span<const DriverProc> graphDriverProcs() {
  return kGraphProcs;
}
} // namespace ptxray::runtime
