// A session: what a program's host thread asks of its GPUs, in issue order (copies, memsets, kernel
// launches, events, synchronizations), each on a CUDA stream of one device. It comes from a run spec's "operations"
// (SessionFromSpec.h) or from a program running on ptxray's CUDA runtime. The kernels' durations are
// the performance model's estimates: the system model (SystemModel.h) only places them in time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ptxray::system {

enum class OpKind : uint8_t {
  CopyH2D,           ///< host to device over PCIe (a copy engine)
  CopyD2H,           ///< device to host over PCIe
  CopyPeer,          ///< from one GPU's memory to another's (cudaMemcpyPeer), over PCIe
  CopyD2D,           ///< device to device (DRAM to DRAM, on the GPU)
  Memset,            ///< device memory set (on the GPU)
  Kernel,            ///< a launch
  EventRecord,       ///< completes when its stream's earlier work has
  StreamWaitEvent,   ///< its stream's later work waits for an event
  StreamSynchronize, ///< the host waits for a stream's earlier work
  Synchronize,       ///< the host waits for all earlier work
};

const char *opKindName(OpKind kind); ///< "memcpy_h2d", "launch", ... as run specs spell them

enum class HostMemory : uint8_t { Pinned, Pageable };

inline constexpr size_t kNoOp = std::numeric_limits<size_t>::max();

struct SessionOp {
  OpKind kind = OpKind::Kernel;
  /// The CUDA device whose stream the operation is on (0, 1, ...; a dual-GPU board is two devices).
  unsigned device = 0;
  /// A stream of `device`; 0: that device's legacy default stream (it waits for all earlier work on
  /// the device, and all later work on the device waits for it).
  unsigned stream = 0;
  /// CopyPeer: the devices the bytes leave and reach (one of them is `device`).
  unsigned fromDevice = 0, toDevice = 0;
  std::string label; ///< "hA -> dA", "hypot<<<128, 256>>>"
  std::string where; ///< the spec path ("operations[3]") or call site it came from
  uint64_t bytes = 0;
  HostMemory hostMemory = HostMemory::Pinned; ///< CopyH2D, CopyD2H
  /// 2D copies (cudaMemcpy2D): rows of bytes / rows bytes each, and the pitches of the two sides.
  uint64_t rows = 1;
  uint64_t hostPitch = 0, devicePitch = 0;
  /// Kernels: the time the launch takes alone on the GPU (launch overhead included), and the share
  /// of the GPU's SMs its first wave fills (blocks / (blocks per SM x SMs), at most 1): kernels that
  /// together fill no more than the GPU run side by side at full speed.
  double kernelSeconds = 0;
  double gpuShare = 1;
  /// Kernels: the grids its threads launched (dynamic parallelism), each from when it begins until
  /// its own grid ends, after the kernel began; kernelSeconds lasts until the last of them is done.
  struct ChildGridSlice {
    std::string label;      ///< "child<<<4, 32>>>"
    std::string launchedBy; ///< the launching grid's label
    uint32_t depth = 1;
    double startSeconds = 0, endSeconds = 0;
  };
  std::vector<ChildGridSlice> childGrids;
  /// Kernels: host time the launch call spends loading code first (CUDA's lazy module loading: the
  /// first launch of a module's kernel loads the module, of each kernel its function).
  double loadSeconds = 0;
  /// Work a graph launch (cudaGraphLaunch) issued: one call hands the GPU all of it, so only the
  /// graph's first operation costs the host a call (`graphLaunchCall`); the rest cost nothing.
  bool graphNode = false;
  /// On a stream created with cudaStreamNonBlocking: it does not synchronize with the legacy stream.
  bool nonBlocking = false;
  bool graphLaunchCall = false;
  size_t event = kNoOp;                                   ///< StreamWaitEvent: the EventRecord operation it waits for
  bool isCopy() const { return kind <= OpKind::CopyD2H; } ///< between host and device memory
  bool usesCopyEngine() const { return kind <= OpKind::CopyPeer; }
  bool isGpuWork() const { return kind <= OpKind::Kernel; }
};

/// An NVTX range or mark the program's host code annotated its work with (nvtxRangePush/Pop,
/// nvtxRangeStart/End, nvtxMark, their domain variants): where it begins and ends in the program's
/// sequence of operations, which places it on the host's timeline however the operations move.
struct NvtxRange {
  std::string name;   ///< the message ("" when none was given)
  std::string domain; ///< "" for NVTX's default domain
  /// Positions in Session::ops: the number of operations the host had issued when the range began
  /// and when it ended (equal for a mark, or for a range around no API call).
  size_t begin = 0, end = 0;
  unsigned depth = 0;  ///< push/pop nesting on its thread (0: outermost); 0 for start/end ranges
  uint32_t color = 0;  ///< ARGB as the program gave it, 0 for none
  bool mark = false;   ///< an instant (nvtxMark), not a range
  bool pushPop = true; ///< nvtxRangePush/Pop (thread-local, nested), else nvtxRangeStart/End
  uint64_t thread = 0; ///< the host thread (its OS id), for push/pop ranges
};

/// The API a program's calls came through: what its streams are called (CUDA streams, OpenCL
/// command queues) and how the advice about them is worded.
enum class HostApi : uint8_t { Cuda, OpenCL };

struct Session {
  std::vector<SessionOp> ops;
  HostApi api = HostApi::Cuda;
  /// A session that continues a longer one from a quiet point (nothing running, the host about to
  /// issue: the modeled clock's checkpoints): the time it starts at, and the (device, stream) pairs in
  /// the order the earlier operations first used them, which gives the streams their connections.
  double startSeconds = 0;
  std::vector<std::pair<unsigned, unsigned>> streamOrder{};
  std::vector<NvtxRange> ranges{}; ///< NVTX ranges and marks, in the order they ended
};

} // namespace ptxray::system
