// `scankit compact` on the host: help, bad command lines, a generated dataset filtered and written
// back (the host reference without a GPU; the GPU result checked against it with one).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "app_test_util.hpp"
#include "lab_test_util.hpp"  // temp_dir, read_text
#include "scankit/error.hpp"

int run_compact_app(int argc, char** argv);  // apps/compact_app.cpp

namespace {

using scankit::lab::testing::read_text;
using scankit::lab::testing::temp_dir;

int run(std::vector<std::string> args, std::string* out = nullptr) {
  return scankit::apps::testing::run_command(run_compact_app, "compact", std::move(args), out);
}

TEST(CompactApp, HelpExplainsAndSucceeds) {
  std::string out;
  EXPECT_EQ(run({"--help"}, &out), 0);
  EXPECT_NE(out.find("scankit compact"), std::string::npos) << out;
  EXPECT_NE(out.find("--drop-nan"), std::string::npos) << out;
  EXPECT_NE(out.find("--generate"), std::string::npos) << out;
}

TEST(CompactApp, BadCommandLinesThrowScankitError) {
  temp_dir dir;
  const std::string csv = (dir.path() / "r.csv").string();
  std::ofstream(csv) << "a,b\n1,2\n";
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--bogus"}, {"--format", "xml"}, {"--fields", "0"}, {"--min", "x"},
        {"--input", csv, "--min", "5", "--max", "1"}, {"--strategy", "bubble"}, {"--rows", "-1", "--generate", csv},
        {"--input", (dir.path() / "missing.csv").string()}}) {
    EXPECT_THROW(run(bad), scankit::error) << ::testing::PrintToString(bad);
  }
}

TEST(CompactApp, FiltersAGeneratedDatasetAndWritesTheKeptRecords) {
  temp_dir dir;
  const std::string data = (dir.path() / "readings.csv").string(), kept = (dir.path() / "kept.csv").string();
  ASSERT_EQ(run({"--generate", data, "--rows", "500", "--seed", "3"}), 0);
  std::string out;
  ASSERT_EQ(run({"--input", data, "--column", "temperature_c", "--min", "18", "--max", "22", "--output", kept}, &out), 0)
      << out;
  const std::string all = read_text(data), some = read_text(kept);
  EXPECT_EQ(some.substr(0, some.find('\n')), all.substr(0, all.find('\n')));  // the same header
  const auto lines = [](const std::string& s) { return std::count(s.begin(), s.end(), '\n'); };
  EXPECT_LT(lines(some), lines(all));
  EXPECT_GT(lines(some), 1);
  EXPECT_NE(out.find("kept "), std::string::npos) << out;
}

}  // namespace
