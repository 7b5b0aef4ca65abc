#include "runtime/Graphs.h"

#include "runtime/Runtime.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace ptxray::runtime {
namespace graphs {
namespace {

/// cudaThreadExchangeStreamCaptureMode: the calling thread's mode of interaction with captures.
thread_local int tCaptureMode = ModeGlobal;

bool isLegacyStream(void *stream) {
  auto v = reinterpret_cast<uintptr_t>(stream);
  return v == 0 || v == 1; // the legacy default stream, cudaStreamLegacy
}

const char *typeName(NodeType type) {
  switch (type) {
  case NodeType::Kernel: return "kernel";
  case NodeType::Memcpy: return "memcpy";
  case NodeType::Memset: return "memset";
  case NodeType::Host: return "host";
  case NodeType::Graph: return "graph";
  case NodeType::Empty: return "empty";
  case NodeType::WaitEvent: return "wait_event";
  case NodeType::EventRecord: return "event_record";
  }
  return "node";
}

void fixPointers(Node &node) {
  node.pointers.clear();
  for (auto &a : node.arguments)
    node.pointers.push_back(a.data());
}

/// Every node the given ones depend on, directly or not, and the nodes themselves.
std::set<const Node *> ancestors(const std::vector<Node *> &from) {
  std::set<const Node *> seen;
  std::vector<const Node *> work(from.begin(), from.end());
  while (!work.empty()) {
    const Node *n = work.back();
    work.pop_back();
    if (!seen.insert(n).second)
      continue;
    for (const Node *d : n->dependencies)
      work.push_back(d);
  }
  return seen;
}

} // namespace

std::optional<std::vector<Node *>> topologicalOrder(const Graph &graph) {
  std::map<const Node *, size_t> waiting;
  std::map<const Node *, std::vector<Node *>> dependents;
  for (const auto &n : graph.nodes) {
    waiting[n.get()] = n->dependencies.size();
    for (Node *d : n->dependencies)
      dependents[d].push_back(n.get());
  }
  std::vector<Node *> order;
  std::set<const Node *> done;
  // Repeatedly the first ready node in the order nodes were added: deterministic, and the order
  // work was issued in for a captured graph.
  while (order.size() < graph.nodes.size()) {
    Node *next = nullptr;
    for (const auto &n : graph.nodes)
      if (!done.count(n.get()) && waiting[n.get()] == 0) {
        next = n.get();
        break;
      }
    if (!next)
      return std::nullopt; // a cycle
    done.insert(next);
    order.push_back(next);
    for (Node *d : dependents[next])
      --waiting[d];
  }
  return order;
}

std::unique_ptr<Graph> copyGraph(const Graph &graph, std::map<const Node *, Node *> &mapping) {
  auto copy = std::make_unique<Graph>();
  for (const auto &n : graph.nodes) {
    auto c = std::make_unique<Node>();
    c->type = n->type;
    c->graph = copy.get();
    c->function = n->function;
    c->driverKernel = n->driverKernel;
    c->grid = n->grid;
    c->block = n->block;
    c->sharedBytes = n->sharedBytes;
    c->arguments = n->arguments;
    fixPointers(*c);
    c->copy = n->copy;
    c->runtimeCopy = n->runtimeCopy;
    c->driverCopy = n->driverCopy;
    c->memset = n->memset;
    c->host = n->host;
    c->event = n->event;
    if (n->child)
      c->child = copyGraph(*n->child, mapping);
    mapping[n.get()] = c.get();
    copy->nodes.push_back(std::move(c));
  }
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (Node *d : graph.nodes[i]->dependencies)
      copy->nodes[i]->dependencies.push_back(mapping.at(d));
  return copy;
}

// ---------------------------------------------------------------------------------------------------
// Graphs and nodes

Graph *GraphState::graph(void *handle) {
  auto *g = static_cast<Graph *>(handle);
  return graphs_.count(g) || nested_.count(g) ? g : nullptr;
}

Node *GraphState::node(void *handle) {
  auto *n = static_cast<Node *>(handle);
  return nodes_.count(n) ? n : nullptr;
}

Exec *GraphState::exec(void *handle) {
  auto *e = static_cast<Exec *>(handle);
  return execs_.count(e) ? e : nullptr;
}

void GraphState::enroll(Graph *graph) {
  for (auto &n : graph->nodes) {
    nodes_.insert(n.get());
    if (n->child) {
      nested_.insert(n->child.get());
      enroll(n->child.get());
    }
  }
}

void GraphState::forget(Graph *graph) {
  for (auto &n : graph->nodes) {
    nodes_.erase(n.get());
    if (n->child) {
      nested_.erase(n->child.get());
      forget(n->child.get());
    }
  }
}

cuda::Error GraphState::createGraph(Graph **out) {
  if (!out)
    return cuda::kErrorInvalidValue;
  auto g = std::make_unique<Graph>();
  *out = g.get();
  graphs_[g.get()] = std::move(g);
  return cuda::kSuccess;
}

cuda::Error GraphState::destroyGraph(Graph *g) {
  auto it = graphs_.find(g);
  if (it == graphs_.end())
    return cuda::kErrorInvalidValue;
  for (const auto &c : captures_)
    if (c->graph == g)
      return cuda::kErrorInvalidValue; // still being captured into
  forget(g);
  graphs_.erase(it);
  return cuda::kSuccess;
}

cuda::Error GraphState::cloneGraph(Graph **clone, Graph *original) {
  if (!clone || !graph(original))
    return cuda::kErrorInvalidValue;
  std::map<const Node *, Node *> mapping;
  std::unique_ptr<Graph> g = copyGraph(*original, mapping);
  g->clonedFrom = std::move(mapping);
  enroll(g.get());
  *clone = g.get();
  graphs_[g.get()] = std::move(g);
  return cuda::kSuccess;
}

cuda::Error GraphState::findInClone(Node **out, Node *original, Graph *clone) {
  if (!out || !node(original) || !graph(clone))
    return cuda::kErrorInvalidValue;
  auto it = clone->clonedFrom.find(original);
  if (it == clone->clonedFrom.end())
    return cuda::kErrorInvalidValue;
  *out = it->second;
  return cuda::kSuccess;
}

cuda::Error GraphState::addNode(Node **out, Graph *g, Node *const *dependencies, size_t count,
                                std::unique_ptr<Node> n) {
  if (!out || !graph(g) || (count && !dependencies))
    return cuda::kErrorInvalidValue;
  for (size_t i = 0; i < count; ++i) {
    Node *d = node(dependencies[i]);
    if (!d || d->graph != g)
      return cuda::kErrorInvalidValue;
    for (size_t j = 0; j < i; ++j)
      if (dependencies[j] == d)
        return cuda::kErrorInvalidValue; // the same dependency twice
    n->dependencies.push_back(d);
  }
  n->graph = g;
  if (n->child) {
    nested_.insert(n->child.get());
    enroll(n->child.get());
  }
  *out = n.get();
  nodes_.insert(n.get());
  g->nodes.push_back(std::move(n));
  return cuda::kSuccess;
}

cuda::Error GraphState::destroyNode(Node *n) {
  if (!node(n))
    return cuda::kErrorInvalidValue;
  Graph *g = n->graph;
  for (auto &other : g->nodes)
    std::erase(other->dependencies, n);
  if (n->child) {
    nested_.erase(n->child.get());
    forget(n->child.get());
  }
  nodes_.erase(n);
  std::erase_if(g->nodes, [&](const std::unique_ptr<Node> &p) { return p.get() == n; });
  return cuda::kSuccess;
}

cuda::Error GraphState::kernelNode(Node &n, const void *function, cuda::Dim3 grid, cuda::Dim3 block,
                                   unsigned sharedBytes, void **args, void **extra) {
  std::vector<std::vector<std::byte>> arguments;
  if (cuda::Error e = rt_.kernelArguments(function, args, extra, arguments))
    return e;
  n.type = NodeType::Kernel;
  n.function = function;
  n.grid = grid;
  n.block = block;
  n.sharedBytes = sharedBytes;
  n.arguments = std::move(arguments);
  fixPointers(n);
  return cuda::kSuccess;
}

cuda::Error GraphState::runtimeCopyNode(Node &n, const Memcpy3DParms &p) {
  if (p.kind < cuda::HostToHost || p.kind > cuda::Default)
    return cuda::kErrorInvalidMemcpyDirection;
  if ((p.srcArray && p.srcPtr.ptr) || (p.dstArray && p.dstPtr.ptr))
    return cuda::kErrorInvalidValue;
  // Positions and the width are in elements where a side is an array, else in bytes.
  size_t element = 1;
  auto side = [&](void *array, const Pos &pos, const PitchedPtr &ptr, CopySide &out) -> cuda::Error {
    if (array) {
      size_t w = 0, h = 0, d = 0;
      vm::ChannelFormat format;
      unsigned flags = 0;
      if (cuda::Error e = rt_.arrayDescriptor(array, w, h, d, format, flags))
        return e;
      element = format.elementBytes();
      out.array = array;
      out.x = pos.x * element;
    } else {
      out.pointer = ptr.ptr;
      out.pitch = ptr.pitch;
      out.rows = ptr.ysize;
      out.x = pos.x;
    }
    out.y = pos.y;
    out.z = pos.z;
    return cuda::kSuccess;
  };
  CopyDesc c;
  if (cuda::Error e = side(p.srcArray, p.srcPos, p.srcPtr, c.src))
    return e;
  if (cuda::Error e = side(p.dstArray, p.dstPos, p.dstPtr, c.dst))
    return e;
  c.widthBytes = p.extent.width * element;
  c.height = p.extent.height;
  c.depth = p.extent.depth;
  c.kind = p.kind;
  n.type = NodeType::Memcpy;
  n.copy = c;
  n.runtimeCopy = p;
  n.driverCopy.reset();
  return cuda::kSuccess;
}

cuda::Error GraphState::driverCopyNode(Node &n, const DriverMemcpy3D &p) {
  auto side = [](int type, const void *host, unsigned long long device, void *array, size_t x, size_t y, size_t z,
                 size_t pitch, size_t rows, CopySide &out) -> bool {
    switch (type) {
    case MemoryHost: out.pointer = const_cast<void *>(host); break;
    case MemoryDevice:
    case MemoryUnified: out.pointer = reinterpret_cast<void *>(static_cast<uintptr_t>(device)); break;
    case MemoryArray: out.array = array; break;
    default: return false;
    }
    out.x = x;
    out.y = y;
    out.z = z;
    out.pitch = pitch;
    out.rows = rows;
    return true;
  };
  CopyDesc c;
  if (!side(p.srcMemoryType, p.srcHost, p.srcDevice, p.srcArray, p.srcXInBytes, p.srcY, p.srcZ, p.srcPitch, p.srcHeight,
            c.src) ||
      !side(p.dstMemoryType, p.dstHost, p.dstDevice, p.dstArray, p.dstXInBytes, p.dstY, p.dstZ, p.dstPitch, p.dstHeight,
            c.dst))
    return cuda::kErrorInvalidValue;
  const bool srcHost = p.srcMemoryType == MemoryHost, dstHost = p.dstMemoryType == MemoryHost;
  c.kind = p.srcMemoryType == MemoryUnified || p.dstMemoryType == MemoryUnified ? cuda::Default
           : srcHost && dstHost                                                 ? cuda::HostToHost
           : srcHost                                                            ? cuda::HostToDevice
           : dstHost                                                            ? cuda::DeviceToHost
                                                                                : cuda::DeviceToDevice;
  c.widthBytes = p.WidthInBytes;
  c.height = std::max<size_t>(p.Height, 1);
  c.depth = std::max<size_t>(p.Depth, 1);
  n.type = NodeType::Memcpy;
  n.copy = c;
  n.driverCopy = p;
  n.runtimeCopy.reset();
  return cuda::kSuccess;
}

cuda::Error GraphState::memsetNode(Node &n, const MemsetParams &p) {
  if (p.elementSize != 1 && p.elementSize != 2 && p.elementSize != 4)
    return cuda::kErrorInvalidValue;
  if (p.height > 1 && p.pitch < p.width * p.elementSize)
    return cuda::kErrorInvalidValue;
  n.type = NodeType::Memset;
  n.memset = p;
  return cuda::kSuccess;
}

cuda::Error GraphState::childNode(Node &n, Graph *child) {
  if (!graph(child))
    return cuda::kErrorInvalidValue;
  std::map<const Node *, Node *> mapping;
  n.type = NodeType::Graph;
  n.child = copyGraph(*child, mapping); // the node holds a copy, as CUDA's does
  return cuda::kSuccess;
}

cuda::Error GraphState::nodes(Graph *g, Node **out, size_t *count, bool rootsOnly) {
  if (!graph(g) || !count)
    return cuda::kErrorInvalidValue;
  std::vector<Node *> list;
  for (auto &n : g->nodes)
    if (!rootsOnly || n->dependencies.empty())
      list.push_back(n.get());
  if (out) {
    for (size_t i = 0; i < *count; ++i)
      out[i] = i < list.size() ? list[i] : nullptr;
  }
  *count = list.size();
  return cuda::kSuccess;
}

cuda::Error GraphState::edges(Graph *g, Node **from, Node **to, EdgeData *data, size_t *count) {
  if (!graph(g) || !count || (!from != !to))
    return cuda::kErrorInvalidValue;
  std::vector<std::pair<Node *, Node *>> list;
  for (auto &n : g->nodes)
    for (Node *d : n->dependencies)
      list.push_back({d, n.get()});
  if (from) {
    for (size_t i = 0; i < *count; ++i) {
      from[i] = i < list.size() ? list[i].first : nullptr;
      to[i] = i < list.size() ? list[i].second : nullptr;
      if (data)
        data[i] = {};
    }
  }
  *count = list.size();
  return cuda::kSuccess;
}

cuda::Error GraphState::neighbours(Node *n, Node **out, EdgeData *data, size_t *count, bool dependents) {
  if (!node(n) || !count)
    return cuda::kErrorInvalidValue;
  std::vector<Node *> list;
  if (dependents) {
    for (auto &other : n->graph->nodes)
      if (std::find(other->dependencies.begin(), other->dependencies.end(), n) != other->dependencies.end())
        list.push_back(other.get());
  } else {
    list = n->dependencies;
  }
  if (out)
    for (size_t i = 0; i < *count; ++i) {
      out[i] = i < list.size() ? list[i] : nullptr;
      if (data)
        data[i] = {};
    }
  *count = list.size();
  return cuda::kSuccess;
}

cuda::Error GraphState::addDependencies(Graph *g, Node *const *from, Node *const *to, size_t count, bool remove) {
  if (!graph(g) || (count && (!from || !to)))
    return cuda::kErrorInvalidValue;
  for (size_t i = 0; i < count; ++i) {
    Node *a = node(from[i]), *b = node(to[i]);
    if (!a || !b || a->graph != g || b->graph != g || a == b)
      return cuda::kErrorInvalidValue;
    auto it = std::find(b->dependencies.begin(), b->dependencies.end(), a);
    if (remove) {
      if (it == b->dependencies.end())
        return cuda::kErrorInvalidValue;
      b->dependencies.erase(it);
    } else {
      if (it != b->dependencies.end())
        return cuda::kErrorInvalidValue;
      b->dependencies.push_back(a);
    }
  }
  return cuda::kSuccess;
}

cuda::Error GraphState::dotPrint(Graph *g, const char *path, unsigned /*flags*/) {
  if (!graph(g) || !path)
    return cuda::kErrorInvalidValue;
  std::ofstream out(path);
  if (!out)
    return kErrorOperatingSystem;
  int cluster = 0;
  std::map<const Node *, std::string> names;
  auto write = [&](auto &self, const Graph &graph, const std::string &prefix) -> void {
    int index = 0;
    for (const auto &n : graph.nodes) {
      const std::string name = fmt::format("{}node_{}", prefix, index++);
      names[n.get()] = name;
      std::string label = fmt::format("{}\\n{}", name, typeName(n->type));
      switch (n->type) {
      case NodeType::Kernel: {
        const char *f = rt_.functionName(n->function);
        label += fmt::format("\\n{}\\n<<<({},{},{}), ({},{},{}), {}>>>", f ? f : "?", n->grid.x, n->grid.y, n->grid.z,
                             n->block.x, n->block.y, n->block.z, n->sharedBytes);
        break;
      }
      case NodeType::Memcpy:
        label += fmt::format("\\n{} x {} x {} bytes", n->copy.widthBytes, n->copy.height, n->copy.depth);
        break;
      case NodeType::Memset:
        label += fmt::format("\\nvalue {} x{} bytes, {} x {}", n->memset.value, n->memset.elementSize, n->memset.width,
                             n->memset.height);
        break;
      default: break;
      }
      out << fmt::format("  \"{}\" [shape=box label=\"{}\"];\n", name, label);
      if (n->child) {
        const std::string inner = fmt::format("{}graph_{}_", prefix, cluster);
        out << fmt::format("  subgraph cluster_{} {{\n  label=\"{}\";\n", cluster++, name);
        self(self, *n->child, inner);
        out << "  }\n";
      }
    }
    for (const auto &n : graph.nodes)
      for (const Node *d : n->dependencies)
        out << fmt::format("  \"{}\" -> \"{}\";\n", names[d], names[n.get()]);
  };
  out << "digraph ptxray_graph {\n  compound=true;\n";
  write(write, *g, "");
  out << "}\n";
  out.close();
  return out ? cuda::kSuccess : kErrorOperatingSystem;
}

// ---------------------------------------------------------------------------------------------------
// Executable graphs

cuda::Error GraphState::instantiate(Exec **out, Graph *g) {
  if (!out || !graph(g))
    return cuda::kErrorInvalidValue;
  auto e = std::make_unique<Exec>();
  e->graph = copyGraph(*g, e->nodeOf);
  std::optional<std::vector<Node *>> order = topologicalOrder(*e->graph);
  if (!order)
    return cuda::kErrorInvalidValue;
  e->order = std::move(*order);
  *out = e.get();
  execs_[e.get()] = std::move(e);
  return cuda::kSuccess;
}

cuda::Error GraphState::destroyExec(Exec *e) {
  return execs_.erase(e) ? cuda::kSuccess : cuda::kErrorInvalidValue;
}

Node *GraphState::execNode(Exec *e, Node *n) {
  if (!exec(e))
    return nullptr;
  auto it = e->nodeOf.find(n);
  return it == e->nodeOf.end() ? nullptr : it->second;
}

cuda::Error GraphState::update(Exec *e, Graph *g, UpdateResultInfo *info) {
  if (!exec(e) || !graph(g))
    return cuda::kErrorInvalidValue;
  auto fail = [&](int result, Node *node, Node *from) {
    if (info)
      *info = {result, node, from};
    return kErrorGraphExecUpdateFailure;
  };
  // Nodes pair up in the order they were added; the topology and the node types must be the same.
  const Graph &old = *e->graph;
  if (old.nodes.size() != g->nodes.size())
    return fail(UpdateTopologyChanged, nullptr, nullptr);
  std::map<const Node *, size_t> oldIndex, newIndex;
  for (size_t i = 0; i < old.nodes.size(); ++i) {
    oldIndex[old.nodes[i].get()] = i;
    newIndex[g->nodes[i].get()] = i;
  }
  for (size_t i = 0; i < old.nodes.size(); ++i) {
    const Node &a = *old.nodes[i];
    Node &b = *g->nodes[i];
    if (a.type != b.type)
      return fail(UpdateNodeTypeChanged, &b, nullptr);
    if (a.dependencies.size() != b.dependencies.size())
      return fail(UpdateTopologyChanged, &b, nullptr);
    for (size_t k = 0; k < a.dependencies.size(); ++k)
      if (oldIndex[a.dependencies[k]] != newIndex[b.dependencies[k]])
        return fail(UpdateTopologyChanged, &b, b.dependencies[k]);
  }
  for (size_t i = 0; i < old.nodes.size(); ++i) {
    Node &a = *e->graph->nodes[i];
    const Node &b = *g->nodes[i];
    a.function = b.function;
    a.driverKernel = b.driverKernel;
    a.grid = b.grid;
    a.block = b.block;
    a.sharedBytes = b.sharedBytes;
    a.arguments = b.arguments;
    fixPointers(a);
    a.copy = b.copy;
    a.runtimeCopy = b.runtimeCopy;
    a.driverCopy = b.driverCopy;
    a.memset = b.memset;
    a.host = b.host;
    a.event = b.event;
    if (b.child) {
      std::map<const Node *, Node *> mapping;
      a.child = copyGraph(*b.child, mapping);
    }
    e->nodeOf[&b] = &a;
  }
  if (info)
    *info = {UpdateSuccess, nullptr, nullptr};
  return cuda::kSuccess;
}

cuda::Error GraphState::upload(Exec *e, void *stream) {
  if (!exec(e))
    return cuda::kErrorInvalidValue;
  return rt_.validStream(stream) ? cuda::kSuccess : cuda::kErrorInvalidResourceHandle;
}

cuda::Error GraphState::launch(Exec *e, void *stream, std::unique_lock<std::mutex> &lock) {
  if (!exec(e))
    return cuda::kErrorInvalidValue;
  if (!rt_.validStream(stream))
    return cuda::kErrorInvalidResourceHandle;
  if (Capture *c = captureOf(stream)) {
    // Launched into a capture: the graph becomes a child-graph node of it.
    auto n = std::make_unique<Node>();
    std::map<const Node *, Node *> mapping;
    n->type = NodeType::Graph;
    n->child = copyGraph(*e->graph, mapping);
    return capture(*c, stream, std::move(n));
  }
  if (cuda::Error sticky = rt_.stickyError())
    return sticky;
  rt_.beginGraphLaunch();
  cuda::Error result = run(*e->graph, e->order, stream, lock, /*lanes=*/true);
  rt_.setGraphLane(stream, 0);
  rt_.endGraphLaunch();
  return result;
}

cuda::Error GraphState::run(const Graph &graph, const std::vector<Node *> &order, void *stream,
                            std::unique_lock<std::mutex> &lock, bool lanes) {
  // The nodes run one by one in a topological order (results are exact whatever the order); for the
  // session, each goes to a lane: a node continues the lane of its first dependency when it is that
  // lane's last node, else starts a lane of its own, and waits for its other dependencies' events, so
  // that independent branches overlap on the modeled GPU as they do on a real one. The launch stream
  // waits for every lane at the end.
  std::map<const Node *, unsigned> laneOf;
  std::vector<const Node *> lastOnLane{nullptr}; // lane 0: the launch stream
  if (lanes)
    rt_.recordGraphEvent(stream, 0, &graph);
  for (Node *n : order) {
    if (lanes) {
      unsigned lane = 0;
      const Node *continued = nullptr;
      if (!n->dependencies.empty()) {
        const unsigned first = laneOf.at(n->dependencies.front());
        if (lastOnLane[first] == n->dependencies.front()) {
          lane = first;
          continued = n->dependencies.front();
        }
      } else if (!lastOnLane[0] && laneOf.empty()) {
        continued = &*n; // the first root continues the launch stream
      }
      if (!continued) {
        lane = static_cast<unsigned>(lastOnLane.size());
        lastOnLane.push_back(nullptr);
        if (n->dependencies.empty())
          rt_.recordGraphWait(stream, lane, &graph); // a root: after the work before the launch
      }
      for (const Node *d : n->dependencies)
        if (d != continued)
          rt_.recordGraphWait(stream, lane, d);
      rt_.setGraphLane(stream, lane);
      laneOf[n] = lane;
      lastOnLane[lane] = n;
    }
    cuda::Error e = cuda::kSuccess;
    switch (n->type) {
    case NodeType::Kernel:
      e = rt_.launch(n->function, n->grid, n->block, n->pointers.data(), n->sharedBytes, stream);
      break;
    case NodeType::Memcpy: e = runCopy(n->copy, stream); break;
    case NodeType::Memset: {
      const MemsetParams &m = n->memset;
      for (size_t row = 0; row < std::max<size_t>(m.height, 1) && !e; ++row)
        e = rt_.streamMemset(static_cast<std::byte *>(m.dst) + row * m.pitch, m.value, m.elementSize, m.width, stream,
                             false);
      break;
    }
    case NodeType::Host: {
      // Outside the runtime's lock, as cudaLaunchHostFunc runs it, after everything before it.
      lock.unlock();
      n->host.fn(n->host.userData);
      lock.lock();
      break;
    }
    case NodeType::Graph: {
      std::optional<std::vector<Node *>> inner = topologicalOrder(*n->child);
      e = inner ? run(*n->child, *inner, stream, lock) : cuda::kErrorInvalidValue;
      break;
    }
    case NodeType::Empty: break;
    case NodeType::WaitEvent: e = rt_.streamWaitEvent(stream, n->event); break;
    case NodeType::EventRecord:
      e = rt_.eventRecord(n->event, stream);
      if (!e)
        rt_.recordEventRecord(n->event, stream);
      break;
    }
    if (lanes) {
      rt_.setGraphLane(stream, laneOf[n]);
      rt_.recordGraphEvent(stream, laneOf[n], n);
      rt_.setGraphLane(stream, 0);
    }
    if (e)
      return e;
  }
  if (lanes)
    for (unsigned lane = 1; lane < lastOnLane.size(); ++lane)
      if (lastOnLane[lane])
        rt_.recordGraphWait(stream, 0, lastOnLane[lane]);
  return cuda::kSuccess;
}

cuda::Error GraphState::runCopy(const CopyDesc &c, void *stream) {
  if (!rt_.validStream(stream))
    return cuda::kErrorInvalidResourceHandle;
  if (c.widthBytes == 0 || c.height == 0 || c.depth == 0)
    return cuda::kSuccess;
  auto address = [&](const CopySide &s, size_t z) {
    return static_cast<std::byte *>(s.pointer) + (s.z + z) * s.pitch * s.rows + s.y * s.pitch + s.x;
  };
  if (c.src.array && c.dst.array)
    return cuda::kErrorNotSupported;
  if (c.src.array || c.dst.array) {
    const CopySide &array = c.src.array ? c.src : c.dst, &linear = c.src.array ? c.dst : c.src;
    uint64_t base = 0;
    size_t rowBytes = 0, rows = 0;
    if (cuda::Error e = rt_.arrayLayout(array.array, base, rowBytes, rows))
      return e;
    for (size_t z = 0; z < c.depth; ++z)
      if (cuda::Error e = rt_.memcpyArray(array.array, array.x, (array.z + z) * rows + array.y, address(linear, z),
                                          linear.pitch ? linear.pitch : c.widthBytes, c.widthBytes, c.height, c.kind,
                                          c.dst.array != nullptr))
        return e;
    return cuda::kSuccess;
  }
  if (c.height == 1 && c.depth == 1)
    return rt_.streamCopy(address(c.dst, 0), address(c.src, 0), c.widthBytes, c.kind, stream, false);
  for (size_t z = 0; z < c.depth; ++z) {
    if (cuda::Error e = rt_.memcpy2D(address(c.dst, z), c.dst.pitch, address(c.src, z), c.src.pitch, c.widthBytes,
                                     c.height, c.kind))
      return e;
    rt_.recordCopy(address(c.dst, z), c.dst.pitch, address(c.src, z), c.src.pitch, c.widthBytes, c.height, stream,
                   false);
  }
  return cuda::kSuccess;
}

// ---------------------------------------------------------------------------------------------------
// Stream capture

Capture *GraphState::captureOf(void *stream) {
  auto it = capturing_.find(stream);
  return it == capturing_.end() ? nullptr : it->second;
}

cuda::Error GraphState::beginCapture(void *stream, int mode) {
  if (mode < ModeGlobal || mode > ModeRelaxed)
    return cuda::kErrorInvalidValue;
  if (isLegacyStream(stream))
    return kErrorStreamCaptureUnsupported;
  if (!rt_.validStream(stream))
    return cuda::kErrorInvalidResourceHandle;
  if (captureOf(stream))
    return kErrorIllegalState;
  auto c = std::make_unique<Capture>();
  c->id = nextCaptureId_++;
  Graph *g = nullptr;
  createGraph(&g);
  c->graph = g;
  c->origin = stream;
  c->mode = mode;
  c->thread = std::this_thread::get_id();
  c->streams[stream] = {};
  capturing_[stream] = c.get();
  captures_.push_back(std::move(c));
  return cuda::kSuccess;
}

void GraphState::endOf(Capture *c) {
  for (auto &[stream, deps] : c->streams)
    capturing_.erase(stream);
  std::erase_if(events_, [&](const auto &e) { return e.second.capture == c; });
  std::erase_if(captures_, [&](const std::unique_ptr<Capture> &p) { return p.get() == c; });
}

cuda::Error GraphState::endCapture(void *stream, Graph **out) {
  if (!out)
    return cuda::kErrorInvalidValue;
  Capture *c = captureOf(stream);
  if (!c)
    return kErrorIllegalState;
  if (c->origin != stream) {
    c->invalidated = true;
    return kErrorStreamCaptureUnmatched;
  }
  if (c->mode != ModeRelaxed && c->thread != std::this_thread::get_id())
    return kErrorStreamCaptureWrongThread;
  // Every stream forked from the origin must have joined it again: its last work is among what the
  // origin's next work would wait for.
  bool joined = true;
  if (!c->invalidated) {
    const std::set<const Node *> reached = ancestors(c->streams[c->origin]);
    for (auto &[s, deps] : c->streams)
      for (const Node *n : deps)
        joined = joined && reached.count(n);
  }
  Graph *g = c->graph;
  const bool invalidated = c->invalidated;
  endOf(c);
  if (invalidated || !joined) {
    destroyGraph(g);
    *out = nullptr;
    return invalidated ? kErrorStreamCaptureInvalidated : kErrorStreamCaptureUnjoined;
  }
  *out = g;
  return cuda::kSuccess;
}

cuda::Error GraphState::captureInfo(void *stream, int *status, unsigned long long *id, Graph **graph,
                                    Node *const **dependencies, const EdgeData **edgeData, size_t *count) {
  if (!status)
    return cuda::kErrorInvalidValue;
  if (!rt_.validStream(stream))
    return cuda::kErrorInvalidResourceHandle;
  Capture *c = captureOf(stream);
  if (!c) {
    *status = StatusNone;
    return cuda::kSuccess;
  }
  *status = c->invalidated ? StatusInvalidated : StatusActive;
  if (id)
    *id = c->id;
  if (graph)
    *graph = c->graph;
  std::vector<Node *> &deps = c->streams[stream];
  if (dependencies)
    *dependencies = deps.data();
  if (edgeData) {
    c->edgeData.assign(deps.size(), EdgeData{});
    *edgeData = c->edgeData.data();
  }
  if (count)
    *count = deps.size();
  return cuda::kSuccess;
}

cuda::Error GraphState::exchangeMode(int *mode) {
  if (!mode || *mode < ModeGlobal || *mode > ModeRelaxed)
    return cuda::kErrorInvalidValue;
  std::swap(*mode, tCaptureMode);
  return cuda::kSuccess;
}

cuda::Error GraphState::capture(Capture &c, void *stream, std::unique_ptr<Node> n) {
  if (c.invalidated)
    return kErrorStreamCaptureInvalidated;
  std::vector<Node *> &deps = c.streams[stream];
  n->graph = c.graph;
  n->dependencies = deps;
  if (n->child) {
    nested_.insert(n->child.get());
    enroll(n->child.get());
  }
  nodes_.insert(n.get());
  deps = {n.get()};
  c.graph->nodes.push_back(std::move(n));
  return cuda::kSuccess;
}

std::optional<cuda::Error> GraphState::eventRecord(void *event, void *stream) {
  Capture *c = captureOf(stream);
  if (!c) {
    events_.erase(event);
    return std::nullopt;
  }
  if (rt_.eventQuery(event) == cuda::kErrorInvalidResourceHandle)
    return cuda::kErrorInvalidResourceHandle;
  if (c->invalidated)
    return kErrorStreamCaptureInvalidated;
  events_[event] = {c, c->streams[stream]};
  return cuda::kSuccess;
}

std::optional<cuda::Error> GraphState::waitEvent(void *stream, void *event) {
  auto it = events_.find(event);
  Capture *c = captureOf(stream);
  if (it == events_.end())
    // An event recorded outside any capture has completed (work runs when issued): nothing to wait for.
    return c ? std::optional<cuda::Error>(c->invalidated ? kErrorStreamCaptureInvalidated : cuda::kSuccess)
             : std::nullopt;
  Capture *from = it->second.capture;
  if (c && c != from)
    return kErrorStreamCaptureMerge;
  if (!rt_.validStream(stream))
    return cuda::kErrorInvalidResourceHandle;
  if (isLegacyStream(stream))
    return kErrorStreamCaptureUnsupported;
  if (from->invalidated)
    return kErrorStreamCaptureInvalidated;
  // The stream joins the capture (or, already in it, waits for the event's work too).
  std::vector<Node *> &deps = from->streams[stream];
  for (Node *n : it->second.dependencies)
    if (std::find(deps.begin(), deps.end(), n) == deps.end())
      deps.push_back(n);
  capturing_[stream] = from;
  return cuda::kSuccess;
}

std::optional<cuda::Error> GraphState::unsafeCall(bool legacyStreamWork) {
  if (captures_.empty() || tCaptureMode == ModeRelaxed)
    return std::nullopt;
  // Work on the legacy stream (cudaMemcpy, cudaMemset) synchronizes implicitly only with blocking
  // streams: captures of non-blocking streams alone let it run (as an H200 does, validation/programs).
  auto implicitlySynchronized = [&](const Capture &c) {
    return std::any_of(c.streams.begin(), c.streams.end(),
                       [&](const auto &s) { return !rt_.nonBlockingStream(s.first); });
  };
  // Global: the thread's own captures (but relaxed ones) and other threads' global captures forbid it;
  // thread-local: only the thread's own.
  const std::thread::id self = std::this_thread::get_id();
  bool forbidden = false;
  for (const auto &c : captures_) {
    const bool own = c->thread == self && c->mode != ModeRelaxed;
    const bool other = c->thread != self && c->mode == ModeGlobal && tCaptureMode == ModeGlobal;
    if ((own || other) && (!legacyStreamWork || implicitlySynchronized(*c))) {
      c->invalidated = true;
      forbidden = true;
    }
  }
  // Legacy-stream work a blocking capturing stream would have to wait for: CUDA's own error for it.
  const cuda::Error error = legacyStreamWork ? kErrorStreamCaptureImplicit : kErrorStreamCaptureUnsupported;
  return forbidden ? std::optional<cuda::Error>(error) : std::nullopt;
}

} // namespace graphs

