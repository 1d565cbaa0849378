// GPU tests of the top-k / top-p sampler against the host reference filter (double, by sorting).
// The device selects in float with 2^-19-nat codes and fixed-point masses, so a token next to the
// boundary may be kept by one and not the other: the set checks accept exactly that one token when
// the reference's boundary is within 1e-5 of top_p (or ties at 2^-19 nats).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "sampling_test_util.hpp"
#include "scankit/reference/sampling_reference.hpp"
#include "scankit/sampling.hpp"
#include "support/gpu_test.hpp"

namespace {

using scankit::testing::device_buffer;

std::vector<float> random_logits(std::int64_t rows, std::int64_t cols, std::uint64_t seed, float sigma) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.0f, sigma);
  std::vector<float> x(static_cast<std::size_t>(rows * cols));
  for (auto& v : x) v = d(rng);
  return x;
}

std::vector<std::int32_t> run_top(const std::vector<float>& x, std::int64_t rows, std::int64_t cols,
                                  const scankit::top_sampling_options& o, std::uint64_t seed, std::uint64_t offset = 0) {
  device_buffer<float> d_x(x);
  device_buffer<std::int32_t> out(static_cast<std::size_t>(rows + 16));
  out.poison();
  scankit::workspace ws;
  scankit::sample_rows_top(d_x.data(), rows, cols, out.data(), o, seed, offset, nullptr, &ws);
  auto host = out.download();
  for (int g = 0; g < 16; ++g) EXPECT_EQ(static_cast<std::uint32_t>(host[rows + g]), 0xA5A5A5A5u);
  host.resize(static_cast<std::size_t>(rows));
  return host;
}

// Whether `token` is acceptable for this row: kept by the reference, or the first token past the
// reference's boundary when that boundary is within rounding of the device's criteria.
bool acceptable(const float* row, std::int64_t cols, const scankit::top_sampling_options& o, std::int32_t token) {
  const std::vector<double> w = scankit::reference::top_filter(row, cols, o);
  if (w.empty()) return token == -1;
  if (token < 0 || token >= cols) return false;
  if (w[token] > 0.0) return true;
  // Not kept: accept only a token at the boundary's rounding distance.
  std::vector<std::int64_t> order(static_cast<std::size_t>(cols));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return row[a] > row[b]; });
  std::size_t kept = 0;
  while (kept < order.size() && w[order[kept]] > 0.0) ++kept;
  const double nats_to_last = (double(row[order[kept - 1]]) - double(row[token])) / o.temperature;
  if (o.logits && nats_to_last < 4.0 * 0x1.0p-19) return true;
  if (o.top_p < 1.0) {
    double total = 0.0, before = 0.0;
    const std::size_t k = (o.top_k > 0 && o.top_k < cols) ? static_cast<std::size_t>(o.top_k) : order.size();
    std::vector<double> all(order.size());
    const double shift = o.logits ? double(row[order[0]]) : std::log(double(row[order[0]]));
    for (std::size_t r = 0; r < k; ++r) {
      const double v = o.logits ? double(row[order[r]]) : std::log(double(row[order[r]]));
      all[r] = std::exp(-(shift - v) / o.temperature);
      total += all[r];
    }
    for (std::size_t r = 0; r + 1 < kept; ++r) before += all[r];
    // The reference needed the last kept token to reach top_p; the device may have reached it one
    // token later (or earlier) if the masses sit within 1e-5 of the boundary.
    if (std::fabs((before + all[kept - 1]) / total - o.top_p) < 1e-5 || std::fabs(before / total - o.top_p) < 1e-5)
      return row[token] == row[order[kept]];
  }
  return false;
}

TEST(SamplingTop, TopKOfOneIsTheArgmax) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t cols : {1, 7, 4096, 4097, 100000}) {
    const std::int64_t rows = 97;
    const auto x = random_logits(rows, cols, seed + cols, 3.0f);
    scankit::top_sampling_options o;
    o.top_k = 1;
    const auto got = run_top(x, rows, cols, o, seed);
    for (std::int64_t r = 0; r < rows; ++r) {
      const float* row = x.data() + r * cols;
      EXPECT_EQ(got[r], std::max_element(row, row + cols) - row) << "row " << r << " cols " << cols;
    }
  }
}

TEST(SamplingTop, KeptSetsMatchReference) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  struct setting {
    std::int64_t k;
    double p;
    float t;
    bool logits;
  };
  const setting settings[] = {{50, 0.9, 1.0f, true}, {0, 0.9, 1.0f, true}, {20, 1.0, 1.0f, true},
                              {0, 0.5, 0.6f, true},  {1000, 0.95, 1.5f, true}, {40, 0.8, 1.0f, false},
                              {0, 0.3, 1.0f, false}};
  for (std::int64_t cols : {33, 5000, 131072}) {
    const std::int64_t rows = cols > 10000 ? 24 : 200;
    const auto logits = random_logits(rows, cols, seed + cols, 2.0f);
    std::vector<float> probs(logits.size());
    for (std::int64_t r = 0; r < rows; ++r) {
      double z = 0.0;
      for (std::int64_t j = 0; j < cols; ++j) z += std::exp(double(logits[r * cols + j]));
      for (std::int64_t j = 0; j < cols; ++j) probs[r * cols + j] = float(std::exp(double(logits[r * cols + j])) / z);
    }
    for (const setting& s : settings) {
      scankit::top_sampling_options o;
      o.top_k = s.k, o.top_p = s.p, o.temperature = s.t, o.logits = s.logits;
      const auto& x = s.logits ? logits : probs;
      for (std::uint64_t offset : {0ull, 1000ull, 2000ull}) {
        const auto got = run_top(x, rows, cols, o, seed, offset);
        for (std::int64_t r = 0; r < rows; ++r)
          ASSERT_TRUE(acceptable(x.data() + r * cols, cols, o, got[r]))
              << "cols " << cols << " row " << r << " token " << got[r] << " k " << s.k << " p " << s.p << " t " << s.t
              << " logits " << s.logits;
      }
    }
  }
}

