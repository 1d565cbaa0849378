// `scankit lab`, experiment 5: work and depth of one block scan (operator applications and barriers
// against N log2 N and 2N), and whether Brent-Kung's smaller work beats Kogge-Stone's fewer steps.
#include "lab_experiment_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <string>
#include <utility>

#include "lab_analysis.hpp"

namespace scankit::lab {

experiment_report run_work_depth_experiment(lab_context& c) {
  experiment_report e = new_experiment(5);
  const double nb = block_threads, log_nb = std::log2(nb);
  auto work = new_table(5, "", fmt("operator applications and barriers of one block scan of N = %d thread totals; "
                                   "N log2 N = %.0f, 2N = %.0f",
                                   block_threads, nb * log_nb, 2 * nb),
                        {"block", "operations", "N_log2_N", "2N", "vs_N_log2_N", "vs_2N", "barriers"});
  std::map<block_scan_algorithm, scan_kernel_info> info;
  for (auto b : all_blocks) {
    scan_options o;
    o.strategy = scan_strategy::decoupled_look_back;
    o.block_algorithm = b;
    o.items_per_thread = c.tuned_k;
    try {
      const auto ki = c.eng.kernel_info(o);
      info[b] = ki;
      work.add_row({cell::of(to_string(b)), cell::of_int(ki.block_scan_operations), cell::of_real(nb * log_nb, 0),
                    cell::of_real(2 * nb, 0), ratio_cell(ki.block_scan_operations / (nb * log_nb)),
                    ratio_cell(ki.block_scan_operations / (2 * nb)), cell::of_int(ki.block_barriers)});
    } catch (const std::exception& ex) {
      c.report.errors.push_back(std::string("describe_scan_kernel(") + to_string(b) + "): " + ex.what());
    }
  }
  const auto ks = block_scan_algorithm::kogge_stone_double_buffer;
  const auto bk = block_scan_algorithm::brent_kung;
  if (info.count(ks) && info.count(bk)) {
    const auto& a = info[ks];
    const auto& b = info[bk];
    e.findings.push_back(fmt("Kogge-Stone: %lld operations per tile = %.2f x N log2 N in log2 N = %.0f steps (%d "
                             "barriers); Brent-Kung: %lld operations = %.2f x 2N in 2 log2 N - 1 = %.0f steps (%d "
                             "barriers): Brent-Kung does %.1fx less work with %.1fx the barriers",
                             a.block_scan_operations, a.block_scan_operations / (nb * log_nb), log_nb, a.block_barriers,
                             b.block_scan_operations, b.block_scan_operations / (2 * nb), 2 * log_nb - 1,
                             b.block_barriers, static_cast<double>(a.block_scan_operations) / b.block_scan_operations,
                             static_cast<double>(b.block_barriers) / std::max(1, a.block_barriers)));
  }
  auto times = new_table(5, "work_depth_times", "decoupled look-back with each block algorithm",
                         {"n", "K", "block", "operations", "barriers", "time_ms", "GB/s", "check"});
  for (std::size_t i = 0; i < c.sizes.size(); ++i) {
    const std::int64_t n = c.sizes[i];
    c.progress.say(fmt("experiment 5: n = %s (%zu/%zu)", format_size(n).c_str(), i + 1, c.sizes.size()));
    for (int k : c.ks_small_and_tuned()) {
      for (auto b : all_blocks) {
        const auto& m = c.eng.measure(variant::scan(scan_strategy::decoupled_look_back, b, k), n);
        const bool known = info.count(b) > 0;
        times.add_row({cell::of_size(n), cell::of_int(k), cell::of(to_string(b)),
                       known ? cell::of_int(info[b].block_scan_operations) : cell::none(),
                       known ? cell::of_int(info[b].block_barriers) : cell::none(), ms_cell(m.median_ms),
                       cell::of_real(c.gbps(n, m.median_ms), 1), cell::of(m.check_text())});
      }
      const auto& mk = c.eng.measure(variant::scan(scan_strategy::decoupled_look_back, ks, k), n);
      const auto& mb = c.eng.measure(variant::scan(scan_strategy::decoupled_look_back, bk, k), n);
      if (!mk.failed && !mb.failed)
        e.findings.push_back(fmt("n = %s, K = %d: Brent-Kung %.4f ms vs Kogge-Stone %.4f ms: the work-efficient scan is "
                                 "%s",
                                 format_size(n).c_str(), k, mb.median_ms, mk.median_ms,
                                 mb.median_ms < mk.median_ms
                                     ? fmt("%s faster", percent(time_saved(mb.median_ms, mk.median_ms)).c_str()).c_str()
                                     : fmt("%s slower (its extra barriers cost more than the work it saves)",
                                           percent(mb.median_ms / mk.median_ms - 1).c_str())
                                           .c_str()));
    }
  }
  e.tables.push_back(std::move(work));
  e.tables.push_back(std::move(times));
  return e;
}

}  // namespace scankit::lab
