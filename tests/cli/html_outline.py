#!/usr/bin/env python3
"""Reads a ptxray HTML page with Python's html.parser (an independent parser) and prints its outline,
one item a line, so that a CLI test can match the page's structure and cells exactly:

  h2: TEXT                          a section heading
  p: TEXT                           a paragraph
  table: CAPTION                    a data table (class "data"), then its rows:
    groups: LABEL*SPAN|...          the header row of column groups, when there is one
    head: CELL|CELL...              the column headers
    row: CELL|CELL...               each body row (code cells' text as is)

  html_outline.py PAGE.html [--tables-only] [--grep TEXT]
--grep keeps the tables whose caption or first header contains TEXT (and the headings). Prints
"tables: N" last. Exit status 1 when the page cannot be read.
"""
import argparse
import sys
from html.parser import HTMLParser


class Outline(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.items = []  # (kind, text) in page order
        self.text = None  # the text being collected, or None
        self.stack = []  # open elements that collect text
        self.table = None  # the data table being read: {"caption", "groups", "head", "rows"}
        self.row = None
        self.in_head = False
        self.cell_span = 1

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and "data" in (a.get("class") or "").split():
            self.table = {"caption": "", "groups": [], "head": [], "rows": []}
        elif tag in ("h2", "p", "caption") or (self.table is not None and tag in ("th", "td")):
            self.text = ""
            self.cell_span = int(a.get("colspan", "1"))
        elif tag == "thead":
            self.in_head = True
        elif tag == "tr" and self.table is not None:
            self.row = []

    def handle_endtag(self, tag):
        if tag in ("h2", "p") and self.text is not None and self.table is None:
            self.items.append((tag, " ".join(self.text.split())))
            self.text = None
        elif tag == "caption" and self.table is not None:
            self.table["caption"] = " ".join(self.text.split())
            self.text = None
        elif tag in ("th", "td") and self.table is not None and self.row is not None:
            self.row.append((self.text, self.cell_span))
            self.text = None
        elif tag == "tr" and self.table is not None and self.row is not None:
            if self.in_head and any(span > 1 for _, span in self.row):
                self.table["groups"] = [f"{t}*{s}" for t, s in self.row]
            elif self.in_head:
                self.table["head"] = [t for t, _ in self.row]
            else:
                self.table["rows"].append([t for t, _ in self.row])
            self.row = None
        elif tag == "thead":
            self.in_head = False
        elif tag == "table" and self.table is not None:
            self.items.append(("table", self.table))
            self.table = None

    def handle_data(self, data):
        if self.text is not None:
            self.text += data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--tables-only", action="store_true")
    ap.add_argument("--grep", help="only the tables whose caption or first header contains this")
    args = ap.parse_args()
    try:
        text = open(args.page, encoding="utf-8").read()
    except OSError as e:
        print(f"html_outline: {e}")
        return 1
    outline = Outline()
    outline.feed(text)
    tables = 0
    for kind, item in outline.items:
        if kind != "table":
            if kind == "h2" or not args.tables_only:
                print(f"{kind}: {item}")
            continue
        if args.grep and args.grep not in item["caption"] and not any(args.grep in h for h in item["head"][:1]):
            continue
        tables += 1
        print(f"table: {item['caption']}")
        if item["groups"]:
            print("  groups: " + "|".join(item["groups"]))
        print("  head: " + "|".join(item["head"]))
        for r in item["rows"]:
            print("  row: " + "|".join(r))
    print(f"tables: {tables}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
