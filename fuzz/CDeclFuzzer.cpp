// libFuzzer target for the C declaration parser of `ptxray abi` (src/abi/CDeclParser.cpp): arbitrary
// text as CUDA C and as OpenCL C, every type it defines laid out for 32- and 64-bit addresses. Any
// input must give types or located errors (AbiError for what has no layout), never a crash, a stack
// overflow on deep nesting, a hang or an allocation the input does not justify.
#include "abi/CDeclParser.h"
#include "abi/Layout.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  for (auto language : {ptxray::abi::SourceLanguage::Cuda, ptxray::abi::SourceLanguage::OpenCL}) {
    const ptxray::abi::CDeclResult result = ptxray::abi::parseCDecls(text, language);
    for (const ptxray::abi::NamedType &t : result.header.types)
      for (unsigned addressSize : {32u, 64u}) {
        try {
          (void)ptxray::abi::layoutOf(t.type, addressSize);
        } catch (const ptxray::abi::AbiError &) {
        }
      }
  }
  return 0;
}
