// Host tests of sampling_table's fixed point (scankit/detail/table_fixed_point.hpp, shared with the
// device build and draws): the conversion of weights to units at its edges, the saturating sum,
// the targets of draws, and the host reference's table draws on small distributions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "sampling_test_util.hpp"
#include "scankit/detail/table_fixed_point.hpp"
#include "scankit/reference/sampling_reference.hpp"
#include "scankit/sampling.hpp"

namespace {

using scankit::detail::table_target;
using scankit::detail::table_unit_scale;
using scankit::detail::table_units_max;
using scankit::detail::to_table_units;

TEST(SamplingTableFixedPoint, WeightsBecomeUnitsRoundedToNearestEvenAndAtLeastOne) {
  EXPECT_EQ(to_table_units(0.0f, 0).q, 0u);
  EXPECT_EQ(to_table_units(1.0, 0).q, 1u);
  EXPECT_EQ(to_table_units(2.5, 0).q, 2u);  // ties to even
  EXPECT_EQ(to_table_units(3.5, 0).q, 4u);
  EXPECT_EQ(to_table_units(1e-30, 0).q, 1u);  // a non-zero weight below half a unit still owns one
  EXPECT_EQ(to_table_units(std::numeric_limits<double>::denorm_min(), 0).q, 1u);
  EXPECT_EQ(to_table_units(3.0f, -4).q, 48u);  // units of 2^-4
  EXPECT_EQ(to_table_units(48.0, 4).q, 3u);    // units of 2^4
  EXPECT_EQ(to_table_units(40.0, 4).q, 2u);    // 2.5 units: to even
  const auto beyond = to_table_units(0x1p63, 0);
  EXPECT_TRUE(beyond.beyond);
  EXPECT_FALSE(beyond.bad);
  EXPECT_FALSE(to_table_units(0x1p62, 0).beyond);
  EXPECT_TRUE(to_table_units(std::numeric_limits<double>::max(), -10).beyond);  // overflows double
  for (double bad : {-1.0, -0.0 - 1e-300, std::nan(""), std::numeric_limits<double>::infinity()}) {
    const auto u = to_table_units(bad, 0);
    EXPECT_TRUE(u.bad) << bad;
    EXPECT_EQ(u.q, 0u);
  }
  EXPECT_TRUE(to_table_units(-std::numeric_limits<float>::infinity(), 3).bad);
  EXPECT_FALSE(to_table_units(-0.0f, 3).bad);  // negative zero is a zero weight
  EXPECT_EQ(to_table_units(-0.0f, 3).q, 0u);
}

TEST(SamplingTableFixedPoint, TwoStepScaleEqualsLdexpAtExtremeExponents) {
  // Unit exponents below -1000 scale by 2^1000 first (table_unit_scale): the same units as one
  // exact ldexp, for weights at the bottom of double's range.
  for (int e : {-1100, -1074, -1023, -1001, -1000, -999, -60, 0, 60, 960}) {
    const table_unit_scale scale(e);
    for (double w : {std::numeric_limits<double>::denorm_min(), 0x1p-1060, 0x1.8p-1050, 0x1p-1000, 1e-310, 0.75, 1e300}) {
      const double x = std::ldexp(w, -e);
      const auto u = to_table_units(w, scale);
      if (!(x < 0x1p63)) {
        EXPECT_TRUE(u.beyond) << w << " at " << e;
      } else {
        const std::uint64_t want = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::nearbyint(x)));
        EXPECT_EQ(u.q, want) << w << " at " << e;
      }
    }
  }
}

TEST(SamplingTableFixedPoint, SaturatingSumIsAssociativeAndShowsOverflow) {
  const scankit::detail::saturating_plus plus;
  EXPECT_EQ(plus(3, 4), 7u);
  EXPECT_EQ(plus(table_units_max, 1), table_units_max);
  EXPECT_EQ(plus(std::uint64_t(1) << 63, std::uint64_t(1) << 63), table_units_max);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 10000; ++i) {
    const int bits = 60 + static_cast<int>(rng() % 5);  // some triples overflow, some do not
    const std::uint64_t a = rng() >> (64 - bits), b = rng() >> (64 - bits), c = rng() >> (64 - bits);
    EXPECT_EQ(plus(plus(a, b), c), plus(a, plus(b, c)));
    const unsigned __int128 exact = static_cast<unsigned __int128>(a) + b + c;
    EXPECT_EQ(plus(plus(a, b), c), exact > table_units_max ? table_units_max : static_cast<std::uint64_t>(exact));
  }
}

TEST(SamplingTableFixedPoint, TargetsStayBelowTheTotalAndSpreadEvenly) {
  for (std::uint64_t total : {std::uint64_t(1), std::uint64_t(7), std::uint64_t(1) << 50, table_units_max}) {
    for (std::uint64_t k = 0; k < 2000; ++k) EXPECT_LT(table_target(11, k, total), total);
  }
  // 5 units: each gets floor or ceil of 2^64 / 5 of the 64-bit fractions; 10^5 draws fit that.
  std::vector<double> count(5, 0.0);
  const int draws = 100000;
  for (int k = 0; k < draws; ++k) count[table_target(3, k, 5)] += 1.0;
  double chi2 = 0.0;
  for (double c : count) chi2 += (c - draws / 5.0) * (c - draws / 5.0) / (draws / 5.0);
  EXPECT_LT(chi2, scankit::testing::chi_square_critical(4, scankit::testing::z_one_in_a_million) * 1.5);
}

