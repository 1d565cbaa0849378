// Helpers shared by the radix sort tests: key generators for every precompiled key type and the
// distributions the tests use, sizes around the tile, and exact comparisons that name the first
// mismatch. Plain C++ (the tests call the precompiled API).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "scankit/sort.hpp"
#include "scankit/reference/sort_reference.hpp"
#include "scankit/sort_key_order.hpp"
#include "support/gpu_test.hpp"

namespace scankit::testing {

enum class key_pattern { uniform, few_distinct, sorted, reversed, all_equal };
inline constexpr key_pattern all_key_patterns[] = {key_pattern::uniform, key_pattern::few_distinct, key_pattern::sorted,
                                                   key_pattern::reversed, key_pattern::all_equal};

inline const char* to_string(key_pattern p) {
  switch (p) {
    case key_pattern::uniform: return "uniform";
    case key_pattern::few_distinct: return "few_distinct";
    case key_pattern::sorted: return "sorted";
    case key_pattern::reversed: return "reversed";
    case key_pattern::all_equal: return "all_equal";
  }
  return "?";
}

inline bool sort_small_sizes_only() {
  const char* small = std::getenv("SCANKIT_TEST_SMALL");
  return small != nullptr && *small != '\0' && *small != '0';
}

// Random bits of the key's size; for floats every bit pattern (NaNs, infinities, denormals and
// both zeros included). few_distinct: the AND of four random words (a skewed, repetitive
// distribution; for floats mostly small positives and zeros).
template <class K>
std::vector<K> make_keys(std::size_t n, key_pattern pattern, std::uint64_t seed) {
  using bits = detail::unsigned_bits_t<K>;
  std::mt19937_64 rng(seed);
  std::vector<K> keys(n);
  const auto draw = [&] {
    bits b = static_cast<bits>(rng());
    if (pattern == key_pattern::few_distinct) {
      for (int i = 0; i < 3; ++i) b = static_cast<bits>(b & static_cast<bits>(rng()));
    }
    K k;
    std::memcpy(&k, &b, sizeof(K));
    return k;
  };
  if (pattern == key_pattern::all_equal) {
    const K k = draw();
    for (auto& x : keys) x = k;
    return keys;
  }
  for (auto& x : keys) x = draw();
  if (pattern == key_pattern::sorted || pattern == key_pattern::reversed) {
    sort_options o;
    o.order = pattern == key_pattern::sorted ? sort_order::ascending : sort_order::descending;
    keys = reference::sort_keys(keys, o);
  }
  return keys;
}

template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& expected, const std::vector<T>& actual) {
  if (expected.size() != actual.size()) {
    return ::testing::AssertionFailure() << "sizes differ: " << expected.size() << " vs " << actual.size();
  }
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (std::memcmp(&expected[i], &actual[i], sizeof(T)) != 0) {
      std::uint64_t e = 0, a = 0;
      std::memcpy(&e, &expected[i], sizeof(T) < 8 ? sizeof(T) : 8);
      std::memcpy(&a, &actual[i], sizeof(T) < 8 ? sizeof(T) : 8);
      return ::testing::AssertionFailure() << "first mismatch at " << i << " of " << expected.size() << ": expected bits 0x"
                                           << std::hex << e << ", got 0x" << a;
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace scankit::testing
