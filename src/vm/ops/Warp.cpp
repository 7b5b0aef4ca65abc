// Placeholder: decodes nothing yet, so these instructions fault as unsupported if reached.
#include "vm/ops/Families.h"

namespace ptxray::vm::ops {

void decodeWarp(DecodeContext &, MicroOp &) {}

} // namespace ptxray::vm::ops
