// Dynamic parallelism: a quadtree built by recursive launches, with the device runtime's streams,
// events and memory. Points (a fixed pseudo-random set, half of them in one cluster, so the tree is
// uneven) are split recursively: a node's block counts its points per quadrant and moves them into
// the quadrants' ranges of the other buffer, and its thread 0 launches a grid of four blocks, one per
// child, unless the node holds at most kLeafPoints points or is kMaxDepth deep. A root grid launched by
// the host starts the build in a stream of its own, records an event there, and a second stream waits
// for the event before a grid checks the finished tree; a tail launch frees the check's scratch
// (device-side cudaMalloc and cudaFree) and reports. Prints the tree's shape per depth, which the
// order the GPU ran the blocks in cannot change, and whether every point lies in exactly one leaf
// whose square holds it.
#include <cstdio>
#include <cuda_runtime.h>

constexpr int kPoints = 8192, kLeafPoints = 32, kMaxDepth = 8, kMaxNodes = 16384, kThreads = 128;

struct Node {
  float x0, y0, size;
  int begin, end; // the node's points: [begin, end) of the buffer of its depth's parity
  int depth;
  int firstChild; // -1: a leaf
};

__device__ int nodeCount;
__device__ int nodesAtDepth[kMaxDepth + 1], leavesAtDepth[kMaxDepth + 1], leafPointsAtDepth[kMaxDepth + 1];
__device__ int pointsInLeaves, pointsOutside;
__device__ unsigned long long leafChecksum;
__device__ int runtimeErrors, deviceSeen, deviceCountSeen;

__device__ int quadrant(float2 p, float midX, float midY) {
  return (p.x >= midX ? 1 : 0) + (p.y >= midY ? 2 : 0);
}

// One block per node: nodes[first + blockIdx.x], its points in `in`.
__global__ void build(Node *nodes, float2 *in, float2 *out, int first) {
  Node &n = nodes[first + blockIdx.x];
  __shared__ int counts[4], cursors[4];
  __shared__ bool leaf;
  const int t = threadIdx.x;
  if (t == 0) {
    atomicAdd(&nodesAtDepth[n.depth], 1);
    leaf = n.end - n.begin <= kLeafPoints || n.depth == kMaxDepth;
  }
  if (t < 4)
    counts[t] = 0;
  __syncthreads();
  if (leaf) {
    if (t == 0) {
      n.firstChild = -1;
      atomicAdd(&leavesAtDepth[n.depth], 1);
      atomicAdd(&leafPointsAtDepth[n.depth], n.end - n.begin);
    }
    return;
  }
  const float half = n.size * 0.5f, midX = n.x0 + half, midY = n.y0 + half;
  for (int i = n.begin + t; i < n.end; i += blockDim.x)
    atomicAdd(&counts[quadrant(in[i], midX, midY)], 1);
  __syncthreads();
  if (t == 0) {
    int at = n.begin;
    for (int q = 0; q < 4; ++q) {
      cursors[q] = at;
      at += counts[q];
    }
  }
  __syncthreads();
  for (int i = n.begin + t; i < n.end; i += blockDim.x) {
    const float2 p = in[i];
    out[atomicAdd(&cursors[quadrant(p, midX, midY)], 1)] = p;
  }
  __syncthreads();
  if (t == 0) {
    const int children = atomicAdd(&nodeCount, 4);
    if (children + 4 > kMaxNodes) { // out of nodes: the node stays a leaf (it does not happen here)
      atomicAdd(&runtimeErrors, 1);
      return;
    }
    int at = n.begin;
    for (int q = 0; q < 4; ++q) {
      Node c;
      c.x0 = q & 1 ? midX : n.x0;
      c.y0 = q & 2 ? midY : n.y0;
      c.size = half;
      c.begin = at;
      c.end = at + counts[q];
      c.depth = n.depth + 1;
      c.firstChild = -2;
      nodes[children + q] = c;
      at = c.end;
    }
    n.firstChild = children;
    build<<<4, kThreads>>>(nodes, out, in, children);
    if (cudaGetLastError() != cudaSuccess)
      atomicAdd(&runtimeErrors, 1);
  }
}

// Every node: a leaf's points must lie in its square, in the buffer of its depth's parity.
__global__ void check(const Node *nodes, const float2 *even, const float2 *odd, int *scratch) {
  const int count = nodeCount;
  int inside = 0, outside = 0;
  unsigned long long sum = 0;
  for (int k = threadIdx.x; k < count; k += blockDim.x) {
    const Node n = nodes[k];
    if (n.firstChild != -1)
      continue;
    const float2 *points = n.depth % 2 ? odd : even;
    for (int i = n.begin; i < n.end; ++i) {
      const float2 p = points[i];
      const bool in = p.x >= n.x0 && p.x < n.x0 + n.size && p.y >= n.y0 && p.y < n.y0 + n.size;
      inside += in;
      outside += !in;
      sum += static_cast<unsigned long long>(p.x * 1048576.0f) * 3 + static_cast<unsigned long long>(p.y * 1048576.0f);
    }
  }
  scratch[threadIdx.x * 2] = inside;
  scratch[threadIdx.x * 2 + 1] = outside;
  atomicAdd(&leafChecksum, sum);
}

