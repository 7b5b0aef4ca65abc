// libFuzzer target for the fatbinary reader (src/runtime/Fatbin.cpp): arbitrary bytes as an ELF image
// (the .nv_fatbin section) and as fatbinary containers, every entry decompressed. Any input must give
// entries or a FatbinError, never a crash, a hang or an allocation the input does not justify.
#include "fatbin/Fatbin.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte *>(data), size);
  try {
    (void)ptxray::fatbin::elfSection(bytes, ".nv_fatbin");
  } catch (const ptxray::fatbin::FatbinError &) {
  }
  try {
    for (const ptxray::fatbin::FatbinEntry &e : ptxray::fatbin::parseFatbins(bytes)) {
      try {
        (void)e.text();
      } catch (const ptxray::fatbin::FatbinError &) {
      }
    }
  } catch (const ptxray::fatbin::FatbinError &) {
  }
  return 0;
}
