// libFuzzer target for the virtual GPU: any PTX that verifies must load, and every kernel must run to
// completion or stop with a reported fault (bad address, budget, deadlock...), never crash, hang or
// leak. Kernels get small launches, zero scalars and pointers to a small valid buffer.
#include "RunEveryKernel.h"
#include "ptx/Parser.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace ptxray;
  std::string text(reinterpret_cast<const char *>(data), size);
  if (!ptx::parseModule("fuzz.ptx", text).ok())
    return 0;
  // A small buffer's address in every 4- and 8-byte parameter, zero in the others.
  fuzz::runEveryKernel(text, {4, 8});
  return 0;
}