// The tail launch: after the whole tree and the check. Adds up the check's scratch and frees it.
__global__ void finish(int *scratch) {
  int inside = 0, outside = 0;
  for (int t = 0; t < kThreads; ++t) {
    inside += scratch[t * 2];
    outside += scratch[t * 2 + 1];
  }
  pointsInLeaves = inside;
  pointsOutside = outside;
  if (cudaFree(scratch) != cudaSuccess)
    atomicAdd(&runtimeErrors, 1);
  int device = -1, devices = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceCount(&devices) != cudaSuccess)
    atomicAdd(&runtimeErrors, 1);
  deviceSeen = device;
  deviceCountSeen = devices;
}

__global__ void root(Node *nodes, float2 *even, float2 *odd) {
  cudaStream_t buildStream, checkStream;
  cudaEvent_t built;
  int *scratch = nullptr;
  if (cudaStreamCreateWithFlags(&buildStream, cudaStreamNonBlocking) != cudaSuccess ||
      cudaStreamCreateWithFlags(&checkStream, cudaStreamNonBlocking) != cudaSuccess ||
      cudaEventCreateWithFlags(&built, cudaEventDisableTiming) != cudaSuccess ||
      cudaMalloc(reinterpret_cast<void **>(&scratch), kThreads * 2 * sizeof(int)) != cudaSuccess) {
    atomicAdd(&runtimeErrors, 1);
    return;
  }
  nodeCount = 1;
  build<<<1, kThreads, 0, buildStream>>>(nodes, even, odd, 0);
  cudaEventRecord(built, buildStream);
  cudaStreamWaitEvent(checkStream, built, 0);
  check<<<1, kThreads, 0, checkStream>>>(nodes, even, odd, scratch);
  finish<<<1, 1, 0, cudaStreamTailLaunch>>>(scratch);
  if (cudaGetLastError() != cudaSuccess)
    atomicAdd(&runtimeErrors, 1);
  cudaEventDestroy(built);
  cudaStreamDestroy(buildStream);
  cudaStreamDestroy(checkStream);
}

int main() {
  // The points: half uniform over the unit square, half in a cluster around (0.3, 0.7).
  static float2 host[kPoints];
  unsigned state = 12345;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.0f;
  };
  for (int i = 0; i < kPoints; ++i) {
    if (i % 2 == 0) {
      host[i] = make_float2(next(), next());
    } else {
      const float dx = (next() + next() + next() - 1.5f) * 0.05f, dy = (next() + next() + next() - 1.5f) * 0.05f;
      host[i] = make_float2(0.3f + dx, 0.7f + dy);
    }
  }
  Node first{0.0f, 0.0f, 1.0f, 0, kPoints, 0, -2};
  Node *nodes;
  float2 *even, *odd;
  cudaMalloc(&nodes, kMaxNodes * sizeof(Node));
  cudaMalloc(&even, kPoints * sizeof(float2));
  cudaMalloc(&odd, kPoints * sizeof(float2));
  cudaMemcpy(nodes, &first, sizeof(Node), cudaMemcpyHostToDevice);
  cudaMemcpy(even, host, sizeof(host), cudaMemcpyHostToDevice);
  root<<<1, 1>>>(nodes, even, odd);
  const cudaError_t launched = cudaGetLastError(), done = cudaDeviceSynchronize();
  std::printf("launch: %s, synchronize: %s\n", cudaGetErrorString(launched), cudaGetErrorString(done));
  int count = 0, errors = 0, inside = 0, outside = 0, device = 0, devices = 0;
  int nodesAt[kMaxDepth + 1], leavesAt[kMaxDepth + 1], pointsAt[kMaxDepth + 1];
  unsigned long long checksum = 0;
  cudaMemcpyFromSymbol(&count, nodeCount, sizeof(int));
  cudaMemcpyFromSymbol(&errors, runtimeErrors, sizeof(int));
  cudaMemcpyFromSymbol(&inside, pointsInLeaves, sizeof(int));
  cudaMemcpyFromSymbol(&outside, pointsOutside, sizeof(int));
  cudaMemcpyFromSymbol(&device, deviceSeen, sizeof(int));
  cudaMemcpyFromSymbol(&devices, deviceCountSeen, sizeof(int));
  cudaMemcpyFromSymbol(&checksum, leafChecksum, sizeof(checksum));
  cudaMemcpyFromSymbol(nodesAt, nodesAtDepth, sizeof(nodesAt));
  cudaMemcpyFromSymbol(leavesAt, leavesAtDepth, sizeof(leavesAt));
  cudaMemcpyFromSymbol(pointsAt, leafPointsAtDepth, sizeof(pointsAt));
  int leaves = 0, deepest = 0;
  for (int d = 0; d <= kMaxDepth; ++d) {
    leaves += leavesAt[d];
    if (nodesAt[d])
      deepest = d;
  }
  std::printf("quadtree of %d points: %d nodes, %d leaves, %d levels below the root\n", kPoints, count, leaves,
              deepest);
  for (int d = 0; d <= deepest; ++d)
    std::printf("depth %d: %4d nodes, %4d leaves holding %4d points\n", d, nodesAt[d], leavesAt[d], pointsAt[d]);
  std::printf("points in leaves: %d inside their square, %d outside\n", inside, outside);
  std::printf("leaf checksum %llx\n", checksum);
  std::printf("device runtime: device %d of %d, %d errors\n", device, devices, errors);
  cudaFree(nodes);
  cudaFree(even);
  cudaFree(odd);
  return inside == kPoints && outside == 0 && errors == 0 ? 0 : 1;
}
