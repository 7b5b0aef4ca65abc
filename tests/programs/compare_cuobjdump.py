#!/usr/bin/env python3
"""The PTX `ptxray fatbin --ptx` extracts from each test program against what `cuobjdump -ptx` printed
for it on the GPU machine (validation/programs/results/cuobjdump/NAME.ptx, recorded by
validation/programs/run.sh): the same texts, in the same order.

usage: compare_cuobjdump.py PTXRAY PROGRAMS_DIR CUOBJDUMP_DIR
"""
import pathlib
import subprocess
import sys


def first_difference(a, b):
    n = min(len(a), len(b))
    return next((k for k in range(n) if a[k] != b[k]), n)


def cuobjdump_ptx(text):
    """The PTX texts of a `cuobjdump -ptx` listing: each 'Fatbin ptx code:' block's text after the
    blank line that ends its header."""
    texts = []
    for block in text.split("\nFatbin "):
        if not block.lstrip("\n").startswith(("Fatbin ptx code:", "ptx code:")):
            continue
        header, _, body = block.partition("\n\n")
        texts.append(body.strip("\n"))
    return texts


def ptxray_ptx(ptxray, program, workdir):
    for f in workdir.glob("*.ptx"):
        f.unlink()
    out = subprocess.run([ptxray, "fatbin", "-o", str(workdir), str(program)], capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr
    files = [pathlib.Path(line) for line in out.stdout.splitlines() if line]
    return [f.read_text().strip("\n") for f in files], ""


def main():
    ptxray, programs, oracle = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    workdir = pathlib.Path(sys.argv[4]) if len(sys.argv) > 4 else pathlib.Path("cuobjdump-compare")
    workdir.mkdir(parents=True, exist_ok=True)
    failures, compared = 0, 0
    for listing in sorted(oracle.glob("*.ptx")):
        program = programs / listing.stem
        expected = cuobjdump_ptx(listing.read_text())
        if not program.exists():
            continue
        got, error = ptxray_ptx(ptxray, program, workdir)
        if got is None:
            got = []  # a program without PTX: ptxray fatbin -o writes nothing
        compared += 1
        if got != expected:
            failures += 1
            print(f"FAIL {program.name}: cuobjdump shows {len(expected)} PTX text(s), ptxray {len(got)} {error}")
            for i, (a, b) in enumerate(zip(expected, got)):
                if a != b:
                    print(f"  text {i}: differs from character {first_difference(a, b)} on")
        else:
            print(f"same {program.name}: {len(got)} PTX text(s)")
    print(f"{compared} programs compared, {failures} differ")
    return 1 if failures or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
