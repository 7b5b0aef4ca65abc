// The compute capability table. Each capability is built from its predecessor and states only what
// changes; every value carries its source. Abbreviations:
//   [BPG]    NVIDIA OpenCL Best Practices Guide (2010), /work/shared/docs/opencl-best-practices-guide.md
//   [KTG]    Tuning CUDA Applications for Kepler, /work/shared/docs/kepler-tuning-guide.md
//   [PG]     CUDA C++ Programming Guide, "Compute Capabilities" (Features and Technical Specifications)
//   [PG4.2]  CUDA C Programming Guide 4.2: Appendix F tables, Table 5-1, §5.2.3 (CC 1.x-3.0 era)
//   [PG-T]   Programming Guide "Throughput of Native Arithmetic Instructions" (CUDA 10 edition for 3.x-7.x,
//            CUDA 12 edition for 8.x/9.0)
//   [PG13]   CUDA Programming Guide, CUDA 13 edition, §5.1 "Compute Capabilities": Table 30 (threads, warps,
//            blocks per SM, FP32:FP64 throughput ratio), Table 31 (registers, shared memory), Table 32
//            (unified L1/shared size, shared-memory capacities); the first with columns 8.7, 10.0, 12.x
//   [OCC]    matches /usr/local/cuda/include/cuda_occupancy.h (CUDA 13)
//   [OCC7]   rules of cuda_occupancy.h as shipped with CUDA 6.5/7.0, the last to model CC 1.x/2.x
//   [XLS]    CUDA_Occupancy_Calculator.xls, the spreadsheet both guides refer to
//   [PTG]/[VTG] Pascal / Volta Tuning Guide; [WP] the chip's architecture whitepaper
//   [JIA]    Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking" (2018)
//   [WONG]   Wong et al., "Demystifying GPU Microarchitecture through Microbenchmarking" (ISPASS 2010), GT200
//   [MEI]    Mei and Chu, "Dissecting GPU Memory Hierarchy through Microbenchmarking" (IEEE TPDS 2017),
//            Fermi, Kepler and Maxwell
// A throughput block opens with `auto &t = c.throughput; // <table column>`: the lines after it take
// their values from that column.
#include "arch/ComputeCapability.h"

