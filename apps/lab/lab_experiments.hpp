// `scankit lab`: the seven experiments. Host C++ that calls scankit's precompiled API, the CUB
// reference (lab_cub.cu) and the CUDA runtime (events, memory); compiled by the host compiler.
//
// The experiments ask a `measurer` for timings and kernel facts. On the GPU that is the engine in
// lab_experiments.cpp; the host tests pass a synthetic one, so everything but the engine (tables,
// findings, mismatch accounting, files) is tested without a device.
#pragma once

#include <cstdint>
#include <deque>
#include <iosfwd>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "lab_options.hpp"
#include "lab_report.hpp"
#include "scankit/lab/scan_lab.hpp"
#include "scankit/scan.hpp"

namespace scankit::lab {

// One thing the lab times: a scankit configuration, CUB's InclusiveSum or a device copy.
struct variant {
  enum class kind { scankit, cub, device_copy };
  kind what = kind::scankit;
  scan_strategy strategy = scan_strategy::decoupled_look_back;
  block_scan_algorithm block = block_scan_algorithm::warp_of_warps;
  int items_per_thread = 0;  // the K the scan runs with (resolved, never 0 in a measurement)

  static variant scan(scan_strategy s, block_scan_algorithm b, int k);
  static variant cub();
  static variant device_copy();
  // "decoupled_look_back/warp_of_warps/K16", "cub::DeviceScan::InclusiveSum", "cudaMemcpy D2D"
  std::string label() const;
};

struct measurement {
  variant v;
  std::int64_t n = 0;
  double median_ms = std::numeric_limits<double>::quiet_NaN();
  double min_ms = std::numeric_limits<double>::quiet_NaN();
  bool checked = false;  // compared with the host reference (the device copy is not)
  bool ok = false;       // matched the reference (true for an unchecked copy that ran)
  bool failed = false;   // threw: `detail` says why
  std::string detail;    // for a mismatch or a failure: what differed / what went wrong

  std::string check_text() const;  // ok, MISMATCH, FAILED or n/a
};

// Takes each (variant, size) once and caches it; reports mismatches and failures loudly to `out`
// and into the report as they happen.
class measurer {
 public:
  measurer(lab_report& report, std::ostream& out) : report_(report), out_(out) {}
  virtual ~measurer() = default;
  measurer(const measurer&) = delete;
  measurer& operator=(const measurer&) = delete;

  const measurement& measure(const variant& v, std::int64_t n);
  const measurement* find(const variant& v, std::int64_t n) const;  // nullptr if not measured
  // In the order taken. A deque: references handed out by measure() stay valid.
  const std::deque<measurement>& all() const { return all_; }

  // Milliseconds the host reference scan takes for the first n inputs.
  virtual double host_reference_ms(std::int64_t n) = 0;
  // describe_scan_kernel for the run's value type (throws where it is not precompiled).
  virtual scan_kernel_info kernel_info(const scan_options& options) = 0;

 protected:
  // Check against the reference, warm up, time: one measurement (failures caught inside).
  virtual measurement take(const variant& v, std::int64_t n) = 0;

 private:
  lab_report& report_;
  std::ostream& out_;
  std::map<std::string, std::size_t> index_;
  std::deque<measurement> all_;
};

// What the experiments need to know about the GPU.
struct device_facts {
  std::string name;
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  std::int64_t l2_bytes = 0;
  std::size_t free_bytes = 0, total_bytes = 0;
  int runtime_version = 0, driver_version = 0;
};

// Runs the plan's experiments with `m` at the given sizes (those that fit) and fills the report:
// experiments (tables, findings), measurements, metadata of the run and the device. Each
// experiment is printed to `out` as it finishes; progress lines go to `progress`.
void run_experiments(const lab_plan& plan, measurer& m, const device_facts& device,
                     const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& scaling_sizes,
                     lab_report& report, std::ostream& out, std::ostream& progress);

// On the current CUDA device: queries it, keeps the sizes that fit in memory (notices for the
// others), generates the input and its reference, and runs run_experiments with the GPU engine.
// Returns the number of measurements taken.
int run_gpu_experiments(const lab_plan& plan, lab_report& report, std::ostream& out, std::ostream& progress);

// Without a device: times the host reference scan at experiment 1's sizes (the CPU part of
// experiment 1) and records it in the report. Returns the number of sizes timed.
int run_host_experiments(const lab_plan& plan, lab_report& report, std::ostream& out, std::ostream& progress);

}  // namespace scankit::lab
