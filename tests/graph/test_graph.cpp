// Breadth-first search and PageRank on the GPU (precompiled API, g++) against the host references
// (scankit/reference/graph_reference.hpp): random graphs with empty rows, hubs wider than a tile,
// self loops and repeated links; R-MAT graphs; the shipped METIS graph; bad arguments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "scankit/error.hpp"
#include "scankit/graph/bfs.hpp"
#include "scankit/graph/pagerank.hpp"
#include "scankit/reference/graph_reference.hpp"
#include "scankit/sparse/generators.hpp"
#include "scankit/sparse/matrix_market.hpp"
#include "support/gpu_test.hpp"

#ifndef SCANKIT_DATA_DIR
#define SCANKIT_DATA_DIR "data"
#endif

namespace scankit::testing {
namespace {

// Row u: zero links (a quarter of the vertices), a few, or (one vertex in 500) a hub of thousands,
// so frontier vertices straddle the expansion's 2048-slot tiles.
template <class Index, class Value>
sparse::csr_matrix_host<Index, Value> random_graph(Index n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  sparse::csr_matrix_host<Index, Value> g;
  g.rows = g.cols = n;
  g.offsets.push_back(0);
  std::uniform_int_distribution<long long> vertex(0, n - 1);
  for (Index u = 0; u < n; ++u) {
    const auto pick = rng() % 1000;
    const long long degree = pick < 250 ? 0 : pick < 998 ? static_cast<long long>(rng() % 6) + 1 : 2000 + static_cast<long long>(rng() % 3000);
    for (long long k = 0; k < degree; ++k) g.columns.push_back(static_cast<Index>(vertex(rng)));
    g.offsets.push_back(static_cast<Index>(g.columns.size()));
  }
  g.values.assign(g.columns.size(), Value(1));
  return g;
}

// The links sorted by (row, column), repeats kept (R-MAT makes them in generation order).
template <class Index, class Value>
sparse::csr_matrix_host<Index, Value> csr_of(const sparse::coo_matrix_host<Index, Value>& coo) {
  std::vector<std::size_t> order(coo.nonzeros());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return coo.row[a] != coo.row[b] ? coo.row[a] < coo.row[b] : coo.col[a] < coo.col[b];
  });
  sparse::coo_matrix_host<Index, Value> sorted;
  sorted.rows = coo.rows;
  sorted.cols = coo.cols;
  for (std::size_t k : order) {
    sorted.row.push_back(coo.row[k]);
    sorted.col.push_back(coo.col[k]);
    sorted.value.push_back(coo.value[k]);
  }
  return sparse::csr_from_sorted_coo(sorted);
}

template <class Index, class Value>
struct device_graph {
  device_buffer<Index> offsets, columns;
  device_buffer<Value> values;
  sparse::csr_view<Index, Value> view;
  explicit device_graph(const sparse::csr_matrix_host<Index, Value>& g)
      : offsets(g.offsets), columns(g.columns), values(g.values),
        view(g.rows, g.cols, static_cast<std::int64_t>(g.columns.size()), offsets.data(), columns.data(),
             values.data()) {}
};

template <class Index, class Value>
void check_bfs(const sparse::csr_matrix_host<Index, Value>& g, Index source, const std::string& what,
               cudaStream_t stream = nullptr) {
  SCOPED_TRACE(what + ", source " + std::to_string(source));
  const device_graph<Index, Value> d(g);
  constexpr std::size_t guard = 64;
  device_buffer<std::int32_t> levels(static_cast<std::size_t>(g.rows) + guard);
  levels.poison();
  const auto result = graph::breadth_first_search(d.view, source, levels.data(), stream);
  auto got = levels.download();
  for (std::size_t i = static_cast<std::size_t>(g.rows); i < got.size(); ++i) {
    ASSERT_EQ(got[i], static_cast<std::int32_t>(0xA5A5A5A5)) << "written past levels[n - 1]";
  }
  got.resize(static_cast<std::size_t>(g.rows));
  const auto expected = reference::bfs_levels(g, source);
  ASSERT_EQ(expected, got);
  std::int64_t reached = 0, scanned = 0;
  int deepest = -1;
  for (std::size_t v = 0; v < expected.size(); ++v) {
    if (expected[v] < 0) continue;
    ++reached;
    scanned += g.offsets[v + 1] - g.offsets[v];
    deepest = std::max(deepest, expected[v]);
  }
  EXPECT_EQ(result.reached, reached);
  EXPECT_EQ(result.edges_scanned, scanned);
  EXPECT_EQ(result.depth, deepest + 1);
}

