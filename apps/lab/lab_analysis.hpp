// `scankit lab`: the arithmetic behind the findings (medians, fits, verdicts). Plain C++.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace scankit::lab {

// Median of the values (mean of the middle two for an even count); NaN for none.
double median(std::vector<double> values);

struct line_fit {
  double slope = 0;
  double intercept = 0;
  bool ok = false;  // at least two distinct x
};
// Least squares y = slope * x + intercept.
line_fit fit_line(const std::vector<double>& x, const std::vector<double>& y);

// Fraction of time the faster variant saves against the slower: 1 - fast / slow.
double time_saved(double fast_ms, double slow_ms);

// Where occupancy starts to fall along a sweep (K ascending): the first K whose occupancy is
// below that of the K before it.
struct occupancy_drop {
  int k = 0;             // first K with lower occupancy
  int previous_k = 0;
  double from = 0;       // occupancy at previous_k
  double to = 0;         // occupancy at k
};
std::optional<occupancy_drop> first_occupancy_drop(const std::vector<int>& k, const std::vector<double>& occupancy);

// Experiment 7: does time grow linearly in N beyond the L2 size?
struct scaling_verdict {
  int points = 0;                  // sizes above the threshold
  std::int64_t first_n = 0, last_n = 0;
  double exponent = 0;             // fitted d log(time) / d log(N)
  double min_ns_per_element = 0, max_ns_per_element = 0;
  double spread = 0;               // max / min - 1 of the time per element
  double n_log_n_growth = 0;       // how much an N log N algorithm's time per element would grow
  bool flat = false;               // spread <= tolerance
  bool linear = false;             // flat and the exponent within 0.1 of 1
  std::string summary;             // one sentence
};
// Uses the sizes whose input bytes (n * element_bytes) exceed l2_bytes; needs two of them.
scaling_verdict judge_scaling(const std::vector<std::int64_t>& n, const std::vector<double>& ms, std::size_t element_bytes,
                              std::int64_t l2_bytes, double tolerance = 0.15);

// "within", "below" or "above" the lecture's 30-40% saving, as a phrase.
std::string compare_with_claim(double saved, double low = 0.30, double high = 0.40);

// "12.3%" (one decimal).
std::string percent(double fraction);

}  // namespace scankit::lab