// ---------------------------------------------------------------------------------------------------
// Runtime's hooks

graphs::GraphState &Runtime::graphs() {
  if (!graphs_)
    graphs_ = std::make_unique<graphs::GraphState>(*this);
  return *graphs_;
}

bool Runtime::capturing(void *stream) {
  return graphs_ && graphs_->captureOf(stream);
}

cuda::Error Runtime::kernelArguments(const void *hostFunction, void **args, void **extra,
                                     std::vector<std::vector<std::byte>> &arguments) {
  RegisteredFunction *f = function(hostFunction);
  if (!f)
    return cuda::kErrorInvalidDeviceFunction;
  vm::LoadedModule *m = nullptr;
  const vm::DecodedFunction *kernel = nullptr;
  if (cuda::Error e = kernelOf(*f, m, kernel))
    return e;
  return packArguments(*kernel, args, extra, arguments);
}

std::optional<cuda::Error> Runtime::captureLaunch(const void *hostFunction, cuda::Dim3 grid, cuda::Dim3 block,
                                                  void **args, size_t sharedBytes, void *stream, void **extra,
                                                  bool cooperative) {
  graphs::Capture *c = graphs_ ? graphs_->captureOf(stream) : nullptr;
  if (!c)
    return std::nullopt;
  if (c->invalidated)
    return graphs::kErrorStreamCaptureInvalidated;
  (void)cooperative;
  auto n = std::make_unique<graphs::Node>();
  if (cuda::Error e =
          graphs_->kernelNode(*n, hostFunction, grid, block, static_cast<unsigned>(sharedBytes), args, extra))
    return e;
  return graphs_->capture(*c, stream, std::move(n));
}

