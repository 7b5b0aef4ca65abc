#include "ptx/Parser.h"

#include "ptx/ParserImpl.h"
#include "ptx/Verifier.h"

namespace ptxray::ptx {
ParseResult parseModule(std::string fileName, std::string text, const ParseOptions &options) {
  ParseResult result;
  result.module = std::make_unique<Module>();
  Module &m = *result.module;
  uint32_t file = m.sources.add(std::move(fileName), std::move(text));
  detail::Parser parser(m, result.diagnostics, file);
  parser.parseModule();
  if (options.verify && !result.diagnostics.full())
    verifyModule(m, result.diagnostics);
  return result;
}

} // namespace ptxray::ptx
