// The radix sort's digit passes with digits wider than 8 bits (9 to 11: several digits per
// thread, 16-bit per-warp counters, the look-backs of a thread's digits walked in step), through
// the template API's own shapes: keys, pairs, argsort, 64-bit and float keys, descending order
// and bit ranges, both strategies, two buffers, a count in device memory, and more keys than one
// onesweep launch takes (a wide digit's launch holds fewer keys: its look-back state has more
// words per tile).
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "scankit/device/sort.cuh"
#include "sort_test_util.hpp"

namespace scankit::testing {
namespace {

using wide11 = device::sort_policy<384, 24, 11>;  // 2048 digits: 6 a thread; 32-bit keys in 3 passes
using wide10 = device::sort_policy<384, 18, 10>;  // 1024 digits: 3 a thread, the last thread 1

// Above the one-block sort's tile (those sizes never reach the digit passes), with partial tiles.
constexpr std::int64_t sizes[] = {16385, 70001, 1000003};

TEST(SortWideDigits, Keys) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : sizes) {
    for (key_pattern pattern : {key_pattern::uniform, key_pattern::few_distinct, key_pattern::sorted,
                                key_pattern::all_equal}) {
      const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, pattern, seed + n);
      device_buffer<std::uint32_t> in(keys), out(n);
      for (sort_strategy strategy : {sort_strategy::onesweep, sort_strategy::reduce_then_scan}) {
        SCOPED_TRACE(std::string(to_string(pattern)) + ", " + to_string(strategy) + ", n = " + std::to_string(n));
        sort_options options;
        options.strategy = strategy;
        out.poison();
        device::sort_keys<wide11>(in.data(), out.data(), n, nullptr, nullptr, options);
        ASSERT_TRUE(same_bits(reference::sort_keys(keys, options), out.download()));
      }
    }
  }
}

TEST(SortWideDigits, PairsDescendingInABitRange) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : sizes) {
    const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, key_pattern::few_distinct, seed + n);
    std::vector<std::uint32_t> values(n);
    std::iota(values.begin(), values.end(), 0u);
    device_buffer<std::uint32_t> ki(keys), ko(n), vi(values), vo(n);
    for (int end_bit : {32, 29}) {  // 29: bits [3, 29), three passes of 10, 10 and 6 bits
      sort_options options;
      options.order = sort_order::descending;
      if (end_bit != 32) {
        options.begin_bit = 3;
        options.end_bit = end_bit;
      }
      SCOPED_TRACE("end_bit " + std::to_string(end_bit) + ", n = " + std::to_string(n));
      ko.poison();
      vo.poison();
      device::sort_pairs<wide10>(ki.data(), ko.data(), vi.data(), vo.data(), n, nullptr, nullptr, options);
      const auto order = reference::argsort(keys, options);
      ASSERT_TRUE(same_bits(reference::permute(keys, order), ko.download()));
      ASSERT_TRUE(same_bits(reference::permute(values, order), vo.download()));
    }
  }
}

TEST(SortWideDigits, WideKeysAndFloatArgsort) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 300007;
  const std::vector<std::uint64_t> keys64 = make_keys<std::uint64_t>(n, key_pattern::uniform, seed);
  device_buffer<std::uint64_t> in64(keys64), out64(n);
  out64.poison();
  device::sort_keys<wide11>(in64.data(), out64.data(), n);  // six passes, the last of 9 bits
  ASSERT_TRUE(same_bits(reference::sort_keys(keys64), out64.download()));

  const std::vector<float> keys = make_keys<float>(n, key_pattern::uniform, seed + 1);  // NaNs, zeros, infinities
  device_buffer<float> in(keys), out(n);
  device_buffer<std::int32_t> indices(n);
  out.poison();
  indices.poison();
  device::argsort<wide11>(in.data(), out.data(), indices.data(), n);
  const auto order = reference::argsort(keys);
  ASSERT_TRUE(same_bits(reference::permute(keys, order), out.download()));
  const std::vector<std::int32_t> got = indices.download();
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(order[i], got[i]) << "at " << i;
}

