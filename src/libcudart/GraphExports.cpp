// libcudart.so.13's CUDA graph and stream capture entry points (CUDA 13 signatures), each a thin call
// into the runtime's graphs::GraphState under its lock, traced with PTXRAY_LOG=api like every other
// call (CudartExports.cpp). Handles are the state's objects: a cudaGraph_t is a graphs::Graph, a
// cudaGraphNode_t a graphs::Node, a cudaGraphExec_t a graphs::Exec.
#include "runtime/Graphs.h"
#include "runtime/Runtime.h"

#include <fmt/format.h>

#include <mutex>

using namespace ptxray::runtime;
using namespace ptxray::runtime::graphs;
using cuda::Error;

namespace {

/// Runs one API call: under the runtime's lock, traced with PTXRAY_LOG=api, its error remembered for
/// cudaGetLastError.
template <typename F> Error api(const char *name, F &&call) {
  Runtime &rt = Runtime::instance();
  std::lock_guard lock(rt.mutex());
  Error e = Runtime::guarded(name, [&] { return call(rt.graphs()); });
  if (rt.config().logApi)
    rt.log(fmt::format("{} = {}", name, cuda::errorName(e)));
  return rt.record(e);
}

/// A node made by `fill` added to `graph`.
template <typename F>
Error addNode(const char *name, Node **out, Graph *graph, Node *const *deps, size_t count, F &&fill) {
  return api(name, [&](GraphState &g) {
    auto n = std::make_unique<Node>();
    if (Error e = fill(g, *n))
      return e;
    return g.addNode(out, graph, deps, count, std::move(n));
  });
}

/// A node of `type`, or null.
Node *typed(GraphState &g, Node *handle, NodeType type) {
  Node *n = g.node(handle);
  return n && n->type == type ? n : nullptr;
}

Memcpy3DParms linearCopy(void *dst, const void *src, size_t count, int kind) {
  Memcpy3DParms p{};
  p.srcPtr = {const_cast<void *>(src), count, count, 1};
  p.dstPtr = {dst, count, count, 1};
  p.extent = {count, 1, 1};
  p.kind = kind;
  return p;
}

Error setKernel(GraphState &g, Node *n, const KernelNodeParams *p) {
  if (!n || !p)
    return cuda::kErrorInvalidValue;
  Node fresh;
  if (Error e = g.kernelNode(fresh, p->func, p->gridDim, p->blockDim, p->sharedMemBytes, p->kernelParams, p->extra))
    return e;
  n->function = fresh.function;
  n->grid = fresh.grid;
  n->block = fresh.block;
  n->sharedBytes = fresh.sharedBytes;
  n->arguments = std::move(fresh.arguments);
  n->pointers = std::move(fresh.pointers);
  return cuda::kSuccess;
}

Error launchGraph(const char *name, void *exec, void *stream) {
  Runtime &rt = Runtime::instance();
  std::unique_lock lock(rt.mutex());
  Error e = Runtime::guarded(name, [&] { return rt.graphs().launch(static_cast<Exec *>(exec), stream, lock); });
  if (rt.config().logApi)
    rt.log(fmt::format("{} = {}", name, cuda::errorName(e)));
  return rt.record(e);
}

} // namespace

