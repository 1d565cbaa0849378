// `scankit sort` on the host: help, bad command lines, a CSV column sorted and written back, the
// generated run without a GPU.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "lab_test_util.hpp"  // temp_dir, read_text
#include "scankit/error.hpp"
#include "scankit/scan.hpp"

int run_sort_app(int argc, char** argv);  // apps/sort_app.cpp

namespace {

using scankit::lab::testing::read_text;
using scankit::lab::testing::temp_dir;

int run(std::vector<std::string> args) {
  args.insert(args.begin(), "sort");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return run_sort_app(static_cast<int>(args.size()), argv.data());
}

TEST(SortApp, HelpExplainsAndSucceeds) {
  ::testing::internal::CaptureStdout();
  const int status = run({"--help"});
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, 0);
  EXPECT_NE(out.find("scankit sort"), std::string::npos) << out;
  EXPECT_NE(out.find("--argsort"), std::string::npos) << out;
}

// The app throws scankit::error for a bad command line or input; the command line (apps/main.cpp)
// prints it and exits with status 2.
TEST(SortApp, BadCommandLinesAndInputsThrowScankitError) {
  temp_dir dir;
  const std::string csv = (dir.path() / "keys.csv").string();
  std::ofstream(csv) << "id,value\n1,3.5\n";
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--bogus"}, {"--type", "u16"}, {"--strategy", "bubble"}, {"--repeat", "0"},
        {"--n", "10", "--begin-bit", "40"}, {"--input", (dir.path() / "missing.bin").string()},
        {"--input", csv, "--column", "nope"}, {"--input", csv, "--type", "u32", "--column", "id", "--n", "5"},
        {"--input", csv, "--type", "u32", "--column", "value"}}) {
    ::testing::internal::CaptureStdout();
    EXPECT_THROW(run(bad), scankit::error) << ::testing::PrintToString(bad);
    (void)::testing::internal::GetCapturedStdout();
  }
}

TEST(SortApp, SortsACsvColumnAndWritesIt) {
  temp_dir dir;
  const std::string in = (dir.path() / "readings.csv").string(), out = (dir.path() / "sorted.csv").string();
  std::ofstream(in) << "id,value\n1,3.5\n2,-1\n3,2\n4,\n";
  ::testing::internal::CaptureStdout();
  const int status = run({"--input", in, "--column", "value", "--descending", "--output", out, "--repeat", "1"});
  const std::string text = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, 0) << text;
  EXPECT_EQ(read_text(out), "value\nnan\n3.5\n2\n-1\n");  // an empty field is NaN: above +inf
}

TEST(SortApp, WithoutAGpuRunsTheHostReferenceAndSucceeds) {
  if (scankit::cuda_device_available()) GTEST_SKIP() << "a CUDA device is present: this covers the run without one";
  ::testing::internal::CaptureStdout();
  const int status = run({"--n", "100000", "--type", "i64", "--argsort"});
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("no CUDA device found"), std::string::npos) << out;
  EXPECT_NE(out.find("100000 i64 keys"), std::string::npos) << out;
}

}  // namespace
