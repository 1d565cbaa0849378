// unique and unique_by_key through the precompiled API against thrust::unique_copy and
// thrust::unique_by_key_copy on the same device input: runs of equal keys (about 4 long), all
// equal, all distinct, alternating pairs, few distinct values; floats with +0/-0 and NaN; every
// size around the tile; both strategies, 32/64-bit offsets, in place.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "compact_test_util.cuh"

namespace scankit::testing {
namespace {

enum class runs { about_4, all_equal, all_distinct, pairs, few_values, signed_zeros_and_nans };
constexpr runs all_runs[] = {runs::about_4, runs::all_equal, runs::all_distinct, runs::pairs, runs::few_values};

const char* to_string(runs r) {
  switch (r) {
    case runs::about_4: return "runs of about 4";
    case runs::all_equal: return "all equal";
    case runs::all_distinct: return "all distinct";
    case runs::pairs: return "alternating pairs";
    case runs::few_values: return "few distinct values";
    case runs::signed_zeros_and_nans: return "+0, -0 and NaN";
  }
  return "?";
}

template <class T>
std::vector<T> run_keys(runs r, std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(static_cast<std::size_t>(n));
  long long value = static_cast<long long>(rng() % 1000);
  for (std::int64_t i = 0; i < n; ++i) {
    switch (r) {
      case runs::about_4:
        if (rng() % 4 == 0) value += 1 + static_cast<long long>(rng() % 3);
        break;
      case runs::all_equal: break;
      case runs::all_distinct: value = i * 3 + 1; break;
      case runs::pairs: value = (i / 2) % 2; break;
      case runs::few_values: value = static_cast<long long>(rng() % 3); break;
      case runs::signed_zeros_and_nans: value = static_cast<long long>(rng() % 4); break;
    }
    T key = static_cast<T>(value % 100000);
    if constexpr (std::is_floating_point_v<T>) {
      if (r == runs::signed_zeros_and_nans) {
        key = value == 0 ? T(0) : value == 1 ? -T(0) : value == 2 ? std::numeric_limits<T>::quiet_NaN() : T(1);
      }
    }
    v[static_cast<std::size_t>(i)] = key;
  }
  return v;
}

template <class T>
class Unique : public ::testing::Test {
 protected:
  void check(std::uint64_t seed);
};
using types = ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(Unique, types);

// Twice: with the default kernels, then with the path of GPUs without the bulk copy (sm_80,
// sm_89), forced on this one.
TYPED_TEST(Unique, MatchesThrustUnique) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (bool portable : {false, true}) {
    SCOPED_TRACE(portable ? "portable kernels" : "default kernels");
    scankit::force_portable_kernels(portable);
    this->check(seed);
    scankit::force_portable_kernels(false);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

template <class T>
void Unique<T>::check(std::uint64_t seed) {
  workspace ws;
  device_count count;
  const std::vector<run_config> configs = run_configs(true);
  std::vector<runs> cases(std::begin(all_runs), std::end(all_runs));
  if (std::is_floating_point_v<T>) cases.push_back(runs::signed_zeros_and_nans);
  for (const std::int64_t n : compact_sizes(selection_tile_items<sizeof(T)>(), seed, true)) {
    for (const runs r : cases) {
      if (n > (1 << 20) && r != runs::about_4) continue;
      SCOPED_TRACE("n = " + std::to_string(n) + ", " + to_string(r));
      const std::vector<T> host_in = run_keys<T>(r, n, seed ^ static_cast<std::uint64_t>(n));
      device_buffer<T> in(host_in), want(host_in.size());
      const std::int64_t want_count = thrust::unique_copy(thrust::device, in.data(), in.data() + n, want.data()) -
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
        scankit::unique(config.in_place ? out.data() : in.data(), out.data(), count.get(), n, nullptr,
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
  }
}

template <class Pair>
class UniqueByKey : public ::testing::Test {};
using pairs = ::testing::Types<std::tuple<std::uint32_t, float>, std::tuple<std::int64_t, std::int64_t>>;
TYPED_TEST_SUITE(UniqueByKey, pairs);

TYPED_TEST(UniqueByKey, MatchesThrustUniqueByKey) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  using K = std::tuple_element_t<0, TypeParam>;
  using V = std::tuple_element_t<1, TypeParam>;
  workspace ws;
  device_count count;
  const std::vector<run_config> configs = run_configs(true);
  constexpr std::size_t widest = sizeof(K) > sizeof(V) ? sizeof(K) : sizeof(V);
  for (const std::int64_t n : compact_sizes(compact_tile_items<widest>(), seed, true)) {
    for (const runs r : all_runs) {
      if (n > (1 << 20) && r != runs::about_4) continue;
      SCOPED_TRACE("n = " + std::to_string(n) + ", " + to_string(r));
      const std::vector<K> keys_host = run_keys<K>(r, n, seed ^ static_cast<std::uint64_t>(n));
      const std::vector<V> values_host = random_items<V>(n, seed + 11);
      device_buffer<K> keys(keys_host), want_keys(keys_host.size());
      device_buffer<V> values(values_host), want_values(values_host.size());
      const auto ends = thrust::unique_by_key_copy(thrust::device, keys.data(), keys.data() + n, values.data(),
                                                   want_keys.data(), want_values.data());
      const std::int64_t want_count = ends.first - want_keys.data();
      const std::vector<K> want_keys_host = want_keys.download();
      const std::vector<V> want_values_host = want_values.download();
      for (const run_config& config : configs) {
        SCOPED_TRACE(describe(config));
        device_buffer<K> keys_out(keys_host.size());
        device_buffer<V> values_out(values_host.size());
        if (config.in_place) {
          keys_out.upload(keys_host);
          values_out.upload(values_host);
        } else {
          keys_out.poison();
          values_out.poison();
        }
        count.poison();
        scankit::unique_by_key(config.in_place ? keys_out.data() : keys.data(),
                               config.in_place ? values_out.data() : values.data(), keys_out.data(), values_out.data(),
                               count.get(), n, nullptr, config.own_workspace ? &ws : nullptr, options_of(config));
        SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
        ASSERT_EQ(count.value(), want_count);
        ASSERT_TRUE(same_items(keys_out.download(), want_keys_host, want_count)) << "keys";
        ASSERT_TRUE(same_items(values_out.download(), want_values_host, want_count)) << "values";
      }
    }
  }
}

TEST(UniqueCountHost, ReturnsTheCount) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 123457;
  const std::vector<std::uint64_t> host_in = run_keys<std::uint64_t>(runs::about_4, n, seed);
  std::vector<std::uint64_t> scratch(host_in.size());
  const std::int64_t want = reference::unique(host_in.data(), scratch.data(), n);
  device_buffer<std::uint64_t> in(host_in), out(host_in.size());
  EXPECT_EQ(scankit::unique_count_host(in.data(), out.data(), n), want);
  device_buffer<std::uint64_t> values(random_items<std::uint64_t>(n, seed)), values_out(host_in.size());
  EXPECT_EQ(scankit::unique_by_key_count_host(in.data(), values.data(), out.data(), values_out.data(), n), want);
}

}  // namespace
}  // namespace scankit::testing
