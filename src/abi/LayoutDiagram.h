// Text drawing of a layout in the style of the figures of ptx-interoperability.md §1.3: one row per
// 32-bit word, bit 0 on the right (little endian), byte offsets above each byte's upper right corner,
// bit numbers (within the word) under each field's corners, unoccupied bits as "pad". A union draws one
// band per member, as Figure 5 does.
#pragma once

#include "abi/Layout.h"

#include <string>
#include <string_view>

namespace ptxray::abi {

struct DiagramOptions {
  unsigned maxRows = 64; ///< rows drawn per band before "... N more rows"
};

/// `title` defaults to the type's C spelling. Ends with a newline.
std::string layoutDiagram(const Layout &layout, std::string_view title = {}, const DiagramOptions &options = {});

} // namespace ptxray::abi
