// The alias tests' inputs and their exactness check, shared by the host and the GPU tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "sampling_test_util.hpp"
#include "scankit/detail/alias_fixed_point.hpp"
#include "scankit/reference/alias_reference.hpp"

namespace scankit::testing {

// The awkward sizes of the exactness tests.
inline const std::vector<std::int64_t>& alias_sizes() {
  static const std::vector<std::int64_t> sizes = {1, 2, 7, 4097, 100003, (std::int64_t(1) << 20) + 1};
  return sizes;
}

// Weights over six decades with about 30% zeros (pattern 0), or the same with one weight holding
// about 90% of the total (pattern 1); never all zero.
template <class T>
std::vector<T> alias_weights(std::int64_t n, int pattern, std::uint64_t seed) {
  std::vector<T> w = sampling_weights<T>(n, 0.3, seed);
  if (pattern == 1) {
    double total = 0.0;
    for (T x : w) total += double(x);
    w[static_cast<std::size_t>((seed * 7919) % std::uint64_t(n))] = static_cast<T>(9.0 * total + 1.0);
  }
  return w;
}

// The table is exact for the weights: for every bin i, n w_i / W == threshold_i / 2^32 + the sum
// of (1 - threshold_b / 2^32) over the buckets b != i with alias_b == i (a full bucket, alias_b ==
// b, gives b exactly 1). Tolerance, in units of 2^-32 of a bucket: 1 for the rounding of q_i, plus
// 2^-40 of the bin's mass for the double total, plus n / 2 + 1 for heavy bins (n w_i / W > 1, or
// within a unit of it), which may absorb the rounding remainder. Also: the masses sum to n 2^32
// exactly, and a zero weight has threshold 0 and is nobody's alias.
template <class T>
void expect_alias_table_exact(const std::vector<T>& w, const std::vector<alias_entry>& table) {
  const std::int64_t n = static_cast<std::int64_t>(w.size());
  ASSERT_EQ(static_cast<std::int64_t>(table.size()), n);
  long double total = 0.0L;
  for (T x : w) total += static_cast<long double>(x);
  for (std::int64_t b = 0; b < n; ++b) {
    ASSERT_TRUE(table[b].alias >= 0 && table[b].alias < n) << "bucket " << b << " alias " << table[b].alias;
    if (w[table[b].alias] == T(0))
      ADD_FAILURE() << "bucket " << b << " aliases zero-weight bin " << table[b].alias;
  }
  const std::vector<std::uint64_t> units = scankit::reference::alias_bin_units(table);
  long double sum = 0.0L;
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    sum += static_cast<long double>(units[i]);
    const long double want = static_cast<long double>(w[i]) / total * n * 4294967296.0L;
    const long double tolerance = 1.0L + want * 0x1p-40L + (want > 4294967295.0L ? n / 2.0L + 1.0L : 0.0L);
    if (std::fabs(static_cast<long double>(units[i]) - want) > tolerance && ++bad <= 5)
      ADD_FAILURE() << "n " << n << " bin " << i << ": " << units[i] << " units, want " << static_cast<double>(want)
                    << " +- " << static_cast<double>(tolerance);
    if (w[i] == T(0)) {
      EXPECT_EQ(table[i].threshold, 0u) << "zero-weight bin " << i;
    }
  }
  EXPECT_EQ(bad, 0) << "n " << n;
  EXPECT_EQ(sum, static_cast<long double>(n) * 4294967296.0L);
}

}  // namespace scankit::testing
