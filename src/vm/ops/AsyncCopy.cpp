// Placeholder: decodes nothing yet, so these instructions fault as unsupported if reached.
#include "vm/ops/Families.h"

namespace ptxray::vm::ops {

void decodeAsync(DecodeContext &, MicroOp &) {}

} // namespace ptxray::vm::ops
