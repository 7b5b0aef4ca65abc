// The system model's stream order with thousands of streams and events (issue #31: legacy-stream
// work waited for every stream by a scan per operation, and kept every stream in its dependencies):
// the order the legacy stream, device synchronizations, peer copies and events impose, checked on
// sessions large enough that a scan per operation would show. Sessions are built by hand.
#include "arch/GpuDatabase.h"
#include "system/Timeline.h"

#include "support/SystemConfigFor.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ptxray::test {
namespace {

using system::OpKind;
using system::Session;
using system::SessionOp;

/// A kernel that takes a thousandth of the GPU: thousands of them could run side by side, so only
/// stream order holds one back.
SessionOp kernel(double seconds, unsigned stream, unsigned device = 0, bool nonBlocking = false) {
  SessionOp op;
  op.kind = OpKind::Kernel;
  op.kernelSeconds = seconds;
  op.gpuShare = 0.001;
  op.stream = stream;
  op.device = device;
  op.nonBlocking = nonBlocking;
  return op;
}
SessionOp marker(OpKind kind, unsigned stream, size_t event = system::kNoOp, unsigned device = 0) {
  SessionOp op;
  op.kind = kind;
  op.stream = stream;
  op.event = event;
  op.device = device;
  return op;
}

constexpr unsigned kStreams = 5000;

TEST(StreamScale, LegacyStreamWorkWaitsForEveryBlockingStreamOfThousands) {
  const system::SystemConfig c = configFor("H100");
  Session s;
  // Round 1: a short kernel on every stream, a long one on a stream in the middle; then the legacy
  // stream's kernel, which starts when that long one ends.
  for (unsigned k = 1; k <= kStreams; ++k)
    s.ops.push_back(kernel(k == kStreams / 2 ? 50e-3 : 1e-6, k));
  const size_t long1 = kStreams / 2 - 1, legacy1 = s.ops.size();
  s.ops.push_back(kernel(1e-6, 0));
  // Round 2: every stream's next kernel waits for the legacy one; the next legacy kernel for them all
  // (a long one again, on another stream).
  const size_t round2 = s.ops.size();
  for (unsigned k = 1; k <= kStreams; ++k)
    s.ops.push_back(kernel(k == kStreams / 3 ? 40e-3 : 1e-6, k));
  const size_t long2 = round2 + kStreams / 3 - 1, legacy2 = s.ops.size();
  s.ops.push_back(kernel(1e-6, 0));
  // A non-blocking stream's long kernel: later legacy work does not wait for it, nor does a
  // blocking stream's kernel after that; the device synchronization does.
  const size_t nonBlocking = s.ops.size();
  s.ops.push_back(kernel(200e-3, kStreams + 1, 0, true));
  const size_t legacy3 = s.ops.size();
  s.ops.push_back(kernel(1e-6, 0));
  const size_t after = s.ops.size();
  s.ops.push_back(kernel(1e-6, 7));
  const size_t sync = s.ops.size();
  s.ops.push_back(marker(OpKind::Synchronize, 0));

  const system::Timeline tl = system::simulate(c, s);
  ASSERT_EQ(tl.entries.size(), s.ops.size());
  // The long kernels are far longer than the host takes to issue everything: the legacy kernels
  // start exactly when the long kernel they wait for ends.
  EXPECT_DOUBLE_EQ(tl.entries[legacy1].start, tl.entries[long1].end);
  for (size_t i = round2; i < round2 + kStreams; ++i)
    ASSERT_GE(tl.entries[i].start, tl.entries[legacy1].end) << i;
  EXPECT_DOUBLE_EQ(tl.entries[legacy2].start, tl.entries[long2].end);
  for (size_t i = round2; i < round2 + kStreams; ++i)
    ASSERT_LE(tl.entries[i].end, tl.entries[legacy2].start) << i;
  EXPECT_LT(tl.entries[nonBlocking].start, tl.entries[legacy2].start); // it waits for no legacy work,
  EXPECT_LT(tl.entries[legacy3].end, tl.entries[nonBlocking].end);     // nor later legacy work for it
  EXPECT_GE(tl.entries[after].start, tl.entries[legacy3].end);
  EXPECT_LT(tl.entries[after].end, tl.entries[nonBlocking].end);
  EXPECT_DOUBLE_EQ(tl.entries[sync].end, tl.entries[nonBlocking].end + c.costs.syncSeconds);
}

TEST(StreamScale, WorkAfterAWaitForTheDeviceIsStillWaitedFor) {
  // A device synchronization, then a long kernel on one of thousands of streams: the next legacy
  // kernel, and the next stream synchronization of the legacy stream, wait for it.
  const system::SystemConfig c = configFor("H100");
  Session s;
  for (unsigned k = 1; k <= kStreams; ++k)
    s.ops.push_back(kernel(1e-6, k));
  s.ops.push_back(marker(OpKind::Synchronize, 0));
  const size_t longer = s.ops.size();
  s.ops.push_back(kernel(20e-3, kStreams));
  for (unsigned k = 1; k <= kStreams; k += 2)
    s.ops.push_back(kernel(1e-6, k));
  const size_t legacy = s.ops.size();
  s.ops.push_back(kernel(1e-6, 0));
  const size_t wait = s.ops.size();
  s.ops.push_back(marker(OpKind::StreamSynchronize, 0));
  const system::Timeline tl = system::simulate(c, s);
  EXPECT_DOUBLE_EQ(tl.entries[legacy].start, tl.entries[longer].end);
  EXPECT_DOUBLE_EQ(tl.entries[wait].end, tl.entries[legacy].end + c.costs.syncSeconds);
  // All of it is one chain of waits but for the kernels of one round, which are short.
  EXPECT_GT(tl.totalSeconds, 20e-3);
}

TEST(StreamScale, ALegacyPeerCopyWaitsForEveryStreamOfTheOtherDevice) {
  // Device 1 of a K80 has thousands of streams, a non-blocking one among them with a long kernel:
  // cudaMemcpyPeer (legacy stream of device 0) waits for all of device 1's streams, and device 1's
  // next legacy kernel and its streams' next kernels wait for the copy.
  const system::SystemConfig k80 = configFor("K80");
  Session s;
  for (unsigned k = 1; k <= kStreams; ++k)
    s.ops.push_back(kernel(1e-6, k, 1));
  const size_t longer = s.ops.size();
  s.ops.push_back(kernel(20e-3, kStreams + 1, 1, true));
  SessionOp copy;
  copy.kind = OpKind::CopyPeer;
  copy.bytes = 1 << 20;
  copy.fromDevice = 0;
  copy.toDevice = 1;
  const size_t peer = s.ops.size();
  s.ops.push_back(copy);
  const size_t legacy = s.ops.size();
  s.ops.push_back(kernel(1e-6, 0, 1));
  const size_t next = s.ops.size();
  s.ops.push_back(kernel(1e-6, 3, 1));
  s.ops.push_back(marker(OpKind::Synchronize, 0, system::kNoOp, 1));
  const system::Timeline tl = system::simulate(k80, s);
  EXPECT_GE(tl.entries[peer].start, tl.entries[longer].end);
  EXPECT_GE(tl.entries[legacy].start, tl.entries[peer].end);
  EXPECT_GE(tl.entries[next].start, tl.entries[legacy].end);
}

TEST(StreamScale, AChainOfManyEventsCarriesOneCompletion) {
  // A long kernel, then events recorded and waited for hopping across a thousand streams, then a
  // kernel on the last: every event completes when the long kernel does, and the last kernel starts
  // after it.
  const system::SystemConfig c = configFor("H100");
  constexpr unsigned kEvents = 50000, kHops = 1000;
  Session s;
  s.ops.push_back(kernel(10e-3, 1));
  for (unsigned e = 0; e < kEvents; ++e) {
    const size_t record = s.ops.size();
    s.ops.push_back(marker(OpKind::EventRecord, 1 + e % kHops));
    s.ops.push_back(marker(OpKind::StreamWaitEvent, 1 + (e + 1) % kHops, record));
  }
  const size_t last = s.ops.size();
  s.ops.push_back(kernel(1e-6, 1 + kEvents % kHops));
  const system::Timeline tl = system::simulate(c, s);
  for (size_t i = 1; i < last; ++i)
    ASSERT_EQ(tl.entries[i].end, tl.entries[0].end) << i;
  EXPECT_GE(tl.entries[last].start, tl.entries[0].end);
}

} // namespace
} // namespace ptxray::test
