#!/usr/bin/env python3
"""Writes the run specs of validation/model/specs/ (ptxray run-spec format, see README.md of the
repository): one spec per group of kernels, each launch a pattern whose Nsight Compute counters are
ground truth for the performance model. Deterministic; rerun after changing a size."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
VM_PTX = "../../../tests/kernels/vm/ptx/compute_90/"  # reused kernels, relative to specs/
OWN_PTX = "../ptx/"

N = 1 << 20  # elements (threads) of the 1-D kernels
BLOCK = 256
GRID = N // BLOCK


def buf(name, nbytes, init="zero"):
    return {"name": name, "bytes": nbytes, "init": init}


def rnd(dtype, seed, lo, hi):
    return {"random": {"dtype": dtype, "seed": seed, "min": lo, "max": hi}}


def ptr(name):
    return {"buffer": name, "offset": 0}


def s32(v):
    return {"type": "s32", "value": v}


def launch(kernel, grid, block, args, what):
    g = list(grid) + [1] * (3 - len(grid))
    b = list(block) + [1] * (3 - len(block))
    return {"_what": what, "kernel": kernel, "grid": g, "block": b, "dynamic_shared_bytes": 0, "args": args}


def lin(kernel, args, what):
    return launch(kernel, [GRID], [BLOCK], args, what)


SPECS = {}

SPECS["offset_copy"] = {
    "_what": "OpenCL BPG 3.2.1.3 offsetCopy (tests/kernels/vm/memory_access.cu): 1M floats, offsets 0 1 8 16 32",
    "module": VM_PTX + "memory_access.ptx",
    "buffers": [buf("in", (N + 32) * 4, {"iota": {"dtype": "f32"}}), buf("out", (N + 32) * 4)],
    "launches": [lin("offsetCopy", [ptr("out"), ptr("in"), s32(o)], f"offset {o}") for o in (0, 1, 8, 16, 32)],
}

SPECS["stride_copy"] = {
    "_what": "OpenCL BPG 3.2.1.4 strideCopy (tests/kernels/vm/memory_access.cu): 1M threads, strides 1 2 4 8 16 32",
    "module": VM_PTX + "memory_access.ptx",
    "buffers": [buf("in", N * 32 * 4), buf("out", N * 32 * 4)],
    "launches": [lin("strideCopy", [ptr("out"), ptr("in"), s32(s)], f"stride {s}") for s in (1, 2, 4, 8, 16, 32)],
}

SPECS["vector_copy"] = {
    "_what": "64-bit (float2) and 128-bit (float4) copies of 1M elements, aligned (offset 0) and misaligned (1)",
    "module": OWN_PTX + "global_access.ptx",
    "buffers": [buf("in", (N + 1) * 16, {"iota": {"dtype": "f32"}}), buf("out", (N + 1) * 16)],
    "launches": [lin(k, [ptr("out"), ptr("in"), s32(o)], f"{k} offset {o}")
                 for k in ("copyFloat2", "copyFloat4") for o in (0, 1)],
}

SPECS["global_misc"] = {
    "_what": "broadcast load (one address for all threads), store-only, __ldg copy aligned and misaligned",
    "module": OWN_PTX + "global_access.ptx",
    "buffers": [buf("in", (N + 1) * 4, {"iota": {"dtype": "f32"}}), buf("out", (N + 1) * 4)],
    "launches": [lin("broadcastLoad", [ptr("out"), ptr("in"), s32(0)], "all threads read in[0]"),
                 lin("storeOnly", [ptr("out")], "out[i] = i")]
    + [lin("ldgCopy", [ptr("out"), ptr("in"), s32(o)], f"ld.global.nc offset {o}") for o in (0, 1)],
}

SPECS["shared_stride"] = {
    "_what": "32-bit shared stores and loads at threadIdx.x * stride words: strides 1 2 4 8 16 32",
    "module": OWN_PTX + "shared_access.ptx",
    "buffers": [buf("out", N * 4)],
    "launches": [lin("sharedStride", [ptr("out"), s32(s)], f"stride {s} words") for s in (1, 2, 4, 8, 16, 32)],
}

SPECS["shared_wide"] = {
    "_what": "64-bit (double) and 128-bit (float4) shared stores and loads, linear and strided",
    "module": OWN_PTX + "shared_access.ptx",
    "buffers": [buf("out", N * 16)],
    "launches": [lin("sharedDouble", [ptr("out"), s32(s)], f"double stride {s}") for s in (1, 2, 4, 8, 16)]
    + [lin("sharedFloat4", [ptr("out"), s32(s)], f"float4 stride {s}") for s in (1, 2, 4, 8)],
}

W = H = 1024
SPECS["transpose"] = {
    "_what": "tests/kernels/vm/transpose.cu on a 1024x1024 float matrix: naive, [32][32] tile (column reads "
             "conflict 32-way), padded [32][33] tile",
    "module": VM_PTX + "transpose.ptx",
    "buffers": [buf("in", W * H * 4, {"iota": {"dtype": "f32"}}), buf("out", W * H * 4)],
    "launches": [launch(k, [W // 32, H // 32], [32, 8], [ptr("out"), ptr("in"), s32(W), s32(H)], what)
                 for k, what in (("transposeNaive", "strided writes"),
                                 ("transposeCoalesced", "tile[32][32]"),
                                 ("_Z24transposeNoBankConflictsPfPKfii", "tile[32][33]"))],
}

M = 1024
SPECS["matmul"] = {
    "_what": "OpenCL BPG 3.2.2.2/3.2.2.3 (tests/kernels/vm/matmul.cu): A 1024x16, B 16x1024, C = AB "
             "(global, shared A, shared A and B) and C = AA^T (global, padded transposed tile)",
    "module": VM_PTX + "matmul.ptx",
    "buffers": [buf("a", M * 16 * 4, rnd("f32", 201, -1, 1)), buf("b", 16 * M * 4, rnd("f32", 202, -1, 1)),
                buf("c", M * M * 4)],
    "launches": [launch(k, [M // 16, M // 16], [16, 16], [ptr("a"), ptr("b"), ptr("c"), s32(M)], what)
                 for k, what in (("simpleMultiply", "unoptimized"), ("coalescedMultiply", "shared A tile"),
                                 ("sharedABMultiply", "shared A and B tiles"))]
    + [launch(k, [M // 16, M // 16], [16, 16], [ptr("a"), ptr("c"), s32(M)], what)
       for k, what in (("simpleMultiplyAAT", "AA^T unoptimized"), ("sharedMultiplyAAT", "AA^T padded tile"))],
}

SPECS["branch"] = {
    "_what": "if (threadIdx.x % 2) (every warp diverges) vs if (blockIdx.x % 2) (uniform), same two paths",
    "module": OWN_PTX + "control.ptx",
    "buffers": [buf("in", N * 4, rnd("u32", 1301, 0, 4000000000)), buf("out", N * 4)],
    "launches": [lin("divergentBranch", [ptr("out"), ptr("in")], "threadIdx.x % 2"),
                 lin("uniformBranch", [ptr("out"), ptr("in")], "blockIdx.x % 2")],
}

SPECS["local_memory"] = {
    "_what": "per-thread float[32] kept in local memory (128-byte frame), dynamically indexed",
    "module": OWN_PTX + "control.ptx",
    "buffers": [buf("in", N * 4, rnd("f32", 1401, -1, 1)), buf("index", N * 4, rnd("u32", 1402, 0, 4000000000)),
                buf("out", N * 4)],
    "launches": [lin("localArray", [ptr("out"), ptr("in"), ptr("index")], "float a[32] in local memory")],
}

SPECS["constant"] = {
    "_what": "8 reads of __constant__ c_table[1024] per thread: warp-uniform index vs 32 indices a warp",
    "module": OWN_PTX + "control.ptx",
    "buffers": [{"name": "table", "symbol": "c_table", "init": rnd("f32", 1501, -1, 1)}, buf("out", N * 4)],
    "launches": [lin("constUniform", [ptr("out")], "uniform index"),
                 lin("constDivergent", [ptr("out")], "threadIdx.x * 8 + k")],
}

if __name__ == "__main__":
    os.makedirs(os.path.join(HERE, "specs"), exist_ok=True)
    for name, spec in SPECS.items():
        with open(os.path.join(HERE, "specs", name + ".json"), "w") as f:
            json.dump(spec, f, indent=1)
            f.write("\n")
    print(f"gen-specs: wrote {len(SPECS)} specs, {sum(len(s['launches']) for s in SPECS.values())} launches")
