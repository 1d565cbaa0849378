// Host tests (no GPU): the segmented operators, the segmented-scan reference and the arg-min /
// arg-max operators that the GPU tests and kernels share.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "scankit/operators.hpp"
#include "scankit/reduce_operators.hpp"
#include "scankit/reference/segmented_scan_reference.hpp"
#include "scankit/segmented_operators.hpp"

namespace scankit {
namespace {

// (f o g) for affine maps x -> a x + b mod 2^32: associative, not commutative.
struct affine {
  std::uint32_t a, b;
};
struct compose {
  affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};
bool operator==(const affine& x, const affine& y) { return x.a == y.a && x.b == y.b; }

TEST(SegmentedOperator, IsAssociativeForANonCommutativeOperator) {
  std::mt19937_64 rng(7);
  const segmented_op<compose> op{};
  const counting_segmented_op<compose> counting{};
  for (int trial = 0; trial < 10000; ++trial) {
    segment_item<affine> x[3];
    for (auto& item : x) item = {{static_cast<std::uint32_t>(rng()) | 1u, static_cast<std::uint32_t>(rng())},
                                 static_cast<std::uint32_t>(rng() % 3 == 0)};
    const auto left = op(op(x[0], x[1]), x[2]), right = op(x[0], op(x[1], x[2]));
    ASSERT_TRUE(left.value == right.value && left.head == right.head) << "trial " << trial;
    const auto cl = counting(counting(x[0], x[1]), x[2]), cr = counting(x[0], counting(x[1], x[2]));
    ASSERT_TRUE(cl.value == cr.value && cl.head == cr.head) << "trial " << trial;
    ASSERT_EQ(x[0].head + x[1].head + x[2].head, cl.head);
  }
}

TEST(SegmentedReference, InclusiveAndExclusiveRestartAtHeads) {
  const std::vector<int> values{1, 2, 3, 4, 5, 6};
  const std::vector<unsigned char> heads{0, 0, 1, 0, 1, 1};  // item 0 starts a segment regardless
  EXPECT_EQ((std::vector<int>{1, 3, 3, 7, 5, 6}), reference::inclusive_segmented_scan(values, heads, plus_op{}));
  EXPECT_EQ((std::vector<int>{10, 11, 10, 13, 10, 10}),
            reference::exclusive_segmented_scan(values, heads, 10, plus_op{}));
  EXPECT_EQ((std::vector<unsigned char>{1, 0, 1, 1, 0}),
            reference::key_change_heads(std::vector<int>{4, 4, 5, 4, 4}, equal_to_op{}));
}

TEST(SegmentedReference, MatchesAPlainScanOfPairs) {
  std::mt19937_64 rng(11);
  std::vector<affine> values(500);
  std::vector<unsigned char> heads(500);
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = {static_cast<std::uint32_t>(rng()) | 1u, static_cast<std::uint32_t>(rng())};
    heads[i] = rng() % 7 == 0;
  }
  const auto expected = reference::inclusive_segmented_scan(values, heads, compose{});
  segment_item<affine> running{values[0], 1};
  const segmented_op<compose> op{};
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) running = op(running, {values[i], heads[i]});
    ASSERT_TRUE(expected[i] == running.value) << "item " << i;
  }
}

TEST(ArgOperators, FirstOccurrenceAndNans) {
  using iv = indexed_value<float>;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(3, (arg_min_op{}(iv{5, 1.0f}, iv{3, 1.0f}).index));  // ties: the lower index, either order
  EXPECT_EQ(3, (arg_min_op{}(iv{3, 1.0f}, iv{5, 1.0f}).index));
  EXPECT_EQ(5, (arg_min_op{}(iv{3, 2.0f}, iv{5, 1.0f}).index));
  EXPECT_EQ(3, (arg_max_op{}(iv{3, 2.0f}, iv{5, 1.0f}).index));
  EXPECT_EQ(9, (arg_min_op{}(iv{3, -1.0f}, iv{9, nan}).index));  // a NaN beats every number
  EXPECT_EQ(9, (arg_max_op{}(iv{9, nan}, iv{3, 5.0f}).index));
  EXPECT_EQ(4, (arg_max_op{}(iv{9, nan}, iv{4, -nan}).index));   // NaNs: the lower index
  EXPECT_EQ(2, (arg_min_op{}(iv{2, -0.0f}, iv{7, 0.0f}).index));   // -0.0 == +0.0
  EXPECT_TRUE(is_commutative<arg_min_op>::value && is_commutative<plus_op>::value);
  EXPECT_FALSE(is_commutative<compose>::value);
}

TEST(ArgOperators, AnyGroupingFindsTheFirstMinimum) {
  std::mt19937_64 rng(5);
  std::vector<indexed_value<int>> items(64);
  for (std::size_t i = 0; i < items.size(); ++i) items[i] = {static_cast<std::int64_t>(i), static_cast<int>(rng() % 4)};
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<indexed_value<int>> shuffled = items;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    indexed_value<int> best = shuffled[0];
    for (std::size_t i = 1; i < shuffled.size(); ++i) best = arg_min_op{}(best, shuffled[i]);
    const auto first = std::min_element(items.begin(), items.end(),
                                        [](const auto& a, const auto& b) { return a.value < b.value; });
    ASSERT_EQ(first->index, best.index);
  }
}

}  // namespace
}  // namespace scankit
