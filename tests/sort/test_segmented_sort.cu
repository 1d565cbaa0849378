// The segmented sort's template API against a host reference (each segment sorted on its own by
// scankit::reference::argsort, stable): every size class and their limits, mixes of tiny, small,
// medium and huge segments, empty segments (runs of them, at both ends), items outside every
// segment (left as they were), both orders, a bit range, float keys with NaNs, int32 and int64
// offsets, and bad offsets (thrown before anything is written).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "scankit/device/segmented_sort.cuh"
#include "sort_test_util.hpp"

namespace scankit::testing {
namespace {

// Offsets of segments with these sizes, starting at `first` (items before it and after the last
// segment belong to no segment).
template <class Offset>
std::vector<Offset> offsets_of(const std::vector<std::int64_t>& sizes, std::int64_t first) {
  std::vector<Offset> offsets{static_cast<Offset>(first)};
  for (std::int64_t s : sizes) offsets.push_back(static_cast<Offset>(offsets.back() + s));
  return offsets;
}

// want = the poisoned output with each segment of `keys` (and `values`) sorted on its own.
template <class Key, class Value, class Offset>
void reference_segmented_sort(const std::vector<Key>& keys, const std::vector<Value>* values,
                              const std::vector<Offset>& offsets, const sort_options& options, std::vector<Key>& want_keys,
                              std::vector<Value>* want_values) {
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    const auto begin = static_cast<std::int64_t>(offsets[s]), end = static_cast<std::int64_t>(offsets[s + 1]);
    const std::vector<Key> segment(keys.begin() + begin, keys.begin() + end);
    const std::vector<std::int64_t> order = reference::argsort(segment, options);
    for (std::int64_t i = 0; i < end - begin; ++i) {
      want_keys[static_cast<std::size_t>(begin + i)] = segment[static_cast<std::size_t>(order[i])];
      if (values != nullptr) {
        (*want_values)[static_cast<std::size_t>(begin + i)] = (*values)[static_cast<std::size_t>(begin + order[i])];
      }
    }
  }
}

template <class T>
std::vector<T> poisoned(std::size_t n) {
  std::vector<T> v(n);
  std::memset(v.data(), 0xA5, n * sizeof(T));
  return v;
}

// Sorts keys (and int32 values: their input positions) in the segments of `sizes` and checks
// both against the reference; `lead` items before the first segment and `tail` after the last.
template <class Key, class Offset = std::int64_t>
void check_sorted_segments(const std::vector<std::int64_t>& sizes, key_pattern pattern, const sort_options& options,
                    std::uint64_t seed, std::int64_t lead = 0, std::int64_t tail = 0) {
  std::int64_t total = lead + tail;
  for (std::int64_t s : sizes) total += s;
  const auto n = static_cast<std::size_t>(total);
  const std::vector<Key> keys = make_keys<Key>(n, pattern, seed);
  std::vector<std::int32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::int32_t>(i);
  const std::vector<Offset> offsets = offsets_of<Offset>(sizes, lead);
  const auto segments = static_cast<std::int64_t>(sizes.size());

  device_buffer<Key> keys_in(keys), keys_out(n);
  device_buffer<std::int32_t> values_in(values), values_out(n);
  device_buffer<Offset> d_offsets(offsets);

  std::vector<Key> want_keys = poisoned<Key>(n);
  reference_segmented_sort<Key, std::int32_t>(keys, nullptr, offsets, options, want_keys, nullptr);
  keys_out.poison();
  device::segmented_sort_keys(keys_in.data(), keys_out.data(), total, d_offsets.data(), segments, nullptr, nullptr,
                              options);
  ASSERT_TRUE(same_bits(want_keys, keys_out.download())) << "keys only";

  std::vector<std::int32_t> want_values = poisoned<std::int32_t>(n);
  reference_segmented_sort(keys, &values, offsets, options, want_keys, &want_values);
  keys_out.poison();
  values_out.poison();
  device::segmented_sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), total,
                               d_offsets.data(), segments, nullptr, nullptr, options);
  ASSERT_TRUE(same_bits(want_keys, keys_out.download())) << "pairs: keys";
  ASSERT_TRUE(same_bits(want_values, values_out.download())) << "pairs: values";
}

std::vector<std::int64_t> uniform_sizes(std::int64_t count, std::int64_t lo, std::int64_t hi, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> d(lo, hi);
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(count));
  for (auto& s : sizes) s = d(rng);
  return sizes;
}