TEST(BreadthFirstSearch, RandomGraphsOfAwkwardSizes) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  cudaStream_t stream = nullptr;
  SCANKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (std::int32_t n : {1, 2, 17, 2049, 100'003}) {
    const auto g = random_graph<std::int32_t, float>(n, seed + static_cast<std::uint64_t>(n));
    // the first vertex with links, and vertex n / 2 (which may have none)
    std::int32_t linked = 0;
    while (linked + 1 < n && g.offsets[linked + 1] == g.offsets[linked]) ++linked;
    check_bfs(g, linked, "n " + std::to_string(n), stream);
    check_bfs(g, n / 2, "n " + std::to_string(n), stream);
  }
  SCANKIT_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(BreadthFirstSearch, Int64IndicesAndDoubleValues) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const auto g = random_graph<std::int64_t, double>(40'000, seed);
  check_bfs(g, std::int64_t{7}, "int64");
}

TEST(BreadthFirstSearch, RmatGraphs) {
  SCANKIT_REQUIRE_GPU();
  sparse::rmat_parameters p;
  p.scale = 16;
  p.edge_factor = 16;
  const auto g = csr_of(sparse::rmat<std::int32_t, float>(p));
  check_bfs(g, std::int32_t{0}, "rmat 16");  // vertex 0 is R-MAT's hub: deep levels of wide frontiers
  check_bfs(g, std::int32_t{12345}, "rmat 16");
}

TEST(BreadthFirstSearch, ShippedMetisGraphAndPaths) {
  SCANKIT_REQUIRE_GPU();
  const std::filesystem::path file = std::filesystem::path(SCANKIT_DATA_DIR) / "4elt.graph";
  ASSERT_TRUE(std::filesystem::exists(file)) << file;
  const auto g = csr_of(sparse::read_metis_graph<std::int32_t, float>(file.string()));
  check_bfs(g, std::int32_t{0}, "4elt");
  // a path of 3000 vertices: 3000 levels of one vertex each
  sparse::csr_matrix_host<std::int32_t, float> path;
  path.rows = path.cols = 3000;
  for (std::int32_t v = 0; v < 3000; ++v) {
    path.offsets.push_back(v);
    path.columns.push_back(v + 1 < 3000 ? v + 1 : v);  // the last vertex links to itself
  }
  path.offsets.push_back(3000);
  path.values.assign(3000, 1.0f);
  check_bfs(path, std::int32_t{0}, "path");
}

TEST(BreadthFirstSearch, ColumnsOutsideTheGraphAreSkipped) {
  SCANKIT_REQUIRE_GPU();
  sparse::csr_matrix_host<std::int32_t, float> g;
  g.rows = g.cols = 4;
  g.offsets = {0, 3, 4, 4, 5};
  g.columns = {1, 99, -3, 3, 0};
  g.values.assign(5, 1.0f);
  check_bfs(g, std::int32_t{0}, "bad columns");
}

TEST(BreadthFirstSearch, BadArgumentsThrowAndLeaveLevelsIntact) {
  SCANKIT_REQUIRE_GPU();
  const auto g = random_graph<std::int32_t, float>(100, 3);
  const device_graph<std::int32_t, float> d(g);
  device_buffer<std::int32_t> levels(100);
  levels.poison();
  const auto untouched = levels.download();
  EXPECT_THROW(graph::breadth_first_search(d.view, std::int32_t{100}, levels.data()), error);
  EXPECT_THROW(graph::breadth_first_search(d.view, std::int32_t{-1}, levels.data()), error);
  EXPECT_THROW(graph::breadth_first_search(d.view, std::int32_t{0}, static_cast<std::int32_t*>(nullptr)), error);
  auto wide = d.view;
  wide.cols = 101;
  EXPECT_THROW(graph::breadth_first_search(wide, std::int32_t{0}, levels.data()), error);
  auto bad = g;
  std::swap(bad.offsets[10], bad.offsets[60]);  // decreasing offsets
  if (bad.offsets[10] != bad.offsets[60]) {
    const device_graph<std::int32_t, float> db(bad);
    EXPECT_THROW(graph::breadth_first_search(db.view, std::int32_t{0}, levels.data()), error);
  }
  EXPECT_EQ(untouched, levels.download());
}

template <class Index, class Value>
void check_pagerank(const sparse::csr_matrix_host<Index, Value>& g, const std::string& what, double bound) {
  SCOPED_TRACE(what);
  const device_graph<Index, Value> d(g);
  constexpr std::size_t guard = 16;
  device_buffer<Value> rank(static_cast<std::size_t>(g.rows) + guard);
  rank.poison();
  graph::pagerank_options options;
  options.tolerance = sizeof(Value) == 4 ? 1e-6 : 1e-10;
  const graph::pagerank_plan<Index, Value> plan(d.view);
  const auto result = plan.run(rank.data(), options);
  auto got = rank.download();
  const auto* tail = reinterpret_cast<const unsigned char*>(got.data() + g.rows);
  EXPECT_TRUE(std::all_of(tail, tail + guard * sizeof(Value), [](unsigned char b) { return b == 0xA5; }))
      << "written past rank[n - 1]";
  got.resize(static_cast<std::size_t>(g.rows));
  const auto expected = reference::pagerank(g, options.damping, options.tolerance, options.max_iterations);
  EXPECT_TRUE(result.converged);
  EXPECT_LT(result.residual, options.tolerance);
  // The GPU stops one iteration after its first change below the tolerance; its changes are
  // rounded in the value type, so that iteration may be one away from the double reference's.
  EXPECT_GE(result.iterations, expected.iterations - 1);
  EXPECT_LE(result.iterations, expected.iterations + 2);
  double error = 0.0, total = 0.0;
  for (std::size_t v = 0; v < got.size(); ++v) {
    error += std::fabs(static_cast<double>(got[v]) - expected.rank[v]);
    total += static_cast<double>(got[v]);
  }
  EXPECT_LT(error, bound) << "L1 distance to the double reference";
  EXPECT_NEAR(total, 1.0, bound);
  // deterministic: a second run gives the same bits
  device_buffer<Value> again(static_cast<std::size_t>(g.rows));
  plan.run(again.data(), options);
  EXPECT_EQ(got, again.download());
}

TEST(PageRank, RandomGraphsWithDanglingVertices) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int32_t n : {1, 17, 2049, 100'003}) {
    check_pagerank(random_graph<std::int32_t, float>(n, seed + static_cast<std::uint64_t>(n)),
                   "float, n " + std::to_string(n), 2e-5);
  }
  check_pagerank(random_graph<std::int64_t, double>(30'001, seed), "int64 double", 3e-9);
  check_pagerank(random_graph<std::int32_t, double>(5'000, seed), "int32 double", 3e-9);
}

TEST(PageRank, RmatAndMetisGraphs) {
  SCANKIT_REQUIRE_GPU();
  sparse::rmat_parameters p;
  p.scale = 15;
  check_pagerank(csr_of(sparse::rmat<std::int32_t, float>(p)), "rmat 15", 2e-5);
  const auto file = std::filesystem::path(SCANKIT_DATA_DIR) / "4elt.graph";
  check_pagerank(csr_of(sparse::read_metis_graph<std::int64_t, float>(file.string())), "4elt", 2e-5);
}

TEST(PageRank, IterationLimitAndBadOptions) {
  SCANKIT_REQUIRE_GPU();
  const auto g = random_graph<std::int32_t, float>(1000, 5);
  const device_graph<std::int32_t, float> d(g);
  const graph::pagerank_plan<std::int32_t, float> plan(d.view);
  device_buffer<float> rank(1000);
  graph::pagerank_options few;
  few.max_iterations = 3;
  few.tolerance = 0.0;
  const auto result = plan.run(rank.data(), few);
  EXPECT_EQ(result.iterations, 3);
  EXPECT_FALSE(result.converged);
  const auto expected = reference::pagerank(g, few.damping, 0.0, 3);
  const auto got = rank.download();
  for (std::size_t v = 0; v < got.size(); ++v) ASSERT_NEAR(got[v], expected.rank[v], 1e-6) << v;

  rank.poison();
  const auto untouched = rank.download();
  graph::pagerank_options bad;
  bad.damping = 1.0;
  EXPECT_THROW(plan.run(rank.data(), bad), error);
  bad = {};
  bad.tolerance = std::nan("");
  EXPECT_THROW(plan.run(rank.data(), bad), error);
  bad = {};
  bad.max_iterations = 0;
  EXPECT_THROW(plan.run(rank.data(), bad), error);
  EXPECT_THROW(plan.run(static_cast<float*>(nullptr)), error);
  EXPECT_EQ(untouched, rank.download());
  auto wide = d.view;
  wide.cols = 1001;
  EXPECT_THROW((graph::pagerank_plan<std::int32_t, float>(wide)), error);
}

}  // namespace
}  // namespace scankit::testing
