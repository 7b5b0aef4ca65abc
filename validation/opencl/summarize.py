#!/usr/bin/env python3
"""Turns compare.sh's raw outputs into results.json and summary.md.

Usage: summarize.py RESULTS_DIR [BUILD_DIR]

RESULTS_DIR/raw holds meta.tsv, programs.tsv, runs.tsv and, per run, PROGRAM/LABEL.{cmd,stdout,stderr,
status,time} with ptxray's LABEL.report.json (and LABEL.sanitizer.json) or Oclgrind's LABEL.oclgrind.log.
ptxray's reports are compressed here (LABEL.report.json.gz). BUILD_DIR, the compiled programs' folder, is replaced by "$BUILD" in the recorded commands.

What each tool told the user beyond the program's output:
  ptxray    the --report's findings (rule names, per kernel), the reports it printed on stderr (lines
            "========= X" not indented: sanitizer reports, faults, the tools' summaries, with their
            "N occurrences"), and its other "ptxray:" lines but the one naming the report file;
  oclgrind  the diagnostics of its log (--log) and its API checks' messages on stderr: each message's
            first line, addresses elided, with the kernel it names; "OpenCL runtime error detected" as
            "API error: FUNCTION: ERROR";
  pocl      nothing (PoCL prints nothing of its own).
"""
import collections
import difflib
import gzip
import json
import os
import re
import sys


def read(path, default=""):
    """A file's text; PATH.gz's when PATH is missing (reports are kept compressed)."""
    for candidate, opener in ((path, open), (path + ".gz", gzip.open)):
        try:
            with opener(candidate, "rb") as f:
                return f.read().decode("utf-8", errors="replace")
        except FileNotFoundError:
            pass
    return default


def compress(path):
    """Replaces PATH by PATH.gz (the advisor's reports run to megabytes of per-line metrics)."""
    if os.path.exists(path):
        with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as g:
            g.write(f.read())
        os.remove(path)


def tsv(path):
    return [line.split("\t") for line in read(path).splitlines() if line]


def counted(items):
    """[(text, n)] in first-seen order, equal texts merged (their n summed)."""
    order, total = [], collections.OrderedDict()
    for text, n in items:
        if text not in total:
            total[text] = 0
            order.append(text)
        total[text] += n
    return [{"text": t, "count": total[t]} for t in order]


def ptxray_told(stderr, report_path):
    told = {"advisor_findings": None, "reports": [], "notes": []}
    if os.path.exists(report_path) or os.path.exists(report_path + ".gz"):
        try:
            report = json.loads(read(report_path))
            told["advisor_findings"] = [
                {"kernel": a.get("kernel"), "rules": [f.get("rule") for f in a.get("findings", [])]}
                for a in report.get("analyses", [])]
        except json.JSONDecodeError as e:
            told["notes"].append(f"(the report is not JSON: {e})")
    items = []
    for line in stderr.splitlines():
        if line.startswith("========= "):
            body = line[len("========= "):]
            if not body.startswith(" "):
                items.append([body, 1])
            elif items:
                m = re.match(r"\s+(\d+) occurrences?$", body)
                if m:
                    items[-1][1] = int(m.group(1))
        elif line.startswith("ptxray: ") and "advisor's report of" not in line:
            told["notes"].append(line)
    told["reports"] = counted(items)
    return told


def oclgrind_told(log, stderr):
    """Oclgrind's plugins write to its log (--log); its API checks (--check-api) to stderr, in blocks
    that start with "Oclgrind - OpenCL runtime error detected" (the program's own lines are not
    indented and stand alone). A message is a block of lines between empty lines (its own separators
    are lines of one tab)."""
    api = [b for b in re.split(r"\n\n+", stderr) if b.lstrip("\n").startswith("Oclgrind - ")]
    items = []
    for block in re.split(r"\n\n+", log) + api:
        lines = [l for l in block.splitlines() if l.strip()]
        if not lines:
            continue
        head = lines[0].strip()
        fields = {}
        for l in lines[1:]:
            m = re.match(r"\s*(Function|Error|Kernel):\s*(.*)", l)
            if m and m.group(1) not in fields:
                fields[m.group(1)] = m.group(2).strip()
        if head.startswith("Oclgrind - OpenCL runtime error detected"):
            text = f"API error: {fields.get('Function', '?')}: {fields.get('Error', '?')}"
        else:
            text = re.sub(r"0x[0-9a-fA-F]+", "0x…", head)
            if "Kernel" in fields:
                text += f" (kernel {fields['Kernel']})"
        items.append((text, 1))
    return {"diagnostics": counted(items)}


