// What a compute capability fixes: the per-SM resources occupancy is computed from, the memory system's
// rules, arithmetic throughput and latencies. The values, each with its source, are in
// ComputeCapabilityData.cpp; nothing else in the library hard-codes an architectural number.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ptxray::arch {

/// cudaFuncCachePrefer* (cudaOccCacheConfig): how an application asks to split on-chip storage.
enum class CacheConfig { PreferNone, PreferShared, PreferL1, PreferEqual };

/// Whether registers are handed out per block (CC 1.x) or per warp (CC 2.0 and later).
enum class RegisterAllocationGranularity { Block, Warp };

/// Where ordinary (non-__ldg) global loads are cached by default.
enum class GlobalLoadCaching { Uncached, L1, L2Only };

/// Shared memory an SM offers its blocks under each cache preference (CC < 7.0).
struct SharedMemoryByCacheConfig {
  int preferNone = 0;
  int preferShared = 0;
  int preferL1 = 0;
  int preferEqual = 0;
  int forConfig(CacheConfig config) const;
};

struct SharedMemoryBanks {
  int banks = 0;
  int bankWidthBytes = 0;                     ///< default bank width
  std::vector<int> selectableBankWidthsBytes; ///< Kepler: 4 or 8 (cudaDeviceSetSharedMemConfig)
  int threadsPerRequest = 0;                  ///< 16: one request per half-warp (CC 1.x); 32: per warp
  int widestAccessBytes = 16;                 ///< wider accesses per thread are split into accesses of this size
  int extraPassesFor128Bit = 0;               ///< CC 2.x: a 128-bit access takes one pass more than its conflicts
  int constantThreadsPerRequest = 32;         ///< constant-cache requests: per half-warp (1.x) or warp
  /// ptxas merges scalar shared accesses of consecutive words at a provably aligned address into one
  /// vector access of up to this many bytes per lane (LDS.64/.128, STS.64/.128; model/MergedAccesses.h).
  /// 16 from Fermi on (its 64/128-bit shared accesses, [PG4.2] F.4.3.2; measured on 9.0:
  /// validation/model/results/sass/matmul_square.sass, matmulTiled32's LDS.128); 0: none (CC 1.x
  /// splits wider accesses into 32-bit ones, [PG4.2] F.3.3.4).
  int compilerMergedAccessBytes = 16;
  /// A 128-bit access: the lanes one wavefront serves when their rows allow (a broadcast of one
  /// 16-byte word to a half-warp is one wavefront); 0: the lanes whose bytes fill one row of banks.
  int lanesPerWideWavefront = 0;
};

/// How the memory system turns a (half-)warp's global accesses into transactions.
struct GlobalMemoryRules {
  int threadsPerRequest = 0;                 ///< accesses coalesced per half-warp (1.x) or warp
  bool requiresInOrderAlignedAccess = false; ///< CC 1.0/1.1: thread k must read word k of the segment
  std::vector<int> transactionBytes;         ///< sizes a request can be served with
  int l1LineBytes = 0;                       ///< 0 when global loads never go through L1
  int l2SectorBytes = 0;                     ///< 0 when there is no L2
  GlobalLoadCaching defaultLoadCaching = GlobalLoadCaching::Uncached;
  bool l1CachingOptIn = false;    ///< -Xptxas -dlcm=ca turns L1 caching of global loads on
  bool readOnlyDataCache = false; ///< __ldg / const __restrict__ path
  /// CC 1.0/1.1: the word sizes a half-warp can coalesce (smaller words are served one per thread).
  int minCoalescedWordBytes = 0, maxCoalescedWordBytes = 0;
  /// CC 5.0+: one request per warp instruction whatever its width, counted in 32-byte sectors (instead
  /// of half/quarter-warp requests for 64/128-bit accesses).
  bool requestPerInstruction = false;
  /// CC 1.2/1.3: the segment a half-warp's request starts from, by word size (1, 2, 4, 8 or 16 bytes).
  int segmentBytesForWordSize(int wordBytes) const;
};

