#!/usr/bin/env python3
"""Sets what compute-sanitizer found on the GPU (results/compute-sanitizer, from run.sh) next to what
ptxray found (results/ptxray, from ptxray.sh), spec by spec and tool by tool: the summary line of each
and the CUDA source lines each names. Prints a Markdown table.

    python3 validation/sanitizers/compare.py [RESULTS_DIR]
"""
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "results")
TOOLS = ["memcheck", "racecheck", "synccheck", "initcheck"]


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def findings(text, ptxray):
    """(count, lines): hazards or errors reported, and the .cu lines the reports name."""
    if text is None:
        return None, set()
    lines = set(re.findall(r"\b([A-Za-z_]+\.cu):(\d+)", text))
    count = 0
    for m in re.finditer(r"(ERROR|RACECHECK|SYNCCHECK|INITCHECK|LEAKCHECK) SUMMARY: (\d+) (?:hazards? displayed|errors?)", text):
        count += int(m.group(2))
    leak = re.search(r"LEAK SUMMARY: (\d+) bytes leaked in (\d+) allocations", text)
    if leak and int(leak.group(1)) > 0 and not ptxray:
        count = max(count, 1)
    return count, {f"{f}:{n}" for f, n in lines}


def main():
    specs = sorted({f.split(".")[0] for f in os.listdir(os.path.join(results, "compute-sanitizer")) if f != "ENV"})
    print("| spec | tool | compute-sanitizer (H100) | lines | ptxray | lines |")
    print("|---|---|---|---|---|---|")
    for spec in specs:
        for tool in TOOLS:
            cs = read(os.path.join(results, "compute-sanitizer", f"{spec}.{tool}.txt"))
            px_tool = tool
            px = read(os.path.join(results, "ptxray", f"{spec}.{px_tool}.txt"))
            if tool == "memcheck":
                # compute-sanitizer's --leak-check full rides on memcheck; ptxray's is its own tool.
                leak = read(os.path.join(results, "ptxray", f"{spec}.leakcheck.txt"))
                px = (px or "") + (leak or "")
            c_count, c_lines = findings(cs, False)
            p_count, p_lines = findings(px, True)
            if not c_count and not p_count:
                continue
            print(f"| {spec} | {tool} | {c_count} | {', '.join(sorted(c_lines)) or '-'} | {p_count} | "
                  f"{', '.join(sorted(p_lines)) or '-'} |")


if __name__ == "__main__":
    main()