std::optional<cuda::Error> Runtime::captureCopy(void *dst, const void *src, size_t bytes, int kind, void *stream,
                                                bool synchronous) {
  if (!graphs_ || !graphs_->anyCapture())
    return std::nullopt;
  if (synchronous && !graphs_->captureOf(stream))
    return graphs_->unsafeCall(true);
  if (synchronous)
    return graphs_->unsafeCall();
  graphs::Capture *c = graphs_->captureOf(stream);
  if (!c)
    return std::nullopt;
  if (kind < cuda::HostToHost || kind > cuda::Default)
    return cuda::kErrorInvalidMemcpyDirection;
  auto n = std::make_unique<graphs::Node>();
  n->type = graphs::NodeType::Memcpy;
  n->copy.src.pointer = const_cast<void *>(src);
  n->copy.dst.pointer = dst;
  n->copy.src.pitch = n->copy.dst.pitch = bytes;
  n->copy.src.rows = n->copy.dst.rows = 1;
  n->copy.widthBytes = bytes;
  n->copy.kind = kind;
  graphs::Memcpy3DParms p{};
  p.srcPtr = {const_cast<void *>(src), bytes, bytes, 1};
  p.dstPtr = {dst, bytes, bytes, 1};
  p.extent = {bytes, 1, 1};
  p.kind = kind;
  n->runtimeCopy = p;
  return graphs_->capture(*c, stream, std::move(n));
}

