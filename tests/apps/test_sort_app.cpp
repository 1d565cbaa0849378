// `scankit sort` on the host: help, bad command lines, a CSV column sorted and written back, each
// segment of a column sorted on its own (--segments) with the permutation, bad offsets files, the
// generated run without a GPU. With a CUDA device the same runs check the GPU against the host.
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

TEST(SortApp, SortsEachSegmentOnItsOwn) {
  temp_dir dir;
  const std::string in = (dir.path() / "scores.csv").string(), out = (dir.path() / "sorted.csv").string();
  const std::string offsets = (dir.path() / "groups.txt").string();
  std::ofstream(in) << "score\n9\n5\n7\n1\n8\n3\n3\n2\n";
  // Item 0 is outside every segment; [1, 4), an empty one, [4, 4)... then [4, 8).
  std::ofstream(offsets) << "# CSR offsets\n1, 4\n4\n8\n";
  ::testing::internal::CaptureStdout();
  const int status = run({"--input", in, "--type", "i32", "--segments", offsets, "--argsort", "--output", out,
                          "--repeat", "1"});
  const std::string text = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, 0) << text;
  EXPECT_NE(text.find("segments: 3"), std::string::npos) << text;
  EXPECT_EQ(read_text(out), "score\n9\n1\n5\n7\n2\n3\n3\n8\n");
}

TEST(SortApp, BadOffsetsFilesThrowScankitError) {
  temp_dir dir;
  const std::string in = (dir.path() / "keys.csv").string();
  std::ofstream(in) << "k\n4\n3\n2\n1\n";
  const auto file = [&](const std::string& name, const std::string& text) {
    const std::string path = (dir.path() / name).string();
    std::ofstream(path) << text;
    return path;
  };
  for (const std::string& bad : {file("empty.txt", "# none\n"), file("down.txt", "0 3 2 4\n"),
                                 file("past.txt", "0 5\n"), file("negative.txt", "-1 4\n"),
                                 file("word.txt", "0 two 4\n"), file("odd.bin", "abc")}) {
    ::testing::internal::CaptureStdout();
    EXPECT_THROW(run({"--input", in, "--type", "f32", "--segments", bad}), scankit::error) << bad;
    (void)::testing::internal::GetCapturedStdout();
  }
  ::testing::internal::CaptureStdout();
  EXPECT_THROW(run({"--input", in, "--type", "u64", "--segments", file("ok.txt", "0 4\n")}), scankit::error);
  (void)::testing::internal::GetCapturedStdout();
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
