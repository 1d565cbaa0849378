// GPU tests of the alias method: the device table is exact for the weights and equals the host
// reference's bit for bit (given the device's total); draws equal the reference's for the same
// seed and offset and are reproducible; bad weights give their status and -1 draws; bad
// arguments throw before any launch and leave outputs and the table intact. Outputs are poisoned,
// with guard words past the end.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "alias_test_util.hpp"
#include "scankit/detail/alias_slices.hpp"
#include "scankit/device/util/l2_size.hpp"
#include "scankit/reference/alias_reference.hpp"
#include "scankit/sampling.hpp"
#include "support/gpu_test.hpp"

namespace {

using scankit::testing::device_buffer;

template <class T>
class SamplingAliasTyped : public ::testing::Test {};
using WeightTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SamplingAliasTyped, WeightTypes);

constexpr std::int64_t guard = 64;

std::vector<scankit::alias_entry> download_entries(const scankit::alias_table& table) {
  std::vector<scankit::alias_entry> host(static_cast<std::size_t>(table.bins()));
  if (!host.empty())
    SCANKIT_CUDA_CHECK(cudaMemcpy(host.data(), table.entries(), sizeof(scankit::alias_entry) * host.size(),
                                  cudaMemcpyDeviceToHost));
  return host;
}

// `count` draws made by `draw(out)` into a poisoned buffer with a guard region; checks the guard.
template <class Draw>
std::vector<std::int32_t> poisoned_draws(std::int64_t count, Draw draw) {
  device_buffer<std::int32_t> out(static_cast<std::size_t>(count + guard));
  out.poison();
  draw(out.data());
  std::vector<std::int32_t> host = out.download();
  for (std::int64_t g = 0; g < guard; ++g)
    EXPECT_EQ(static_cast<std::uint32_t>(host[count + g]), 0xA5A5A5A5u) << "guard " << g;
  host.resize(static_cast<std::size_t>(count));
  return host;
}

std::vector<std::int32_t> alias_draws(const scankit::alias_table& table, std::int64_t count, std::uint64_t seed,
                                      std::uint64_t offset) {
  return poisoned_draws(count, [&](std::int32_t* out) { scankit::sample(table, out, count, seed, offset); });
}

// The same in `slices` launches.
std::vector<std::int32_t> sliced_draws(const scankit::alias_table& table, std::int64_t count, std::uint64_t seed,
                                       std::uint64_t offset, int slices) {
  return poisoned_draws(count, [&](std::int32_t* out) {
    scankit::device_detail::sampling::draw_alias(table, out, count, seed, offset, slices, nullptr);
  });
}

TYPED_TEST(SamplingAliasTyped, TableIsExactAndMatchesReference) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : scankit::testing::alias_sizes())
    for (int pattern : {0, 1}) {
      SCOPED_TRACE("n " + std::to_string(n) + " pattern " + std::to_string(pattern));
      const auto w = scankit::testing::alias_weights<TypeParam>(n, pattern, seed + n);
      device_buffer<TypeParam> d_w(w);
      scankit::alias_table table;
      scankit::build_alias_table(d_w.data(), n, table);
      ASSERT_EQ(table.status_host(), scankit::sampling_status::ok);
      const auto got = download_entries(table);
      scankit::testing::expect_alias_table_exact(w, got);
      const auto want = scankit::reference::alias_table_of(w.data(), n, table.total_host());
      std::int64_t differ = 0;
      for (std::int64_t b = 0; b < n; ++b)
        if ((got[b].threshold != want[b].threshold || got[b].alias != want[b].alias) && ++differ <= 5)
          ADD_FAILURE() << "bucket " << b << ": {" << got[b].threshold << ", " << got[b].alias << "}, reference {"
                        << want[b].threshold << ", " << want[b].alias << "}";
      EXPECT_EQ(differ, 0);
      const std::int64_t count = 50001;
      EXPECT_EQ(alias_draws(table, count, seed, seed * 3 + 1),
                scankit::reference::alias_sample(want, count, seed, seed * 3 + 1));
    }
}

