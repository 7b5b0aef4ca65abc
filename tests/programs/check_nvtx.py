#!/usr/bin/env python3
"""Checks the NVTX ranges of tests/programs/src/nvtx_ranges.cu in a timeline JSON (`ptxray exec
--timeline FILE.json`) against what the program marks, derived from its source: a "setup" range
around the upload (a pageable copy and its synchronization: operations 0-1), three "iteration"
ranges of the "solver" domain (green, each around a launch and a synchronization), each holding a
"wait" range one level deeper around the synchronization alone, a "checkpoint" mark, and a
"readback" start/end range around the download. Every range lies within the session, ranges nest
in time as they nest in the program, and they follow each other in time as in the program.
Prints "nvtx ok" or the first difference (exit 1)."""
import json
import sys


def fail(message):
    print(f"nvtx: {message}")
    sys.exit(1)


doc = json.load(open(sys.argv[1]))
ranges = doc["nvtx"]
total = doc["totals"]["total_us"]
names = [(r["domain"], r["name"], r["kind"]) for r in ranges]
want = [("", "setup", "push_pop")]
for _ in range(3):
    want += [("", "wait", "push_pop"), ("solver", "iteration", "push_pop")]
want += [("", "checkpoint", "mark"), ("", "readback", "start_end")]
if names != want:  # in the order they ended
    fail(f"ranges {names}, the program marks {want}")
for r in ranges:
    if not (0 <= r["start_us"] <= r["end_us"] <= total + 1e-6):
        fail(f"{r['name']} from {r['start_us']} to {r['end_us']} us is outside the session (0 to {total} us)")
setup = ranges[0]
if (setup["first_operation"], setup["operations"], setup["start_us"]) != (0, 2, 0):
    fail(f"setup covers operations {setup['first_operation']}+{setup['operations']} from {setup['start_us']} us")
ops = doc["operations"]
previous_end = setup["end_us"]
for i in range(3):
    wait, iteration = ranges[1 + 2 * i], ranges[2 + 2 * i]
    if iteration.get("color") != "#2ca02c" or iteration["depth"] != 0 or wait["depth"] != 0:
        fail(f"iteration {i}: colour {iteration.get('color')}, depths {iteration['depth']}/{wait['depth']}")
    launch = ops[iteration["first_operation"]]
    sync = ops[wait["first_operation"]]
    if launch["op"] != "launch" or iteration["operations"] != 2 or sync["op"] != "synchronize" or wait["operations"] != 1:
        fail(f"iteration {i} covers {launch['op']}+{iteration['operations']}, its wait {sync['op']}+{wait['operations']}")
    if not (iteration["start_us"] <= wait["start_us"] <= wait["end_us"] <= iteration["end_us"]):
        fail(f"iteration {i}: the wait is not inside the iteration")
    if abs(wait["end_us"] - sync["end_us"]) > 1e-6 or iteration["start_us"] < previous_end - 1e-6:
        fail(f"iteration {i}: the wait ends at {wait['end_us']} us, the synchronization at {sync['end_us']} us")
    previous_end = iteration["end_us"]
mark, readback = ranges[7], ranges[8]
if mark["start_us"] != mark["end_us"] or mark["start_us"] < previous_end - 1e-6:
    fail(f"the mark at {mark['start_us']}/{mark['end_us']} us, after {previous_end} us")
if ops[readback["first_operation"]]["op"] != "memcpy_d2h" or readback["start_us"] < mark["start_us"]:
    fail(f"readback starts with {ops[readback['first_operation']]['op']} at {readback['start_us']} us")
print("nvtx ok")
