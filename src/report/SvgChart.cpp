#include "report/SvgChart.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <utility>

namespace ptxray::report {
namespace {

// Tolerance for "is this a whole multiple of the step": tick bounds come from divisions such as
// 0.3 / 0.1 = 2.9999999999999996, which must still count as 3.
constexpr double kStepEpsilon = 1e-9;

double pow10(int exponent) {
  // Dividing by an exact power of ten rounds correctly (2.5 / 10 == 0.25), multiplying by 0.1 does not.
  double p = 1;
  for (int i = 0; i < std::abs(exponent); ++i)
    p *= 10;
  return exponent < 0 ? 1 / p : p;
}

double scaleByPow10(double value, int exponent) {
  return exponent < 0 ? value / pow10(-exponent) : value * pow10(exponent);
}

constexpr int kMaxDecimals = 20; // formatFixed's limit

/// Digits after the point that write `step` exactly; kMaxDecimals + 1 when none up to the limit does.
int decimalsFor(double step) {
  for (int d = 0; d <= kMaxDecimals; ++d) {
    double scaled = scaleByPow10(step, d), whole = std::round(scaled);
    if (whole != 0 && std::abs(scaled - whole) <= kStepEpsilon * whole)
      return d;
  }
  return kMaxDecimals + 1;
}

std::vector<double> candidateSteps(double rawStep, TickStyle style) {
  std::vector<double> steps;
  if (style == TickStyle::Binary) {
    int e = static_cast<int>(std::floor(std::log2(rawStep)));
    for (int k = e - 2; k <= e + 2; ++k)
      steps.push_back(std::ldexp(1.0, k)); // 0 or inf past the range of double: niceTicks skips those
    return steps;
  }
  int e = static_cast<int>(std::floor(std::log10(rawStep)));
  int first = e - 1, last = e + 1;
  if (style == TickStyle::Integer) {
    first = std::max(first, 0);
    last = std::max(last, 0);
  }
  for (int k = first; k <= last; ++k)
    for (double mantissa : {1.0, 2.0, 2.5, 5.0}) {
      double step = scaleByPow10(mantissa, k);
      if (style != TickStyle::Integer || step == std::floor(step))
        steps.push_back(step);
    }
  return steps;
}

// --- SVG writing --------------------------------------------------------------------------------------

constexpr const char *kFontFamily = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif";
constexpr int kTickFont = 12;
constexpr int kLabelFont = 13;
constexpr int kTitleFont = 15;
constexpr const char *kTextColor = "#222222";
constexpr const char *kAxisColor = "#444444";
constexpr const char *kGridColor = "#e3e3e3";
// Red is left out: it is the markers' colour.
constexpr std::array<const char *, 8> kPalette = {"#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd",
                                                  "#8c564b", "#17becf", "#e377c2", "#7f7f7f"};

/// Pixel coordinates are written with at most two decimals: plenty for a screen, and stable.
std::string coord(double value) {
  std::string s = formatFixed(value, 2);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0')
      s.pop_back();
    if (s.back() == '.')
      s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

/// Text width without a font engine: 0.6 em per character is close to DejaVu Sans' average and errs wide,
/// which is the safe side for margins.
double textWidth(std::string_view text, int fontSize) {
  size_t codePoints = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80)
      ++codePoints;
  return static_cast<double>(codePoints) * fontSize * 0.6;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  double positiveLo = std::numeric_limits<double>::infinity(); ///< for a log axis
  void add(double v) {
    if (std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      if (v > 0)
        positiveLo = std::min(positiveLo, v);
    }
  }
};

Ticks axisTicks(const Axis &axis, Range data) {
  if (axis.logarithmic) {
    const double lo = axis.min && *axis.min > 0 ? *axis.min : data.positiveLo;
    const double hi = axis.max && *axis.max > 0 ? *axis.max : data.hi;
    return logTicks(lo, hi);
  }
  double lo = axis.min.value_or(data.lo);
  double hi = axis.max.value_or(data.hi);
  if (!std::isfinite(lo) && !std::isfinite(hi)) {
    lo = 0;
    hi = 1;
  } else if (!std::isfinite(lo)) {
    lo = std::min(0.0, hi);
  } else if (!std::isfinite(hi)) {
    hi = std::max(1.0, lo);
  }
  return niceTicks(lo, hi, axis.tickCount, axis.ticks);
}

std::string tickLabel(const Axis &axis, const Ticks &ticks, double value) {
  return axis.format ? axis.format(value) : axis.logarithmic ? logTickLabel(value) : formatFixed(value, ticks.decimals);
}

struct Pixel {
  double x, y;
  bool operator==(const Pixel &) const = default;
};

/// The plot rectangle in pixels and the data-to-pixel mapping.
struct Frame {
  double left, top, right, bottom;
  Ticks xt, yt;
  bool xLog = false, yLog = false;

