// CUDA graphs behind both libraries: graphs built node by node (cudaGraphAdd*Node, cuGraphAdd*Node) or
// captured from streams (cudaStreamBeginCapture ... cudaStreamEndCapture), executable graphs
// (instantiate, update, launch) and the captures in progress. A graph launch runs its nodes in a
// topological order on the launch stream, each through the Runtime call an ordinary API call makes
// (Runtime::launch, streamCopy, streamMemset, eventRecord, streamWaitEvent), so results, sanitizers
// and the session see graph work as they see ordinary work. Handles are the objects' addresses,
// checked against the live ones before use. The ABI structs below are CUDA 13's (cuda_runtime_api.h,
// driver_types.h, cuda.h): the same sizes, field order and enumerator values.
#pragma once

#include "runtime/CudaAbi.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace ptxray::runtime {

class Runtime;

namespace graphs {

// ---- ABI ---------------------------------------------------------------------------------------------

// cudaError_t / CUresult values of graphs and capture (the same numbers in both APIs).
inline constexpr cuda::Error kErrorOperatingSystem = 304;
inline constexpr cuda::Error kErrorIllegalState = 401;
inline constexpr cuda::Error kErrorStreamCaptureUnsupported = 900;
inline constexpr cuda::Error kErrorStreamCaptureInvalidated = 901;
inline constexpr cuda::Error kErrorStreamCaptureMerge = 902;
inline constexpr cuda::Error kErrorStreamCaptureUnmatched = 903;
inline constexpr cuda::Error kErrorStreamCaptureUnjoined = 904;
inline constexpr cuda::Error kErrorStreamCaptureImplicit = 906;
inline constexpr cuda::Error kErrorStreamCaptureWrongThread = 908;
inline constexpr cuda::Error kErrorGraphExecUpdateFailure = 910;

/// cudaGraphNodeType / CUgraphNodeType.
enum class NodeType : int {
  Kernel = 0,
  Memcpy = 1,
  Memset = 2,
  Host = 3,
  Graph = 4,
  Empty = 5,
  WaitEvent = 6,
  EventRecord = 7
};

/// cudaStreamCaptureMode / CUstreamCaptureMode, cudaStreamCaptureStatus / CUstreamCaptureStatus.
enum CaptureMode : int { ModeGlobal = 0, ModeThreadLocal = 1, ModeRelaxed = 2 };
enum CaptureStatus : int { StatusNone = 0, StatusActive = 1, StatusInvalidated = 2 };

/// cudaGraphExecUpdateResult / CUgraphExecUpdateResult.
enum UpdateResult : int { UpdateSuccess = 0, UpdateError = 1, UpdateTopologyChanged = 2, UpdateNodeTypeChanged = 3 };

using HostFn = void (*)(void *);

struct KernelNodeParams { // cudaKernelNodeParams
  const void *func;
  cuda::Dim3 gridDim;
  cuda::Dim3 blockDim;
  unsigned sharedMemBytes;
  void **kernelParams;
  void **extra;
};
static_assert(sizeof(KernelNodeParams) == 56);

struct DriverKernelNodeParams { // CUDA_KERNEL_NODE_PARAMS (v1; v2 adds kern and ctx)
  void *func;
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void **kernelParams;
  void **extra;
  void *kern; ///< v2 only
  void *ctx;  ///< v2 only
};
static_assert(offsetof(DriverKernelNodeParams, kernelParams) == 40 && sizeof(DriverKernelNodeParams) == 72);
inline constexpr size_t kDriverKernelNodeParamsV1Size = 56;

struct Pos { // cudaPos
  size_t x, y, z;
};
struct PitchedPtr { // cudaPitchedPtr
  void *ptr;
  size_t pitch, xsize, ysize;
};
struct Memcpy3DParms { // cudaMemcpy3DParms
  void *srcArray;
  Pos srcPos;
  PitchedPtr srcPtr;
  void *dstArray;
  Pos dstPos;
  PitchedPtr dstPtr;
  cuda::Extent extent;
  int kind;
};
static_assert(sizeof(Memcpy3DParms) == 160);

struct DriverMemcpy3D { // CUDA_MEMCPY3D
  size_t srcXInBytes, srcY, srcZ, srcLOD;
  int srcMemoryType;
  const void *srcHost;
  unsigned long long srcDevice;
  void *srcArray;
  void *reserved0;
  size_t srcPitch, srcHeight;
  size_t dstXInBytes, dstY, dstZ, dstLOD;
  int dstMemoryType;
  void *dstHost;
  unsigned long long dstDevice;
  void *dstArray;
  void *reserved1;
  size_t dstPitch, dstHeight;
  size_t WidthInBytes, Height, Depth;
};
static_assert(offsetof(DriverMemcpy3D, dstXInBytes) == 88 && sizeof(DriverMemcpy3D) == 200);
/// CUmemorytype.
enum MemoryType : int { MemoryHost = 1, MemoryDevice = 2, MemoryArray = 3, MemoryUnified = 4 };

struct MemsetParams { // cudaMemsetParams, CUDA_MEMSET_NODE_PARAMS (dst a CUdeviceptr there)
  void *dst;
  size_t pitch;
  unsigned value;
  unsigned elementSize;
  size_t width;
  size_t height;
};
static_assert(sizeof(MemsetParams) == 40);

struct HostNodeParams { // cudaHostNodeParams, CUDA_HOST_NODE_PARAMS
  HostFn fn;
  void *userData;
};

struct UpdateResultInfo { // cudaGraphExecUpdateResultInfo, CUgraphExecUpdateResultInfo
  int result;
  void *errorNode;
  void *errorFromNode;
};

struct InstantiateParams { // cudaGraphInstantiateParams, CUDA_GRAPH_INSTANTIATE_PARAMS
  unsigned long long flags;
  void *uploadStream;
  void *errNode_out;
  int result_out;
};
static_assert(sizeof(InstantiateParams) == 32);

struct EdgeData { // cudaGraphEdgeData, CUgraphEdgeData
  unsigned char from_port, to_port, type, reserved[5];
};
static_assert(sizeof(EdgeData) == 8);

// ---- Graphs ------------------------------------------------------------------------------------------

/// One side of a copy: linear memory (pointer, bytes per row, rows per slice) or a CUDA array, and
/// the offset of the copied box (x in bytes, y in rows, z in slices).
struct CopySide {
  void *pointer = nullptr;
  void *array = nullptr;
  size_t pitch = 0, rows = 0;
  size_t x = 0, y = 0, z = 0;
};

struct CopyDesc {
  CopySide src, dst;
  size_t widthBytes = 0, height = 1, depth = 1;
  int kind = cuda::Default;
};

struct Graph;

struct Node {
  NodeType type = NodeType::Empty;
  Graph *graph = nullptr; ///< the graph holding it
  std::vector<Node *> dependencies;
  // Kernel: the function (host stub or driver handle, as Runtime::launch takes it) and a copy of the
  // arguments, one buffer per parameter; `pointers` points into them (what kernelParams reads back).
  const void *function = nullptr;
  void *driverKernel = nullptr; ///< CUDA_KERNEL_NODE_PARAMS_v2::kern as given
  cuda::Dim3 grid, block;
  unsigned sharedBytes = 0;
  std::vector<std::vector<std::byte>> arguments;
  std::vector<void *> pointers;
  // Memcpy: what runs, and the parameters it was made from (read back by the same API).
  CopyDesc copy;
  std::optional<Memcpy3DParms> runtimeCopy;
  std::optional<DriverMemcpy3D> driverCopy;
  MemsetParams memset{};
  HostNodeParams host{};
  void *event = nullptr;
  std::unique_ptr<Graph> child;
};

struct Graph {
  std::vector<std::unique_ptr<Node>> nodes;  ///< in the order they were added
  std::map<const Node *, Node *> clonedFrom; ///< cudaGraphClone: the original's node -> this graph's
};

/// An executable graph: its own copy of the graph, and the order its nodes run in.
struct Exec {
  std::unique_ptr<Graph> graph;
  std::vector<Node *> order;
  std::map<const Node *, Node *> nodeOf; ///< a node of the graph it was made from (or updated with) -> its copy
};

/// A capture sequence: its graph, the stream it began on, and the nodes each of its streams' next
/// work depends on.
struct Capture {
  uint64_t id = 0;
  Graph *graph = nullptr; ///< registered in GraphState, handed over at cudaStreamEndCapture
  void *origin = nullptr;
  int mode = ModeGlobal;
  std::thread::id thread;
  bool invalidated = false;
  std::map<void *, std::vector<Node *>> streams;
  std::vector<EdgeData> edgeData; ///< zeros, for cudaStreamGetCaptureInfo's edgeData_out
};

class GraphState {
public:
  explicit GraphState(Runtime &rt) : rt_(rt) {}

