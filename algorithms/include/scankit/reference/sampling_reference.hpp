// Host reference for sampling (plain C++, obviously correct, slow), with the same Philox numbers as
// the device and a binary search per draw.
//   rows, segments: the CDF summed serially in double. The device sums in another order, so the two
//     can differ only for a target within rounding distance of a bin boundary (about 2^-50 of draws).
//   tables: the CDF in the table's integer units (table_fixed_point.hpp), given its unit exponent:
//     exact, so the device must agree on every draw.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "scankit/detail/exponential_key.hpp"
#include "scankit/detail/philox.hpp"
#include "scankit/detail/table_fixed_point.hpp"
#include "scankit/sampling.hpp"

namespace scankit::reference {

template <class T>
sampling_status sampling_check(const T* w, std::int64_t n) {
  double total = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (!(w[i] >= T(0)) || std::isinf(w[i])) return sampling_status::invalid_weight;
    total += double(w[i]);
  }
  if (!(total > 0.0)) return sampling_status::all_zero;
  if (std::isinf(total)) return sampling_status::sum_overflow;
  return sampling_status::ok;
}

template <class T>
std::vector<double> sampling_cdf(const T* w, std::int64_t n) {
  std::vector<double> cdf(static_cast<std::size_t>(n));
  double run = 0.0;
  for (std::int64_t i = 0; i < n; ++i) cdf[i] = run += double(w[i]);
  return cdf;
}

// The first bin whose CDF value exceeds u * total (u * total kept below total).
inline std::int32_t inverse_cdf(const std::vector<double>& cdf, double u) {
  const double total = cdf.back();
  double target = u * total;
  if (!(target < total)) target = std::nextafter(total, 0.0);
  return static_cast<std::int32_t>(std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin());
}

// Zipf weights 1 / (i + 1)^s for i < n (the apps' and benchmarks' skewed distribution).
template <class T = double>
std::vector<T> zipf_weights(std::int64_t n, double s) {
  std::vector<T> w(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) w[i] = static_cast<T>(1.0 / std::pow(double(i + 1), s));
  return w;
}

// A unit exponent for tables drawn on the host alone (no device table to ask): the exact path's
// choice from the serial double sum, total at 2^61 .. 2^62 units. A device table may have chosen
// another; draws then differ only for targets within rounding distance of a bin boundary.
template <class T>
int table_unit_exponent(const T* w, std::int64_t n) {
  double total = 0.0;
  for (std::int64_t i = 0; i < n; ++i)
    if (w[i] > T(0)) total += double(w[i]);
  return total > 0.0 && !std::isinf(total) ? std::ilogb(total) - 61 : 0;
}

// What scankit::sample gives for a table built from these weights at unit exponent
// `unit_exponent` (sampling_table::unit_exponent_host; -1 for every draw if the weights are bad).
template <class T>
std::vector<std::int32_t> sample_table(const T* w, std::int64_t n, int unit_exponent, std::int64_t count,
                                       std::uint64_t seed, std::uint64_t offset) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(count), -1);
  if (sampling_check(w, n) != sampling_status::ok) return out;
  std::vector<std::uint64_t> cdf(static_cast<std::size_t>(n));
  std::uint64_t run = 0;
  for (std::int64_t i = 0; i < n; ++i) cdf[i] = run += detail::to_table_units(w[i], unit_exponent).q;
  for (std::int64_t k = 0; k < count; ++k) {
    const std::uint64_t target = detail::table_target(seed, offset + k, run);
    out[k] = static_cast<std::int32_t>(std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin());
  }
  return out;
}

template <class T>
std::vector<std::int32_t> sample_rows(const T* w, std::int64_t rows, std::int64_t cols, std::uint64_t seed,
                                      std::uint64_t offset) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(rows), -1);
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* row = w + r * cols;
    if (cols == 0 || sampling_check(row, cols) != sampling_status::ok) continue;
    out[r] = inverse_cdf(sampling_cdf(row, cols), detail::philox_uniform(seed, offset + r));
  }
  return out;
}

