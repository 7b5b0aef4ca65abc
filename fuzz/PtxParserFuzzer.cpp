// libFuzzer target for the PTX front end. Any input must give diagnostics or a module, never a
// crash, leak or hang; and a module that parses must print to PTX that re-parses to the same IR
// and prints identically (the printer's fixed point). The linker (ptx::linkModules) gets the same
// bytes as two modules: split at a second .version when there is one, else the input twice
// (duplicate definitions, weak and common resolution, renumbered .file indices), unless the input
// declares more than 2^20 registers.
#include "ptx/Parser.h"
#include "ptx/Printer.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  ptxray::ptx::ParseResult first = ptxray::ptx::parseModule("fuzz.ptx", text);
  // Rendering exercises the line/column and caret code on arbitrary bytes.
  std::string rendered = first.diagnostics.render(first.module->sources);
  // Linked too, unless the module is one of the hostile ones near the parser's bounds (millions of
  // registers), whose second parse would only double the time (libFuzzer's -timeout is per input).
  size_t registers = 0;
  for (const ptxray::ptx::Function &f : first.module->functions)
    registers += f.registers.size();
  if (registers <= (size_t{1} << 20)) {
    const size_t second = text.find(".version", text.find(".version") == std::string::npos ? std::string::npos
                                                                                           : text.find(".version") + 1);
    std::vector<ptxray::ptx::LinkInput> modules;
    if (second != std::string::npos && text.find(".version") != std::string::npos)
      modules = {{"a.ptx", text.substr(0, second)}, {"b.ptx", text.substr(second)}};
    else
      modules = {{"a.ptx", text}, {"b.ptx", text}};
    ptxray::ptx::ParseResult linked = ptxray::ptx::linkModules(std::move(modules));
    rendered = linked.diagnostics.render(linked.module->sources);
    if (linked.ok())
      (void)ptxray::ptx::printModule(*linked.module);
  }
  if (!first.ok())
    return 0;
  std::string printed = ptxray::ptx::printModule(*first.module);
  ptxray::ptx::ParseResult second = ptxray::ptx::parseModule("printed.ptx", printed);
  if (!second.ok()) {
    std::fprintf(stderr, "printed module does not re-parse:\n%s\n--- printed ---\n%s\n",
                 second.diagnostics.render(second.module->sources).c_str(), printed.c_str());
    std::abort();
  }
  if (!first.module->sameIr(*second.module)) {
    std::fprintf(stderr, "re-parsed IR differs\n--- printed ---\n%s\n", printed.c_str());
    std::abort();
  }
  if (ptxray::ptx::printModule(*second.module) != printed) {
    std::fprintf(stderr, "printing is not a fixed point\n--- printed ---\n%s\n", printed.c_str());
    std::abort();
  }
  return 0;
}
