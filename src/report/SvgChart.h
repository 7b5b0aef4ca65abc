// Dependency-free line charts rendered to standalone SVG, for ptxray's reports (first: the occupancy
// calculator's three graphs). A chart is plain data: callers fill a `LineChart` aggregate, usually with
// designated initializers, and call `renderSvg()`. Nothing here knows about GPUs. Every member has a
// default member initializer: GCC 12's -Wmissing-field-initializers (an error under the project's
// -Werror) would otherwise reject designated initializers that leave members out.
//
// The output is deterministic (numbers are written with std::to_chars in fixed notation, never through
// the C locale), so charts can be golden-tested, and it is self-contained (no scripts, fonts, images or
// stylesheets from elsewhere; no `id` attributes either, so several charts can be inlined into one HTML
// page without clashing).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::report {

/// Which step sizes an axis may use between ticks. Hardware quantities read best on multiples of a power
/// of two (threads per block 0, 256, 512...), counts on whole numbers, everything else on 1-2-2.5-5.
enum class TickStyle {
  Decimal, ///< 1, 2, 2.5 or 5 times a power of ten (0.25, 0.5, 25, 500...)
  Integer, ///< like Decimal but never a fractional step (warps, blocks)
  Binary,  ///< a power of two (256, 64, 0.25...)
};

/// The ticks of one axis: the axis spans [min, max], both multiples of `step`, and `values` are every
/// multiple of `step` in between (min and max included).
struct Ticks {
  double min = 0;
  double max = 1;
  double step = 1;
  int decimals = 0; ///< digits after the point that write every tick value exactly (at most 20)
  std::vector<double> values{};
};

/// Chooses "nice" ticks covering [lo, hi]: the candidate step (per `style`) whose tick count comes closest
/// to `targetCount`, ties going to the step that wastes less of the axis. The range is widened outwards to
/// whole steps. Degenerate input is tolerated: lo > hi is swapped, lo == hi is widened, non-finite bounds
/// give [0, 1]. Examples: Binary 0..1024 -> 0, 256, 512, 768, 1024; Decimal 0..1 -> 0, 0.25, ... 1.
/// Labels are fixed-point, so quantities far from 1 (bytes in the millions, seconds in nanoseconds) read
/// better scaled to a unit first (KiB, ns) or written by an Axis::format.
Ticks niceTicks(double lo, double hi, int targetCount = 5, TickStyle style = TickStyle::Decimal);

/// Ticks of a base-10 logarithmic axis covering [lo, hi] (both positive; otherwise [1, 10]): 1, 2 and
/// 5 times each power of ten when the range spans at most three decades, the powers alone beyond
/// that. The axis runs from the last tick at or below `lo` to the first at or above `hi`; `step` is 0.
Ticks logTicks(double lo, double hi);

/// A log axis' tick label: fixed-point below 10000 with the decimals the value needs ("0.05", "2",
/// "500"), then thousands and millions with a suffix ("20k", "1M").
std::string logTickLabel(double value);

/// `value` in fixed notation with exactly `decimals` digits after the point ("-0" is written "0").
/// Independent of the global locale.
std::string formatFixed(double value, int decimals);

/// Escapes text for XML/HTML character data and attribute values (& < > " '). The result is always
/// well-formed: characters XML 1.0 forbids (C0 controls other than tab, newline, carriage return) are
/// dropped and bytes that are not valid UTF-8 become U+FFFD.
std::string escapeXml(std::string_view text);

struct Point {
  double x = 0;
  double y = 0;
};

/// How consecutive points of a series are joined. Occupancy is a step function of registers or shared
/// memory: sampled at the allocation boundaries, the value at a sample holds back to the previous sample
/// (StepBefore) or, sampled at the start of each interval, holds until the next one (StepAfter).
enum class SeriesStyle {
  Line,       ///< straight segments between points
  StepAfter,  ///< y[i] holds from x[i] up to x[i+1], then jumps
  StepBefore, ///< jumps at x[i-1] to y[i], which holds up to x[i]
};

struct Series {
  std::string name{};          ///< shown in the legend; the legend appears once any series has a name
  std::vector<Point> points{}; ///< in drawing order (normally increasing x); a non-finite point leaves a gap
  SeriesStyle style = SeriesStyle::Line;
  std::string color{}; ///< any SVG colour; empty: the palette colour for the series' position
};

/// A highlighted point, e.g. the current launch configuration, drawn as a dot with a label and a dashed
/// drop line to the x axis. Markers outside the axis ranges are not drawn.
struct Marker {
  Point at{};
  std::string label{};
  std::string color = "#d62728";
};

/// A horizontal line across the whole plot, e.g. the hardware limit of warps per multiprocessor.
struct ReferenceLine {
  double y = 0;
  std::string label{}; ///< drawn at the right end, just above the line
  std::string color = "#555555";
};

struct Axis {
  std::string label{};
  /// The range to cover; unset bounds come from the data (series, markers, reference lines). The drawn
  /// axis is then widened to whole tick steps (see niceTicks). Data outside the range is clipped.
  std::optional<double> min{};
  std::optional<double> max{};
  TickStyle ticks = TickStyle::Decimal;
  int tickCount = 5; ///< the number of ticks to aim for
  /// A base-10 logarithmic scale (logTicks; `ticks` and `tickCount` are not used): for values that
  /// span decades, where a linear axis flattens all but the largest. Values <= 0 are not drawn (a
  /// gap in a series), and so is a min or max <= 0.
  bool logarithmic = false;
  /// Writes a tick label; unset: formatFixed(value, ticks.decimals), or logTickLabel on a log axis.
  /// Must be deterministic.
  std::function<std::string(double)> format{};
};

struct LineChart {
  std::string title{};
  std::string description{}; ///< optional; becomes the SVG <desc> (read by screen readers)
  Axis x{};
  Axis y{};
  std::vector<Series> series{};
  std::vector<Marker> markers{};
  std::vector<ReferenceLine> references{};
  int width = 560; ///< pixels (at least 160 x 120); the SVG also has a viewBox, so it scales
  int height = 360;

  /// A standalone SVG document (no XML declaration, so the same string can be inlined in HTML).
  std::string renderSvg() const;
};

} // namespace ptxray::report
