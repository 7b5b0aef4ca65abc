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

std::string launchLabel(std::string name, const vm::Dim3 &grid, const vm::Dim3 &block) {
  if (auto paren = name.find('('); paren != std::string::npos && paren > 0)
    name.resize(paren); // the parameter list is in the source
  return fmt::format("{}<<<{}, {}>>>", name, dimText(grid), dimText(block));
}

} // namespace

SessionOp kernelOperation(const model::LaunchProfile &p, unsigned stream, int smCount) {
  SessionOp op;
  op.kind = OpKind::Kernel;
  op.stream = stream;
  op.kernelSeconds = p.seconds();
  const double resident = static_cast<double>(std::max(1, p.occupancy.activeBlocksPerSm)) * std::max(1, smCount);
  op.gpuShare = std::min(1.0, static_cast<double>(std::max<uint64_t>(p.ctas, 1)) / resident);
  const std::string &name = p.demangled.empty() ? p.kernel : p.demangled;
  op.label = launchLabel(name, p.grid, p.block);
  for (const model::ChildGrid &c : p.childGrids)
    op.childGrids.push_back({launchLabel(c.kernel, c.grid, c.block),
                             c.parent < 0 ? op.label : op.childGrids[static_cast<size_t>(c.parent)].label, c.depth,
                             c.startSeconds, c.startSeconds + c.ownSeconds});
  return op;
}

} // namespace ptxray::system