  double px(double x) const { return clampPixel(left + fraction(x, xt, xLog) * (right - left)); }
  double py(double y) const { return clampPixel(bottom - fraction(y, yt, yLog) * (bottom - top)); }
  Pixel map(Point p) const { return {px(p.x), py(p.y)}; }
  /// Whether a point can be placed at all: finite, and positive on a log axis.
  bool placeable(Point p) const {
    return std::isfinite(p.x) && std::isfinite(p.y) && (!xLog || p.x > 0) && (!yLog || p.y > 0);
  }
  /// Where `v` lies between the axis' ends, 0 to 1 inside.
  static double fraction(double v, const Ticks &t, bool log) {
    if (log)
      return (std::log10(v) - std::log10(t.min)) / (std::log10(t.max) - std::log10(t.min));
    return (v - t.min) / (t.max - t.min);
  }
  bool contains(Pixel p) const {
    return p.x >= left - 1e-6 && p.x <= right + 1e-6 && p.y >= top - 1e-6 && p.y <= bottom + 1e-6;
  }

  // Keeps the clipping arithmetic finite when data lies absurdly far outside an explicit range (1e308 on
  // a 0..1 axis); only points more than 1e100 pixels away move, which double precision could not show.
  static double clampPixel(double v) { return std::clamp(v, -1e100, 1e100); }
};

/// Liang-Barsky: the part of segment a-b inside the frame, as parameters t0 <= t1 in [0, 1].
bool clipSegment(const Frame &f, Pixel a, Pixel b, double &t0, double &t1) {
  double dx = b.x - a.x, dy = b.y - a.y;
  const double p[4] = {-dx, dx, -dy, dy};
  const double q[4] = {a.x - f.left, f.right - a.x, a.y - f.top, f.bottom - a.y};
  t0 = 0;
  t1 = 1;
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0)
        return false;
      continue;
    }
    double r = q[i] / p[i];
    if (p[i] < 0) {
      if (r > t1)
        return false;
      t0 = std::max(t0, r);
    } else {
      if (r < t0)
        return false;
      t1 = std::min(t1, r);
    }
  }
  return true;
}

/// The vertices actually drawn for a run of finite points, steps expanded into corners.
std::vector<Point> expandSteps(const std::vector<Point> &run, SeriesStyle style) {
  if (style == SeriesStyle::Line || run.size() < 2)
    return run;
  std::vector<Point> out{run.front()};
  for (size_t i = 1; i < run.size(); ++i) {
    if (style == SeriesStyle::StepAfter)
      out.push_back({run[i].x, run[i - 1].y});
    else
      out.push_back({run[i - 1].x, run[i].y});
    out.push_back(run[i]);
  }
  return out;
}

