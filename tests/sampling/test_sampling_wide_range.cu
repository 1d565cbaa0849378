// Weights across the whole float and double range, through every draw method: the guide table,
// the alias table, rows, segments, without replacement and rows_top. Each distribution is valid
// (finite, non-negative, not all zero): every method must build with status ok, draw only bins of
// positive weight and fit the weights by chi-square (fixed seeds; false-failure rate 1e-6 per
// check). Then tables whose device memory was overwritten: draws stay inside the table and give
// -1 where the table cannot be trusted (run under compute-sanitizer memcheck in the GPU check).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "alias_test_util.hpp"
#include "sampling_test_util.hpp"
#include "scankit/device/sampling/alias_header.cuh"
#include "scankit/device/sampling/table_header.cuh"
#include "scankit/reference/alias_reference.hpp"
#include "scankit/sampling.hpp"
#include "support/gpu_test.hpp"

namespace {

using scankit::testing::device_buffer;

// A named distribution of n weights.
template <class T>
struct weight_set {
  std::string name;
  std::vector<T> w;
};

template <class T>
std::vector<T> log_uniform(std::int64_t n, double lo_decade, double hi_decade, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> decade(lo_decade, hi_decade);
  std::vector<T> w(static_cast<std::size_t>(n));
  for (auto& x : w) x = static_cast<T>(std::pow(10.0L, static_cast<long double>(decade(rng))));
  return w;
}

// The distributions of this file: huge ratios between bins, denormal weights, one bin holding all
// the mass, every weight denormal, and (float) sums beyond the largest float.
template <class T>
std::vector<weight_set<T>> wide_range_sets() {
  constexpr bool is_float = std::is_same_v<T, float>;
  const std::int64_t n = 1000;
  std::vector<weight_set<T>> sets;
  if constexpr (is_float) {
    // Log-uniform over 1e-30 .. 1e30 with the bins of the first report of a fault on such weights.
    auto w = log_uniform<T>(n, -30.0, 30.0, 4402);
    w[0] = 1e-30f, w[999] = 1e30f, w[500] = 1e-40f, w[501] = 3e29f;
    sets.push_back({"float 1e-30..1e30", w});
    // The whole positive float range: denormals up to 3e38; four bins of 3e38 make the sum
    // about 1.2e39, beyond FLT_MAX.
    w = log_uniform<T>(n, -45.0, 38.4, 20261203);
    w[10] = w[400] = w[700] = w[999] = 3e38f;
    sets.push_back({"float 1e-45..3e38, sum beyond FLT_MAX", w});
    // Every weight near the largest float: the sum is about 2.4e41.
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<float> big(1e38f, 3.4e38f);
    for (auto& x : w) x = big(rng);
    sets.push_back({"float all near FLT_MAX", w});
  } else {
    // The whole positive double range: denormals from 1e-320 up to 1e308, the sum below DBL_MAX.
    auto w = log_uniform<T>(n, -320.0, 307.0, 20261203);
    w[999] = 1e308;
    sets.push_back({"double 1e-320..1e308", w});
  }
  // One bin with all the mass, every other weight denormal (some the smallest denormal).
  std::vector<T> one(static_cast<std::size_t>(n), is_float ? T(1e-40f) : T(1e-310));
  for (std::int64_t i = 0; i < n; i += 7) one[i] = std::numeric_limits<T>::denorm_min();
  one[617] = T(1);
  sets.push_back({"one bin holds the mass, the rest denormal", one});
  // Every weight denormal: the distribution is well defined, only its scale is tiny.
  std::vector<T> tiny = log_uniform<T>(n, is_float ? -44.0 : -322.0, is_float ? -39.0 : -309.0, 11);
  sets.push_back({"every weight denormal", tiny});
  for (auto& s : sets) {
    long double total = 0.0L;
    for (T x : s.w) {
      EXPECT_TRUE(std::isfinite(x) && x > T(0)) << s.name;
      total += x;
    }
    EXPECT_LT(total, static_cast<long double>(DBL_MAX)) << s.name;  // valid for every method
  }
  return sets;
}

// Checks draws against the weights: every draw a bin of positive weight, and a chi-square fit.
// Cells are the bins expected at least 5 times; the rest are pooled into one cell, or into the
// most probable bin's cell when the pool expects fewer than 5 draws. A pool expected fewer than
// 1e-7 times must stay empty (that check's false-failure rate is below 1e-7).
template <class T>
void expect_draws_fit(const std::vector<T>& w, const std::vector<std::int32_t>& draws, const std::string& what) {
  SCOPED_TRACE(what);
  const std::int64_t n = static_cast<std::int64_t>(w.size());
  const double count = static_cast<double>(draws.size());
  long double total = 0.0L;
  for (T x : w) total += x;
  std::vector<std::int64_t> hits(static_cast<std::size_t>(n), 0);
  std::int64_t bad = 0;
  for (std::int32_t v : draws) {
    if (v < 0 || v >= n || !(w[v] > T(0))) {
      if (++bad <= 5) ADD_FAILURE() << "draw " << v;
    } else {
      ++hits[v];
    }
  }
  ASSERT_EQ(bad, 0);
  std::vector<double> expected_cells, observed_cells;
  double pool_expected = 0.0, pool_observed = 0.0;
  std::size_t largest = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double e = static_cast<double>(static_cast<long double>(w[i]) / total) * count;
    if (e >= 5.0) {
      if (expected_cells.empty() || e > expected_cells[largest]) largest = expected_cells.size();
      expected_cells.push_back(e);
      observed_cells.push_back(static_cast<double>(hits[i]));
    } else {
      pool_expected += e;
      pool_observed += static_cast<double>(hits[i]);
    }
  }
  ASSERT_FALSE(expected_cells.empty());
  if (pool_expected >= 5.0) {
    expected_cells.push_back(pool_expected);
    observed_cells.push_back(pool_observed);
  } else {
    if (pool_expected < 1e-7) EXPECT_EQ(pool_observed, 0.0) << "draws of bins expected " << pool_expected << " times";
    expected_cells[largest] += pool_expected;
    observed_cells[largest] += pool_observed;
  }
  if (expected_cells.size() < 2) return;  // one cell: every draw is in it (checked above)
  double chi2 = 0.0;
  for (std::size_t c = 0; c < expected_cells.size(); ++c)
    chi2 += (observed_cells[c] - expected_cells[c]) * (observed_cells[c] - expected_cells[c]) / expected_cells[c];
  const double dof = static_cast<double>(expected_cells.size() - 1);
  EXPECT_LT(chi2, scankit::testing::chi_square_critical(dof, scankit::testing::z_one_in_a_million))
      << "chi-square " << chi2 << " with " << dof << " degrees of freedom";
}

