// libFuzzer target for run specs (src/session/RunSpec.cpp): arbitrary text as a spec file's JSON. Any
// input must give a spec or a SpecError naming the problem (duplicate keys and deep nesting
// included), never a crash, a hang or an allocation the input does not justify. Nothing is loaded or
// run: the module and data files a spec names are only resolved against a folder.
#include "session/RunSpec.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  try {
    (void)ptxray::session::parseRunSpecText(text, "spec.json", "/nonexistent-fuzz-folder");
  } catch (const ptxray::session::SpecError &) {
  }
  return 0;
}
