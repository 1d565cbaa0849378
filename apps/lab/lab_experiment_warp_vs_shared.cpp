// `scankit lab`, experiment 2: how much time the warp-shuffle (warp of warps) block scan saves
// against the shared-memory block scans, in the three-launch scan and the decoupled look-back.
#include "lab_experiment_common.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lab_analysis.hpp"

namespace scankit::lab {

experiment_report run_warp_vs_shared_experiment(lab_context& c) {
  experiment_report e = new_experiment(2);
  auto t = new_table(2, "", "each block algorithm in the three-launch scan and the decoupled look-back; wow_saves = time "
                            "the warp-of-warps block scan saves against the row",
                     {"n", "strategy", "K", "block", "time_ms", "GB/s", "of_copy", "wow_saves", "check"});
  const scan_strategy strategies[] = {scan_strategy::three_launch, scan_strategy::decoupled_look_back};
  std::map<int, std::vector<double>> savings_by_k;
  for (std::size_t i = 0; i < c.sizes.size(); ++i) {
    const std::int64_t n = c.sizes[i];
    c.progress.say(fmt("experiment 2: n = %s (%zu/%zu)", format_size(n).c_str(), i + 1, c.sizes.size()));
    const double copy = c.copy_ms(n);
    for (auto s : strategies) {
      for (int k : c.ks_small_and_tuned()) {
        const auto& wow = c.eng.measure(variant::scan(s, block_scan_algorithm::warp_of_warps, k), n);
        const double wow_ms = wow.failed ? nan_value : wow.median_ms;
        std::string per_algorithm;
        std::vector<double> savings;
        for (auto b : all_blocks) {
          const auto& m = c.eng.measure(variant::scan(s, b, k), n);
          const double saved = b == block_scan_algorithm::warp_of_warps || m.failed ? nan_value : time_saved(wow_ms, m.median_ms);
          t.add_row({cell::of_size(n), cell::of(to_string(s)), cell::of_int(k), cell::of(to_string(b)), ms_cell(m.median_ms),
                     cell::of_real(c.gbps(n, m.median_ms), 1), ratio_cell(copy / m.median_ms),
                     std::isnan(saved) ? cell::none() : cell::of(percent(saved)), cell::of(m.check_text())});
          if (!std::isnan(saved)) {
            savings.push_back(saved);
            per_algorithm += (per_algorithm.empty() ? "" : ", ") + percent(saved) + " vs " + to_string(b);
          }
        }
        if (savings.empty()) continue;
        double mean = 0;
        for (double x : savings) mean += x;
        mean /= savings.size();
        savings_by_k[k].push_back(mean);
        e.findings.push_back(fmt("n = %s, %s, K = %d: warp of warps saves %s (mean %s: %s)", format_size(n).c_str(),
                                 to_string(s), k, per_algorithm.c_str(), percent(mean).c_str(),
                                 compare_with_claim(mean).c_str()));
      }
    }
  }
  for (const auto& [k, means] : savings_by_k) {
    double mean = 0;
    for (double x : means) mean += x;
    mean /= means.size();
    e.findings.push_back(fmt("over all sizes and both strategies at K = %d the warp-of-warps block scan saves %s on "
                             "average: %s%s",
                             k, percent(mean).c_str(), compare_with_claim(mean).c_str(),
                             k > 1 ? " (with K items per thread the block scan is a small share of the tile's work)" : ""));
  }
  e.tables.push_back(std::move(t));
  return e;
}

}  // namespace scankit::lab
