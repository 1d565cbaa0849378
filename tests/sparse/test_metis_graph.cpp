// METIS graph files: the plain and weighted forms, isolated vertices and comments, every malformed
// case with its line, and the real graphs Debian's libmetis-doc ships (skipped where it is not
// installed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "scankit/error.hpp"
#include "scankit/sparse/matrix_market.hpp"

namespace {

using scankit::sparse::parse_metis_graph;

std::vector<std::tuple<int, int, double>> triplets(const scankit::sparse::coo_matrix_host<std::int32_t, double>& g) {
  std::vector<std::tuple<int, int, double>> t;
  for (std::size_t k = 0; k < g.nonzeros(); ++k) t.emplace_back(g.row[k], g.col[k], g.value[k]);
  return t;
}

std::string error_of(const std::string& text) {
  try {
    parse_metis_graph<std::int32_t, double>(text);
  } catch (const scankit::error& e) {
    return e.what();
  }
  return "";
}

TEST(MetisGraph, PlainGraphWithCommentsAndAnIsolatedVertex) {
  // A path 1 - 2 - 3 and a vertex 4 without neighbours.
  const auto g = parse_metis_graph<std::int32_t, double>("% a comment\n4 2\n2\n1 3\n% between vertices\n2\n\n");
  EXPECT_EQ(g.rows, 4);
  EXPECT_EQ(triplets(g), (std::vector<std::tuple<int, int, double>>{{0, 1, 1}, {1, 0, 1}, {1, 2, 1}, {2, 1, 1}}));
}

TEST(MetisGraph, VertexWeightsSizesAndEdgeWeights) {
  // fmt 111 with ncon 2: size, two weights, then (neighbour, weight) pairs.
  const auto g = parse_metis_graph<std::int32_t, double>("2 1 111 2\n9 1 2 2 5\n9 3 4 1 5\n");
  EXPECT_EQ(triplets(g), (std::vector<std::tuple<int, int, double>>{{0, 1, 5}, {1, 0, 5}}));
  // fmt 1: edge weights only.
  const auto h = parse_metis_graph<std::int32_t, double>("2 1 1\n2 7\n1 7\n");
  EXPECT_EQ(triplets(h), (std::vector<std::tuple<int, int, double>>{{0, 1, 7}, {1, 0, 7}}));
}

TEST(MetisGraph, BadFilesNameTheLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "<text>:1: the file ends before the header"},
      {"2\n", "<text>:1: the header needs the vertex and edge counts"},
      {"2 1 2\n", "<text>:1: the header's fmt must be three 0/1 digits"},
      {"2 1\n2\n", "<text>:2: the file ends after 1 of 2 vertex lines"},
      {"2 1\n3\n1\n", "<text>:2: neighbour 3 is out of range [1, 2]"},
      {"2 1\n2\nx\n", "<text>:3: expected a neighbour's index"},
      {"2 1 1\n2\n1 1\n", "<text>:2: expected an edge weight"},
      {"2 1 10\n\n1\n", "<text>:2: expected the vertex's size and weights"},
      {"2 1\n2\n1\n2\n", "<text>:4: more vertex lines than the 2 declared"},
      {"2 2\n2\n1\n", "<text>:3: 2 adjacency entries where the header's 2 edges need 4"},
      // Found by the fuzzer: a huge edge count must not be allocated before the lines bear it out.
      {"20 1000000000000000000\n", "<text>:1: the file ends after 0 of 20 vertex lines"},
      {"2 9223372036854775807\n", "<text>:1: the edge count is too large"},
  };
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(text);
    const std::string message = error_of(text);
    EXPECT_EQ(message.rfind(expected, 0), 0u) << "got: " << message;
  }
}

// The finite-element graphs of libmetis-doc: every edge listed from both ends.
TEST(MetisGraph, DebianExampleGraphs) {
  const std::filesystem::path dir = "/usr/share/doc/libmetis-dev/examples/graphs";
  if (!std::filesystem::exists(dir / "mdual.graph")) GTEST_SKIP() << "libmetis-doc is not installed";
  const auto g = scankit::sparse::read_metis_graph<std::int32_t, float>((dir / "mdual.graph").string());
  EXPECT_EQ(g.rows, 258569);
  EXPECT_EQ(g.nonzeros(), 2u * 513132u);
  std::vector<std::pair<int, int>> forward, backward;
  for (std::size_t k = 0; k < g.nonzeros(); ++k) {
    forward.emplace_back(g.row[k], g.col[k]);
    backward.emplace_back(g.col[k], g.row[k]);
  }
  std::sort(forward.begin(), forward.end());
  std::sort(backward.begin(), backward.end());
  EXPECT_EQ(forward, backward);
  for (const char* name : {"4elt.graph", "copter2.graph"}) {
    EXPECT_NO_THROW((scankit::sparse::read_metis_graph<std::int32_t, float>((dir / name).string()))) << name;
  }
}

}  // namespace
