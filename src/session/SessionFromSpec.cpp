#include "session/SessionFromSpec.h"

#include "system/KernelOperation.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

namespace ptxray::session {

namespace {

std::string bytesText(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 20) && bytes % (uint64_t{1} << 10) == 0)
    return fmt::format("{:.4g} MiB", static_cast<double>(bytes) / (1 << 20));
  if (bytes >= (uint64_t{1} << 10) && bytes % (uint64_t{1} << 10) == 0)
    return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

} // namespace

system::Session sessionFromSpec(const RunSpec &spec, std::span<const model::LaunchProfile> profiles, int smCount) {
  using SK = SpecOperation::Kind;
  system::Session session;
  std::unordered_map<std::string, size_t> lastRecord; // event -> its last EventRecord operation
  session.ops.reserve(spec.operations.size());
  // The spec's launches, in order: the host's (a launch tree's child grids follow their root).
  std::vector<const model::LaunchProfile *> hostLaunches;
  for (const model::LaunchProfile &p : profiles)
    if (p.depth == 0)
      hostLaunches.push_back(&p);
  for (const SpecOperation &s : spec.operations) {
    system::SessionOp op;
    op.stream = s.stream;
    op.device = s.device;
    op.where = s.path;
    op.bytes = s.bytes;
    auto hostMemoryOf = [&](const std::string &name) {
      const SpecBuffer *b = spec.findBuffer(name);
      return b && b->memory == BufferMemory::Pageable ? system::HostMemory::Pageable : system::HostMemory::Pinned;
    };
    auto onHost = [&](const std::string &name) {
      const SpecBuffer *b = spec.findBuffer(name);
      return b && b->onHost();
    };
    auto deviceOf = [&](const std::string &name) {
      const SpecBuffer *b = spec.findBuffer(name);
      return b ? b->device : 0u;
    };
    // A copy between two devices' memory crosses PCIe (cudaMemcpyPeer); within one it is a D2D copy.
    auto deviceToDevice = [&] {
      op.fromDevice = deviceOf(s.src);
      op.toDevice = deviceOf(s.dst);
      op.kind = op.fromDevice == op.toDevice ? system::OpKind::CopyD2D : system::OpKind::CopyPeer;
    };
    switch (s.kind) {
    case SK::MemcpyH2D:
      op.kind = system::OpKind::CopyH2D;
      op.hostMemory = hostMemoryOf(s.src);
      op.label = fmt::format("{} -> {} ({})", s.src, s.dst, bytesText(s.bytes));
      break;
    case SK::MemcpyD2H:
      op.kind = system::OpKind::CopyD2H;
      op.hostMemory = hostMemoryOf(s.dst);
      op.label = fmt::format("{} -> {} ({})", s.src, s.dst, bytesText(s.bytes));
      break;
    case SK::MemcpyD2D:
      deviceToDevice();
      op.label = fmt::format("{} -> {} ({})", s.src, s.dst, bytesText(s.bytes));
      break;
    case SK::Memcpy2D: {
      const bool fromHost = onHost(s.src), toHost = onHost(s.dst);
      if (fromHost && toHost)
        continue; // host to host: the runtime copies on the host, no GPU work
      op.kind = fromHost ? system::OpKind::CopyH2D : system::OpKind::CopyD2H;
      if (!fromHost && !toHost)
        deviceToDevice();
      op.hostMemory = hostMemoryOf(fromHost ? s.src : s.dst);
      op.rows = s.height;
      op.hostPitch = fromHost ? s.srcPitch : s.dstPitch;
      op.devicePitch = fromHost ? s.dstPitch : s.srcPitch;
      op.label = fmt::format("{} -> {} (2D: {} rows of {} B)", s.src, s.dst, s.height, s.width);
      break;
    }
    case SK::Memset:
      op.kind = system::OpKind::Memset;
      op.label = fmt::format("{} = 0x{:02x} ({})", s.dst, s.value, bytesText(s.bytes));
      break;
    case SK::Launch: {
      if (s.launch >= hostLaunches.size())
        return session; // the run stopped before this launch
      std::string where = op.where;
      op = system::kernelOperation(*hostLaunches[s.launch], s.stream, smCount);
      op.where = where;
      op.device = s.device;
      break;
    }
    case SK::EventRecord:
      op.kind = system::OpKind::EventRecord;
      op.label = s.event;
      lastRecord.insert_or_assign(s.event, session.ops.size());
      break;
    case SK::StreamWaitEvent:
      op.kind = system::OpKind::StreamWaitEvent;
      op.label = s.event;
      if (auto it = lastRecord.find(s.event); it != lastRecord.end())
        op.event = it->second;
      break;
    case SK::StreamSynchronize:
      op.kind = system::OpKind::StreamSynchronize;
      op.label = s.device ? fmt::format("device {} stream {}", s.device, s.stream) : fmt::format("stream {}", s.stream);
      break;
    case SK::Synchronize:
      op.kind = system::OpKind::Synchronize;
      op.label = fmt::format("device {}", s.device);
      break;
    }
    session.ops.push_back(std::move(op));
  }
  return session;
}

} // namespace ptxray::session
