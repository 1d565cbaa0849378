// The radix sort beyond one onesweep launch (more than 2^28 keys: the digit starts are handed from
// launch to launch) and beyond 2^31 keys (64-bit offsets), where device memory allows. The results
// are checked in O(n) on the host: the output is ordered, holds each key value as often as the
// input, and (pairs whose values are the input positions) keeps equal keys in input order.
// Skipped under SCANKIT_TEST_SMALL (compute-sanitizer runs).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "sort_test_util.hpp"

namespace scankit::testing {
namespace {

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; i += 8) {
    const std::uint64_t r = rng();
    for (std::size_t b = 0; b < 8 && i + b < n; ++b) v[i + b] = static_cast<std::uint8_t>(r >> (8 * b));
  }
  return v;
}

std::array<std::uint64_t, 256> histogram(const std::vector<std::uint8_t>& v) {
  std::array<std::uint64_t, 256> h{};
  for (std::uint8_t x : v) ++h[x];
  return h;
}

// 2^28 + 2^27 + 5 uint8 keys with uint32 values: two onesweep launches per pass.
TEST(SortLarge, PairsAcrossLaunches) {
  SCANKIT_REQUIRE_GPU();
  if (sort_small_sizes_only()) GTEST_SKIP() << "SCANKIT_TEST_SMALL";
  const std::int64_t n = (std::int64_t{1} << 28) + (std::int64_t{1} << 27) + 5;
  if (!gpu_memory_available(static_cast<std::size_t>(n) * 15)) GTEST_SKIP() << "not enough device memory";
  SCANKIT_SEEDED(seed);
  const std::vector<std::uint8_t> keys = random_bytes(static_cast<std::size_t>(n), seed);
  std::vector<std::uint32_t> values(static_cast<std::size_t>(n));
  std::iota(values.begin(), values.end(), 0u);
  device_buffer<std::uint8_t> ki(keys), ko(static_cast<std::size_t>(n));
  device_buffer<std::uint32_t> vi(values), vo(static_cast<std::size_t>(n));
  for (sort_strategy s : {sort_strategy::onesweep, sort_strategy::reduce_then_scan}) {
    SCOPED_TRACE(to_string(s));
    sort_options options;
    options.strategy = s;
    ko.poison();
    vo.poison();
    sort_pairs(ki.data(), ko.data(), vi.data(), vo.data(), n, nullptr, nullptr, options);
    const std::vector<std::uint8_t> sorted = ko.download();
    const std::vector<std::uint32_t> order = vo.download();
    ASSERT_EQ(histogram(keys), histogram(sorted));
    for (std::size_t i = 1; i < sorted.size(); ++i) {
      ASSERT_LE(sorted[i - 1], sorted[i]) << "at " << i;
      if (sorted[i - 1] == sorted[i]) ASSERT_LT(order[i - 1], order[i]) << "unstable at " << i;
    }
    for (std::size_t i = 0; i < sorted.size(); i += 4099) ASSERT_EQ(sorted[i], keys[order[i]]) << "at " << i;
  }
}

// 2^31 + 4097 uint8 keys (one byte each: the offsets need 64 bits, the counts do not).
TEST(SortLarge, KeysAbove2Pow31) {
  SCANKIT_REQUIRE_GPU();
  if (sort_small_sizes_only()) GTEST_SKIP() << "SCANKIT_TEST_SMALL";
  const std::int64_t n = (std::int64_t{1} << 31) + 4097;
  if (!gpu_memory_available(static_cast<std::size_t>(n) * 4)) GTEST_SKIP() << "not enough device memory";
  SCANKIT_SEEDED(seed);
  const std::vector<std::uint8_t> keys = random_bytes(static_cast<std::size_t>(n), seed);
  device_buffer<std::uint8_t> ki(keys), ko(static_cast<std::size_t>(n));
  ko.poison();
  sort_keys(ki.data(), ko.data(), n);
  const std::vector<std::uint8_t> sorted = ko.download();
  ASSERT_EQ(histogram(keys), histogram(sorted));
  for (std::size_t i = 1; i < sorted.size(); ++i) ASSERT_LE(sorted[i - 1], sorted[i]) << "at " << i;
}

}  // namespace
}  // namespace scankit::testing
