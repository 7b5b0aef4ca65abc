#!/usr/bin/env python3
"""Before/after table of the bench suite (best of the runs given for each side), thread-instructions/s
with 1 and 2 workers: before-after-table.py BEFORE.json[,BEFORE2.json] AFTER.json[,AFTER2.json]."""
import json
import math
import sys
from collections import OrderedDict

REAL = set()  # the real-kernel set's names


def rates(paths):
    best = OrderedDict()
    for path in paths.split(","):
        for b in json.load(open(path))["benchmarks"]:
            parts = b["name"].split("/")
            if parts[0] == "BM_RealGeomean":
                continue  # recomputed below from the per-kernel rows
            elif parts[0] == "BM_Real":
                key, rate = (parts[1], int(parts[2])), b.get("thread_instr_per_s")
                REAL.add(parts[1])
            else:
                key, rate = (parts[0], int(parts[1])), b.get("thread_instr_per_s")
            if rate:
                best[key] = max(best.get(key, 0), rate)
    for w in (1, 2):
        if all((n, w) in best for n in REAL):
            best[("geometric mean (real set)", w)] = math.exp(sum(math.log(best[(n, w)]) for n in REAL) / len(REAL))
    return best


def main(before, after):
    b, a = rates(before), rates(after)
    names = list(OrderedDict.fromkeys(k[0] for k in list(a) + list(b)))
    print("| benchmark | before, 1 w | after, 1 w | before, 2 w | after, 2 w | 2 w gain |")
    print("|---|---:|---:|---:|---:|---:|")
    for n in names:
        cell = lambda d, w: f"{d[(n, w)] / 1e6:,.0f} M" if (n, w) in d else ""
        gain = a.get((n, 2), math.nan) / b.get((n, 2), math.nan)
        print(f"| {n} | {cell(b, 1)} | {cell(a, 1)} | {cell(b, 2)} | {cell(a, 2)} | {gain:.2f}x |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
