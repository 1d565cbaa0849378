// `scankit lab`, experiment 1: the three-launch scan with each block algorithm against the host
// reference on one CPU thread (time, bandwidth, speed-up, and whether the results agree).
#include "lab_experiment_common.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace scankit::lab {

experiment_report run_three_launch_vs_cpu_experiment(lab_context& c) {
  experiment_report e = new_experiment(1);
  auto t = new_table(1, "", "host reference (one CPU thread) and the three-launch scan with each block algorithm, K = " +
                                std::to_string(c.tuned_k),
                     {"n", "variant", "time_ms", "GB/s", "vs_CPU", "check"});
  for (std::size_t i = 0; i < c.sizes.size(); ++i) {
    const std::int64_t n = c.sizes[i];
    c.progress.say(fmt("experiment 1: n = %s (%zu/%zu)", format_size(n).c_str(), i + 1, c.sizes.size()));
    const double cpu = c.eng.host_reference_ms(n);
    t.add_row({cell::of_size(n), cell::of("CPU host reference"), ms_cell(cpu), cell::of_real(c.gbps(n, cpu), 1),
               ratio_cell(1.0), cell::of("reference")});
    double best = nan_value;
    std::string best_label;
    int correct = 0, total = 0;
    for (auto b : all_blocks) {
      const auto& m = c.eng.measure(variant::scan(scan_strategy::three_launch, b, c.tuned_k), n);
      t.add_row({cell::of_size(n), cell::of(m.v.label()), ms_cell(m.median_ms), cell::of_real(c.gbps(n, m.median_ms), 1),
                 ratio_cell(cpu / m.median_ms), cell::of(m.check_text())});
      ++total;
      correct += m.ok ? 1 : 0;
      if (!m.failed && (std::isnan(best) || m.median_ms < best)) {
        best = m.median_ms;
        best_label = to_string(b);
      }
    }
    if (!std::isnan(best))
      e.findings.push_back(fmt("n = %s: the fastest three-launch scan (%s block scan) takes %.4f ms against %.3f ms for "
                               "one CPU thread: %.0fx faster; %d of %d three-launch variants give exactly the CPU's result",
                               format_size(n).c_str(), best_label.c_str(), best, cpu, cpu / best, correct, total));
  }
  e.notices.push_back("times are for data already on the GPU; copying the input over PCIe and the result back is not counted");
  e.tables.push_back(std::move(t));
  return e;
}

}  // namespace scankit::lab