extern "C" {

// ---- Stream capture ----------------------------------------------------------------------------------

Error cudaStreamBeginCapture(void *stream, int mode) {
  return api("cudaStreamBeginCapture", [&](GraphState &g) { return g.beginCapture(stream, mode); });
}
Error cudaStreamBeginCapture_ptsz(void *stream, int mode) {
  return cudaStreamBeginCapture(stream, mode);
}

Error cudaStreamEndCapture(void *stream, Graph **graph) {
  return api("cudaStreamEndCapture", [&](GraphState &g) { return g.endCapture(stream, graph); });
}
Error cudaStreamEndCapture_ptsz(void *stream, Graph **graph) {
  return cudaStreamEndCapture(stream, graph);
}

Error cudaStreamIsCapturing(void *stream, int *status) {
  return api("cudaStreamIsCapturing",
             [&](GraphState &g) { return g.captureInfo(stream, status, nullptr, nullptr, nullptr, nullptr, nullptr); });
}
Error cudaStreamIsCapturing_ptsz(void *stream, int *status) {
  return cudaStreamIsCapturing(stream, status);
}

Error cudaStreamGetCaptureInfo(void *stream, int *status, unsigned long long *id, Graph **graph,
                               Node *const **dependencies, const EdgeData **edgeData, size_t *count) {
  return api("cudaStreamGetCaptureInfo",
             [&](GraphState &g) { return g.captureInfo(stream, status, id, graph, dependencies, edgeData, count); });
}
Error cudaStreamGetCaptureInfo_ptsz(void *stream, int *status, unsigned long long *id, Graph **graph,
                                    Node *const **dependencies, const EdgeData **edgeData, size_t *count) {
  return cudaStreamGetCaptureInfo(stream, status, id, graph, dependencies, edgeData, count);
}

Error cudaThreadExchangeStreamCaptureMode(int *mode) {
  return api("cudaThreadExchangeStreamCaptureMode", [&](GraphState &) { return GraphState::exchangeMode(mode); });
}

// ---- Graphs ------------------------------------------------------------------------------------------

Error cudaGraphCreate(Graph **graph, unsigned flags) {
  return api("cudaGraphCreate", [&](GraphState &g) { return flags ? cuda::kErrorInvalidValue : g.createGraph(graph); });
}

Error cudaGraphDestroy(Graph *graph) {
  return api("cudaGraphDestroy", [&](GraphState &g) { return g.destroyGraph(graph); });
}

Error cudaGraphClone(Graph **clone, Graph *original) {
  return api("cudaGraphClone", [&](GraphState &g) { return g.cloneGraph(clone, original); });
}

Error cudaGraphNodeFindInClone(Node **node, Node *original, Graph *clone) {
  return api("cudaGraphNodeFindInClone", [&](GraphState &g) { return g.findInClone(node, original, clone); });
}

Error cudaGraphDestroyNode(Node *node) {
  return api("cudaGraphDestroyNode", [&](GraphState &g) { return g.destroyNode(node); });
}

Error cudaGraphAddKernelNode(Node **node, Graph *graph, Node *const *deps, size_t count, const KernelNodeParams *p) {
  return addNode("cudaGraphAddKernelNode", node, graph, deps, count, [&](GraphState &g, Node &n) {
    return p ? g.kernelNode(n, p->func, p->gridDim, p->blockDim, p->sharedMemBytes, p->kernelParams, p->extra)
             : cuda::kErrorInvalidValue;
  });
}

Error cudaGraphKernelNodeGetParams(Node *node, KernelNodeParams *p) {
  return api("cudaGraphKernelNodeGetParams", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::Kernel);
    if (!n || !p)
      return cuda::kErrorInvalidValue;
    *p = {n->function, n->grid, n->block, n->sharedBytes, n->pointers.data(), nullptr};
    return cuda::kSuccess;
  });
}

Error cudaGraphKernelNodeSetParams(Node *node, const KernelNodeParams *p) {
  return api("cudaGraphKernelNodeSetParams",
             [&](GraphState &g) { return setKernel(g, typed(g, node, NodeType::Kernel), p); });
}

Error cudaGraphAddMemcpyNode(Node **node, Graph *graph, Node *const *deps, size_t count, const Memcpy3DParms *p) {
  return addNode("cudaGraphAddMemcpyNode", node, graph, deps, count,
                 [&](GraphState &g, Node &n) { return p ? g.runtimeCopyNode(n, *p) : cuda::kErrorInvalidValue; });
}

Error cudaGraphAddMemcpyNode1D(Node **node, Graph *graph, Node *const *deps, size_t count, void *dst, const void *src,
                               size_t bytes, int kind) {
  return addNode("cudaGraphAddMemcpyNode1D", node, graph, deps, count,
                 [&](GraphState &g, Node &n) { return g.runtimeCopyNode(n, linearCopy(dst, src, bytes, kind)); });
}

Error cudaGraphMemcpyNodeGetParams(Node *node, Memcpy3DParms *p) {
  return api("cudaGraphMemcpyNodeGetParams", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::Memcpy);
    if (!n || !p || !n->runtimeCopy)
      return cuda::kErrorInvalidValue;
    *p = *n->runtimeCopy;
    return cuda::kSuccess;
  });
}

Error cudaGraphMemcpyNodeSetParams(Node *node, const Memcpy3DParms *p) {
  return api("cudaGraphMemcpyNodeSetParams", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::Memcpy);
    return n && p ? g.runtimeCopyNode(*n, *p) : cuda::kErrorInvalidValue;
  });
}

