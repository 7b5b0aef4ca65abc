// The HTML report page: structure and order, escaping, self-containment, and (where Chromium is
// installed) that a browser actually draws it: render_html_test.sh screenshots the page headless and
// checks the PNG. The PNG checker itself is tested on fixtures, so it is covered without a browser.
#include "report/HtmlPage.h"

#include "XmlTree.h"
#include "support/TestFiles.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

namespace ptxray {
namespace {

using report::HtmlPage;
using report::LineChart;
using report::TickStyle;
using test::findElements;
using test::parseXml;
using test::XmlElement;

LineChart smallChart(std::string title, double markerX) {
  return LineChart{
      .title = std::move(title),
      .x = {.label = "Threads per block", .min = 0, .max = 1024, .ticks = TickStyle::Binary},
      .y = {.label = "Active warps per SM", .min = 0, .max = 64, .ticks = TickStyle::Binary},
      .series = {{.name = "occupancy", .points = {{0, 0}, {256, 64}, {512, 64}, {768, 48}, {1024, 64}}}},
      .markers = {{.at = {markerX, 64}, .label = "current"}},
      .references = {{.y = 64, .label = "SM limit"}},
  };
}

HtmlPage samplePage() {
  HtmlPage page("Occupancy of saxpy(float*, float const*, float, int) on sm_90");
  page.addTable({{"Threads per block", "256"}, {"Registers per thread", "32"}, {"Occupancy", "100%"}},
                "Launch configuration")
      .addParagraph("Occupancy is limited by the warps per multiprocessor.")
      .addHeading("Graphs")
      .addChart(smallChart("Impact of varying block size", 256), "The dot is this launch.")
      .addChart(smallChart("Impact of varying register count", 512))
      .addParagraph("Done.");
  return page;
}

XmlElement parsePage(const std::string &html) {
  auto parsed = parseXml(html);
  EXPECT_TRUE(parsed.root) << parsed.error;
  return parsed.root ? *parsed.root : XmlElement{};
}

TEST(HtmlPage, IsAWellFormedHtml5DocumentInOrder) {
  const std::string html = samplePage().render();
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
  XmlElement root = parsePage(html);
  ASSERT_EQ(root.name, "html");
  ASSERT_EQ(root.children.size(), 2u);
  const XmlElement &head = root.children[0];
  const XmlElement &body = root.children[1];
  EXPECT_EQ(head.name, "head");
  ASSERT_FALSE(head.children.empty());
  EXPECT_EQ(head.children[0].name, "meta"); // charset first, as HTML requires
  EXPECT_EQ(head.children[0].attr("charset"), "utf-8");
  EXPECT_EQ(findElements(head, "title").at(0)->text, "Occupancy of saxpy(float*, float const*, float, int) on sm_90");
  EXPECT_EQ(findElements(head, "style").size(), 1u);

  std::vector<std::string> order;
  for (const XmlElement &child : body.children)
    order.push_back(child.name + (child.attr("class").empty() ? "" : "." + child.attr("class")));
  EXPECT_THAT(order, ::testing::ElementsAre("h1", "table.summary", "p", "h2", "div.charts", "p"));

  auto rows = findElements(body, "tr");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1]->children.at(0).name, "th");
  EXPECT_EQ(rows[1]->children.at(0).text, "Registers per thread");
  EXPECT_EQ(rows[1]->children.at(1).text, "32");
  EXPECT_EQ(findElements(body, "caption").at(0)->text, "Launch configuration");

  // Both charts in one row container, each a figure holding an inline SVG.
  auto figures = findElements(body, "figure");
  ASSERT_EQ(figures.size(), 2u);
  EXPECT_EQ(figures[0]->children.at(0).name, "svg");
  EXPECT_EQ(findElements(*figures[0], "figcaption").at(0)->text, "The dot is this launch.");
  EXPECT_TRUE(findElements(*figures[1], "figcaption").empty());
  EXPECT_EQ(findElements(body, "circle", "marker").size(), 2u);
}

TEST(HtmlPage, EscapesAllText) {
  HtmlPage page("a < b & \"c\"");
  page.addHeading("<h2>").addParagraph("</p><script>x()</script>").addTable({{"<th>", "&amp;"}}, "<caption>");
  page.addChart(LineChart{.title = "<svg>"}, "</figure>");
  const std::string html = page.render();
  EXPECT_EQ(html.find("<script"), std::string::npos);
  XmlElement root = parsePage(html);
  EXPECT_EQ(findElements(root, "h1").at(0)->text, "a < b & \"c\"");
  EXPECT_EQ(findElements(root, "h2").at(0)->text, "<h2>");
  EXPECT_EQ(findElements(root, "p").at(0)->text, "</p><script>x()</script>");
  EXPECT_EQ(findElements(root, "th").at(0)->text, "<th>");
  EXPECT_EQ(findElements(root, "td").at(0)->text, "&amp;");
  EXPECT_EQ(findElements(root, "figcaption").at(0)->text, "</figure>");
}