TYPED_TEST(SamplingAliasTyped, ReproducibleBySeedAndOffset) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 100003, count = 300007;
  const auto w = scankit::testing::alias_weights<TypeParam>(n, 0, seed);
  device_buffer<TypeParam> d_w(w);
  scankit::alias_table table, again;
  scankit::workspace ws;
  scankit::build_alias_table(d_w.data(), n, table, nullptr, &ws);
  scankit::build_alias_table(d_w.data(), n, again);  // without a workspace: the same bits
  const auto entries = download_entries(table);
  const auto entries_again = download_entries(again);
  ASSERT_EQ(entries.size(), entries_again.size());
  for (std::size_t b = 0; b < entries.size(); ++b)
    ASSERT_TRUE(entries[b].threshold == entries_again[b].threshold && entries[b].alias == entries_again[b].alias)
        << "bucket " << b;
  const auto all = alias_draws(table, count, seed, 1000);
  EXPECT_EQ(alias_draws(again, count, seed, 1000), all);
  // Split into two calls by offset: the same draws.
  auto first = alias_draws(table, 12345, seed, 1000);
  const auto rest = alias_draws(table, count - 12345, seed, 1000 + 12345);
  first.insert(first.end(), rest.begin(), rest.end());
  EXPECT_EQ(first, all);
  // Another seed or offset gives other draws.
  EXPECT_NE(alias_draws(table, count, seed + 1, 1000), all);
  EXPECT_NE(alias_draws(table, count, seed, 1001), all);
  // A rebuild into the used table (smaller, then the same size again) reuses its memory.
  const std::size_t capacity = table.capacity_bytes();
  scankit::build_alias_table(d_w.data(), 4097, table);
  scankit::build_alias_table(d_w.data(), n, table);
  EXPECT_EQ(table.capacity_bytes(), capacity);
  EXPECT_EQ(alias_draws(table, count, seed, 1000), all);
}

TYPED_TEST(SamplingAliasTyped, BadWeightsGiveStatusAndMinusOne) {
  SCANKIT_REQUIRE_GPU();
  using T = TypeParam;
  using scankit::sampling_status;
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const std::int64_t n = 5000;
  auto with = [&](std::int64_t at, T value) {
    std::vector<T> w(n, T(1));
    w[at] = value;
    return w;
  };
  struct bad_case {
    std::vector<T> w;
    sampling_status status;
  };
  std::vector<bad_case> cases = {{with(4999, T(-1)), sampling_status::invalid_weight},
                                 {with(0, nan), sampling_status::invalid_weight},
                                 {with(2048, inf), sampling_status::invalid_weight},
                                 {std::vector<T>(n, T(0)), sampling_status::all_zero}};
  if constexpr (std::is_same_v<T, double>)
    cases.push_back({std::vector<T>(n, std::numeric_limits<T>::max() / 2), sampling_status::sum_overflow});
  for (const auto& c : cases) {
    device_buffer<T> d_w(c.w);
    scankit::alias_table table;
    scankit::build_alias_table(d_w.data(), n, table);
    EXPECT_EQ(table.status_host(), c.status);
    EXPECT_THROW(table.check_host(), scankit::error);
    for (std::int32_t v : alias_draws(table, 1000, 1, 0)) ASSERT_EQ(v, -1);
  }
  scankit::alias_table empty;  // n == 0: status all_zero, draws -1
  scankit::build_alias_table(static_cast<const T*>(nullptr), 0, empty);
  EXPECT_EQ(empty.status_host(), sampling_status::all_zero);
  for (std::int32_t v : alias_draws(empty, 10, 1, 0)) ASSERT_EQ(v, -1);
}

// A table read in slices (each launch finishing the draws whose bucket lies in its slice) gives the
// reference's draws bit for bit, for any number of slices, counts that end inside a thread's
// draws, and tables of a few buckets per slice.
TEST(SamplingAlias, SlicedDrawsMatchReference) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : {std::int64_t(7), std::int64_t(100003)})
    for (std::int64_t count : {std::int64_t(1), std::int64_t(4095), std::int64_t(250007)}) {
      SCOPED_TRACE("n " + std::to_string(n) + " count " + std::to_string(count));
      const auto w = scankit::testing::alias_weights<float>(n, 1, seed + n);
      device_buffer<float> d_w(w);
      scankit::alias_table table;
      scankit::build_alias_table(d_w.data(), n, table);
      const auto want = scankit::reference::alias_sample(
          scankit::reference::alias_table_of(w.data(), n, table.total_host()), count, seed, 77);
      for (int slices : {1, 2, 3, 7})
        EXPECT_EQ(sliced_draws(table, count, seed, 77, slices), want) << slices << " slices";
    }
}