Error cudaGraphMemcpyNodeSetParams1D(Node *node, void *dst, const void *src, size_t bytes, int kind) {
  return api("cudaGraphMemcpyNodeSetParams1D", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::Memcpy);
    return n ? g.runtimeCopyNode(*n, linearCopy(dst, src, bytes, kind)) : cuda::kErrorInvalidValue;
  });
}

Error cudaGraphAddMemsetNode(Node **node, Graph *graph, Node *const *deps, size_t count, const MemsetParams *p) {
  return addNode("cudaGraphAddMemsetNode", node, graph, deps, count,
                 [&](GraphState &g, Node &n) { return p ? g.memsetNode(n, *p) : cuda::kErrorInvalidValue; });
}

Error cudaGraphMemsetNodeGetParams(Node *node, MemsetParams *p) {
  return api("cudaGraphMemsetNodeGetParams", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::Memset);
    if (!n || !p)
      return cuda::kErrorInvalidValue;
    *p = n->memset;
    return cuda::kSuccess;
  });
}

Error cudaGraphMemsetNodeSetParams(Node *node, const MemsetParams *p) {
  return api("cudaGraphMemsetNodeSetParams", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::Memset);
    return n && p ? g.memsetNode(*n, *p) : cuda::kErrorInvalidValue;
  });
}

Error cudaGraphAddHostNode(Node **node, Graph *graph, Node *const *deps, size_t count, const HostNodeParams *p) {
  return addNode("cudaGraphAddHostNode", node, graph, deps, count, [&](GraphState &, Node &n) {
    if (!p || !p->fn)
      return cuda::kErrorInvalidValue;
    n.type = NodeType::Host;
    n.host = *p;
    return cuda::kSuccess;
  });
}

Error cudaGraphHostNodeGetParams(Node *node, HostNodeParams *p) {
  return api("cudaGraphHostNodeGetParams", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::Host);
    if (!n || !p)
      return cuda::kErrorInvalidValue;
    *p = n->host;
    return cuda::kSuccess;
  });
}

Error cudaGraphHostNodeSetParams(Node *node, const HostNodeParams *p) {
  return api("cudaGraphHostNodeSetParams", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::Host);
    if (!n || !p || !p->fn)
      return cuda::kErrorInvalidValue;
    n->host = *p;
    return cuda::kSuccess;
  });
}

Error cudaGraphAddChildGraphNode(Node **node, Graph *graph, Node *const *deps, size_t count, Graph *child) {
  return addNode("cudaGraphAddChildGraphNode", node, graph, deps, count,
                 [&](GraphState &g, Node &n) { return g.childNode(n, child); });
}

Error cudaGraphChildGraphNodeGetGraph(Node *node, Graph **graph) {
  return api("cudaGraphChildGraphNodeGetGraph", [&](GraphState &g) {
    Node *n = typed(g, node, NodeType::Graph);
    if (!n || !graph)
      return cuda::kErrorInvalidValue;
    *graph = n->child.get();
    return cuda::kSuccess;
  });
}

Error cudaGraphAddEmptyNode(Node **node, Graph *graph, Node *const *deps, size_t count) {
  return addNode("cudaGraphAddEmptyNode", node, graph, deps, count, [&](GraphState &, Node &n) {
    n.type = NodeType::Empty;
    return cuda::kSuccess;
  });
}

namespace {
Error addEventNode(const char *name, Node **node, Graph *graph, Node *const *deps, size_t count, void *event,
                   NodeType type) {
  return addNode(name, node, graph, deps, count, [&](GraphState &, Node &n) {
    if (Runtime::instance().eventQuery(event) == cuda::kErrorInvalidResourceHandle)
      return cuda::kErrorInvalidResourceHandle;
    n.type = type;
    n.event = event;
    return cuda::kSuccess;
  });
}
Error getEvent(const char *name, Node *node, void **event, NodeType type) {
  return api(name, [&](GraphState &g) {
    Node *n = typed(g, node, type);
    if (!n || !event)
      return cuda::kErrorInvalidValue;
    *event = n->event;
    return cuda::kSuccess;
  });
}
Error setEvent(const char *name, Node *n, void *event) {
  if (!n)
    return cuda::kErrorInvalidValue;
  if (Runtime::instance().eventQuery(event) == cuda::kErrorInvalidResourceHandle)
    return cuda::kErrorInvalidResourceHandle;
  (void)name;
  n->event = event;
  return cuda::kSuccess;
}
} // namespace

