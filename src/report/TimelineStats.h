// Nsight Systems' summaries of a session's GPU work (`nsys stats --report NAME --format csv`), from
// the modeled timeline: per kernel, and per kind of memory operation, the count and the total,
// average, median, minimum, maximum and standard deviation of the durations (or sizes). Users of
// nsys read these tables first; the numbers here are the system model's times.
#pragma once

#include "system/Timeline.h"

#include <span>
#include <string>
#include <string_view>

namespace ptxray::report {

/// The reports, as nsys names them: cuda_gpu_kern_sum, cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum.
std::span<const std::string_view> timelineStatsReports();

/// One report in nsys stats' CSV layout: its header, then a row per kernel name or memory
/// operation, largest total first. Throws std::invalid_argument for a report name it does not know.
std::string timelineStatsCsv(const system::Timeline &timeline, std::string_view report);

} // namespace ptxray::report