/// Splits a series into polylines that lie inside the frame: at non-finite points (gaps) and wherever the
/// line leaves the plot.
std::vector<std::vector<Pixel>> visiblePolylines(const Frame &frame, const Series &series) {
  std::vector<std::vector<Point>> runs(1);
  for (const Point &p : series.points) {
    if (frame.placeable(p))
      runs.back().push_back(p);
    else if (!runs.back().empty())
      runs.emplace_back();
  }

  std::vector<std::vector<Pixel>> lines;
  for (const auto &run : runs) {
    std::vector<Point> vertices = expandSteps(run, series.style);
    std::vector<Pixel> current;
    bool open = false; // the last segment reached its end point unclipped, so the next one continues it
    for (size_t i = 1; i < vertices.size(); ++i) {
      Pixel a = frame.map(vertices[i - 1]), b = frame.map(vertices[i]);
      double t0, t1;
      if (!clipSegment(frame, a, b, t0, t1)) {
        open = false;
        continue;
      }
      // Unclipped ends are copied, not recomputed, so a data point lands exactly where a marker or a tick
      // at the same value does.
      Pixel from = t0 == 0 ? a : Pixel{a.x + t0 * (b.x - a.x), a.y + t0 * (b.y - a.y)};
      Pixel to = t1 == 1 ? b : Pixel{a.x + t1 * (b.x - a.x), a.y + t1 * (b.y - a.y)};
      if (!(open && t0 == 0)) {
        if (current.size() > 1)
          lines.push_back(std::move(current));
        current = {from};
      }
      if (!(to == current.back()))
        current.push_back(to);
      open = t1 == 1;
    }
    if (current.size() > 1)
      lines.push_back(std::move(current));
  }
  return lines;
}

/// An attribute: the value is escaped when written; attributes with an empty value are left out.
using Attr = std::pair<std::string_view, std::string>;

class SvgWriter {
public:
  void open(std::string_view name, std::initializer_list<Attr> attrs) { tag(name, attrs, ">\n"); }
  void close(std::string_view name) {
    out_ += "</";
    out_ += name;
    out_ += ">\n";
  }
  void empty(std::string_view name, std::initializer_list<Attr> attrs) { tag(name, attrs, "/>\n"); }
  /// An element holding only text, e.g. <text ...>label</text>.
  void element(std::string_view name, std::initializer_list<Attr> attrs, std::string_view text) {
    tag(name, attrs, ">");
    out_ += escapeXml(text);
    out_ += "</";
    out_ += name;
    out_ += ">\n";
  }
  void line(std::string_view cls, Pixel a, Pixel b) {
    empty(
        "line",
        {{"class", std::string(cls)}, {"x1", coord(a.x)}, {"y1", coord(a.y)}, {"x2", coord(b.x)}, {"y2", coord(b.y)}});
  }
  std::string take() { return std::move(out_); }

private:
  void tag(std::string_view name, std::initializer_list<Attr> attrs, std::string_view end) {
    out_ += '<';
    out_ += name;
    for (const auto &[key, value] : attrs) {
      if (value.empty())
        continue;
      out_ += ' ';
      out_ += key;
      out_ += "=\"";
      out_ += escapeXml(value);
      out_ += '"';
    }
    out_ += end;
  }

  std::string out_;
};

struct LegendItem {
  std::string name;
  std::string color;
  double x = 0;
  int row = 0;
};

/// Lays a chart out and writes it, back to front: grid, axes, reference lines, data, markers, then all
/// text on top (annotation labels, titles, legend).
class ChartRenderer {
public:
  explicit ChartRenderer(const LineChart &chart)
      : c_(chart), width_(std::max(chart.width, 160)), height_(std::max(chart.height, 120)) {}

  std::string render() {
    layOut();
    writeHeader();
    writeGridAndAxes();
    writeReferenceLines();
    writeSeries();
    writeMarkers();
    writeAnnotationLabels();
    writeTitles();
    writeLegend();
    w_.close("svg");
    return w_.take();
  }

private:
  static constexpr double kLegendRow = 18;

  const LineChart &c_;
  const double width_, height_;
  Frame f_{};
  std::vector<std::string> xLabels_, yLabels_;
  std::vector<LegendItem> legend_;
  double legendBaseline_ = 0;
  std::vector<const ReferenceLine *> references_;         ///< those inside the y range
  std::vector<std::pair<const Marker *, Pixel>> markers_; ///< those inside the plot
  SvgWriter w_;

  std::string seriesColor(size_t index) const {
    return c_.series[index].color.empty() ? kPalette[index % kPalette.size()] : c_.series[index].color;
  }