TEST(SamplingTop, ChiSquareOverTheKeptSet) {
  SCANKIT_REQUIRE_GPU();
  // One row of 64 logits repeated 2^21 times: each row is one draw from the same filtered
  // distribution. False-failure rate 1e-6 (see test_sampling_statistics.cpp); the row is fixed
  // and its top-p boundary checked to be far from rounding.
  const std::int64_t cols = 64, rows = std::int64_t(1) << 21;
  const auto row = random_logits(1, cols, 64, 1.5f);
  scankit::top_sampling_options o;
  o.top_k = 40, o.top_p = 0.8, o.temperature = 0.7f;
  const std::vector<double> w = scankit::reference::top_filter(row.data(), cols, o);
  std::vector<float> x;
  x.reserve(rows * cols);
  for (std::int64_t r = 0; r < rows; ++r) x.insert(x.end(), row.begin(), row.end());
  const auto got = run_top(x, rows, cols, o, 77);
  std::vector<std::int64_t> counts(cols, 0);
  for (std::int32_t t : got) {
    ASSERT_GE(t, 0);
    ASSERT_LT(t, cols);
    ++counts[t];
  }
  double total = 0.0;
  int kept = 0;
  for (double v : w) total += v, kept += v > 0.0;
  ASSERT_GT(kept, 2);
  double chi2 = 0.0;
  for (std::int64_t j = 0; j < cols; ++j) {
    if (w[j] == 0.0) {
      EXPECT_EQ(counts[j], 0) << "token " << j << " is filtered out";
      continue;
    }
    const double e = w[j] / total * double(rows);
    chi2 += (double(counts[j]) - e) * (double(counts[j]) - e) / e;
  }
  EXPECT_LT(chi2, scankit::testing::chi_square_critical(double(kept - 1), scankit::testing::z_one_in_a_million));
}

TEST(SamplingTop, TiesAtTheBoundaryAreKept) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t cols = 8, rows = 1 << 16;
  std::vector<float> x(rows * cols, 0.5f);
  scankit::top_sampling_options o;
  o.top_k = 3;
  std::set<std::int32_t> seen;
  for (std::int32_t t : run_top(x, rows, cols, o, 9)) seen.insert(t);
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_EQ(*seen.begin(), 0);
}

TEST(SamplingTop, BadRowsGiveMinusOne) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t cols = 5000, rows = 6;
  auto x = random_logits(rows, cols, 3, 1.0f);
  x[0 * cols + 17] = std::numeric_limits<float>::quiet_NaN();
  x[1 * cols + 4999] = std::numeric_limits<float>::infinity();
  for (std::int64_t j = 0; j < cols; ++j) x[2 * cols + j] = -std::numeric_limits<float>::infinity();
  for (std::int64_t j = 0; j < cols; ++j) x[3 * cols + j] = j == 123 ? 0.0f : -std::numeric_limits<float>::infinity();
  scankit::top_sampling_options o;
  o.top_k = 10, o.top_p = 0.9;
  const auto got = run_top(x, rows, cols, o, 1);
  EXPECT_EQ(got[0], -1);
  EXPECT_EQ(got[1], -1);
  EXPECT_EQ(got[2], -1);
  EXPECT_EQ(got[3], 123);  // -inf logits are masked tokens, not bad ones
  EXPECT_GE(got[4], 0);
  EXPECT_GE(got[5], 0);
  // Probabilities: a negative value, and a row of zeros.
  std::vector<float> p(rows * cols, 1.0f);
  p[7] = -0.5f;
  for (std::int64_t j = 0; j < cols; ++j) p[cols + j] = 0.0f;
  o.logits = false;
  const auto got_p = run_top(p, rows, cols, o, 1);
  EXPECT_EQ(got_p[0], -1);
  EXPECT_EQ(got_p[1], -1);
  EXPECT_GE(got_p[2], 0);
}

TEST(SamplingTop, SameSeedSameTokens) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t rows = 64, cols = 32000;
  const auto x = random_logits(rows, cols, seed, 2.0f);
  scankit::top_sampling_options o;
  o.top_k = 100, o.top_p = 0.9;
  EXPECT_EQ(run_top(x, rows, cols, o, seed, 5), run_top(x, rows, cols, o, seed, 5));
  EXPECT_NE(run_top(x, rows, cols, o, seed, 5), run_top(x, rows, cols, o, seed, 6));
}

}  // namespace
