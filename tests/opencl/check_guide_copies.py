#!/usr/bin/env python3
"""The copies of examples/opencl/guide.c timed by OpenCL profiling events under `ptxray exec`: the
events carry the modeled GPU's times, so the guide's Figures 3.7 and 3.9 show in the program's own
table. On a GTX 280 (CC 1.3) an offset that is not a multiple of 16 words costs a second segment per
half-warp ([BPG] 3.2.1.3) and a stride of 16 moves a segment per word ([BPG] 3.2.1.4).

usage: check_guide_copies.py < the program's output
"""
import re
import sys

times = {}
for line in sys.stdin:
    m = re.match(r"(offsetCopy|strideCopy)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+(\S+)", line)
    if m:
        times[(m.group(1), int(m.group(2)))] = float(m.group(3))
        if m.group(5) != "ok":
            sys.exit(f"{m.group(1)} {m.group(2)}: the result is wrong")
need = [("offsetCopy", 0), ("offsetCopy", 1), ("offsetCopy", 16), ("strideCopy", 1), ("strideCopy", 16)]
missing = [k for k in need if k not in times]
if missing:
    sys.exit(f"no time for {missing}")
checks = [
    (times[("offsetCopy", 1)] > 1.2 * times[("offsetCopy", 0)], "offset 1 is not slower than offset 0"),
    (abs(times[("offsetCopy", 16)] - times[("offsetCopy", 0)]) < 1e-9 * times[("offsetCopy", 0)] + 0.01,
     "offset 16 (aligned) does not take offset 0's time"),
    (times[("strideCopy", 16)] > 5 * times[("strideCopy", 1)], "stride 16 is not several times slower than stride 1"),
]
failed = [why for ok, why in checks if not ok]
if failed:
    sys.exit("; ".join(failed) + f": {times}")
print("modeled copies: offsets and strides cost as the guide's figures")
