#include "system/SessionFromSpec.h"

#include <fmt/format.h>

#include <algorithm>

namespace ptxray::system {

namespace {

std::string bytesText(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 20) && bytes % (uint64_t{1} << 10) == 0)
    return fmt::format("{:.4g} MiB", static_cast<double>(bytes) / (1 << 20));
  if (bytes >= (uint64_t{1} << 10) && bytes % (uint64_t{1} << 10) == 0)
    return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

std::string dimText(const vm::Dim3 &d) {
  if (d.y == 1 && d.z == 1)
    return fmt::format("{}", d.x);
  return fmt::format("({},{},{})", d.x, d.y, d.z);
}

} // namespace

SessionOp kernelOperation(const model::LaunchProfile &p, unsigned stream, int smCount) {
  SessionOp op;
  op.kind = OpKind::Kernel;
  op.stream = stream;
  op.kernelSeconds = p.time.seconds;
  const double resident = static_cast<double>(std::max(1, p.occupancy.activeBlocksPerSm)) * std::max(1, smCount);
  op.gpuShare = std::min(1.0, static_cast<double>(std::max<uint64_t>(p.ctas, 1)) / resident);
  std::string name = p.demangled.empty() ? p.kernel : p.demangled;
  if (auto paren = name.find('('); paren != std::string::npos && paren > 0)
    name.resize(paren); // the parameter list is in the source
  op.label = fmt::format("{}<<<{}, {}>>>", name, dimText(p.grid), dimText(p.block));
  return op;
}

Session sessionFromSpec(const vm::RunSpec &spec, std::span<const model::LaunchProfile> profiles, int smCount) {
  using SK = vm::SpecOperation::Kind;
  Session session;
  std::vector<size_t> recordOf; // session index of each spec operation that is an EventRecord
  std::vector<std::pair<std::string, size_t>> lastRecord;
  for (const vm::SpecOperation &s : spec.operations) {
    SessionOp op;
    op.stream = s.stream;
    op.device = s.device;
    op.where = s.path;
    op.bytes = s.bytes;
    auto hostMemoryOf = [&](const std::string &name) {
      const vm::SpecBuffer *b = spec.findBuffer(name);
      return b && b->memory == vm::BufferMemory::Pageable ? HostMemory::Pageable : HostMemory::Pinned;
    };
    auto onHost = [&](const std::string &name) {
      const vm::SpecBuffer *b = spec.findBuffer(name);
      return b && b->onHost();
    };
    auto deviceOf = [&](const std::string &name) {
      const vm::SpecBuffer *b = spec.findBuffer(name);
      return b ? b->device : 0u;
    };
    // A copy between two devices' memory crosses PCIe (cudaMemcpyPeer); within one it is a D2D copy.
    auto deviceToDevice = [&] {
      op.fromDevice = deviceOf(s.src);
      op.toDevice = deviceOf(s.dst);
      op.kind = op.fromDevice == op.toDevice ? OpKind::CopyD2D : OpKind::CopyPeer;
    };
    switch (s.kind) {
    case SK::MemcpyH2D:
      op.kind = OpKind::CopyH2D;
      op.hostMemory = hostMemoryOf(s.src);
      op.label = fmt::format("{} -> {} ({})", s.src, s.dst, bytesText(s.bytes));
      break;
    case SK::MemcpyD2H:
      op.kind = OpKind::CopyD2H;
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
      op.kind = fromHost ? OpKind::CopyH2D : OpKind::CopyD2H;
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
      op.kind = OpKind::Memset;
      op.label = fmt::format("{} = 0x{:02x} ({})", s.dst, s.value, bytesText(s.bytes));
      break;
    case SK::Launch: {
      if (s.launch >= profiles.size())
        return session; // the run stopped before this launch
      std::string where = op.where;
      op = kernelOperation(profiles[s.launch], s.stream, smCount);
      op.where = where;
      op.device = s.device;
      break;
    }
    case SK::EventRecord:
      op.kind = OpKind::EventRecord;
      op.label = s.event;
      lastRecord.emplace_back(s.event, session.ops.size());
      break;
    case SK::StreamWaitEvent:
      op.kind = OpKind::StreamWaitEvent;
      op.label = s.event;
      for (auto it = lastRecord.rbegin(); it != lastRecord.rend(); ++it)
        if (it->first == s.event) {
          op.event = it->second;
          break;
        }
      break;
    case SK::StreamSynchronize:
      op.kind = OpKind::StreamSynchronize;
      op.label = s.device ? fmt::format("device {} stream {}", s.device, s.stream) : fmt::format("stream {}", s.stream);
      break;
    case SK::Synchronize:
      op.kind = OpKind::Synchronize;
      op.label = fmt::format("device {}", s.device);
      break;
    }
    session.ops.push_back(std::move(op));
  }
  return session;
}

} // namespace ptxray::system