/// Results per clock cycle per SM (Programming Guide, "Throughput of Native Arithmetic Instructions").
/// kMultipleInstructions: emulated by a sequence of native instructions; kUnsupported: not available.
struct ArithmeticThroughput {
  static constexpr int kMultipleInstructions = 0;
  static constexpr int kUnsupported = -1;
  int fp16AddMulFma = kUnsupported;
  int fp32AddMulFma = 0;
  int fp64AddMulFma = kUnsupported;
  int fp32Special = 0; ///< reciprocal, rsqrt, __log2f, exp2f, __sinf, __cosf
  int int32AddSub = 0;
  int int32MulMad = 0;
  int int24Mul = 0; ///< __[u]mul24
  int int32Shift = 0;
  int compareMinMax = 0;
  int bitwise = 0; ///< and, or, xor
  int bitReverseFieldExtractInsert = 0;
  int leadingZerosMostSignificantBit = 0;
  int populationCount = 0;
  int warpShuffle = kUnsupported;
  int sumOfAbsoluteDifference = 0;
  int convert8Or16BitTo32 = 0;
  int convertFromOrTo64Bit = 0;
  int convertOther = 0;
  int memoryInstruction = 0; ///< issue rate of loads/stores (OpenCL Best Practices §5.2)
  /// Native instructions behind one "multiple instructions" entry of the table: a 32-bit multiply
  /// built from 24-/16-bit ones ([BPG] §5.1.1: 1.x "32-bit integer multiplication ... 4 times slower"
  /// than __mul24; Maxwell's XMAD sequence, [PG-T] 5.x "multiple instructions").
  int multiplySequenceLength = 4;
  /// Division, remainder, IEEE sqrt/rcp and 64-bit integer multiply ([BPG] §5.1.1-5.1.2: "tens of
  /// instructions" for integer division; an estimate until calibrated against hardware).
  int emulatedSequenceLength = 16;
};

/// Dynamic parallelism: what grids launched from device code cost, in the order the GPU handles them
/// (model::PerformanceModel's child-grid schedule).
struct DeviceLaunchCosts {
  int firstChildNanoseconds = 0;  ///< from a thread's launch call until its child grid begins
  int nestedChildNanoseconds = 0; ///< the same, for a grid launched by a device-launched grid
  int callNanoseconds = 0;        ///< a thread's next launch call after its previous one
  int streamGapNanoseconds = 0;   ///< between two grids of one device stream, both already launched
  int tailGapNanoseconds = 0;     ///< between two tail launches (cudaStreamTailLaunch)
  int issueNanoseconds = 0;       ///< between two launches anywhere on the GPU (its launch throughput)
  int firstIssues = 0;            ///< a grid's first launches, which take firstIssueNanoseconds each
  int firstIssueNanoseconds = 0;
};