  void layOut() {
    // Ticks first: the left margin depends on how wide the y tick labels are.
    Range xData, yData;
    f_.xLog = c_.x.logarithmic;
    f_.yLog = c_.y.logarithmic;
    for (const Series &s : c_.series)
      for (const Point &p : s.points)
        if (f_.placeable(p)) {
          xData.add(p.x);
          yData.add(p.y);
        }
    for (const Marker &m : c_.markers) {
      xData.add(m.at.x);
      yData.add(m.at.y);
    }
    for (const ReferenceLine &r : c_.references)
      yData.add(r.y);
    f_.xt = axisTicks(c_.x, xData);
    f_.yt = axisTicks(c_.y, yData);
    double yLabelWidth = 0;
    for (double v : f_.xt.values)
      xLabels_.push_back(tickLabel(c_.x, f_.xt, v));
    for (double v : f_.yt.values) {
      yLabels_.push_back(tickLabel(c_.y, f_.yt, v));
      yLabelWidth = std::max(yLabelWidth, textWidth(yLabels_.back(), kTickFont));
    }

    // Horizontally: the rotated y label, the y tick labels, the plot, half the last x tick label.
    f_.left = (c_.y.label.empty() ? 8 : 30) + yLabelWidth + 10;
    f_.right = width_ - std::max(16.0, textWidth(xLabels_.back(), kTickFont) / 2 + 4);

    // Vertically: the title (baseline 22), legend rows wrapped to the chart width, the plot, the x tick
    // labels and the x label.
    int legendRows = 0;
    double legendX = f_.left;
    for (size_t i = 0; i < c_.series.size(); ++i) {
      if (c_.series[i].name.empty())
        continue;
      double itemWidth = 24 + textWidth(c_.series[i].name, kTickFont);
      if (legendX > f_.left && legendX + itemWidth > width_ - 8) {
        ++legendRows;
        legendX = f_.left;
      }
      legend_.push_back({c_.series[i].name, seriesColor(i), legendX, legendRows});
      legendX += itemWidth + 16;
    }
    legendBaseline_ = c_.title.empty() ? 18 : 44;
    if (!legend_.empty())
      f_.top = legendBaseline_ + legendRows * kLegendRow + 16;
    else
      f_.top = c_.title.empty() ? 14 : 38;
    f_.bottom = height_ - (c_.x.label.empty() ? 28 : 48);

    for (const ReferenceLine &r : c_.references)
      if (std::isfinite(r.y) && r.y >= f_.yt.min && r.y <= f_.yt.max && (!f_.yLog || r.y > 0))
        references_.push_back(&r);
    for (const Marker &m : c_.markers)
      if (f_.placeable(m.at) && f_.contains(f_.map(m.at)))
        markers_.emplace_back(&m, f_.map(m.at));
  }

  void writeHeader() {
    w_.open("svg", {{"xmlns", "http://www.w3.org/2000/svg"},
                    {"width", coord(width_)},
                    {"height", coord(height_)},
                    {"viewBox", "0 0 " + coord(width_) + " " + coord(height_)},
                    {"role", "img"},
                    {"font-family", kFontFamily},
                    {"font-size", std::to_string(kTickFont)}});
    w_.element("title", {}, c_.title.empty() ? "chart" : c_.title);
    if (!c_.description.empty())
      w_.element("desc", {}, c_.description);
    w_.empty("rect", {{"width", coord(width_)}, {"height", coord(height_)}, {"fill", "#ffffff"}});
  }

