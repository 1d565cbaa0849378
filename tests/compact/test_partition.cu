// partition_if through the precompiled API (uint32 and float, keep_in_range; one output and two
// outputs) against thrust::stable_partition_copy on the same device input. One output: the
// selected items in order, then the rejected ones in reverse input order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "compact_test_util.cuh"

namespace scankit::testing {
namespace {

template <class T>
std::vector<T> partition_values(const std::vector<std::uint8_t>& keep, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<long long> inside(0, 499999), above(500000, 999999);
  std::vector<T> v(keep.size());
  for (std::size_t i = 0; i < keep.size(); ++i) v[i] = static_cast<T>(keep[i] ? inside(rng) : above(rng));
  return v;
}

template <class T>
class PartitionIf : public ::testing::Test {};
using types = ::testing::Types<std::uint32_t, float>;
TYPED_TEST_SUITE(PartitionIf, types);

TYPED_TEST(PartitionIf, MatchesThrustStablePartition) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  using T = TypeParam;
  const keep_in_range<T> pred{T(0), T(499999)};
  workspace ws;
  device_count count;
  const std::vector<run_config> configs = run_configs(false);
  for (const std::int64_t n : compact_sizes(compact_tile_items<sizeof(T)>(), seed, true)) {
    for (const pattern p : all_patterns) {
      if (n > (1 << 20) && p != pattern::random_50 && p != pattern::random_1) continue;
      SCOPED_TRACE("n = " + std::to_string(n) + ", pattern " + to_string(p));
      const std::vector<std::uint8_t> keep = keep_pattern(p, n, seed + static_cast<std::uint64_t>(n));
      const std::vector<T> host_in = partition_values<T>(keep, seed ^ static_cast<std::uint64_t>(n));
      device_buffer<T> in(host_in), want_selected(host_in.size()), want_rejected(host_in.size());
      const auto ends = thrust::stable_partition_copy(thrust::device, in.data(), in.data() + n, want_selected.data(),
                                                      want_rejected.data(), pred);
      const std::int64_t want_count = ends.first - want_selected.data();
      ASSERT_EQ(ends.second - want_rejected.data(), n - want_count);
      const std::vector<T> selected_host = want_selected.download();
      std::vector<T> rejected_reversed = want_rejected.download();
      std::reverse(rejected_reversed.begin(), rejected_reversed.begin() + (n - want_count));

      for (const run_config& config : configs) {
        SCOPED_TRACE(describe(config));
        workspace* w = config.own_workspace ? &ws : nullptr;
        {  // one output
          SCOPED_TRACE("one output");
          device_buffer<T> out(host_in.size());
          out.poison();
          count.poison();
          scankit::partition_if(in.data(), out.data(), count.get(), n, pred, nullptr, w, options_of(config));
          SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
          ASSERT_EQ(count.value(), want_count);
          const std::vector<T> got = out.download();
          ASSERT_TRUE(same_items(got, selected_host, want_count)) << "selected part";
          ASSERT_TRUE(same_items(got, rejected_reversed, n - want_count, want_count, 0)) << "rejected part (reversed)";
        }
        {  // two outputs
          SCOPED_TRACE("two outputs");
          device_buffer<T> selected(host_in.size()), rejected(host_in.size());
          selected.poison();
          rejected.poison();
          count.poison();
          scankit::partition_if(in.data(), selected.data(), rejected.data(), count.get(), n, pred, nullptr, w,
                                options_of(config));
          SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
          ASSERT_EQ(count.value(), want_count);
          const std::vector<T> got_selected = selected.download();
          const std::vector<T> got_rejected = rejected.download();
          ASSERT_TRUE(same_items(got_selected, selected_host, want_count)) << "selected";
          ASSERT_TRUE(still_poisoned(got_selected, want_count));
          const std::vector<T> rejected_host = want_rejected.download();
          ASSERT_TRUE(same_items(got_rejected, rejected_host, n - want_count)) << "rejected";
          ASSERT_TRUE(still_poisoned(got_rejected, n - want_count));
        }
      }
    }
  }
}

TEST(PartitionIfCountHost, ReturnsTheCount) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 50001;
  const std::vector<std::uint8_t> keep = keep_pattern(pattern::random_50, n, seed);
  std::int64_t kept = 0;
  for (auto k : keep) kept += k;
  device_buffer<float> in(partition_values<float>(keep, seed)), a(static_cast<std::size_t>(n)),
      b(static_cast<std::size_t>(n));
  const keep_in_range<float> pred{0.0f, 499999.0f};
  EXPECT_EQ(scankit::partition_if_count_host(in.data(), a.data(), n, pred), kept);
  EXPECT_EQ(scankit::partition_if_count_host(in.data(), a.data(), b.data(), n, pred), kept);
}

}  // namespace
}  // namespace scankit::testing
