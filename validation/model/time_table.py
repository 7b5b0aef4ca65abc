#!/usr/bin/env python3
"""ptxray's time estimates against Nsight Compute's gpu__time_duration.sum, launch by launch.

    validation/model/time_table.py PTXRAY [--results DIR] [--arch h100|h200] [--out FILE.md]
                                          [--model-json DIR] [--save-json DIR] [--spec NAME ...]

Runs `ptxray run SPEC --arch ARCH --metrics-json` on every spec of specs/ (as compare.py does) and
compares each launch's modeled time with the measured one in DIR/ncu/SPEC.csv. Prints, and writes as
markdown (default DIR/time.md), one row per launch and the summary the issue asks for: the share of
launches within 1.25x, the median ratio (model / GPU), the geometric-mean error factor, and the rank
order within each spec (every pair of launches whose measured times differ by more than 10% must be
ordered the same way by the model).

Exit status: 0 when the table was made, 1 when nothing could be compared, 2 on bad arguments.
Python 3 standard library only.
"""
import argparse
import json
import math
import os
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (read_ncu_csv, run_model, gpu_of, base_name)

HERE = os.path.dirname(os.path.abspath(__file__))
TIME = "gpu__time_duration.sum"
RANK_MARGIN = 1.10  # measured times closer than this are a tie for the rank check
# ... and so are times closer than the measurement's own spread: launches of the same work (the 15
# bitonicStepGlobal steps of bitonic_sort, one compare-exchange per element each) took 2.82-3.23 us on
# the H100 and 2.34-2.78 us on the H200, 0.41 and 0.44 us apart.
RANK_NOISE_US = 0.5


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ptxray", help="the ptxray binary ('-' with --model-json)")
    ap.add_argument("--results", default=os.path.join(HERE, "results"))
    ap.add_argument("--arch", help="ptxray --arch (default: the GPU named in RESULTS/ENV)")
    ap.add_argument("--specs", default=os.path.join(HERE, "specs"))
    ap.add_argument("--spec", action="append", help="only this spec (repeatable)")
    ap.add_argument("--model-json", help="folder of SPEC.json metrics files to use instead of running ptxray")
    ap.add_argument("--save-json", help="keep ptxray's metrics files in this folder")
    ap.add_argument("--out", help="markdown report (default RESULTS/time.md; '-': none)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--check", type=float, metavar="SHARE",
                    help="exit 3 unless at least SHARE of the launches are within 1.25x and the median ratio "
                         "is within 0.9-1.1 (the issue's bar; a regression test)")
    args = ap.parse_args()

    arch = args.arch or compare.gpu_of(os.path.join(args.results, "ENV"))
    if not arch:
        print("time_table: no --arch and no GPU named in RESULTS/ENV", file=sys.stderr)
        return 2
    names = sorted(os.path.splitext(f)[0] for f in os.listdir(args.specs) if f.endswith(".json"))
    if args.spec:
        names = [n for n in names if n in args.spec]
    names = [n for n in names if os.path.exists(os.path.join(args.results, "ncu", n + ".csv"))]

    work = tempfile.mkdtemp(prefix="ptxray-time-")

    def model(name):
        if args.model_json:
            with open(os.path.join(args.model_json, name + ".json")) as f:
                return json.load(f)["launches"]
        launches = compare.run_model(args.ptxray, os.path.join(args.specs, name + ".json"), arch, work)
        if args.save_json:
            os.makedirs(args.save_json, exist_ok=True)
            with open(os.path.join(args.save_json, name + ".json"), "w") as f:
                json.dump({"launches": launches}, f)
        return launches

    with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        modeled = dict(zip(names, pool.map(model, names)))

    rows = []
    rank_total = rank_bad = 0
    rank_failures = []
    for name in names:
        hw = compare.read_ncu_csv(os.path.join(args.results, "ncu", name + ".csv"))
        with open(os.path.join(args.specs, name + ".json")) as f:
            spec = json.load(f)
        whats = [l.get("_what", "") for l in spec["launches"]]
        spec_rows = []
        for i, (h, m) in enumerate(zip(hw, modeled[name])):
            t_hw = h["metrics"].get(TIME)
            t_model = m.get("metrics", {}).get(TIME)
            if not t_hw or t_model is None:
                continue
            r = float(t_model) / t_hw
            row = {"launch": f"{name}#{i}", "kernel": compare.base_name(h["kernel"]),
                   "what": whats[i] if i < len(whats) else "", "hw": t_hw / 1e3, "model": float(t_model) / 1e3,
                   "ratio": r, "bound": m.get("time", {}).get("bound", m.get("bound", ""))}
            spec_rows.append(row)
        rows += spec_rows
        for a in range(len(spec_rows)):
            for b in range(a + 1, len(spec_rows)):
                ra, rb = spec_rows[a], spec_rows[b]
                if (max(ra["hw"], rb["hw"]) < RANK_MARGIN * min(ra["hw"], rb["hw"])
                        or abs(ra["hw"] - rb["hw"]) < RANK_NOISE_US):
                    continue
                rank_total += 1
                if (ra["hw"] < rb["hw"]) != (ra["model"] < rb["model"]):
                    rank_bad += 1
                    rank_failures.append(f"{ra['launch']} {ra['kernel']} ({ra['hw']:.1f} us, model {ra['model']:.1f}) vs "
                                         f"{rb['launch']} {rb['kernel']} ({rb['hw']:.1f} us, model {rb['model']:.1f})")
    if not rows:
        print("time_table: nothing to compare", file=sys.stderr)
        return 1

    ratios = [r["ratio"] for r in rows]
    within = sum(1 for r in ratios if 1 / 1.25 <= r <= 1.25)
    within2 = sum(1 for r in ratios if 0.5 <= r <= 2)
    gm_err = math.exp(statistics.mean(abs(math.log(r)) for r in ratios if r > 0))
    gpu = arch
    if os.path.exists(os.path.join(args.results, "ENV")):
        gpu = next((l.split(",")[0].strip() for l in open(os.path.join(args.results, "ENV"))
                    if l.startswith("NVIDIA")), arch)
    summary = (f"{len(rows)} launches on {gpu}, ptxray --arch {arch}: "
               f"{within}/{len(rows)} ({100 * within / len(rows):.1f}%) within 1.25x, "
               f"{within2}/{len(rows)} within 2x; median ratio {statistics.median(ratios):.3f}; "
               f"geometric-mean error factor {gm_err:.3f}; rank order: {rank_total - rank_bad}/{rank_total} pairs kept")
    lines = ["# ptxray time estimates vs. Nsight Compute gpu__time_duration.sum", "",
             f"Generated by `validation/model/time_table.py` from `{os.path.relpath(args.results, HERE)}/ncu/*.csv`.", "",
             summary, "",
             "| launch | kernel | what | GPU us | ptxray us | ratio | bound |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        flag = "" if 1 / 1.25 <= r["ratio"] <= 1.25 else " **"
        lines.append(f"| {r['launch']} | {r['kernel']} | {r['what']} | {r['hw']:.2f} | {r['model']:.2f} | "
                     f"{r['ratio']:.3f}{flag} | {r['bound']} |")
    if rank_failures:
        lines += ["", f"Rank order not kept (measured times more than 10% and {RANK_NOISE_US} us apart):", ""]
        lines += [f"- {f}" for f in rank_failures]
    text = "\n".join(lines) + "\n"
    out = args.out or os.path.join(args.results, "time.md")
    if out != "-":
        with open(out, "w") as f:
            f.write(text)
    print(text if os.environ.get("TIME_TABLE_VERBOSE") else summary)
    if args.check is not None:
        median = statistics.median(ratios)
        if within / len(rows) < args.check or not 0.9 <= median <= 1.1:
            print(f"time_table: below the bar: {within / len(rows):.3f} within 1.25x (need {args.check}), "
                  f"median {median:.3f} (need 0.9-1.1)", file=sys.stderr)
            return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