Error cudaGraphAddEventRecordNode(Node **node, Graph *graph, Node *const *deps, size_t count, void *event) {
  return addEventNode("cudaGraphAddEventRecordNode", node, graph, deps, count, event, NodeType::EventRecord);
}
Error cudaGraphAddEventWaitNode(Node **node, Graph *graph, Node *const *deps, size_t count, void *event) {
  return addEventNode("cudaGraphAddEventWaitNode", node, graph, deps, count, event, NodeType::WaitEvent);
}
Error cudaGraphEventRecordNodeGetEvent(Node *node, void **event) {
  return getEvent("cudaGraphEventRecordNodeGetEvent", node, event, NodeType::EventRecord);
}
Error cudaGraphEventWaitNodeGetEvent(Node *node, void **event) {
  return getEvent("cudaGraphEventWaitNodeGetEvent", node, event, NodeType::WaitEvent);
}
Error cudaGraphEventRecordNodeSetEvent(Node *node, void *event) {
  return api("cudaGraphEventRecordNodeSetEvent", [&](GraphState &g) {
    return setEvent("cudaGraphEventRecordNodeSetEvent", typed(g, node, NodeType::EventRecord), event);
  });
}
Error cudaGraphEventWaitNodeSetEvent(Node *node, void *event) {
  return api("cudaGraphEventWaitNodeSetEvent", [&](GraphState &g) {
    return setEvent("cudaGraphEventWaitNodeSetEvent", typed(g, node, NodeType::WaitEvent), event);
  });
}

Error cudaGraphNodeGetType(Node *node, int *type) {
  return api("cudaGraphNodeGetType", [&](GraphState &g) {
    Node *n = g.node(node);
    if (!n || !type)
      return cuda::kErrorInvalidValue;
    *type = static_cast<int>(n->type);
    return cuda::kSuccess;
  });
}

Error cudaGraphGetNodes(Graph *graph, Node **nodes, size_t *count) {
  return api("cudaGraphGetNodes", [&](GraphState &g) { return g.nodes(graph, nodes, count, false); });
}

Error cudaGraphGetRootNodes(Graph *graph, Node **nodes, size_t *count) {
  return api("cudaGraphGetRootNodes", [&](GraphState &g) { return g.nodes(graph, nodes, count, true); });
}

Error cudaGraphGetEdges(Graph *graph, Node **from, Node **to, EdgeData *data, size_t *count) {
  return api("cudaGraphGetEdges", [&](GraphState &g) { return g.edges(graph, from, to, data, count); });
}

Error cudaGraphNodeGetDependencies(Node *node, Node **deps, EdgeData *data, size_t *count) {
  return api("cudaGraphNodeGetDependencies",
             [&](GraphState &g) { return g.neighbours(node, deps, data, count, false); });
}

Error cudaGraphNodeGetDependentNodes(Node *node, Node **deps, EdgeData *data, size_t *count) {
  return api("cudaGraphNodeGetDependentNodes",
             [&](GraphState &g) { return g.neighbours(node, deps, data, count, true); });
}

Error cudaGraphAddDependencies(Graph *graph, Node *const *from, Node *const *to, const EdgeData *, size_t count) {
  return api("cudaGraphAddDependencies",
             [&](GraphState &g) { return g.addDependencies(graph, from, to, count, false); });
}

Error cudaGraphRemoveDependencies(Graph *graph, Node *const *from, Node *const *to, const EdgeData *, size_t count) {
  return api("cudaGraphRemoveDependencies",
             [&](GraphState &g) { return g.addDependencies(graph, from, to, count, true); });
}

Error cudaGraphDebugDotPrint(Graph *graph, const char *path, unsigned flags) {
  return api("cudaGraphDebugDotPrint", [&](GraphState &g) { return g.dotPrint(graph, path, flags); });
}

// ---- Executable graphs -------------------------------------------------------------------------------

Error cudaGraphInstantiate(Exec **exec, Graph *graph, unsigned long long /*flags*/) {
  return api("cudaGraphInstantiate", [&](GraphState &g) { return g.instantiate(exec, graph); });
}

Error cudaGraphInstantiateWithFlags(Exec **exec, Graph *graph, unsigned long long /*flags*/) {
  return api("cudaGraphInstantiateWithFlags", [&](GraphState &g) { return g.instantiate(exec, graph); });
}

