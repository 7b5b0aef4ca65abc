#!/usr/bin/env python3
"""The table of validation/programs/README.md: a self-timing program's times on a GPU against ptxray's.

Usage: timing_table.py GPU_OUTPUT PTXRAY_OUTPUT
GPU_OUTPUT holds one or more runs of tests/programs/bin/timing (and timing_static) on the GPU, each
`timing NAME MS` line one measurement (runs may be separated by any other lines); PTXRAY_OUTPUT one
run of the same program under `ptxray exec --arch GPU`. Prints, per measurement, the GPU's median,
min and max, ptxray's time, their ratio and whether it is within 2x; exit status 1 when one is not.
"""
import statistics
import sys


def read(path):
    times = {}
    order = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[0] == "timing":
                if parts[1] not in times:
                    order.append(parts[1])
                times.setdefault(parts[1], []).append(float(parts[2]))
    return order, times


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    order, gpu = read(argv[1])
    _, model = read(argv[2])
    print(f"| measurement | GPU median ms (min-max, {len(gpu[order[0]])} runs) | ptxray ms | ptxray / GPU | within 2x |")
    print("|---|---|---|---|---|")
    outside = 0
    for name in order:
        g = gpu[name]
        m = model.get(name, [float("nan")])[0]
        med = statistics.median(g)
        ratio = m / med if med > 0 else float("inf")
        ok = 0.5 <= ratio <= 2.0
        outside += 0 if ok else 1
        print(f"| {name} | {med:.4f} ({min(g):.4f}-{max(g):.4f}) | {m:.4f} | {ratio:.2f} | {'yes' if ok else 'NO'} |")
    print(f"\n{len(order)} measurements, {outside} outside 2x")
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
