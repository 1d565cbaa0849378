// Which tuned digit pass a GPU runs (radix_pass_choice.cuh): the lean pass below the tuning
// table's bandwidth per multiprocessor, the tuned pass above it and when the driver reports none.
#include <gtest/gtest.h>

#include "scankit/device/sort/radix_pass_choice.cuh"

namespace {

using scankit::device_detail::lean_pass_for;
using scankit::device_detail::peak_gbps_per_sm;

TEST(SortPassChoice, BandwidthPerMultiprocessor) {
  // An H100 SXM: 2619 MHz HBM3 on a 5120-bit bus, 132 multiprocessors: 3.35 TB/s, 25.4 GB/s each.
  EXPECT_NEAR(peak_gbps_per_sm(2619000, 5120, 132), 25.4, 0.05);
  EXPECT_EQ(peak_gbps_per_sm(0, 5120, 132), 0.0);
  EXPECT_EQ(peak_gbps_per_sm(2619000, 0, 132), 0.0);
  EXPECT_EQ(peak_gbps_per_sm(2619000, 5120, 0), 0.0);
}

TEST(SortPassChoice, LeanBelowTheThreshold) {
  EXPECT_TRUE(lean_pass_for(peak_gbps_per_sm(2619000, 5120, 132)));  // H100 SXM
  EXPECT_FALSE(lean_pass_for(4800.0 / 132));                         // H200: 4.8 TB/s over 132
  EXPECT_FALSE(lean_pass_for(0.0));                                  // unknown: the tuned pass
}

}  // namespace
