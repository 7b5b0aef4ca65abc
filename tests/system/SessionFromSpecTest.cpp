// A run spec's operations as a session: kinds, devices and peer copies (session/SessionFromSpec.h).
#include "session/SessionFromSpec.h"

#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

using system::OpKind;

TEST(SessionFromSpec, CopiesBetweenDevicesArePeerCopies) {
  const session::RunSpec spec = session::parseRunSpecText(
      R"({"module": "m.ptx",
          "buffers": [{"name": "h", "bytes": 64, "host": "pageable"}, {"name": "a", "bytes": 64},
                      {"name": "b", "bytes": 64, "device": 1}, {"name": "c", "bytes": 64, "device": 1}],
          "operations": [{"op": "memcpy_h2d", "dst": "b", "src": "h", "stream": 3},
                         {"op": "memcpy_d2d", "dst": "b", "src": "a"},
                         {"op": "memcpy_d2d", "dst": "a", "src": "b", "device": 0},
                         {"op": "memcpy_d2d", "dst": "c", "src": "b"},
                         {"op": "memcpy2d", "dst": "b", "src": "a", "width": 16, "height": 4,
                          "dst_pitch": 16, "src_pitch": 16},
                         {"op": "memcpy_d2h", "dst": "h", "src": "c"},
                         {"op": "synchronize", "device": 1}]})",
      "spec.json", ".");
  const system::Session s = session::sessionFromSpec(spec, {}, 13);
  ASSERT_EQ(s.ops.size(), 7u);
  const OpKind kinds[] = {OpKind::CopyH2D,  OpKind::CopyPeer, OpKind::CopyPeer,   OpKind::CopyD2D,
                          OpKind::CopyPeer, OpKind::CopyD2H,  OpKind::Synchronize};
  const unsigned devices[] = {1, 0, 0, 1, 0, 1, 1};
  for (size_t i = 0; i < s.ops.size(); ++i) {
    EXPECT_EQ(s.ops[i].kind, kinds[i]) << i;
    EXPECT_EQ(s.ops[i].device, devices[i]) << i;
  }
  EXPECT_EQ(s.ops[0].stream, 3u);
  EXPECT_EQ(s.ops[0].hostMemory, system::HostMemory::Pageable);
  EXPECT_EQ(s.ops[1].fromDevice, 0u);
  EXPECT_EQ(s.ops[1].toDevice, 1u);
  EXPECT_EQ(s.ops[2].fromDevice, 1u); // a -> b's reverse, on device 0's stream
  EXPECT_EQ(s.ops[2].toDevice, 0u);
  EXPECT_EQ(s.ops[4].bytes, 64u);
  EXPECT_EQ(s.ops[6].label, "device 1");
}

} // namespace
} // namespace ptxray::test