  void writeGridAndAxes() {
    w_.open("g", {{"class", "grid"}, {"stroke", kGridColor}, {"stroke-width", "1"}, {"shape-rendering", "crispEdges"}});
    for (double v : f_.xt.values)
      w_.line("", {f_.px(v), f_.top}, {f_.px(v), f_.bottom});
    for (double v : f_.yt.values)
      w_.line("", {f_.left, f_.py(v)}, {f_.right, f_.py(v)});
    w_.close("g");

    w_.open("g", {{"class", "axes"}, {"stroke", kAxisColor}, {"stroke-width", "1"}, {"shape-rendering", "crispEdges"}});
    w_.line("axis-x", {f_.left, f_.bottom}, {f_.right, f_.bottom});
    w_.line("axis-y", {f_.left, f_.top}, {f_.left, f_.bottom});
    for (double v : f_.xt.values)
      w_.line("tick-x", {f_.px(v), f_.bottom}, {f_.px(v), f_.bottom + 5});
    for (double v : f_.yt.values)
      w_.line("tick-y", {f_.left - 5, f_.py(v)}, {f_.left, f_.py(v)});
    w_.close("g");

    // x labels centred under their tick; y labels right-aligned and nudged down ~1/3 em to centre them on
    // the tick (dominant-baseline is not rendered consistently across viewers).
    w_.open("g", {{"fill", kAxisColor}});
    for (size_t i = 0; i < xLabels_.size(); ++i)
      w_.element("text",
                 {{"class", "tick-label-x"},
                  {"x", coord(f_.px(f_.xt.values[i]))},
                  {"y", coord(f_.bottom + 18)},
                  {"text-anchor", "middle"}},
                 xLabels_[i]);
    for (size_t i = 0; i < yLabels_.size(); ++i)
      w_.element("text",
                 {{"class", "tick-label-y"},
                  {"x", coord(f_.left - 8)},
                  {"y", coord(f_.py(f_.yt.values[i]) + 4)},
                  {"text-anchor", "end"}},
                 yLabels_[i]);
    w_.close("g");
  }

  /// Under the data, so the curve stays readable where it runs along a limit.
  void writeReferenceLines() {
    if (references_.empty())
      return;
    w_.open("g", {{"class", "references"}, {"stroke-width", "1.5"}, {"stroke-dasharray", "6 4"}});
    for (const ReferenceLine *r : references_)
      w_.empty("line", {{"class", "reference"},
                        {"x1", coord(f_.left)},
                        {"y1", coord(f_.py(r->y))},
                        {"x2", coord(f_.right)},
                        {"y2", coord(f_.py(r->y))},
                        {"stroke", r->color}});
    w_.close("g");
  }

  void writeSeries() {
    w_.open("g", {{"class", "data"},
                  {"fill", "none"},
                  {"stroke-width", "2"},
                  {"stroke-linejoin", "round"},
                  {"stroke-linecap", "round"}});
    for (size_t i = 0; i < c_.series.size(); ++i) {
      const Series &series = c_.series[i];
      for (const auto &polyline : visiblePolylines(f_, series)) {
        std::string points;
        for (const Pixel &p : polyline) {
          // Appended piece by piece: a temporary `"" + std::string` here trips GCC 12's false
          // -Wrestrict at -O3.
          if (!points.empty())
            points += ' ';
          points += coord(p.x);
          points += ',';
          points += coord(p.y);
        }
        w_.empty("polyline", {{"class", "series"}, {"stroke", seriesColor(i)}, {"points", points}});
      }
      // A lone point has no segment to draw: show it as a dot.
      if (series.points.size() == 1 && f_.placeable(series.points[0]) && f_.contains(f_.map(series.points[0]))) {
        Pixel p = f_.map(series.points[0]);
        w_.empty("circle", {{"class", "series"},
                            {"cx", coord(p.x)},
                            {"cy", coord(p.y)},
                            {"r", "3"},
                            {"fill", seriesColor(i)},
                            {"stroke", "none"}});
      }
    }
    w_.close("g");
  }

  /// A dot on the point and a dashed drop line to the x axis, to read its x value off.
  void writeMarkers() {
    if (markers_.empty())
      return;
    w_.open("g", {{"class", "markers"}});
    for (const auto &[m, p] : markers_) {
      w_.empty("line", {{"class", "marker-drop"},
                        {"x1", coord(p.x)},
                        {"y1", coord(p.y)},
                        {"x2", coord(p.x)},
                        {"y2", coord(f_.bottom)},
                        {"stroke", m->color},
                        {"stroke-width", "1"},
                        {"stroke-dasharray", "3 3"}});
      w_.empty("circle", {{"class", "marker"},
                          {"cx", coord(p.x)},
                          {"cy", coord(p.y)},
                          {"r", "5"},
                          {"fill", m->color},
                          {"stroke", "#ffffff"},
                          {"stroke-width", "1.5"}});
    }
    w_.close("g");
  }

