// `scankit cg` on the GPU: float and double solves converge, and in double the GPU needs about as
// many iterations as the host reference (the same iteration, other rounding).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "app_test_util.hpp"
#include "support/gpu_test.hpp"

int run_cg_app(int argc, char** argv);  // apps/cg_app.cpp

namespace {

int run(std::vector<std::string> args, std::string* out = nullptr) {
  return scankit::apps::testing::run_command(run_cg_app, "cg", std::move(args), out);
}

int iterations_of(const std::string& out) {
  const auto at = out.find("converged after ");
  if (at == std::string::npos) return -1;
  int iterations = -1;
  std::sscanf(out.c_str() + at, "converged after %d iterations", &iterations);
  return iterations;
}

TEST(CgAppGpu, FloatAndDoubleConvergeOnTheGpu) {
  SCANKIT_REQUIRE_GPU();
  for (const char* type : {"float", "double"}) {
    SCOPED_TRACE(type);
    std::vector<std::string> args{"--grid", "40", "--tolerance", "1e-5"};
    if (std::string(type) == "double") args.push_back("--double");
    std::string out;
    EXPECT_EQ(run(args, &out), 0) << out;
    EXPECT_NE(out.find("GPU: SpMV plan in "), std::string::npos) << out;
    EXPECT_GT(iterations_of(out), 0) << out;
    EXPECT_NE(out.find("time per iteration (GPU): "), std::string::npos) << out;
  }
}

TEST(CgAppGpu, DoubleTakesAboutTheHostReferencesIterations) {
  SCANKIT_REQUIRE_GPU();
  std::string gpu_out, host_out;
  ASSERT_EQ(run({"--grid", "40", "--double", "--tolerance", "1e-8"}, &gpu_out), 0) << gpu_out;
  ASSERT_EQ(run({"--grid", "40", "--double", "--tolerance", "1e-8", "--host"}, &host_out), 0) << host_out;
  const int gpu = iterations_of(gpu_out), host = iterations_of(host_out);
  EXPECT_NEAR(gpu, host, 3) << gpu_out << "\n" << host_out;
}

}  // namespace
