#!/usr/bin/env python3
"""`ptxray timeline` on specs of 100,000 events or 150,000 buffers (issue #31: lookups by name
scanned every event or buffer before, and JSON's parse callback the whole operation list, so these
took half a minute or more; ctest's timeout says they no longer do). Each spec has a result that
follows from its operations alone, which the timeline's JSON must show.

  timeline_scale_test.py PTXRAY MODULE.ptx events|buffers [COUNT]
"""
import json
import os
import subprocess
import sys
import tempfile


def events_spec(module, count):
    """A long memset, then `count` events recorded and waited for hopping across streams 1..1023,
    then a memset on the last stream: every event completes when the first memset does (each waits
    for the one before), and the last memset starts after it. Event e0 is recorded first before the
    long memset, on stream 2: the waits name an event's last record, which comes after it."""
    ops = [{"op": "event_record", "stream": 2, "event": "e0"},
           {"op": "memset", "stream": 1, "dst": "big"}]
    hop = lambda i: 1 + i % 1023
    for i in range(count):
        ops.append({"op": "event_record", "stream": hop(i), "event": f"e{i}"})
        ops.append({"op": "stream_wait_event", "stream": hop(i + 1), "event": f"e{i}"})
    ops.append({"op": "memset", "stream": hop(count), "dst": "small"})
    ops.append({"op": "synchronize"})
    return {"module": module, "buffers": [{"name": "big", "bytes": 1 << 20}, {"name": "small", "bytes": 4}],
            "operations": ops}


def check_events(doc, count):
    ops = doc["operations"]
    assert len(ops) == 2 * count + 4, f"{len(ops)} operations"
    first = ops[1]
    assert first["op"] == "memset" and first["bytes"] == 1 << 20, first
    markers = ops[2:-2]
    late = [m["index"] for m in markers if m["end_us"] != first["end_us"]]
    assert not late, f"events not completed with the memset they wait for: {late[:10]}"
    assert ops[-2]["start_us"] >= first["end_us"], (ops[-2], first)
    return f"{count} events complete at {first['end_us']:.3f} us, with the memset before them"


def buffers_spec(module, count):
    """`count` device buffers of 1 to 13 bytes and a memset of each, its size left to the buffer,
    on streams 1..7; then a copy from a pageable host buffer (which holds the host)."""
    buffers = [{"name": f"b{i}", "bytes": 1 + i % 13} for i in range(count)]
    buffers.append({"name": "host", "bytes": 16, "host": "pageable"})
    ops = [{"op": "memset", "stream": 1 + i % 7, "dst": f"b{i}"} for i in range(count)]
    ops.append({"op": "memcpy_h2d", "stream": 1, "dst": f"b{count - 1}", "src": "host", "bytes": 1})
    ops.append({"op": "synchronize"})
    return {"module": module, "buffers": buffers, "operations": ops}


def check_buffers(doc, count):
    ops = doc["operations"]
    assert len(ops) == count + 2, f"{len(ops)} operations"
    wrong = [i for i in range(count) if ops[i]["bytes"] != 1 + i % 13 or ops[i]["label"] != f"b{i} = 0x00 ({1 + i % 13} B)"]
    assert not wrong, f"memsets of the wrong buffer: {[ops[i] for i in wrong[:5]]}"
    assert ops[count]["host_memory"] == "pageable", ops[count]
    total = sum(1 + i % 13 for i in range(count))
    assert doc["totals"]["compute"]["bytes"] == total, doc["totals"]["compute"]
    return f"{count} memsets of {total} bytes, each of its own buffer"


def main():
    ptxray, module, kind = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else (100000 if kind == "events" else 150000)
    spec = (events_spec if kind == "events" else buffers_spec)(module, count)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "spec.json")
        with open(path, "w") as f:
            f.write(json.dumps(spec))  # one string: json.dump writes 300,000 objects piece by piece, slowly
        out = os.path.join(tmp, "timeline.json")
        run = subprocess.run([ptxray, "timeline", path, "--quiet", "--threads", "1", "--json", out],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            print(f"FAIL: exit status {run.returncode}: {run.stderr}")
            return 1
        with open(out) as f:
            doc = json.load(f)
    try:
        message = (check_events if kind == "events" else check_buffers)(doc, count)
    except AssertionError as e:
        print(f"FAIL: {e}")
        return 1
    print(f"timeline scale ({kind}): {message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
