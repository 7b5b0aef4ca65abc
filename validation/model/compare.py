#!/usr/bin/env python3
"""Compares ptxray's performance model with the hardware counters measured by validation/model/run.sh.

    validation/model/compare.py PTXRAY [--arch h100|h200] [--spec NAME]... [--model-json DIR]
                                [--results DIR] [--out FILE] [--tolerance 0.05]

For every spec of validation/model/specs/ that has a measured CSV (results/ncu/SPEC.csv, written by
`ncu --csv --page raw --print-units base`), runs

    PTXRAY run SPEC.json --arch ARCH --metrics-json TMP.json

(ARCH: the GPU named in results/ENV unless --arch is given) and matches its launches, in order, with
the CSV's rows. Prints, per launch, every metric both sides have (hardware, model, model/hardware,
PASS when within the tolerance) and the per-request ratios (global sectors per request, shared
wavefronts per shared instruction), and the GPU's DRAM bytes read + written against the model's
ptxray__dram_bytes; writes results/comparison.md.

--model-json DIR reads DIR/SPEC.json instead of running ptxray (PTXRAY is then ignored; "-" will do):
that is how the script is tested without a model.

Exit status: 0 when the comparison was made (mismatches included), 1 when no spec could be compared,
2 on bad arguments. Python 3 standard library only.
"""
import argparse
import csv
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# The counters run.sh asks ncu for, in the order the tables show them.
METRICS = [
    "smsp__inst_executed.sum",
    "smsp__thread_inst_executed.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "smsp__sass_average_branch_targets_threads_uniform.pct",
]

# What a metric is, for the summary: memory-system counts the model should reproduce exactly from the
# PTX, instruction counts (the GPU counts SASS, the model PTX), and estimates (time, occupancy, DRAM).
def kind_of(metric):
    if metric in RATIOS or metric.startswith("l1tex__") or "_op_shared_" in metric:
        return "count"
    if metric.startswith("smsp__inst") or metric.startswith("smsp__thread_inst") or "branch_targets" in metric:
        return "instructions"
    return "estimate"  # SUMS too


# Per-request ratios: name -> (numerator, denominator).
RATIOS = {
    "global ld sectors/request": ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                  "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
    "global st sectors/request": ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                                  "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
    "shared ld wavefronts/inst": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                                  "smsp__inst_executed_op_shared_ld.sum"),
    "shared st wavefronts/inst": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                                  "smsp__inst_executed_op_shared_st.sum"),
}

# Hardware sums compared with a ptxray-only metric: name -> (hardware metrics added up, model metric).
SUMS = {
    "DRAM bytes read+write": (("dram__bytes_read.sum", "dram__bytes_write.sum"), "ptxray__dram_bytes"),
}

# Base units (ncu --print-units base) and the scaled ones ncu prints without it.
UNIT_SCALE = {
    "": 1, "ns": 1, "nsecond": 1, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6, "s": 1e9, "second": 1e9,
    "byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12, "KB": 1e3, "MB": 1e6, "GB": 1e9,
    "B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3,
}


def number(text, unit=""):
    """A CSV cell ("1,048,576", "69.16", "n/a") as a float in base units, or None."""
    t = text.strip().replace(",", "")
    if t == "" or t.lower() in ("n/a", "nan"):
        return None
    try:
        v = float(t)
    except ValueError:
        return None
    scale = UNIT_SCALE.get(unit.strip())
    if scale is None:  # counted units (inst, sector, request, warp, %, ...): no scaling
        m = re.match(r"^([KMGT])(.+)$", unit.strip())
        scale = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m.group(1)] if m and m.group(2) in (
            "inst", "sector", "request", "warp", "cycle") else 1
    return v * scale


