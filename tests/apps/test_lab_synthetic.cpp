// The lab's experiments on the host: a synthetic measurer stands in for the GPU engine, so the
// experiments' logic (which variants at which sizes, tables, findings, mismatch and failure
// accounting, the measurements table, the files) is tested without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lab_experiments.hpp"
#include "lab_options.hpp"
#include "lab_report.hpp"
#include "lab_test_util.hpp"
#include "scankit/error.hpp"

namespace scankit::lab {
namespace {

using testing::is_valid_json;
using testing::read_text;
using testing::temp_dir;

int barriers_of(block_scan_algorithm b) {
  switch (b) {
    case block_scan_algorithm::kogge_stone_double_buffer: return 9;
    case block_scan_algorithm::kogge_stone_read_sync_write: return 17;
    case block_scan_algorithm::brent_kung: return 16;
    default: return 2;
  }
}

long long operations_of(block_scan_algorithm b) {
  switch (b) {
    case block_scan_algorithm::kogge_stone_double_buffer:
    case block_scan_algorithm::kogge_stone_read_sync_write: return 256 * 8;
    case block_scan_algorithm::brent_kung: return 2 * 256 - 2 - 8;
    default: return 256 * 5 + 32 * 5 + 256;
  }
}

// A plausible model of an H200: copy at 4.2 TB/s, CUB at 3.1, the strategies at their own rates,
// plus a cost per block barrier per tile and, for the chained scan, per tile hop.
class synthetic_measurer final : public measurer {
 public:
  synthetic_measurer(lab_report& report, std::ostream& out, std::size_t element_bytes, int tuned_k)
      : measurer(report, out), element_bytes_(element_bytes), tuned_k_(tuned_k) {}

  std::function<bool(const variant&, std::int64_t)> mismatch_if;
  std::function<bool(const variant&, std::int64_t)> fail_if;
  bool kernel_info_allowed = true;
  int kernel_info_calls = 0;
  std::map<std::string, int> takes;  // how often take() ran per variant and size

  double host_reference_ms(std::int64_t n) override { return 1e-6 * static_cast<double>(n); }

  scan_kernel_info kernel_info(const scan_options& o) override {
    ++kernel_info_calls;
    if (!kernel_info_allowed) throw scankit::error("describe_scan_kernel is not precompiled for this type");
    scan_kernel_info info;
    info.block_threads = 256;
    info.items_per_thread = o.items_per_thread == 0 ? tuned_k_ : o.items_per_thread;
    info.registers_per_thread = 24 + 4 * info.items_per_thread;
    info.occupancy = info.registers_per_thread <= 64 ? 1.0 : 0.5;
    info.max_blocks_per_sm = static_cast<int>(info.occupancy * 2048 / 256);
    info.static_shared_bytes = 2048;
    info.block_barriers = barriers_of(o.block_algorithm);
    info.block_scan_operations = operations_of(o.block_algorithm);
    return info;
  }

 protected:
  measurement take(const variant& v, std::int64_t n) override {
    ++takes[v.label() + "@" + std::to_string(n)];
    measurement m;
    if (fail_if && fail_if(v, n)) {
      m.failed = true;
      m.detail = "cudaErrorIllegalAddress: an illegal memory access was encountered (synthetic)";
      return m;
    }
    const double bytes = 2.0 * static_cast<double>(n) * static_cast<double>(element_bytes_);
    double ms = 0;
    switch (v.what) {
      case variant::kind::device_copy: ms = 0.002 + bytes / 4.2e9; break;
      case variant::kind::cub: ms = 0.004 + bytes / 3.1e9; break;
      case variant::kind::scankit: {
        const double tiles = std::ceil(static_cast<double>(n) / (256.0 * v.items_per_thread));
        ms = 1e-7 * barriers_of(v.block) * tiles;
        switch (v.strategy) {
          case scan_strategy::three_launch: ms += 0.009 + bytes / 2.0e9; break;
          case scan_strategy::reduce_then_scan: ms += 0.008 + bytes / 2.6e9; break;
          case scan_strategy::chained: ms += 0.003 + tiles * 0.00066; break;
          default: ms += 0.003 + bytes / 3.3e9; break;
        }
      }
    }
    m.median_ms = ms;
    m.min_ms = 0.98 * ms;
    m.checked = v.what != variant::kind::device_copy;
    m.ok = !(mismatch_if && mismatch_if(v, n));
    if (!m.ok) m.detail = "1 of " + std::to_string(n) + " elements differ (synthetic)";
    return m;
  }