// Beyond L2 the public call slices by itself: a table of 2^23 buckets (64 MiB, two slices on a
// 50 MiB L2) drawn 2^23 times matches the one-pass draws. Bad tables give -1 in every slice.
TEST(SamplingAlias, LargeTableDrawsInSlices) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = std::int64_t(1) << 23, count = n + 12345;
  namespace sd = scankit::device_detail::sampling;
  const double slice_bytes = sd::alias_slice_l2_share * double(scankit::device_detail::l2_bytes_of_current_device());
  const int wanted = std::max(1, int(std::ceil(8.0 * double(n) / slice_bytes)));
  EXPECT_EQ(sd::alias_slices(n, count),
            wanted <= sd::alias_max_wanted_slices ? std::min(wanted, sd::alias_max_slices) : 1);
  // A table that wants 4.5 slices takes the most (3); one that wants 6 takes one launch.
  const auto buckets_for = [&](double s) { return std::int64_t(s * slice_bytes / 8.0); };
  EXPECT_EQ(sd::alias_slices(buckets_for(4.5), std::int64_t(1) << 40), sd::alias_max_slices);
  EXPECT_EQ(sd::alias_slices(buckets_for(sd::alias_max_wanted_slices + 1.0), std::int64_t(1) << 40), 1);
  EXPECT_EQ(sd::alias_slices(n, n / 2), 1);  // fewer draws than buckets: one pass
  EXPECT_EQ(sd::alias_slices(1 << 20, std::int64_t(1) << 26), 1);  // 8 MiB: one pass
  const auto w = scankit::testing::alias_weights<float>(n, 0, seed);
  device_buffer<float> d_w(w);
  scankit::alias_table table;
  scankit::build_alias_table(d_w.data(), n, table);
  ASSERT_EQ(table.status_host(), scankit::sampling_status::ok);
  EXPECT_EQ(alias_draws(table, count, seed, 5), sliced_draws(table, count, seed, 5, 1));
  std::vector<float> bad(static_cast<std::size_t>(n), 1.0f);
  bad[12345] = -1.0f;
  device_buffer<float> d_bad(bad);
  scankit::build_alias_table(d_bad.data(), n, table);
  EXPECT_EQ(table.status_host(), scankit::sampling_status::invalid_weight);
  for (std::int32_t v : sliced_draws(table, 100000, seed, 0, 3)) ASSERT_EQ(v, -1);
}

TEST(SamplingAlias, BadArgumentsLeaveOutputsAndTableIntact) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 4097, count = 1000;
  const auto w = scankit::testing::alias_weights<float>(n, 1, 5);
  device_buffer<float> d_w(w);
  scankit::alias_table table;
  scankit::build_alias_table(d_w.data(), n, table);
  const auto before = alias_draws(table, count, 9, 0);
  device_buffer<std::int32_t> out(static_cast<std::size_t>(count + guard));
  out.poison();
  EXPECT_THROW(scankit::sample(table, out.data(), -1, 9), scankit::error);
  EXPECT_THROW(scankit::sample(table, nullptr, count, 9), scankit::error);
  EXPECT_THROW(scankit::build_alias_table(d_w.data(), -5, table), scankit::error);
  EXPECT_THROW(scankit::build_alias_table(static_cast<const float*>(nullptr), n, table), scankit::error);
  EXPECT_THROW(scankit::build_alias_table(d_w.data(), std::int64_t(1) << 31, table), scankit::error);
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  for (std::int32_t v : out.download()) ASSERT_EQ(static_cast<std::uint32_t>(v), 0xA5A5A5A5u);
  EXPECT_EQ(table.bins(), n);
  EXPECT_EQ(table.status_host(), scankit::sampling_status::ok);
  EXPECT_EQ(alias_draws(table, count, 9, 0), before);
  EXPECT_EQ(alias_draws(table, 0, 9, 0).size(), 0u);  // count 0: nothing written (the guard checks it)
}

}  // namespace
