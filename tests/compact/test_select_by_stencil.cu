// select_by_stencil through the precompiled API (4- and 8-byte items, float and double stencils,
// keep_in_range) against thrust::copy_if with the stencil: sizes, patterns, strategies, in place.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "compact_test_util.cuh"

namespace scankit::testing {
namespace {

// Stencil values that keep_in_range{0, 0.5} accepts exactly where keep[i] is set (rejected ones
// are above, negative or NaN).
template <class S>
std::vector<S> stencil_values(const std::vector<std::uint8_t>& keep, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> inside(0.0, 0.5), above(0.5000001, 10.0), below(-10.0, -1e-3);
  std::vector<S> v(keep.size());
  for (std::size_t i = 0; i < keep.size(); ++i) {
    if (keep[i]) {
      v[i] = static_cast<S>(inside(rng));
    } else {
      switch (rng() % 3) {
        case 0: v[i] = static_cast<S>(above(rng)); break;
        case 1: v[i] = static_cast<S>(below(rng)); break;
        default: v[i] = std::numeric_limits<S>::quiet_NaN(); break;
      }
    }
  }
  return v;
}

template <class Pair>
class SelectByStencil : public ::testing::Test {};
using pairs = ::testing::Types<std::tuple<std::int32_t, float>, std::tuple<std::uint32_t, double>,
                               std::tuple<double, float>, std::tuple<std::int64_t, double>>;
TYPED_TEST_SUITE(SelectByStencil, pairs);

TYPED_TEST(SelectByStencil, MatchesThrustCopyIf) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  using T = std::tuple_element_t<0, TypeParam>;
  using S = std::tuple_element_t<1, TypeParam>;
  const keep_in_range<S> pred{S(0), S(0.5)};
  workspace ws;
  device_count count;
  const std::vector<run_config> configs = run_configs(true);
  constexpr std::size_t widest = sizeof(T) > sizeof(S) ? sizeof(T) : sizeof(S);
  for (const std::int64_t n : compact_sizes(compact_tile_items<widest>(), seed, true)) {
    for (const pattern p : all_patterns) {
      if (n > (1 << 20) && p != pattern::random_50) continue;
      SCOPED_TRACE("n = " + std::to_string(n) + ", pattern " + to_string(p));
      const std::vector<std::uint8_t> keep = keep_pattern(p, n, seed + static_cast<std::uint64_t>(n));
      const std::vector<T> host_in = random_items<T>(n, seed ^ static_cast<std::uint64_t>(n));
      device_buffer<T> in(host_in);
      device_buffer<S> stencil(stencil_values<S>(keep, seed + 3));
      device_buffer<T> want(host_in.size());
      const std::int64_t want_count =
          thrust::copy_if(thrust::device, in.data(), in.data() + n, stencil.data(), want.data(), pred) - want.data();
      std::int64_t kept = 0;
      for (auto k : keep) kept += k;
      ASSERT_EQ(want_count, kept);
      const std::vector<T> want_host = want.download();
      for (const run_config& config : configs) {
        SCOPED_TRACE(describe(config));
        device_buffer<T> out(host_in.size());
        if (config.in_place) {
          out.upload(host_in);
        } else {
          out.poison();
        }
        count.poison();
        scankit::select_by_stencil(config.in_place ? out.data() : in.data(), stencil.data(), out.data(), count.get(),
                                   n, pred, nullptr, config.own_workspace ? &ws : nullptr, options_of(config));
        SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
        ASSERT_EQ(count.value(), want_count);
        const std::vector<T> got = out.download();
        ASSERT_TRUE(same_items(got, want_host, want_count));
        if (!config.in_place) ASSERT_TRUE(still_poisoned(got, want_count));
      }
    }
  }
}

TEST(SelectByStencilCountHost, ReturnsTheCount) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 65537;
  const std::vector<std::uint8_t> keep = keep_pattern(pattern::random_99, n, seed);
  std::int64_t kept = 0;
  for (auto k : keep) kept += k;
  device_buffer<double> stencil(stencil_values<double>(keep, seed));
  device_buffer<std::int64_t> in(random_items<std::int64_t>(n, seed)), out(static_cast<std::size_t>(n));
  EXPECT_EQ(scankit::select_by_stencil_count_host(in.data(), stencil.data(), out.data(), n,
                                                  keep_in_range<double>{0.0, 0.5}),
            kept);
}

}  // namespace
}  // namespace scankit::testing
