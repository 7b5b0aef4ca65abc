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


def u32(v):
    return {"type": "u32", "value": v}


def f32(v):
    return {"type": "f32", "value": v}


def s64(v):
    return {"type": "s64", "value": v}


MB = 1 << 20

# Memory streaming: L2-resident (2M floats in + 2M out: 16 MiB) and DRAM-resident (32M + 32M floats:
# 256 MiB) footprints, 256 threads a block.
for tag, n, what in (("l2", 2 * MB, "2M floats (8 MiB) in and out: 16 MiB, L2-resident"),
                     ("dram", 32 * MB, "32M floats (128 MiB) in and out: 256 MiB, DRAM-resident")):
    lines = n // 32
    SPECS["memory_" + tag] = {
        "_what": "streaming kernels of kernels/memory.cu over " + what,
        "module": OWN_PTX + "memory.ptx",
        "buffers": [buf("in", n * 4, rnd("f32", 2001, -1, 1)), buf("out", n * 4)],
        "launches": [
            launch("copyF32", [n // 256], [256], [ptr("out"), ptr("in"), s32(n)], "float copy, one element a thread"),
            launch("copyF4", [n // 4 // 256], [256], [ptr("out"), ptr("in"), s32(n // 4)],
                   "float4 copy, one float4 a thread"),
            launch("copyGridStride", [264], [256], [ptr("out"), ptr("in"), s32(n)],
                   "grid-stride float copy, 264 blocks (2 per SM)"),
            launch("gatherLines", [n // 256], [256], [ptr("out"), ptr("in"), s32(lines), s32(4099)],
                   "whole 128-byte lines read in a scattered order (line * 4099 mod lines)"),
            launch("fillF32", [n // 256], [256], [ptr("out"), f32(1.5), s32(n)], "store-only fill"),
            launch("saxpy", [n // 256], [256], [ptr("out"), ptr("in"), f32(2.0), s32(n)], "y = a x + y"),
        ],
    }

# Square matrix products, row-major N x N floats.
for n in (256, 512):
    mat = n * n * 4
    SPECS[f"matmul_square_{n}"] = {
        "_what": f"C = AB of {n}x{n} floats (kernels/matmul_square.cu): naive, shared tiles 16x16, 32x32, "
                 "32x33 (padded), 32x32 with 4 outputs a thread",
        "module": OWN_PTX + "matmul_square.ptx",
        "buffers": [buf("a", mat, rnd("f32", 2101, -1, 1)), buf("b", mat, rnd("f32", 2102, -1, 1)), buf("c", mat)],
        "launches": [
            launch("matmulNaive", [n // 16, n // 16], [16, 16], [ptr("a"), ptr("b"), ptr("c"), s32(n)],
                   "naive, 16x16 blocks"),
            launch("matmulTiled16", [n // 16, n // 16], [16, 16], [ptr("a"), ptr("b"), ptr("c"), s32(n)],
                   "shared tiles 16x16"),
            launch("matmulTiled32", [n // 32, n // 32], [32, 32], [ptr("a"), ptr("b"), ptr("c"), s32(n)],
                   "shared tiles 32x32, 1024 threads a block"),
            launch("matmulTiled32Padded", [n // 32, n // 32], [32, 32], [ptr("a"), ptr("b"), ptr("c"), s32(n)],
                   "shared tiles 32x33 (padded rows)"),
            launch("matmulRegBlocked", [n // 32, n // 32], [32, 8], [ptr("a"), ptr("b"), ptr("c"), s32(n)],
                   "32x32 tiles, blocks of 32x8, 4 outputs a thread"),
        ],
    }

# Reductions of unsigned ints.
RED_L2 = 4 * MB  # 16 MiB
RED_DRAM = 64 * MB  # 256 MiB
red_launches = []
for n, where in ((MB, "1M (4 MiB)"), (RED_L2, "4M (16 MiB)")):
    red_launches += [
        launch("reduceInterleaved", [n // 256], [256], [ptr("in"), ptr("sums"), s32(n)],
               f"{where}: interleaved, divergent tid % (2s)") | {"dynamic_shared_bytes": 1024},
        launch("reduceSequential", [n // 256], [256], [ptr("in"), ptr("sums"), s32(n)],
               f"{where}: sequential addressing") | {"dynamic_shared_bytes": 1024},
        launch("reduceShuffle", [528], [256], [ptr("in"), ptr("sums"), s32(n)],
               f"{where}: grid-stride + warp shuffles, 528 blocks"),
        launch("reduceAtomic", [528], [256], [ptr("in"), ptr("total"), s32(n)],
               f"{where}: grid-stride + shuffles + one atomicAdd a block"),
    ]
red_launches += [
    launch("reduceShuffle", [528], [256], [ptr("in"), ptr("sums"), s32(RED_DRAM)],
           "64M (256 MiB, DRAM): grid-stride + warp shuffles"),
    launch("reduceAtomic", [528], [256], [ptr("in"), ptr("total"), s32(RED_DRAM)],
           "64M (256 MiB, DRAM): grid-stride + one atomicAdd a block"),
]
SPECS["reduce"] = {
    "_what": "unsigned sums (kernels/reduce_scan_sort.cu), 256 threads a block: block sums (interleaved, sequential, "
             "shuffle) and a single atomic total, over 1M, 4M (L2) and 64M (DRAM) elements",
    "module": OWN_PTX + "reduce_scan_sort.ptx",
    "buffers": [buf("in", RED_DRAM * 4, rnd("u32", 2201, 0, 1000)), buf("sums", RED_L2 // 256 * 4),
                buf("total", 4)],
    "launches": red_launches,
}

SCAN_N = MB
SPECS["scan"] = {
    "_what": "inclusive scans of unsigned ints (kernels/reduce_scan_sort.cu): one block of 1024 over 64K and 1M "
             "elements; multi-block over 1M (block scans, scan of the 1024 block sums, add offsets)",
    "module": OWN_PTX + "reduce_scan_sort.ptx",
    "buffers": [buf("in", SCAN_N * 4, rnd("u32", 2301, 0, 1000)), buf("out", SCAN_N * 4),
                buf("blockSums", 1024 * 4), buf("scannedSums", 1024 * 4)],
    "launches": [
        launch("scanSingleBlock", [1], [1024], [ptr("in"), ptr("out"), s32(64 * 1024)], "one block, 64K elements"),
        launch("scanSingleBlock", [1], [1024], [ptr("in"), ptr("out"), s32(SCAN_N)], "one block, 1M elements"),
        launch("scanBlocks", [SCAN_N // 1024], [1024], [ptr("in"), ptr("out"), ptr("blockSums"), s32(SCAN_N)],
               "multi-block 1/3: 1024 block scans of 1024"),
        launch("scanSingleBlock", [1], [1024], [ptr("blockSums"), ptr("scannedSums"), s32(1024)],
               "multi-block 2/3: scan of the block sums"),
        launch("scanAddOffsets", [SCAN_N // 1024], [1024], [ptr("out"), ptr("scannedSums"), s32(SCAN_N)],
               "multi-block 3/3: add the offsets"),
    ],
}

SORT_N = 1 << 16
sort_launches = [launch("bitonicSortShared", [1], [1024], [ptr("single")], "single block: 2048 elements in shared"),
                 launch("bitonicSortShared", [SORT_N // 2048], [1024], [ptr("data")],
                        f"{SORT_N // 2048} blocks sort 2048-element chunks (alternating direction)")]
k = 4096
while k <= SORT_N:
    j = k // 2
    while j >= 2048:
        sort_launches.append(launch("bitonicStepGlobal", [SORT_N // 2 // 256], [256], [ptr("data"), u32(j), u32(k)],
                                    f"global step k={k} j={j}"))
        j //= 2
    sort_launches.append(launch("bitonicMergeShared", [SORT_N // 2048], [1024], [ptr("data"), u32(k)],
                                f"shared steps k={k} j=1024..1"))
    k *= 2
SPECS["bitonic_sort"] = {
    "_what": f"bitonic sort of {SORT_N} unsigned ints (kernels/reduce_scan_sort.cu): shared-memory chunk sorts, "
             "then per stage k the global steps j >= 2048 (one launch each) and one shared merge of j <= 1024; "
             "plus a single-block sort of 2048",
    "module": OWN_PTX + "reduce_scan_sort.ptx",
    "buffers": [buf("data", SORT_N * 4, rnd("u32", 2401, 0, 4000000000)),
                buf("single", 2048 * 4, rnd("u32", 2402, 0, 4000000000))],
    "launches": sort_launches,
}

ATOM_N = MB
HIST_N = 4 * MB
SPECS["atomics"] = {
    "_what": "integer atomics (kernels/atomics.cu): 1M threads atomicAdd into 1, 32, 1024, 1M words; histograms "
             "of 4M values in shared memory (1, 32, 256 bins) and in global memory; a warp-aggregated counter",
    "module": OWN_PTX + "atomics.ptx",
    "buffers": [buf("counters", ATOM_N * 4), buf("in", HIST_N * 4, rnd("u32", 2501, 0, 4000000000)),
                buf("hist", 256 * 4), buf("counter", 4), buf("slots", ATOM_N * 4)],
    "launches": [launch("atomicAddGlobal", [ATOM_N // 256], [256], [ptr("counters"), u32(m - 1)],
                        f"{m} distinct addresses") for m in (1, 32, 1024, ATOM_N)]
    + [launch("histogramShared", [528], [256], [ptr("in"), ptr("hist"), s32(b), s32(HIST_N)],
              f"shared histogram, {b} bins, 528 blocks") for b in (1, 32, 256)]
    + [launch("histogramGlobal", [HIST_N // 256], [256], [ptr("in"), ptr("hist"), s32(b), s32(HIST_N)],
              f"global histogram, {b} bins") for b in (32, 256)]
    + [launch("warpAggregatedCount", [ATOM_N // 256], [256], [ptr("in"), ptr("counter"), ptr("slots"), s32(ATOM_N)],
              "warp-aggregated ticket counter (one atomic a warp), half the threads take"),
       launch("perThreadCount", [ATOM_N // 256], [256], [ptr("in"), ptr("counter"), s32(ATOM_N)],
              "the same count, one atomic a taking thread")],
}

# Pointer chases: (buffer words, nodes, spacing in words, step, hops, kernel).
CHASES = (("l1", 4096, 128, 32, 77, 4096, "pointerChase", "16 KiB: 128 lines, 32 laps, ld.global (L1)"),
          ("l2", MB, 2048, 512, 1031, 8192, "pointerChaseL2",
           "4 MiB: 2048 nodes 2 KiB apart, 4 laps, __ldcg (L2 only)"),
          ("dram", 128 * MB, 4096, 32768, 2731, 4096, "pointerChaseL2",
           "512 MiB: 4096 nodes 128 KiB apart, 1 lap, __ldcg"))
chase_launches = []
for tag, words, nodes, spacing, step, hops, kern, what in CHASES:
    chase_launches += [
        launch("chaseInit", [(nodes + 255) // 256], [min(nodes, 256)],
               [ptr("next_" + tag), u32(nodes), u32(step), u32(spacing)], f"build the {tag} cycle"),
        launch(kern, [1], [1], [ptr("next_" + tag), ptr("out"), s32(hops)], f"{hops} dependent loads over {what}"),
    ]
SPECS["latency"] = {
    "_what": "latency-bound kernels (kernels/latency.cu): dependent FMA chains (ILP 1, 2, 4), pointer chases in "
             "L1, L2 and DRAM, single-block LU factorization",
    "module": OWN_PTX + "latency.ptx",
    "buffers": [buf("out", 1024 * 4)] + [buf("next_" + c[0], c[1] * 4) for c in CHASES]
    + [buf("lu128", 128 * 128 * 4, rnd("f32", 2601, -1, 1)), buf("lu256", 256 * 256 * 4, rnd("f32", 2602, -1, 1))],
    "launches": [
        launch("fmaChain", [1], [1], [ptr("out"), s32(1000), f32(0.999), f32(0.001)], "<<<1,1>>> 1000 dependent FMAs"),
        launch("fmaChain", [1], [1], [ptr("out"), s32(10000), f32(0.999), f32(0.001)], "<<<1,1>>> 10000 dependent FMAs"),
        launch("fmaChain", [1], [32], [ptr("out"), s32(10000), f32(0.999), f32(0.001)], "<<<1,32>>> 10000, ILP 1"),
        launch("fmaIlp2", [1], [32], [ptr("out"), s32(10000), f32(0.999), f32(0.001)], "<<<1,32>>> 10000, ILP 2"),
        launch("fmaIlp4", [1], [32], [ptr("out"), s32(10000), f32(0.999), f32(0.001)], "<<<1,32>>> 10000, ILP 4"),
    ] + chase_launches + [
        launch("luSingleBlock", [1], [128], [ptr("lu128"), s32(128)], "LU of 128x128, one block of 128 threads"),
        launch("luSingleBlock", [1], [256], [ptr("lu256"), s32(256)], "LU of 256x256, one block of 256 threads"),
    ],
}

BAR_ITERS = 4096
SPECS["barriers"] = {
    "_what": "__syncthreads in every iteration (kernels/barriers.cu): shared exchange and bare barriers, "
             "1 block and 132 blocks (one per SM), 64, 256, 1024 threads",
    "module": OWN_PTX + "barriers.ptx",
    "buffers": [buf("out", 264 * 1024 * 4)],
    "launches": [launch("barrierExchange", [g], [b], [ptr("out"), s32(it)], f"{g} x {b} threads, {it} barriers")
                 for g, b, it in ((1, 64, BAR_ITERS), (1, 256, BAR_ITERS), (1, 1024, BAR_ITERS),
                                  (132, 64, BAR_ITERS), (132, 256, 1024), (132, 1024, 256))]
    + [launch("barrierOnly", [g], [b], [ptr("out"), s32(it)], f"bare barriers: {g} x {b} threads, {it} barriers")
       for g, b, it in ((1, 1024, BAR_ITERS), (132, 256, 1024))],
}

SPECS["printf"] = {
    "_what": "device printf (kernels/printf.cu): 1 line, one line a warp, one line a thread",
    "module": OWN_PTX + "printf.ptx",
    "buffers": [],
    "launches": [
        launch("printfOneThread", [1], [1], [s32(1)], "<<<1,1>>>: 1 line"),
        launch("printfOneThread", [1], [1024], [s32(2)], "<<<1,1024>>>, thread 0 prints: 1 line"),
        launch("printfPerWarp", [1], [1024], [s32(3)], "<<<1,1024>>>, lane 0 prints: 32 lines"),
        launch("printfPerWarp", [32], [1024], [s32(4)], "<<<32,1024>>>, lane 0 prints: 1024 lines"),
        launch("printfEveryThread", [1], [32], [s32(5)], "<<<1,32>>>, every thread: 32 lines"),
        launch("printfEveryThread", [1], [1024], [s32(6)], "<<<1,1024>>>, every thread: 1024 lines"),
    ],
}

SPECS["misc"] = {
    "_what": "clock64 spin (kernels/misc.cu) for 10K and 100K cycles; device malloc/free per thread",
    "module": OWN_PTX + "misc.ptx",
    "buffers": [buf("clk", 132 * 8), buf("out", 8192 * 4)],
    "launches": [
        launch("clockSpin", [1], [32], [ptr("clk"), s64(10000)], "<<<1,32>>> spin 10K cycles"),
        launch("clockSpin", [1], [32], [ptr("clk"), s64(100000)], "<<<1,32>>> spin 100K cycles"),
        launch("clockSpin", [132], [32], [ptr("clk"), s64(100000)], "<<<132,32>>> spin 100K cycles"),
        launch("mallocFree", [1], [32], [ptr("out"), s32(16)], "<<<1,32>>> malloc/free of 64 bytes a thread"),
        launch("mallocFree", [32], [256], [ptr("out"), s32(16)], "<<<32,256>>> malloc/free of 64 bytes a thread"),
    ],
}

FMA_ITERS = 2048
SPECS["launch_config"] = {
    "_what": f"the same kernel (kernels/misc.cu fmaLoop, {FMA_ITERS} dependent FMAs a thread) at grid sizes around "
             "the 132 SMs (blocks of 1024: 2 per SM) and block sizes 32..1024 (132 blocks)",
    "module": OWN_PTX + "misc.ptx",
    "buffers": [buf("out", 265 * 1024 * 4)],
    "launches": [launch("fmaLoop", [g], [1024], [ptr("out"), s32(FMA_ITERS), f32(0.999), f32(0.001)],
                        f"{g} blocks of 1024") for g in (1, 2, 66, 132, 133, 264, 265)]
    + [launch("fmaLoop", [132], [b], [ptr("out"), s32(FMA_ITERS), f32(0.999), f32(0.001)],
              f"132 blocks of {b}") for b in (32, 64, 128, 256, 512)],
}


if __name__ == "__main__":
    os.makedirs(os.path.join(HERE, "specs"), exist_ok=True)
    for name, spec in SPECS.items():
        with open(os.path.join(HERE, "specs", name + ".json"), "w") as f:
            json.dump(spec, f, indent=1)
            f.write("\n")
    print(f"gen-specs: wrote {len(SPECS)} specs, {sum(len(s['launches']) for s in SPECS.values())} launches")
