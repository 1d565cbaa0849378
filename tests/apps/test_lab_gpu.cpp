// `scankit lab --quick` end to end on the GPU: every variant checked against the host reference,
// the CSV and JSON files written, no mismatch. Skips itself without a device.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "lab_main.hpp"
#include "lab_test_util.hpp"
#include "support/gpu_test.hpp"

namespace scankit::lab {
namespace {

using testing::is_valid_json;
using testing::read_text;
using testing::temp_dir;

int run(std::vector<std::string> args) {
  args.insert(args.begin(), "lab");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return run_lab(static_cast<int>(args.size()), argv.data());
}

TEST(LabGpu, QuickModeEndToEnd) {
  SCANKIT_REQUIRE_GPU();
  temp_dir dir;
  const int status = run({"--quick", "--out", dir.str(), "--no-plots"});
  EXPECT_EQ(status, exit_ok);
  for (const char* f : {"lab.json", "measurements.csv", "exp1_three_launch_vs_cpu.csv", "exp2_warp_vs_shared.csv",
                        "exp3_barriers.csv", "exp4_coarsening.csv", "exp4_coarsening_kernels.csv",
                        "exp5_work_depth.csv", "exp5_work_depth_times.csv", "exp6_vs_cub.csv", "exp7_scaling.csv",
                        "exp7_scaling_fit.csv"}) {
    EXPECT_TRUE(std::filesystem::exists(dir.path() / f)) << f;
  }
  const std::string json = read_text(dir.path() / "lab.json");
  EXPECT_TRUE(is_valid_json(json));
  EXPECT_NE(json.find("\"correct\": true"), std::string::npos);
  EXPECT_NE(json.find("\"mismatches\": []"), std::string::npos);
  EXPECT_NE(json.find("\"errors\": []"), std::string::npos);
  const std::string measurements = read_text(dir.path() / "measurements.csv");
  EXPECT_EQ(measurements.find("MISMATCH"), std::string::npos);
  EXPECT_EQ(measurements.find("FAILED"), std::string::npos);
  EXPECT_NE(measurements.find(",ok\n"), std::string::npos);
}

TEST(LabGpu, OtherValueTypeRuns) {
  SCANKIT_REQUIRE_GPU();
  temp_dir dir;
  const int status = run({"--type", "double", "--sizes", "2^16,1000003", "--scaling-sizes", "2^10,2^20",
                          "--repeat", "2", "--out", dir.str(), "--no-plots"});
  EXPECT_EQ(status, exit_ok);
  const std::string json = read_text(dir.path() / "lab.json");
  EXPECT_TRUE(is_valid_json(json));
  EXPECT_NE(json.find("\"correct\": true"), std::string::npos);
}

}  // namespace
}  // namespace scankit::lab