TEST(SamplingTableReference, DrawsFollowTheUnitsAndSkipZeroWeights) {
  const std::vector<float> w = {0.0f, 1.0f, 0.0f, 3.0f, 0.0f};
  const std::int64_t draws = 200000;
  const std::vector<std::int32_t> got = scankit::reference::sample_table(w.data(), 5, -40, draws, 99, 0);
  std::vector<double> count(5, 0.0);
  for (std::int32_t b : got) {
    ASSERT_TRUE(b == 1 || b == 3) << b;
    count[b] += 1.0;
  }
  // Bin 1 holds a quarter of the units: a binomial with sd sqrt(draws * 3 / 16) ~ 194.
  EXPECT_NEAR(count[1], draws / 4.0, 5 * 194.0);
  // Offsets split a run: the same draws.
  const auto first = scankit::reference::sample_table(w.data(), 5, -40, 1000, 99, 0);
  const auto second = scankit::reference::sample_table(w.data(), 5, -40, 1000, 99, 1000);
  for (int k = 0; k < 1000; ++k) {
    EXPECT_EQ(first[k], got[k]);
    EXPECT_EQ(second[k], got[1000 + k]);
  }
  // A unit exponent chosen on the host keeps the total within 2^61 .. 2^62 units.
  const int e = scankit::reference::table_unit_exponent(w.data(), 5);
  EXPECT_EQ(e, 2 - 61);  // the total, 4, is 2^2
  EXPECT_EQ(scankit::reference::sample_table(std::vector<float>{0, 0}.data(), 2, 0, 3, 1, 0),
            (std::vector<std::int32_t>{-1, -1, -1}));
}

TEST(SamplingTableArguments, BytesForCountsTheTableAndItsWorkspace) {
  // CDF (8), code (2) and guide (4 per 8 bins) per bin, plus the build's tile states.
  EXPECT_GE(scankit::sampling_table::bytes_for(1 << 20), std::size_t(1 << 20) * 10 + (std::size_t(1) << 20) / 2);
  EXPECT_GT(scankit::sampling_table::bytes_for(1 << 20), scankit::sampling_table::bytes_for(1 << 10));
  EXPECT_EQ(scankit::sampling_table::bytes_for(-5), scankit::sampling_table::bytes_for(0));
}

}  // namespace

// The exponential keys of sampling without replacement (scankit/detail/exponential_key.hpp).
namespace {

// -log(u) / w in long double (its exponent range holds every double quotient).
long double exact_key(double w, std::uint64_t seed, std::uint64_t counter) {
  return -std::log(static_cast<long double>(scankit::detail::philox_uniform(seed, counter) + 0x1.0p-54)) /
         static_cast<long double>(w);
}

TEST(SamplingExponentialKey, OrdersItemsAsTheQuotientAcrossTheDoubleRange) {
  using scankit::detail::exponential_key;
  std::mt19937_64 rng(20261203);
  std::uniform_real_distribution<double> decade(-323.0, 308.0);
  std::vector<std::pair<std::uint64_t, long double>> keys;
  for (std::uint64_t i = 0; i < 20000; ++i) {
    const double w = std::pow(10.0, decade(rng));
    if (!(w > 0.0) || std::isinf(w)) continue;
    keys.emplace_back(exponential_key(w, 7, i), exact_key(w, 7, i));
    ASSERT_LT(keys.back().first, scankit::detail::exponential_key_weightless) << "w " << w;
  }
  std::sort(keys.begin(), keys.end());
  // Sorted by the integer key, the quotients never decrease by more than a double's rounding.
  for (std::size_t i = 1; i < keys.size(); ++i)
    ASSERT_GE(keys[i].second, keys[i - 1].second * (1.0L - 0x1p-51L)) << "at " << i;
}

TEST(SamplingExponentialKey, PowerOfTwoScalingShiftsOnlyTheExponent) {
  using scankit::detail::exponential_key;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const double w = 1.0 + double(i) / 1000.0;
    const std::uint64_t key = exponential_key(w, 3, i);
    // w 2^-1000 (a tiny normal) and w 2^-1070 (a denormal with its low bits exact) give the same
    // mantissa bits and an exponent 1000 (1070) higher; w 2^1000 one 1000 lower.
    EXPECT_EQ(exponential_key(std::ldexp(w, -1000), 3, i), key + (std::uint64_t(1000) << 52));
    EXPECT_EQ(exponential_key(std::ldexp(w, 1000), 3, i), key - (std::uint64_t(1000) << 52));
    if (std::ldexp(std::ldexp(w, -1070), 1070) == w)
      EXPECT_EQ(exponential_key(std::ldexp(w, -1070), 3, i), key + (std::uint64_t(1070) << 52));
  }
  EXPECT_EQ(exponential_key(0.0, 3, 0), scankit::detail::exponential_key_weightless);
}

}  // namespace