Error cudaGraphInstantiateWithParams(Exec **exec, Graph *graph, InstantiateParams *params) {
  return api("cudaGraphInstantiateWithParams", [&](GraphState &g) {
    if (!params)
      return cuda::kErrorInvalidValue;
    Error e = g.instantiate(exec, graph);
    params->errNode_out = nullptr;
    params->result_out = e ? 1 : 0; // cudaGraphInstantiateError, cudaGraphInstantiateSuccess
    return e;
  });
}
Error cudaGraphInstantiateWithParams_ptsz(Exec **exec, Graph *graph, InstantiateParams *params) {
  return cudaGraphInstantiateWithParams(exec, graph, params);
}

Error cudaGraphExecGetFlags(Exec *exec, unsigned long long *flags) {
  return api("cudaGraphExecGetFlags", [&](GraphState &g) {
    if (!g.exec(exec) || !flags)
      return cuda::kErrorInvalidValue;
    *flags = 0;
    return cuda::kSuccess;
  });
}

Error cudaGraphExecDestroy(Exec *exec) {
  return api("cudaGraphExecDestroy", [&](GraphState &g) { return g.destroyExec(exec); });
}

Error cudaGraphExecKernelNodeSetParams(Exec *exec, Node *node, const KernelNodeParams *p) {
  return api("cudaGraphExecKernelNodeSetParams", [&](GraphState &g) {
    Node *n = g.execNode(exec, node);
    return setKernel(g, n && n->type == NodeType::Kernel ? n : nullptr, p);
  });
}

Error cudaGraphExecMemcpyNodeSetParams(Exec *exec, Node *node, const Memcpy3DParms *p) {
  return api("cudaGraphExecMemcpyNodeSetParams", [&](GraphState &g) {
    Node *n = g.execNode(exec, node);
    return n && p && n->type == NodeType::Memcpy ? g.runtimeCopyNode(*n, *p) : cuda::kErrorInvalidValue;
  });
}

Error cudaGraphExecMemcpyNodeSetParams1D(Exec *exec, Node *node, void *dst, const void *src, size_t bytes, int kind) {
  return api("cudaGraphExecMemcpyNodeSetParams1D", [&](GraphState &g) {
    Node *n = g.execNode(exec, node);
    return n && n->type == NodeType::Memcpy ? g.runtimeCopyNode(*n, linearCopy(dst, src, bytes, kind))
                                            : cuda::kErrorInvalidValue;
  });
}

Error cudaGraphExecMemsetNodeSetParams(Exec *exec, Node *node, const MemsetParams *p) {
  return api("cudaGraphExecMemsetNodeSetParams", [&](GraphState &g) {
    Node *n = g.execNode(exec, node);
    return n && p && n->type == NodeType::Memset ? g.memsetNode(*n, *p) : cuda::kErrorInvalidValue;
  });
}

Error cudaGraphExecHostNodeSetParams(Exec *exec, Node *node, const HostNodeParams *p) {
  return api("cudaGraphExecHostNodeSetParams", [&](GraphState &g) {
    Node *n = g.execNode(exec, node);
    if (!n || !p || !p->fn || n->type != NodeType::Host)
      return cuda::kErrorInvalidValue;
    n->host = *p;
    return cuda::kSuccess;
  });
}

Error cudaGraphExecEventRecordNodeSetEvent(Exec *exec, Node *node, void *event) {
  return api("cudaGraphExecEventRecordNodeSetEvent", [&](GraphState &g) {
    Node *n = g.execNode(exec, node);
    return setEvent("", n && n->type == NodeType::EventRecord ? n : nullptr, event);
  });
}

Error cudaGraphExecEventWaitNodeSetEvent(Exec *exec, Node *node, void *event) {
  return api("cudaGraphExecEventWaitNodeSetEvent", [&](GraphState &g) {
    Node *n = g.execNode(exec, node);
    return setEvent("", n && n->type == NodeType::WaitEvent ? n : nullptr, event);
  });
}

Error cudaGraphExecUpdate(Exec *exec, Graph *graph, UpdateResultInfo *info) {
  return api("cudaGraphExecUpdate", [&](GraphState &g) { return g.update(exec, graph, info); });
}

Error cudaGraphUpload(Exec *exec, void *stream) {
  return api("cudaGraphUpload", [&](GraphState &g) { return g.upload(exec, stream); });
}
Error cudaGraphUpload_ptsz(Exec *exec, void *stream) {
  return cudaGraphUpload(exec, stream);
}

Error cudaGraphLaunch(Exec *exec, void *stream) {
  return launchGraph("cudaGraphLaunch", exec, stream);
}
Error cudaGraphLaunch_ptsz(Exec *exec, void *stream) {
  return launchGraph("cudaGraphLaunch", exec, stream);
}

} // extern "C"
