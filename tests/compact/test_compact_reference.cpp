// The host references of compaction on small hand-checked cases (no GPU needed).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "scankit/compact_options.hpp"
#include "scankit/error.hpp"
#include "scankit/reference/compact_reference.hpp"

namespace {

using scankit::keep_in_range;
namespace ref = scankit::reference;

TEST(CompactReference, SelectIfKeepsOrder) {
  const std::vector<int> in = {5, -1, 7, 3, 9, 0, 2};
  std::vector<int> out(in.size(), -99);
  const auto c = ref::select_if(in.data(), out.data(), 7, keep_in_range<int>{0, 5});
  ASSERT_EQ(c, 4);
  EXPECT_EQ(std::vector<int>(out.begin(), out.begin() + c), (std::vector<int>{5, 3, 0, 2}));
  EXPECT_EQ(out[4], -99);
}

TEST(CompactReference, SelectIfInPlace) {
  std::vector<int> a = {1, 2, 3, 4, 5, 6};
  const auto c = ref::select_if(a.data(), a.data(), 6, [](int x) { return x % 2 == 0; });
  ASSERT_EQ(c, 3);
  EXPECT_EQ(a, (std::vector<int>{2, 4, 6, 4, 5, 6}));
}

TEST(CompactReference, NoneAllEmpty) {
  const std::vector<int> in = {1, 2, 3};
  std::vector<int> out(3, 0);
  EXPECT_EQ(ref::select_if(in.data(), out.data(), 3, keep_in_range<int>{1, 0}), 0);
  EXPECT_EQ(ref::select_if(in.data(), out.data(), 3, keep_in_range<int>{0, 9}), 3);
  EXPECT_EQ(out, in);
  EXPECT_EQ(ref::select_if(in.data(), out.data(), 0, keep_in_range<int>{0, 9}), 0);
  EXPECT_EQ(ref::unique(in.data(), out.data(), 0), 0);
}

TEST(CompactReference, KeepInRangeRejectsNan) {
  const keep_in_range<double> r{-1.0, 1.0};
  EXPECT_TRUE(r(-1.0));
  EXPECT_TRUE(r(1.0));
  EXPECT_FALSE(r(1.5));
  EXPECT_FALSE(r(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_FALSE(scankit::keep_not_nan<float>{}(std::numeric_limits<float>::quiet_NaN()));
  EXPECT_TRUE(scankit::keep_not_nan<float>{}(std::numeric_limits<float>::infinity()));
}

TEST(CompactReference, StencilAndFlags) {
  const std::vector<char> in = {'a', 'b', 'c', 'd'};
  const std::vector<float> stencil = {0.5f, std::nanf(""), 2.0f, 0.0f};
  std::vector<char> out(4, '?');
  ASSERT_EQ(ref::select_by_stencil(in.data(), stencil.data(), out.data(), 4, keep_in_range<float>{0.0f, 1.0f}), 2);
  EXPECT_EQ(out[0], 'a');
  EXPECT_EQ(out[1], 'd');
  const std::vector<std::uint8_t> flags = {0, 7, 1, 0};
  ASSERT_EQ(ref::select_flagged(in.data(), flags.data(), out.data(), 4), 2);
  EXPECT_EQ(out[0], 'b');
  EXPECT_EQ(out[1], 'c');
}

TEST(CompactReference, PartitionOneOutputReversesTheRejected) {
  const std::vector<int> in = {1, 8, 2, 9, 3, 7};
  std::vector<int> out(6, 0);
  const auto c = ref::partition_if(in.data(), out.data(), 6, keep_in_range<int>{0, 5});
  ASSERT_EQ(c, 3);
  EXPECT_EQ(out, (std::vector<int>{1, 2, 3, 7, 9, 8}));
}

TEST(CompactReference, PartitionTwoOutputsKeepsBothOrders) {
  const std::vector<int> in = {1, 8, 2, 9, 3, 7};
  std::vector<int> s(6, 0), r(6, 0);
  const auto c = ref::partition_if(in.data(), s.data(), r.data(), 6, keep_in_range<int>{0, 5});
  ASSERT_EQ(c, 3);
  EXPECT_EQ(std::vector<int>(s.begin(), s.begin() + 3), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(std::vector<int>(r.begin(), r.begin() + 3), (std::vector<int>{8, 9, 7}));
}

TEST(CompactReference, UniqueDropsConsecutiveDuplicatesOnly) {
  std::vector<int> a = {1, 1, 2, 2, 2, 1, 3, 3};
  const auto c = ref::unique(a.data(), a.data(), 8);  // in place
  ASSERT_EQ(c, 4);
  EXPECT_EQ(std::vector<int>(a.begin(), a.begin() + c), (std::vector<int>{1, 2, 1, 3}));
}

TEST(CompactReference, UniqueOnFloatsUsesOperatorEquals) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> in = {0.0, -0.0, nan, nan, 1.0};
  std::vector<double> out(5, 9.0);
  const auto c = ref::unique(in.data(), out.data(), 5);
  ASSERT_EQ(c, 4);  // -0.0 == 0.0 is dropped; NaN equals nothing, both kept
  EXPECT_TRUE(std::isnan(out[1]) && std::isnan(out[2]));
  EXPECT_EQ(out[3], 1.0);
}

TEST(CompactReference, UniqueWithUserEqualityAndByKey) {
  const std::vector<int> keys = {10, 12, 25, 27, 29, 31};
  const std::vector<char> values = {'a', 'b', 'c', 'd', 'e', 'f'};
  std::vector<int> ko(6, 0);
  std::vector<char> vo(6, '?');
  const auto same_decade = [](int x, int y) { return x / 10 == y / 10; };
  ASSERT_EQ(ref::unique(keys.data(), ko.data(), 6, same_decade), 3);
  EXPECT_EQ(std::vector<int>(ko.begin(), ko.begin() + 3), (std::vector<int>{10, 25, 31}));
  ASSERT_EQ(ref::unique_by_key(keys.data(), values.data(), ko.data(), vo.data(), 6, same_decade), 3);
  EXPECT_EQ(std::vector<char>(vo.begin(), vo.begin() + 3), (std::vector<char>{'a', 'c', 'f'}));
}

TEST(CompactOptions, StrategyNames) {
  using scankit::compact_strategy;
  for (compact_strategy s : {compact_strategy::automatic, compact_strategy::single_pass, compact_strategy::three_step}) {
    EXPECT_EQ(scankit::parse_compact_strategy(scankit::to_string(s)), s);
  }
  EXPECT_THROW(scankit::parse_compact_strategy("two_step"), scankit::error);
}

}  // namespace
