// Host reference of the alias method (plain C++, sequential): the textbook sweep over light and
// heavy bins with a "remaining mass" for the current heavy bin, on the same fixed point as the
// device (scankit/detail/alias_fixed_point.hpp). Given the device's total it gives the device's
// table bit for bit (the device computes the same sweep in closed form by merge path,
// device/sampling/alias_merge.cuh); given its own serial total it may differ by a unit of 2^-32 in
// a few buckets.
#pragma once

#include <cstdint>
#include <vector>

#include "scankit/detail/alias_fixed_point.hpp"
#include "scankit/sampling.hpp"

namespace scankit::reference {

template <class T>
double alias_total(const T* w, std::int64_t n) {
  double total = 0.0;
  for (std::int64_t i = 0; i < n; ++i) total += static_cast<double>(w[i]);
  return total;
}

// The table of n > 0 valid weights whose sum is `total`. Lights (q <= 2^32) in index order each
// take their deficit 2^32 - q from the current heavy bin j, whose remaining mass r drops by it; when
// r <= 2^32 the heavy bin is light itself: its bucket keeps r and takes the rest (2^32 - r) from the
// next heavy bin. The last heavy bin keeps a full bucket (it absorbs the rounding remainder).
template <class T>
std::vector<alias_entry> alias_table_of(const T* w, std::int64_t n, double total) {
  using scankit::detail::alias_full;
  using scankit::detail::alias_unit;
  const scankit::detail::alias_scale s = scankit::detail::alias_scale_for(total, n);
  std::vector<std::int64_t> q(static_cast<std::size_t>(n));
  std::vector<std::int32_t> light, heavy;
  for (std::int64_t i = 0; i < n; ++i) {
    q[i] = static_cast<std::int64_t>(scankit::detail::alias_fixed_weight(static_cast<double>(w[i]), s));
    (q[i] <= std::int64_t(alias_unit) ? light : heavy).push_back(static_cast<std::int32_t>(i));
  }
  std::vector<alias_entry> table(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) table[i] = alias_entry{alias_full, static_cast<std::int32_t>(i)};
  if (heavy.empty()) return table;  // every q is 2^32 up to rounding: all buckets full
  const std::int64_t unit = std::int64_t(alias_unit), last = std::int64_t(heavy.size()) - 1;
  std::int64_t j = 0, r = q[heavy[0]];  // the current heavy bin and its remaining mass
  auto close_heavy = [&] {              // heavy j turns light with r: it keeps r, heavy j + 1 pays the rest
    const std::int32_t h = heavy[j];
    if (r < unit) table[h] = alias_entry{static_cast<std::uint32_t>(r > 0 ? r : 0), heavy[j + 1]};
    r = q[heavy[j + 1]] - (unit - r);
    ++j;
  };
  for (std::int32_t l : light) {
    while (j < last && r <= unit) close_heavy();
    const std::int64_t deficit = unit - q[l];
    if (deficit > 0) table[l] = alias_entry{static_cast<std::uint32_t>(q[l]), heavy[j]};
    r -= deficit;
  }
  while (j < last) close_heavy();  // heavy bins the lights did not reach (rounding only)
  return table;
}

// Mass of each bin in the table, in units of 2^-32 of a bucket (they sum to n 2^32 exactly):
// bucket b gives threshold_b to b and 2^32 - threshold_b to alias_b.
inline std::vector<std::uint64_t> alias_bin_units(const std::vector<alias_entry>& table) {
  std::vector<std::uint64_t> units(table.size(), 0);
  for (std::size_t b = 0; b < table.size(); ++b) {
    units[b] += table[b].threshold;
    units[static_cast<std::size_t>(table[b].alias)] += scankit::detail::alias_unit - table[b].threshold;
  }
  return units;
}

// What scankit::sample gives for this table (an empty table: the status was not ok, every draw -1).
inline std::vector<std::int32_t> alias_sample(const std::vector<alias_entry>& table, std::int64_t count,
                                              std::uint64_t seed, std::uint64_t offset) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(count), -1);
  if (table.empty()) return out;
  for (std::int64_t k = 0; k < count; ++k) {
    const auto c = scankit::detail::alias_choice_for(seed, offset + std::uint64_t(k), std::int64_t(table.size()));
    out[k] = scankit::detail::alias_pick(c, table[c.bucket].threshold, table[c.bucket].alias);
  }
  return out;
}

}  // namespace scankit::reference
