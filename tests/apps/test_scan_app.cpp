// `scankit scan`'s options on the host: help, defaults, bad command lines.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "app_test_util.hpp"
#include "scan_demo_options.hpp"
#include "scankit/error.hpp"

namespace {

using scankit::apps::scan_demo_options;

int parse(std::vector<std::string> args, scan_demo_options& o, std::string* out = nullptr) {
  return scankit::apps::testing::run_command(
      [&o](int argc, char** argv) { return scankit::apps::parse_scan_demo_options(argc, argv, o); }, "scan",
      std::move(args), out);
}

TEST(ScanApp, HelpExplainsAndSucceeds) {
  scan_demo_options o;
  std::string out;
  EXPECT_EQ(parse({"--help"}, o, &out), 0);
  EXPECT_NE(out.find("scankit scan"), std::string::npos) << out;
  EXPECT_NE(out.find("--strategy"), std::string::npos) << out;
  EXPECT_NE(out.find("--block"), std::string::npos) << out;
}

TEST(ScanApp, OptionsAreRead) {
  scan_demo_options o;
  EXPECT_EQ(parse({}, o), -1);
  EXPECT_EQ(o.n, std::int64_t{1} << 26);
  EXPECT_EQ(o.strategy, "all");
  EXPECT_EQ(parse({"--n", "1000", "--repeat", "3", "--seed", "9", "--strategy", "chained", "--block", "brent_kung"}, o),
            -1);
  EXPECT_EQ(o.n, 1000);
  EXPECT_EQ(o.repeat, 3);
  EXPECT_EQ(o.seed, 9u);
  EXPECT_EQ(o.strategy, "chained");
  EXPECT_EQ(o.block, "brent_kung");
}

TEST(ScanApp, BadCommandLinesThrowScankitError) {
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--bogus"}, {"--n", "0"}, {"--n", "x"}, {"--n"}, {"--repeat", "0"},
        {"--strategy", "bubble"}, {"--block", "nope"}}) {
    scan_demo_options o;
    EXPECT_THROW(parse(bad, o), scankit::error) << ::testing::PrintToString(bad);
  }
}

}  // namespace
