// select_if through the precompiled API (keep_in_range for every precompiled type, keep_not_nan
// for float and double) against thrust::copy_if on the same device input: every size around
// the tile, every selection pattern, both strategies, 32- and 64-bit offsets, in place.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "compact_test_util.cuh"

namespace scankit::testing {
namespace {

// Values that keep_in_range{0, 499999} keeps exactly where keep[i] is set.
template <class T>
std::vector<T> range_values(const std::vector<std::uint8_t>& keep, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<long long> inside(0, 499999), above(500000, 999999), below(-1000000, -1);
  std::vector<T> v(keep.size());
  for (std::size_t i = 0; i < keep.size(); ++i) {
    long long x;
    if (keep[i]) {
      x = inside(rng);
    } else if (std::is_signed_v<T> && (rng() & 1)) {
      x = below(rng);
    } else {
      x = above(rng);
    }
    v[i] = static_cast<T>(x);
  }
  return v;
}

// Finite values where keep[i] is set, NaNs with assorted payloads elsewhere.
template <class T>
std::vector<T> nan_values(const std::vector<std::uint8_t>& keep, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<T> finite(-1e6, 1e6);
  std::vector<T> v(keep.size());
  for (std::size_t i = 0; i < keep.size(); ++i) {
    if (keep[i]) {
      v[i] = finite(rng);
    } else {
      T nan = std::numeric_limits<T>::quiet_NaN();
      if constexpr (sizeof(T) == 4) {
        std::uint32_t bits;
        std::memcpy(&bits, &nan, 4);
        bits |= static_cast<std::uint32_t>(rng()) & 0x803fffffu;
        std::memcpy(&nan, &bits, 4);
      } else {
        std::uint64_t bits;
        std::memcpy(&bits, &nan, 8);
        bits |= rng() & 0x8007ffffffffffffull;
        std::memcpy(&nan, &bits, 8);
      }
      v[i] = nan;
    }
  }
  return v;
}

// Runs every configuration on one input and compares with thrust::copy_if.
template <class T, class Pred>
void check_select_if(const std::vector<T>& host_in, Pred pred, std::int64_t expected_count, workspace& ws,
                     const std::vector<run_config>& configs) {
  const auto n = static_cast<std::int64_t>(host_in.size());
  device_buffer<T> in(host_in);
  device_buffer<T> want(host_in.size());
  const std::int64_t want_count =
      thrust::copy_if(thrust::device, in.data(), in.data() + n, want.data(), pred) - want.data();
  ASSERT_EQ(want_count, expected_count) << "the test's own expectation disagrees with thrust";
  const std::vector<T> want_host = want.download();
  device_count count;
  for (const run_config& config : configs) {
    SCOPED_TRACE(describe(config));
    device_buffer<T> out(host_in.size());
    if (config.in_place) {
      out.upload(host_in);
    } else {
      out.poison();
    }
    count.poison();
    scankit::select_if(config.in_place ? out.data() : in.data(), out.data(), count.get(), n, pred, nullptr,
                       config.own_workspace ? &ws : nullptr, options_of(config));
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    ASSERT_EQ(count.value(), want_count);
    const std::vector<T> got = out.download();
    ASSERT_TRUE(same_items(got, want_host, want_count));
    if (config.in_place) {
      ASSERT_TRUE(same_items(got, host_in, n - want_count, want_count, want_count)) << "beyond the count";
    } else {
      ASSERT_TRUE(still_poisoned(got, want_count));
    }
  }
}

template <class T>
class SelectIfRange : public ::testing::Test {};
using range_types = ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(SelectIfRange, range_types);

TYPED_TEST(SelectIfRange, MatchesThrustCopyIf) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  using T = TypeParam;
  const keep_in_range<T> pred{T(0), T(499999)};
  workspace ws;
  const std::vector<run_config> configs = run_configs(true);
  for (const std::int64_t n : compact_sizes(selection_tile_items<sizeof(T)>(), seed, true)) {
    for (const pattern p : all_patterns) {
      if (n > (1 << 20) && p != pattern::random_50 && p != pattern::alternating) continue;
      SCOPED_TRACE("n = " + std::to_string(n) + ", pattern " + to_string(p));
      const std::vector<std::uint8_t> keep = keep_pattern(p, n, seed + static_cast<std::uint64_t>(n));
      std::int64_t kept = 0;
      for (auto k : keep) kept += k;
      check_select_if(range_values<T>(keep, seed ^ static_cast<std::uint64_t>(n)), pred, kept, ws, configs);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// The path of GPUs without the bulk copy (sm_80, sm_89), forced on this one: the same results.
TYPED_TEST(SelectIfRange, PortableKernels) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  using T = TypeParam;
  const portable_kernels_forced portable;
  workspace ws;
  const std::int64_t tile = selection_tile_items<sizeof(T)>();
  for (const std::int64_t n : {tile - 1, 3 * tile + 5, std::int64_t{3'000'017}}) {
    for (const pattern p : {pattern::random_50, pattern::alternating}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", pattern " + to_string(p));
      const std::vector<std::uint8_t> keep = keep_pattern(p, n, seed + static_cast<std::uint64_t>(n));
      std::int64_t kept = 0;
      for (auto k : keep) kept += k;
      check_select_if(range_values<T>(keep, seed ^ static_cast<std::uint64_t>(n)), keep_in_range<T>{T(0), T(499999)},
                      kept, ws, run_configs(true));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// The two ends of keep_in_range: an empty interval keeps nothing, the whole type everything.
TYPED_TEST(SelectIfRange, EmptyAndFullRanges) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  using T = TypeParam;
  workspace ws;
  const std::int64_t n = 5 * selection_tile_items<sizeof(T)>() + 3;
  const std::vector<std::uint8_t> keep = keep_pattern(pattern::random_50, n, seed);
  const std::vector<T> values = range_values<T>(keep, seed + 1);
  check_select_if(values, keep_in_range<T>{T(1), T(0)}, 0, ws, run_configs(true));
  check_select_if(values, keep_in_range<T>{std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max()}, n, ws,
                  run_configs(true));
}

template <class T>
class SelectIfNotNan : public ::testing::Test {};
using float_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SelectIfNotNan, float_types);

TYPED_TEST(SelectIfNotNan, MatchesThrustCopyIf) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  using T = TypeParam;
  workspace ws;
  const std::vector<run_config> configs = run_configs(true);
  for (const std::int64_t n : compact_sizes(selection_tile_items<sizeof(T)>(), seed, false)) {
    for (const pattern p : all_patterns) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", pattern " + to_string(p));
      const std::vector<std::uint8_t> keep = keep_pattern(p, n, seed + static_cast<std::uint64_t>(n));
      std::int64_t kept = 0;
      for (auto k : keep) kept += k;
      check_select_if(nan_values<T>(keep, seed ^ static_cast<std::uint64_t>(n)), keep_not_nan<T>{}, kept, ws, configs);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// The host-count convenience call returns the count (and has waited for the stream).
TEST(SelectIfCountHost, ReturnsTheCount) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 100003;
  const std::vector<std::uint8_t> keep = keep_pattern(pattern::random_50, n, seed);
  std::int64_t kept = 0;
  for (auto k : keep) kept += k;
  const std::vector<std::uint32_t> values = range_values<std::uint32_t>(keep, seed + 1);
  device_buffer<std::uint32_t> in(values), out(values.size());
  cudaStream_t stream = nullptr;
  SCANKIT_CUDA_CHECK(cudaStreamCreate(&stream));
  for (compact_strategy s : {compact_strategy::single_pass, compact_strategy::three_step}) {
    compact_options o;
    o.strategy = s;
    EXPECT_EQ(scankit::select_if_count_host(in.data(), out.data(), n, keep_in_range<std::uint32_t>{0, 499999}, stream,
                                            nullptr, o),
              kept);
  }
  SCANKIT_CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace
}  // namespace scankit::testing
