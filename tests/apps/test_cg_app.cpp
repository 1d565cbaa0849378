// `scankit cg` on the host: help, bad command lines, and the host reference's solve (--host, so
// that it runs the same with or without a GPU): the residual line of every iteration, the
// progress bar, the final lines, the exit status.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "app_test_util.hpp"
#include "scankit/error.hpp"

int run_cg_app(int argc, char** argv);  // apps/cg_app.cpp

namespace {

int run(std::vector<std::string> args, std::string* out = nullptr) {
  return scankit::apps::testing::run_command(run_cg_app, "cg", std::move(args), out);
}

TEST(CgApp, HelpExplainsAndSucceeds) {
  std::string out;
  EXPECT_EQ(run({"--help"}, &out), 0);
  for (const char* option : {"scankit cg", "--grid", "--iterations", "--tolerance", "--double", "--host", "--every"}) {
    EXPECT_NE(out.find(option), std::string::npos) << option << "\n" << out;
  }
}

TEST(CgApp, BadCommandLinesThrowScankitError) {
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--bogus"}, {"--grid", "0"}, {"--grid", "x"}, {"--grid", "100000"},
        {"--iterations", "-1"}, {"--tolerance", "-1e-3"}, {"--tolerance", "2"}, {"--every", "0"}, {"extra"}}) {
    EXPECT_THROW(run(bad), scankit::error) << ::testing::PrintToString(bad);
  }
}

TEST(CgApp, HostReferenceConverges) {
  for (const char* type : {"float", "double"}) {
    SCOPED_TRACE(type);
    std::vector<std::string> args{"--host", "--grid", "12", "--tolerance", "1e-5"};
    if (std::string(type) == "double") args.push_back("--double");
    std::string out;
    EXPECT_EQ(run(args, &out), 0) << out;
    EXPECT_NE(out.find("Poisson 2D 12^2: 144 rows, 672 nonzeros, " + std::string(type) + " values"), std::string::npos)
        << out;
    EXPECT_NE(out.find("--host: the host reference solves it"), std::string::npos) << out;
    EXPECT_NE(out.find("iteration      0  relative residual 1.000000e+00  ["), std::string::npos) << out;
    EXPECT_NE(out.find("iteration      1  relative residual"), std::string::npos) << out;
    EXPECT_NE(out.find("100%"), std::string::npos) << "the last line's progress\n" << out;
    EXPECT_NE(out.find("converged after "), std::string::npos) << out;
    EXPECT_NE(out.find("residual recomputed on the host from x"), std::string::npos) << out;
    EXPECT_NE(out.find("time per iteration (host reference): "), std::string::npos) << out;
  }
}

TEST(CgApp, StopsAtTheIterationLimitWithStatusOne) {
  std::string out;
  EXPECT_EQ(run({"--host", "--grid", "30", "--iterations", "3", "--tolerance", "1e-12"}, &out), 1) << out;
  EXPECT_NE(out.find("iteration      3  relative residual"), std::string::npos) << out;
  EXPECT_EQ(out.find("iteration      4"), std::string::npos) << out;
  EXPECT_NE(out.find("did not converge: stopped after 3 iterations"), std::string::npos) << out;
}

TEST(CgApp, PrintsEveryKthIteration) {
  std::string out;
  EXPECT_EQ(run({"--host", "--grid", "30", "--iterations", "9", "--every", "4", "--tolerance", "1e-12"}, &out), 1) << out;
  for (const char* shown : {"iteration      0 ", "iteration      4 ", "iteration      8 ", "iteration      9 "}) {
    EXPECT_NE(out.find(shown), std::string::npos) << shown << "\n" << out;
  }
  for (const char* hidden : {"iteration      1 ", "iteration      5 "}) {
    EXPECT_EQ(out.find(hidden), std::string::npos) << hidden << "\n" << out;
  }
}

}  // namespace