struct Latencies {
  int registerReadAfterWriteCycles = 0;
  int globalMemoryMinCycles = 0;
  int globalMemoryMaxCycles = 0;
  // What the time model's per-warp critical path takes for each kind of result and each memory level
  // (model/WarpTiming.h): SM cycles from issue until a dependent instruction can issue, as a
  // dependent chain (a pointer chase) measures them on an idle GPU. 0: derived from the fields above.
  int fp64Cycles = 0;
  int specialFunctionCycles = 0; ///< SFU: sin, cos, ex2, lg2, rcp, rsqrt, sqrt approximations
  int shuffleCycles = 0;         ///< shfl, vote, match, redux
  int conversionCycles = 0;      ///< cvt
  int sharedLoadCycles = 0;
  int constantHitCycles = 0;
  int l1HitCycles = 0; ///< global or local load served by L1 (or the read-only/texture cache)
  int l2HitCycles = 0;
  int dramCycles = 0;           ///< an L2 miss
  int barrierCycles = 0;        ///< from the last warp's arrival at bar.sync until the CTA's warps issue again
  double barrierWarpCycles = 0; ///< and per warp the barrier waits for (it takes the arrivals one by one)
  /// How far ahead of a stalled instruction a warp's independent instructions still issue: the PTX is
  /// in source order, but ptxas schedules loads early and interleaves independent chains (measured:
  /// validation/model latency#3-4, the naive matrix products). 1: in order.
  int reorderWindow = 1;
  int atomicCycles = 0; ///< a global atomic returning its old value, its line in L2
  /// Global atomics and reductions are performed one sector at a time by the L2 unit that owns their
  /// address range (MemoryThroughput::atomicRegionBytes): per sector a warp updates, cycles (of the SM
  /// clock), plus, per further lane on an address another lane of the warp also updates, the
  /// same-address cycles. A warp's atomic on 32 words of one sector is one update; on one word, 32.
  double atomicSectorCycles = 0;
  double sameAddressAtomicCycles = 0;
  /// Shared-memory atomics: cycles per lane that updates an address another lane of the warp also updates.
  int sharedAtomicConflictCycles = 0;
  /// Device printf, serialized GPU-wide (every call appends to one FIFO): a fixed cost for a launch
  /// that prints, then per warp-level call and per printing thread (SM cycles).
  int printfLaunchCycles = 0;
  int printfCallCycles = 0;
  int printfThreadCycles = 0;
  /// Device malloc and free, serialized GPU-wide: the first use of the heap in a launch, then per thread.
  int heapLaunchCycles = 0;
  int heapThreadCycles = 0;
};

/// The memory system's throughput limits beyond DRAM bandwidth (per board, GpuDatabase.h).
struct MemoryThroughput {
  double l2BytesPerClock = 0;  ///< L2 sectors' bytes the GPU moves per SM clock (0: no L2 bound)
  double dramEfficiency = 1.0; ///< achievable share of the theoretical DRAM bandwidth
  /// The share reached by the transactions of requests split into one per thread (CC 1.0/1.1's
  /// uncoalesced accesses, GlobalMemoryRules::requiresInOrderAlignedAccess); 0: dramEfficiency.
  double splitDramEfficiency = 0;
  /// 128-byte lines an SM's L1 looks up per clock for global loads and stores: a request whose lanes
  /// touch n lines holds the memory pipe n clocks (0: no bound).
  double l1LinesPerClock = 0;
  /// L2 bandwidth slots a store takes for a sector it writes only part of (merging the bytes into the
  /// line); 0 or 1: one, as a whole sector.
  double partialSectorWriteL2Slots = 0;
  /// The unit DRAM reads in (bytes): a sector read alone costs the whole unit. 0: the footprint granule.
  int dramAccessBytes = 0;
  /// A sector written in part and never read is filled from DRAM before L2 writes it back (memory
  /// without byte write masks, such as HBM with ECC), when the footprint exceeds L2.
  bool partialWriteFill = false;
  int ctaLaunchCycles = 0; ///< per wave: giving an SM its next CTAs (block scheduling, CTA setup)
  /// SM cycles a constant-cache transaction beyond a request's first takes (divergent __constant__
  /// reads replay); 0: one issue slot of the memory pipe.
  double constantReplayCycles = 0;
  /// How the SMs' schedule (unloaded latencies) and the memory bandwidth bound combine: their p-norm
  /// (requests queue near the bandwidth limit); 0: the larger of the two.
  double overlapExponent = 0;
  /// The address range one L2 atomic unit serializes (atomics to different ranges proceed in parallel).
  int atomicRegionBytes = 0;
};

struct ComputeCapability {
  int major = 0;
  int minor = 0;
  std::string architecture; ///< "Tesla", "Fermi", "Kepler", ...

  // Threads, warps, blocks.
  int warpSize = 0;
  int maxThreadsPerSm = 0;
  int maxWarpsPerSm = 0;
  int maxBlocksPerSm = 0;
  int maxThreadsPerBlock = 0;
  int maxBlockDim[3] = {0, 0, 0};    ///< blockDim.x/y/z limits (the launch fails beyond them)
  int64_t maxGridDim[3] = {0, 0, 0}; ///< gridDim.x/y/z limits
  int warpAllocationGranularity = 0; ///< a block's warps are allocated in multiples of this

