// The SVG chart renderer: tick choice, number formatting, escaping, well-formedness (our own checker, and
// xmllint where installed), a golden file, and geometry read back out of the SVG (the marker on its data
// point, reference lines at their value, step corners, clipping).
#include "report/SvgChart.h"

#include "XmlTree.h"
#include "support/TestFiles.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <unistd.h>

namespace ptxray {
namespace {

using report::Axis;
using report::LineChart;
using report::Marker;
using report::niceTicks;
using report::Point;
using report::ReferenceLine;
using report::Series;
using report::SeriesStyle;
using report::Ticks;
using report::TickStyle;
using test::findElements;
using test::parseXml;
using test::XmlElement;
using ::testing::ElementsAre;

// --- ticks -----------------------------------------------------------------------------------------------

TEST(NiceTicks, BinaryThreadsPerBlock) {
  auto t = niceTicks(0, 1024, 5, TickStyle::Binary);
  EXPECT_THAT(t.values, ElementsAre(0, 256, 512, 768, 1024));
  EXPECT_EQ(t.step, 256);
  EXPECT_EQ(t.decimals, 0);
}

TEST(NiceTicks, DecimalUnitInterval) {
  auto t = niceTicks(0, 1);
  EXPECT_THAT(t.values, ElementsAre(0, 0.25, 0.5, 0.75, 1));
  EXPECT_EQ(t.decimals, 2);
}

TEST(NiceTicks, DecimalPercentAndWidening) {
  EXPECT_THAT(niceTicks(0, 100).values, ElementsAre(0, 25, 50, 75, 100));
  EXPECT_THAT(niceTicks(3, 97).values, ElementsAre(0, 25, 50, 75, 100));
  // Decimal 0..1024 cannot end on 1024: the closest count, then the least waste.
  EXPECT_THAT(niceTicks(0, 1024).values, ElementsAre(0, 250, 500, 750, 1000, 1250));
}

TEST(NiceTicks, BinaryWidensToAPowerOfTwoMultiple) {
  auto registers = niceTicks(1, 255, 5, TickStyle::Binary);
  EXPECT_THAT(registers.values, ElementsAre(0, 64, 128, 192, 256));
  auto sharedBytes = niceTicks(0, 233472, 5, TickStyle::Binary); // 228 KiB
  EXPECT_EQ(sharedBytes.step, 65536);
  EXPECT_EQ(sharedBytes.max, 262144);
  EXPECT_THAT(niceTicks(0, 48, 5, TickStyle::Binary).values, ElementsAre(0, 16, 32, 48));
  EXPECT_THAT(niceTicks(0, 1, 5, TickStyle::Binary).values, ElementsAre(0, 0.25, 0.5, 0.75, 1));
}

TEST(NiceTicks, IntegerNeverSteps2Point5) {
  EXPECT_THAT(niceTicks(0, 10).values, ElementsAre(0, 2.5, 5, 7.5, 10));
  EXPECT_THAT(niceTicks(0, 10, 5, TickStyle::Integer).values, ElementsAre(0, 2, 4, 6, 8, 10));
  EXPECT_THAT(niceTicks(0, 0.2, 5, TickStyle::Integer).values, ElementsAre(0, 1));
}

TEST(NiceTicks, NegativeRangesAndNoNegativeZero) {
  auto t = niceTicks(-1, 1);
  EXPECT_THAT(t.values, ElementsAre(-1, -0.5, 0, 0.5, 1));
  EXPECT_FALSE(std::signbit(t.values[2]));
}

TEST(NiceTicks, ValuesAreSnappedToTheirDecimals) {
  auto t = niceTicks(0, 0.3, 4);
  ASSERT_THAT(t.values, ::testing::SizeIs(4));
  EXPECT_EQ(t.values[3], 0.3); // not 3 * 0.1 == 0.30000000000000004
  EXPECT_EQ(t.decimals, 1);
  auto tiny = niceTicks(0, 1e-6);
  EXPECT_EQ(tiny.decimals, 8); // step 2.5e-7
  EXPECT_EQ(tiny.max, 1e-6);
}

TEST(NiceTicks, DegenerateInput) {
  auto zero = niceTicks(0, 0);
  EXPECT_EQ(zero.min, 0);
  EXPECT_EQ(zero.max, 1);
  auto single = niceTicks(64, 64);
  EXPECT_LT(single.min, 64);
  EXPECT_GT(single.max, 64);
  auto nan = niceTicks(std::nan(""), 5);
  EXPECT_EQ(nan.min, 0);
  EXPECT_EQ(nan.max, 1);
  auto huge = niceTicks(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max());
  EXPECT_EQ(huge.min, 0); // the span overflows: treated as no information
  for (auto [lo, hi] : {std::pair{5e-324, 5e-324}, {0.0, 1e-310}, {0.0, 1e-20}, {1e300, 1e300}, {1e300, 1.5e300}}) {
    auto t = niceTicks(lo, hi);
    ASSERT_GE(t.values.size(), 2u) << lo << ".." << hi;
    EXPECT_LT(t.min, t.max) << lo << ".." << hi;
    for (size_t i = 1; i < t.values.size(); ++i)
      EXPECT_LT(t.values[i - 1], t.values[i]) << lo << ".." << hi;
  }
  EXPECT_THAT(niceTicks(10, 0).values, ElementsAre(0, 2.5, 5, 7.5, 10));
  EXPECT_THAT(niceTicks(0, 1, 0).values, ElementsAre(0, 1)); // at least two ticks
  EXPECT_LE(niceTicks(0, 1, 1000).values.size(), 60u);       // and not unbounded
}

// --- formatting and escaping -----------------------------------------------------------------------------

TEST(FormatFixed, FixedNotationWithoutLocaleOrNegativeZero) {
  EXPECT_EQ(report::formatFixed(0.25, 2), "0.25");
  EXPECT_EQ(report::formatFixed(0.5, 2), "0.50");
  EXPECT_EQ(report::formatFixed(1234567, 0), "1234567");
  EXPECT_EQ(report::formatFixed(1e21, 0), "1000000000000000000000");
  EXPECT_EQ(report::formatFixed(2.675, 1), "2.7");
  EXPECT_EQ(report::formatFixed(-0.0001, 2), "0.00");
  EXPECT_EQ(report::formatFixed(-0.0, 0), "0");
  EXPECT_EQ(report::formatFixed(-1.5, 1), "-1.5");
  EXPECT_EQ(report::formatFixed(std::nan(""), 2), "nan");
}

TEST(EscapeXml, MarkupCharacters) {
  EXPECT_EQ(report::escapeXml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(report::escapeXml("&amp;"), "&amp;amp;");
}

TEST(EscapeXml, KeepsValidUtf8) {
  const std::string text = "Occupancy \xE2\x80\x93 64 KiB \xE2\x89\xA4 228 KiB \xC3\xBC \xF0\x9F\x98\x80";
  EXPECT_EQ(report::escapeXml(text), text);
}

TEST(EscapeXml, DropsCharactersXmlForbids) {
  EXPECT_EQ(report::escapeXml(std::string("a\x01"
                                          "b\tc\nd\re\x1F",
                                          10)),
            "ab\tc\nd\re");
  EXPECT_EQ(report::escapeXml(std::string("x\0y", 3)), "xy");
}

TEST(EscapeXml, ReplacesInvalidUtf8) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(report::escapeXml("\xFF"), fffd);
  EXPECT_EQ(report::escapeXml("\xC0\xAF"), fffd + fffd);            // overlong '/'
  EXPECT_EQ(report::escapeXml("\xED\xA0\x80"), fffd + fffd + fffd); // a surrogate
  EXPECT_EQ(report::escapeXml("\xE2\x82"), fffd + fffd);            // truncated
  EXPECT_EQ(report::escapeXml("\xEF\xBF\xBF"
                              "a"),
            fffd + fffd + fffd + "a");                                         // U+FFFF
  EXPECT_EQ(report::escapeXml("\xF4\x90\x80\x80"), fffd + fffd + fffd + fffd); // above U+10FFFF
}

// --- charts ----------------------------------------------------------------------------------------------

/// Warps per multiprocessor against threads per block, the shape of the occupancy calculator's first
/// graph: 64 warps and 32 blocks per SM at most, 2048 threads per SM.
LineChart occupancyByBlockSize() {
  Series warps{.name = "Active warps per SM"};
  for (int threads = 32; threads <= 1024; threads += 32) {
    int warpsPerBlock = threads / 32;
    int blocks = std::min(32, 2048 / threads);
    warps.points.push_back({double(threads), double(std::min(64, blocks * warpsPerBlock))});
  }
  return LineChart{
      .title = "Impact of varying block size",
      .x = {.label = "Threads per block", .min = 0, .max = 1024, .ticks = TickStyle::Binary},
      .y = {.label = "Active warps per SM", .min = 0, .ticks = TickStyle::Binary},
      .series = {warps},
      .markers = {{.at = {256, 64}, .label = "256 threads"}},
      .references = {{.y = 64, .label = "64 warps: the SM's limit"}},
  };
}

XmlElement parseSvg(const std::string &svg) {
  auto parsed = parseXml(svg);
  EXPECT_TRUE(parsed.root) << parsed.error << "\n" << svg;
  return parsed.root ? *parsed.root : XmlElement{};
}

double number(const XmlElement *e, const char *attribute) {
  return std::stod(e->attr(attribute));
}

/// Tick label text -> the pixel coordinate of its tick (x for the x axis, y for the y axis), read from
/// the tick marks, which come in the same order as the labels.
std::map<std::string, double> tickPositions(const XmlElement &svg, char axis) {
  auto marks = findElements(svg, "line", axis == 'x' ? "tick-x" : "tick-y");
  auto labels = findElements(svg, "text", axis == 'x' ? "tick-label-x" : "tick-label-y");
  EXPECT_EQ(marks.size(), labels.size());
  std::map<std::string, double> out;
  for (size_t i = 0; i < std::min(marks.size(), labels.size()); ++i)
    out[labels[i]->text] = number(marks[i], axis == 'x' ? "x1" : "y1");
  return out;
}

TEST(LineChart, IsAWellFormedStandaloneSvg) {
  std::string svg = occupancyByBlockSize().renderSvg();
  XmlElement root = parseSvg(svg);
  EXPECT_EQ(root.name, "svg");
  EXPECT_EQ(root.attr("xmlns"), "http://www.w3.org/2000/svg");
  EXPECT_EQ(root.attr("viewBox"), "0 0 560 360");
  EXPECT_EQ(root.attr("width"), "560");
  ASSERT_FALSE(root.children.empty());
  EXPECT_EQ(root.children[0].name, "title");
  EXPECT_EQ(root.children[0].text, "Impact of varying block size");
  // Self-contained, and no ids that could clash when several charts share an HTML page.
  EXPECT_EQ(svg.find("href"), std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find(" id="), std::string::npos);
  EXPECT_EQ(svg.find("<?xml"), std::string::npos);
}

TEST(LineChart, EscapesEveryText) {
  const std::string nasty = "<script>alert('x')</script> & \"co\"\x01\xFF";
  LineChart chart{
      .title = nasty,
      .description = nasty,
      .x = {.label = nasty},
      .y = {.label = nasty, .format = [&](double) { return nasty; }},
      .series = {{.name = nasty, .points = {{0, 0}, {1, 1}}, .color = "\"red"}},
      .markers = {{.at = {0.5, 0.5}, .label = nasty}},
      .references = {{.y = 0.5, .label = nasty}},
  };
  std::string svg = chart.renderSvg();
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  XmlElement root = parseSvg(svg);
  const std::string decoded = "<script>alert('x')</script> & \"co\"\xEF\xBF\xBD";
  EXPECT_EQ(root.children[0].text, decoded);
  for (const char *cls : {"title", "axis-label-x", "axis-label-y", "marker-label", "reference-label"}) {
    auto found = findElements(root, "text", cls);
    ASSERT_EQ(found.size(), 1u) << cls;
    EXPECT_EQ(found[0]->text, decoded) << cls;
  }
  EXPECT_EQ(findElements(root, "polyline", "series")[0]->attr("stroke"), "\"red");
}

TEST(LineChart, XmllintAgreesWhenInstalled) {
  if (std::system("command -v xmllint >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "xmllint not installed (Debian: libxml2-utils); our own checker still ran";
  auto path = std::filesystem::temp_directory_path() / ("ptxray-chart-" + std::to_string(::getpid()) + ".svg");
  std::ofstream(path) << occupancyByBlockSize().renderSvg();
  int status = std::system(("xmllint --noout '" + path.string() + "'").c_str());
  std::filesystem::remove(path);
  EXPECT_EQ(status, 0);
}

TEST(LineChart, MarkerSitsOnItsDataPoint) {
  XmlElement svg = parseSvg(occupancyByBlockSize().renderSvg());
  auto xs = tickPositions(svg, 'x');
  auto ys = tickPositions(svg, 'y');
  ASSERT_TRUE(xs.count("256") && ys.count("64") && ys.count("0"));

  auto dots = findElements(svg, "circle", "marker");
  ASSERT_EQ(dots.size(), 1u);
  EXPECT_EQ(number(dots[0], "cx"), xs["256"]);
  EXPECT_EQ(number(dots[0], "cy"), ys["64"]);
  // The dot is a vertex of the curve, and its drop line reaches the x axis.
  auto curve = findElements(svg, "polyline", "series");
  ASSERT_EQ(curve.size(), 1u);
  EXPECT_THAT(curve[0]->attr("points"), ::testing::HasSubstr(dots[0]->attr("cx") + "," + dots[0]->attr("cy")));
  auto drop = findElements(svg, "line", "marker-drop");
  ASSERT_EQ(drop.size(), 1u);
  EXPECT_EQ(number(drop[0], "x1"), xs["256"]);
  EXPECT_EQ(number(drop[0], "y2"), ys["0"]);
  auto label = findElements(svg, "text", "marker-label");
  ASSERT_EQ(label.size(), 1u);
  EXPECT_EQ(label[0]->text, "256 threads");
}

TEST(LineChart, ReferenceLineSpansThePlotAtItsValue) {
  XmlElement svg = parseSvg(occupancyByBlockSize().renderSvg());
  auto ys = tickPositions(svg, 'y');
  auto lines = findElements(svg, "line", "reference");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(number(lines[0], "y1"), ys["64"]);
  EXPECT_EQ(number(lines[0], "y2"), ys["64"]);
  auto xAxis = findElements(svg, "line", "axis-x");
  ASSERT_EQ(xAxis.size(), 1u);
  EXPECT_EQ(number(lines[0], "x1"), number(xAxis[0], "x1"));
  EXPECT_EQ(number(lines[0], "x2"), number(xAxis[0], "x2"));
  auto label = findElements(svg, "text", "reference-label");
  ASSERT_EQ(label.size(), 1u);
  EXPECT_EQ(label[0]->text, "64 warps: the SM's limit");
  EXPECT_EQ(label[0]->attr("text-anchor"), "end");
}

TEST(LineChart, AnnotationsOutsideTheRangeAreLeftOut) {
  LineChart chart = occupancyByBlockSize();
  chart.y.max = 32;
  chart.markers.push_back({.at = {std::nan(""), 1}, .label = "nan"});
  XmlElement svg = parseSvg(chart.renderSvg());
  EXPECT_TRUE(findElements(svg, "circle", "marker").empty());
  EXPECT_TRUE(findElements(svg, "line", "reference").empty());
  EXPECT_TRUE(findElements(svg, "g", "labels").empty());
}

/// A chart on [0, 2] x [0, 2] with ticks at 0, 1, 2 on both axes, so expected pixels can be read off them.
LineChart unitChart(Series series) {
  Axis axis{.min = 0, .max = 2, .ticks = TickStyle::Integer, .tickCount = 3};
  return LineChart{.x = axis, .y = axis, .series = {std::move(series)}};
}

/// The polyline points that pass through the given tick positions: coordinates are written the same way
/// for ticks and data, so the strings match exactly.
std::string expectedPoints(const XmlElement &svg, std::initializer_list<std::pair<int, int>> points) {
  auto xs = tickPositions(svg, 'x');
  auto ys = tickPositions(svg, 'y');
  auto coord = [](double v) {
    std::string s = report::formatFixed(v, 2);
    while (s.find('.') != std::string::npos && (s.back() == '0' || s.back() == '.'))
      s.pop_back();
    return s;
  };
  std::string out;
  for (auto [x, y] : points) {
    if (!out.empty())
      out += ' ';
    out += coord(xs.at(std::to_string(x))) + "," + coord(ys.at(std::to_string(y)));
  }
  return out;
}

TEST(LineChart, StepAfterHoldsEachValueUntilTheNextPoint) {
  XmlElement svg =
      parseSvg(unitChart({.points = {{0, 1}, {1, 2}, {2, 0}}, .style = SeriesStyle::StepAfter}).renderSvg());
  auto curve = findElements(svg, "polyline", "series");
  ASSERT_EQ(curve.size(), 1u);
  EXPECT_EQ(curve[0]->attr("points"), expectedPoints(svg, {{0, 1}, {1, 1}, {1, 2}, {2, 2}, {2, 0}}));
}

TEST(LineChart, StepBeforeJumpsAtThePreviousPoint) {
  XmlElement svg =
      parseSvg(unitChart({.points = {{0, 1}, {1, 2}, {2, 0}}, .style = SeriesStyle::StepBefore}).renderSvg());
  auto curve = findElements(svg, "polyline", "series");
  ASSERT_EQ(curve.size(), 1u);
  EXPECT_EQ(curve[0]->attr("points"), expectedPoints(svg, {{0, 1}, {0, 2}, {1, 2}, {1, 0}, {2, 0}}));
}

TEST(LineChart, ClipsDataOutsideAnExplicitRange) {
  // A line that starts left of the plot, peaks above it and ends right of it.
  XmlElement svg = parseSvg(unitChart({.points = {{-1, 0.5}, {1, 3}, {3, 0.5}}}).renderSvg());
  auto xAxis = findElements(svg, "line", "axis-x");
  auto yAxis = findElements(svg, "line", "axis-y");
  ASSERT_EQ(xAxis.size(), 1u);
  ASSERT_EQ(yAxis.size(), 1u);
  double left = number(xAxis[0], "x1"), right = number(xAxis[0], "x2");
  double top = number(yAxis[0], "y1"), bottom = number(yAxis[0], "y2");
  auto curves = findElements(svg, "polyline", "series");
  ASSERT_EQ(curves.size(), 2u); // up to the top edge, then back down from it
  for (const XmlElement *curve : curves) {
    std::string points = curve->attr("points");
    for (size_t start = 0; start < points.size();) {
      size_t end = std::min(points.find(' ', start), points.size());
      std::string pair = points.substr(start, end - start);
      double x = std::stod(pair.substr(0, pair.find(','))), y = std::stod(pair.substr(pair.find(',') + 1));
      EXPECT_GE(x, left - 0.01);
      EXPECT_LE(x, right + 0.01);
      EXPECT_GE(y, top - 0.01);
      EXPECT_LE(y, bottom + 0.01);
      start = end + 1;
    }
  }
}

TEST(LineChart, NonFinitePointsLeaveAGap) {
  double nan = std::nan("");
  XmlElement svg = parseSvg(unitChart({.points = {{0, 0}, {0.5, 1}, {nan, 1}, {1, 1}, {2, 2}}}).renderSvg());
  EXPECT_EQ(findElements(svg, "polyline", "series").size(), 2u);
  XmlElement lone = parseSvg(unitChart({.points = {{1, 1}}}).renderSvg());
  EXPECT_EQ(findElements(lone, "circle", "series").size(), 1u);
}

TEST(LineChart, LegendOnlyForNamedSeries) {
  XmlElement unnamed = parseSvg(unitChart({.points = {{0, 0}, {2, 2}}}).renderSvg());
  EXPECT_TRUE(findElements(unnamed, "g", "legend").empty());

  LineChart chart = unitChart({.name = "this kernel", .points = {{0, 0}, {2, 2}}});
  chart.series.push_back({.name = "with 32 registers", .points = {{0, 1}, {2, 1}}});
  XmlElement named = parseSvg(chart.renderSvg());
  auto legend = findElements(named, "g", "legend");
  ASSERT_EQ(legend.size(), 1u);
  auto names = findElements(*legend[0], "text");
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0]->text, "this kernel");
  EXPECT_EQ(names[1]->text, "with 32 registers");
  // Palette colours, in order, shared by each line and its legend swatch.
  auto curves = findElements(named, "polyline", "series");
  auto swatches = findElements(*legend[0], "line");
  ASSERT_EQ(curves.size(), 2u);
  ASSERT_EQ(swatches.size(), 2u);
  EXPECT_EQ(curves[0]->attr("stroke"), "#1f77b4");
  EXPECT_EQ(curves[1]->attr("stroke"), "#2ca02c");
  EXPECT_EQ(swatches[1]->attr("stroke"), "#2ca02c");
}

TEST(LineChart, TickLabelsUseTheStepsDecimalsOrTheCallersFormat) {
  LineChart chart{.x = {.min = 0, .max = 1},
                  .y = {.min = 0, .max = 65536, .ticks = TickStyle::Binary, .format = [](double v) {
                          return report::formatFixed(v / 1024, 0) + " KiB";
                        }}};
  XmlElement svg = parseSvg(chart.renderSvg());
  std::vector<std::string> xs, ys;
  for (auto *e : findElements(svg, "text", "tick-label-x"))
    xs.push_back(e->text);
  for (auto *e : findElements(svg, "text", "tick-label-y"))
    ys.push_back(e->text);
  EXPECT_THAT(xs, ElementsAre("0.00", "0.25", "0.50", "0.75", "1.00"));
  EXPECT_THAT(ys, ElementsAre("0 KiB", "16 KiB", "32 KiB", "48 KiB", "64 KiB"));
}

TEST(LineChart, EmptyChartStillRenders) {
  XmlElement svg = parseSvg(LineChart{}.renderSvg());
  EXPECT_EQ(findElements(svg, "text", "tick-label-x").size(), 5u);
  EXPECT_TRUE(findElements(svg, "polyline").empty());
  XmlElement tiny = parseSvg(LineChart{.title = "t", .width = 1, .height = 1}.renderSvg());
  EXPECT_EQ(tiny.attr("viewBox"), "0 0 160 120");
}

TEST(LineChart, RenderingIsDeterministic) {
  LineChart chart = occupancyByBlockSize();
  EXPECT_EQ(chart.renderSvg(), chart.renderSvg());
  LineChart copy = chart;
  EXPECT_EQ(copy.renderSvg(), chart.renderSvg());
}

/// Random charts, hostile numbers included (NaN, infinities, huge, subnormal, reversed ranges): every one
/// renders well-formed, and no coordinate is written as nan or inf. Fixed seed: failures reproduce.
TEST(LineChart, RandomChartsAlwaysRenderWellFormed) {
  std::mt19937 rng(20240611);
  const double specials[] = {
      0,    -0.0, 1,     -1,    1e-310,      1e308, -1e308, std::numeric_limits<double>::infinity(),
      1024, 0.1,  65536, 1e-20, std::nan("")};
  auto value = [&]() {
    if (rng() % 4 == 0)
      return specials[rng() % std::size(specials)];
    return std::uniform_real_distribution<double>(-1000, 1000)(rng);
  };
  for (int round = 0; round < 300; ++round) {
    LineChart chart{.title = round % 2 ? "t" : ""};
    for (Axis *axis : {&chart.x, &chart.y}) {
      axis->ticks = static_cast<TickStyle>(rng() % 3);
      axis->tickCount = static_cast<int>(rng() % 12);
      axis->label = rng() % 2 ? "label" : "";
      if (rng() % 2)
        axis->min = value();
      if (rng() % 2)
        axis->max = value();
    }
    for (int s = rng() % 4; s > 0; --s) {
      Series series{.name = rng() % 2 ? "series" : "", .style = static_cast<SeriesStyle>(rng() % 3)};
      for (int n = rng() % 20; n > 0; --n)
        series.points.push_back({value(), value()});
      chart.series.push_back(series);
    }
    if (rng() % 2)
      chart.markers.push_back({.at = {value(), value()}, .label = "m"});
    if (rng() % 2)
      chart.references.push_back({.y = value(), .label = "r"});
    const std::string svg = chart.renderSvg();
    SCOPED_TRACE(::testing::Message() << "round " << round << ": x " << chart.x.min.value_or(-0.5) << ".."
                                      << chart.x.max.value_or(-0.5) << ", y " << chart.y.min.value_or(-0.5) << ".."
                                      << chart.y.max.value_or(-0.5) << " (-0.5: unset)");
    auto parsed = parseXml(svg);
    ASSERT_TRUE(parsed.root) << parsed.error;
    ASSERT_EQ(svg.find("nan"), std::string::npos) << svg;
    ASSERT_EQ(svg.find("inf"), std::string::npos) << svg;
  }
}

// --- log axes and label placement (issue #30) -------------------------------------------------------------

TEST(LogTicks, OneTwoFiveWithinThreeDecades) {
  EXPECT_THAT(report::logTicks(3, 900).values, ElementsAre(2, 5, 10, 20, 50, 100, 200, 500, 1000));
  const Ticks exact = report::logTicks(10, 1000); // exact powers stay the ends
  EXPECT_EQ(exact.min, 10);
  EXPECT_EQ(exact.max, 1000);
  EXPECT_EQ(report::logTicks(0.03, 0.4).decimals, 2);
}

TEST(LogTicks, PowersOfTenBeyondThreeDecadesAndDegenerateInput) {
  EXPECT_THAT(report::logTicks(3, 2000).values, ElementsAre(1, 10, 100, 1000, 10000));
  EXPECT_THAT(report::logTicks(0, -5).values, ElementsAre(1, 2, 5, 10));
  EXPECT_THAT(report::logTicks(7, 7).values, ElementsAre(5, 10));
}

TEST(LogTicks, LabelsReadWell) {
  std::vector<std::string> labels;
  for (double v : {0.05, 0.2, 2.0, 500.0, 1000.0, 20000.0, 1e6, 1.5e6})
    labels.push_back(report::logTickLabel(v));
  EXPECT_THAT(labels, ElementsAre("0.05", "0.2", "2", "500", "1000", "20k", "1M", "1.5M"));
}

TEST(LineChart, LogAxisSpacesDecadesEquallyAndLeavesNonPositiveValuesOut) {
  LineChart chart{.y = {.label = "GB/s", .logarithmic = true},
                  .series = {{.points = {{0, 1}, {1, 10}, {2, 100}, {3, 0}, {4, 1000}, {5, 500}}}}};
  XmlElement svg = parseSvg(chart.renderSvg());
  auto ys = tickPositions(svg, 'y');
  ASSERT_TRUE(ys.count("1") && ys.count("10") && ys.count("100") && ys.count("1000")) << chart.renderSvg();
  EXPECT_NEAR(ys["1"] - ys["10"], ys["10"] - ys["100"], 0.02);
  EXPECT_NEAR(ys["10"] - ys["100"], ys["100"] - ys["1000"], 0.02);
  // 2 lies log10(2) of a decade above 1, not a ninth of the way to 10.
  EXPECT_NEAR((ys["1"] - ys["2"]) / (ys["1"] - ys["10"]), std::log10(2.0), 0.01);
  EXPECT_EQ(findElements(svg, "polyline", "series").size(), 2u); // the zero is a gap
}

TEST(LineChart, MarkerLabelClearsTheReferenceLabelInACorner) {
  // A block at the limit: the dot sits in the top-right corner, where the limit's label is.
  LineChart chart = occupancyByBlockSize();
  chart.markers = {{.at = {1024, 64}, .label = "1024 threads"}};
  XmlElement svg = parseSvg(chart.renderSvg());
  auto box = [](const XmlElement *t) {
    const double width = static_cast<double>(t->text.size()) * 12 * 0.6, x = number(t, "x"), y = number(t, "y");
    const double x0 = t->attr("text-anchor") == "end" ? x - width : x;
    return std::array<double, 4>{x0, y - 12, x0 + width, y + 4};
  };
  auto reference = findElements(svg, "text", "reference-label");
  auto marker = findElements(svg, "text", "marker-label");
  ASSERT_EQ(reference.size(), 1u);
  ASSERT_EQ(marker.size(), 1u);
  const auto a = box(reference[0]), b = box(marker[0]);
  const bool overlap = a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
  EXPECT_FALSE(overlap) << "reference label at " << a[0] << "," << a[1] << ", marker label at " << b[0] << "," << b[1];
}

// --- golden file -----------------------------------------------------------------------------------------

/// Every feature in one small chart: two series (line and step), a legend, a marker, a reference line,
/// Binary and Decimal ticks.
LineChart goldenChart() {
  return LineChart{
      .title = "Impact of varying register count per thread",
      .description = "Active warps per SM against registers per thread; the dot is the current kernel.",
      .x = {.label = "Registers per thread", .min = 0, .max = 256, .ticks = TickStyle::Binary},
      .y = {.label = "Occupancy (%)", .min = 0, .max = 100},
      .series = {{.name = "occupancy",
                  .points = {{32, 100}, {64, 50}, {96, 31.25}, {128, 25}, {168, 18.75}, {255, 12.5}},
                  .style = SeriesStyle::StepBefore},
                 {.name = "if blocks were 128 threads", .points = {{32, 100}, {64, 50}, {128, 25}, {255, 12.5}}}},
      .markers = {{.at = {64, 50}, .label = "this kernel: 64 registers"}},
      .references = {{.y = 75, .label = "target 75%"}},
      .width = 480,
      .height = 300,
  };
}

// To regenerate after an intended change to the renderer, run
//   PTXRAY_UPDATE_GOLDEN=1 /tmp/report-build/tests/ptxray_tests --gtest_filter='SvgChartGolden.*'
// then open tests/report/golden/register_chart.svg in a browser and review the picture and the diff
// before committing it.
TEST(SvgChartGolden, RegisterChart) {
  const auto path = test::sourceDir() / "tests/report/golden/register_chart.svg";
  const std::string svg = goldenChart().renderSvg();
  if (const char *update = std::getenv("PTXRAY_UPDATE_GOLDEN"); update && *update == '1') {
    std::ofstream(path, std::ios::binary) << svg;
    GTEST_SKIP() << "rewrote " << path;
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing; see the comment above to generate it";
  EXPECT_EQ(svg, test::readFile(path)) << "the chart differs from " << path;
  EXPECT_TRUE(parseXml(svg).root);
}

} // namespace
} // namespace ptxray
