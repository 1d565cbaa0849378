// The segmented sort's template API (nvcc) on key types the library does not precompile (8- and
// 16-bit keys, uint64 keys with a bit range), out of place and in two buffers, against the host
// reference. The precompiled API's tests (test_segmented_sort.cpp) cover the size classes, mixes
// and errors, which both APIs share.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "scankit/device/segmented_sort.cuh"
#include "segmented_sort_test_util.hpp"

namespace scankit::testing {
namespace {

struct template_api {
  template <class K, class O>
  static void keys(const K* in, K* out, std::int64_t n, const O* offsets, std::int64_t segments, const sort_options& o) {
    device::segmented_sort_keys(in, out, n, offsets, segments, nullptr, nullptr, o);
  }
  template <class K, class V, class O>
  static void pairs(const K* in, K* out, const V* vin, V* vout, std::int64_t n, const O* offsets, std::int64_t segments,
                    const sort_options& o) {
    device::segmented_sort_pairs(in, out, vin, vout, n, offsets, segments, nullptr, nullptr, o);
  }
  template <class K, class O>
  static void keys_in_two_buffers(double_buffer<K>& keys, std::int64_t n, const O* offsets, std::int64_t segments,
                                  const sort_options& o) {
    device::segmented_sort_keys(keys, n, offsets, segments, nullptr, nullptr, o);
  }
  template <class K, class V, class O>
  static void pairs_in_two_buffers(double_buffer<K>& keys, double_buffer<V>& values, std::int64_t n, const O* offsets,
                                   std::int64_t segments, const sort_options& o) {
    device::segmented_sort_pairs(keys, values, n, offsets, segments, nullptr, nullptr, o);
  }
};

TEST(SegmentedSortTemplates, SmallKeysBothOrders) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::vector<std::int64_t> sizes = limit_sizes();
  for (int repeat = 0; repeat < 40; ++repeat) {
    for (std::int64_t s = 0; s <= 17; ++s) sizes.push_back(s);
  }
  std::shuffle(sizes.begin(), sizes.end(), std::mt19937_64(seed));
  for (sort_order order : {sort_order::ascending, sort_order::descending}) {
    sort_options o;
    o.order = order;
    SCOPED_TRACE(order == sort_order::ascending ? "ascending" : "descending");
    check_sorted_segments<template_api, std::int8_t>(sizes, key_pattern::uniform, o, seed);
    check_sorted_segments<template_api, std::uint16_t, std::int32_t>(sizes, key_pattern::few_distinct, o, seed);
  }
}

TEST(SegmentedSortTemplates, Uint64BitRange) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  sort_options bits;
  bits.begin_bit = 4;
  bits.end_bit = 44;  // five digit passes: the two-buffer form ends in the alternate buffers
  bits.order = sort_order::descending;
  check_sorted_segments<template_api, std::uint64_t>(limit_sizes(), key_pattern::uniform, bits, seed);
}

}  // namespace
}  // namespace scankit::testing
