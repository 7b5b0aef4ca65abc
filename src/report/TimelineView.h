// Views of a session's timeline (system/Timeline.h): the summary, the advisor's findings and a text
// Gantt chart for the terminal, one lane per engine and per stream, with the operation table; the
// same as an SVG chart in an HTML page; and the JSON document (schema "ptxray-timeline", version 1).
#pragma once

#include "advisor/Finding.h"
#include "system/Timeline.h"

#include <nlohmann/json.hpp>

#include <string>

namespace ptxray::report {

struct TimelineTextOptions {
  int width = 72;         ///< columns of the chart's time axis
  bool chart = true;      ///< the Gantt chart
  bool operations = true; ///< the table of every operation
};

/// `findings`: the advisor's on the session (advisor/SessionRules.h), printed after the summary.
std::string timelineText(const system::Timeline &timeline, const std::vector<advisor::Finding> &findings = {},
                         const TimelineTextOptions &options = {});

/// The chart as inline SVG: a lane per engine and per stream, an operation per rectangle (coloured by
/// kind, its label and times in a tooltip), a time axis in microseconds.
std::string timelineSvg(const system::Timeline &timeline);

/// One self-contained HTML page: the summary, the findings, the chart and the operation table.
std::string timelineHtml(const system::Timeline &timeline, const std::vector<advisor::Finding> &findings = {});

/// Times in microseconds, bandwidths in GB/s (10^9 bytes per second).
nlohmann::json timelineJson(const system::Timeline &timeline, const std::vector<advisor::Finding> &findings = {});

/// The timeline in the Trace Event Format (JSON object form) that Perfetto (ui.perfetto.dev) and
/// chrome://tracing open, as Nsight Systems users look at a run: a process for the host, whose
/// thread shows the synchronizations it waited in, and one per device, with a thread per stream
/// (OpenCL: per command queue) holding its copies, memsets and kernels as complete events, events
/// and waits as instants, and a counter of the kernels running at once. Times in microseconds;
/// each operation's arguments carry its index, where it came from, engine, issue time, bytes and
/// bandwidth.
nlohmann::json timelineTrace(const system::Timeline &timeline);

} // namespace ptxray::report
