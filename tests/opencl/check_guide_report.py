#!/usr/bin/env python3
"""The advisor's report of the guide's kernels run by an unmodified OpenCL host program through
ptxray's platform (examples/opencl/guide.c under `ptxray exec --report FILE.json`): every kernel is
there, named as the program's OpenCL C names it, on the OpenCL lines, and each step of the guide's
sequence ([BPG] 3.2.2.2-3.2.2.3) has the finding the guide's text gives it and loses the one its next
step fixes.

usage: check_guide_report.py REPORT.json GPU-NAME
"""
import json
import sys


def main():
    report, gpu = sys.argv[1], sys.argv[2]
    analyses = {a["kernel"]: a for a in json.load(open(report))["analyses"]}
    rules = {k: [f["rule"] for f in a.get("findings", [])] for k, a in analyses.items()}
    failures = []

    def expect(kernel, present=(), absent=()):
        if kernel not in rules:
            failures.append(f"{kernel}: not in the report (it has {sorted(rules)})")
            return
        for r in present:
            if r not in rules[kernel]:
                failures.append(f"{kernel}: no {r} finding (findings: {rules[kernel]})")
        for r in absent:
            if r in rules[kernel]:
                failures.append(f"{kernel}: a {r} finding the guide's step removed (findings: {rules[kernel]})")

    # C = AB: B's row is read again by every row of C (3.2.2.2); tiling A and B in shared memory
    # removes both the redundant loads and any uncoalesced access.
    expect("simpleMultiply", present=["redundant-global-loads"])
    expect("coalescedMultiply", present=["redundant-global-loads"])
    expect("sharedABMultiply", absent=["redundant-global-loads", "uncoalesced-global"])
    # C = AA^T: the transposed read is strided (uncoalesced); through shared memory it is not, but the
    # column read conflicts on the banks; padding the tile by one removes the conflicts (16 or 32
    # banks of 4 bytes).
    expect("simpleMultiplyAAT", present=["uncoalesced-global"])
    expect("sharedMultiplyAAT", present=["shared-bank-conflicts"], absent=["uncoalesced-global"])
    expect("paddedMultiplyAAT", absent=["uncoalesced-global"])
    if gpu == "gtx280":
        expect("paddedMultiplyAAT", absent=["shared-bank-conflicts"])
    # The findings point at the OpenCL C source the program built.
    for kernel, a in analyses.items():
        files = {line.get("file", "") for f in a.get("findings", []) for line in f.get("lines", [])}
        if any(f and not f.endswith(".cl") for f in files):
            failures.append(f"{kernel}: findings on {sorted(files)}, not on the OpenCL source")
    if failures:
        print("\n".join(failures))
        return 1
    print(f"guide sequence on {gpu}: {len(analyses)} kernels as the guide's steps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