// The same weights `rows` times, row-major.
template <class T>
std::vector<T> repeated_rows(const std::vector<T>& w, std::int64_t rows) {
  std::vector<T> all;
  all.reserve(w.size() * static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) all.insert(all.end(), w.begin(), w.end());
  return all;
}

template <class T>
class SamplingWideRange : public ::testing::Test {};
using WeightTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SamplingWideRange, WeightTypes);

constexpr std::int64_t table_draws = std::int64_t(1) << 22;
constexpr std::int64_t row_copies = 8192;  // one draw per row

TYPED_TEST(SamplingWideRange, GuideTable) {
  SCANKIT_REQUIRE_GPU();
  for (const auto& s : wide_range_sets<TypeParam>()) {
    const std::int64_t n = static_cast<std::int64_t>(s.w.size());
    device_buffer<TypeParam> d_w(s.w);
    scankit::sampling_table table;
    scankit::build_sampling_table(d_w.data(), n, table);
    ASSERT_EQ(table.status_host(), scankit::sampling_status::ok) << s.name;
    device_buffer<std::int32_t> out(table_draws);
    out.poison();
    scankit::sample(table, out.data(), table_draws, 4402);
    expect_draws_fit(s.w, out.download(), s.name);
  }
}

TYPED_TEST(SamplingWideRange, AliasTable) {
  SCANKIT_REQUIRE_GPU();
  for (const auto& s : wide_range_sets<TypeParam>()) {
    const std::int64_t n = static_cast<std::int64_t>(s.w.size());
    device_buffer<TypeParam> d_w(s.w);
    scankit::alias_table table;
    scankit::workspace ws;
    scankit::build_alias_table(d_w.data(), n, table, nullptr, &ws);
    ASSERT_EQ(table.status_host(), scankit::sampling_status::ok) << s.name;
    std::vector<scankit::alias_entry> entries(static_cast<std::size_t>(n));
    SCANKIT_CUDA_CHECK(cudaMemcpy(entries.data(), table.entries(), sizeof(scankit::alias_entry) * entries.size(),
                                  cudaMemcpyDeviceToHost));
    {
      SCOPED_TRACE(s.name);
      scankit::testing::expect_alias_table_exact(s.w, entries);
    }
    const auto want = scankit::reference::alias_table_of(s.w.data(), n, table.total_host());
    for (std::int64_t b = 0; b < n; ++b)
      ASSERT_TRUE(entries[b].threshold == want[b].threshold && entries[b].alias == want[b].alias)
          << s.name << " bucket " << b;
    device_buffer<std::int32_t> out(table_draws);
    out.poison();
    scankit::sample(table, out.data(), table_draws, 4402);
    const std::vector<std::int32_t> draws = out.download();
    expect_draws_fit(s.w, draws, s.name);
    const std::vector<std::int32_t> head(draws.begin(), draws.begin() + 65536);
    EXPECT_EQ(head, scankit::reference::alias_sample(want, 65536, 4402, 0)) << s.name;
  }
}

