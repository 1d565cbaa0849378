// select_flagged through the precompiled API for 1-, 2-, 4-, 8- and 16-byte items with uint8_t
// flags (any nonzero byte selects) and bool flags, against thrust::copy_if with the flags as
// stencil: every size around the tile, every pattern, both strategies, 32/64-bit offsets, in place.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "compact_test_util.cuh"

namespace scankit::testing {
namespace {

template <class T>
class SelectFlagged : public ::testing::Test {};
using item_types = ::testing::Types<std::int8_t, std::uint16_t, float, double, item16>;
TYPED_TEST_SUITE(SelectFlagged, item_types);

// keep -> a random nonzero byte (uint8 flags) or 1 (bool flags).
std::vector<std::uint8_t> flag_bytes(const std::vector<std::uint8_t>& keep, bool as_bool, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> flags(keep.size());
  for (std::size_t i = 0; i < keep.size(); ++i) {
    flags[i] = keep[i] == 0 ? 0 : (as_bool ? 1 : static_cast<std::uint8_t>(1 + rng() % 255));
  }
  return flags;
}

TYPED_TEST(SelectFlagged, MatchesThrustCopyIf) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  using T = TypeParam;
  workspace ws;
  device_count count;
  const std::vector<run_config> configs = run_configs(true);
  for (const std::int64_t n : compact_sizes(compact_tile_items<sizeof(T)>(), seed, true)) {
    for (const pattern p : all_patterns) {
      if (n > (1 << 20) && p != pattern::random_50) continue;
      const bool as_bool = (n + static_cast<int>(p)) % 2 == 0;
      SCOPED_TRACE("n = " + std::to_string(n) + ", pattern " + to_string(p) + (as_bool ? ", bool flags" : ", uint8 flags"));
      const std::vector<std::uint8_t> keep = keep_pattern(p, n, seed + static_cast<std::uint64_t>(n));
      const std::vector<std::uint8_t> flags_host = flag_bytes(keep, as_bool, seed + 7);
      const std::vector<T> host_in = random_items<T>(n, seed ^ static_cast<std::uint64_t>(n));
      device_buffer<T> in(host_in);
      device_buffer<std::uint8_t> flags(flags_host);
      device_buffer<T> want(host_in.size());
      const std::int64_t want_count =
          thrust::copy_if(thrust::device, in.data(), in.data() + n, flags.data(), want.data(), flag_is_set{}) -
          want.data();
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
        const T* source = config.in_place ? out.data() : in.data();
        workspace* w = config.own_workspace ? &ws : nullptr;
        if (as_bool) {
          scankit::select_flagged(source, reinterpret_cast<const bool*>(flags.data()), out.data(), count.get(), n,
                                  nullptr, w, options_of(config));
        } else {
          scankit::select_flagged(source, flags.data(), out.data(), count.get(), n, nullptr, w, options_of(config));
        }
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
  }
}

TEST(SelectFlaggedCountHost, ReturnsTheCount) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 77777;
  const std::vector<std::uint8_t> keep = keep_pattern(pattern::random_1, n, seed);
  std::int64_t kept = 0;
  for (auto k : keep) kept += k;
  device_buffer<std::uint8_t> flags(keep);
  device_buffer<double> in(random_items<double>(n, seed)), out(static_cast<std::size_t>(n));
  EXPECT_EQ(scankit::select_flagged_count_host(in.data(), flags.data(), out.data(), n), kept);
  EXPECT_EQ(scankit::select_flagged_count_host(in.data(), reinterpret_cast<const bool*>(flags.data()), out.data(), n),
            kept);
}

}  // namespace
}  // namespace scankit::testing
