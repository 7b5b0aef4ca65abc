#!/usr/bin/env python3
"""Runs one OpenCL host program of tests/opencl/programs under PoCL (the reference) and under
`ptxray exec`, and checks that both exit with status 0 and print the same standard output, line for
line (the programs print only what every conforming implementation prints).

Usage: compare.py PROGRAM PTXRAY [EXEC_OPTION...]
  PROGRAM       the compiled host program
  PTXRAY        the ptxray executable
  EXEC_OPTION   options for `ptxray exec`, placed before `--`

Prints "same as PoCL: NAME" and exits 0 when they agree; prints a unified diff (PoCL's output first),
the exit statuses and the end of each run's standard error, and exits 1 when they don't. Exits 77
(ctest's SKIP_RETURN_CODE) with "PoCL not installed" when PoCL's ICD file is missing.

Environment: PTXRAY_COMPARE_TIMEOUT, seconds allowed to each run (default 120); PTXRAY_POCL_ICD,
PoCL's ICD file (default /etc/OpenCL/vendors/pocl.icd, Debian's).
"""
import difflib
import os
import subprocess
import sys
import tempfile

# The ocl-icd and Khronos loader variables: set to PoCL for the reference run, left to `ptxray exec`
# (which points the loader at ptxray's platform alone) for the other.
LOADER_VARIABLES = ("OCL_ICD_VENDORS", "OCL_ICD_FILENAMES", "OPENCL_VENDOR_PATH")


def run(command, env, timeout):
    """Runs a command; returns (exit status or None on a timeout, stdout, stderr) as text."""
    try:
        done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, timeout=timeout)
        return done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or b"", e.stderr or b""


def text(data):
    return data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data


def describe(status, timeout):
    if status is None:
        return f"timed out after {timeout} s"
    if status < 0:
        return f"killed by signal {-status}"
    return f"exit status {status}"


def tail(data, lines=20):
    return "".join(text(data).splitlines(keepends=True)[-lines:])


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    program, ptxray, exec_options = os.path.abspath(argv[1]), os.path.abspath(argv[2]), argv[3:]
    name = os.path.basename(program)
    pocl_icd = os.environ.get("PTXRAY_POCL_ICD", "/etc/OpenCL/vendors/pocl.icd")
    if not os.path.exists(pocl_icd):
        print("PoCL not installed")
        return 77
    timeout = int(os.environ.get("PTXRAY_COMPARE_TIMEOUT", "120"))

    with tempfile.TemporaryDirectory(prefix="ptxray-pocl-cache-") as cache:
        # A cache of its own, so that tests running at once share no PoCL kernel cache.
        pocl_env = dict(os.environ)
        for var in LOADER_VARIABLES:
            pocl_env.pop(var, None)
        pocl_env["OCL_ICD_VENDORS"] = pocl_icd
        pocl_env["POCL_CACHE_DIR"] = cache
        pocl = run([program], pocl_env, timeout)

    ptxray_env = dict(os.environ)
    for var in LOADER_VARIABLES:
        ptxray_env.pop(var, None)
    ours = run([ptxray, "exec", *exec_options, "--", program], ptxray_env, timeout)

    pocl_out, ours_out = text(pocl[1]), text(ours[1])
    if pocl[0] == 0 and ours[0] == 0 and pocl_out == ours_out:
        print(f"same as PoCL: {name}")
        return 0

    print(f"{name}: differs from PoCL")
    print(f"  PoCL:   {describe(pocl[0], timeout)}")
    print(f"  ptxray: {describe(ours[0], timeout)}")
    if pocl[0] != 0:
        print("  (the program fails under PoCL itself: the test is broken, not ptxray)")
    diff = difflib.unified_diff(pocl_out.splitlines(keepends=True), ours_out.splitlines(keepends=True),
                                fromfile=f"{name} under PoCL", tofile=f"{name} under ptxray exec")
    sys.stdout.writelines(line if line.endswith("\n") else line + "\n" for line in diff)
    for label, result in (("PoCL", pocl), ("ptxray", ours)):
        err = tail(result[2])
        if err:
            print(f"--- end of standard error under {label}:")
            sys.stdout.write(err if err.endswith("\n") else err + "\n")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
