#include "system/KernelOperation.h"

#include <fmt/format.h>

#include <algorithm>

namespace ptxray::system {

namespace {

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

} // namespace ptxray::system