// One segment in a hundred between largest / 6 and largest items, the others below 64 (most of
// them below 8), as power-law data has them.
std::vector<std::int64_t> power_law_sizes(std::int64_t count, std::int64_t largest, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(count));
  for (auto& s : sizes) {
    if (rng() % 100 == 0) {
      s = largest / 6 + static_cast<std::int64_t>(u(rng) * static_cast<double>(largest - largest / 6));
    } else {
      s = static_cast<std::int64_t>(std::pow(u(rng), 3.0) * 64.0);
    }
  }
  return sizes;
}

// Sizes at each class limit and one either side (one thread: 16; the block tiles for items of 1
// to 16 bytes: 512, 2048, 3072, 4096, 8192, 12288, 16384; above them the device-wide sort), with
// empty segments among them.
std::vector<std::int64_t> limit_sizes() {
  std::vector<std::int64_t> sizes{0, 0};
  for (std::int64_t limit : {1, 2, 16, 512, 2048, 3072, 4096, 8192, 12288, 16384}) {
    sizes.push_back(limit - 1);
    sizes.push_back(limit);
    sizes.push_back(limit + 1);
    sizes.push_back(0);
  }
  sizes.push_back(40000);
  sizes.push_back(0);
  return sizes;
}

TEST(SegmentedSort, ClassLimitsEveryPattern) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (key_pattern p : all_key_patterns) {
    SCOPED_TRACE(to_string(p));
    check_sorted_segments<std::uint32_t>(limit_sizes(), p, {}, seed);
    check_sorted_segments<float>(limit_sizes(), p, {}, seed + 1);
  }
}

TEST(SegmentedSort, KeyTypesAndOrders) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::vector<std::int64_t> sizes = limit_sizes();
  for (sort_order order : {sort_order::ascending, sort_order::descending}) {
    sort_options o;
    o.order = order;
    SCOPED_TRACE(order == sort_order::ascending ? "ascending" : "descending");
    check_sorted_segments<std::int8_t>(sizes, key_pattern::uniform, o, seed);
    check_sorted_segments<std::uint16_t>(sizes, key_pattern::few_distinct, o, seed);
    check_sorted_segments<std::int32_t>(sizes, key_pattern::uniform, o, seed);
    check_sorted_segments<std::int64_t>(sizes, key_pattern::few_distinct, o, seed);
    check_sorted_segments<double>(sizes, key_pattern::uniform, o, seed);
    check_sorted_segments<__half>(sizes, key_pattern::uniform, o, seed);
    check_sorted_segments<__nv_bfloat16>(sizes, key_pattern::few_distinct, o, seed);
  }
  sort_options raw;
  raw.floats = float_order::raw_bits;
  check_sorted_segments<float>(sizes, key_pattern::uniform, raw, seed);
  sort_options bits;
  bits.begin_bit = 4;
  bits.end_bit = 20;
  check_sorted_segments<std::uint32_t>(sizes, key_pattern::uniform, bits, seed);
  bits.order = sort_order::descending;
  check_sorted_segments<std::uint64_t>(sizes, key_pattern::uniform, bits, seed);
}

// Every size a thread sorts (0 to 17: the one-thread class and one above), shuffled, with many
// ties: stability on every path of the small-segment pass.
TEST(SegmentedSort, EveryThreadSizeWithTies) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::vector<std::int64_t> sizes;
  for (int repeat = 0; repeat < (sort_small_sizes_only() ? 60 : 600); ++repeat) {
    for (std::int64_t s = 0; s <= 17; ++s) sizes.push_back(s);
  }
  std::shuffle(sizes.begin(), sizes.end(), std::mt19937_64(seed));
  for (sort_order order : {sort_order::ascending, sort_order::descending}) {
    sort_options o;
    o.order = order;
    SCOPED_TRACE(order == sort_order::ascending ? "ascending" : "descending");
    check_sorted_segments<std::uint8_t>(sizes, key_pattern::few_distinct, o, seed);
    check_sorted_segments<float>(sizes, key_pattern::few_distinct, o, seed + 1);
    check_sorted_segments<double, std::int32_t>(sizes, key_pattern::uniform, o, seed + 2);
  }
}

