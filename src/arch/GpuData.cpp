// The GPU table. Sources: [DS] the board's NVIDIA datasheet / product specification page; [DQ] what the
// CUDA driver reports (deviceQuery: SM count, clocks, memory clock, bus width, L2, asyncEngineCount);
// [DQ-H] measured with cudaGetDeviceProperties/nvidia-smi on this project's H100 and H200 machines;
// [BPG] OpenCL Best Practices Guide; [KTG] Kepler Tuning Guide; [PG4.2] CUDA C Programming Guide 4.2;
// [PG-T] Programming Guide throughput table; [TPU] the TechPowerUp GPU database (secondary, as spec
// aggregators reproduce it), for base clocks NVIDIA publishes rounded to 10 MHz or not at all.
// [DQ] values of boards the project has no access to come from deviceQuery, cudaGetDeviceProperties and
// nvidia-smi output published with benchmarks; the B200's are named where used.
// Memory clocks are the deviceQuery figure, so every board is double data rate in the [BPG] §2.2.1
// formula (GDDR5's quad-pumped data is already folded into the reported clock).
// The table is laid out by hand, a comment on every line: clang-format would split it one field a line.
#include "arch/GpuDatabase.h"

namespace ptxray::arch {
namespace {

constexpr std::uint64_t MiB = 1024ull * 1024;
constexpr std::uint64_t GiB = 1024 * MiB;
constexpr int KiBytes = 1024;
constexpr int MiBytes = 1024 * 1024;
constexpr int DDR = 2; // double data rate: two transfers per memory clock

// clang-format off
std::vector<Gpu> buildTable() {
  std::vector<Gpu> t;
  t.push_back({.name = "GeForce 8800 GTX", .aliases = {"8800gtx", "gtx8800"}, .chip = "G80", // [BPG] §3.2.1.3
      .ccMajor = 1, .ccMinor = 0,                                     // [BPG] §3.2.1.3
      .smCount = 16, .baseClockMHz = 1350,                            // [DS] 128 stream processors, shader clock
      .memoryType = "GDDR3", .memoryClockMHz = 900, .memoryTransfersPerClock = DDR, // [DS] 86.4 GB/s
      .memoryBusWidthBits = 384, .memoryBytes = 768 * MiB,            // [DS]
      .l2CacheBytes = 0,                                              // no L2 before Fermi [PG4.2] F.3
      .pcieGeneration = 1,                                            // [DS] PCI Express x16 (1.0a)
      .copyEngines = 0, .ecc = false});                               // CC 1.0 cannot overlap [BPG] §3.1.3; [DS]
  t.push_back({.name = "GeForce GTX 280", .aliases = {"gtx280"}, .chip = "GT200", // [BPG] §3.2.1.3
      .ccMajor = 1, .ccMinor = 3,                                     // [BPG] §3.2.1.3
      .smCount = 30, .baseClockMHz = 1296,                            // [BPG] §1.1; [DS] shader clock
      .memoryType = "GDDR3", .memoryClockMHz = 1107, .memoryTransfersPerClock = DDR, // [BPG] §2.2.1
      .memoryBusWidthBits = 512, .memoryBytes = 1 * GiB,              // [BPG] §2.2.1; [DS]
      .l2CacheBytes = 0, .pcieGeneration = 2,                         // [PG4.2] F.3; [BPG] §3.1 (x16 Gen2)
      .copyEngines = 1, .ecc = false});                               // [BPG] §3.1.3 (CC >= 1.2); [DS]
  t.push_back({.name = "GeForce GTX 480", .aliases = {"gtx480"}, .chip = "GF100", .ccMajor = 2, .ccMinor = 0, // [DS]
      .smCount = 15, .baseClockMHz = 1401,                            // [DQ]
      .memoryType = "GDDR5", .memoryClockMHz = 1848, .memoryTransfersPerClock = DDR, // [DQ]
      .memoryBusWidthBits = 384, .memoryBytes = 1536 * MiB, .l2CacheBytes = 768 * KiBytes, // [DQ]
      .pcieGeneration = 2, .copyEngines = 1, .ecc = false,            // [KTG] §1.4.8; [DQ]; [DS]
      .fp64AddMulFmaPerClock = 4});                                   // [DS] GeForce GF100: double at 1/8 of float
  t.push_back({.name = "Tesla M2090", .aliases = {"m2090"}, .chip = "GF110", .ccMajor = 2, .ccMinor = 0, // [DS]
      .smCount = 16, .baseClockMHz = 1301,                            // [DS] 512 cores, 1.3 GHz
      .memoryType = "GDDR5", .memoryClockMHz = 1848, .memoryTransfersPerClock = DDR, // [DS] 177 GB/s
      .memoryBusWidthBits = 384, .memoryBytes = 6 * GiB, .l2CacheBytes = 768 * KiBytes, // [DS]
      .pcieGeneration = 2, .copyEngines = 2, .ecc = true});           // [KTG] §1.4.8; [BPG] §3.1.3; [DS]
  t.push_back({.name = "GeForce GTX 680", .aliases = {"gtx680"}, .chip = "GK104", .ccMajor = 3, .ccMinor = 0, // [KTG]
      .smCount = 8, .baseClockMHz = 1006, .boostClocksMHz = {1058},   // [KTG] §1.4.1; [DS]
      .memoryType = "GDDR5", .memoryClockMHz = 3004, .memoryTransfersPerClock = DDR, // [DQ]
      .memoryBusWidthBits = 256, .memoryBytes = 2 * GiB, .l2CacheBytes = 512 * KiBytes, // [DQ]
      .pcieGeneration = 3, .copyEngines = 1, .ecc = false});          // [DS]; [DQ]
  t.push_back({.name = "Tesla K10", .aliases = {"k10"}, .chip = "GK104", .ccMajor = 3, .ccMinor = 0, // [KTG] §1.4.7
      .smCount = 8, .baseClockMHz = 745,                              // [DS] per GPU
      .memoryType = "GDDR5", .memoryClockMHz = 2500, .memoryTransfersPerClock = DDR, // [DS] 160 GB/s per GPU
      .memoryBusWidthBits = 256, .memoryBytes = 4 * GiB, .l2CacheBytes = 512 * KiBytes, // [DS] per GPU
      .pcieGeneration = 3, .copyEngines = 2, .ecc = true,             // [KTG] §1.4.8; [DS]
      .gpusPerBoard = 2});                                            // [KTG] §1.4.7: dual-GK104 board
  t.push_back({.name = "Tesla K20", .aliases = {"k20"}, .chip = "GK110", .ccMajor = 3, .ccMinor = 5, // [DS]
      .smCount = 13, .baseClockMHz = 706,                             // [DS]
      .memoryType = "GDDR5", .memoryClockMHz = 2600, .memoryTransfersPerClock = DDR, // [DS] 208 GB/s
      .memoryBusWidthBits = 320, .memoryBytes = 5 * GiB, .l2CacheBytes = 1280 * KiBytes, // [DS]; [DQ]
      .pcieGeneration = 2, .copyEngines = 2, .ecc = true});           // [KTG] §1.4.8: no PCIe 3.0 speeds; [DS]
  t.push_back({.name = "Tesla K20X", .aliases = {"k20x"}, .chip = "GK110", .ccMajor = 3, .ccMinor = 5, // [DS]
      .smCount = 14, .baseClockMHz = 732,                             // [DS]
      .memoryType = "GDDR5", .memoryClockMHz = 2600, .memoryTransfersPerClock = DDR, // [DS] 250 GB/s
      .memoryBusWidthBits = 384, .memoryBytes = 6 * GiB, .l2CacheBytes = 1536 * KiBytes, // [DS]
      .pcieGeneration = 2, .copyEngines = 2, .ecc = true});           // [KTG] §1.4.8; [DS]
  t.push_back({.name = "Tesla K40", .aliases = {"k40", "k40m", "k40c"}, .chip = "GK110B", .ccMajor = 3, .ccMinor = 5,
      .smCount = 15, .baseClockMHz = 745,                             // [DS]; [KTG] §1.4.6: base is the default
      .boostClocksMHz = {810, 875},                                   // [DS] GPU Boost settings
      .boostIsOptIn = true,                                           // [KTG] §1.4.6: "set to the base clock"
      .memoryType = "GDDR5", .memoryClockMHz = 3004, .memoryTransfersPerClock = DDR, // [KTG] §1.4.4.5: 3 GHz
      .memoryBusWidthBits = 384, .memoryBytes = 12 * GiB, .l2CacheBytes = 1536 * KiBytes, // [DS]
      .pcieGeneration = 3, .copyEngines = 2, .ecc = true,             // [KTG] §1.4.8; [DS]
      .globalL1CachingOptIn = true});                                 // [KTG] §1.4.4.2: GK110B opts in (-dlcm=ca)
  t.push_back({.name = "GeForce GTX 780 Ti", .aliases = {"gtx780ti", "780ti"}, .chip = "GK110B", // [DS]
      .ccMajor = 3, .ccMinor = 5,                                     // [DS] GK110B
      .smCount = 15, .baseClockMHz = 875, .boostClocksMHz = {928},    // [DS]
      .memoryType = "GDDR5", .memoryClockMHz = 3500, .memoryTransfersPerClock = DDR, // [DS] 7 Gbps, 336 GB/s
      .memoryBusWidthBits = 384, .memoryBytes = 3 * GiB, .l2CacheBytes = 1536 * KiBytes, // [DS]
      .pcieGeneration = 3, .copyEngines = 1, .ecc = false,            // [DS]; [DQ]
      .globalL1CachingOptIn = true,                                   // [KTG] §1.4.4.2 (GK110B)
      .fp64AddMulFmaPerClock = 8});                                   // [PG-T] footnote: GeForce GK110 (not Titan)
  t.push_back({.name = "Tesla K80", .aliases = {"k80"}, .chip = "GK210", .ccMajor = 3, .ccMinor = 7, // [KTG] §1.4.7
      .smCount = 13, .baseClockMHz = 560,                             // [DS] per GPU
      .boostClocksMHz = {562, 575, 588, 601, 614, 627, 640, 653, 666, 679, 692, 705, 718, // nvidia-smi supported
                         731, 744, 757, 770, 783, 796, 809, 822, 835, 848, 861, 875},     // clocks, up to 875 [DS]
      .dynamicBoostByDefault = true,                                  // [KTG] §1.4.6
      .memoryType = "GDDR5", .memoryClockMHz = 2505, .memoryTransfersPerClock = DDR, // [DQ] 240 GB/s per GPU
      .memoryBusWidthBits = 384, .memoryBytes = 12 * GiB, .l2CacheBytes = 1536 * KiBytes, // [DS]; [DQ] per GPU
      .pcieGeneration = 3, .copyEngines = 2, .ecc = true,             // [KTG] §1.4.8; [DS]
      .gpusPerBoard = 2});                                            // [KTG] §1.4.7: dual-GK210 board
  t.push_back({.name = "Jetson TK1", .aliases = {"tk1", "tegrak1"}, .chip = "GK20A", // [DS]
      .ccMajor = 3, .ccMinor = 2,                                     // [KTG] footnote 3
      .smCount = 1, .baseClockMHz = 852,                              // [DQ] GPU max clock
      .memoryType = "LPDDR3", .memoryClockMHz = 933, .memoryTransfersPerClock = DDR, // [DS] LPDDR3-1866
      .memoryBusWidthBits = 64, .memoryBytes = 2 * GiB, .l2CacheBytes = 128 * KiBytes, // [DS] shared with CPU; [DQ]
      .copyEngines = 1, .ecc = false});                               // [DQ]; integrated: no PCIe link to the GPU
  t.push_back({.name = "GeForce GT 730", .aliases = {"gt730"}, .chip = "GK208", .ccMajor = 3, .ccMinor = 5, // [DS]
      .smCount = 2, .baseClockMHz = 902,                              // [DS] GDDR5 model
      .memoryType = "GDDR5", .memoryClockMHz = 2500, .memoryTransfersPerClock = DDR, // [DS] 40 GB/s
      .memoryBusWidthBits = 64, .memoryBytes = 1 * GiB, .l2CacheBytes = 512 * KiBytes, // [DS]; [DQ]
      .pcieGeneration = 2, .copyEngines = 1, .ecc = false,            // [DS] PCIe 2.0 x8; [DQ]
      .fp64AddMulFmaPerClock = 8});                                   // [KTG] §1.4.5.1 note: GK104-like ratios
  t.push_back({.name = "GeForce GTX 750 Ti", .aliases = {"gtx750ti", "750ti"}, .chip = "GM107", // [DS]
      .ccMajor = 5, .ccMinor = 0,                                     // [DS]
      .smCount = 5, .baseClockMHz = 1020, .boostClocksMHz = {1085},   // [DS]
      .memoryType = "GDDR5", .memoryClockMHz = 2700, .memoryTransfersPerClock = DDR, // [DS] 86.4 GB/s
      .memoryBusWidthBits = 128, .memoryBytes = 2 * GiB, .l2CacheBytes = 2 * MiBytes, // [DS]; [DQ]
      .pcieGeneration = 3, .copyEngines = 1, .ecc = false});          // [DS]; [DQ]
  t.push_back({.name = "GeForce GTX 980", .aliases = {"gtx980"}, .chip = "GM204", .ccMajor = 5, .ccMinor = 2, // [DS]
      .smCount = 16, .baseClockMHz = 1126, .boostClocksMHz = {1216},  // [DS]
      .memoryType = "GDDR5", .memoryClockMHz = 3505, .memoryTransfersPerClock = DDR, // [DS] 224 GB/s
      .memoryBusWidthBits = 256, .memoryBytes = 4 * GiB, .l2CacheBytes = 2 * MiBytes, // [DS]; [DQ]
      .pcieGeneration = 3, .copyEngines = 2, .ecc = false});          // [DS]; [DQ]
  t.push_back({.name = "Tesla P100", .aliases = {"p100", "p100sxm2"}, .chip = "GP100", .ccMajor = 6, .ccMinor = 0,
      .smCount = 56, .baseClockMHz = 1328, .boostClocksMHz = {1480},  // [DS] SXM2
      .memoryType = "HBM2", .memoryClockMHz = 715, .memoryTransfersPerClock = DDR, // [DQ] 732 GB/s
      .memoryBusWidthBits = 4096, .memoryBytes = 16 * GiB, .l2CacheBytes = 4 * MiBytes, // [DS]
      .pcieGeneration = 3, .copyEngines = 2, .ecc = true});           // [DS]; [DQ]
  t.push_back({.name = "GeForce GTX 1080", .aliases = {"gtx1080"}, .chip = "GP104", .ccMajor = 6, .ccMinor = 1, // [DS]
      .smCount = 20, .baseClockMHz = 1607, .boostClocksMHz = {1733},  // [DS]
      .memoryType = "GDDR5X", .memoryClockMHz = 5005, .memoryTransfersPerClock = DDR, // [DQ] 320 GB/s
      .memoryBusWidthBits = 256, .memoryBytes = 8 * GiB, .l2CacheBytes = 2 * MiBytes, // [DS]; [DQ]
      .pcieGeneration = 3, .copyEngines = 2, .ecc = false});          // [DS]; [DQ]
  t.push_back({.name = "Tesla V100", .aliases = {"v100", "v100sxm2"}, .chip = "GV100", .ccMajor = 7, .ccMinor = 0,
      .smCount = 80, .baseClockMHz = 1290, .boostClocksMHz = {1530},  // [DS] SXM2
      .memoryType = "HBM2", .memoryClockMHz = 877, .memoryTransfersPerClock = DDR, // [DQ] 900 GB/s
      .memoryBusWidthBits = 4096, .memoryBytes = 16 * GiB, .l2CacheBytes = 6 * MiBytes, // [DS]
      .pcieGeneration = 3, .copyEngines = 6, .ecc = true});           // [DS]; [DQ]
  t.push_back({.name = "Tesla T4", .aliases = {"t4"}, .chip = "TU104", .ccMajor = 7, .ccMinor = 5, // [DS]
      .smCount = 40, .baseClockMHz = 585, .boostClocksMHz = {1590},   // [DS]; [DQ]
      .memoryType = "GDDR6", .memoryClockMHz = 5001, .memoryTransfersPerClock = DDR, // [DQ] 320 GB/s
      .memoryBusWidthBits = 256, .memoryBytes = 16 * GiB, .l2CacheBytes = 4 * MiBytes, // [DQ]
      .pcieGeneration = 3, .copyEngines = 3, .ecc = true});           // [DS]; [DQ]
  t.push_back({.name = "A100 SXM4 40GB", .aliases = {"a100", "a100sxm4"}, .chip = "GA100", .ccMajor = 8, .ccMinor = 0,
      .smCount = 108, .baseClockMHz = 1095, .boostClocksMHz = {1410}, // [DS]
      .memoryType = "HBM2", .memoryClockMHz = 1215, .memoryTransfersPerClock = DDR, // [DQ] 1555 GB/s
      .memoryBusWidthBits = 5120, .memoryBytes = 40 * GiB, .l2CacheBytes = 40 * MiBytes, // [DS]
      .pcieGeneration = 4, .copyEngines = 3, .ecc = true});           // [DS]; [DQ]
  t.push_back({.name = "GeForce RTX 3090", .aliases = {"rtx3090", "3090"}, .chip = "GA102", .ccMajor = 8, .ccMinor = 6,
      .smCount = 82, .baseClockMHz = 1395, .boostClocksMHz = {1695},  // [DS]
      .memoryType = "GDDR6X", .memoryClockMHz = 9751, .memoryTransfersPerClock = DDR, // [DQ] 936 GB/s
      .memoryBusWidthBits = 384, .memoryBytes = 24 * GiB, .l2CacheBytes = 6 * MiBytes, // [DS]; [DQ]
      .pcieGeneration = 4, .copyEngines = 2, .ecc = false});          // [DS]; [DQ]
  t.push_back({.name = "A10", .aliases = {"a10"}, .chip = "GA102", .ccMajor = 8, .ccMinor = 6, // [DS]; [DQ]
      .smCount = 72, .baseClockMHz = 885, .boostClocksMHz = {1695},   // [DQ]; base [TPU]; max clock [DQ]
      .memoryType = "GDDR6", .memoryClockMHz = 6251, .memoryTransfersPerClock = DDR, // [DQ] 600 GB/s [DS]
      .memoryBusWidthBits = 384, .memoryBytes = 24 * GiB, .l2CacheBytes = 6 * MiBytes, // [DS]; [DQ]
      .pcieGeneration = 4, .copyEngines = 2, .ecc = true});           // [DS] PCIe Gen4 x16; [DQ]
  t.push_back({.name = "Jetson AGX Orin 64GB", .aliases = {"orin", "agxorin"}, .chip = "GA10B", // [DS]
      .ccMajor = 8, .ccMinor = 7,                                     // [DQ]
      .smCount = 16, .baseClockMHz = 1300,                            // [DQ] 2048 cores; GPU max clock
      .memoryType = "LPDDR5", .memoryClockMHz = 3200, .memoryTransfersPerClock = DDR, // [DS] 6400 MT/s, 204.8 GB/s
      .memoryBusWidthBits = 256, .memoryBytes = 64 * GiB, .l2CacheBytes = 4 * MiBytes, // [DS] shared with CPU; [DQ]
      .copyEngines = 2, .ecc = false});                               // [DQ]; integrated: no PCIe link to the GPU
  t.push_back({.name = "L4", .aliases = {"nvidial4"}, .chip = "AD104", .ccMajor = 8, .ccMinor = 9, // [DS]
      .smCount = 58, .baseClockMHz = 795, .boostClocksMHz = {2040},   // [DS]
      .memoryType = "GDDR6", .memoryClockMHz = 6251, .memoryTransfersPerClock = DDR, // [DQ] 300 GB/s
      .memoryBusWidthBits = 192, .memoryBytes = 24 * GiB, .l2CacheBytes = 48 * MiBytes, // [DS]
      .pcieGeneration = 4, .copyEngines = 2, .ecc = true});           // [DS]
  // After the L4 although older: `sm_89` stands for the first 8.9 board (ArchTarget::board()).
  t.push_back({.name = "GeForce RTX 4090", .aliases = {"rtx4090", "4090"}, .chip = "AD102", // [DS]
      .ccMajor = 8, .ccMinor = 9,                                     // [DQ]
      .smCount = 128, .baseClockMHz = 2235, .boostClocksMHz = {2520}, // [DQ]; [DS] 2.23/2.52 GHz; base [TPU]
      .memoryType = "GDDR6X", .memoryClockMHz = 10501, .memoryTransfersPerClock = DDR, // [DQ] 1008 GB/s [DS]
      .memoryBusWidthBits = 384, .memoryBytes = 24 * GiB, .l2CacheBytes = 72 * MiBytes, // [DS]; [DQ]
      .pcieGeneration = 4, .copyEngines = 2, .ecc = false});          // [DS]; [DQ]
  t.push_back({.name = "L40S", .aliases = {"l40s"}, .chip = "AD102",  // [DS]
      .ccMajor = 8, .ccMinor = 9,                                     // [DQ]
      .smCount = 142, .baseClockMHz = 1110, .boostClocksMHz = {2520}, // [DQ] 18176 cores; base [TPU]; max [DQ]
      .memoryType = "GDDR6", .memoryClockMHz = 9001, .memoryTransfersPerClock = DDR, // [DQ] 864 GB/s [DS]
      .memoryBusWidthBits = 384, .memoryBytes = 48 * GiB, .l2CacheBytes = 96 * MiBytes, // [DS]; [DQ]
      .pcieGeneration = 4, .copyEngines = 2, .ecc = true});           // [DS] PCIe Gen4 x16, ECC; [DQ]
  t.push_back({.name = "H100 SXM5 80GB", .aliases = {"h100", "h100sxm", "h100sxm5"}, .chip = "GH100", // [DQ-H]
      .ccMajor = 9, .ccMinor = 0,                                     // [DQ-H]
      .smCount = 132, .baseClockMHz = 1590, .boostClocksMHz = {1980}, // [DQ-H]; base [DS]; max SM clock [DQ-H]
      .memoryType = "HBM3", .memoryClockMHz = 2619, .memoryTransfersPerClock = DDR, // [DQ-H] 3.35 TB/s
      .memoryBusWidthBits = 5120, .memoryBytes = 80 * GiB, .l2CacheBytes = 50 * MiBytes, // [DQ-H]
      .pcieGeneration = 5, .copyEngines = 3, .ecc = true});           // [DQ-H]
  t.push_back({.name = "H200 SXM 141GB", .aliases = {"h200", "h200sxm"}, .chip = "GH100", // [DQ-H]
      .ccMajor = 9, .ccMinor = 0,                                     // [DQ-H]
      .smCount = 132, .baseClockMHz = 1590, .boostClocksMHz = {1980}, // [DQ-H]; base as H100 SXM [DS]
      .memoryType = "HBM3e", .memoryClockMHz = 3201, .memoryTransfersPerClock = DDR, // [DQ-H] 4.8 TB/s
      .memoryBusWidthBits = 6016,                                     // [DQ-H] as the driver reports it
      .memoryBytes = 141'000'000'000ull, .l2CacheBytes = 60 * MiBytes, // [DS] 141 GB; [DQ-H]
      .pcieGeneration = 5, .copyEngines = 3, .ecc = true,             // [DQ-H]
      // The fixed cost of a launch as the validation corpus sees it on an H200 (validation/model
      // results-h200, fitted: an empty kernel alone takes 1440 ns under ncu, the H100 2128 ns)
      .launchOverheadNanoseconds = 1700});
  // [DS]: NVIDIA's HGX B200 specifications (per GPU: 180 GB, 7.7 TB/s, PCIe Gen5) and DGX B200 (1,440 GB
  // for 8 GPUs); [DQ]: cudaGetDeviceProperties and nvidia-smi on B200s (pytorch/ao#4002; Transformer
  // Engine and tilebench captures). The 192 GB and 8 TB/s announced in 2024 are the full 8192-bit memory.
  t.push_back({.name = "B200 SXM 180GB", .aliases = {"b200", "b200sxm"}, .chip = "GB100", // [DS]
      .ccMajor = 10, .ccMinor = 0,                                    // [DQ]
      .smCount = 148, .baseClockMHz = 1965,                           // [DQ] max SM clock; no base clock published
      .memoryType = "HBM3e", .memoryClockMHz = 3996, .memoryTransfersPerClock = DDR, // [DQ] 7.7 TB/s [DS]
      .memoryBusWidthBits = 7680,                                     // [DQ] as current drivers report it (8192 before)
      .memoryBytes = 180 * GiB, .l2CacheBytes = 126 * MiBytes + 512 * KiBytes, // [DS]; [DQ] 132644864 bytes
      .pcieGeneration = 5, .copyEngines = 3, .ecc = true});           // [DS] Gen5; H100/H200's (not found); [DQ]
  t.push_back({.name = "GeForce RTX 5090", .aliases = {"rtx5090", "5090"}, .chip = "GB202", // [DS]
      .ccMajor = 12, .ccMinor = 0,                                    // [DQ]
      .smCount = 170, .baseClockMHz = 2017, .boostClocksMHz = {2407}, // [DQ]; [DS] 2.01/2.41 GHz; base [TPU]
      .memoryType = "GDDR7", .memoryClockMHz = 14001, .memoryTransfersPerClock = DDR, // [DQ] 28 Gbps, 1792 GB/s [DS]
      .memoryBusWidthBits = 512, .memoryBytes = 32 * GiB, .l2CacheBytes = 96 * MiBytes, // [DS]; [DQ]
      .pcieGeneration = 5, .copyEngines = 2, .ecc = false});          // [DS] PCIe 5.0 x16; [DQ] ECC off by default
  return t;
}
// clang-format on

} // namespace

std::span<const Gpu> gpus() {
  // Never destroyed: the CUDA and OpenCL libraries write their outputs at exit, from a library
  // destructor that runs after the program's static destructors would have freed it.
  static const std::vector<Gpu> &table = *new std::vector<Gpu>(buildTable());
  return table;
}

} // namespace ptxray::arch
