// The per-device answers that the launch paths keep (per_device.hpp): asked once per device
// ordinal, asked every time beyond the cached ordinals, yes and no both kept.
#include <gtest/gtest.h>

#include "scankit/device/util/per_device.hpp"

namespace {

using scankit::device_detail::cached_devices;
using scankit::device_detail::per_device;
using scankit::device_detail::per_device_flag;

TEST(PerDevice, AsksOncePerDevice) {
  per_device<long long> blocks;
  int asked = 0;
  const auto ask_for = [&asked](int device) {
    return [&asked, device] {
      ++asked;
      return 100LL + device;
    };
  };
  EXPECT_EQ(blocks.known(3), 0);
  EXPECT_EQ(blocks.get(3, ask_for(3)), 103);
  EXPECT_EQ(blocks.get(3, ask_for(3)), 103);
  EXPECT_EQ(blocks.get(0, ask_for(0)), 100);
  EXPECT_EQ(asked, 2);
  EXPECT_EQ(blocks.known(3), 103);
  EXPECT_EQ(blocks.known(1), 0);
}

TEST(PerDevice, OrdinalsOutsideTheCacheAskEveryTime) {
  per_device<int> answers;
  int asked = 0;
  const auto ask = [&asked] { return ++asked; };
  answers.get(-1, ask);
  answers.get(-1, ask);
  answers.get(cached_devices, ask);
  answers.get(cached_devices, ask);
  EXPECT_EQ(asked, 4);
  answers.remember(cached_devices, 7);
  EXPECT_EQ(answers.known(cached_devices), 0);
  answers.get(cached_devices - 1, ask);
  answers.get(cached_devices - 1, ask);
  EXPECT_EQ(asked, 5);
}

TEST(PerDevice, FlagKeepsNoAsWellAsYes) {
  per_device_flag flag;
  int asked = 0;
  EXPECT_FALSE(flag.get(2, [&asked] { ++asked; return false; }));
  EXPECT_FALSE(flag.get(2, [&asked] { ++asked; return true; }));
  EXPECT_TRUE(flag.get(5, [&asked] { ++asked; return true; }));
  EXPECT_TRUE(flag.get(5, [&asked] { ++asked; return false; }));
  EXPECT_EQ(asked, 2);
}

}  // namespace
