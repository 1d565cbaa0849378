// `scankit lab` end to end on the host: help, bad command lines, the run without a GPU, and where
// it looks for the plot script.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lab_main.hpp"
#include "lab_test_util.hpp"
#include "scankit/scan.hpp"

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

TEST(LabMain, HelpExplainsAndSucceeds) {
  ::testing::internal::CaptureStdout();
  const int status = run({"--help"});
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, exit_ok);
  EXPECT_NE(out.find("usage: scankit lab"), std::string::npos);
  EXPECT_NE(out.find("--experiments"), std::string::npos);
}

TEST(LabMain, BadCommandLinesExitWithTwo) {
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--bogus"}, {"--sizes", "0"}, {"--repeat"}, {"--type", "int64", "--experiments", "4"},
        {"--quick", "--full"}}) {
    ::testing::internal::CaptureStderr();
    const int status = run(bad);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(status, exit_usage) << ::testing::PrintToString(bad);
    EXPECT_NE(err.find("scankit lab: "), std::string::npos) << err;
  }
}

TEST(LabMain, WithoutAGpuTimesTheHostReferenceAndExitsWithThree) {
  if (cuda_device_available()) GTEST_SKIP() << "a CUDA device is present: the gpu-labelled lab test covers this run";
  temp_dir dir;
  ::testing::internal::CaptureStdout();
  const int status = run({"--sizes", "2^10,1000", "--out", dir.str(), "--no-plots", "--repeat", "2"});
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, exit_no_gpu);
  EXPECT_NE(out.find("no CUDA device found"), std::string::npos);
  EXPECT_NE(out.find("nothing on the GPU could be measured"), std::string::npos);
  const std::string csv = read_text(dir.path() / "exp1_three_launch_vs_cpu.csv");
  EXPECT_EQ(csv.rfind("n,variant,time_ms,GB/s,check\n", 0), 0u) << csv;
  EXPECT_NE(csv.find("\n1000,CPU host reference,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n1024,CPU host reference,"), std::string::npos) << csv;
  const std::string json = read_text(dir.path() / "lab.json");
  EXPECT_TRUE(is_valid_json(json));
  EXPECT_NE(json.find("\"device\": \"none\""), std::string::npos);
}

TEST(LabMain, UnwritableOutputFolderIsReported) {
  if (cuda_device_available()) GTEST_SKIP() << "runs the host-only path";
  temp_dir dir;
  const auto file = dir.path() / "not-a-folder";
  { std::ofstream(file) << "x"; }
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int status = run({"--sizes", "2^10", "--out", (file / "out").string(), "--no-plots"});
  (void)::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(status, exit_ok);
  EXPECT_NE(err.find("cannot create the output folder"), std::string::npos) << err;
}

TEST(LabMain, ShellQuoting) {
  EXPECT_EQ(shell_quote("plain"), "'plain'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("a b;rm"), "'a b;rm'");
}

TEST(LabMain, PlotScriptFromTheEnvironmentWins) {
  temp_dir dir;
  const auto script = dir.path() / "my_plot.py";
  { std::ofstream(script) << "print('hi')\n"; }
  ASSERT_EQ(setenv("SCANKIT_PLOT_SCRIPT", script.c_str(), 1), 0);
  EXPECT_EQ(find_plot_script(), script.string());
  unsetenv("SCANKIT_PLOT_SCRIPT");
  // Without it, the source tree's script is found (the tests run from the build folder).
  const std::string found = find_plot_script();
  EXPECT_NE(found, script.string());
  EXPECT_NE(found.find("plot_lab.py"), std::string::npos) << found;
}

}  // namespace
}  // namespace scankit::lab
