// `scankit csr` on the host: help, bad command lines, and a generated matrix's statistics (the
// host build alone without a GPU; with one, the GPU's CSR must equal the host's).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "app_test_util.hpp"
#include "lab_test_util.hpp"  // temp_dir
#include "scankit/error.hpp"

int run_csr_app(int argc, char** argv);  // apps/csr_app.cpp

namespace {

using scankit::lab::testing::temp_dir;

int run(std::vector<std::string> args, std::string* out = nullptr) {
  return scankit::apps::testing::run_command(run_csr_app, "csr", std::move(args), out);
}

TEST(CsrApp, HelpExplainsAndSucceeds) {
  std::string out;
  EXPECT_EQ(run({"--help"}, &out), 0);
  EXPECT_NE(out.find("scankit csr"), std::string::npos) << out;
  EXPECT_NE(out.find("--generate"), std::string::npos) << out;
  EXPECT_NE(out.find("--shuffle"), std::string::npos) << out;
}

TEST(CsrApp, BadCommandLinesThrowScankitError) {
  temp_dir dir;
  const std::string bad_file = (dir.path() / "bad.mtx").string();
  std::ofstream(bad_file) << "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n";
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--bogus"}, {"--generate", "poisson2d"}, {"--generate", "torus:3"},
        {"--generate", "poisson2d:x"}, {"--generate", "rmat:99"}, {"--repeat", "0"},
        {(dir.path() / "missing.mtx").string()}, {bad_file}, {bad_file, "--generate", "rmat:4"}}) {
    EXPECT_THROW(run(bad), scankit::error) << ::testing::PrintToString(bad);
  }
}

TEST(CsrApp, GeneratedMatrixStatistics) {
  std::string out;
  EXPECT_EQ(run({"--generate", "poisson2d:20", "--shuffle", "--repeat", "2"}, &out), 0) << out;
  EXPECT_NE(out.find("400 x 400, 1920 triplets, 1920 nonzeros"), std::string::npos) << out;
  EXPECT_NE(out.find("row lengths:"), std::string::npos) << out;
  EXPECT_EQ(out.find("DIFFERS"), std::string::npos) << out;
}

TEST(CsrApp, ReadsAMatrixMarketFileWithDuplicates) {
  temp_dir dir;
  const std::string file = (dir.path() / "m.mtx").string();
  std::ofstream(file) << "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1.5\n3 2 2\n1 1 0.5\n2 3 -1\n";
  std::string out;
  EXPECT_EQ(run({file}, &out), 0) << out;
  EXPECT_NE(out.find("3 x 3, 4 triplets, 3 nonzeros"), std::string::npos) << out;
}

}  // namespace