// The call sequence of the first report, with its 2^24 draws.
TEST(SamplingWideRange, AliasDrawsOfTheFirstReport) {
  SCANKIT_REQUIRE_GPU();
  const auto s = wide_range_sets<float>().front();
  device_buffer<float> d_w(s.w);
  scankit::workspace ws;
  scankit::alias_table alias;
  scankit::build_alias_table(d_w.data(), 1000, alias, nullptr, &ws);
  const std::int64_t count = std::int64_t(1) << 24;
  device_buffer<std::int32_t> out(count);
  scankit::sample(alias, out.data(), count, 4402);
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  ASSERT_EQ(alias.status_host(), scankit::sampling_status::ok);
  expect_draws_fit(s.w, out.download(), s.name);
}

TYPED_TEST(SamplingWideRange, Rows) {
  SCANKIT_REQUIRE_GPU();
  for (const auto& s : wide_range_sets<TypeParam>()) {
    const std::int64_t n = static_cast<std::int64_t>(s.w.size());
    device_buffer<TypeParam> d_w(repeated_rows(s.w, row_copies));
    device_buffer<std::int32_t> out(row_copies);
    out.poison();
    scankit::sample_rows(d_w.data(), row_copies, n, out.data(), 4402);
    expect_draws_fit(s.w, out.download(), s.name);
  }
}

TYPED_TEST(SamplingWideRange, Segments) {
  SCANKIT_REQUIRE_GPU();
  for (const auto& s : wide_range_sets<TypeParam>()) {
    // Two segments of the same weights, drawn 2^20 and 2^21 times.
    const std::int64_t n = static_cast<std::int64_t>(s.w.size());
    std::vector<TypeParam> both = repeated_rows(s.w, 2);
    device_buffer<TypeParam> d_w(both);
    const std::int64_t first = std::int64_t(1) << 20, total = first * 3;
    device_buffer<std::int64_t> offsets(std::vector<std::int64_t>{0, n, 2 * n});
    device_buffer<std::int64_t> draw_offsets(std::vector<std::int64_t>{0, first, total});
    device_buffer<std::int32_t> out(total);
    out.poison();
    scankit::sample_segments(d_w.data(), 2 * n, offsets.data(), 2, draw_offsets.data(), total, out.data(), 4402);
    const std::vector<std::int32_t> draws = out.download();
    expect_draws_fit(s.w, std::vector<std::int32_t>(draws.begin(), draws.begin() + first), s.name + ", segment 0");
    expect_draws_fit(s.w, std::vector<std::int32_t>(draws.begin() + first, draws.end()), s.name + ", segment 1");
  }
}

TYPED_TEST(SamplingWideRange, WithoutReplacement) {
  SCANKIT_REQUIRE_GPU();
  for (const auto& s : wide_range_sets<TypeParam>()) {
    const std::int64_t n = static_cast<std::int64_t>(s.w.size());
    device_buffer<TypeParam> d_w(s.w);
    // All n: a permutation of the bins (every weight is positive).
    device_buffer<std::int32_t> all(n);
    all.poison();
    scankit::sample_without_replacement(d_w.data(), n, n, all.data(), 4402);
    std::vector<std::int32_t> perm = all.download();
    std::sort(perm.begin(), perm.end());
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(perm[i], i) << s.name;
    // The first pick is a draw from the whole distribution: 4096 calls at disjoint counters.
    const std::int64_t calls = 4096;
    device_buffer<std::int32_t> firsts(calls);
    firsts.poison();
    for (std::int64_t c = 0; c < calls; ++c)
      scankit::sample_without_replacement(d_w.data(), n, 1, firsts.data() + c, 4402, std::uint64_t(c) * n);
    expect_draws_fit(s.w, firsts.download(), s.name);
  }
}

// rows_top with the weights as probabilities and no filter draws from the weights themselves.
TEST(SamplingWideRange, RowsTopWithoutFilters) {
  SCANKIT_REQUIRE_GPU();
  for (const auto& s : wide_range_sets<float>()) {
    const std::int64_t n = static_cast<std::int64_t>(s.w.size());
    device_buffer<float> d_w(repeated_rows(s.w, row_copies));
    device_buffer<std::int32_t> out(row_copies);
    out.poison();
    scankit::top_sampling_options options;
    options.logits = false;
    scankit::sample_rows_top(d_w.data(), row_copies, n, out.data(), options, 4402);
    expect_draws_fit(s.w, out.download(), s.name);
  }
}

