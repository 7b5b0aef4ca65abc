// The NVTX hooks of libptxray-opencl.so (session/NvtxHook.h): ptxray's NVTX injection library records
// an OpenCL program's ranges in the session the platform records, so that the timeline shows them.
#include "opencl/Platform.h"
#include "session/NvtxHook.h"

#include <mutex>

extern "C" {

__attribute__((visibility("default"))) size_t ptxrayNvtxPosition(void) {
  try {
    ptxray::opencl::Platform &p = ptxray::opencl::Platform::instance();
    std::lock_guard lock(p.mutex());
    const ptxray::session::SessionRecorder *s = p.recorder();
    return s ? s->position() : 0;
  } catch (...) {
    return 0; // annotations never end a program
  }
}

__attribute__((visibility("default"))) void ptxrayNvtxRecord(const PtxrayNvtxRange *range) {
  if (!range)
    return;
  try {
    ptxray::opencl::Platform &p = ptxray::opencl::Platform::instance();
    std::lock_guard lock(p.mutex());
    if (ptxray::session::SessionRecorder *s = p.recorder())
      s->nvtxRange(ptxray::session::nvtxRange(*range));
  } catch (...) {
  }
}

} // extern "C"
