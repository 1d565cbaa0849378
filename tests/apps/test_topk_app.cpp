// `scankit topk` on the host: help, bad command lines and inputs, a read file's rows written back as
// CSV (with a GPU: checked against the host first).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "lab_test_util.hpp"  // temp_dir, read_text
#include "scankit/error.hpp"

int run_topk_app(int argc, char** argv);  // apps/topk_app.cpp

namespace {

using scankit::lab::testing::read_text;
using scankit::lab::testing::temp_dir;

int run(std::vector<std::string> args) {
  args.insert(args.begin(), "topk");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return run_topk_app(static_cast<int>(args.size()), argv.data());
}

TEST(TopkApp, HelpExplainsAndSucceeds) {
  ::testing::internal::CaptureStdout();
  const int status = run({"--help"});
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, 0);
  EXPECT_NE(out.find("scankit topk"), std::string::npos) << out;
  EXPECT_NE(out.find("--smallest"), std::string::npos) << out;
}

TEST(TopkApp, BadCommandLinesAndInputsThrowScankitError) {
  temp_dir dir;
  const std::string odd = (dir.path() / "odd.bin").string();
  std::ofstream(odd, std::ios::binary) << "12345";  // not whole f32 rows
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--bogus"}, {"--k", "-1"}, {"--cols", "0"}, {"--repeat", "0"},
        {"--input", (dir.path() / "missing.bin").string()}, {"--input", odd, "--cols", "1"},
        {"--input", odd, "--rows", "3"}}) {
    ::testing::internal::CaptureStdout();
    EXPECT_THROW(run(bad), scankit::error) << ::testing::PrintToString(bad);
    (void)::testing::internal::GetCapturedStdout();
  }
}

TEST(TopkApp, WritesEachRowsLargestKeysInOrder) {
  temp_dir dir;
  const std::string in = (dir.path() / "rows.bin").string(), out = (dir.path() / "best.csv").string();
  const std::vector<float> keys = {1, 5, 3, 5, 0, /* row 1 */ -2, -1, -3, 7, 7};
  std::ofstream(in, std::ios::binary).write(reinterpret_cast<const char*>(keys.data()), keys.size() * sizeof(float));
  ::testing::internal::CaptureStdout();
  const int status = run({"--input", in, "--cols", "5", "--k", "3", "--output", out, "--repeat", "1"});
  const std::string text = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(status, 0) << text;
  EXPECT_NE(text.find("2 rows x 5"), std::string::npos) << text;
  // Ties by index: the 5 at 1 before the 5 at 3, the 7 at 3 before the 7 at 4.
  EXPECT_EQ(read_text(out), "row,rank,index,key\n0,0,1,5\n0,1,3,5\n0,2,2,3\n1,0,3,7\n1,1,4,7\n1,2,1,-1\n");
}

}  // namespace
