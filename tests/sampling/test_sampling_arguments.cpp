// Host tests: argument checks (thrown before any CUDA call, so they run without a GPU) and the
// host reference's own behaviour.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "scankit/detail/philox.hpp"
#include "scankit/reference/sampling_reference.hpp"
#include "scankit/sampling.hpp"

namespace {

TEST(SamplingArguments, TableRejectsBadCountsAndPointers) {
  scankit::sampling_table table;
  float w = 1.0f;
  EXPECT_THROW(scankit::build_sampling_table(&w, -1, table), scankit::error);
  EXPECT_THROW(scankit::build_sampling_table(static_cast<const float*>(nullptr), 5, table), scankit::error);
  EXPECT_THROW(scankit::build_sampling_table(&w, std::int64_t(1) << 31, table), scankit::error);
  std::int32_t out = 0;
  EXPECT_THROW(scankit::sample(table, &out, 1, 1), scankit::error);  // never built
  EXPECT_THROW(scankit::sample(table, &out, -1, 1), scankit::error);
  EXPECT_THROW(scankit::sample(table, nullptr, 3, 1), scankit::error);
  EXPECT_THROW(table.status_host(), scankit::error);
}

TEST(SamplingArguments, RowsAndSegmentsRejectBadArguments) {
  double w = 1.0;
  std::int32_t out = 0;
  EXPECT_THROW(scankit::sample_rows(&w, -1, 1, &out, 1), scankit::error);
  EXPECT_THROW(scankit::sample_rows(&w, 1, -1, &out, 1), scankit::error);
  EXPECT_THROW(scankit::sample_rows(static_cast<const double*>(nullptr), 2, 3, &out, 1), scankit::error);
  EXPECT_THROW(scankit::sample_rows(&w, 1, 1, nullptr, 1), scankit::error);
  const std::int64_t offsets[2] = {0, 1};
  EXPECT_THROW(scankit::sample_segments(&w, -1, offsets, 1, offsets, 1, &out, 1), scankit::error);
  EXPECT_THROW(scankit::sample_segments(&w, 1, offsets, -1, offsets, 1, &out, 1), scankit::error);
  EXPECT_THROW(scankit::sample_segments(&w, 1, nullptr, 1, offsets, 1, &out, 1), scankit::error);
  EXPECT_THROW(scankit::sample_segments(&w, 1, offsets, 1, offsets, -1, &out, 1), scankit::error);
  EXPECT_THROW(scankit::sample_segments(&w, 1, offsets, 1, offsets, 1, nullptr, 1), scankit::error);
  EXPECT_THROW(scankit::sample_segments(&w, 1, offsets, 0, offsets, 1, &out, 1), scankit::error);
}

TEST(SamplingReference, PhiloxMatchesTheKnownAnswer) {
  // Random123's known-answer vector for philox4x32-10: counter 0, key 0.
  const auto r = scankit::detail::philox4x32_10(0, 0, 0);
  EXPECT_EQ(r.x[0], 0x6627e8d5u);
  EXPECT_EQ(r.x[1], 0xe169c58du);
  EXPECT_EQ(r.x[2], 0xbc57ac4cu);
  EXPECT_EQ(r.x[3], 0x9b00dbd8u);
}

TEST(SamplingReference, UniformsCoverTheUnitInterval) {
  double lo = 1.0, hi = 0.0, sum = 0.0;
  const int n = 1 << 16;
  for (int k = 0; k < n; ++k) {
    const double u = scankit::detail::philox_uniform(42, k);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    lo = std::min(lo, u), hi = std::max(hi, u), sum += u;
  }
  EXPECT_LT(lo, 1e-3);
  EXPECT_GT(hi, 1.0 - 1e-3);
  EXPECT_NEAR(sum / n, 0.5, 0.01);  // 8.7 standard deviations of the mean
}

TEST(SamplingReference, EndsMapToTheFirstAndLastNonZeroBins) {
  const std::vector<double> cdf = scankit::reference::sampling_cdf(std::vector<float>{0, 0, 2, 0, 3, 0, 0}.data(), 7);
  EXPECT_EQ(scankit::reference::inverse_cdf(cdf, 0.0), 2);
  EXPECT_EQ(scankit::reference::inverse_cdf(cdf, std::nextafter(1.0, 0.0)), 4);
  EXPECT_EQ(scankit::reference::inverse_cdf(cdf, 0.4 - 1e-12), 2);
  EXPECT_EQ(scankit::reference::inverse_cdf(cdf, 0.4), 4);
}

TEST(SamplingReference, StatusOfBadWeights) {
  using scankit::sampling_status;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(scankit::reference::sampling_check(std::vector<float>{1, -1}.data(), 2), sampling_status::invalid_weight);
  EXPECT_EQ(scankit::reference::sampling_check(std::vector<float>{1, nan}.data(), 2), sampling_status::invalid_weight);
  EXPECT_EQ(scankit::reference::sampling_check(std::vector<float>{inf, 1}.data(), 2), sampling_status::invalid_weight);
  EXPECT_EQ(scankit::reference::sampling_check(std::vector<float>{0, 0}.data(), 2), sampling_status::all_zero);
  const double big = std::numeric_limits<double>::max();
  EXPECT_EQ(scankit::reference::sampling_check(std::vector<double>{big, big}.data(), 2), sampling_status::sum_overflow);
  EXPECT_EQ(scankit::reference::sample_table(std::vector<float>{0, 0}.data(), 2, 0, 3, 1, 0), (std::vector<std::int32_t>{-1, -1, -1}));
}

}  // namespace

