#!/usr/bin/env python3
"""The OpenCL Best Practices Guide's own numbers, reproduced by the time model on the guide's GPUs
(GeForce GTX 280, CC 1.3; GeForce 8800 GTX, CC 1.0):

  Table 3.2 (C = AB) and Table 3.3 (C = AA^T): the speed-up of each optimization step over the one
  before (the ratio of the tables' effective bandwidths, which is the inverse ratio of the times:
  every step moves the same algorithm bytes) within 25%;
  Figure 3.7 (offsetCopy): the effective bandwidth of the aligned copy and of a misaligned one
  within 20% of the figure (8800 GTX about 74 and 7 GB/s, GTX 280 about 120 and 70 GB/s, the values
  the guide's text reads off the figure, 3.2.1.3).

usage: check_guide_tables.py PTXRAY SOURCE_DIR WORK_DIR
"""
import json
import pathlib
import subprocess
import sys

ptxray, source, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
work.mkdir(parents=True, exist_ok=True)
specs = source / "tests/opencl/specs"

# [BPG] Tables 3.2 and 3.3: effective bandwidth (GB/s) of each step, GTX 280 and 8800 GTX.
TABLES = {
    "3.2": ("guide_table_3_2.json", ["simpleMultiply", "coalescedMultiply", "sharedABMultiply"],
            {"gtx280": [8.8, 14.3, 29.7], "8800gtx": [0.7, 8.2, 15.7]}),
    "3.3": ("guide_table_3_3.json", ["simpleMultiplyAAT", "sharedMultiplyAAT", "paddedMultiplyAAT"],
            {"gtx280": [1.1, 24.8, 30.3], "8800gtx": [0.5, 13.2, 15.6]}),
}
# [BPG] 3.2.1.3 on Figure 3.7: offset 0 (one transaction per half-warp) and a misaligned offset.
FIGURE_3_7 = {"8800gtx": (74.0, 7.0), "gtx280": (120.0, 70.0)}

failures, lines = [], []


def within(model, guide, tolerance):
    return abs(model / guide - 1) <= tolerance


for table, (spec, kernels, guide) in TABLES.items():
    for gpu, bandwidths in guide.items():
        out = work / f"table-{table}-{gpu}.json"
        subprocess.run([ptxray, "analyze", str(specs / spec), "--arch", gpu, "--quiet", "--json", str(out)],
                       check=True, stdout=subprocess.DEVNULL)
        times = {a["kernel"]: a["summary"]["time_seconds"] for a in json.loads(out.read_text())["analyses"]}
        for before, after, bw_before, bw_after in zip(kernels, kernels[1:], bandwidths, bandwidths[1:]):
            model, expected = times[before] / times[after], bw_after / bw_before
            ok = within(model, expected, 0.25)
            lines.append(f"Table {table} {gpu}: {after} over {before} {model:.2f}x (guide {expected:.2f}x)"
                         f"{'' if ok else '  <-- off by more than 25%'}")
            if not ok:
                failures.append(f"Table {table} {gpu} {after}")

charts = work / "figure-3.7.json"
subprocess.run([ptxray, "guide-charts", "--arch", ",".join(FIGURE_3_7), "--max", "1", "--elements", "4194304",
                "--json", str(charts)], check=True, stdout=subprocess.DEVNULL)
for series, (gpu, (aligned, misaligned)) in zip(json.loads(charts.read_text())["series"], FIGURE_3_7.items()):
    points = {p["x"]: p["effective_bandwidth_gb_s"] for p in series["offset_copy"]}
    for offset, expected in ((0, aligned), (1, misaligned)):
        ok = within(points[offset], expected, 0.20)
        lines.append(f"Figure 3.7 {gpu}: offset {offset} {points[offset]:.1f} GB/s (guide about {expected:g})"
                     f"{'' if ok else '  <-- off by more than 20%'}")
        if not ok:
            failures.append(f"Figure 3.7 {gpu} offset {offset}")

print("\n".join(lines))
if failures:
    sys.exit("not as the guide: " + ", ".join(failures))
print("the guide's Tables 3.2, 3.3 and Figure 3.7 reproduced")
