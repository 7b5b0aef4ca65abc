#include "sanitizers/Report.h"

#include "vm/Fault.h"

#include <bit>
#include <fmt/format.h>

namespace ptxray::sanitizers {

SiteText describeSite(const Site &site) {
  SiteText t;
  if (!site.function || !site.function->source || !site.function->module)
    return t;
  t.function = site.function->name;
  const ptx::Module &m = *site.function->module;
  const std::vector<ptx::Instruction> &instructions = site.function->source->instructions;
  if (site.instruction >= instructions.size())
    return t;
  vm::InstructionPlace place = vm::placeOf(m, instructions[site.instruction]);
  t.ptxLocation = std::move(place.ptxLocation);
  t.ptxText = std::move(place.ptxText);
  t.sourceLine = std::move(place.sourceLine);
  t.file = std::move(place.sourceFile);
  t.line = place.sourceFileLine;
  return t;
}

std::string Hazard::describe() const {
  std::string out = fmt::format("========= {}: {}\n", severity == Severity::Error ? "Error" : "Warning", headline);
  for (const std::string &line : details)
    out += fmt::format("=========     {}\n", line);
  out += fmt::format("=========     {} occurrence{}\n", occurrences, occurrences == 1 ? "" : "s");
  return out;
}

std::string summaryLine(const char *tool, uint64_t errors, uint64_t warnings) {
  uint64_t total = errors + warnings;
  return fmt::format("{} SUMMARY: {} hazard{} displayed ({} error{}, {} warning{})", tool, total, total == 1 ? "" : "s",
                     errors, errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
}

std::string errorSummaryLine(const char *tool, uint64_t errors) {
  return fmt::format("{} SUMMARY: {} error{}", tool, errors, errors == 1 ? "" : "s");
}

std::string sharedVariableAt(const vm::DecodedFunction &kernel, uint64_t offset) {
  for (const vm::SharedVariable &v : kernel.sharedSlots)
    if (!v.dynamic && offset >= v.offset && offset < v.offset + v.size)
      return offset == v.offset ? v.name : fmt::format("{}+{}", v.name, offset - v.offset);
  if (offset >= kernel.staticSharedBytes) {
    for (const vm::SharedVariable &v : kernel.sharedSlots)
      if (v.dynamic)
        return fmt::format("{}+{} (dynamic)", v.name, offset - kernel.staticSharedBytes);
    return fmt::format("dynamic shared memory+{}", offset - kernel.staticSharedBytes);
  }
  return {};
}

vm::Dim3 threadOf(uint64_t linear, vm::Dim3 block) {
  return {static_cast<uint32_t>(linear % block.x), static_cast<uint32_t>(linear / block.x % block.y),
          static_cast<uint32_t>(linear / (uint64_t{block.x} * block.y))};
}

uint64_t ctaLinear(vm::Dim3 cta, vm::Dim3 grid) {
  return cta.x + uint64_t{grid.x} * (cta.y + uint64_t{grid.y} * cta.z);
}

std::string dimText(vm::Dim3 d) {
  return fmt::format("({},{},{})", d.x, d.y, d.z);
}

std::string laneList(uint32_t mask) {
  std::string out;
  while (mask) {
    int first = std::countr_zero(mask);
    int last = first;
    while (last + 1 < vm::kWarpSize && ((mask >> (last + 1)) & 1))
      ++last;
    if (!out.empty())
      out += ",";
    out += first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last);
    mask &= last == 31 ? 0u : ~((2u << last) - 1);
  }
  return out;
}

} // namespace ptxray::sanitizers
