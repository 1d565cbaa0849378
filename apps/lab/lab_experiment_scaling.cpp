// `scankit lab`, experiment 7: time against N up to the scaling sizes, and whether it grows linearly
// once the input is well beyond the L2 cache.
#include "lab_experiment_common.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lab_analysis.hpp"

namespace scankit::lab {

experiment_report run_scaling_experiment(lab_context& c) {
  experiment_report e = new_experiment(7);
  const bool with_cub = cub_supports(c.plan.type);
  std::vector<variant> variants = {variant::device_copy()};
  if (with_cub) variants.push_back(variant::cub());
  for (auto s : all_strategies) variants.push_back(variant::scan(s, block_scan_algorithm::warp_of_warps, c.tuned_k));
  auto t = new_table(7, "", "time against N (warp-of-warps block scan, K = " + std::to_string(c.tuned_k) + ")",
                     {"variant", "n", "time_ms", "ns_per_element", "GB/s", "of_copy", "vs_CUB", "check"});
  std::map<std::string, std::pair<std::vector<std::int64_t>, std::vector<double>>> series;
  bool chained_skipped = false;
  for (std::size_t i = 0; i < c.scaling_sizes.size(); ++i) {
    const std::int64_t n = c.scaling_sizes[i];
    c.progress.say(fmt("experiment 7: n = %s (%zu/%zu)", format_size(n).c_str(), i + 1, c.scaling_sizes.size()));
    const double copy = c.copy_ms(n);
    const double cub = with_cub ? c.cub_ms(n) : nan_value;
    for (const auto& v : variants) {
      if (v.what == variant::kind::scankit && v.strategy == scan_strategy::chained && n > c.plan.chained_scaling_limit) {
        chained_skipped = true;
        continue;
      }
      const auto& m = c.eng.measure(v, n);
      t.add_row({cell::of(v.label()), cell::of_size(n), ms_cell(m.median_ms),
                 cell::of_real(m.median_ms * 1e6 / static_cast<double>(n), 6), cell::of_real(c.gbps(n, m.median_ms), 1),
                 ratio_cell(copy / m.median_ms), ratio_cell(cub / m.median_ms), cell::of(m.check_text())});
      if (!m.failed) {
        series[v.label()].first.push_back(n);
        series[v.label()].second.push_back(m.median_ms);
      }
    }
  }
  if (chained_skipped)
    e.notices.push_back("chained scan measured only up to " + format_size(c.plan.chained_scaling_limit) +
                        " in quick mode (each tile waits for its predecessor: it is slow at large N); --full runs it at every size");
  auto fits = new_table(7, "scaling_fit",
                        fmt("sizes that move at least 4x the L2 cache (%.1f MB): time per element flat within 15%% and "
                            "fitted exponent within 0.1 of 1 = linear",
                            c.device.l2_bytes / 1e6),
                        {"variant", "sizes", "from", "to", "exponent", "ns_per_element_min", "ns_per_element_max",
                         "spread", "linear"});
  for (const auto& v : variants) {
    const auto it = series.find(v.label());
    if (it == series.end()) continue;
    const scaling_verdict verdict = judge_scaling(it->second.first, it->second.second, c.element_bytes, c.device.l2_bytes);
    if (verdict.points >= 2) {
      fits.add_row({cell::of(v.label()), cell::of_int(verdict.points), cell::of_size(verdict.first_n),
                    cell::of_size(verdict.last_n), cell::of_real(verdict.exponent, 3),
                    cell::of_real(verdict.min_ns_per_element, 6), cell::of_real(verdict.max_ns_per_element, 6),
                    cell::of(percent(verdict.spread)), cell::of(verdict.linear ? "yes" : "NO")});
    }
    e.findings.push_back(v.label() + ": " + verdict.summary);
  }
  e.tables.push_back(std::move(t));
  e.tables.push_back(std::move(fits));
  return e;
}

}  // namespace scankit::lab
