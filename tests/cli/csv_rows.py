#!/usr/bin/env python3
"""Reads CSV on standard input with Python's csv module (an independent parser: every field quoted
or not, quotes doubled) and prints it back one row a line, fields joined by '|', after checking
that every row has the header's number of fields. Lets a CLI test match a `--csv` table exactly
without depending on how ptxray quotes.

  ptxray ... --csv | csv_rows.py [--where COLUMN=VALUE] [--columns NAME,NAME...]
Prints "rows: N" last; exit status 1 (and "csv: ...") on a ragged or empty table.
"""
import argparse
import csv
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--where", action="append", default=[], help="only rows whose COLUMN is VALUE")
    ap.add_argument("--columns", help="only these columns, in this order")
    args = ap.parse_args()
    rows = list(csv.reader(sys.stdin))
    if not rows:
        print("csv: no header")
        return 1
    header = rows[0]
    for n, r in enumerate(rows[1:], 2):
        if len(r) != len(header):
            print(f"csv: row {n} has {len(r)} fields, the header {len(header)}")
            return 1
    keep = [header.index(c) for c in args.columns.split(",")] if args.columns else list(range(len(header)))
    conditions = [(header.index(w.split("=", 1)[0]), w.split("=", 1)[1]) for w in args.where]
    print("|".join(header[i] for i in keep))
    count = 0
    for r in rows[1:]:
        if all(r[i] == v for i, v in conditions):
            print("|".join(r[i] for i in keep))
            count += 1
    print(f"rows: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
