// `scankit lab`, experiment 6: every strategy x block algorithm against cub::DeviceScan and a device
// copy at each size.
#include "lab_experiment_common.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace scankit::lab {

experiment_report run_vs_cub_experiment(lab_context& c) {
  experiment_report e = new_experiment(6);
  auto t = new_table(6, "", "every strategy x block algorithm at the tuned K = " + std::to_string(c.tuned_k) +
                                ", CUB and a device copy; vs_CUB = CUB time / row time (above 1: faster than CUB)",
                     {"n", "variant", "time_ms", "GB/s", "of_copy", "vs_CUB", "check"});
  const bool with_cub = cub_supports(c.plan.type);
  if (!with_cub) e.notices.push_back(std::string("no CUB reference for ") + to_string(c.plan.type));
  for (std::size_t i = 0; i < c.sizes.size(); ++i) {
    const std::int64_t n = c.sizes[i];
    c.progress.say(fmt("experiment 6: n = %s (%zu/%zu)", format_size(n).c_str(), i + 1, c.sizes.size()));
    const double copy = c.copy_ms(n);
    const double cub = with_cub ? c.cub_ms(n) : nan_value;
    auto row = [&](const measurement& m) {
      t.add_row({cell::of_size(n), cell::of(m.v.label()), ms_cell(m.median_ms), cell::of_real(c.gbps(n, m.median_ms), 1),
                 ratio_cell(copy / m.median_ms), ratio_cell(cub / m.median_ms), cell::of(m.check_text())});
    };
    row(c.eng.measure(variant::device_copy(), n));
    if (with_cub) row(c.eng.measure(variant::cub(), n));
    const measurement* best = nullptr;
    for (auto s : all_strategies) {
      for (auto b : all_blocks) {
        const auto& m = c.eng.measure(variant::scan(s, b, c.tuned_k), n);
        row(m);
        if (!m.failed && (best == nullptr || m.median_ms < best->median_ms)) best = &m;
      }
    }
    const auto& dflt = c.eng.measure(
        variant::scan(scan_strategy::decoupled_look_back, block_scan_algorithm::warp_of_warps, c.tuned_k), n);
    std::string line = fmt("n = %s: copy %.4f ms", format_size(n).c_str(), copy);
    if (with_cub) line += fmt("; CUB %.4f ms (%.2f of copy)", cub, copy / cub);
    if (!dflt.failed)
      line += fmt("; scankit's default (decoupled look-back, warp of warps) %.4f ms (%.2f of copy%s)", dflt.median_ms,
                  copy / dflt.median_ms, with_cub ? fmt(", %.2fx CUB", cub / dflt.median_ms).c_str() : "");
    if (best != nullptr)
      line += fmt("; fastest variant %s %.4f ms%s", best->v.label().c_str(), best->median_ms,
                  with_cub ? fmt(" (%.2fx CUB)", cub / best->median_ms).c_str() : "");
    e.findings.push_back(line);
  }
  e.tables.push_back(std::move(t));
  return e;
}

}  // namespace scankit::lab