def read_ncu_csv(path):
    """The launches of an `ncu --csv --page raw` file: [{"kernel", "grid", "block", "metrics"}]."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    if len(rows) < 2:
        return []
    header, units = rows[0], rows[1]
    col = {name: i for i, name in enumerate(header)}
    launches = []
    for r in rows[2:]:
        def cell(name):
            i = col.get(name)
            return r[i] if i is not None and i < len(r) else ""

        metrics = {}
        for m in METRICS:
            if m in col:
                v = number(cell(m), units[col[m]] if col[m] < len(units) else "")
                if v is not None:
                    metrics[m] = v
        launches.append({"kernel": cell("Kernel Name"), "grid": cell("Grid Size"), "block": cell("Block Size"),
                         "metrics": metrics})
    return launches


def base_name(name):
    """"transposeNaive(float *, const float *, int, int)" -> "transposeNaive"."""
    name = name.strip()
    if name.endswith(")"):
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            if name[i] == ")":
                depth += 1
            elif name[i] == "(":
                depth -= 1
                if depth == 0:
                    return name[:i].strip()
    return name


def gpu_of(env_path):
    """'h100' or 'h200' from results/ENV, else None."""
    try:
        text = open(env_path).read()
    except OSError:
        return None
    for arch in ("H200", "H100"):
        if arch in text:
            return arch.lower()
    return None


def run_model(ptxray, spec_path, arch, workdir):
    """Runs ptxray on a copy of the spec (module made absolute, no outputs) and returns its launches."""
    with open(spec_path) as f:
        spec = json.load(f)
    spec_dir = os.path.dirname(os.path.abspath(spec_path))
    if not os.path.isabs(spec["module"]):
        spec["module"] = os.path.normpath(os.path.join(spec_dir, spec["module"]))
    for b in spec.get("buffers", []):
        init = b.get("init")
        if isinstance(init, str) and init != "zero" and not os.path.isabs(init):
            b["init"] = os.path.normpath(os.path.join(spec_dir, init))
    spec.pop("outputs", None)
    name = os.path.splitext(os.path.basename(spec_path))[0]
    tmp_spec = os.path.join(workdir, name + ".json")
    tmp_out = os.path.join(workdir, name + ".metrics.json")
    with open(tmp_spec, "w") as f:
        json.dump(spec, f)
    cmd = [ptxray, "run", tmp_spec, "--arch", arch, "--metrics-json", tmp_out]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[-2000:]}")
    with open(tmp_out) as f:
        return json.load(f)["launches"]


def ratio(model, hw):
    if hw == 0 and model == 0:
        return 1.0
    if hw == 0:
        return math.inf
    return model / hw


def verdict(r, tol):
    return "PASS" if abs(r - 1.0) <= tol else "FAIL"


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float) and (math.isinf(v) or math.isnan(v)):
        return "inf" if math.isinf(v) else "nan"
    if abs(v) >= 1e6 or (v == int(v) and abs(v) < 1e15):
        return f"{v:,.0f}" if v == int(v) else f"{v:,.1f}"
    if abs(v) >= 100:
        return f"{v:,.1f}"
    return f"{v:.3f}"


def fmt_ratio(r):
    if r is None:
        return "-"
    if math.isinf(r):
        return "inf"
    return f"{r:.3f}"


def compare_spec(name, hw_launches, model_launches, tol):
    """Rows (dicts) of one spec."""
    rows = []
    notes = []
    if len(hw_launches) != len(model_launches):
        notes.append(f"{name}: {len(hw_launches)} measured launches, {len(model_launches)} modeled; "
                     f"comparing the first {min(len(hw_launches), len(model_launches))}")
    for i, (hw, mo) in enumerate(zip(hw_launches, model_launches)):
        hk = base_name(hw["kernel"])
        mk_names = {mo.get("kernel", ""), base_name(mo.get("demangled", "") or "")}
        if hk not in mk_names:
            notes.append(f"{name} launch {i}: ncu kernel '{hw['kernel']}' vs model '{mo.get('kernel')}'")
        kernel = f"{name}#{i} {hk}"
        mm = mo.get("metrics", {})
        for m in METRICS:
            h = hw["metrics"].get(m)
            v = mm.get(m)
            if h is None:
                continue
            if v is None:
                rows.append({"kernel": kernel, "metric": m, "hw": h, "model": None, "ratio": None, "status": "-"})
                continue
            if h == 0 and float(v) == 0:
                rows.append({"kernel": kernel, "metric": m, "hw": h, "model": 0.0, "ratio": None, "status": "zero"})
                continue
            r = ratio(float(v), h)
            rows.append({"kernel": kernel, "metric": m, "hw": h, "model": float(v), "ratio": r,
                         "status": verdict(r, tol)})
        for label, (parts, model_metric) in SUMS.items():
            if not all(p in hw["metrics"] for p in parts):
                continue
            h = sum(hw["metrics"][p] for p in parts)
            v = mm.get(model_metric)
            if v is None:
                rows.append({"kernel": kernel, "metric": label, "hw": h, "model": None, "ratio": None, "status": "-"})
                continue
            r = ratio(float(v), h)
            rows.append({"kernel": kernel, "metric": label, "hw": h, "model": float(v), "ratio": r,
                         "status": verdict(r, tol)})
        for label, (num, den) in RATIOS.items():
            hn, hd = hw["metrics"].get(num), hw["metrics"].get(den)
            mn, md = mm.get(num), mm.get(den)
            if not hd:
                continue
            h = hn / hd
            if mn is None or not md:
                rows.append({"kernel": kernel, "metric": label, "hw": h, "model": None, "ratio": None, "status": "-",
                             "derived": True})
                continue
            v = float(mn) / float(md)
            r = ratio(v, h)
            rows.append({"kernel": kernel, "metric": label, "hw": h, "model": v, "ratio": r,
                         "status": verdict(r, tol), "derived": True})
    return rows, notes


def launch_overhead(results):
    """(ncu median ns, events mean us) of the empty kernel, where measured."""
    ncu_ns = None
    path = os.path.join(results, "ncu", "empty_kernel.csv")
    if os.path.exists(path):
        times = [l["metrics"]["gpu__time_duration.sum"] for l in read_ncu_csv(path)
                 if "gpu__time_duration.sum" in l["metrics"]]
        if times:
            ncu_ns = (statistics.median(times), min(times), max(times), len(times))
    events = []
    path = os.path.join(results, "empty_kernel.txt")
    if os.path.exists(path):
        for line in open(path):
            m = re.search(r"([0-9.]+) us per launch", line)
            if m:
                events.append(float(m.group(1)))
    return ncu_ns, events


def table(rows, columns):
    out = ["| " + " | ".join(c for c, _ in columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    for r in rows:
        out.append("| " + " | ".join(f(r) for _, f in columns) + " |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ptxray", help="the ptxray binary ('-' with --model-json)")
    ap.add_argument("--arch", help="ptxray --arch (default: the GPU named in results/ENV)")
    ap.add_argument("--spec", action="append", help="only this spec (repeatable)")
    ap.add_argument("--specs", default=os.path.join(HERE, "specs"))
    ap.add_argument("--results", default=os.path.join(HERE, "results"))
    ap.add_argument("--model-json", help="folder of SPEC.json metrics files to use instead of running ptxray")
    ap.add_argument("--out", default=None, help="markdown report (default RESULTS/comparison.md; '-': none)")
    ap.add_argument("--tolerance", type=float, default=0.05)
    a = ap.parse_args()

    arch = a.arch or gpu_of(os.path.join(a.results, "ENV")) or "h100"
    names = sorted(os.path.splitext(f)[0] for f in os.listdir(a.specs) if f.endswith(".json"))
    if a.spec:
        unknown = [s for s in a.spec if s not in names]
        if unknown:
            print(f"compare.py: unknown spec(s): {', '.join(unknown)}", file=sys.stderr)
            return 2
        names = a.spec

    all_rows, notes, compared = [], [], []
    with tempfile.TemporaryDirectory(prefix="ptxray-compare-") as work:
        for name in names:
            csv_path = os.path.join(a.results, "ncu", name + ".csv")
            if not os.path.exists(csv_path):
                notes.append(f"{name}: no measurement ({csv_path})")
                continue
            hw = read_ncu_csv(csv_path)
            try:
                if a.model_json:
                    with open(os.path.join(a.model_json, name + ".json")) as f:
                        model = json.load(f)["launches"]
                else:
                    model = run_model(a.ptxray, os.path.join(a.specs, name + ".json"), arch, work)
            except (OSError, RuntimeError, ValueError, KeyError) as e:
                notes.append(f"{name}: model failed: {e}")
                continue
            rows, n = compare_spec(name, hw, model, a.tolerance)
            all_rows += rows
            notes += n
            compared.append(name)

    tol_pct = f"{a.tolerance * 100:g}%"
    cols = [("kernel", lambda r: r["kernel"]), ("metric", lambda r: r["metric"]), ("hardware", lambda r: fmt(r["hw"])),
            ("model", lambda r: fmt(r["model"])), ("ratio", lambda r: fmt_ratio(r["ratio"])),
            ("", lambda r: r["status"])]

    # Rows worth showing: not zero on both sides, and not an unmodeled metric the GPU counted as zero.
    shown = [r for r in all_rows if r["status"] != "zero" and not (r["model"] is None and r["hw"] == 0)]

    # Console: one table.
    widths = [44, 56, 16, 16, 8, 4]
    print("".join(c.ljust(w + 1) for (c, _), w in zip(cols, widths)))
    for r in shown:
        print("".join(f(r)[:w].ljust(w + 1) for (_, f), w in zip(cols, widths)))
    for n in notes:
        print("note: " + n, file=sys.stderr)

    # Summary per metric.
    summary = []
    for m in METRICS + list(SUMS) + list(RATIOS):
        rs = [r for r in all_rows if r["metric"] == m and r["ratio"] is not None]
        if not rs and not any(r["metric"] == m and r["status"] == "zero" for r in all_rows):
            continue
        finite = [r["ratio"] for r in rs if not math.isinf(r["ratio"])]
        zeros = sum(r["metric"] == m and r["status"] == "zero" for r in all_rows)
        summary.append({"metric": m, "kind": kind_of(m), "zeros": zeros,
                        "pass": sum(r["status"] == "PASS" for r in rs), "n": len(rs),
                        "median": statistics.median(finite) if finite else (math.inf if rs else None),
                        "min": min(finite) if finite else (math.inf if rs else None),
                        "max": max(r["ratio"] for r in rs) if rs else None})
    passed = sum(r["status"] == "PASS" for r in all_rows)
    judged = sum(r["status"] in ("PASS", "FAIL") for r in all_rows)
    zeros = sum(r["status"] == "zero" for r in all_rows)
    by_kind = {}
    for r in all_rows:
        if r["status"] in ("PASS", "FAIL"):
            k = by_kind.setdefault(kind_of(r["metric"]), [0, 0])
            k[0] += r["status"] == "PASS"
            k[1] += 1
    kinds = ", ".join(f"{k} {p}/{n}" for k, (p, n) in sorted(by_kind.items()))
    print(f"\n{passed}/{judged} within {tol_pct} ({kinds}; {zeros} zero on both sides; "
          f"{len(compared)} specs, arch {arch})")

    out = a.out or os.path.join(a.results, "comparison.md")
    if out != "-":
        ncu_ns, events = launch_overhead(a.results)
        env = open(os.path.join(a.results, "ENV")).read() if os.path.exists(os.path.join(a.results, "ENV")) else ""
        gpu = next((l.split(",")[0] for l in env.splitlines() if l.startswith("NVIDIA")), "?")
        ncu_version = next((l for l in env.splitlines() if l.startswith("Version")), "?")
        if a.model_json:
            model_src = f"metrics JSON files of `{a.model_json}`"
        else:
            import time
            try:
                when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(a.ptxray)))
            except OSError:
                when = "?"
            model_src = f"`{a.ptxray}` (built {when})"
        md = ["# ptxray performance model vs. Nsight Compute", "",
              f"Model: {model_src}.", "",
              f"Generated by `validation/model/compare.py` (model: `ptxray run SPEC --arch {arch} --metrics-json`; "
              f"hardware: `results/ncu/*.csv`, {gpu}, ncu {ncu_version}). PASS: model/hardware within {tol_pct}. "
              "Ratios are model / hardware.", ""]
        if ncu_ns or events:
            md.append("Launch overhead of an empty 1x1 kernel (not modeled per launch here): ")
            if ncu_ns:
                md.append(f"ncu gpu__time_duration median {ncu_ns[0]:.0f} ns (min {ncu_ns[1]:.0f}, "
                          f"max {ncu_ns[2]:.0f}, {ncu_ns[3]} launches); ")
            if events:
                md.append("CUDA events over 1000 back-to-back launches: "
                          + ", ".join(f"{e:.3f}" for e in events) + " us per launch.")
            md.append("")
        md += [f"**{passed}/{judged}** comparisons within {tol_pct} over {len(compared)} specs ({kinds}); "
               f"{zeros} more are zero on both sides and not counted. Kinds: *count* = memory-system counts the "
               "model derives from the PTX's accesses; *instructions* = the GPU counts SASS, the model PTX; "
               "*estimate* = time, occupancy, DRAM traffic.", "",
               "## Per metric", "",
               table(summary, [("metric", lambda s: s["metric"]), ("kind", lambda s: s["kind"]),
                               ("PASS", lambda s: f"{s['pass']}/{s['n']}"), ("both zero", lambda s: str(s["zeros"])),
                               ("median ratio", lambda s: fmt_ratio(s["median"])),
                               ("min", lambda s: fmt_ratio(s["min"])), ("max", lambda s: fmt_ratio(s["max"]))]),
               "", f"## Mismatches (beyond {tol_pct})", ""]
        bad = [r for r in all_rows if r["status"] == "FAIL"]
        md.append(table(bad, cols) if bad else "none")
        if notes:
            md += ["", "## Notes", ""] + [f"- {n}" for n in notes]
        md += ["", "## Every comparison", "", "(Rows zero on both sides, and unmodeled metrics the GPU counted as zero, "
               "are left out.)", ""]
        for name in compared:
            md += [f"### {name}", "", table([r for r in shown if r["kernel"].startswith(name + "#")], cols), ""]
        with open(out, "w") as f:
            f.write("\n".join(md).rstrip() + "\n")
        print(f"wrote {out}")
    return 0 if compared else 1


if __name__ == "__main__":
    sys.exit(main())