std::optional<cuda::Error> Runtime::captureMemset(void *pointer, uint32_t value, unsigned width, size_t count,
                                                  void *stream, bool synchronous) {
  if (!graphs_ || !graphs_->anyCapture())
    return std::nullopt;
  if (synchronous && !graphs_->captureOf(stream))
    return graphs_->unsafeCall(true);
  if (synchronous)
    return graphs_->unsafeCall();
  graphs::Capture *c = graphs_->captureOf(stream);
  if (!c)
    return std::nullopt;
  auto n = std::make_unique<graphs::Node>();
  if (cuda::Error e = graphs_->memsetNode(*n, {pointer, count * width, value, width, count, 1}))
    return e;
  return graphs_->capture(*c, stream, std::move(n));
}

std::optional<cuda::Error> Runtime::captureEventRecord(void *event, void *stream) {
  return graphs_ ? graphs_->eventRecord(event, stream) : std::nullopt;
}

std::optional<cuda::Error> Runtime::captureWaitEvent(void *stream, void *event) {
  return graphs_ && graphs_->anyCapture() ? graphs_->waitEvent(stream, event) : std::nullopt;
}

std::optional<cuda::Error> Runtime::captureHostFunction(void *stream, void (*function)(void *), void *data) {
  graphs::Capture *c = graphs_ ? graphs_->captureOf(stream) : nullptr;
  if (!c)
    return std::nullopt;
  if (!function)
    return cuda::kErrorInvalidValue;
  auto n = std::make_unique<graphs::Node>();
  n->type = graphs::NodeType::Host;
  n->host = {function, data};
  return graphs_->capture(*c, stream, std::move(n));
}

std::optional<cuda::Error> Runtime::captureSynchronize() {
  return graphs_ ? graphs_->unsafeCall() : std::nullopt;
}

} // namespace ptxray::runtime
