#include "report/HtmlPage.h"

#include <fmt/format.h>

#include <utility>

namespace ptxray::report {
namespace {

// Kept free of '<' and '&' so the page stays well-formed XML. Figures flow in a wrapping row: two
// 560-pixel charts fit side by side in a 1200-pixel window, and narrower windows scale them down.
// Nothing may make the page wider than the window: long words break, a data table too wide for the
// window scrolls inside its own box, and source lines wrap inside their cell.
constexpr const char *kStyle = R"(body {
  font-family: 'DejaVu Sans', 'Liberation Sans', Arial, Helvetica, sans-serif;
  color: #222222;
  background: #ffffff;
  line-height: 1.45;
  overflow-wrap: break-word;
  max-width: 1180px;
  margin: 24px auto;
  padding: 0 16px;
}
h1 { font-size: 1.5em; margin: 0 0 0.6em; }
h2 { font-size: 1.15em; margin: 1.4em 0 0.5em; }
p { max-width: 80ch; }
table.summary { border-collapse: collapse; margin: 0.5em 0 1em; max-width: 100%; }
table.summary caption { text-align: left; font-weight: bold; padding-bottom: 4px; }
table.summary th, table.summary td { border: 1px solid #cccccc; padding: 4px 10px; text-align: left; vertical-align: top; }
table.summary th { background: #f3f3f3; font-weight: normal; }
table.summary td { font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; margin: 0.5em 0 1em; }
figure { margin: 0; max-width: 100%; }
figure svg { display: block; max-width: 100%; height: auto; border: 1px solid #e3e3e3; }
.table-scroll { max-width: 100%; overflow-x: auto; margin: 0.5em 0 1em; }
table.data { border-collapse: collapse; font-size: 0.92em; }
table.data caption { text-align: left; font-weight: bold; padding-bottom: 4px; }
table.data th, table.data td { border: 1px solid #dddddd; padding: 2px 8px; text-align: left; vertical-align: top; }
table.data th { background: #f3f3f3; font-weight: normal; }
table.data th.group { text-align: center; }
table.data td { font-variant-numeric: tabular-nums; }
table.data .num { text-align: right; white-space: nowrap; }
table.data td.code { font-family: 'DejaVu Sans Mono', monospace; white-space: pre-wrap; overflow-wrap: anywhere; min-width: 24ch; }
pre { background: #f7f7f7; border: 1px solid #e3e3e3; padding: 6px 10px; overflow-x: auto; font-size: 0.9em; }
figcaption { font-size: 0.9em; color: #555555; margin-top: 4px; max-width: 560px; }
)";

/// Per column of `t`: whether it holds numbers (see isNumericCell), so that it is right-aligned.
std::vector<bool> numericColumns(const DataTable &t) {
  std::vector<bool> numeric(t.headers.size(), false), other(t.headers.size(), false);
  for (const auto &row : t.rows)
    for (size_t c = 0; c < row.size() && c < numeric.size(); ++c) {
      if (row[c].empty() || row[c] == "-")
        continue;
      (isNumericCell(row[c]) ? numeric : other)[c] = true;
    }
  for (size_t c = 0; c < numeric.size(); ++c)
    numeric[c] = numeric[c] && !other[c] && static_cast<int>(c) != t.codeColumn;
  return numeric;
}

} // namespace

bool isNumericCell(std::string_view cell) {
  size_t i = 0;
  if (i < cell.size() && (cell[i] == '-' || cell[i] == '+'))
    ++i;
  if (i < cell.size() && cell[i] == '.')
    ++i;
  return i < cell.size() && cell[i] >= '0' && cell[i] <= '9';
}

HtmlPage::HtmlPage(std::string title) : title_(std::move(title)) {}

HtmlPage &HtmlPage::addHeading(std::string text) {
  blocks_.push_back({Kind::Heading, std::move(text), {}, {}});
  return *this;
}

HtmlPage &HtmlPage::addParagraph(std::string text) {
  blocks_.push_back({Kind::Paragraph, std::move(text), {}, {}});
  return *this;
}

HtmlPage &HtmlPage::addTable(std::vector<TableRow> rows, std::string caption) {
  blocks_.push_back({Kind::Table, std::move(caption), {}, std::move(rows)});
  return *this;
}

HtmlPage &HtmlPage::addDataTable(DataTable table) {
  Block b{Kind::Data, {}, {}, {}};
  b.data = std::move(table);
  blocks_.push_back(std::move(b));
  return *this;
}

HtmlPage &HtmlPage::addCode(std::string text) {
  blocks_.push_back({Kind::Code, std::move(text), {}, {}});
  return *this;
}

HtmlPage &HtmlPage::addChart(const LineChart &chart, std::string caption) {
  return addSvg(chart.renderSvg(), std::move(caption));
}

HtmlPage &HtmlPage::addSvg(std::string svg, std::string caption) {
  if (svg.starts_with("<?xml")) {
    size_t end = svg.find("?>");
    end = end == std::string::npos ? svg.size() : svg.find_first_not_of(" \t\r\n", end + 2);
    svg.erase(0, end);
  }
  blocks_.push_back({Kind::Figure, std::move(caption), std::move(svg), {}});
  return *this;
}

std::string HtmlPage::render() const {
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n";
  out += "<meta name=\"generator\" content=\"ptxray\"/>\n";
  out += "<title>" + escapeXml(title_) + "</title>\n";
  out += "<style>\n";
  out += kStyle;
  out += "</style>\n</head>\n<body>\n";
  out += "<h1>" + escapeXml(title_) + "</h1>\n";

  bool inCharts = false;
  for (const Block &b : blocks_) {
    if (inCharts && b.kind != Kind::Figure) {
      out += "</div>\n";
      inCharts = false;
    }
    switch (b.kind) {
    case Kind::Heading: out += "<h2>" + escapeXml(b.text) + "</h2>\n"; break;
    case Kind::Paragraph: out += "<p>" + escapeXml(b.text) + "</p>\n"; break;
    case Kind::Table:
      out += "<table class=\"summary\">\n";
      if (!b.text.empty())
        out += "<caption>" + escapeXml(b.text) + "</caption>\n";
      out += "<tbody>\n";
      for (const TableRow &row : b.rows)
        out += "<tr><th scope=\"row\">" + escapeXml(row.label) + "</th><td>" + escapeXml(row.value) + "</td></tr>\n";
      out += "</tbody>\n</table>\n";
      break;
    case Kind::Code: out += fmt::format("<pre>{}</pre>\n", escapeXml(b.text)); break;
    case Kind::Data: {
      const DataTable &t = b.data;
      const std::vector<bool> numeric = numericColumns(t);
      auto cellClass = [&](size_t c) -> std::string_view {
        if (static_cast<int>(c) == t.codeColumn)
          return " class=\"code\"";
        return c < numeric.size() && numeric[c] ? " class=\"num\"" : "";
      };
      out += "<div class=\"table-scroll\">\n<table class=\"data\">\n";
      if (!t.caption.empty())
        out += fmt::format("<caption>{}</caption>\n", escapeXml(t.caption));
      out += "<thead>";
      if (!t.headerGroups.empty()) {
        out += "<tr>";
        for (const HeaderGroup &g : t.headerGroups)
          out += g.span > 1 ? fmt::format("<th scope=\"colgroup\" colspan=\"{}\" class=\"group\">{}</th>", g.span,
                                          escapeXml(g.label))
                            : fmt::format("<th scope=\"col\">{}</th>", escapeXml(g.label));
        out += "</tr>\n";
      }
      out += "<tr>";
      for (size_t c = 0; c < t.headers.size(); ++c)
        out += fmt::format("<th scope=\"col\"{}>{}</th>", cellClass(c), escapeXml(t.headers[c]));
      out += "</tr></thead>\n<tbody>\n";
      for (size_t r = 0; r < t.rows.size(); ++r) {
        out += "<tr";
        if (r < t.heat.size() && t.heat[r] > 0) {
          // White to a light red: the other channels fall with the heat.
          const double h = t.heat[r] > 1 ? 1.0 : t.heat[r];
          const int c = static_cast<int>(255 - 120 * h + 0.5);
          out += fmt::format(" style=\"background: rgb(255,{0},{0})\"", c);
        }
        out += ">";
        for (size_t c = 0; c < t.rows[r].size(); ++c)
          out += fmt::format("<td{}>{}</td>", cellClass(c), escapeXml(t.rows[r][c]));
        out += "</tr>\n";
      }
      out += "</tbody>\n</table>\n</div>\n";
      break;
    }
    case Kind::Figure:
      if (!inCharts) {
        out += "<div class=\"charts\">\n";
        inCharts = true;
      }
      out += "<figure>\n" + b.svg;
      if (!b.svg.empty() && b.svg.back() != '\n')
        out += '\n';
      if (!b.text.empty())
        out += "<figcaption>" + escapeXml(b.text) + "</figcaption>\n";
      out += "</figure>\n";
      break;
    }
  }
  if (inCharts)
    out += "</div>\n";
  out += "</body>\n</html>\n";
  return out;
}

} // namespace ptxray::report
