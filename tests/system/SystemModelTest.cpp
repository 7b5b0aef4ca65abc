// The system model (src/system) against the guides' scenarios and the H200 measurements of
// validation/system: PCIe rates, copy/compute overlap with one and two copy engines, Hyper-Q's
// false dependencies, the concurrent-kernel limits, pinned vs pageable, batched vs small copies,
// stream 0, events and SM sharing. Sessions are built by hand: no kernel runs here.
#include "arch/GpuDatabase.h"
#include "arch/HostSystem.h"
#include "system/Timeline.h"

#include "support/SystemConfigFor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace ptxray::test {
namespace {

using system::OpKind;
using system::Session;
using system::SessionOp;

SessionOp copy(OpKind kind, uint64_t bytes, unsigned stream, system::HostMemory memory = system::HostMemory::Pinned) {
  SessionOp op;
  op.kind = kind;
  op.bytes = bytes;
  op.stream = stream;
  op.hostMemory = memory;
  return op;
}
SessionOp kernel(double seconds, unsigned stream, double share = 1) {
  SessionOp op;
  op.kind = OpKind::Kernel;
  op.kernelSeconds = seconds;
  op.gpuShare = share;
  op.stream = stream;
  return op;
}
SessionOp marker(OpKind kind, unsigned stream, size_t event = system::kNoOp) {
  SessionOp op;
  op.kind = kind;
  op.stream = stream;
  op.event = event;
  return op;
}

system::SystemOptions pcieGeneration(int generation) {
  system::SystemOptions o;
  o.pcieGeneration = generation;
  return o;
}
system::SystemOptions connections(int count) {
  system::SystemOptions o;
  o.connections = count;
  return o;
}

/// Bytes that take `seconds` over the config's pinned link.
uint64_t bytesFor(const system::SystemConfig &c, double seconds) {
  return static_cast<uint64_t>(seconds * c.pinnedBytesPerSecond);
}

TEST(SystemModel, PcieRatesFollowTheGenerationAndTheSlowerSide) {
  EXPECT_DOUBLE_EQ((arch::PcieLink{2, 16}.rawBytesPerSecond()), 8e9); // [BPG] §3.1: 8 GBps on x16 Gen2
  EXPECT_GT((arch::PcieLink{2, 16}.pinnedBytesPerSecond()), 5e9);     // [BPG] §3.1.1: "greater than 5 GBps"
  EXPECT_NEAR((arch::PcieLink{3, 16}.rawBytesPerSecond()), 15.75e9, 0.01e9);
  EXPECT_NEAR((arch::PcieLink{5, 16}.pinnedBytesPerSecond()), 55.46e9, 0.1e9); // measured on the H200
  EXPECT_DOUBLE_EQ((arch::PcieLink{3, 8}.rawBytesPerSecond()) * 2, (arch::PcieLink{3, 16}.rawBytesPerSecond()));
  // [KTG] §1.4.8: K20X is PCIe 2.0 even in a 3.0 host; K40 runs 3.0, and 2.0 in a 2.0 host.
  EXPECT_EQ(configFor("K20X", pcieGeneration(3)).link->generation, 2);
  EXPECT_EQ(configFor("K40").link->generation, 3);
  EXPECT_EQ(configFor("K40", pcieGeneration(2)).link->generation, 2);
  EXPECT_NEAR(configFor("K40").pinnedBytesPerSecond / 1e9, 13.86, 0.01);
  EXPECT_NEAR(configFor("K40", pcieGeneration(2)).pinnedBytesPerSecond / 1e9, 6.4, 0.01);
  EXPECT_FALSE(configFor("TK1").link.has_value()); // integrated: no PCIe
  EXPECT_EQ(configFor("GTX 680").computeQueues, 1);
  EXPECT_EQ(configFor("K20X").computeQueues, 8); // [KTG] §1.4.2.2: the default 8 connections
  EXPECT_EQ(configFor("K20X", connections(64)).computeQueues, 32);
  EXPECT_EQ(configFor("TK1").maxConcurrentKernels, 4);
}

/// The OpenCL guide's copy/compute overlap (§3.1.3): c = hypot(a, b) with balanced phases (copying a
/// and b in, the kernel and copying c out take `phase` each over the whole data), split over `queues`
/// queues, the whole sequence `iterations` times with fresh data. Staggered, as the guide's sample
/// issues it: in each phase, the next unit's writes, the previous unit's kernel, the one before's
/// read. Depth-first: each unit's writes, kernel and read, unit after unit.
Session hypotenuse(const system::SystemConfig &c, int queues, int iterations, double phase, bool staggered = true) {
  Session s;
  const uint64_t in = bytesFor(c, phase) / 2 / queues, out = bytesFor(c, phase) / queues;
  const int units = queues * iterations;
  auto stage = [&](int unit, int step) {
    unsigned stream = static_cast<unsigned>(unit % queues + 1);
    if (step == 0) {
      s.ops.push_back(copy(OpKind::CopyH2D, in, stream));
      s.ops.push_back(copy(OpKind::CopyH2D, in, stream));
    } else if (step == 1) {
      s.ops.push_back(kernel(phase / queues, stream));
    } else {
      s.ops.push_back(copy(OpKind::CopyD2H, out, stream));
    }
  };
  if (staggered) {
    for (int p = 0; p < units + 2; ++p)
      for (int step = 0; step < 3; ++step)
        if (int unit = p - step; unit >= 0 && unit < units)
          stage(unit, step);
  } else {
    for (int unit = 0; unit < units; ++unit)
      for (int step = 0; step < 3; ++step)
        stage(unit, step);
  }
  s.ops.push_back(marker(OpKind::Synchronize, 0));
  return s;
}

TEST(SystemModel, GuideOverlapWithOneAndTwoCopyEngines) {
  const double phase = 10e-3;
  const system::SystemConfig oneEngine = configFor("GTX 480"), twoEngines = configFor("Tesla M2090");
  ASSERT_EQ(oneEngine.copyEngines, 1);
  ASSERT_EQ(twoEngines.copyEngines, 2);
  for (const system::SystemConfig *c : {&oneEngine, &twoEngines}) {
    // One queue: nothing overlaps.
    EXPECT_NEAR(system::simulate(*c, hypotenuse(*c, 1, 1, phase)).overlapFraction, 0, 0.001) << c->gpu;
    // Two queues, one pass: the second half's copy-in under the first half's kernel, its kernel under
    // the first half's copy-out: 3 phases become 2, "up to 30%" ([BPG] §3.1.3).
    system::Timeline two = system::simulate(*c, hypotenuse(*c, 2, 1, phase));
    EXPECT_NEAR(two.overlapFraction, 1.0 / 3, 0.01) << c->gpu;
    EXPECT_NEAR(two.serialSeconds, 3 * phase, 3 * phase * 0.01) << c->gpu;
  }
  // Repeated with fresh data: two copy engines copy in and out at once, "up to 50%"; one engine
  // carries both directions and stays at a third.
  EXPECT_NEAR(system::simulate(twoEngines, hypotenuse(twoEngines, 2, 8, phase)).overlapFraction, 0.5, 0.04);
  EXPECT_NEAR(system::simulate(oneEngine, hypotenuse(oneEngine, 2, 8, phase)).overlapFraction, 1.0 / 3, 0.02);
  // Issued depth-first on Fermi with one copy engine, the first read waits in the copy queue for the
  // first kernel and holds back the second half's writes: the overlap is lost. Two engines keep the
  // directions in separate queues.
  EXPECT_NEAR(system::simulate(oneEngine, hypotenuse(oneEngine, 2, 1, phase, false)).overlapFraction, 0, 0.01);
  EXPECT_NEAR(system::simulate(twoEngines, hypotenuse(twoEngines, 2, 1, phase, false)).overlapFraction, 1.0 / 3, 0.01);
  // CC 1.0 has no copy engine: copies and kernels never overlap.
  const system::SystemConfig none = configFor("8800 GTX");
  ASSERT_EQ(none.copyEngines, 0);
  EXPECT_NEAR(system::simulate(none, hypotenuse(none, 2, 4, phase)).overlapFraction, 0, 0.001);
}

/// S streams each running kernel A then kernel B (B after A by stream order), one block each: issued
/// depth-first (all of stream 1, then stream 2, ...) or breadth-first (A on every stream, then B).
Session twoKernelsPerStream(int streams, bool depthFirst, double seconds) {
  Session s;
  if (depthFirst) {
    for (int i = 1; i <= streams; ++i)
      for (int k = 0; k < 2; ++k)
        s.ops.push_back(kernel(seconds, static_cast<unsigned>(i), 0.001));
  } else {
    for (int k = 0; k < 2; ++k)
      for (int i = 1; i <= streams; ++i)
        s.ops.push_back(kernel(seconds, static_cast<unsigned>(i), 0.001));
  }
  return s;
}

TEST(SystemModel, HyperQRemovesFalseDependenciesBetweenStreams) {
  const double t = 10e-3; // long enough for the 64 launch calls not to count
  auto kernelTimes = [&](const system::SystemConfig &c, int streams, bool depthFirst) {
    return system::simulate(c, twoKernelsPerStream(streams, depthFirst, t)).totalSeconds / t;
  };
  // GK104: one hardware queue. Depth-first, each B holds the queue until its A is done, and the next
  // stream's A only starts beside it: S + 1 kernel times. Breadth-first: 2 ([KTG] §1.4.2.2).
  const system::SystemConfig gk104 = configFor("GTX 680");
  EXPECT_NEAR(kernelTimes(gk104, 8, true), 9, 0.1);
  EXPECT_NEAR(kernelTimes(gk104, 8, false), 2, 0.1);
  // GK110: a connection per stream (8 by default): no false dependency either way.
  const system::SystemConfig gk110 = configFor("K20X");
  EXPECT_NEAR(kernelTimes(gk110, 8, true), 2, 0.1);
  EXPECT_NEAR(kernelTimes(gk110, 8, false), 2, 0.1);
  // 32 streams on 8 connections: 4 streams a connection, 5 kernel times depth-first, as measured on
  // the H200 (5.02, validation/system); 32 connections: 2 (measured 2.03); one connection: 33
  // (measured 32.97).
  const system::SystemConfig h200 = configFor("H200");
  EXPECT_NEAR(kernelTimes(h200, 32, true), 5, 0.1);
  EXPECT_NEAR(kernelTimes(h200, 32, false), 2, 0.1);
  EXPECT_NEAR(kernelTimes(configFor("H200", connections(32)), 32, true), 2, 0.1);
  EXPECT_NEAR(kernelTimes(configFor("H200", connections(1)), 32, true), 33, 0.2);
}

TEST(SystemModel, ConcurrentKernelLimits) {
  const double t = 1e-3;
  auto total = [&](const std::string &gpu) {
    Session s;
    for (unsigned i = 1; i <= 64; ++i)
      s.ops.push_back(kernel(t, i, 0.001));
    return system::simulate(configFor(gpu), s).totalSeconds / t;
  };
  EXPECT_NEAR(total("H100"), 1, 0.3);     // 128 at once
  EXPECT_NEAR(total("K20X"), 2, 0.3);     // 32 ([KTG] §1.4.2.1)
  EXPECT_NEAR(total("GTX 480"), 4, 0.3);  // 16, and one queue: independent kernels still run together
  EXPECT_NEAR(total("TK1"), 16, 0.3);     // 4 (GK20A)
  EXPECT_NEAR(total("GTX 280"), 64, 0.3); // 1.x: one kernel at a time
}

TEST(SystemModel, PinnedPageableAndBatchedCopiesOnTheH200) {
  const system::SystemConfig c = configFor("H200");
  auto seconds = [&](Session s) { return system::simulate(c, s).totalSeconds; };
  const uint64_t big = uint64_t{256} << 20;
  // validation/system: 55.46 GB/s pinned, 6.99 GB/s pageable H2D, 11.21 GB/s pageable D2H.
  EXPECT_NEAR(big / seconds({{copy(OpKind::CopyH2D, big, 1)}}) / 1e9, 55.46, 1.0);
  EXPECT_NEAR(big / seconds({{copy(OpKind::CopyH2D, big, 1, system::HostMemory::Pageable)}}) / 1e9, 6.99, 0.3);
  EXPECT_NEAR(big / seconds({{copy(OpKind::CopyD2H, big, 1, system::HostMemory::Pageable)}}) / 1e9, 11.21, 0.5);
  // 1024 copies of 4 KiB against one of 4 MiB: measured 32.7 times longer.
  Session many, one;
  for (int i = 0; i < 1024; ++i)
    many.ops.push_back(copy(OpKind::CopyH2D, 4096, 1));
  one.ops.push_back(copy(OpKind::CopyH2D, 4096 * 1024, 1));
  EXPECT_NEAR(seconds(many) / seconds(one), 32.7, 5);
}

TEST(SystemModel, PageableCopiesHoldTheHost) {
  const system::SystemConfig c = configFor("K40");
  for (auto memory : {system::HostMemory::Pinned, system::HostMemory::Pageable}) {
    Session s;
    s.ops.push_back(copy(OpKind::CopyH2D, bytesFor(c, 5e-3), 1, memory));
    s.ops.push_back(kernel(5e-3, 2));
    system::Timeline tl = system::simulate(c, s);
    if (memory == system::HostMemory::Pinned)
      EXPECT_LT(tl.entries[1].start, tl.entries[0].end); // overlaps the copy
    else
      EXPECT_GE(tl.entries[1].issue, tl.entries[0].end); // the call only returned after the copy
  }
}

TEST(SystemModel, StreamZeroAndEventsOrderTheWork) {
  const system::SystemConfig c = configFor("H100");
  Session s;
  s.ops.push_back(kernel(1e-3, 1, 0.01)); // 0
  s.ops.push_back(kernel(1e-3, 0, 0.01)); // 1: the legacy stream waits for 0
  s.ops.push_back(kernel(1e-3, 2, 0.01)); // 2: and stream 2 waits for 1
  system::Timeline tl = system::simulate(c, s);
  EXPECT_GE(tl.entries[1].start, tl.entries[0].end);
  EXPECT_GE(tl.entries[2].start, tl.entries[1].end);

  Session e;
  e.ops.push_back(kernel(2e-3, 1, 0.01));                 // 0
  e.ops.push_back(marker(OpKind::EventRecord, 1));        // 1
  e.ops.push_back(kernel(1e-3, 2, 0.01));                 // 2: free to run beside 0
  e.ops.push_back(marker(OpKind::StreamWaitEvent, 2, 1)); // 3
  e.ops.push_back(kernel(1e-3, 2, 0.01));                 // 4: after 0
  e.ops.push_back(marker(OpKind::StreamSynchronize, 2));  // 5: the host waits for 4
  tl = system::simulate(c, e);
  EXPECT_LT(tl.entries[2].start, tl.entries[0].end);
  EXPECT_DOUBLE_EQ(tl.entries[1].end, tl.entries[0].end);
  EXPECT_GE(tl.entries[4].start, tl.entries[0].end);
  EXPECT_GE(tl.entries[5].end, tl.entries[4].end);
  EXPECT_EQ(tl.entries[5].engine, system::Engine::Host);
}

TEST(SystemModel, StreamSynchronizeWaitsForItsStreamOnly) {
  const system::SystemConfig c = configFor("H100");
  Session s;
  s.ops.push_back(kernel(1e-3, 1, 0.01));
  s.ops.push_back(kernel(10e-3, 0, 0.01)); // waits for the first, but stream 1 does not wait for it
  s.ops.push_back(marker(OpKind::StreamSynchronize, 1));
  system::Timeline tl = system::simulate(c, s);
  EXPECT_LT(tl.entries[2].end, 2e-3);
  EXPECT_GT(tl.totalSeconds, 10e-3);
  s.ops[2].stream = 0; // the legacy stream: everything before
  EXPECT_GT(system::simulate(c, s).entries[2].end, 11e-3);
}

TEST(SystemModel, SessionsThatCannotRunAreRefused) {
  const system::SystemConfig c = configFor("H100");
  Session forward;
  forward.ops.push_back(marker(OpKind::StreamWaitEvent, 2, 1));
  forward.ops.push_back(marker(OpKind::EventRecord, 1));
  EXPECT_THROW(system::simulate(c, forward), std::invalid_argument);
  Session notARecord;
  notARecord.ops.push_back(kernel(1e-3, 1));
  notARecord.ops.push_back(marker(OpKind::StreamWaitEvent, 2, 0));
  EXPECT_THROW(system::simulate(c, notARecord), std::invalid_argument);
  Session nan;
  nan.ops.push_back(kernel(std::nan(""), 1));
  EXPECT_THROW(system::simulate(c, nan), std::invalid_argument);
}

TEST(SystemModel, KernelsShareTheSmsInLaunchOrder) {
  const system::SystemConfig c = configFor("H100");
  auto ends = [&](double share) {
    Session s;
    s.ops.push_back(kernel(1e-3, 1, share));
    s.ops.push_back(kernel(1e-3, 2, share));
    system::Timeline tl = system::simulate(c, s);
    return std::pair{tl.entries[0].end, tl.entries[1].end};
  };
  // Two half-GPU kernels run side by side; two full-GPU ones one after the other, the first keeping
  // its SMs.
  auto [a, b] = ends(0.5);
  EXPECT_NEAR(a, 1e-3, 0.02e-3);
  EXPECT_NEAR(b, 1e-3, 0.02e-3);
  auto [x, y] = ends(1.0);
  EXPECT_NEAR(x, 1e-3, 0.02e-3);
  EXPECT_NEAR(y, 2e-3, 0.02e-3);
}

/// validation/system's overlap run on the H200: 2 x 128 MiB in (4.85 ms), the kernel (4.85 ms), 128 MiB
/// out (2.43 ms), over 1, 2, 4 and 8 streams issued one after another.
TEST(SystemModel, MeasuredCopyComputeOverlapOnTheH200) {
  const system::SystemConfig c = configFor("H200");
  const double kernelSeconds = 4.85e-3;
  const uint64_t array = uint64_t{128} << 20;
  const std::pair<int, double> measured[] = {{1, 12.14e-3}, {2, 8.53e-3}, {4, 6.83e-3}, {8, 6.15e-3}};
  for (auto [streams, total] : measured) {
    Session s;
    for (int i = 0; i < streams; ++i) {
      unsigned stream = static_cast<unsigned>(i + 1);
      s.ops.push_back(copy(OpKind::CopyH2D, array / streams, stream));
      s.ops.push_back(copy(OpKind::CopyH2D, array / streams, stream));
      s.ops.push_back(kernel(kernelSeconds / streams, stream));
      s.ops.push_back(copy(OpKind::CopyD2H, array / streams, stream));
    }
    s.ops.push_back(marker(OpKind::Synchronize, 0));
    EXPECT_NEAR(system::simulate(c, s).totalSeconds, total, total * 0.08) << streams << " streams";
  }
}

/// validation/system/results/pitch2d-near.json (H200, 16 MiB H2D, pinned): where 2D copies of short
/// host rows slow down. A pitch up to 8 x the width is free; the cost grows from there and is whole
/// from a 64 KiB pitch on.
TEST(SystemModel, GappedHostRowsSlowDownFromEightTimesTheirWidth) {
  const system::SystemConfig c = configFor("H200");
  auto rate = [&](uint64_t width, uint64_t pitch, uint64_t rows) {
    Session s;
    SessionOp op = copy(OpKind::CopyH2D, width * rows, 1);
    op.rows = rows;
    op.hostPitch = pitch;
    op.devicePitch = width;
    s.ops = {op};
    const system::Timeline tl = system::simulate(c, s);
    return static_cast<double>(width * rows) / (tl.entries[0].end - tl.entries[0].start) / 1e9;
  };
  // (width, host pitch, rows, measured GB/s): the "cases" and "ratio_sweep" H2D rows of the file.
  const std::tuple<uint64_t, uint64_t, uint64_t, double> measured[] = {
      {256, 512, 65536, 54.6},    {256, 2048, 65536, 54.4},   {256, 3072, 65536, 49.3},   {256, 4096, 65536, 45.6},
      {256, 4352, 65536, 42.9},   {256, 16640, 64527, 29.4},  {256, 65536, 16384, 18.5},  {1024, 8192, 16384, 54.5},
      {1024, 12288, 16384, 49.4}, {1024, 16384, 16384, 45.6}, {1024, 17408, 16384, 42.6}, {1024, 65536, 16384, 27.7},
      {4096, 32768, 4096, 54.5},  {4096, 40960, 4096, 48.5},  {4096, 57344, 4096, 40.1},  {4096, 65536, 4096, 33.8},
      {4096, 262144, 4096, 33.4}, {65536, 262144, 256, 54.5},
  };
  for (auto [width, pitch, rows, gbps] : measured)
    EXPECT_NEAR(rate(width, pitch, rows), gbps, gbps * 0.1) << width << " B rows, " << pitch << " B apart";
  // Rows of 8 to 64 KiB (not measured) ramp over one doubling from 8 x their width: no step.
  const double at8x = rate(16384, 131072, 256), justOver = rate(16384, 131328, 256), at16x = rate(16384, 262144, 256);
  EXPECT_NEAR(justOver, at8x, at8x * 0.01);
  EXPECT_LT(at16x, at8x * 0.8);
}

// ---- Several devices ([KTG] §1.4.7, §1.4.8)

SessionOp on(unsigned device, SessionOp op) {
  op.device = device;
  return op;
}
SessionOp peer(unsigned from, unsigned to, uint64_t bytes, unsigned stream) {
  SessionOp op = copy(OpKind::CopyPeer, bytes, stream);
  op.device = from;
  op.fromDevice = from;
  op.toDevice = to;
  return op;
}
system::SystemOptions boards(int count) {
  system::SystemOptions o;
  o.boards = count;
  return o;
}
/// The time of one operation in `tl`.
double span(const system::Timeline &tl, size_t op) {
  return tl.entries[op].end - tl.entries[op].start;
}

TEST(SystemModel, DualGpuBoardsAreTwoDevicesOnOneLink) {
  const system::SystemConfig k80 = configFor("K80");
  EXPECT_EQ(k80.devices(), 2);
  EXPECT_EQ(k80.gpusPerBoard, 2);
  EXPECT_EQ(configFor("K10").devices(), 2);
  EXPECT_EQ(configFor("K40").devices(), 1);
  EXPECT_EQ(configFor("K40", boards(4)).devices(), 4);
  EXPECT_EQ(configFor("K80", boards(2)).devices(), 4);
  EXPECT_THROW(configFor("K40", boards(0)), std::invalid_argument);
  EXPECT_THROW(configFor("K40", boards(system::kMaxBoards + 1)), std::invalid_argument);
}

TEST(SystemModel, TheGpusOfOneBoardShareItsHostLink) {
  // 64 MiB to each GPU at once: on a K80 the two copies share the board's x16 link and take twice as
  // long as one; on two K40 boards each has its own link (measured on two H200s: 55 GB/s each at once).
  // To one GPU and from the other at once: the two directions of the K80's one link, each at the
  // measured duplex share (one H200 both ways: 101 GB/s against 55 one way); two links, full speed.
  const double duplex = arch::hostCosts().duplexBandwidthFraction;
  for (auto [arch, options, slowdown, opposite] :
       {std::tuple{"K80", system::SystemOptions{}, 2.0, 1 / duplex}, std::tuple{"K40", boards(2), 1.0, 1.0}}) {
    const system::SystemConfig c = configFor(arch, options);
    Session alone, both;
    alone.ops = {on(0, copy(OpKind::CopyH2D, 64 << 20, 1)), marker(OpKind::Synchronize, 0)};
    both.ops = {on(0, copy(OpKind::CopyH2D, 64 << 20, 1)), on(1, copy(OpKind::CopyH2D, 64 << 20, 1)),
                on(0, marker(OpKind::Synchronize, 0)), on(1, marker(OpKind::Synchronize, 0))};
    const system::Timeline one = system::simulate(c, alone), two = system::simulate(c, both);
    EXPECT_NEAR(span(two, 0), span(one, 0) * slowdown, span(one, 0) * 0.02) << arch;
    EXPECT_NEAR(span(two, 1), span(one, 0) * slowdown, span(one, 0) * 0.02) << arch;
    Session ways;
    ways.ops = {on(0, copy(OpKind::CopyH2D, 64 << 20, 1)), on(1, copy(OpKind::CopyD2H, 64 << 20, 1)),
                on(0, marker(OpKind::Synchronize, 0)), on(1, marker(OpKind::Synchronize, 0))};
    const system::Timeline o = system::simulate(c, ways);
    EXPECT_NEAR(span(o, 0), span(one, 0) * opposite, span(one, 0) * 0.02) << arch;
    EXPECT_NEAR(span(o, 1), span(one, 0) * opposite, span(one, 0) * 0.02) << arch;
  }
}

TEST(SystemModel, TheHostMovesAbout150GBpsInAll) {
  // validation/system/results/multigpu.json, two H200s: H2D to both at once 55 GB/s each; H2D and D2H
  // on both at once (four copies) 152.7 GB/s in all; one GPU both ways 101 GB/s.
  const system::SystemConfig c = configFor("H200", boards(2));
  const uint64_t bytes = uint64_t{256} << 20;
  auto total = [&](std::vector<SessionOp> copies) {
    Session s;
    s.ops = copies;
    s.ops.push_back(on(0, marker(OpKind::Synchronize, 0)));
    s.ops.push_back(on(1, marker(OpKind::Synchronize, 0)));
    const system::Timeline tl = system::simulate(c, s);
    double last = 0;
    for (size_t i = 0; i < copies.size(); ++i)
      last = std::max(last, tl.entries[i].end);
    return static_cast<double>(bytes * copies.size()) / last / 1e9;
  };
  EXPECT_NEAR(total({on(0, copy(OpKind::CopyH2D, bytes, 1)), on(1, copy(OpKind::CopyH2D, bytes, 1))}), 110, 3);
  EXPECT_NEAR(total({on(0, copy(OpKind::CopyH2D, bytes, 1)), on(0, copy(OpKind::CopyD2H, bytes, 2))}), 101.1, 3);
  EXPECT_NEAR(total({on(0, copy(OpKind::CopyH2D, bytes, 1)), on(0, copy(OpKind::CopyD2H, bytes, 2)),
                     on(1, copy(OpKind::CopyH2D, bytes, 1)), on(1, copy(OpKind::CopyD2H, bytes, 2))}),
              152.7, 4);
}

TEST(SystemModel, PeerCopiesOnABoardRunAtItsSwitchSpeedWhateverTheHost) {
  // [KTG] §1.4.8 note: the GPUs of a K80 exchange data at PCIe 3.0 speed even in a PCIe 2.0 host.
  const system::SystemConfig gen2 = configFor("K80", pcieGeneration(2));
  EXPECT_EQ(gen2.link->generation, 2);
  const uint64_t bytes = 64 << 20;
  Session s;
  s.ops = {peer(0, 1, bytes, 1), marker(OpKind::Synchronize, 0), copy(OpKind::CopyH2D, bytes, 2),
           marker(OpKind::Synchronize, 0)};
  const system::Timeline tl = system::simulate(gen2, s);
  const double setup = gen2.costs.copyEngineSetupSeconds;
  const double gen3 = arch::PcieLink{3, 16}.pinnedBytesPerSecond();
  EXPECT_NEAR(static_cast<double>(bytes) / (span(tl, 0) - setup) / 1e9, gen3 / 1e9, 0.05);
  EXPECT_NEAR(static_cast<double>(bytes) / (span(tl, 2) - setup) / 1e9, 6.4, 0.05); // the host's Gen2 link
  EXPECT_EQ(tl.peer.operations, 1u);
  EXPECT_EQ(tl.peer.bytes, bytes);
  // Between two single-GPU boards the bytes cross the host: its link's rate, up one and down the other.
  const system::SystemConfig two = configFor("K40", boards(2));
  Session across;
  across.ops = {peer(0, 1, bytes, 1), marker(OpKind::Synchronize, 0)};
  const system::Timeline x = system::simulate(two, across);
  EXPECT_NEAR(static_cast<double>(bytes) / (span(x, 0) - setup), two.hostPeerBytesPerSecond,
              two.hostPeerBytesPerSecond * 0.01);
}

TEST(SystemModel, APeerCopySharesTheReceivingGpusSwitchPort) {
  // On a K80 in a Gen3 host: H2D to GPU 1 and a peer copy GPU 0 -> 1 both enter GPU 1's port.
  const system::SystemConfig c = configFor("K80");
  const uint64_t bytes = 64 << 20;
  Session alone, shared;
  alone.ops = {on(1, copy(OpKind::CopyH2D, bytes, 1)), on(1, marker(OpKind::Synchronize, 0))};
  shared.ops = {on(1, copy(OpKind::CopyH2D, bytes, 1)), peer(0, 1, bytes, 1), on(1, marker(OpKind::Synchronize, 0)),
                marker(OpKind::Synchronize, 0)};
  const double one = span(system::simulate(c, alone), 0);
  const system::Timeline tl = system::simulate(c, shared);
  EXPECT_NEAR(span(tl, 0), 2 * one, one * 0.03);
  EXPECT_NEAR(span(tl, 1), 2 * one, one * 0.03);
}

TEST(SystemModel, DevicesRunKernelsAndStreamsApart) {
  // Two GK104s of a K10: each has its own single hardware queue and SMs, so a kernel on each runs at
  // once, and device 0's synchronize does not wait for device 1's work.
  const system::SystemConfig k10 = configFor("K10");
  Session s;
  s.ops = {on(0, kernel(1e-3, 0)), on(1, kernel(3e-3, 0)), on(0, marker(OpKind::Synchronize, 0)),
           on(1, marker(OpKind::Synchronize, 0))};
  const system::Timeline tl = system::simulate(k10, s);
  EXPECT_LT(tl.entries[1].start, tl.entries[0].end); // side by side
  EXPECT_NEAR(span(tl, 1), 3e-3, 1e-9);              // no sharing of SMs across devices
  EXPECT_LT(tl.entries[2].end, tl.entries[1].end);   // device 0's wait ends first
  EXPECT_GE(tl.entries[3].end, tl.entries[1].end);   // device 1's after its kernel
  EXPECT_EQ(tl.peakConcurrentKernels, 1);            // per device
  // Split over both GPUs, the work takes about half the one-queue run: the overlap counts devices.
  EXPECT_NEAR(tl.overlapFraction,
              1 - tl.totalSeconds / (4e-3 + 2 * k10.costs.syncSeconds + 2 * k10.costs.launchIssueSeconds), 0.05);
  EXPECT_GT(tl.overlapFraction, 0.2);
}

TEST(SystemModel, APeerCopyOnTheLegacyStreamOrdersBothDevices) {
  // cudaMemcpyPeer from device 0 into device 1, then a kernel on device 1 and its synchronize: the
  // kernel starts after the copy and the wait ends after both. cudaMemcpyPeerAsync on a stream orders
  // only that stream: device 1's kernel does not wait for it (a program needs an event).
  const system::SystemConfig k80 = configFor("K80");
  const uint64_t bytes = 16 << 20;
  Session s;
  s.ops = {peer(0, 1, bytes, 0), on(1, kernel(1e-5, 0)), on(1, marker(OpKind::Synchronize, 0))};
  system::Timeline tl = system::simulate(k80, s);
  EXPECT_GE(tl.entries[1].start, tl.entries[0].end);
  EXPECT_GE(tl.entries[2].end, tl.entries[1].end);
  s.ops[0].stream = 1;
  tl = system::simulate(k80, s);
  EXPECT_LT(tl.entries[1].start, tl.entries[0].end);
}

TEST(SystemModel, IntegratedGpusComeOneToAHost) {
  EXPECT_THROW(configFor("TK1", boards(2)), std::invalid_argument);
  EXPECT_EQ(configFor("TK1").devices(), 1);
}

TEST(SystemModel, SessionsOutsideTheSystemAreRefused) {
  const system::SystemConfig k40 = configFor("K40"), k80 = configFor("K80");
  Session s;
  s.ops = {on(1, kernel(1e-3, 0))};
  s.ops[0].where = "operations[0]";
  try {
    system::simulate(k40, s);
    FAIL() << "device 1 of one GPU";
  } catch (const std::invalid_argument &e) {
    EXPECT_STREQ(e.what(), "operations[0]: device 1 of a system of one GPU (1 board of 1 GPU; more boards: "
                           "--boards, or \"boards\" in the spec's \"host\")");
  }
  EXPECT_NO_THROW(system::simulate(k80, s));
  Session self;
  self.ops = {peer(1, 1, 1024, 1)};
  EXPECT_THROW(system::simulate(k80, self), std::invalid_argument);
  Session third;
  third.ops = {peer(0, 1, 1024, 1)};
  third.ops[0].device = 2;
  EXPECT_THROW(system::simulate(configFor("K80", boards(2)), third), std::invalid_argument);
}

// A call's work reaches the GPU at the end of the call (an event-timed launch includes it), a
// kernel's first launch also loads its code (lazy loading), a graph launch is one call for all of its
// work, and streams created non-blocking neither wait for the legacy stream nor hold it back.
TEST(SystemModel, IssueLoadingGraphsAndNonBlockingStreams) {
  const system::SystemConfig c = configFor("h200");
  const arch::HostCosts &k = c.costs;
  {
    Session s;
    s.ops = {marker(OpKind::EventRecord, 0), kernel(2e-6, 0), marker(OpKind::EventRecord, 0)};
    s.ops[1].loadSeconds = 50e-6;
    const system::Timeline t = system::simulate(c, s);
    EXPECT_NEAR(t.entries[1].start, k.launchIssueSeconds + 50e-6, 1e-12);
    EXPECT_NEAR(t.entries[2].end - t.entries[0].end, k.launchIssueSeconds + 50e-6 + 2e-6, 1e-12);
  }
  {
    // Ten kernels of one graph launch: one call, then back to back on the GPU.
    Session s;
    for (int i = 0; i < 10; ++i) {
      s.ops.push_back(kernel(1e-6, 1, 0.01));
      s.ops.back().graphNode = true;
      s.ops.back().graphLaunchCall = i == 0;
    }
    const system::Timeline t = system::simulate(c, s);
    EXPECT_NEAR(t.entries.back().end, k.launchIssueSeconds + 10e-6, 1e-12);
  }
  {
    // A kernel on the legacy stream, then one on a non-blocking stream: they overlap; on a blocking
    // stream the second waits.
    for (bool nonBlocking : {true, false}) {
      Session s;
      s.ops = {kernel(100e-6, 0, 0.1), kernel(100e-6, 1, 0.1)};
      s.ops[1].nonBlocking = nonBlocking;
      const system::Timeline t = system::simulate(c, s);
      if (nonBlocking)
        EXPECT_LT(t.entries[1].start, t.entries[0].end);
      else
        EXPECT_GE(t.entries[1].start, t.entries[0].end);
    }
  }
}

} // namespace
} // namespace ptxray::test
