// The advisor on a whole session (system/Timeline.h): what the guides say to get right outside the
// kernels first. Transfers ([BPG] §3.1: few of them, batched, from pinned memory), overlap of copies
// with kernels through streams and copy engines ([BPG] §3.1.3), and streams that the hardware queues
// serialize ([KTG] §1.4.2.2). Each finding's gain comes from re-running the system model with the
// fix applied (the session's copies pinned, small copies batched, the work issued breadth-first or on
// more connections), except where it says it is a bound.
#pragma once

#include "advisor/Finding.h"
#include "system/Timeline.h"

#include <span>
#include <vector>

namespace ptxray::advisor {

struct SessionThresholds {
  double minGainFraction = 0.02;      ///< findings expected to save less of the session stay silent
  uint64_t smallCopyBytes = 64 << 10; ///< copies below this are small ([BPG] §3.1: batch them)
  size_t smallCopyCount = 8;          ///< ... when a stream makes at least this many in a row
  double transferShare = 0.5;         ///< PCIe copies busier than kernels by this share of the session
  double overlapShare = 0.1;          ///< copies and kernels each at least this share for no-overlap
};

struct SessionRuleInfo {
  std::string_view id;
  Priority priority;
  std::string_view guide;
  std::string_view summary;
};
std::span<const SessionRuleInfo> sessionRules();

/// Ranked findings on the session the timeline shows.
std::vector<Finding> adviseSession(const system::Timeline &timeline, const SessionThresholds &thresholds = {});

} // namespace ptxray::advisor
