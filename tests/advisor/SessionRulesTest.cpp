// The advisor on sessions (advisor/SessionRules.h): each rule fires on a session that shows its
// problem and stays silent on the fixed one, and its gain is the system model's re-run.
#include "advisor/SessionRules.h"
#include "arch/GpuDatabase.h"

#include "support/SystemConfigFor.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ptxray::test {
namespace {

using system::OpKind;
using system::Session;
using system::SessionOp;

SessionOp op(OpKind kind, unsigned stream, uint64_t bytes = 0, double kernelSeconds = 0, double share = 1,
             system::HostMemory memory = system::HostMemory::Pinned) {
  SessionOp o;
  o.kind = kind;
  o.stream = stream;
  o.bytes = bytes;
  o.kernelSeconds = kernelSeconds;
  o.gpuShare = share;
  o.hostMemory = memory;
  return o;
}

const advisor::Finding *find(const std::vector<advisor::Finding> &findings, std::string_view rule) {
  auto it = std::find_if(findings.begin(), findings.end(), [&](const advisor::Finding &f) { return f.rule == rule; });
  return it == findings.end() ? nullptr : &*it;
}

std::vector<advisor::Finding> advise(const std::string &arch, const Session &s) {
  return advisor::adviseSession(system::simulate(configFor(arch), s));
}

/// In, kernel, out on `streams` streams (each a slice), staggered.
Session pipeline(const system::SystemConfig &c, int streams, system::HostMemory memory, double phase) {
  Session s;
  const uint64_t bytes = static_cast<uint64_t>(phase * c.pinnedBytesPerSecond) / streams;
  for (int p = 0; p < streams + 2; ++p)
    for (int step = 0; step < 3; ++step)
      if (int unit = p - step; unit >= 0 && unit < streams) {
        unsigned stream = static_cast<unsigned>(unit + 1);
        s.ops.push_back(step == 0   ? op(OpKind::CopyH2D, stream, bytes, 0, 1, memory)
                        : step == 1 ? op(OpKind::Kernel, stream, 0, phase / streams)
                                    : op(OpKind::CopyD2H, stream, bytes, 0, 1, memory));
      }
  s.ops.push_back(op(OpKind::Synchronize, 0));
  return s;
}

TEST(SessionRules, PageableTransfers) {
  const system::SystemConfig c = configFor("K40");
  auto findings = advise("K40", pipeline(c, 2, system::HostMemory::Pageable, 5e-3));
  const advisor::Finding *f = find(findings, "pageable-transfers");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->priority, advisor::Priority::High);
  EXPECT_GT(f->gainFraction, 0.3); // 3.6 GB/s against 13.9 GB/s, and the host held
  EXPECT_EQ(find(advise("K40", pipeline(c, 2, system::HostMemory::Pinned, 5e-3)), "pageable-transfers"), nullptr);
}

TEST(SessionRules, NoOverlapOnOneStreamButNotWhenStaggered) {
  const system::SystemConfig c = configFor("K20X");
  const advisor::Finding *f = nullptr;
  auto one = advise("K20X", pipeline(c, 1, system::HostMemory::Pinned, 5e-3));
  f = find(one, "no-copy-compute-overlap");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->gainFraction, 2.0 / 3, 0.02); // three balanced phases: the bound is one of them
  EXPECT_EQ(find(advise("K20X", pipeline(c, 4, system::HostMemory::Pinned, 5e-3)), "no-copy-compute-overlap"), nullptr);
  // CC 1.0 cannot overlap: nothing to advise.
  const system::SystemConfig g80 = configFor("8800 GTX");
  EXPECT_EQ(find(advise("8800 GTX", pipeline(g80, 1, system::HostMemory::Pinned, 5e-3)), "no-copy-compute-overlap"),
            nullptr);
}

TEST(SessionRules, SmallTransfersAreBatched) {
  Session many, one;
  for (int i = 0; i < 256; ++i)
    many.ops.push_back(op(OpKind::CopyH2D, 1, 4096));
  many.ops.push_back(op(OpKind::Kernel, 1, 0, 1e-4));
  one.ops.push_back(op(OpKind::CopyH2D, 1, 256 * 4096));
  one.ops.push_back(op(OpKind::Kernel, 1, 0, 1e-4));
  auto findings = advise("H100", many);
  const advisor::Finding *f = find(findings, "small-transfers");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("256 small copies in 1 run"), std::string::npos) << f->title;
  EXPECT_GT(f->gainFraction, 0.8);
  EXPECT_EQ(find(advise("H100", one), "small-transfers"), nullptr);
}

TEST(SessionRules, SmallCopiesAreNotMergedAcrossStreamZero) {
  // Copies of stream 1 on either side of a stream-0 kernel: the later ones wait for it.
  Session s;
  for (int i = 0; i < 6; ++i)
    s.ops.push_back(op(OpKind::CopyD2H, 1, 4096));
  s.ops.push_back(op(OpKind::Kernel, 0, 0, 1e-3));
  for (int i = 0; i < 6; ++i)
    s.ops.push_back(op(OpKind::CopyD2H, 1, 4096));
  EXPECT_EQ(find(advise("H100", s), "small-transfers"), nullptr); // two runs of 6, under the 8 needed
  for (int i = 0; i < 6; ++i)
    s.ops.push_back(op(OpKind::CopyD2H, 1, 4096));
  const advisor::Finding *f = nullptr;
  auto findings = advise("H100", s);
  f = find(findings, "small-transfers");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("12 small copies in 1 run"), std::string::npos) << f->title;
}

