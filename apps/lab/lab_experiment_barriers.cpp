// `scankit lab`, experiment 3: the block scan's barriers per tile for each block algorithm, next to
// its time per tile, and whether the barrier count predicts the ranking.
#include "lab_experiment_common.hpp"

#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lab_analysis.hpp"

namespace scankit::lab {

experiment_report run_barriers_experiment(lab_context& c) {
  experiment_report e = new_experiment(3);
  auto t = new_table(3, "", "decoupled look-back; barriers = __syncthreads() of the block scan per tile (the tile's "
                            "load, store and look-back add their own)",
                     {"n", "K", "block", "barriers", "tiles", "time_ms", "ns_per_tile", "GB/s", "check"});
  std::map<block_scan_algorithm, int> barriers;
  for (auto b : all_blocks) {
    scan_options o;
    o.strategy = scan_strategy::decoupled_look_back;
    o.block_algorithm = b;
    o.items_per_thread = c.tuned_k;
    try {
      barriers[b] = c.eng.kernel_info(o).block_barriers;
    } catch (const std::exception& ex) {
      c.report.errors.push_back(std::string("describe_scan_kernel(") + to_string(b) + "): " + ex.what());
    }
  }
  if (barriers.count(block_scan_algorithm::warp_of_warps)) {
    const int w = barriers[block_scan_algorithm::warp_of_warps];
    e.findings.push_back(w == 2 ? "warp of warps: exactly 2 barriers per tile, as the lecture's exercise 3 asks to verify"
                                : fmt("warp of warps: %d barriers per tile, NOT the 2 the lecture describes", w));
  }
  for (std::size_t i = 0; i < c.sizes.size(); ++i) {
    const std::int64_t n = c.sizes[i];
    c.progress.say(fmt("experiment 3: n = %s (%zu/%zu)", format_size(n).c_str(), i + 1, c.sizes.size()));
    for (int k : c.ks_small_and_tuned()) {
      const std::int64_t tiles = (n + std::int64_t(block_threads) * k - 1) / (std::int64_t(block_threads) * k);
      std::vector<double> x, y;
      std::vector<std::pair<int, double>> order;
      for (auto b : all_blocks) {
        const auto& m = c.eng.measure(variant::scan(scan_strategy::decoupled_look_back, b, k), n);
        const bool known = barriers.count(b) > 0;
        const double per_tile = m.median_ms * 1e6 / static_cast<double>(tiles);
        t.add_row({cell::of_size(n), cell::of_int(k), cell::of(to_string(b)),
                   known ? cell::of_int(barriers[b]) : cell::none(), cell::of_int(tiles), ms_cell(m.median_ms),
                   cell::of_real(per_tile, 2), cell::of_real(c.gbps(n, m.median_ms), 1), cell::of(m.check_text())});
        if (known && !m.failed) {
          x.push_back(barriers[b]);
          y.push_back(per_tile);
          order.push_back({barriers[b], m.median_ms});
        }
      }
      const line_fit f = fit_line(x, y);
      if (!f.ok) continue;
      // Does the time order follow the barrier order? Count agreeing pairs (Kendall-style).
      int agree = 0, pairs = 0;
      for (std::size_t a = 0; a < order.size(); ++a)
        for (std::size_t b = a + 1; b < order.size(); ++b) {
          if (order[a].first == order[b].first) continue;
          ++pairs;
          agree += ((order[a].first < order[b].first) == (order[a].second < order[b].second)) ? 1 : 0;
        }
      e.findings.push_back(fmt("n = %s, K = %d: each extra barrier per tile adds %.2f ns of scan time per tile (least "
                               "squares over the four block scans, %lld tiles); %d of %d pairs of algorithms are ordered "
                               "by time as by barriers%s",
                               format_size(n).c_str(), k, f.slope, static_cast<long long>(tiles), agree, pairs,
                               agree == pairs ? ": the barrier count predicts the ranking" : ""));
    }
  }
  e.tables.push_back(std::move(t));
  return e;
}

}  // namespace scankit::lab
