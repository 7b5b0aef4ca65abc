#!/usr/bin/env python3
"""Markdown tables from validation/vm/scaling.sh's JSON: thread-instructions/s per benchmark and
worker count, and the speed-up over one worker."""
import json
import math
import sys
from collections import OrderedDict

REAL = set()  # the real-kernel set's names


def main(path):
    data = json.load(open(path))
    rates = OrderedDict()  # name -> {workers: rate}
    for b in data["benchmarks"]:
        parts = b["name"].split("/")
        if parts[0] == "BM_RealGeomean":
            continue  # recomputed below from the per-kernel rows
        elif parts[0] == "BM_Real":
            name, workers, rate = parts[1], int(parts[2]), b.get("thread_instr_per_s")
            REAL.add(name)
        else:
            name, workers, rate = parts[0], int(parts[1]), b.get("thread_instr_per_s")
        if rate:
            rates.setdefault(name, {})[workers] = rate
    real = [n for n in rates if n in REAL]
    counts = sorted({w for r in rates.values() for w in r})
    rates["geometric mean (real set)"] = {
        w: math.exp(sum(math.log(rates[n][w]) for n in real) / len(real))
        for w in counts if all(w in rates[n] for n in real)}
    print("| benchmark | " + " | ".join(f"{w} w" for w in counts) + f" | speed-up at {counts[-1]} |")
    print("|---|" + "---:|" * (len(counts) + 1))
    for name, r in rates.items():
        cells = [f"{r[w] / 1e6:,.0f} M" if w in r else "" for w in counts]
        speedup = r[counts[-1]] / r[1] if 1 in r and counts[-1] in r else float("nan")
        print(f"| {name} | " + " | ".join(cells) + f" | {speedup:.1f}x |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "validation/vm/results/scaling.json")