  // Registers (32-bit).
  int registersPerSm = 0;
  int maxRegistersPerBlock = 0;
  int maxRegistersPerThread = 0;
  RegisterAllocationGranularity registerAllocationGranularity = RegisterAllocationGranularity::Warp;
  int registerAllocationUnit = 0;              ///< a block's (1.x) or warp's registers round up to this
  std::vector<int> registerCountsWithWideUnit; ///< Fermi: per-thread counts allocated in wideRegisterAllocationUnit
  int wideRegisterAllocationUnit = 0;
  int registerFilePartitions = 0; ///< warp scheduler partitions the register file is split into
  /// Each scheduler issues one warp instruction a clock to pipes that work side by side (Volta on: FMA,
  /// ALU, FP64, MUFU, LSU...): the issue bound is the busiest pipe or the issue slots, not the sum of
  /// every class's cycles (one shared set of cores: Tesla; Fermi and Kepler dispatch from shared ones).
  bool independentPipes = false;
  int registerFitCheckPartitions = 0; ///< partitions a block must also fit (GP100 checks as GP10x)

  // Shared memory (bytes).
  int sharedPerSm = 0;            ///< the most an SM can offer
  int sharedPerBlock = 0;         ///< default per-block limit
  int sharedPerBlockOptIn = 0;    ///< per-block limit after cudaFuncSetAttribute(MaxDynamicSharedMemorySize)
  int sharedReservedPerBlock = 0; ///< taken by the driver from every block (CC 8.0+)
  int sharedAllocationUnit = 0;
  int maxStaticSharedPerBlock = 0;                              ///< __shared__ declarations; more must be dynamic
  std::optional<SharedMemoryByCacheConfig> sharedByCacheConfig; ///< CC < 7.0
  std::vector<int> sharedCarveoutsBytes; ///< CC 7.0+: shared sizes the driver can configure, ascending
  int combinedL1AndSharedBytes = 0;      ///< one on-chip array split between L1 and shared; 0 if separate
  int globalCachingSmPartitions = 0;     ///< partitioned global caching confines a block to one of these
                                         ///< SM parts (5.2, 6.1); 0: not supported
  std::optional<int> blockBarriersPerSm; ///< hardware barriers shared by resident blocks, where they limit

  SharedMemoryBanks sharedBanks;
  GlobalMemoryRules global;
  /// The unit texture fetches and surface accesses are fetched and counted in: the texture cache's
  /// line (CC 1.x-3.x) or the L1TEX sector (5.0+).
  int textureTransactionBytes = 0;
  int constantMemoryBytes = 0;
  int constantCacheBytes = 0;         ///< working set per SM
  int64_t maxLocalBytesPerThread = 0; ///< a kernel needing more local memory is refused at launch
  int launchOverheadNanoseconds = 0;  ///< time an empty kernel takes, launch to completion
  DeviceLaunchCosts deviceLaunch;     ///< CC 3.5+ (dynamicParallelism)

  ArithmeticThroughput throughput;
  Latencies latency;
  MemoryThroughput memory;

  // Guidance the guides tie to the architecture.
  double minOccupancyToHideRegisterLatency = 0; ///< below this, RAW register latency shows
  int registerLatencyHidingThreads = 0;         ///< threads per SM that hide it (OpenCL BPG §3.2.6)
  std::optional<int> registerBankBlockMultiple; ///< block sizes that avoid register bank conflicts (1.x)

  // Concurrency features.
  int maxResidentGrids = 0;   ///< concurrent kernels
  int hardwareWorkQueues = 0; ///< Hyper-Q connections (1 = a single queue)
  bool dynamicParallelism = false;

  std::string smName() const;  ///< "sm_35"
  std::string version() const; ///< "3.5"
  int warpsPerBlock(int threadsPerBlock) const;
};

/// All modeled compute capabilities, oldest first.
std::span<const ComputeCapability> computeCapabilities();

/// nullptr when the compute capability is not modeled.
const ComputeCapability *findComputeCapability(int major, int minor);

} // namespace ptxray::arch