  /// Over everything, with a white halo (paint-order: stroke) so the lines under them do not hurt.
  void writeAnnotationLabels() {
    bool any = std::any_of(references_.begin(), references_.end(), [](auto *r) { return !r->label.empty(); }) ||
               std::any_of(markers_.begin(), markers_.end(), [](auto &m) { return !m.first->label.empty(); });
    if (!any)
      return;
    w_.open("g", {{"class", "labels"},
                  {"stroke", "#ffffff"},
                  {"stroke-width", "3"},
                  {"stroke-linejoin", "round"},
                  {"paint-order", "stroke"}});
    // Each label's box as placed so far (text width estimated, one font size tall): a marker's label
    // takes the first place beside its dot that stays in the plot and clears them, so a marker at the
    // limit does not write over the limit's label.
    struct Box {
      double x0, y0, x1, y1;
      bool overlaps(const Box &o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
    };
    std::vector<Box> placed;
    auto box = [](double x, double baseline, double width, bool endAnchored) {
      const double x0 = endAnchored ? x - width : x;
      return Box{x0, baseline - kTickFont, x0 + width, baseline + 4};
    };
    for (const ReferenceLine *r : references_) {
      if (r->label.empty())
        continue;
      // At the right end, above the line unless that leaves the plot.
      double y = f_.py(r->y);
      const double baseline = y - 5 - kTickFont < f_.top ? y + 15 : y - 5;
      placed.push_back(box(f_.right - 4, baseline, textWidth(r->label, kTickFont), true));
      w_.element("text",
                 {{"class", "reference-label"},
                  {"x", coord(f_.right - 4)},
                  {"y", coord(baseline)},
                  {"text-anchor", "end"},
                  {"fill", r->color}},
                 r->label);
    }
    for (const auto &[m, p] : markers_) {
      if (m->label.empty())
        continue;
      // Preferably right of the dot and above it; then the other side, then below, beside, and a
      // line further down (a dot in a corner under a reference label).
      const double width = textWidth(m->label, kTickFont);
      const Box plot{f_.left, f_.top, f_.right, f_.bottom};
      struct Place {
        double x, baseline;
        bool endAnchored;
      };
      const std::array<Place, 8> places = {Place{p.x + 8, p.y - 8, false},  Place{p.x - 8, p.y - 8, true},
                                           Place{p.x + 8, p.y + 18, false}, Place{p.x - 8, p.y + 18, true},
                                           Place{p.x + 10, p.y + 4, false}, Place{p.x - 10, p.y + 4, true},
                                           Place{p.x + 8, p.y + 36, false}, Place{p.x - 8, p.y + 36, true}};
      auto fits = [&](const Place &c) {
        const Box b = box(c.x, c.baseline, width, c.endAnchored);
        return b.x0 >= plot.x0 && b.x1 <= plot.x1 && b.y0 >= plot.y0 && b.y1 <= plot.y1 + 4 &&
               std::none_of(placed.begin(), placed.end(), [&](const Box &o) { return o.overlaps(b); });
      };
      auto chosen = std::find_if(places.begin(), places.end(), fits);
      Place at = chosen != places.end() ? *chosen : places[0];
      if (chosen == places.end()) {
        // Nowhere clear: the old rule (inside the plot, overlap or not).
        const bool leftOfDot = p.x + 8 + width > f_.right;
        at = {leftOfDot ? p.x - 8 : p.x + 8, p.y - 8 - kTickFont < f_.top ? p.y + 18 : p.y - 8, leftOfDot};
      }
      placed.push_back(box(at.x, at.baseline, width, at.endAnchored));
      w_.element("text",
                 {{"class", "marker-label"},
                  {"x", coord(at.x)},
                  {"y", coord(at.baseline)},
                  {"text-anchor", at.endAnchored ? "end" : "start"},
                  {"fill", kTextColor},
                  {"font-weight", "bold"}},
                 m->label);
    }
    w_.close("g");
  }

  void writeTitles() {
    w_.open("g", {{"fill", kTextColor}});
    if (!c_.title.empty())
      w_.element("text",
                 {{"class", "title"},
                  {"x", coord(width_ / 2)},
                  {"y", "22"},
                  {"text-anchor", "middle"},
                  {"font-size", std::to_string(kTitleFont)},
                  {"font-weight", "bold"}},
                 c_.title);
    if (!c_.x.label.empty())
      w_.element("text",
                 {{"class", "axis-label-x"},
                  {"x", coord((f_.left + f_.right) / 2)},
                  {"y", coord(height_ - 10)},
                  {"text-anchor", "middle"},
                  {"font-size", std::to_string(kLabelFont)}},
                 c_.x.label);
    if (!c_.y.label.empty())
      w_.element("text",
                 {{"class", "axis-label-y"},
                  {"transform", "translate(18," + coord((f_.top + f_.bottom) / 2) + ") rotate(-90)"},
                  {"text-anchor", "middle"},
                  {"font-size", std::to_string(kLabelFont)}},
                 c_.y.label);
    w_.close("g");
  }

  void writeLegend() {
    if (legend_.empty())
      return;
    w_.open("g", {{"class", "legend"}});
    for (const LegendItem &item : legend_) {
      double baseline = legendBaseline_ + item.row * kLegendRow;
      w_.empty("line", {{"x1", coord(item.x)},
                        {"y1", coord(baseline - 4)},
                        {"x2", coord(item.x + 18)},
                        {"y2", coord(baseline - 4)},
                        {"stroke", item.color},
                        {"stroke-width", "2"}});
      w_.element("text", {{"x", coord(item.x + 24)}, {"y", coord(baseline)}, {"fill", kTextColor}}, item.name);
    }
    w_.close("g");
  }
};

} // namespace

