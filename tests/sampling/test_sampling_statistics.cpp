// Statistical GPU tests of the sampling module, with fixed seeds. Each statistic is compared with
// its critical value for a false-failure rate of 1e-6 (one-sided), so a correct implementation
// fails one of these checks with probability below 1e-5 per seed; the seeds are fixed, so a run
// either always passes or always fails. The alias table (SamplingAliasStatistics) passes the same
// checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "sampling_test_util.hpp"
#include "scankit/reference/sampling_reference.hpp"
#include "scankit/sampling.hpp"
#include "support/gpu_test.hpp"

namespace {

using scankit::testing::device_buffer;

std::vector<double> probabilities(const std::vector<float>& w) {
  double total = 0.0;
  for (float x : w) total += x;
  std::vector<double> p(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) p[i] = w[i] / total;
  return p;
}

// Counts of each bin in the draws (asserting every draw is a bin).
std::vector<std::int64_t> histogram(const std::vector<std::int32_t>& draws, std::int64_t bins) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(bins), 0);
  for (std::int32_t v : draws) {
    EXPECT_TRUE(v >= 0 && v < bins) << "draw " << v;
    if (v >= 0 && v < bins) ++counts[v];
  }
  return counts;
}

// Float weights uniform in [lo, hi), fixed seed.
std::vector<float> uniform_weights(std::int64_t n, std::uint64_t seed, float lo, float hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> w(static_cast<std::size_t>(n));
  for (auto& x : w) x = d(rng);
  return w;
}

// Bins with p == 0 are left out (each then removes a degree of freedom).
double chi_square(const std::vector<std::int64_t>& counts, const std::vector<double>& p, std::int64_t draws) {
  double chi2 = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == 0.0) continue;
    const double e = p[i] * double(draws);
    chi2 += (double(counts[i]) - e) * (double(counts[i]) - e) / e;
  }
  return chi2;
}

TEST(SamplingStatistics, ChiSquareOnThousandBins) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 1000, draws = 10'000'000;
  const std::vector<float> w = uniform_weights(n, 20261201, 0.5f, 1.5f);
  device_buffer<float> d_w(w);
  scankit::sampling_table table;
  scankit::build_sampling_table(d_w.data(), n, table);
  device_buffer<std::int32_t> out(draws);
  scankit::sample(table, out.data(), draws, 7);
  const std::vector<std::int64_t> counts = histogram(out.download(), n);
  const double chi2 = chi_square(counts, probabilities(w), draws);
  const double critical = scankit::testing::chi_square_critical(double(n - 1), scankit::testing::z_one_in_a_million);
  EXPECT_LT(chi2, critical) << "chi-square " << chi2 << " with " << n - 1 << " degrees of freedom";
  // And not suspiciously good either (a broken generator that returns expected counts).
  EXPECT_GT(chi2, double(n - 1) - 10.0 * std::sqrt(2.0 * double(n - 1)));
}

TEST(SamplingStatistics, KolmogorovSmirnovOnZipfBinIndex) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 1 << 20, draws = 10'000'000;
  const std::vector<float> w = scankit::reference::zipf_weights<float>(n, 1.05);
  device_buffer<float> d_w(w);
  scankit::sampling_table table;
  scankit::build_sampling_table(d_w.data(), n, table);
  device_buffer<std::int32_t> out(draws);
  scankit::sample(table, out.data(), draws, 11, 123);
  const std::vector<std::int64_t> counts = histogram(out.download(), n);
  const std::vector<double> p = probabilities(w);
  double f = 0.0, f_emp = 0.0, dmax = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    f += p[i];
    f_emp += double(counts[i]) / double(draws);
    dmax = std::max(dmax, std::fabs(f - f_emp));
  }
  // Conservative for a discrete distribution: P(D > c) <= 2 exp(-2 N c^2) = 1e-6.
  const double critical = std::sqrt(std::log(2.0 / 1e-6) / (2.0 * double(draws)));
  EXPECT_LT(dmax, critical);
}

TEST(SamplingStatistics, RowsChiSquare) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t rows = 1 << 21, cols = 64;
  const std::vector<float> row = uniform_weights(cols, 99, 0.5f, 1.5f);
  std::vector<float> w;
  w.reserve(rows * cols);
  for (std::int64_t r = 0; r < rows; ++r) w.insert(w.end(), row.begin(), row.end());
  device_buffer<float> d_w(w);
  device_buffer<std::int32_t> out(rows);
  scankit::sample_rows(d_w.data(), rows, cols, out.data(), 5);
  const double chi2 = chi_square(histogram(out.download(), cols), probabilities(row), rows);
  EXPECT_LT(chi2, scankit::testing::chi_square_critical(double(cols - 1), scankit::testing::z_one_in_a_million));
}

void build(const float* w, std::int64_t n, scankit::sampling_table& table) { scankit::build_sampling_table(w, n, table); }
void build(const float* w, std::int64_t n, scankit::alias_table& table) { scankit::build_alias_table(w, n, table); }

