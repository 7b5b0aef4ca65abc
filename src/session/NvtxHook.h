// What ptxray's NVTX injection library (src/nvtx, NVTX_INJECTION64_PATH) hands the API library the
// program runs on (libcuda.so.1, libptxray-opencl.so): a C interface, because the two are separate
// shared objects found at run time. Each API library exports both functions; the injection library
// looks them up (dlsym) when the program's first NVTX call initializes it.
#pragma once

#include <stddef.h>
#include <stdint.h>

extern "C" {

/// A range or mark that ended (system::NvtxRange's fields; strings valid during the call).
struct PtxrayNvtxRange {
  const char *name;
  const char *domain; ///< "" for the default domain
  size_t begin, end;  ///< from ptxrayNvtxPosition() when it began and when it ended
  unsigned depth;
  uint32_t color; ///< ARGB, 0 for none
  int mark;       ///< nonzero: an instant
  int pushPop;    ///< nonzero: nvtxRangePush/Pop, else nvtxRangeStart/End
  uint64_t thread;
};

/// The number of operations the program's session has recorded so far (0 when none is recorded).
typedef size_t (*PtxrayNvtxPositionFn)(void);
/// Records a range in the session (nothing when none is recorded).
typedef void (*PtxrayNvtxRecordFn)(const PtxrayNvtxRange *range);

} // extern "C"

#define PTXRAY_NVTX_POSITION_SYMBOL "ptxrayNvtxPosition"
#define PTXRAY_NVTX_RECORD_SYMBOL "ptxrayNvtxRecord"

#ifdef __cplusplus
#include "system/Session.h"

namespace ptxray::session {
/// The session's form of a range the injection library reported.
inline system::NvtxRange nvtxRange(const PtxrayNvtxRange &r) {
  system::NvtxRange out;
  out.name = r.name ? r.name : "";
  out.domain = r.domain ? r.domain : "";
  out.begin = r.begin;
  out.end = r.end;
  out.depth = r.depth;
  out.color = r.color;
  out.mark = r.mark != 0;
  out.pushPop = r.pushPop != 0;
  out.thread = r.thread;
  return out;
}
} // namespace ptxray::session
#endif