template <class T>
std::vector<std::int32_t> sample_segments(const T* w, const std::vector<std::int64_t>& offsets,
                                          const std::vector<std::int64_t>& draw_offsets, std::uint64_t seed,
                                          std::uint64_t offset) {
  const std::size_t segments = offsets.size() - 1;
  std::vector<std::int32_t> out(static_cast<std::size_t>(draw_offsets.back()), -1);
  for (std::size_t s = 0; s < segments; ++s) {
    const std::int64_t len = offsets[s + 1] - offsets[s];
    const T* seg = w + offsets[s];
    if (len == 0 || sampling_check(seg, len) != sampling_status::ok) continue;
    const std::vector<double> cdf = sampling_cdf(seg, len);
    for (std::int64_t d = draw_offsets[s]; d < draw_offsets[s + 1]; ++d)
      out[d] = inverse_cdf(cdf, detail::philox_uniform(seed, offset + d));
  }
  return out;
}

// What scankit::sample_without_replacement gives: the k smallest keys -log(u_i) / w_i (formed with
// an unbounded exponent, detail/exponential_key.hpp), ties by index.
template <class T>
std::vector<std::int32_t> sample_without_replacement(const T* w, std::int64_t n, std::int64_t k, std::uint64_t seed,
                                                     std::uint64_t offset) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(k), -1);
  std::vector<std::uint64_t> key(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    if (!(w[i] >= T(0)) || std::isinf(w[i])) return out;
    key[i] = detail::exponential_key(double(w[i]), seed, offset + i);
  }
  std::vector<std::int32_t> order(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) order[i] = static_cast<std::int32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return key[a] < key[b]; });
  for (std::int64_t r = 0; r < k; ++r)
    if (key[order[r]] < detail::exponential_key_weightless) out[r] = order[r];
  return out;
}

// sample_rows_top's filter for one row, in double: the weight exp(-(shift - value) / temperature)
// of each kept token (0 for the others), by sorting the row. Empty when the row is bad. Ties with
// the last kept token (equal values) are kept. The device works in float and selects with 2^-19-nat
// codes and fixed-point masses, so near a boundary the two may keep one token more or less.
inline std::vector<double> top_filter(const float* row, std::int64_t cols, const top_sampling_options& o) {
  std::vector<double> weight(static_cast<std::size_t>(cols), 0.0);
  double m = -HUGE_VAL;
  for (std::int64_t j = 0; j < cols; ++j) {
    const float v = row[j];
    if (o.logits ? (std::isnan(v) || v == HUGE_VALF) : (!(v >= 0.0f) || std::isinf(v))) return {};
    m = std::max(m, double(v));
  }
  if (o.logits ? !(m > -HUGE_VAL) : !(m > 0.0)) return {};
  std::vector<std::int64_t> order(static_cast<std::size_t>(cols));
  for (std::int64_t j = 0; j < cols; ++j) order[j] = j;
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return row[a] > row[b]; });
  const double shift = o.logits ? m : std::log(m);
  auto w = [&](std::int64_t j) {
    const double v = o.logits ? double(row[j]) : std::log(double(row[j]));
    return std::exp(-(shift - v) / double(o.temperature));
  };
  std::size_t kept = static_cast<std::size_t>(cols);
  if (o.top_k > 0 && o.top_k < cols) kept = static_cast<std::size_t>(o.top_k);
  if (o.top_p < 1.0) {
    double total = 0.0;
    for (std::size_t r = 0; r < kept; ++r) total += w(order[r]);
    double run = 0.0;
    std::size_t r = 0;
    while (r < kept) {
      run += w(order[r++]);
      if (run >= o.top_p * total) break;
    }
    kept = r;
  }
  while (kept < order.size() && row[order[kept]] == row[order[kept - 1]]) ++kept;  // ties stay
  for (std::size_t r = 0; r < kept; ++r) weight[order[r]] = w(order[r]);
  return weight;
}

}  // namespace scankit::reference