namespace ptxray::arch {
namespace {

constexpr int KiB = 1024;

ComputeCapability cc10() {
  ComputeCapability c;
  c.major = 1, c.minor = 0, c.architecture = "Tesla";
  c.warpSize = 32;                                                  // [BPG] §1.1, [PG4.2] Table F-2
  c.maxThreadsPerSm = 768;                                          // [BPG] §4.2 (24 warps x 32 threads)
  c.maxWarpsPerSm = 24;                                             // [BPG] §4.2
  c.maxBlocksPerSm = 8;                                             // [PG4.2] Table F-2, [OCC7]
  c.maxThreadsPerBlock = 512;                                       // [BPG] §4.5, [PG4.2] Table F-2
  c.maxBlockDim[0] = c.maxBlockDim[1] = 512, c.maxBlockDim[2] = 64; // [PG4.2] Table F-2
  c.maxGridDim[0] = c.maxGridDim[1] = 65535, c.maxGridDim[2] = 1;   // [PG4.2] Table F-2 (2-D grids)
  c.warpAllocationGranularity = 2;                                  // [OCC7] warps are allocated in pairs on 1.x, [XLS]
  c.registersPerSm = 8192;                                          // [BPG] §4.2
  c.maxRegistersPerBlock = 8192;                                    // [PG4.2] Table F-2 (deviceQuery regsPerBlock)
  c.maxRegistersPerThread = 124;                                    // [XLS]; nvcc 2.x help text says 128 (see report)
  c.registerAllocationGranularity = RegisterAllocationGranularity::Block; // [BPG] §4.2, [OCC7]
  c.registerAllocationUnit = 256;       // [BPG] §4.2 "rounded to the nearest 256 registers", [OCC7]
  c.registerFilePartitions = 1;         // [OCC7] one "side"
  c.registerFitCheckPartitions = 1;     // [OCC7]
  c.sharedPerSm = 16 * KiB;             // [BPG] §3.2, [PG4.2] Table F-2
  c.sharedPerBlock = 16 * KiB;          // [PG4.2] Table F-2
  c.sharedPerBlockOptIn = 16 * KiB;     // no opt-in before CC 7.0 [OCC]
  c.sharedReservedPerBlock = 0;         // [OCC7]; kernel parameters also live in shared memory ([BPG] §3.2.2.4,
                                        // up to 256 B, [PG4.2] B.1.4): not counted here (the calculator takes
                                        // the kernel's declared shared memory); the advisor's
                                        // kernel-params-in-shared adds them
  c.sharedAllocationUnit = 512;         // [OCC7], [XLS]
  c.maxStaticSharedPerBlock = 16 * KiB; // [PG4.2] Table F-2
  c.sharedByCacheConfig = SharedMemoryByCacheConfig{16 * KiB, 16 * KiB, 16 * KiB, 16 * KiB}; // no L1 [PG4.2] F.3
  c.combinedL1AndSharedBytes = 0;               // shared memory only [PG4.2] F.3
  c.sharedBanks = {16, 4, {4}, 16};             // [BPG] §3.2.2.1: 16 banks, 32-bit wide, per half-warp
  c.sharedBanks.widestAccessBytes = 4;          // [PG4.2] F.3.3.4: wider accesses split into 32-bit requests
  c.sharedBanks.compilerMergedAccessBytes = 0;  // [PG4.2] F.3.3.4: nothing wider than 32 bits to merge into
  c.sharedBanks.constantThreadsPerRequest = 16; // [BPG] §3.2.5: constant reads per half-warp
  c.global.threadsPerRequest = 16;              // [BPG] §3.2.1: coalesced per half warp
  c.global.requiresInOrderAlignedAccess = true; // [BPG] §3.2.1: k-th thread, k-th word
  c.global.minCoalescedWordBytes = 4;        // Programming Guide 2.x-4.x, "Coalescing on Devices with CC 1.0 and 1.1"
  c.global.maxCoalescedWordBytes = 16;       // ibid.: 4-, 8- and 16-byte words
  c.global.transactionBytes = {32, 64, 128}; // [BPG] §3.2.1, §3.2.1.3 (32 B minimum)
  c.global.defaultLoadCaching = GlobalLoadCaching::Uncached; // [BPG] Table 3.1
  c.constantMemoryBytes = 64 * KiB;                          // [BPG] §3.2.5
  c.constantCacheBytes = 8 * KiB;                            // [PG4.2] Table F-2 (cache working set per SM)
  c.maxLocalBytesPerThread = 16 * KiB;                       // [PG4.2] Table F-2 (local memory per thread)
  // Measured: an empty kernel's ncu gpu__time_duration on an H100 (validation/model). The guides give no
  // figure; the same value stands for older GPUs until one is measured there.
  c.launchOverheadNanoseconds = 2140;
  // [CDP] Measured on an H200 (validation/model/cdp_launch.cu, results-h200/cdp_launch.txt: CUDA events
  // around one host launch, the median of 93 runs in three passes), each an increment over the same
  // parent launching nothing, less an empty grid's own 1.44 us. No other GPU was measured: the values
  // stand for every compute capability with dynamic parallelism (3.5 on).
  // - a child of the host's grid: one child from one thread adds 13-14 us in some passes and 30 in
  //   others (serial, fire-and-forget, tail and per-block cases alike); 14.6 us;
  c.deviceLaunch.firstChildNanoseconds = 14600;
  // - a child of a device-launched grid: a nested chain adds 9.66 us a level from depth 8 to 23;
  c.deviceLaunch.nestedChildNanoseconds = 8200;
  // - one thread's launches, one after another: 6.46 us each from 16 to 64 children;
  c.deviceLaunch.callNanoseconds = 6500;
  // - 256 threads of a block into its stream: 3.45 us a grid from 16 to 256, less the grid's own;
  c.deviceLaunch.streamGapNanoseconds = 2000;
  // - one thread's tail launches: 8.55 us each from 8 to 16, less the grid's own;
  c.deviceLaunch.tailGapNanoseconds = 7100;
  // - a grid's first launches are slower than its later ones: one child from each of 8 to 32 blocks
  //   costs 2.1 us a launch (fire-and-forget children of 16 threads 1.7 us), from 132 blocks 0.8 us,
  //   from 1056 to 4224 blocks 0.76 us, and 128 to 256 fire-and-forget children of one block 0.61
  //   us: 1.6 us for the first 32, 0.62 us for the rest, fits them within 20%.
  c.deviceLaunch.issueNanoseconds = 620;
  c.deviceLaunch.firstIssues = 32;
  c.deviceLaunch.firstIssueNanoseconds = 1600;
  // [WONG]: GT200's texture L1 has 32-byte lines; [MEI]: so have Fermi's, Kepler's and Maxwell's, and from
  // 5.0 L1TEX counts texture traffic in 32-byte sectors (Nsight Compute l1tex__t_sectors_pipe_tex_*).
  c.textureTransactionBytes = 32;
  auto &t = c.throughput;                               // [BPG] §5.1 and [PG4.2] Table 5-1, 1.x column
  t.fp32AddMulFma = 8;                                  // [BPG] §5.1
  t.fp64AddMulFma = ArithmeticThroughput::kUnsupported; // [BPG] §5.1.3: demoted to float before 1.3
  t.fp32Special = 2;                                    // [BPG] §5.1 (native_sin/cos/exp: 1, [BPG] §5.1.4)
  t.int32AddSub = 8;                                    // PG 2.3 §5.1.1.1 (integer add, bitwise, compare: 8)
  t.int32MulMad = 2;                                    // [BPG] §5.1 ([PG4.2]: "multiple instructions")
  t.int24Mul = 8;                                       // [BPG] §5.1
  t.int32Shift = 8;                                     // PG 2.3 §5.1.1.1
  t.compareMinMax = 8;                                  // PG 2.3 §5.1.1.1
  t.bitwise = 8;                                        // PG 2.3 §5.1.1.1
  t.bitReverseFieldExtractInsert = ArithmeticThroughput::kMultipleInstructions;   // brev/bfe/bfi need sm_20
  t.leadingZerosMostSignificantBit = ArithmeticThroughput::kMultipleInstructions; // clz/bfind need sm_20
  t.populationCount = ArithmeticThroughput::kMultipleInstructions;                // popc needs sm_20
  t.sumOfAbsoluteDifference = 8; // PG 2.3 §5.1.1.1 lists __[u]sad with the 8/clock intrinsics
  t.convert8Or16BitTo32 = 8;     // PG 2.3 §5.1.1.1 (type conversion: 8)
  t.convertFromOrTo64Bit = ArithmeticThroughput::kUnsupported; // no double before 1.3
  t.convertOther = 8;                                          // PG 2.3 §5.1.1.1
  t.memoryInstruction = 8;                                     // [BPG] §5.2
  c.latency = {24, 400, 600};                                  // [BPG] §3.2.6 (RAW ~24 cycles), §5.2 (400-600 cycles)
  // ptxas schedules independent instructions (loads first) ahead of a stalled one on every target: a
  // property of the compiler, measured on 9.0 ([VM] latency#4, matmul_square) and kept for every CC.
  c.latency.reorderWindow = 16;
  // [BPG] Fig. 3.7: aligned copies reach about 74 of the 8800 GTX's 86.4 GB/s and 120 of the GTX 280's
  // 141.7 GB/s (85%); kept for later GPUs until measured (the H100 reaches 90%, cc90).
  c.memory.dramEfficiency = 0.85;
  // [BPG] Fig. 3.7, 3.2.1.3: on the 8800 GTX (CC 1.0) a misaligned copy, 16 transactions of 32 bytes per
  // half-warp for loads and stores alike, reaches about 7 GB/s of useful data: 1024 bytes moved per 128
  // used, 56 GB/s of DRAM traffic, 65% of 86.4 GB/s.
  c.memory.splitDramEfficiency = 0.65;
  c.minOccupancyToHideRegisterLatency = 0.25; // [BPG] §4.3: 25% on CC 1.1 and lower
  c.registerLatencyHidingThreads = 192;       // [BPG] §3.2.6, §4.3: 6 warps
  c.registerBankBlockMultiple = 64;           // [BPG] §3.2.6: multiples of 64 threads
  c.maxResidentGrids = 1;                     // [PG4.2] Table F-2
  c.hardwareWorkQueues = 1;                   // single queue before GK110 [KTG] §1.4.2.2
  return c;
}

ComputeCapability cc11() {
  auto c = cc10();
  c.minor = 1; // 1.1 adds global atomics [PG4.2] Table F-1; no resource changes
  return c;
}

ComputeCapability cc12() {
  auto c = cc11();
  c.minor = 2;
  c.maxThreadsPerSm = 1024;                      // [BPG] §4.2 (32 warps)
  c.maxWarpsPerSm = 32;                          // [BPG] §4.2
  c.registersPerSm = 16384;                      // [BPG] §4.2
  c.maxRegistersPerBlock = 16384;                // [PG4.2] Table F-2
  c.registerAllocationUnit = 512;                // [BPG] §4.2 "nearest 512 registers on 1.2 and 1.3", [OCC7]
  c.global.requiresInOrderAlignedAccess = false; // [BPG] §3.2.1: any pattern within a segment
  c.minOccupancyToHideRegisterLatency = 0.1875;  // [BPG] §4.3: 18.75% on CC 1.2 and higher
  return c;
}

ComputeCapability cc13() {
  auto c = cc12();
  c.minor = 3;
  c.throughput.fp64AddMulFma = 1;        // [PG4.2] Table 5-1 (1.3 only)
  c.throughput.convertFromOrTo64Bit = 1; // [PG4.2] Table 5-1 (1.3 only)
  return c;
}

ComputeCapability cc20() {
  auto c = cc13();
  c.major = 2, c.minor = 0, c.architecture = "Fermi";
  c.maxThreadsPerSm = 1536;                   // [PG4.2] Table F-2
  c.maxWarpsPerSm = 48;                       // [PG4.2] Table F-2, [KTG] §1.4.1
  c.maxBlocksPerSm = 8;                       // [PG4.2] Table F-2, [KTG] §1.4.1 ("from 8 to 16")
  c.maxThreadsPerBlock = 1024;                // [PG4.2] Table F-2
  c.maxBlockDim[0] = c.maxBlockDim[1] = 1024; // [PG4.2] Table F-2
  c.maxGridDim[2] = 65535;                    // [PG4.2] Table F-2 (3-D grids)
  c.warpAllocationGranularity = 1;            // [OCC7] warp pairs only on 1.x
  c.registersPerSm = 32768;                   // [PG4.2] Table F-2
  c.maxRegistersPerBlock = 32768;             // [PG4.2] Table F-2
  c.maxRegistersPerThread = 63;               // [PG4.2] Table F-2, [KTG] §1.4.4.1
  c.maxLocalBytesPerThread = 512 * KiB;       // [PG4.2] Table F-2; [PG] the same 512 KB through 9.0
  c.registerAllocationGranularity = RegisterAllocationGranularity::Warp; // [OCC7]
  c.registerAllocationUnit = 64;                                         // [OCC7], [XLS]
  c.registerCountsWithWideUnit = {21, 22, 29, 30, 37, 38, 45, 46};       // [OCC7] Fermi allocation quirk
  c.wideRegisterAllocationUnit = 128;                                    // [OCC7]
  c.registerFilePartitions = 2;                                          // [OCC7] two "sides"
  c.registerFitCheckPartitions = 2;                                      // [OCC7]
  c.sharedPerSm = 48 * KiB;                                              // [KTG] §1.4.3.2, [PG4.2] Table F-2
  c.sharedPerBlock = 48 * KiB;                                           // [PG4.2] Table F-2
  c.sharedPerBlockOptIn = 48 * KiB;                                      // no opt-in before CC 7.0 [OCC]
  c.sharedAllocationUnit = 128;                                          // [OCC7], [XLS]
  c.maxStaticSharedPerBlock = 48 * KiB;                                  // [PG4.2] Table F-2
  // [KTG] §1.4.3.2: 48/16 or 16/48 KB; [OCC7]: only PreferL1 selects 16 KB shared on 2.x.
  c.sharedByCacheConfig = SharedMemoryByCacheConfig{48 * KiB, 48 * KiB, 16 * KiB, 48 * KiB};
  c.combinedL1AndSharedBytes = 64 * KiB;  // [KTG] §1.4.3.2
  c.sharedBanks = {32, 4, {4}, 32};       // [PG4.2] F.4.3.1: 32 banks, one request per warp
  c.sharedBanks.widestAccessBytes = 16;   // [PG4.2] F.4.3.2: 64/128-bit native, wider split into 128-bit
  c.sharedBanks.extraPassesFor128Bit = 1; // [PG4.2] F.4.3.2: most 128-bit accesses take one more pass
  // constantThreadsPerRequest stays 32: [PG4.2] §5.3.2 constant memory, per warp from 2.0
  c.global.threadsPerRequest = 32;                     // [PG4.2] F.4.2: per warp
  c.global.transactionBytes = {32, 128};               // [PG4.2] F.4.2: 128-byte L1 lines, 32-byte L2 segments
  c.global.l1LineBytes = 128;                          // [PG4.2] F.4.2
  c.global.l2SectorBytes = 32;                         // [PG4.2] F.4.2 (-dlcm=cg)
  c.global.defaultLoadCaching = GlobalLoadCaching::L1; // [PG4.2] F.4.2, [KTG] §1.4.4.2 ("Fermi-style")
  auto &t = c.throughput;                              // [PG4.2] Table 5-1, 2.0 column
  t.fp32AddMulFma = 32;
  t.fp64AddMulFma = 16; // Tesla boards; GeForce GF100 runs at 4 (per-GPU override)
  t.fp32Special = 4;
  t.int32AddSub = 32;
  t.int32MulMad = 16;
  t.int24Mul = ArithmeticThroughput::kMultipleInstructions;
  t.int32Shift = 16;
  t.compareMinMax = 32;
  t.bitwise = 32;
  t.bitReverseFieldExtractInsert = 16;
  t.leadingZerosMostSignificantBit = 16;
  t.populationCount = 16;
  t.sumOfAbsoluteDifference = 16;
  t.convert8Or16BitTo32 = 16;
  t.convertFromOrTo64Bit = 16;
  t.convertOther = 16;
  t.memoryInstruction = 16;                    // [WP] Fermi: 16 load/store units per SM
  c.latency.registerReadAfterWriteCycles = 22; // [PG4.2] §5.2.3: ~22 cycles RAW, 400-800 cycles off-chip
  c.latency.globalMemoryMinCycles = 400, c.latency.globalMemoryMaxCycles = 800;
  c.registerBankBlockMultiple.reset(); // the 64-thread rule is a 1.x register-bank rule [BPG] §3.2.6
  c.maxResidentGrids = 16;             // [KTG] §1.4.2.1, [PG4.2] Table F-2
  // Global atomics, performed in L2 by the unit owning their address range (model/PerformanceModel.cpp
  // chargeAtomic): [WP] GK110: Kepler's same-address atomics run at one a clock, 9x Fermi's, so 9
  // cycles per further same-address lane here. The per-sector cost and the unit's range are the H100's
  // measured ones ([VM], cc90), kept until measured on Fermi or Kepler.
  c.latency.sameAddressAtomicCycles = 9;
  c.latency.atomicSectorCycles = 1.2;
  c.memory.atomicRegionBytes = 512;
  return c;
}

ComputeCapability cc21() {
  auto c = cc20();
  c.minor = 1;
  auto &t = c.throughput; // [PG4.2] Table 5-1, 2.1 column
  t.fp32AddMulFma = 48;
  t.fp64AddMulFma = 4;
  t.fp32Special = 8;
  t.int32AddSub = 48;
  t.compareMinMax = 48;
  t.bitwise = 48;
  t.convertFromOrTo64Bit = 4;
  return c;
}

ComputeCapability cc30() {
  auto c = cc21();
  c.major = 3, c.minor = 0, c.architecture = "Kepler";
  c.maxGridDim[0] = 2147483647;         // [PG4.2] Table F-2, [KTG] §1.4 (2^31-1 blocks in x from 3.0)
  c.maxThreadsPerSm = 2048;             // [OCC] device table, [PG] Table
  c.maxWarpsPerSm = 64;                 // [KTG] §1.4.1
  c.maxBlocksPerSm = 16;                // [KTG] §1.4.1, [OCC]
  c.registersPerSm = 65536;             // [KTG] §1.4.1 (2x Fermi)
  c.maxRegistersPerBlock = 65536;       // [PG] Table (3.0: 64 K)
  c.maxRegistersPerThread = 63;         // [KTG] §1.4.4.1; [OCC] accepts 255 on every 3.x (see report)
  c.registerAllocationUnit = 256;       // [OCC]
  c.registerCountsWithWideUnit.clear(); // the quirk is Fermi-only [OCC7]
  c.wideRegisterAllocationUnit = 0;
  c.registerFilePartitions = 4;     // [OCC] four sub-partitions
  c.registerFitCheckPartitions = 4; // [OCC]
  c.sharedAllocationUnit = 256;     // [OCC]
  // [KTG] §1.4.3.2 adds 32/32; [OCC]: PreferNone keeps the 48 KB default.
  c.sharedByCacheConfig = SharedMemoryByCacheConfig{48 * KiB, 48 * KiB, 16 * KiB, 32 * KiB};
  c.sharedBanks = {32, 4, {4, 8}, 32}; // [KTG] §1.4.3.1: 8-byte bank mode; [PG] 3.x shared memory
  // No 128-bit penalty in the 3.x shared-memory section ([PG] 3.x); 128-bit widest ([PG] 3.x).
  c.global.defaultLoadCaching = GlobalLoadCaching::L2Only; // [KTG] §1.4.4.2
  auto &t = c.throughput;                                  // [PG-T] 3.0, 3.2 column
  t.fp32AddMulFma = 192;
  t.fp64AddMulFma = 8;
  t.fp32Special = 32;
  t.int32AddSub = 160;
  t.int32MulMad = 32;
  t.int32Shift = 32;
  t.compareMinMax = 160;
  t.bitwise = 160;
  t.bitReverseFieldExtractInsert = 32;
  t.leadingZerosMostSignificantBit = 32;
  t.populationCount = 32;
  t.warpShuffle = 32; // [KTG] §1.4.3.3 shuffle is new in Kepler
  t.sumOfAbsoluteDifference = 32;
  t.convert8Or16BitTo32 = 128;
  t.convertFromOrTo64Bit = 8;
  t.convertOther = 32;
  t.memoryInstruction = 32;                    // [WP] GK110: 32 load/store units per SMX
  c.latency.registerReadAfterWriteCycles = 11; // PG 5.0 §5.2.3: ~11 cycles on 3.x
  c.maxResidentGrids = 16;                     // [KTG] §1.4.2.1
  c.latency.sameAddressAtomicCycles = 1; // [WP] GK110, [KTG] 1.4.4.4: same-address atomics at one a clock, 9x Fermi
  return c;
}

ComputeCapability cc35() {
  auto c = cc30();
  c.minor = 5;
  c.maxRegistersPerThread = 255;          // [KTG] §1.4.4.1
  c.global.readOnlyDataCache = true;      // [KTG] §1.4.4.3 (GK110B boards opt in to L1: per GPU)
  c.throughput.fp64AddMulFma = 64;        // [PG-T] 3.5, 3.7 column (GeForce: 8, per-GPU override)
  c.throughput.int32Shift = 64;           // [PG-T] 3.5, 3.7 column
  c.throughput.convertFromOrTo64Bit = 32; // [PG-T] 3.5, 3.7 column
  c.maxResidentGrids = 32;                // [KTG] §1.4.2.1
  c.hardwareWorkQueues = 32;              // [KTG] §1.4.2.2 architectural maximum
  c.dynamicParallelism = true;            // [KTG] §1.4.2.3
  return c;
}

ComputeCapability cc32() {
  auto c = cc35(); // [KTG] footnote 3: GK20A is GK110-like except where noted
  c.minor = 2;
  c.maxRegistersPerBlock = 32768;        // [PG] Table (3.2: 32 K)
  c.global.l1CachingOptIn = true;        // [KTG] §1.4.4.2
  c.throughput.fp64AddMulFma = 8;        // [PG-T] 3.0, 3.2 column; [KTG] §1.4.5.1 GK104-like ratios
  c.throughput.int32Shift = 32;          // [PG-T] 3.0, 3.2 column
  c.throughput.convertFromOrTo64Bit = 8; // [PG-T] 3.0, 3.2 column
  c.maxResidentGrids = 4;                // [KTG] §1.4.2.1 note
  c.hardwareWorkQueues = 1;              // [KTG] §1.4.2.2: no Hyper-Q on GK20A
  c.dynamicParallelism = false;          // [KTG] §1.4.2.3
  return c;
}

ComputeCapability cc37() {
  auto c = cc35();
  c.minor = 7;
  c.registersPerSm = 131072; // [KTG] §1.4.1 (GK210 doubles again)
  c.sharedPerSm = 112 * KiB; // [KTG] §1.4.3.2
  c.sharedByCacheConfig = SharedMemoryByCacheConfig{112 * KiB, 112 * KiB, 80 * KiB, 96 * KiB}; // [KTG], [OCC]
  c.combinedL1AndSharedBytes = 128 * KiB; // [KTG] §1.4.3.2: +64 KB in every configuration
  c.global.l1CachingOptIn = true;         // [KTG] §1.4.4.2
  return c;
}

ComputeCapability cc50() {
  auto c = cc35();
  c.major = 5, c.minor = 0, c.architecture = "Maxwell";
  c.maxBlocksPerSm = 32;                                                                     // [OCC], [PG] Table
  c.sharedPerSm = 64 * KiB;                                                                  // [PG] Table (5.0: 64 KB)
  c.sharedByCacheConfig = SharedMemoryByCacheConfig{64 * KiB, 64 * KiB, 64 * KiB, 64 * KiB}; // dedicated [OCC]
  c.combinedL1AndSharedBytes = 0;        // [PG] 5.x: L1 is unified with texture, not with shared
  c.global.requestPerInstruction = true; // [PG] 5.x global memory; Nsight Compute l1tex__t_requests/sectors
  c.sharedBanks = {32, 4, {4}, 32};      // [PG] 5.x shared memory: 32 banks, 4 bytes
  c.global.l1CachingOptIn = false;       // [PG] 5.x global memory: not for 5.0
  auto &t = c.throughput;                // [PG-T] 5.0, 5.2 column
  t.fp32AddMulFma = 128;
  t.fp64AddMulFma = 4;
  t.int32AddSub = 128;
  t.int32MulMad = ArithmeticThroughput::kMultipleInstructions;
  t.int32Shift = 64;
  t.compareMinMax = 64;
  t.bitwise = 128;
  t.bitReverseFieldExtractInsert = 64;
  t.sumOfAbsoluteDifference = 64;
  t.convert8Or16BitTo32 = 32;
  t.convertFromOrTo64Bit = 4;
  c.latency.registerReadAfterWriteCycles = 6; // [JIA] Maxwell/Pascal dependent FFMA; guides give none
  return c;
}

ComputeCapability cc52() {
  auto c = cc50();
  c.minor = 2;
  c.sharedPerSm = 96 * KiB;                                                                  // [PG] Table (5.2: 96 KB)
  c.sharedByCacheConfig = SharedMemoryByCacheConfig{96 * KiB, 96 * KiB, 96 * KiB, 96 * KiB}; // [OCC]
  c.globalCachingSmPartitions = 2; // [OCC] partitioned global caching: a block uses half an SM
  c.global.l1CachingOptIn = true;  // [PG] 5.x global memory: 5.2 opts in with -dlcm=ca
  return c;
}

ComputeCapability cc60() {
  auto c = cc50();
  c.major = 6, c.minor = 0, c.architecture = "Pascal";
  c.registerFilePartitions = 2;                        // [OCC] GP100 has two sub-partitions
  c.registerFitCheckPartitions = 4;                    // [OCC] a block must also fit GP10x's four
  c.global.defaultLoadCaching = GlobalLoadCaching::L1; // [PTG] GP100 caches global loads in L1/tex
  auto &t = c.throughput;                              // [PG-T] 6.0 column
  t.fp16AddMulFma = 128;
  t.fp32AddMulFma = 64;
  t.fp64AddMulFma = 32;
  t.fp32Special = 16;
  t.int32AddSub = 64;
  t.int32Shift = 32;
  t.compareMinMax = 32;
  t.bitwise = 64;
  t.bitReverseFieldExtractInsert = 32;
  t.leadingZerosMostSignificantBit = 16;
  t.populationCount = 16;
  t.sumOfAbsoluteDifference = 32;
  t.convert8Or16BitTo32 = 16;
  t.convertFromOrTo64Bit = 16;
  t.convertOther = 16;
  t.memoryInstruction = 16; // [WP] GP100: 2 partitions x 8 load/store units
  c.maxResidentGrids = 128; // [PG] Table (6.0: 128)
  return c;
}

ComputeCapability cc61() {
  auto c = cc52(); // [PTG] GP104 follows Maxwell's memory system
  c.major = 6, c.minor = 1, c.architecture = "Pascal";
  c.throughput.fp16AddMulFma = 2; // [PG-T] 6.1 column
  c.maxResidentGrids = 32;        // [PG] Table (6.1: 32)
  return c;
}

ComputeCapability cc70() {
  auto c = cc60();
  c.major = 7, c.minor = 0, c.architecture = "Volta";
  c.registerFilePartitions = 4;                                                  // [OCC]
  c.registerFitCheckPartitions = 4;                                              // [OCC]
  c.sharedPerSm = 96 * KiB;                                                      // [PG] Table (7.0: 96 KB)
  c.sharedPerBlockOptIn = 96 * KiB;                                              // [PG] Table (7.0: 96 KB opt-in)
  c.sharedByCacheConfig.reset();                                                 // replaced by the carveout [OCC]
  c.sharedCarveoutsBytes = {0, 8 * KiB, 16 * KiB, 32 * KiB, 64 * KiB, 96 * KiB}; // [OCC], [PG] 7.x
  c.combinedL1AndSharedBytes = 128 * KiB;                                        // [VTG], [PG] 7.x
  c.global.defaultLoadCaching = GlobalLoadCaching::L1;                           // [VTG] unified L1 caches global loads
  c.global.l1CachingOptIn = false; // [VTG] already cached by default: nothing to opt into
  auto &t = c.throughput;          // [PG-T] 7.x column
  t.fp16AddMulFma = 128;
  t.fp32AddMulFma = 64;
  t.fp64AddMulFma = 32;
  t.int32MulMad = 64;
  t.int32Shift = 64;
  t.compareMinMax = 64;
  t.bitReverseFieldExtractInsert = ArithmeticThroughput::kMultipleInstructions;
  t.sumOfAbsoluteDifference = 64;
  t.memoryInstruction = 32;                   // [WP] GV100: 4 partitions x 8 load/store units
  c.latency.registerReadAfterWriteCycles = 4; // CUDA Best Practices Guide "Registers": ~4 cycles on 7.0
  c.independentPipes = true;                  // [VTG] four processing blocks, each with its own pipes
  return c;
}

ComputeCapability cc75() {
  auto c = cc70();
  c.minor = 5, c.architecture = "Turing";
  c.maxThreadsPerSm = 1024;                      // [PG] Table (7.5), [OCC]
  c.maxWarpsPerSm = 32;                          // [PG] Table (7.5)
  c.maxBlocksPerSm = 16;                         // [OCC], [PG] Table
  c.sharedPerSm = 64 * KiB;                      // [PG] Table (7.5: 64 KB)
  c.sharedPerBlockOptIn = 64 * KiB;              // [PG] Table
  c.sharedCarveoutsBytes = {32 * KiB, 64 * KiB}; // [OCC] Turing: 32 or 64 KB
  c.combinedL1AndSharedBytes = 96 * KiB;         // [PG] 7.x: 96 KB on Turing
  c.throughput.fp64AddMulFma = 2;                // [PG-T] 7.x footnote: 2 for 7.5
  c.throughput.convertFromOrTo64Bit = 2;         // [PG-T] 7.x footnote: 2 for 7.5
  return c;
}

ComputeCapability cc80() {
  auto c = cc70();
  c.major = 8, c.minor = 0, c.architecture = "Ampere";
  c.sharedPerSm = 164 * KiB;          // [PG] Table (8.0: 164 KB)
  c.sharedPerBlockOptIn = 163 * KiB;  // [PG] Table (8.0: 163 KB)
  c.sharedReservedPerBlock = 1 * KiB; // [PG] 8.x shared memory: 1 KB reserved per block, [OCC]
  c.sharedAllocationUnit = 128;       // [OCC]
  c.sharedCarveoutsBytes = {0,        8 * KiB,   16 * KiB,  32 * KiB,
                            64 * KiB, 100 * KiB, 132 * KiB, 164 * KiB}; // [OCC], [PG] 8.x
  c.combinedL1AndSharedBytes = 192 * KiB;                               // [PG] 8.x
  auto &t = c.throughput;                                               // [PG-T] 8.0 column
  t.fp16AddMulFma = 256;
  t.bitReverseFieldExtractInsert = 16;
  c.maxResidentGrids = 128; // [PG] Table
  return c;
}

ComputeCapability cc86() {
  auto c = cc80();
  c.minor = 6;
  c.maxThreadsPerSm = 1536;                                                       // [PG] Table (8.6), [OCC]
  c.maxWarpsPerSm = 48;                                                           // [PG] Table
  c.maxBlocksPerSm = 16;                                                          // [PG] Table, [OCC]
  c.sharedPerSm = 100 * KiB;                                                      // [PG] Table (8.6: 100 KB)
  c.sharedPerBlockOptIn = 99 * KiB;                                               // [PG] Table (8.6: 99 KB)
  c.sharedCarveoutsBytes = {0, 8 * KiB, 16 * KiB, 32 * KiB, 64 * KiB, 100 * KiB}; // [OCC], [PG] 8.x
  c.combinedL1AndSharedBytes = 128 * KiB;                                         // [PG] 8.x
  auto &t = c.throughput;                                                         // [PG-T] 8.6 column
  t.fp16AddMulFma = 128; // [WP] GA102: non-tensor FP16 runs at the FP32 rate
  t.fp32AddMulFma = 128;
  t.fp64AddMulFma = 2;
  t.convertFromOrTo64Bit = 2;
  return c;
}

ComputeCapability cc89() {
  auto c = cc86();
  c.minor = 9, c.architecture = "Ada Lovelace";
  c.maxBlocksPerSm = 24; // [PG] Table (8.9: 24), [OCC]
  return c;
}

ComputeCapability cc90() {
  auto c = cc80();
  c.major = 9, c.minor = 0, c.architecture = "Hopper";
  c.sharedPerSm = 228 * KiB;         // [PG] Table (9.0: 228 KB)
  c.sharedPerBlockOptIn = 227 * KiB; // [PG] Table (9.0: 227 KB)
  c.sharedCarveoutsBytes = {0,         8 * KiB,   16 * KiB,  32 * KiB,  64 * KiB,
                            100 * KiB, 132 * KiB, 164 * KiB, 196 * KiB, 228 * KiB}; // [OCC], [PG] 9.0
  c.combinedL1AndSharedBytes = 256 * KiB;                                           // [PG] 9.0
  // [VM] matmul_square_512#1-2: an LDS.128 every lane of a half-warp reads one word with takes 1
  // wavefront a half-warp (2 a warp, not a quarter-warp's 4); distinct words still fill 128-byte rows.
  c.sharedBanks.lanesPerWideWavefront = 16;
  c.blockBarriersPerSm = 64; // [OCC] twice the 32-block limit
  auto &t = c.throughput;    // [PG-T] 9.0 column
  t.fp32AddMulFma = 128;
  t.fp64AddMulFma = 64;
  // The time model's latencies and throughputs (model/WarpTiming.h, model/TimeEstimate.cpp). [MB]:
  // validation/model/microbench.cu on an H200 (results-h200/microbench.txt: dependent chains of one
  // warp between clock64 reads). [VM]: fitted to the 161-launch corpus of validation/model under ncu
  // on the H100 and H200 (results*/time.md); the spec named is the one that pins it.
  auto &l = c.latency;
  l.fp64Cycles = 8;                 // [MB] DFMA chain: 8.4 cycles
  l.specialFunctionCycles = 18;     // [MB] __sinf + FMUL chain 25.7 cycles, less the FMUL and the pre-scale
  l.shuffleCycles = 26;             // [MB] SHFL.BFLY chain: 26.1 cycles
  l.conversionCycles = 12;          // [MB] F2I + I2F chain: 23.3 cycles for two
  l.sharedLoadCycles = 24;          // [MB] shared pointer chase 29.0 cycles, less its address arithmetic
  l.constantHitCycles = 14;         // [MB] uniform constant chase 18.0 cycles, less its address arithmetic
  l.l1HitCycles = 38;               // [VM] latency#6: 4096 dependent loads over 16 KiB, 40 cycles each
  l.l2HitCycles = 280;              // [VM] latency#8: __ldcg chase over 4 MiB, 276 cycles after the cold lap
  l.dramCycles = 680;               // [VM] latency#10: __ldcg chase over 512 MiB, 679 cycles a hop
  l.barrierCycles = 12;             // [MB] bar.sync loop: 14 cycles with one warp ...
  l.barrierWarpCycles = 2;          // [MB] ... 76 with 32: two cycles a warp
  l.reorderWindow = 16;             // [VM] latency#4 (4 FMA chains issue 1 a clock), matmul_square (hoisted loads)
  l.atomicCycles = 570;             // [MB] atom.global.add chain on an L2-resident word: 574 cycles
  l.atomicSectorCycles = 1.2;       // [VM] atomics#1: 32 words of one line, 32768 warps, 78 us
  l.sameAddressAtomicCycles = 1.47; // [VM] atomics#0: 1M red.add on one word, 767 us
  l.sharedAtomicConflictCycles = 0; // [VM] atomics#4-5: 1 bin and 32 bins take 15.8 and 16.0 us: no replays
  l.printfLaunchCycles = 55000;     // [VM] printf#0-5: 28 us for a launch that prints at all ...
  l.printfCallCycles = 3800;        // ... 1.9 us per warp-level call (1024 calls: 2.3 ms) ...
  l.printfThreadCycles = 500;       // ... and 0.25 us per printing thread
  l.heapLaunchCycles = 170000;      // [VM] misc#3-4: 86 us for the heap's first use in a launch ...
  l.heapThreadCycles = 165;         // ... then 83 ns per malloc or free
  c.memory.l2BytesPerClock =
      2048; // [VM] fitted: 3500 (the ~7 TB/s gpu-benches measures on an H100 PCIe) loses 4 launches
  c.memory.dramEfficiency = 0.9;       // [VM] memory_dram: a float4 copy of 256 MiB reaches 3.15 of 3.35 TB/s
  c.memory.ctaLaunchCycles = 200;      // [VM] memory_dram fill/copy: 125 waves of short CTAs
  c.memory.constantReplayCycles = 2.5; // [VM] constDivergent: 8.4 M serialized transactions, 83 us
  c.memory.atomicRegionBytes = 512;    // [VM] atomics#2: 1024 words (4 KiB) take 9.5 us, as 8 units
  c.memory.overlapExponent = 3;        // [VM] copyGridStride, fill: latency and bandwidth bounds near each other
  c.memory.l1LinesPerClock =
      1; // [VM] matmul#3 simpleMultiplyAAT: 8 lines a strided request, ~10 cycles a pair of loads
  // [VM] stride_copy#3-5 (ncu dram__bytes_read): strides of 8, 16 and 32 words read 61, 98 and 99 MB for
  // 32 MB of loaded sectors: 64-byte DRAM reads, plus a fill of every partially stored sector
  c.memory.dramAccessBytes = 64;
  c.memory.partialWriteFill = true;
  c.memory.partialSectorWriteL2Slots = 2; // [VM] transpose#0: 1 M one-word store sectors in L2 take ~16 us
  return c;
}

// Jetson Orin (GA10B): GA10x's threads, warps and blocks with GA100's shared memory.
ComputeCapability cc87() {
  auto c = cc86(); // [PG13] Table 30: 8.7 keeps 8.6's 1536 threads, 48 warps and 16 blocks per SM ([OCC]: 16
                   // blocks for every 8.x but 8.0 and 8.9) and its 64:1 FP32:FP64 ratio
  c.minor = 7;
  c.sharedPerSm = 164 * KiB;         // [PG13] Table 31 (8.7: 164 KB)
  c.sharedPerBlockOptIn = 163 * KiB; // [PG13] Table 31 (8.7: 163 KB)
  c.sharedCarveoutsBytes = {0,        8 * KiB,   16 * KiB,  32 * KiB,
                            64 * KiB, 100 * KiB, 132 * KiB, 164 * KiB}; // [PG13] Table 32, [OCC] (8.7 as 8.0)
  c.combinedL1AndSharedBytes = 192 * KiB;                               // [PG13] Table 32 (8.7: 192 KB)
  // Throughput: no programming or best-practices guide has an 8.7 column; 8.6's is kept. FP32 128 and
  // FP64 2 per clock agree with 128 CUDA cores per SM (deviceQuery on Orin) and [PG13] Table 30's 64:1;
  // FP16 (128, the GA102 figure) is not verified for GA10B.
  return c;
}

// Blackwell datacenter (B200): the same per-SM resources as Hopper.
ComputeCapability cc100() {
  auto c = cc90(); // [PG13] Tables 30-32 give 10.0 exactly 9.0's limits: 2048 threads, 64 warps, 32 blocks
                   // per SM, 64 K registers, 228 KB shared per SM, 227 KB per block, the same carveouts and
                   // 256 KB of unified L1/shared; [OCC] the same rules for major 10 as 9 (128-byte shared
                   // granularity, 32 blocks, barriers twice the block limit: blockBarriersPerSm 64)
  c.major = 10, c.minor = 0, c.architecture = "Blackwell";
  // Throughput: [PG13] Table 30 keeps 9.0's 2:1 FP32:FP64 ratio, so 9.0's 128 FP32 and 64 FP64 results a
  // clock stay (the HGX B200 datasheet's 75 TFLOPS FP32 and 37 FP64 are 148 SMs x 128 x 2 and x 64 x 2 at
  // 1.95-1.98 GHz). The table's other rows have no 10.0 column the project could verify: 9.0's are kept.
  // The time model's latencies and memory throughputs are Hopper's, measured on the H100 and H200
  // (cc90): an assumption for Blackwell until measured on a B200.
  return c;
}

// Blackwell consumer (RTX 5090, GB202): Ada's per-SM resources.
ComputeCapability cc120() {
  auto c = cc89(); // [PG13] Tables 30-32 give 12.x 8.9's limits: 1536 threads, 48 warps, 24 blocks per SM
                   // ([OCC]: 24 for major 12), 100 KB shared per SM, 99 KB per block, carveouts up to 100 KB,
                   // 128 KB of unified L1/shared, and the 64:1 FP32:FP64 ratio (FP32 128, FP64 2 a clock)
  c.major = 12, c.minor = 0, c.architecture = "Blackwell";
  c.blockBarriersPerSm = 24; // [OCC] barriers limit from 9.0 on; 12.x has as many as its 24 blocks
  // Throughput: 8.9's table is kept (FP32 128 a clock: 128 CUDA cores per SM, deviceQuery on an RTX 5090);
  // no 12.0 column of the other rows could be verified.
  return c;
}

std::vector<ComputeCapability> buildTable() {
  return {cc10(), cc11(), cc12(), cc13(), cc20(), cc21(), cc30(), cc32(), cc35(), cc37(),  cc50(), cc52(),
          cc60(), cc61(), cc70(), cc75(), cc80(), cc86(), cc87(), cc89(), cc90(), cc100(), cc120()};
}

} // namespace

std::span<const ComputeCapability> computeCapabilities() {
  // Never destroyed: the CUDA and OpenCL libraries write their outputs at exit, from a library
  // destructor that runs after the program's static destructors would have freed it.
  static const std::vector<ComputeCapability> &table = *new std::vector<ComputeCapability>(buildTable());
  return table;
}

} // namespace ptxray::arch