// Tables whose device memory was overwritten after the build: the draws read only inside the
// table (compute-sanitizer memcheck proves it in the GPU check) and give -1 where it cannot be
// trusted.
TEST(SamplingWideRange, OverwrittenAliasTableGivesMinusOne) {
  SCANKIT_REQUIRE_GPU();
  namespace sd = scankit::device_detail::sampling;
  const std::int64_t n = 4099, count = 100000;
  const auto w = scankit::testing::alias_weights<float>(n, 1, 3);
  device_buffer<float> d_w(w);
  scankit::alias_table table;
  scankit::build_alias_table(d_w.data(), n, table);
  ASSERT_EQ(table.status_host(), scankit::sampling_status::ok);
  auto draws = [&] {
    device_buffer<std::int32_t> out(count);
    out.poison();
    scankit::sample(table, out.data(), count, 9);
    return out.download();
  };
  // Entries whose alias is no bin: the draws that take them give -1, the others a bin.
  std::vector<scankit::alias_entry> garbage(static_cast<std::size_t>(n));
  std::mt19937 rng(5);
  for (auto& e : garbage) e = scankit::alias_entry{static_cast<std::uint32_t>(rng()), static_cast<std::int32_t>(rng())};
  auto* entries = const_cast<scankit::alias_entry*>(table.entries());
  SCANKIT_CUDA_CHECK(cudaMemcpy(entries, garbage.data(), sizeof(scankit::alias_entry) * n, cudaMemcpyHostToDevice));
  std::int64_t minus_one = 0;
  for (std::int32_t v : draws()) {
    ASSERT_TRUE(v == -1 || (v >= 0 && v < n)) << v;
    minus_one += v == -1;
  }
  EXPECT_GT(minus_one, count / 2);  // random aliases are almost never bins
  // A header whose bin count disagrees with the table's (status still ok): every draw -1.
  sd::alias_header h{};
  SCANKIT_CUDA_CHECK(cudaMemcpy(&h, table.header(), sizeof h, cudaMemcpyDeviceToHost));
  ASSERT_EQ(h.bins, n);
  for (std::int64_t bins : {std::int64_t(1) << 40, std::int64_t(-3), n + 1}) {
    h.bins = bins;
    SCANKIT_CUDA_CHECK(cudaMemcpy(const_cast<void*>(table.header()), &h, sizeof h, cudaMemcpyHostToDevice));
    for (std::int32_t v : draws()) ASSERT_EQ(v, -1) << "header bins " << bins;
  }
}

TEST(SamplingWideRange, OverwrittenGuideTableGivesMinusOneOrBins) {
  SCANKIT_REQUIRE_GPU();
  namespace sd = scankit::device_detail::sampling;
  const std::int64_t n = 4099, count = 100000;
  const auto w = scankit::testing::alias_weights<float>(n, 0, 3);
  device_buffer<float> d_w(w);
  scankit::sampling_table table;
  scankit::build_sampling_table(d_w.data(), n, table);
  ASSERT_EQ(table.status_host(), scankit::sampling_status::ok);
  auto draws = [&] {
    device_buffer<std::int32_t> out(count);
    out.poison();
    scankit::sample(table, out.data(), count, 9);
    return out.download();
  };
  // A guide of random entries and a header with a random total and cell size (status still ok):
  // draws are bins or -1.
  std::vector<std::uint32_t> guide(static_cast<std::size_t>(table.guide_size()));
  std::mt19937 rng(5);
  for (auto& g : guide) g = rng();
  SCANKIT_CUDA_CHECK(cudaMemcpy(const_cast<std::uint32_t*>(table.guide()), guide.data(),
                                sizeof(std::uint32_t) * guide.size(), cudaMemcpyHostToDevice));
  sd::table_header h{};
  SCANKIT_CUDA_CHECK(cudaMemcpy(&h, table.header(), sizeof h, cudaMemcpyDeviceToHost));
  ASSERT_EQ(h.bins, n);
  for (int shift : {16, 40, 63}) {
    h.shift = shift;
    h.total_units = (std::uint64_t(rng()) << 32) | rng();
    SCANKIT_CUDA_CHECK(cudaMemcpy(const_cast<void*>(table.header()), &h, sizeof h, cudaMemcpyHostToDevice));
    for (std::int32_t v : draws()) ASSERT_TRUE(v == -1 || (v >= 0 && v < n)) << v;
  }
  // A header whose bin count disagrees with the table's: every draw -1.
  h.bins = std::int64_t(1) << 40;
  SCANKIT_CUDA_CHECK(cudaMemcpy(const_cast<void*>(table.header()), &h, sizeof h, cudaMemcpyHostToDevice));
  for (std::int32_t v : draws()) ASSERT_EQ(v, -1);
}

}  // namespace