TEST(SessionRules, GappedHostRows) {
  // 16 MiB as 65536 rows of 256 B from a host buffer with a 64 KiB pitch, then a kernel.
  Session s;
  SessionOp copy = op(OpKind::CopyH2D, 1, 16 << 20);
  copy.rows = 65536;
  copy.hostPitch = 65536;
  s.ops.push_back(copy);
  s.ops.push_back(op(OpKind::Kernel, 1, 0, 1e-4));
  const system::Timeline tl = system::simulate(configFor("H200"), s);
  // validation/system/results/pitch2d.json: 18.6 GB/s for 256 B rows at a 64 KiB host pitch.
  EXPECT_NEAR((16 << 20) / (tl.entries[0].end - tl.entries[0].start) / 1e9, 18.6, 2.5);
  auto findings = advisor::adviseSession(tl);
  const advisor::Finding *f = find(findings, "gapped-host-rows");
  ASSERT_NE(f, nullptr);
  EXPECT_GT(f->gainFraction, 0.5);
  // The host rows packed (pitch = width), or 64 KiB rows: full speed, nothing to say.
  s.ops[0].hostPitch = 256;
  EXPECT_EQ(find(advise("H200", s), "gapped-host-rows"), nullptr);
  s.ops[0].rows = 256;
  s.ops[0].hostPitch = 131072;
  EXPECT_EQ(find(advise("H200", s), "gapped-host-rows"), nullptr);
}

TEST(SessionRules, SerializedStreams) {
  auto session = [](int streams, bool depthFirst) {
    Session s;
    for (int k = 0; k < 2 * streams; ++k) {
      const int stream = depthFirst ? k / 2 : k % streams;
      s.ops.push_back(op(OpKind::Kernel, static_cast<unsigned>(stream + 1), 0, 10e-3, 0.001));
    }
    return s;
  };
  // GK104: one queue; breadth-first issue recovers 9 kernel times to 2.
  const advisor::Finding *f = nullptr;
  auto gk104 = advise("GTX 680", session(8, true));
  f = find(gk104, "serialized-streams");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->gainFraction, 7.0 / 9, 0.02);
  EXPECT_NE(f->fix.find("breadth-first"), std::string::npos);
  EXPECT_EQ(find(advise("GTX 680", session(8, false)), "serialized-streams"), nullptr);
  // GK110 and later: 32 streams on the default 8 connections; more connections fix it too.
  auto h200 = advise("H200", session(32, true));
  f = find(h200, "serialized-streams");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->gainFraction, 3.0 / 5, 0.03);
  EXPECT_EQ(find(advise("H200", session(8, true)), "serialized-streams"), nullptr);
}

TEST(SessionRules, TransfersDominate) {
  Session s;
  s.ops.push_back(op(OpKind::CopyH2D, 1, 256 << 20));
  s.ops.push_back(op(OpKind::Kernel, 1, 0, 1e-3));
  s.ops.push_back(op(OpKind::CopyD2H, 1, 256 << 20));
  const advisor::Finding *f = nullptr;
  auto findings = advise("K20X", s);
  f = find(findings, "transfers-dominate");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->priority, advisor::Priority::High);
  Session computeBound = s;
  computeBound.ops[1].kernelSeconds = 1;
  EXPECT_EQ(find(advise("K20X", computeBound), "transfers-dominate"), nullptr);
}

TEST(SessionRules, CatalogueIsConsistent) {
  for (const advisor::SessionRuleInfo &r : advisor::sessionRules()) {
    EXPECT_FALSE(r.guide.empty()) << r.id;
    EXPECT_FALSE(r.summary.empty()) << r.id;
  }
  EXPECT_EQ(advisor::sessionRules().size(), 7u);
}

TEST(SessionRules, IdleDevices) {
  // Two streams of 1 ms kernels on a K80 whose second GPU does nothing: spread over both devices, the
  // kernels run side by side (about half the time). A K40 has no second device; work already on both
  // says nothing.
  Session s;
  for (unsigned stream : {1u, 2u})
    s.ops.push_back(op(OpKind::Kernel, stream, 0, 1e-3));
  s.ops.push_back(op(OpKind::Synchronize, 0));
  const advisor::Finding *f = nullptr;
  auto findings = advise("K80", s);
  f = find(findings, "idle-devices");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("1 of the system's 2 GPUs"), std::string::npos) << f->title;
  EXPECT_NEAR(f->gainSeconds, 1e-3, 0.1e-3);
  EXPECT_EQ(find(advise("K40", s), "idle-devices"), nullptr);
  Session both = s;
  both.ops[1].device = 1;
  EXPECT_EQ(find(advise("K80", both), "idle-devices"), nullptr);
  // One stream: nothing to spread; the bound is half the kernels' time.
  Session one;
  one.ops = {op(OpKind::Kernel, 0, 0, 2e-3), op(OpKind::Synchronize, 0)};
  findings = advise("K80", one);
  f = find(findings, "idle-devices");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->gainSeconds, 1e-3, 1e-9);
  EXPECT_NE(f->evidence.find("bound"), std::string::npos) << f->evidence;
}

} // namespace
} // namespace ptxray::test