  // Graphs and nodes (handles: Graph *, Node *).
  cuda::Error createGraph(Graph **graph);
  cuda::Error destroyGraph(Graph *graph);
  cuda::Error cloneGraph(Graph **clone, Graph *original);
  cuda::Error findInClone(Node **node, Node *original, Graph *clone);
  /// Adds a node of `node`'s kind and parameters to `graph` after `dependencies`.
  cuda::Error addNode(Node **out, Graph *graph, Node *const *dependencies, size_t count, std::unique_ptr<Node> node);
  cuda::Error destroyNode(Node *node);
  /// A kernel node's contents; `args` or `extra` as Runtime::launch reads them.
  cuda::Error kernelNode(Node &node, const void *function, cuda::Dim3 grid, cuda::Dim3 block, unsigned sharedBytes,
                         void **args, void **extra);
  cuda::Error runtimeCopyNode(Node &node, const Memcpy3DParms &p);
  cuda::Error driverCopyNode(Node &node, const DriverMemcpy3D &p);
  cuda::Error memsetNode(Node &node, const MemsetParams &p);
  cuda::Error childNode(Node &node, Graph *child);
  /// The live node, graph or executable graph a handle names, or null.
  Node *node(void *handle);
  Graph *graph(void *handle);
  Exec *exec(void *handle);
  cuda::Error nodes(Graph *graph, Node **out, size_t *count, bool rootsOnly);
  cuda::Error edges(Graph *graph, Node **from, Node **to, EdgeData *data, size_t *count);
  cuda::Error neighbours(Node *node, Node **out, EdgeData *data, size_t *count, bool dependents);
  cuda::Error addDependencies(Graph *graph, Node *const *from, Node *const *to, size_t count, bool remove);
  cuda::Error dotPrint(Graph *graph, const char *path, unsigned flags);