def verdict_lines(stdout):
    """The guide's own verdicts: its table rows' first column (and offset/stride) and last (ok or
    MISMATCH), its "check:" lines and first mismatches: what must agree whatever the device's speed."""
    out = []
    for line in stdout.splitlines():
        f = line.split()
        if line.startswith("check:") or "first mismatch" in line:
            out.append(line.strip())
        elif len(f) >= 3 and f[-1] in ("ok", "MISMATCH"):
            out.append(" ".join([f[0]] + ([f[1]] if f[1].isdigit() else []) + [f[-1]]))
    return out


def status_text(status):
    if status is None:
        return "?"
    if status in (124, 137):
        return f"timeout ({status})"
    if status > 128:
        sig = status - 128
        name = {6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 8: "SIGFPE", 7: "SIGBUS"}.get(sig, f"signal {sig}")
        return f"{status} ({name})"
    return str(status)


def told_text(run, limit=6):
    t = run["told_user"]
    if run["tool"] == "pocl":
        return "nothing"
    parts = []
    if run["tool"] == "ptxray":
        findings = t.get("advisor_findings")
        if findings is None:
            parts.append("no report written")
        else:
            rules = counted((r, 1) for a in findings for r in a["rules"])
            kernels = len(findings)
            if rules:
                parts.append(f"report ({kernels} kernel{'s' if kernels != 1 else ''}): " + ", ".join(
                    f"{r['text']}" + (f" ×{r['count']}" if r["count"] > 1 else "") for r in rules))
            else:
                parts.append(f"report ({kernels} kernel{'s' if kernels != 1 else ''}): no findings")
        reps = t["reports"]
        if reps:
            shown = [f"“{r['text']}”" + (f" ×{r['count']}" if r["count"] > 1 else "") for r in reps[:limit]]
            if len(reps) > limit:
                shown.append(f"… {len(reps) - limit} more")
            parts.append("stderr: " + "; ".join(shown))
        parts += t["notes"]
    else:
        diags = [d for d in t["diagnostics"] if not d["text"].startswith("API error: ")]
        api = [d for d in t["diagnostics"] if d["text"].startswith("API error: ")]
        if not diags and not api:
            parts.append("no diagnostics")
        if diags:
            shown = [f"“{d['text']}”" + (f" ×{d['count']}" if d["count"] > 1 else "") for d in diags[:limit]]
            if len(diags) > limit:
                shown.append(f"… {len(diags) - limit} more kinds")
            parts.append("; ".join(shown))
        if api:
            n = sum(d["count"] for d in api)
            shown = [d["text"][len("API error: "):] + (f" ×{d['count']}" if d["count"] > 1 else "") for d in api[:3]]
            if len(api) > 3:
                shown.append(f"… {len(api) - 3} more kinds")
            parts.append(f"--check-api: {n} call{'s' if n != 1 else ''} returned an error ({'; '.join(shown)})")
    return "; ".join(parts).replace("|", "\\|")