Ticks niceTicks(double lo, double hi, int targetCount, TickStyle style) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    lo = 0;
    hi = 1;
  }
  if (lo > hi)
    std::swap(lo, hi);
  if (lo == hi) { // a single value: give it room, keeping an all-zero axis zero-based
    double pad = std::abs(lo) * 0.1;
    if (lo == 0)
      hi = 1;
    lo -= pad;
    hi += pad;
  }
  double span = hi - lo;
  if (!std::isfinite(span) || !(span > 0)) // overflowed, or too small for double to widen
    return niceTicks(0, 1, targetCount, style);
  int intervals = std::clamp(targetCount, 2, 50) - 1;

  double bestStep = 0, bestWaste = 0;
  long long bestFirst = 0, bestLast = 0, bestMiss = 0;
  for (double step : candidateSteps(span / intervals, style)) {
    if (step == 0 || !std::isfinite(step)) // a power past the range of double, for subnormal or huge spans
      continue;
    auto first = static_cast<long long>(std::floor(lo / step + kStepEpsilon));
    auto last = static_cast<long long>(std::ceil(hi / step - kStepEpsilon));
    if (last <= first)
      last = first + 1;
    if (!std::isfinite(static_cast<double>(first) * step) || !std::isfinite(static_cast<double>(last) * step))
      continue; // widening to whole steps would pass DBL_MAX
    long long miss = std::llabs(last - first - intervals);
    double waste = static_cast<double>(last - first) * step - span;
    bool better = bestStep == 0 || miss < bestMiss ||
                  (miss == bestMiss && waste < bestWaste - kStepEpsilon * std::max(1.0, span));
    if (better) {
      bestStep = step;
      bestWaste = waste;
      bestFirst = first;
      bestLast = last;
      bestMiss = miss;
    }
  }

  if (bestStep == 0)
    return niceTicks(0, 1, targetCount, style);

  Ticks ticks;
  ticks.step = bestStep;
  int decimals = decimalsFor(bestStep);
  ticks.decimals = std::min(decimals, kMaxDecimals);
  for (long long i = bestFirst; i <= bestLast; ++i) {
    // i * step may be 0.30000000000000004: snap to the decimals the labels show, where they are exact.
    double v = static_cast<double>(i) * bestStep;
    if (decimals <= kMaxDecimals)
      v = scaleByPow10(std::round(scaleByPow10(v, decimals)), -decimals);
    ticks.values.push_back(v == 0 ? 0.0 : v); // no -0
  }
  ticks.min = ticks.values.front();
  ticks.max = ticks.values.back();
  return ticks;
}