TEST(SegmentedSort, SizeMixes) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const bool small = sort_small_sizes_only();
  SCOPED_TRACE("tiny");
  check_sorted_segments<float>(uniform_sizes(small ? 3000 : 200000, 0, 3, seed), key_pattern::uniform, {}, seed);
  SCOPED_TRACE("uniform 1..2000");
  check_sorted_segments<float>(uniform_sizes(small ? 40 : 2000, 1, 2000, seed), key_pattern::uniform, {}, seed);
  SCOPED_TRACE("power law");
  check_sorted_segments<float>(power_law_sizes(small ? 300 : 3000, small ? 60000 : 300000, seed), key_pattern::uniform, {},
                               seed);
  SCOPED_TRACE("16 large");
  check_sorted_segments<std::uint32_t>(std::vector<std::int64_t>(16, small ? 20000 : 300000), key_pattern::uniform, {}, seed);
}

TEST(SegmentedSort, ItemsOutsideSegmentsAndEmptyRuns) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::vector<std::int64_t> sizes(50, 0);
  for (std::int64_t s : {5, 0, 0, 700, 0, 20000}) sizes.push_back(s);
  sizes.insert(sizes.end(), 50, 0);
  check_sorted_segments<std::uint32_t>(sizes, key_pattern::uniform, {}, seed, 37, 1001);
  check_sorted_segments<std::uint32_t, std::int32_t>(sizes, key_pattern::uniform, {}, seed, 37, 1001);
  check_sorted_segments<std::uint32_t>({}, key_pattern::uniform, {}, seed, 10, 0);  // no segments
  check_sorted_segments<std::uint32_t>(std::vector<std::int64_t>(9, 0), key_pattern::uniform, {}, seed);  // n = 0
}

TEST(SegmentedSort, Int32Offsets) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  check_sorted_segments<double, std::int32_t>(limit_sizes(), key_pattern::uniform, {}, seed);
  check_sorted_segments<float, std::int32_t>(uniform_sizes(500, 0, 40, seed), key_pattern::few_distinct, {}, seed);
}

TEST(SegmentedSort, BadOffsetsThrowBeforeWriting) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 1000;
  const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, key_pattern::uniform, 7);
  device_buffer<std::uint32_t> keys_in(keys), keys_out(n);
  for (const std::vector<std::int64_t>& bad :
       {std::vector<std::int64_t>{0, 500, 400, 1000}, std::vector<std::int64_t>{0, 500, 1001},
        std::vector<std::int64_t>{-1, 10}, std::vector<std::int64_t>{0, 20, 10, 30}}) {
    device_buffer<std::int64_t> d_offsets(bad);
    keys_out.poison();
    EXPECT_THROW(device::segmented_sort_keys(keys_in.data(), keys_out.data(), n, d_offsets.data(),
                                             static_cast<std::int64_t>(bad.size()) - 1),
                 scankit::error);
    EXPECT_TRUE(same_bits(poisoned<std::uint32_t>(n), keys_out.download())) << "the output was written";
  }
  device_buffer<std::int64_t> ok(std::vector<std::int64_t>{0, n});
  EXPECT_THROW(device::segmented_sort_keys(keys_in.data(), keys_out.data(), n, ok.data(), -1), scankit::error);
  EXPECT_THROW(device::segmented_sort_keys(keys_in.data(), keys_out.data(), n, static_cast<const std::int64_t*>(nullptr), 1),
               scankit::error);
  EXPECT_THROW(device::segmented_sort_keys(keys_in.data(), keys_in.data(), n, ok.data(), 1), scankit::error);
}

TEST(SegmentedSort, SameResultTwice) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::vector<std::int64_t> sizes = power_law_sizes(3000, 100000, seed);
  std::int64_t n = 0;
  for (std::int64_t s : sizes) n += s;
  const std::vector<float> keys = make_keys<float>(static_cast<std::size_t>(n), key_pattern::few_distinct, seed);
  std::vector<std::int64_t> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = i;
  device_buffer<float> ki(keys), ko(static_cast<std::size_t>(n));
  device_buffer<std::int64_t> vi(values), vo(static_cast<std::size_t>(n));
  device_buffer<std::int64_t> d_offsets(offsets_of<std::int64_t>(sizes, 0));
  workspace ws;
  std::vector<std::int64_t> first;
  for (int run = 0; run < 2; ++run) {
    vo.poison();
    device::segmented_sort_pairs(ki.data(), ko.data(), vi.data(), vo.data(), n, d_offsets.data(),
                                 static_cast<std::int64_t>(sizes.size()), nullptr, &ws);
    if (run == 0) {
      first = vo.download();
    } else {
      EXPECT_TRUE(same_bits(first, vo.download()));
    }
  }
}

}  // namespace
}  // namespace scankit::testing
