// `scankit lab`, experiment 4: the coarsening sweep, K items per thread, with the tile kernel's
// registers and occupancy at each K and the fastest K per block algorithm.
#include "lab_experiment_common.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lab_analysis.hpp"

namespace scankit::lab {

experiment_report run_coarsening_experiment(lab_context& c) {
  experiment_report e = new_experiment(4);
  auto kernels = new_table(4, "coarsening_kernels",
                           "tile kernel of the decoupled look-back, 256 threads per block (registers and shared memory "
                           "from the compiler, blocks/SM from cudaOccupancyMaxActiveBlocksPerMultiprocessor)",
                           {"block", "K", "tile_items", "registers", "shared_bytes", "blocks_per_SM", "occupancy"});
  auto t = new_table(4, "", "decoupled look-back, every block algorithm, K items per thread",
                     {"n", "block", "K", "time_ms", "GB/s", "of_copy", "registers", "occupancy", "check"});
  std::map<std::pair<int, int>, scan_kernel_info> info;  // (block, K)
  for (auto b : all_blocks) {
    std::vector<int> ks;
    std::vector<double> occ;
    std::vector<int> regs;
    for (int k : c.plan.coarsening_factors) {
      scan_options o;
      o.strategy = scan_strategy::decoupled_look_back;
      o.block_algorithm = b;
      o.items_per_thread = k;
      try {
        const scan_kernel_info ki = c.eng.kernel_info(o);
        info[{static_cast<int>(b), k}] = ki;
        kernels.add_row({cell::of(to_string(b)), cell::of_int(k), cell::of_int(ki.block_threads * k),
                         cell::of_int(ki.registers_per_thread), cell::of_int(ki.static_shared_bytes),
                         cell::of_int(ki.max_blocks_per_sm), cell::of_real(ki.occupancy, 3)});
        ks.push_back(k);
        occ.push_back(ki.occupancy);
        regs.push_back(ki.registers_per_thread);
      } catch (const std::exception& ex) {
        c.report.errors.push_back(std::string("describe_scan_kernel(") + to_string(b) + ", K " + std::to_string(k) +
                                  "): " + ex.what());
      }
    }
    if (ks.empty()) continue;
    std::string reg_list;
    for (std::size_t i = 0; i < ks.size(); ++i)
      reg_list += (i ? ", " : "") + std::to_string(regs[i]) + " at K=" + std::to_string(ks[i]);
    const auto drop = first_occupancy_drop(ks, occ);
    if (drop)
      e.findings.push_back(fmt("%s: occupancy starts to fall at K = %d (%s -> %s of the SM's threads); registers per "
                               "thread: %s",
                               to_string(b), drop->k, percent(drop->from).c_str(), percent(drop->to).c_str(),
                               reg_list.c_str()));
    else
      e.findings.push_back(fmt("%s: occupancy stays at %s for every K swept; registers per thread: %s", to_string(b),
                               percent(occ.front()).c_str(), reg_list.c_str()));
  }
  for (std::size_t i = 0; i < c.sizes.size(); ++i) {
    const std::int64_t n = c.sizes[i];
    c.progress.say(fmt("experiment 4: n = %s (%zu/%zu)", format_size(n).c_str(), i + 1, c.sizes.size()));
    const double copy = c.copy_ms(n);
    for (auto b : all_blocks) {
      double best = nan_value;
      int best_k = 0;
      for (int k : c.plan.coarsening_factors) {
        const auto& m = c.eng.measure(variant::scan(scan_strategy::decoupled_look_back, b, k), n);
        const auto it = info.find({static_cast<int>(b), k});
        const bool known = it != info.end();
        t.add_row({cell::of_size(n), cell::of(to_string(b)), cell::of_int(k), ms_cell(m.median_ms),
                   cell::of_real(c.gbps(n, m.median_ms), 1), ratio_cell(copy / m.median_ms),
                   known ? cell::of_int(it->second.registers_per_thread) : cell::none(),
                   known ? cell::of_real(it->second.occupancy, 3) : cell::none(), cell::of(m.check_text())});
        if (!m.failed && (std::isnan(best) || m.median_ms < best)) {
          best = m.median_ms;
          best_k = k;
        }
      }
      if (!std::isnan(best))
        e.findings.push_back(fmt("n = %s, %s: best K = %d (%.4f ms, %.2f of copy)", format_size(n).c_str(), to_string(b),
                                 best_k, best, copy / best));
    }
  }
  e.tables.push_back(std::move(kernels));
  e.tables.push_back(std::move(t));
  return e;
}

}  // namespace scankit::lab
