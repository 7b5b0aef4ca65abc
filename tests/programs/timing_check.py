#!/usr/bin/env python3
"""Checks that a self-timing program printed, under ptxray, the times of ptxray's own timeline.

Usage: timing_check.py PROGRAM_STDOUT TIMELINE_JSON [--expect NAME=LOW:HIGH ...]

PROGRAM_STDOUT holds `timing NAME MS` lines (tests/programs/src/timing.cu): measurement k was taken
between the program's event records 2k and 2k+1, in issue order. TIMELINE_JSON is `ptxray exec
--timeline FILE.json` of the same run. Each printed time must equal the difference of the two
records' end times in the timeline (to the 4 decimals printed). --expect bounds a measurement in
milliseconds, for orders of magnitude derived by hand (a 1 ms clock64() wait, say).
Prints one line per measurement and `N measurements, M differ`; exit status 1 when any differs.
"""
import json
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    printed = []
    with open(argv[1]) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[0] == "timing":
                printed.append((parts[1], float(parts[2])))
    bounds = {}
    for arg in argv[3:]:
        if arg.startswith("--expect="):
            arg = arg[len("--expect="):]
        if "=" in arg and ":" in arg:
            name, rng = arg.split("=", 1)
            low, high = rng.split(":")
            bounds[name] = (float(low), float(high))
    with open(argv[2]) as f:
        timeline = json.load(f)
    # The program's own events (a graph launch records events of its own between its branches).
    records = [op for op in timeline["operations"] if op["op"] == "event_record" and op["label"].startswith("event ")]
    differ = 0
    if len(records) < 2 * len(printed):
        print(f"{len(printed)} measurements but {len(records)} event records in the timeline")
        return 1
    for k, (name, ms) in enumerate(printed):
        modeled = (records[2 * k + 1]["end_us"] - records[2 * k]["end_us"]) / 1000.0
        ok = abs(modeled - ms) <= 0.00006 + 1e-6 * modeled
        note = ""
        if name in bounds:
            low, high = bounds.pop(name)
            if not low <= ms <= high:
                ok = False
                note = f" (expected {low} to {high} ms)"
        differ += 0 if ok else 1
        print(f"{name:32} printed {ms:10.4f} ms  timeline {modeled:10.4f} ms  {'same' if ok else 'DIFFERS'}{note}")
    for name in bounds:
        print(f"{name}: not measured")
        differ += 1
    print(f"{len(printed)} measurements, {differ} differ")
    return 1 if differ or not printed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