TEST(SortWideDigits, TwoBuffersAndADeviceCount) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t bound = 200003, count = 123457;
  const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(bound, key_pattern::uniform, seed);
  std::vector<std::uint32_t> values(bound);
  std::iota(values.begin(), values.end(), 0u);
  for (int end_bit : {30, 32}) {
    // Bits [0, 30): three passes, the selectors flip to the alternate buffers; all 32: four.
    SCOPED_TRACE("end_bit " + std::to_string(end_bit));
    sort_options options;
    options.end_bit = end_bit;
    device_buffer<std::uint32_t> k0(keys), k1(bound), v0(values), v1(bound);
    double_buffer<std::uint32_t> kb(k0.data(), k1.data());
    double_buffer<std::uint32_t> vb(v0.data(), v1.data());
    device::sort_pairs<wide10>(kb, vb, bound, nullptr, nullptr, options);
    const bool flipped = end_bit == 30;
    ASSERT_EQ(kb.current(), flipped ? k1.data() : k0.data());
    ASSERT_EQ(vb.current(), flipped ? v1.data() : v0.data());
    const auto order = reference::argsort(keys, options);
    ASSERT_TRUE(same_bits(reference::permute(keys, order), (flipped ? k1 : k0).download()));
    ASSERT_TRUE(same_bits(reference::permute(values, order), (flipped ? v1 : v0).download()));
  }
  // The count in device memory: the items below it sorted, those past it untouched.
  device_buffer<std::int64_t> d_count(std::vector<std::int64_t>{count});
  device_buffer<std::uint32_t> ki(keys), ko(bound), vi(values), vo(bound);
  ko.poison();
  vo.poison();
  device::sort_pairs<wide10>(ki.data(), ko.data(), vi.data(), vo.data(), device_n{d_count.data(), bound});
  const std::vector<std::uint32_t> head(keys.begin(), keys.begin() + count);
  const auto order = reference::argsort(head);
  const std::vector<std::uint32_t> got_keys = ko.download(), got_values = vo.download();
  ASSERT_TRUE(same_bits(reference::permute(head, order),
                        std::vector<std::uint32_t>(got_keys.begin(), got_keys.begin() + count)));
  ASSERT_TRUE(same_bits(reference::permute(std::vector<std::uint32_t>(values.begin(), values.begin() + count), order),
                        std::vector<std::uint32_t>(got_values.begin(), got_values.begin() + count)));
  for (std::int64_t i = count; i < bound; ++i) {
    ASSERT_EQ(got_keys[i], 0xA5A5A5A5u) << "a key past the count at " << i;
    ASSERT_EQ(got_values[i], 0xA5A5A5A5u) << "a value past the count at " << i;
  }
}

// Two onesweep launches per pass (11-bit digits take about 2^25 keys a launch: the last tile of
// the first hands each digit's start to the second), against the 8-bit sort, which the other
// tests check against the host.
TEST(SortWideDigits, MoreKeysThanOneLaunch) {
  SCANKIT_REQUIRE_GPU();
  if (sort_small_sizes_only()) GTEST_SKIP() << "SCANKIT_TEST_SMALL";
  SCANKIT_SEEDED(seed);
  const std::int64_t n = (std::int64_t{1} << 25) + (std::int64_t{1} << 20) + 77;
  const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, key_pattern::few_distinct, seed);
  device_buffer<std::uint32_t> in(keys), out(n), expected(n);
  device::sort_keys(in.data(), expected.data(), n);
  out.poison();
  device::sort_keys<wide11>(in.data(), out.data(), n);
  ASSERT_TRUE(same_bits(expected.download(), out.download()));
}

}  // namespace
}  // namespace scankit::testing
