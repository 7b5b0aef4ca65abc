#!/usr/bin/env python3
"""Runs each step of the guide's C = AA^T in OpenCL C (examples/opencl/aat.cl) and in CUDA
(examples/guide/aat.ptx) on ptxray at M = 256 and checks that every element of C agrees within two
float roundings of the element's magnitude (the compilers may fuse multiply-adds differently), and
with a float64 CPU reference within the same bound. Prints "aat: OpenCL equals CUDA" when they do.
Usage: compare_aat.py PTXRAY SOURCE_DIR"""
import json
import os
import struct
import subprocess
import sys
import tempfile

ptxray, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
M, TILE = 256, 16
kernels = ["simpleMultiplyAAT", "sharedMultiplyAAT", "paddedMultiplyAAT"]


def run(module, kernel, sizes, out):
    launch = {"kernel": kernel, "args": [{"buffer": "a"}, {"buffer": "c"}, {"type": "s32", "value": M}]}
    launch.update(sizes)
    spec = {"module": module,
            "buffers": [{"name": "a", "bytes": M * TILE * 4,
                         "init": {"random": {"dtype": "f32", "seed": 3, "min": -1, "max": 1}}},
                        {"name": "c", "bytes": M * M * 4}],
            "launches": [launch],
            "outputs": [{"buffer": "c", "file": out}, {"buffer": "a", "file": out + ".a"}]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
    subprocess.run([ptxray, "run", f.name], check=True)
    os.unlink(f.name)
    with open(out, "rb") as c, open(out + ".a", "rb") as a:
        return (struct.unpack(f"{M * M}f", c.read()), struct.unpack(f"{M * TILE}f", a.read()))


ok = True
for k in kernels:
    cl, a = run(os.path.join(source, "examples/opencl/aat.cl"), k,
                {"global_work_size": [M, M], "local_work_size": [TILE, TILE]}, os.path.abspath(f"aat-{k}-cl.bin"))
    cu, _ = run(os.path.join(source, "examples/guide/aat.ptx"), k,
                {"grid": [M // TILE, M // TILE], "block": [TILE, TILE]}, os.path.abspath(f"aat-{k}-cuda.bin"))
    worst = 0.0
    for row in range(M):
        for col in range(M):
            ref = sum(a[row * TILE + i] * a[col * TILE + i] for i in range(TILE))
            scale = sum(abs(a[row * TILE + i] * a[col * TILE + i]) for i in range(TILE))
            bound = 2 * 2.0 ** -23 * scale * TILE + 1e-30
            x, y = cl[row * M + col], cu[row * M + col]
            worst = max(worst, abs(x - y) / bound)
            if abs(x - y) > bound or abs(x - ref) > bound:
                print(f"{k}: c[{row}][{col}] OpenCL {x!r} CUDA {y!r} reference {ref!r}")
                ok = False
                break
        if not ok:
            break
    print(f"{k}: largest difference {worst:.3f} of the bound")
if ok:
    print("aat: OpenCL equals CUDA")
sys.exit(0 if ok else 1)