 private:
  std::size_t element_bytes_;
  int tuned_k_;
};

device_facts synthetic_device() {
  device_facts d;
  d.name = "synthetic GPU (host test)";
  d.sm_count = 132;
  d.cc_major = 9;
  d.l2_bytes = 60 << 20;
  d.total_bytes = std::size_t(141) << 30;
  d.free_bytes = d.total_bytes;
  return d;
}

struct lab_run {
  lab_plan plan;
  lab_report report;
  std::ostringstream out, progress;
};

lab_plan plan_of(std::vector<std::string> args) { return make_plan(parse_lab_options(args)); }

void run(lab_run& r, synthetic_measurer& m) {
  run_experiments(r.plan, m, synthetic_device(), r.plan.sizes, r.plan.scaling_sizes, r.report, r.out, r.progress);
}

const experiment_report& experiment_of(const lab_report& r, int id) {
  for (const auto& e : r.experiments)
    if (e.id == id) return e;
  throw std::out_of_range("no experiment " + std::to_string(id));
}

const result_table& table(const lab_report& r, const std::string& name) {
  for (const auto& e : r.experiments)
    for (const auto& t : e.tables)
      if (t.name == name) return t;
  throw std::out_of_range("no table " + name);
}

std::size_t column(const result_table& t, const std::string& name) {
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    if (t.columns[c] == name) return c;
  throw std::out_of_range("no column " + name + " in " + t.name);
}

bool any_finding(const experiment_report& e, const std::string& text) {
  for (const auto& f : e.findings)
    if (f.find(text) != std::string::npos) return true;
  return false;
}

TEST(LabSynthetic, QuickModeRunsEveryExperiment) {
  lab_run r;
  r.plan = plan_of({});
  synthetic_measurer m(r.report, r.out, 4, 16);
  run(r, m);

  ASSERT_EQ(r.report.experiments.size(), 7u);
  for (const auto& e : r.report.experiments) EXPECT_TRUE(e.ran) << e.id;
  EXPECT_TRUE(r.report.mismatches.empty());
  EXPECT_TRUE(r.report.errors.empty());
  for (const char* name : {"exp1_three_launch_vs_cpu", "exp2_warp_vs_shared", "exp3_barriers", "exp4_coarsening_kernels",
                           "exp4_coarsening", "exp5_work_depth", "exp5_work_depth_times", "exp6_vs_cub",
                           "exp7_scaling", "exp7_scaling_fit"}) {
    EXPECT_NO_THROW((void)table(r.report, name)) << name;
  }
  // 1: the CPU and four three-launch variants per size.
  EXPECT_EQ(table(r.report, "exp1_three_launch_vs_cpu").rows.size(), 2u * 5u);
  // 2: two strategies x K in {1, 16} x four block algorithms per size.
  EXPECT_EQ(table(r.report, "exp2_warp_vs_shared").rows.size(), 2u * 2u * 2u * 4u);
  EXPECT_TRUE(any_finding(experiment_of(r.report, 2), "lecture's 30-40%"));
  // 3: the warp of warps has two barriers.
  EXPECT_TRUE(any_finding(experiment_of(r.report, 3), "exactly 2 barriers per tile"));
  EXPECT_TRUE(any_finding(experiment_of(r.report, 3), "the barrier count predicts the ranking"));
  // 4: five K for four algorithms; the model's occupancy falls at K = 16 (88 registers).
  EXPECT_EQ(table(r.report, "exp4_coarsening_kernels").rows.size(), 4u * 5u);
  EXPECT_EQ(table(r.report, "exp4_coarsening").rows.size(), 2u * 4u * 5u);
  EXPECT_TRUE(any_finding(experiment_of(r.report, 4), "occupancy starts to fall at K = 16 (100.0% -> 50.0%"));
  EXPECT_TRUE(any_finding(experiment_of(r.report, 4), "best K ="));
  // 5: work against the formulas.
  EXPECT_TRUE(any_finding(experiment_of(r.report, 5), "Kogge-Stone: 2048 operations per tile = 1.00 x N log2 N in log2 N = 8 steps (9 barriers)"));
  EXPECT_TRUE(any_finding(experiment_of(r.report, 5), "Brent-Kung: 502 operations = 0.98 x 2N in 2 log2 N - 1 = 15 steps (16 barriers)"));
  const auto& work = table(r.report, "exp5_work_depth");
  EXPECT_EQ(work.rows.size(), 4u);
  EXPECT_EQ(work.rows[0][column(work, "vs_N_log2_N")].real_value, 1.0);
  // 6: copy, CUB and 16 variants per size.
  EXPECT_EQ(table(r.report, "exp6_vs_cub").rows.size(), 2u * 18u);
  EXPECT_TRUE(any_finding(experiment_of(r.report, 6), "x CUB"));
  // 7: the chained scan stops at 2^26 in quick mode; the model is linear beyond the L2.
  const auto& scaling = table(r.report, "exp7_scaling");
  const std::size_t variant_col = column(scaling, "variant"), n_col = column(scaling, "n");
  std::size_t chained_rows = 0;
  for (const auto& row : scaling.rows) {
    if (row[variant_col].text_value.rfind("chained/", 0) == 0) {
      ++chained_rows;
      EXPECT_LE(row[n_col].integer_value, std::int64_t(1) << 26);
    }
  }
  EXPECT_EQ(chained_rows, 9u);  // 2^10 .. 2^26 in steps of 4x
  EXPECT_EQ(scaling.rows.size(), 10u * 6u - 1u);
  ASSERT_FALSE(experiment_of(r.report, 7).notices.empty());
  EXPECT_NE(experiment_of(r.report, 7).notices[0].find("chained"), std::string::npos);
  EXPECT_TRUE(any_finding(experiment_of(r.report, 7), "decoupled_look_back/warp_of_warps/K16: linear"));
  EXPECT_TRUE(any_finding(experiment_of(r.report, 7), "cudaMemcpy D2D: linear"));

  // Every (variant, size) was taken once, and the measurements table lists each once.
  for (const auto& [key, count] : m.takes) EXPECT_EQ(count, 1) << key;
  EXPECT_EQ(r.report.measurements.rows.size(), m.all().size());
  std::set<std::string> keys;
  const auto& meas = r.report.measurements;
  for (const auto& row : meas.rows)
    keys.insert(row[column(meas, "variant")].text_value + "@" + row[column(meas, "n")].raw());
  EXPECT_EQ(keys.size(), meas.rows.size());
  for (const auto& row : meas.rows) {
    const std::string check = row[column(meas, "check")].text_value;
    EXPECT_TRUE(check == "ok" || check == "n/a") << check;
    EXPECT_EQ(row[column(meas, "of_copy")].what, cell::kind::real);  // the copy is measured at every size
  }

  // The terminal shows each experiment; the metadata names the device and the run.
  const std::string text = r.out.str();
  for (int id = 1; id <= 7; ++id) EXPECT_NE(text.find("Experiment " + std::to_string(id) + ":"), std::string::npos);
  EXPECT_EQ(text.find("MISMATCH ***"), std::string::npos);
  EXPECT_NE(r.progress.str().find("experiment 7: n = 2^28 (10/10)"), std::string::npos);
  ASSERT_NE(r.report.find_metadata("gpu"), nullptr);
  EXPECT_EQ(r.report.find_metadata("gpu")->text_value, "synthetic GPU (host test)");
  ASSERT_NE(r.report.find_metadata("mode"), nullptr);
  EXPECT_EQ(r.report.find_metadata("mode")->text_value, "quick");

  // The files: one CSV per table, measurements.csv and a valid lab.json.
  temp_dir dir;
  const auto written = write_report_files(r.report, dir.str());
  EXPECT_EQ(written.size(), 10u + 2u);
  for (const char* f : {"exp1_three_launch_vs_cpu.csv", "exp4_coarsening.csv", "exp7_scaling_fit.csv",
                        "measurements.csv", "lab.json"}) {
    EXPECT_TRUE(std::filesystem::exists(dir.path() / f)) << f;
  }
  EXPECT_TRUE(is_valid_json(read_text(dir.path() / "lab.json")));
  // For trying scripts/plot_lab.py by hand on realistic files.
  if (const char* keep = std::getenv("SCANKIT_LAB_SYNTHETIC_OUT")) {
    (void)write_report_files(r.report, keep);
    std::ofstream(std::filesystem::path(keep) / "terminal.txt") << r.out.str();
  }
}

TEST(LabSynthetic, MismatchIsLoudAndRecorded) {
  lab_run r;
  r.plan = plan_of({"--experiments", "6", "--sizes", "2^16"});
  synthetic_measurer m(r.report, r.out, 4, 16);
  m.mismatch_if = [](const variant& v, std::int64_t) {
    return v.what == variant::kind::scankit && v.strategy == scan_strategy::chained &&
           v.block == block_scan_algorithm::brent_kung;
  };
  run(r, m);
  ASSERT_EQ(r.report.mismatches.size(), 1u);
  EXPECT_NE(r.report.mismatches[0].find("chained/brent_kung/K16 at n = 2^16"), std::string::npos);
  EXPECT_NE(r.out.str().find("*** MISMATCH *** chained/brent_kung/K16"), std::string::npos);
  const auto& t = table(r.report, "exp6_vs_cub");
  int mismatching_rows = 0;
  for (const auto& row : t.rows) mismatching_rows += row[column(t, "check")].text_value == "MISMATCH" ? 1 : 0;
  EXPECT_EQ(mismatching_rows, 1);
  EXPECT_NE(to_json(r.report).find("\"correct\": false"), std::string::npos);
  // Only experiment 6 ran; the others are listed as not selected.
  EXPECT_FALSE(experiment_of(r.report, 1).ran);
  EXPECT_NE(experiment_of(r.report, 1).skipped_reason.find("not selected"), std::string::npos);
}

TEST(LabSynthetic, FailureIsRecordedAndTheRunGoesOn) {
  lab_run r;
  r.plan = plan_of({"--experiments", "6,7", "--sizes", "2^16", "--scaling-sizes", "2^24..2^26"});
  synthetic_measurer m(r.report, r.out, 4, 16);
  m.fail_if = [](const variant& v, std::int64_t) { return v.what == variant::kind::cub; };
  run(r, m);
  EXPECT_TRUE(r.report.mismatches.empty());
  ASSERT_EQ(r.report.errors.size(), 4u);  // CUB at 2^16, 2^24, 2^25, 2^26
  EXPECT_NE(r.out.str().find("*** FAILED *** cub::DeviceScan::InclusiveSum at n = 2^16"), std::string::npos);
  const auto& t = table(r.report, "exp6_vs_cub");
  for (const auto& row : t.rows) EXPECT_EQ(row[column(t, "vs_CUB")].what, cell::kind::empty);
  EXPECT_EQ(experiment_of(r.report, 7).tables.size(), 2u);
}

TEST(LabSynthetic, TypesWithoutKernelVariantsNeverAskForThem) {
  lab_run r;
  r.plan = plan_of({"--type", "int64", "--sizes", "2^16", "--scaling-sizes", "2^10,2^12"});
  synthetic_measurer m(r.report, r.out, 8, 8);
  m.kernel_info_allowed = false;
  run(r, m);
  EXPECT_EQ(m.kernel_info_calls, 0);
  EXPECT_TRUE(r.report.errors.empty());
  for (int id : {3, 4, 5}) {
    EXPECT_FALSE(experiment_of(r.report, id).ran);
    EXPECT_NE(experiment_of(r.report, id).skipped_reason.find("int32 or float"), std::string::npos);
  }
  // Experiment 2 runs at the tuned K only (8 for 8-byte values).
  const auto& t = table(r.report, "exp2_warp_vs_shared");
  EXPECT_EQ(t.rows.size(), 2u * 4u);
  for (const auto& row : t.rows) EXPECT_EQ(row[column(t, "K")].integer_value, 8);
  // Two sizes below the L2 cannot be fitted: the finding says so.
  EXPECT_TRUE(any_finding(experiment_of(r.report, 7), "not enough sizes"));
}

TEST(LabSynthetic, MeasurementsStayValidAsMoreAreTaken) {
  lab_report report;
  std::ostringstream out;
  synthetic_measurer m(report, out, 4, 16);
  const measurement& first = m.measure(variant::device_copy(), 1024);
  for (int k = 10; k < 200; ++k) (void)m.measure(variant::device_copy(), std::int64_t(1) << (k % 30) | k);
  EXPECT_EQ(first.v.label(), "cudaMemcpy D2D");
  EXPECT_EQ(first.n, 1024);
  EXPECT_EQ(&m.measure(variant::device_copy(), 1024), &first);  // cached, same object
  ASSERT_NE(m.find(variant::device_copy(), 1024), nullptr);
  EXPECT_EQ(m.find(variant::cub(), 1024), nullptr);
}

TEST(LabVariant, Labels) {
  EXPECT_EQ(variant::scan(scan_strategy::three_launch, block_scan_algorithm::brent_kung, 4).label(),
            "three_launch/brent_kung/K4");
  EXPECT_EQ(variant::cub().label(), "cub::DeviceScan::InclusiveSum");
  EXPECT_EQ(variant::device_copy().label(), "cudaMemcpy D2D");
  measurement m;
  EXPECT_EQ(m.check_text(), "n/a");
  m.checked = true;
  EXPECT_EQ(m.check_text(), "MISMATCH");
  m.ok = true;
  EXPECT_EQ(m.check_text(), "ok");
  m.failed = true;
  EXPECT_EQ(m.check_text(), "FAILED");
}

}  // namespace
}  // namespace scankit::lab
