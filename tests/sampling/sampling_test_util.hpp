// Inputs and statistics for the sampling tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace scankit::testing {

// Weights with about `zero_fraction` zeros and the rest spread over six decades (so bins differ
// greatly in size), never all zero.
template <class T>
std::vector<T> sampling_weights(std::int64_t n, double zero_fraction, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0), decades(-6.0, 0.0);
  std::vector<T> w(static_cast<std::size_t>(n));
  for (auto& x : w) x = unit(rng) < zero_fraction ? T(0) : static_cast<T>(std::pow(10.0, decades(rng)));
  if (n > 0) w[static_cast<std::size_t>(rng() % n)] = T(1);
  return w;
}

// Upper critical value of chi-square with k degrees of freedom for false-failure rate alpha given
// by its normal quantile z (Wilson-Hilferty; accurate to about 1% for k >= 10).
inline double chi_square_critical(double k, double z) {
  const double a = 2.0 / (9.0 * k);
  return k * std::pow(1.0 - a + z * std::sqrt(a), 3.0);
}

// z for a one-sided false-failure rate of 1e-6.
constexpr double z_one_in_a_million = 4.7534;

}  // namespace scankit::testing