TEST(HtmlPage, NeedsNothingFromOutside) {
  const std::string html = samplePage().render();
  for (const char *reference : {"<script", "<link", "<img", "<iframe", "src=", "href=", "@import", "url("})
    EXPECT_EQ(html.find(reference), std::string::npos) << reference;
  // The only URLs are the SVG namespace names, which are never fetched.
  for (size_t at = html.find("http"); at != std::string::npos; at = html.find("http", at + 1))
    EXPECT_EQ(html.compare(at, 26, "http://www.w3.org/2000/svg"), 0) << html.substr(at, 40);
}

TEST(HtmlPage, InlinedSvgLosesItsXmlDeclaration) {
  HtmlPage page("t");
  page.addSvg("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
  const std::string html = page.render();
  EXPECT_EQ(html.find("<?xml"), std::string::npos);
  EXPECT_NE(html.find("<figure>\n<svg xmlns"), std::string::npos);
  parsePage(html);
}

TEST(HtmlPage, RenderingIsDeterministic) {
  EXPECT_EQ(samplePage().render(), samplePage().render());
}

TEST(HtmlPage, NumbersAreRightAlignedTextLeftAligned) {
  for (const char *number : {"12", "-3.5", ".5", "57.1%", "1.23 us (5%)"})
    EXPECT_TRUE(report::isNumericCell(number)) << number;
  for (const char *text : {"sm_90", "-", "", "high", "x1", "refused: too many resources"})
    EXPECT_FALSE(report::isNumericCell(text)) << text;

  HtmlPage page("t");
  page.addDataTable({.caption = "findings",
                     .headerGroups = {{"", 1}, {"saxpy", 2}},
                     .headers = {"rule", "count", "gain"},
                     .rows = {{"uncoalesced-global", "12", "1.50 us (5%)"}, {"tail-wave", "3", "-"}}});
  XmlElement root = parsePage(page.render());
  // The table scrolls inside its own box, never the page.
  auto boxes = findElements(root, "div", "table-scroll");
  ASSERT_EQ(boxes.size(), 1u);
  ASSERT_EQ(findElements(*boxes[0], "table", "data").size(), 1u);
  auto headers = findElements(root, "th");
  ASSERT_EQ(headers.size(), 5u); // two group headers, three column headers
  EXPECT_EQ(headers[1]->attr("colspan"), "2");
  EXPECT_EQ(headers[1]->text, "saxpy");
  EXPECT_EQ(headers[2]->attr("class"), "");
  EXPECT_EQ(headers[3]->attr("class"), "num");
  EXPECT_EQ(headers[4]->attr("class"), "num"); // "-" does not make a column text
  auto cells = findElements(root, "td");
  ASSERT_EQ(cells.size(), 6u);
  EXPECT_EQ(cells[0]->attr("class"), "");
  EXPECT_EQ(cells[1]->attr("class"), "num");
  EXPECT_EQ(cells[2]->attr("class"), "num");
}

// --- render_html_test.sh ----------------------------------------------------------------------------------

/// Runs the render script with `args`; returns its exit status (77: skipped).
int runRenderScript(const std::string &args) {
  const auto script = test::sourceDir() / "tests/report/render_html_test.sh";
  int status = std::system(("bash '" + script.string() + "' " + args).c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class ScratchDir {
public:
  ScratchDir() : path_(std::filesystem::temp_directory_path() / ("ptxray-report-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::string operator/(const std::string &name) const { return (path_ / name).string(); }

private:
  std::filesystem::path path_;
};

TEST(HtmlRender, PngCheckerAcceptsADrawingAndRejectsBlankOrBrokenImages) {
  const auto golden = test::sourceDir() / "tests/report/golden";
  const std::string chart = "'" + (golden / "chart.png").string() + "'";
  int status = runRenderScript("--check-png " + chart + " 64 48 1f77b4 d62728");
  if (status == 77)
    GTEST_SKIP() << "python3 not installed";
  EXPECT_EQ(status, 0);
  EXPECT_EQ(runRenderScript("--check-png " + chart + " 1200 900"), 1) << "wrong size accepted";
  EXPECT_EQ(runRenderScript("--check-png " + chart + " 64 48 00ff00"), 1) << "missing colour accepted";
  EXPECT_EQ(runRenderScript("--check-png '" + (golden / "flat.png").string() + "' 64 48"), 1) << "blank accepted";

  ScratchDir dir;
  std::string png = test::readFile(golden / "chart.png");
  png[png.size() / 2] ^= 0x5A; // inside the IDAT chunk: its CRC no longer matches
  std::ofstream(dir / "corrupt.png", std::ios::binary) << png;
  EXPECT_EQ(runRenderScript("--check-png '" + (dir / "corrupt.png") + "' 64 48"), 1) << "corrupt PNG accepted";
}

TEST(HtmlRender, ChromiumDrawsThePage) {
  ScratchDir dir;
  std::ofstream(dir / "report.html", std::ios::binary) << samplePage().render();
  // The series colour and the marker colour must both be visible in the 1200x900 screenshot.
  int status = runRenderScript("'" + (dir / "report.html") + "' '" + (dir / "report.png") + "' 1f77b4 d62728");
  if (status == 77)
    GTEST_SKIP() << "chromium (Debian package 'chromium') or python3 not installed";
  EXPECT_EQ(status, 0);
}

} // namespace
} // namespace ptxray