  // Executable graphs.
  cuda::Error instantiate(Exec **exec, Graph *graph);
  cuda::Error destroyExec(Exec *exec);
  /// The copy of `node` in `exec`, or null.
  Node *execNode(Exec *exec, Node *node);
  cuda::Error update(Exec *exec, Graph *graph, UpdateResultInfo *info);
  /// Runs the graph on `stream`; `lock` (the runtime's) is released while host nodes run. On a
  /// capturing stream, the graph becomes a child-graph node of the capture.
  cuda::Error launch(Exec *exec, void *stream, std::unique_lock<std::mutex> &lock);
  cuda::Error upload(Exec *exec, void *stream);

  // Stream capture.
  cuda::Error beginCapture(void *stream, int mode);
  cuda::Error endCapture(void *stream, Graph **graph);
  cuda::Error captureInfo(void *stream, int *status, unsigned long long *id, Graph **graph, Node *const **dependencies,
                          const EdgeData **edgeData, size_t *count);
  static cuda::Error exchangeMode(int *mode);
  Capture *captureOf(void *stream);
  bool anyCapture() const { return !captures_.empty(); }
  /// The work of one call on a capturing stream: a node after the stream's dependencies, which it
  /// replaces; the error of an invalidated capture.
  cuda::Error capture(Capture &c, void *stream, std::unique_ptr<Node> node);
  /// cudaEventRecord on a capturing stream: the event stands for the stream's dependencies. Not
  /// capturing: forgets the event's captured state (nullopt).
  std::optional<cuda::Error> eventRecord(void *event, void *stream);
  std::optional<cuda::Error> waitEvent(void *stream, void *event);
  /// A call that may synchronize while this thread may not (cudaThreadExchangeStreamCaptureMode):
  /// cudaErrorStreamCaptureUnsupported, and the captures that forbid it are invalidated.
  /// A call a capture may forbid (CUDA's "potentially unsafe" calls); `legacyStreamWork`: work on the
  /// legacy stream, which only captures of blocking streams forbid.
  std::optional<cuda::Error> unsafeCall(bool legacyStreamWork = false);

private:
  /// `lanes`: a graph launch's own nodes (not a child graph's), placed on lanes for the session.
  cuda::Error run(const Graph &graph, const std::vector<Node *> &order, void *stream,
                  std::unique_lock<std::mutex> &lock, bool lanes = false);
  cuda::Error runCopy(const CopyDesc &c, void *stream);
  void forget(Graph *graph); ///< unregisters its nodes (and nested graphs')
  void enroll(Graph *graph); ///< registers its nodes (and nested graphs')
  void endOf(Capture *c);    ///< the streams and events of a capture leave it

  Runtime &rt_;
  std::map<Graph *, std::unique_ptr<Graph>> graphs_;
  std::set<Node *> nodes_;   ///< nodes of the graphs above and of graphs nested in them
  std::set<Graph *> nested_; ///< child graphs (cudaGraphChildGraphNodeGetGraph)
  std::map<Exec *, std::unique_ptr<Exec>> execs_;
  std::vector<std::unique_ptr<Capture>> captures_;
  std::map<void *, Capture *> capturing_; ///< stream -> its capture
  struct CapturedEvent {
    Capture *capture;
    std::vector<Node *> dependencies;
  };
  std::map<void *, CapturedEvent> events_;
  uint64_t nextCaptureId_ = 1;
};

/// The topological order of a graph's nodes (the order they were added among ready nodes); nullopt
/// for a cycle.
std::optional<std::vector<Node *>> topologicalOrder(const Graph &graph);
/// A deep copy; `mapping` gets original -> copy for every node, nested graphs' too.
std::unique_ptr<Graph> copyGraph(const Graph &graph, std::map<const Node *, Node *> &mapping);

} // namespace graphs
} // namespace ptxray::runtime