// Draws of a zero-weight bin (or of no bin) in 10^8 draws. Every other bin is zero, plus runs of
// zeros across tile boundaries (the CDF table's 4096-weight tiles, the alias sweep's 2048-item ones).
template <class Table>
std::int64_t zero_bin_draws_in_1e8() {
  const std::int64_t n = (1 << 20) + 3;
  std::vector<float> w(n);
  for (std::int64_t i = 0; i < n; ++i) w[i] = (i % 2 == 1 || (i / 4096) % 7 == 3) ? 0.0f : float(1 + i % 5);
  device_buffer<float> d_w(w);
  Table table;
  build(d_w.data(), n, table);
  const std::int64_t chunk = 10'000'000;
  device_buffer<std::int32_t> out(chunk);
  std::int64_t zero_draws = 0;
  for (int call = 0; call < 10; ++call) {  // 10^8 draws, split into calls by offset
    scankit::sample(table, out.data(), chunk, 2026, std::uint64_t(call) * chunk);
    for (std::int32_t v : out.download()) zero_draws += (v < 0 || v >= n || w[v] == 0.0f);
  }
  return zero_draws;
}

TEST(SamplingStatistics, ZeroWeightBinsNeverDrawnIn1e8Draws) {
  SCANKIT_REQUIRE_GPU();
  EXPECT_EQ(zero_bin_draws_in_1e8<scankit::sampling_table>(), 0);
}

TEST(SamplingStatistics, FloatWeightsOver2To24BinsLoseNoBin) {
  SCANKIT_REQUIRE_GPU();
  // Weights in [1, 2): the total is about 2^25, where a float CDF steps by 4 and would merge bins.
  const std::int64_t n = (std::int64_t(1) << 24) + 4097;
  const std::vector<float> w = uniform_weights(n, 24, 1.0f, 2.0f);
  device_buffer<float> d_w(w);
  scankit::sampling_table table;
  scankit::build_sampling_table(d_w.data(), n, table);
  ASSERT_EQ(table.status_host(), scankit::sampling_status::ok);
  std::vector<std::uint64_t> cdf(n);
  SCANKIT_CUDA_CHECK(cudaMemcpy(cdf.data(), table.cdf(), sizeof(std::uint64_t) * n, cudaMemcpyDeviceToHost));
  const int e = table.unit_exponent_host();
  const std::vector<double> want = scankit::reference::sampling_cdf(w.data(), n);
  // Each weight (all >= 1 unit here) is off by at most half a unit, so cdf[i] by (i + 1) / 2 units;
  // the serial double sum adds its own rounding, below 2^-40 of it here.
  std::int64_t lost = 0, off = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    lost += i > 0 && !(cdf[i] > cdf[i - 1]);
    const double got = std::ldexp(static_cast<double>(cdf[i]), e);
    off += std::fabs(got - want[i]) > std::ldexp(0.5 * double(i + 1), e) + want[i] * 0x1p-40;
  }
  EXPECT_EQ(lost, 0);
  EXPECT_EQ(off, 0);
  EXPECT_GE(std::ldexp(table.total_host(), -e), 0x1p50);
  const std::int64_t draws = 1'000'000;
  device_buffer<std::int32_t> out(draws);
  scankit::sample(table, out.data(), draws, 3, 0);
  EXPECT_EQ(out.download(), scankit::reference::sample_table(w.data(), n, e, draws, 3, 0));
}

TEST(SamplingAliasStatistics, ZeroWeightBinsNeverDrawnIn1e8Draws) {
  SCANKIT_REQUIRE_GPU();
  EXPECT_EQ(zero_bin_draws_in_1e8<scankit::alias_table>(), 0);
}

// Chi-square of 10^7 (or more) alias draws against w, at the 1e-6 false-failure rate, and not
// suspiciously good (10 standard deviations below the mean).
void expect_alias_fit(const std::vector<float>& w, std::int64_t draws, std::uint64_t seed) {
  const std::int64_t n = static_cast<std::int64_t>(w.size());
  device_buffer<float> d_w(w);
  scankit::alias_table table;
  scankit::build_alias_table(d_w.data(), n, table);
  device_buffer<std::int32_t> out(draws);
  scankit::sample(table, out.data(), draws, seed);
  const std::vector<std::int64_t> counts = histogram(out.download(), n);
  const std::vector<double> p = probabilities(w);
  double dof = -1.0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (w[i] == 0.0f) {
      EXPECT_EQ(counts[i], 0) << "zero-weight bin " << i;
    } else {
      dof += 1.0;
    }
  }
  const double chi2 = chi_square(counts, p, draws);
  EXPECT_LT(chi2, scankit::testing::chi_square_critical(dof, scankit::testing::z_one_in_a_million))
      << "chi-square " << chi2 << " with " << dof << " degrees of freedom";
  EXPECT_GT(chi2, dof - 10.0 * std::sqrt(2.0 * dof));
}

TEST(SamplingAliasStatistics, ChiSquareOnThousandBins) {
  SCANKIT_REQUIRE_GPU();
  expect_alias_fit(uniform_weights(1000, 20261202, 0.5f, 1.5f), 10'000'000, 7);
}

TEST(SamplingAliasStatistics, ChiSquareOnZipfWithZerosAndOneHeavyBin) {
  SCANKIT_REQUIRE_GPU();
  // Skewed: Zipf 1.1 over 2000 bins (many light bins, a few heavy ones that turn light in the
  // sweep), every fifth bin zero, one bin holding over a quarter of the total. The smallest
  // expected count is about 660.
  std::vector<float> w = scankit::reference::zipf_weights<float>(2000, 1.1);
  for (std::size_t i = 4; i < w.size(); i += 5) w[i] = 0.0f;
  w[1234] = 2.0f;
  expect_alias_fit(w, 20'000'000, 8);
}

}  // namespace