Ticks logTicks(double lo, double hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo > 0) || !(hi > 0)) {
    lo = 1;
    hi = 10;
  }
  if (lo > hi)
    std::swap(lo, hi);
  // Decades from the power of ten at or below lo to the one at or above hi, at least one; the
  // epsilon keeps an exact power (1000) from rounding to the next decade.
  int first = static_cast<int>(std::floor(std::log10(lo) + kStepEpsilon));
  int last = static_cast<int>(std::ceil(std::log10(hi) - kStepEpsilon));
  first = std::clamp(first, -300, 300);
  last = std::clamp(std::max(last, first + 1), -300, 301);
  const std::vector<double> mantissas = last - first <= 3 ? std::vector<double>{1, 2, 5} : std::vector<double>{1};
  std::vector<double> candidates;
  for (int e = first; e <= last; ++e)
    for (double m : mantissas)
      if (e < last || m == 1)
        candidates.push_back(scaleByPow10(m, e));
  // The axis runs from the last candidate at or below lo to the first at or above hi.
  size_t begin = 0, end = candidates.size() - 1;
  while (begin + 1 < candidates.size() && candidates[begin + 1] <= lo * (1 + kStepEpsilon))
    ++begin;
  while (end > begin + 1 && candidates[end - 1] >= hi * (1 - kStepEpsilon))
    --end;
  Ticks ticks;
  ticks.step = 0;
  ticks.values.assign(candidates.begin() + static_cast<std::ptrdiff_t>(begin),
                      candidates.begin() + static_cast<std::ptrdiff_t>(end) + 1);
  ticks.min = ticks.values.front();
  ticks.max = ticks.values.back();
  ticks.decimals = std::clamp(-first, 0, kMaxDecimals);
  return ticks;
}

std::string logTickLabel(double value) {
  if (!(value > 0) || !std::isfinite(value))
    return formatFixed(value, 0);
  if (value >= 1e6)
    return formatFixed(value / 1e6, value / 1e6 == std::round(value / 1e6) ? 0 : 1) + "M";
  if (value >= 1e4)
    return formatFixed(value / 1e3, value / 1e3 == std::round(value / 1e3) ? 0 : 1) + "k";
  const int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(value) - kStepEpsilon)), 0, kMaxDecimals);
  return formatFixed(value, decimals);
}

std::string formatFixed(double value, int decimals) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  decimals = std::clamp(decimals, 0, 20);
  char buffer[400]; // DBL_MAX has 309 integer digits
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals);
  std::string s(buffer, result.ptr);
  if (s.front() == '-' && s.find_first_not_of("0.", 1) == std::string::npos)
    s.erase(0, 1);
  return s;
}

std::string escapeXml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto *p = reinterpret_cast<const unsigned char *>(text.data());
  const auto *end = p + text.size();
  while (p < end) {
    unsigned char c = *p;
    if (c < 0x80) {
      switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r')
          out += static_cast<char>(c);
      }
      ++p;
      continue;
    }
    // Multi-byte UTF-8: accept only shortest-form encodings of scalar values (RFC 3629), which rules out
    // overlong forms and surrogates; XML additionally forbids U+FFFE and U+FFFF.
    int length = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    bool valid = length != 0 && end - p >= length;
    if (valid) {
      unsigned char lo = 0x80, hi = 0xBF; // the allowed range of the second byte
      if (c == 0xE0)
        lo = 0xA0;
      else if (c == 0xED)
        hi = 0x9F;
      else if (c == 0xF0)
        lo = 0x90;
      else if (c == 0xF4)
        hi = 0x8F;
      valid = p[1] >= lo && p[1] <= hi;
      for (int i = 2; valid && i < length; ++i)
        valid = (p[i] & 0xC0) == 0x80;
      if (valid && c == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF))
        valid = false;
    }
    if (valid) {
      out.append(reinterpret_cast<const char *>(p), length);
      p += length;
    } else {
      out += "\xEF\xBF\xBD"; // U+FFFD REPLACEMENT CHARACTER
      ++p;
    }
  }
  return out;
}

std::string LineChart::renderSvg() const {
  return ChartRenderer(*this).render();
}

} // namespace ptxray::report
