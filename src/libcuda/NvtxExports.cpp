// The NVTX hooks of libcuda.so.1 (session/NvtxHook.h): ptxray's NVTX injection library records a CUDA
// program's ranges in the session the runtime records, so that the timeline shows them.
#include "runtime/Runtime.h"
#include "session/NvtxHook.h"

extern "C" {

__attribute__((visibility("default"))) size_t ptxrayNvtxPosition(void) {
  try {
    return ptxray::runtime::Runtime::instance().nvtxPosition();
  } catch (...) {
    return 0; // annotations never end a program
  }
}

__attribute__((visibility("default"))) void ptxrayNvtxRecord(const PtxrayNvtxRange *range) {
  if (!range)
    return;
  try {
    ptxray::runtime::Runtime::instance().recordNvtx(ptxray::session::nvtxRange(*range));
  } catch (...) {
  }
}

} // extern "C"
