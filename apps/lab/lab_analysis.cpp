#include "lab_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "lab_options.hpp"

namespace scankit::lab {

double median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const std::size_t m = values.size() / 2;
  return values.size() % 2 ? values[m] : 0.5 * (values[m - 1] + values[m]);
}

line_fit fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  line_fit f;
  const std::size_t n = std::min(x.size(), y.size());
  if (n < 2) return f;
  double sx = 0, sy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sx += x[i];
    sy += y[i];
  }
  const double mx = sx / n, my = sy / n;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  if (sxx <= 0) return f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.ok = true;
  return f;
}

double time_saved(double fast_ms, double slow_ms) {
  if (!(slow_ms > 0)) return std::numeric_limits<double>::quiet_NaN();
  return 1.0 - fast_ms / slow_ms;
}

std::optional<occupancy_drop> first_occupancy_drop(const std::vector<int>& k, const std::vector<double>& occupancy) {
  const std::size_t n = std::min(k.size(), occupancy.size());
  for (std::size_t i = 1; i < n; ++i) {
    if (occupancy[i] < occupancy[i - 1] - 1e-9) return occupancy_drop{k[i], k[i - 1], occupancy[i - 1], occupancy[i]};
  }
  return std::nullopt;
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * fraction);
  return buf;
}

scaling_verdict judge_scaling(const std::vector<std::int64_t>& n, const std::vector<double>& ms, std::size_t element_bytes,
                              std::int64_t l2_bytes, double tolerance) {
  scaling_verdict v;
  std::vector<double> log_n, log_t, per_element;
  std::vector<std::int64_t> used;
  for (std::size_t i = 0; i < std::min(n.size(), ms.size()); ++i) {
    // Only sizes whose traffic (input read + output written) is at least 4x the L2: below that a
    // large part of it is served from the cache, which bends the curve.
    if (2.0 * static_cast<double>(n[i]) * element_bytes < 4.0 * static_cast<double>(l2_bytes) || !(ms[i] > 0)) continue;
    used.push_back(n[i]);
    log_n.push_back(std::log(static_cast<double>(n[i])));
    log_t.push_back(std::log(ms[i]));
    per_element.push_back(ms[i] * 1e6 / static_cast<double>(n[i]));
  }
  v.points = static_cast<int>(used.size());
  if (v.points < 2) {
    v.summary = "not enough sizes whose traffic is 4x the L2 size or more (" + std::to_string(v.points) +
                " of the 2 needed): add larger sizes with --scaling-sizes";
    return v;
  }
  const auto [lo, hi] = std::minmax_element(used.begin(), used.end());
  v.first_n = *lo;
  v.last_n = *hi;
  v.min_ns_per_element = *std::min_element(per_element.begin(), per_element.end());
  v.max_ns_per_element = *std::max_element(per_element.begin(), per_element.end());
  v.spread = v.max_ns_per_element / v.min_ns_per_element - 1.0;
  v.exponent = fit_line(log_n, log_t).slope;
  v.n_log_n_growth = std::log2(static_cast<double>(v.last_n)) / std::log2(static_cast<double>(v.first_n)) - 1.0;
  v.flat = v.spread <= tolerance;
  v.linear = v.flat && std::fabs(v.exponent - 1.0) <= 0.1;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s: from %s to %s (%d sizes with traffic >= 4x L2) time per element stays within %s (%.4g..%.4g ns), "
                "fitted growth N^%.3f; an N log N scan would add %s over this range",
                v.linear ? "linear" : "NOT linear", format_size(v.first_n).c_str(), format_size(v.last_n).c_str(),
                v.points, percent(v.spread).c_str(), v.min_ns_per_element, v.max_ns_per_element, v.exponent,
                percent(v.n_log_n_growth).c_str());
  v.summary = buf;
  if (!v.linear)
    v.summary += std::string(" (") + (v.flat ? "exponent off 1 by more than 0.1" : "spread above " + percent(tolerance)) + ")";
  return v;
}

std::string compare_with_claim(double saved, double low, double high) {
  if (std::isnan(saved)) return "not measured";
  char range[64];
  std::snprintf(range, sizeof range, "%.0f-%.0f%%", 100.0 * low, 100.0 * high);
  if (saved < low) return std::string("below the lecture's ") + range;
  if (saved > high) return std::string("above the lecture's ") + range;
  return std::string("within the lecture's ") + range;
}

}  // namespace scankit::lab