def main(argv):
    results = argv[1]
    build = argv[2] if len(argv) > 2 else None
    raw = os.path.join(results, "raw")
    meta = {k: v for k, v in (row[:2] for row in tsv(os.path.join(raw, "meta.tsv")))}
    programs = []
    for name, source, ok, args in (row + [""] * (4 - len(row)) for row in tsv(os.path.join(raw, "programs.tsv"))):
        programs.append({"name": name, "source": source, "compiled": ok == "1", "arguments": args,
                         "compile_log": os.path.relpath(os.path.join(raw, name, "compile.log"), results),
                         "runs": []})
    by_name = {p["name"]: p for p in programs}

    for program, label, tool, options in (row + [""] * (4 - len(row)) for row in tsv(os.path.join(raw, "runs.tsv"))):
        base = os.path.join(raw, program, label)
        status_s = read(base + ".status").strip()
        status = int(status_s) if status_s.lstrip("-").isdigit() else None
        times = read(base + ".time").split()
        wall, user, sys_ = (float(x) for x in times[-3:]) if len(times) >= 3 else (None, None, None)
        stdout, stderr = read(base + ".stdout"), read(base + ".stderr")
        command = read(base + ".cmd").strip()
        if build:
            command = command.replace(build, "$BUILD")
        if tool == "ptxray":
            told = ptxray_told(stderr, base + ".report.json")
        elif tool == "oclgrind":
            told = oclgrind_told(read(base + ".oclgrind.log"), stderr)
        else:
            told = {}
        compress(base + ".report.json")
        files = {k: os.path.relpath(base + ext, results) for k, ext in
                 (("command", ".cmd"), ("stdout", ".stdout"), ("stderr", ".stderr"),
                  ("report", ".report.json.gz"), ("sanitizer_json", ".sanitizer.json"),
                  ("oclgrind_log", ".oclgrind.log")) if os.path.exists(base + ext)}
        by_name[program]["runs"].append({
            "label": label, "tool": tool, "options": options, "command": command,
            "exit_status": status, "timed_out": status in (124, 137),
            "wall_s": wall, "user_s": user, "sys_s": sys_,
            "stdout_lines": len(stdout.splitlines()), "told_user": told, "files": files,
            "_stdout": stdout})

    # Standard output against PoCL's (its cold-cache run).
    for p in programs:
        ref = next((r for r in p["runs"] if r["label"] == "pocl"), None)
        for r in p["runs"]:
            if ref is None or r is ref:
                r["stdout_equals_pocl"] = None if ref is None else True
                r["stdout_lines_only_here"] = r["stdout_lines_only_in_pocl"] = None if ref is None else 0
                continue
            a, b = ref["_stdout"].splitlines(keepends=True), r["_stdout"].splitlines(keepends=True)
            r["stdout_equals_pocl"] = ref["_stdout"] == r["_stdout"]
            diff = list(difflib.unified_diff(a, b, "pocl", r["label"]))
            r["stdout_lines_only_here"] = sum(1 for l in diff if l.startswith("+") and not l.startswith("+++"))
            r["stdout_lines_only_in_pocl"] = sum(1 for l in diff if l.startswith("-") and not l.startswith("---"))
            if diff:
                path = os.path.join(raw, p["name"], r["label"] + ".diff")
                with open(path, "w") as f:
                    f.writelines(diff)
                r["files"]["diff_from_pocl"] = os.path.relpath(path, results)
            if p["name"] == "guide":
                r["verdicts_equal_pocl"] = verdict_lines(ref["_stdout"]) == verdict_lines(r["_stdout"])
        if ref is not None and p["name"] == "guide":
            ref["verdicts_equal_pocl"] = True
            ref["verdicts"] = verdict_lines(ref["_stdout"])
    for p in programs:
        for r in p["runs"]:
            del r["_stdout"]

    doc = {"schema": "ptxray-validation-opencl/1", "meta": meta, "programs": programs}
    with open(os.path.join(results, "results.json"), "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")

    # summary.md: one table per program.
    ref_lines = {p["name"]: next((r["stdout_lines"] for r in p["runs"] if r["label"] == "pocl"), "?")
                 for p in programs}
    md = [f"Run {meta.get('date', '?')} on {meta.get('host_cpus', '?')} CPU cores ({meta.get('host_cpu_model', '?')}), "
          f"load average {meta.get('loadavg_start', '?')} at the start and {meta.get('loadavg_end', '?')} at the end; "
          f"ptxray {meta.get('ptxray_path', '?')} (sha256 {meta.get('ptxray_sha256', '?')[:12]}…, built "
          f"{meta.get('ptxray_mtime', '?')}), PoCL {meta.get('pocl', '?')}, {meta.get('oclgrind', '?')}; "
          f"{meta.get('timeout_s', '?')} s allowed per run.", ""]
    for p in programs:
        md.append(f"### {p['name']}" + (f" ({p['arguments']})" if p["arguments"] else ""))
        md.append("")
        if not p["compiled"]:
            md.append(f"Does not compile: skipped ({p['compile_log']}).")
            md.append("")
            continue
        md.append("| run | exit | stdout = PoCL's | wall s (user + sys) | what it told the user |")
        md.append("|---|---|---|---|---|")
        for r in p["runs"]:
            eq = r["stdout_equals_pocl"]
            if r["label"] == "pocl":
                eq_text = "(reference)"
            elif eq is None:
                eq_text = "n/a"
            elif eq:
                eq_text = "yes"
            else:
                gone, new, n = r["stdout_lines_only_in_pocl"], r["stdout_lines_only_here"], ref_lines[p["name"]]
                if new == 0:
                    eq_text = f"no ({gone} of PoCL's {n} lines missing)"
                elif gone == new:
                    eq_text = f"no ({gone} of {n} lines differ)"
                else:
                    eq_text = f"no ({gone} of PoCL's {n} lines missing or different, {new} in their place)"
                if "verdicts_equal_pocl" in r:
                    eq_text += "; verdicts " + ("equal" if r["verdicts_equal_pocl"] else "DIFFER")
            wall = "?" if r["wall_s"] is None else f"{r['wall_s']:.2f} ({r['user_s']:.2f} + {r['sys_s']:.2f})"
            name = r["label"] + (f" `{r['options']}`" if r["options"] and r["tool"] == "ptxray" else "")
            md.append(f"| {name} | {status_text(r['exit_status'])} | {eq_text} | {wall} | {told_text(r)} |")
        md.append("")
    with open(os.path.join(results, "summary.md"), "w") as f:
        f.write("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
