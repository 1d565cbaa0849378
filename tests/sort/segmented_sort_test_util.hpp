// Helpers of the segmented sort tests (precompiled API in test_segmented_sort.cpp, template API in
// test_segmented_sort_templates.cu): segment sizes of every mix, the host reference (each segment
// sorted on its own by scankit::reference::argsort, stable), and one check that runs the keys-only
// and pairs calls out of place and in two buffers against it. Plain C++.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "scankit/double_buffer.hpp"
#include "sort_test_util.hpp"

namespace scankit::testing {

// Offsets of segments with these sizes, starting at `first` (items before it and after the last
// segment belong to no segment).
template <class Offset>
std::vector<Offset> offsets_of(const std::vector<std::int64_t>& sizes, std::int64_t first) {
  std::vector<Offset> offsets{static_cast<Offset>(first)};
  for (std::int64_t s : sizes) offsets.push_back(static_cast<Offset>(offsets.back() + s));
  return offsets;
}

// Each segment of `keys` (and `values`) sorted on its own into want_keys (want_values); other
// items of the wants are left as they are.
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

// The items of `got` outside [offsets.front(), offsets.back()) copied into `want`: the two-buffer
// form leaves them unspecified. (The tests' segments are contiguous between the two.)
template <class T, class Offset>
void ignore_outside(std::vector<T>& want, const std::vector<T>& got, const std::vector<Offset>& offsets) {
  const auto lo = static_cast<std::size_t>(offsets.front()), hi = static_cast<std::size_t>(offsets.back());
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (i < lo || i >= hi) want[i] = got[i];
  }
}

// Sorts keys (and int32 values: their input positions) in the segments of `sizes` with Api (keys,
// pairs, keys_in_two_buffers, pairs_in_two_buffers) and checks each against the reference;
// `lead` items before the first segment and `tail` after the last.
template <class Api, class Key, class Offset = std::int64_t>
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
  Api::keys(keys_in.data(), keys_out.data(), total, d_offsets.data(), segments, options);
  ASSERT_TRUE(same_bits(want_keys, keys_out.download())) << "keys only";

  std::vector<std::int32_t> want_values = poisoned<std::int32_t>(n);
  reference_segmented_sort(keys, &values, offsets, options, want_keys, &want_values);
  keys_out.poison();
  values_out.poison();
  Api::pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), total, d_offsets.data(), segments,
             options);
  ASSERT_TRUE(same_bits(want_keys, keys_out.download())) << "pairs: keys";
  ASSERT_TRUE(same_bits(want_values, values_out.download())) << "pairs: values";

  // Two buffers: the result in whichever current() names, the items outside every segment
  // unspecified.
  {
    device_buffer<Key> a(keys), b(n);
    b.poison();
    double_buffer<Key> db(a.data(), b.data());
    Api::keys_in_two_buffers(db, total, d_offsets.data(), segments, options);
    const std::vector<Key> got = (db.current() == a.data() ? a : b).download();
    std::vector<Key> want = want_keys;
    ignore_outside(want, got, offsets);
    ASSERT_TRUE(same_bits(want, got)) << "keys in two buffers";
  }
  {
    device_buffer<Key> a(keys), b(n);
    device_buffer<std::int32_t> va(values), vb(n);
    b.poison();
    vb.poison();
    double_buffer<Key> dk(a.data(), b.data());
    double_buffer<std::int32_t> dv(va.data(), vb.data());
    Api::pairs_in_two_buffers(dk, dv, total, d_offsets.data(), segments, options);
    ASSERT_EQ(dk.selector, dv.selector) << "keys and values end in the same buffers";
    const std::vector<Key> got = (dk.current() == a.data() ? a : b).download();
    const std::vector<std::int32_t> got_values = (dv.current() == va.data() ? va : vb).download();
    std::vector<Key> want = want_keys;
    std::vector<std::int32_t> want_v = want_values;
    ignore_outside(want, got, offsets);
    ignore_outside(want_v, got_values, offsets);
    ASSERT_TRUE(same_bits(want, got)) << "pairs in two buffers: keys";
    ASSERT_TRUE(same_bits(want_v, got_values)) << "pairs in two buffers: values";
  }
}

inline std::vector<std::int64_t> uniform_sizes(std::int64_t count, std::int64_t lo, std::int64_t hi, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> d(lo, hi);
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(count));
  for (auto& s : sizes) s = d(rng);
  return sizes;
}

// One segment in a hundred between largest / 6 and largest items, the others below 64 (most of
// them below 8), as power-law data has them.
inline std::vector<std::int64_t> power_law_sizes(std::int64_t count, std::int64_t largest, std::uint64_t seed) {
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
inline std::vector<std::int64_t> limit_sizes() {
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

}  // namespace scankit::testing
