// `scankit sample` (apps/sample_app.cpp): help, bad command lines and weights files, a weights file
// drawn and its histogram written for --plot (the draws come from the GPU where there is one, else
// from the host reference: both give the same numbers).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "app_test_util.hpp"  // run_command
#include "lab_test_util.hpp"  // temp_dir, read_text
#include "scankit/error.hpp"
#include "scankit/scan.hpp"

int run_sample_app(int argc, char** argv);  // apps/sample_app.cpp

namespace {

using scankit::lab::testing::read_text;
using scankit::lab::testing::temp_dir;

int run(std::vector<std::string> args, std::string* out = nullptr) {
  return scankit::apps::testing::run_command(run_sample_app, "sample", std::move(args), out);
}

TEST(SampleApp, HelpExplainsAndSucceeds) {
  std::string out;
  EXPECT_EQ(run({"--help"}, &out), 0);
  EXPECT_NE(out.find("scankit sample"), std::string::npos) << out;
  EXPECT_NE(out.find("--plot"), std::string::npos) << out;
}

TEST(SampleApp, BadCommandLinesAndWeightsThrowScankitError) {
  temp_dir dir;
  const std::string words = (dir.path() / "words.txt").string(), negative = (dir.path() / "negative.txt").string(),
                    zeros = (dir.path() / "zeros.txt").string(), empty = (dir.path() / "empty.txt").string();
  std::ofstream(words) << "1 2 three\n";
  std::ofstream(negative) << "1\n-2\n3\n";
  std::ofstream(zeros) << "0 0 0\n";
  std::ofstream(empty) << "\n";
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--bogus"}, {"--draws", "0"}, {"--groups", "-3"}, {"--zipf-bins", "0"},
        {"--weights", (dir.path() / "missing.txt").string()}, {"--weights", words, "--zipf-bins", "10"},
        {"--weights", words}, {"--weights", empty}, {"--weights", negative, "--draws", "100"},
        {"--weights", zeros, "--draws", "100"}})
    EXPECT_THROW(run(bad), scankit::error) << ::testing::PrintToString(bad);
}

TEST(SampleApp, DrawsAWeightsFileAndWritesTheHistogram) {
  temp_dir dir;
  const std::string weights = (dir.path() / "w.txt").string(), png = (dir.path() / "hist.png").string();
  std::ofstream(weights) << "1\n0\n2\n0.5 0.5\n4\n";
  std::string out;
  ASSERT_EQ(run({"--weights", weights, "--draws", "80000", "--groups", "6", "--plot", png}, &out), 0) << out;
  if (!scankit::cuda_device_available()) EXPECT_NE(out.find("no CUDA device found"), std::string::npos) << out;
  EXPECT_NE(out.find("chi-square"), std::string::npos) << out;
  const std::string csv = read_text(png + ".csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "first_bin,last_bin,observed,expected");
  EXPECT_NE(csv.find("\n1,1,0,0\n"), std::string::npos) << csv;  // the zero-weight bin is never drawn
  // 80000 draws, weights 1:2:0.5:0.5:4 over 8: bin 0 expects 10000 (sd 94), bin 5 expects 40000.
  EXPECT_NE(csv.find("\n5,5,"), std::string::npos) << csv;
}

TEST(SampleApp, GeneratedZipfRuns) {
  std::string out;
  ASSERT_EQ(run({"--zipf-bins", "5000", "--zipf-s", "1.2", "--draws", "200000", "--seed", "3"}, &out), 0) << out;
  EXPECT_NE(out.find("degrees of freedom"), std::string::npos) << out;
}

}  // namespace

// `scankit sample --rows` (apps/token_sample_app.cpp): bad command lines throw; generated rows are
// drawn and checked against the host reference (on the GPU where there is one).
TEST(SampleApp, RowsModeChecksItsArgumentsAndDraws) {
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--rows", "0"}, {"--rows", "2", "--top-p", "0"}, {"--rows", "2", "--top-p", "1.5"},
        {"--rows", "2", "--temperature", "-1"}, {"--rows", "2", "--top-k", "-1"}, {"--rows", "2", "--min-p", "2"},
        {"--rows", "2", "--dtype", "f64"}, {"--rows", "2", "--vocab", "10", "--input", "/nonexistent/logits.bin"}})
    EXPECT_THROW(run(bad), scankit::error) << ::testing::PrintToString(bad);
  std::string out;
  EXPECT_EQ(run({"--rows", "3", "--vocab", "777", "--top-k", "20", "--top-p", "0.8", "--dtype", "bf16"}, &out), 0);
  EXPECT_NE(out.find("3 rows of 777 logits (bf16)"), std::string::npos) << out;
  EXPECT_EQ(run({"--rows", "2", "--vocab", "100", "--probabilities", "--min-p", "0.1", "--temperature", "0"}, &out), 0);
}
