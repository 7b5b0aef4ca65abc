#!/usr/bin/env python3
"""Prints each analysis of a ptxray-analysis JSON report as one line: the kernel, then its findings'
rule ids, comma-separated (for tests that check which findings a report holds)."""
import json
import sys

with open(sys.argv[1]) as f:
    report = json.load(f)
for analysis in report["analyses"]:
    print(analysis["kernel"], ",".join(finding["rule"] for finding in analysis["findings"]))
