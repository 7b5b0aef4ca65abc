#!/usr/bin/env python3
"""Checks a file `--trace` wrote against what Perfetto and chrome://tracing need of the Trace Event
Format (JSON object form), independently of ptxray's code:

- one JSON object with a `traceEvents` list; every event has a phase ptxray uses (X, i, C, M, and
  the async b/e), a numeric pid, and (but for counters and process metadata) a tid;
- async slices (b, e) pair up by category and id, the end no earlier than the beginning; child grids
  (category "child grid") lie within a kernel's slice on their row;
- complete events (X) have a name, finite ts and dur >= 0; on one row (pid, tid) they nest or follow
  each other, never overlap in part (the viewers stack a row's slices: a partial overlap draws wrong);
- instants (i) are thread-scoped; counters (C) carry numeric arguments;
- every row that holds an event is named (thread_name), every process too (process_name);
- with --ops N: N operations in all (each one event, X or i, whose args.index are 0..N-1);
- with --rows NAME,...: those rows are named;
- with --child-grids N: N child-grid slices.

  check_trace.py TRACE.json [--ops N] [--rows NAME,...] [--child-grids N]
Prints "trace ok: ..." or the first problems, exit status 1.
"""
import argparse
import json
import math
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--ops", type=int)
    ap.add_argument("--rows", default="")
    ap.add_argument("--child-grids", type=int)
    a = ap.parse_args()
    problems = []
    with open(a.trace) as f:
        doc = json.load(f)
    events = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(events, list):
        print("FAIL: not an object with a traceEvents list")
        return 1
    rows, processes, named_rows = {}, set(), {}
    process_names = set()
    indices = []
    opened, async_slices = {}, []
    for n, e in enumerate(events):
        ph = e.get("ph")
        if ph in ("b", "e"):
            key = (e.get("cat"), e.get("id"), e.get("pid"))
            ts = e.get("ts")
            if not isinstance(ts, (int, float)) or not math.isfinite(ts) or not e.get("name"):
                problems.append(f"event {n}: async ts {ts!r}, name {e.get('name')!r}")
            elif ph == "b":
                if key in opened:
                    problems.append(f"event {n}: async slice {key} begins twice")
                opened[key] = (ts, e)
            elif key not in opened:
                problems.append(f"event {n}: async slice {key} ends without beginning")
            else:
                begin, first = opened.pop(key)
                if ts < begin:
                    problems.append(f"event {n}: async slice {key} ends before it begins")
                async_slices.append((first, begin, ts))
            continue
        if ph not in ("X", "i", "C", "M"):
            problems.append(f"event {n}: phase {ph!r}")
            continue
        if not isinstance(e.get("pid"), int):
            problems.append(f"event {n}: pid {e.get('pid')!r}")
            continue
        if ph == "M":
            if e.get("name") == "thread_name":
                named_rows[(e["pid"], e.get("tid"))] = e["args"]["name"]
            elif e.get("name") == "process_name":
                process_names.add(e["pid"])
            continue
        ts = e.get("ts")
        if not isinstance(ts, (int, float)) or not math.isfinite(ts):
            problems.append(f"event {n}: ts {ts!r}")
            continue
        processes.add(e["pid"])
        if ph == "C":
            if not e.get("args") or not all(isinstance(v, (int, float)) for v in e["args"].values()):
                problems.append(f"event {n}: counter arguments {e.get('args')!r}")
            continue
        if not isinstance(e.get("tid"), int) or not e.get("name"):
            problems.append(f"event {n}: tid {e.get('tid')!r}, name {e.get('name')!r}")
            continue
        row = (e["pid"], e["tid"])
        if "index" in e.get("args", {}):
            indices.append(e["args"]["index"])
        if ph == "i":
            if e.get("s") != "t":
                problems.append(f"event {n}: instant scope {e.get('s')!r}")
            rows.setdefault(row, [])
            continue
        dur = e.get("dur")
        if not isinstance(dur, (int, float)) or not math.isfinite(dur) or dur < 0:
            problems.append(f"event {n}: dur {dur!r}")
            continue
        rows.setdefault(row, []).append((ts, ts + dur, n))
    for row, slices in rows.items():
        if row not in named_rows:
            problems.append(f"row pid {row[0]} tid {row[1]} has no thread_name")
        slices.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        eps = 1e-6  # microseconds: rounding of times printed as decimals
        for start, end, n in slices:
            while stack and stack[-1][1] <= start + eps:
                stack.pop()
            if stack and end > stack[-1][1] + eps:
                problems.append(f"row {row}: event {n} [{start}, {end}] overlaps event {stack[-1][2]} "
                                f"[{stack[-1][0]}, {stack[-1][1]}] in part")
            stack.append((start, end, n))
    for key in opened:
        problems.append(f"async slice {key} never ends")
    children = [(first, begin, end) for first, begin, end in async_slices if first.get("cat") == "child grid"]
    kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
    eps = 1e-3
    for first, begin, end in children:
        row = (first.get("pid"), first.get("tid"))
        if not any((k["pid"], k["tid"]) == row and k["ts"] - eps <= begin and end <= k["ts"] + k["dur"] + eps
                   for k in kernels):
            problems.append(f"child grid {first['name']} [{begin}, {end}] lies in no kernel of row {row}")
    if a.child_grids is not None and len(children) != a.child_grids:
        problems.append(f"{len(children)} child grids, not {a.child_grids}")
    for pid in processes:
        if pid not in process_names:
            problems.append(f"process {pid} has no process_name")
    if a.ops is not None and sorted(indices) != list(range(a.ops)):
        problems.append(f"operations {sorted(indices)[:20]}... are not 0..{a.ops - 1} once each")
    for name in filter(None, a.rows.split(",")):
        if name not in named_rows.values():
            problems.append(f"no row named {name!r} (rows: {sorted(set(named_rows.values()))})")
    if problems:
        print("FAIL:\n  " + "\n  ".join(problems[:20]))
        return 1
    slices = sum(len(s) for s in rows.values())
    print(f"trace ok: {slices} slices on {len(rows)} rows of {len(processes)} processes, "
          f"{len(indices)} operations, {len(children)} child grids")
    return 0


if __name__ == "__main__":
    sys.exit(main())
