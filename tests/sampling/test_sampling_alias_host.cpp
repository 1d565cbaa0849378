// Host tests of the alias method: argument checks (thrown before any CUDA call, so they run
// without a GPU), and the host reference's table (the same sweep and fixed point as the device) on
// awkward sizes: exact masses, zero weights, draws.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "alias_test_util.hpp"
#include "scankit/reference/alias_reference.hpp"
#include "scankit/sampling.hpp"

namespace {

using scankit::reference::alias_table_of;
using scankit::reference::alias_total;

TEST(SamplingAliasArguments, RejectsBadCountsAndPointersBeforeAnyLaunch) {
  scankit::alias_table table;
  float w = 1.0f;
  EXPECT_THROW(scankit::build_alias_table(&w, -1, table), scankit::error);
  EXPECT_THROW(scankit::build_alias_table(static_cast<const float*>(nullptr), 5, table), scankit::error);
  EXPECT_THROW(scankit::build_alias_table(static_cast<const double*>(nullptr), 5, table), scankit::error);
  EXPECT_THROW(scankit::build_alias_table(&w, std::int64_t(1) << 31, table), scankit::error);
  EXPECT_EQ(table.header(), nullptr);  // nothing was allocated or enqueued
  EXPECT_EQ(table.bins(), 0);
  std::int32_t out = 7;
  EXPECT_THROW(scankit::sample(table, &out, 1, 1), scankit::error);  // never built
  EXPECT_THROW(scankit::sample(table, &out, -1, 1), scankit::error);
  EXPECT_THROW(scankit::sample(table, nullptr, 3, 1), scankit::error);
  EXPECT_EQ(out, 7);
  EXPECT_THROW(table.status_host(), scankit::error);
  EXPECT_THROW(table.check_host(), scankit::error);
  EXPECT_GE(scankit::alias_table::bytes_for(1000), 1000 * (8 + 4 + 8));
}

TEST(SamplingAliasReference, TableIsExactOnAwkwardSizes) {
  for (std::int64_t n : scankit::testing::alias_sizes())
    for (int pattern : {0, 1}) {
      SCOPED_TRACE("n " + std::to_string(n) + " pattern " + std::to_string(pattern));
      const auto w = scankit::testing::alias_weights<float>(n, pattern, 2026 + n);
      scankit::testing::expect_alias_table_exact(w, alias_table_of(w.data(), n, alias_total(w.data(), n)));
      const auto wd = scankit::testing::alias_weights<double>(n, pattern, 77 + n);
      scankit::testing::expect_alias_table_exact(wd, alias_table_of(wd.data(), n, alias_total(wd.data(), n)));
    }
}

TEST(SamplingAliasReference, EqualAndExtremeWeights) {
  // Equal weights: every bucket full, alias itself.
  const std::vector<float> equal(1000, 3.0f);
  for (const auto& e : alias_table_of(equal.data(), 1000, alias_total(equal.data(), 1000))) {
    EXPECT_EQ(e.threshold, scankit::detail::alias_full);
  }
  // One positive weight among zeros: it takes every bucket.
  std::vector<double> one(9, 0.0);
  one[4] = 1e-300;
  const auto t = alias_table_of(one.data(), 9, alias_total(one.data(), 9));
  for (const auto& e : t) EXPECT_EQ(e.alias, 4);
  scankit::testing::expect_alias_table_exact(one, t);
  // Subnormal and huge totals keep q finite (the total is scaled by a power of two first).
  const std::vector<double> tiny = {4.9e-324, 0.0, 9.9e-324};
  scankit::testing::expect_alias_table_exact(tiny, alias_table_of(tiny.data(), 3, alias_total(tiny.data(), 3)));
  const double big = std::numeric_limits<double>::max() / 4;
  const std::vector<double> huge = {big, big / 3, 0.0, big};
  scankit::testing::expect_alias_table_exact(huge, alias_table_of(huge.data(), 4, alias_total(huge.data(), 4)));
}

TEST(SamplingAliasReference, DrawsFollowTheTable) {
  const std::int64_t n = 7;
  const std::vector<float> w = {0, 1, 0, 2, 4, 0, 1};  // probabilities 0, 1/8, 0, 1/4, 1/2, 0, 1/8
  const auto table = alias_table_of(w.data(), n, alias_total(w.data(), n));
  const std::int64_t draws = 400000;
  const auto out = scankit::reference::alias_sample(table, draws, 11, 3);
  std::vector<std::int64_t> counts(n, 0);
  for (std::int32_t v : out) {
    ASSERT_TRUE(v >= 0 && v < n);
    ++counts[v];
  }
  for (std::int64_t i = 0; i < n; ++i) {
    const double p = double(w[i]) / 8.0, expected = p * double(draws);
    if (p == 0.0) {
      EXPECT_EQ(counts[i], 0) << "bin " << i;
    } else {
      EXPECT_NEAR(double(counts[i]), expected, 6.0 * std::sqrt(expected)) << "bin " << i;  // ~2e-9 per bin
    }
  }
  // Split by offset: the same draws.
  auto first = scankit::reference::alias_sample(table, 1000, 11, 3);
  const auto rest = scankit::reference::alias_sample(table, draws - 1000, 11, 3 + 1000);
  first.insert(first.end(), rest.begin(), rest.end());
  EXPECT_EQ(first, out);
  EXPECT_EQ(scankit::reference::alias_sample({}, 3, 1, 0), (std::vector<std::int32_t>{-1, -1, -1}));
}

TEST(SamplingAliasReference, BucketCoversEveryBinEvenly) {
  // floor(u n / 2^64) over the 64-bit Philox fraction: every bucket of n = 3 about a third.
  std::int64_t counts[3] = {0, 0, 0};
  const int draws = 300000;
  for (int k = 0; k < draws; ++k) ++counts[scankit::detail::alias_choice_for(5, k, 3).bucket];
  for (std::int64_t c : counts) EXPECT_NEAR(double(c), draws / 3.0, 6.0 * std::sqrt(draws * 2.0 / 9.0));
}

}  // namespace