namespace {

TEST(SamplingArguments, WithoutReplacementRejectsBadArguments) {
  float w[3] = {1, 2, 3};
  std::int32_t out[4];
  EXPECT_THROW(scankit::sample_without_replacement(w, 3, 4, out, 1), scankit::error);  // k > n
  EXPECT_THROW(scankit::sample_without_replacement(w, -1, 0, out, 1), scankit::error);
  EXPECT_THROW(scankit::sample_without_replacement(w, 3, -1, out, 1), scankit::error);
  EXPECT_THROW(scankit::sample_without_replacement(static_cast<const float*>(nullptr), 3, 1, out, 1), scankit::error);
  EXPECT_THROW(scankit::sample_without_replacement(w, 3, 1, nullptr, 1), scankit::error);
  const auto r = scankit::reference::sample_without_replacement(std::vector<double>{0, 5, 0, 1}.data(), 4, 4, 3, 0);
  EXPECT_EQ(std::count(r.begin(), r.end(), -1), 2);
  EXPECT_TRUE((r[0] == 1 && r[1] == 3) || (r[0] == 3 && r[1] == 1));
}

TEST(SamplingArguments, TopRejectsBadOptions) {
  float x = 1.0f;
  std::int32_t out = 0;
  scankit::top_sampling_options o;
  auto call = [&](const scankit::top_sampling_options& opt) { scankit::sample_rows_top(&x, 1, 1, &out, opt, 1); };
  o.temperature = 0.0f;
  EXPECT_THROW(call(o), scankit::error);
  o.temperature = std::numeric_limits<float>::infinity();
  EXPECT_THROW(call(o), scankit::error);
  o.temperature = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(call(o), scankit::error);
  o = {};
  o.top_k = -1;
  EXPECT_THROW(call(o), scankit::error);
  o = {};
  o.top_p = 0.0;
  EXPECT_THROW(call(o), scankit::error);
  o.top_p = 1.5;
  EXPECT_THROW(call(o), scankit::error);
  o.top_p = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(call(o), scankit::error);
  EXPECT_THROW(scankit::sample_rows_top(nullptr, 2, 2, &out, {}, 1), scankit::error);
  EXPECT_THROW(scankit::sample_rows_top(&x, -1, 2, &out, {}, 1), scankit::error);
}

TEST(SamplingReference, TopFilterKeepsTopKThenNucleus) {
  const std::vector<float> logits{0.0f, 3.0f, 1.0f, 2.0f, 3.0f};
  scankit::top_sampling_options o;
  o.top_k = 2;
  auto w = scankit::reference::top_filter(logits.data(), 5, o);
  EXPECT_EQ(w[0], 0.0);
  EXPECT_EQ(w[2], 0.0);
  EXPECT_EQ(w[3], 0.0);
  EXPECT_GT(w[1], 0.0);
  EXPECT_GT(w[4], 0.0);
  o.top_k = 1;  // a tie with the last kept token stays
  w = scankit::reference::top_filter(logits.data(), 5, o);
  EXPECT_GT(w[1], 0.0);
  EXPECT_GT(w[4], 0.0);
  o = {};
  o.top_p = 0.5;  // e^3 + e^3 already hold more than half of the mass
  w = scankit::reference::top_filter(logits.data(), 5, o);
  EXPECT_EQ(std::count_if(w.begin(), w.end(), [](double v) { return v > 0.0; }), 2);
  o.top_p = 0.9;
  w = scankit::reference::top_filter(logits.data(), 5, o);
  EXPECT_EQ(std::count_if(w.begin(), w.end(), [](double v) { return v > 0.0; }), 3);
}

}  // namespace
