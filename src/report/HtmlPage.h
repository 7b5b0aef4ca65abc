// One standalone HTML5 report page: a title, then headings, paragraphs, label/value tables and charts in
// the order they were added. Everything is inline (CSS in a <style> element, charts as inline SVG): the
// file opens from disk with no network, no scripts, nothing beside it.
//
// The markup is also well-formed XML (void elements self-closed, every attribute quoted, text escaped),
// which lets the tests check its structure with an XML parser.
#pragma once

#include "report/SvgChart.h"

#include <string>
#include <string_view>
#include <vector>

namespace ptxray::report {

struct TableRow {
  std::string label{};
  std::string value{};
};

/// Headers over several columns (a row above DataTable::headers): `span` columns under `label`.
struct HeaderGroup {
  std::string label{};
  size_t span = 1;
};

/// A table with column headers, for per-line views. `heat` (one value in [0, 1] per row, or empty)
/// shades each row from white to red; `codeColumn` (or -1) is set in a monospace font and wraps its
/// long lines inside the cell. A column whose cells are all numbers (or empty, or "-") is
/// right-aligned, any other left-aligned. The table scrolls inside its own box when it cannot fit the
/// window, never the page.
struct DataTable {
  std::string caption{};
  std::vector<HeaderGroup> headerGroups{}; ///< empty: one header row
  std::vector<std::string> headers{};
  std::vector<std::vector<std::string>> rows{};
  std::vector<double> heat{};
  int codeColumn = -1;
};

/// Whether a table cell reads as a number, so that its column is right-aligned: it starts with a
/// digit, or a sign or point and then a digit ("12", "-3.5", "1.23 us (5%)", "57.1%").
bool isNumericCell(std::string_view cell);

class HtmlPage {
public:
  explicit HtmlPage(std::string title);

  /// A section heading (<h2>); the page title is the only <h1>.
  HtmlPage &addHeading(std::string text);
  /// A paragraph of plain text (escaped; blank lines are not interpreted).
  HtmlPage &addParagraph(std::string text);
  /// A two-column table, labels as row headers; the caption may be empty.
  HtmlPage &addTable(std::vector<TableRow> rows, std::string caption = {});
  /// A table with headers (see DataTable).
  HtmlPage &addDataTable(DataTable table);
  /// Preformatted text (a source excerpt), escaped.
  HtmlPage &addCode(std::string text);
  /// A chart, rendered now. Consecutive charts share a row when the window is wide enough.
  HtmlPage &addChart(const LineChart &chart, std::string caption = {});
  /// SVG markup from elsewhere, inlined as is: it must be trusted, well-formed and free of `id`
  /// clashes with the other charts. A leading XML declaration is dropped (it is not allowed inline).
  HtmlPage &addSvg(std::string svg, std::string caption = {});

  /// The whole document, deterministic for the same content.
  std::string render() const;

private:
  enum class Kind { Heading, Paragraph, Table, Figure, Data, Code };
  struct Block {
    Kind kind;
    std::string text; ///< heading or paragraph text, table or figure caption, code
    std::string svg;
    std::vector<TableRow> rows;
    DataTable data{};
  };

  std::string title_;
  std::vector<Block> blocks_;
};

} // namespace ptxray::report
