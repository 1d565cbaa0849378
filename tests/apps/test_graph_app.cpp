// `scankit graph` on the host: help, bad command lines, and the shipped graph (the host references
// alone without a GPU; with one, the GPU's CSR, levels and ranks must match the host's).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "app_test_util.hpp"
#include "lab_test_util.hpp"  // temp_dir
#include "scankit/error.hpp"

int run_graph_app(int argc, char** argv);  // apps/graph_app.cpp

namespace {

using scankit::lab::testing::temp_dir;

int run(std::vector<std::string> args, std::string* out = nullptr) {
  return scankit::apps::testing::run_command(run_graph_app, "graph", std::move(args), out);
}

TEST(GraphApp, HelpExplainsAndSucceeds) {
  std::string out;
  EXPECT_EQ(run({"--help"}, &out), 0);
  EXPECT_NE(out.find("scankit graph"), std::string::npos) << out;
  EXPECT_NE(out.find("--undirected"), std::string::npos) << out;
  EXPECT_NE(out.find("--tolerance"), std::string::npos) << out;
}

TEST(GraphApp, BadCommandLinesThrowScankitError) {
  temp_dir dir;
  const std::string wide = (dir.path() / "wide.mtx").string();
  std::ofstream(wide) << "%%MatrixMarket matrix coordinate real general\n2 3 1\n1 3 1.0\n";
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--bogus"}, {"--generate", "poisson2d:4"}, {"--generate", "rmat:99"},
        {"--source", "-1"}, {"--source", "100000"}, {"--damping", "1"}, {"--tolerance", "-1"}, {"--repeat", "0"},
        {(dir.path() / "missing.graph").string()}, {wide}, {wide, "--generate", "rmat:4"}}) {
    EXPECT_THROW(run(bad), scankit::error) << ::testing::PrintToString(bad);
  }
}

TEST(GraphApp, ShippedGraph) {
  std::string out;
  EXPECT_EQ(run({"--repeat", "1"}, &out), 0) << out;
  EXPECT_NE(out.find("7434 vertices, 86062 links"), std::string::npos) << out;
  EXPECT_NE(out.find("vertices per level: 1 "), std::string::npos) << out;
  EXPECT_EQ(out.find("DIFFER"), std::string::npos) << out;
  EXPECT_EQ(out.find("TOO FAR"), std::string::npos) << out;
}

TEST(GraphApp, GeneratedUndirectedGraph) {
  std::string out;
  EXPECT_EQ(run({"--generate", "rmat:10", "--undirected", "--source", "3", "--repeat", "1"}, &out), 0) << out;
  EXPECT_NE(out.find("1024 vertices, 32768 links (both ways)"), std::string::npos) << out;
  EXPECT_EQ(out.find("DIFFER"), std::string::npos) << out;
}

}  // namespace
