// `scankit lab`: what the seven experiments (lab_experiment_*.cpp) share with each other and with
// the loop that runs them (lab_experiments.cpp): the context they measure through, progress lines,
// report and table constructors, and the strategies and block algorithms they sweep.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "lab_experiments.hpp"
#include "lab_options.hpp"
#include "lab_report.hpp"
#include "scankit/scan.hpp"

namespace scankit::lab {

inline constexpr scan_strategy all_strategies[] = {scan_strategy::three_launch, scan_strategy::reduce_then_scan,
                                                   scan_strategy::chained, scan_strategy::decoupled_look_back};
inline constexpr block_scan_algorithm all_blocks[] = {
    block_scan_algorithm::kogge_stone_double_buffer, block_scan_algorithm::kogge_stone_read_sync_write,
    block_scan_algorithm::brent_kung, block_scan_algorithm::warp_of_warps};
inline constexpr int block_threads = 256;  // the precompiled library's block size
inline constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();

std::string fmt(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Progress on stderr: elapsed time, experiment, what is running.
class progress_log {
 public:
  explicit progress_log(std::ostream& os) : os_(os), start_(std::chrono::steady_clock::now()) {}
  void say(const std::string& line) {
    os_ << fmt("[lab %6.1fs] ", seconds()) << line << std::endl;
  }
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::ostream& os_;
  std::chrono::steady_clock::time_point start_;
};

struct lab_context {
  const lab_plan& plan;
  measurer& eng;
  lab_report& report;
  progress_log& progress;
  const device_facts& device;
  std::vector<std::int64_t> sizes;          // experiments 1-6, those that fit
  std::vector<std::int64_t> scaling_sizes;  // experiment 7, those that fit
  std::size_t element_bytes;
  int tuned_k;
  bool kernel_variants;

  double gbps(std::int64_t n, double ms) const { return 2.0 * static_cast<double>(n) * element_bytes / (ms * 1e6); }
  std::vector<int> ks_small_and_tuned() const {
    if (!kernel_variants) return {tuned_k};
    return {1, tuned_k};
  }
  double copy_ms(std::int64_t n) { return eng.measure(variant::device_copy(), n).median_ms; }
  double cub_ms(std::int64_t n) {
    if (!cub_supports(plan.type)) return nan_value;
    return eng.measure(variant::cub(), n).median_ms;
  }
};

experiment_report new_experiment(int id);
// Named exp<id>_<suffix>, or exp<id>_<slug> for an empty suffix: the CSV's file stem.
result_table new_table(int id, const std::string& suffix, const std::string& title, std::vector<std::string> columns);

cell ms_cell(double ms);
cell ratio_cell(double r);

// The experiments, by id: each measures through c and returns its tables and findings.
experiment_report run_three_launch_vs_cpu_experiment(lab_context& c);  // 1
experiment_report run_warp_vs_shared_experiment(lab_context& c);       // 2
experiment_report run_barriers_experiment(lab_context& c);             // 3
experiment_report run_coarsening_experiment(lab_context& c);           // 4
experiment_report run_work_depth_experiment(lab_context& c);           // 5
experiment_report run_vs_cub_experiment(lab_context& c);               // 6
experiment_report run_scaling_experiment(lab_context& c);              // 7

}  // namespace scankit::lab
