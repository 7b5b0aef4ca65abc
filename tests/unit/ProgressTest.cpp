// The progress line's text (support/Progress.h): counts grouped as the reports group them, the
// percentage of blocks done, and a long kernel name shortened to the terminal's width.
#include "support/Progress.h"

#include <gtest/gtest.h>

namespace ptxray::support {
namespace {

TEST(ProgressTest, DescribesTheLaunchAndItsBlocks) {
  ProgressDisplay::Launch launch;
  launch.kernel = "matmul";
  launch.number = 3;
  launch.blocks = 4096;
  launch.blocksDone = 1234;
  EXPECT_EQ(ProgressDisplay::describe(launch, 0, 12.44, 0),
            "ptxray: launch 3 (matmul): 1,234 of 4,096 blocks (30%), 12.4 s");
  EXPECT_EQ(ProgressDisplay::describe(launch, 2, 1, 0),
            "ptxray: launch 3 (matmul): 1,234 of 4,096 blocks (30%), 1.0 s, 2 more launches running");
  launch.blocks = 1;
  launch.blocksDone = 1;
  EXPECT_EQ(ProgressDisplay::describe(launch, 1, 0, 0),
            "ptxray: launch 3 (matmul): 1 of 1 block (100%), 0.0 s, 1 more launch running");
}

TEST(ProgressTest, ShortensALongNameToTheWidth) {
  ProgressDisplay::Launch launch;
  launch.kernel = "void reduce<float, 256u, true>(float const*, float*, unsigned int)";
  launch.number = 12;
  launch.blocks = 100;
  launch.blocksDone = 50;
  const std::string line = ProgressDisplay::describe(launch, 0, 2.0, 60);
  EXPECT_EQ(line.size(), 60u);
  EXPECT_EQ(line, "ptxray: launch 12 (void r...): 50 of 100 blocks (50%), 2.0 s");
}

} // namespace
} // namespace ptxray::support
