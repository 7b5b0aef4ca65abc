#include "ptx/Parser.h"

#include "ptx/ParserImpl.h"
#include "ptx/Verifier.h"

#include <fmt/format.h>

namespace ptxray::ptx {
namespace {
/// The parsed module's structures, its text included, take about this many bytes per byte of PTX
/// (measured: a synthetic 11.4 MB module of 20,000 kernels peaks at 177 MB in `ptxray parse`).
constexpr uint64_t kParsedBytesPerSourceByte = 16;
} // namespace

ParseResult parseModule(std::string fileName, std::string text, const ParseOptions &options) {
  ParseResult result;
  result.module = std::make_unique<Module>();
  Module &m = *result.module;
  // Taken before parsing: a module the budget cannot hold is refused at once, not after it has
  // filled the machine's memory.
  if (!m.memory.tryGrow(text.size() * kParsedBytesPerSourceByte))
    throw support::MemoryBudgetExceeded(fmt::format("parsing {} ({} of PTX, about {} bytes per byte)", fileName,
                                                    support::memorySizeText(text.size()), kParsedBytesPerSourceByte),
                                        text.size() * kParsedBytesPerSourceByte, support::memoryInUse(),
                                        support::memoryBudget());
  uint32_t file = m.sources.add(std::move(fileName), std::move(text));
  detail::Parser parser(m, result.diagnostics, file);
  parser.parseModule();
  if (options.verify && !result.diagnostics.full())
    verifyModule(m, result.diagnostics);
  return result;
}

} // namespace ptxray::ptx
