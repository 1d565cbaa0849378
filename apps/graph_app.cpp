// `scankit graph`: a graph-analytics pipeline built only from scankit's primitives. It reads a METIS
// graph or a Matrix Market file (or generates an R-MAT graph), builds its CSR on the GPU (radix
// sort of the links, repeated links merged, row offsets), runs breadth-first search (frontiers by
// scan and compaction, counts on the device) and PageRank (SpMV to a tolerance), checks both
// against the host references and prints each step's time. Without a CUDA device the host
// references run alone, with a notice. Plain C++ (g++) on the precompiled API; options by CLI11.
//
//   scankit graph                                   data/4elt.graph (a finite-element mesh)
//   scankit graph --generate rmat:22 --undirected   R-MAT, 2^22 vertices, 16 links each, both ways
//   scankit graph web.mtx --source 17 --no-check
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>

#include "command_line.hpp"
#include "matrix_source.hpp"
#include "scankit/error.hpp"
#include "scankit/graph/bfs.hpp"
#include "scankit/graph/pagerank.hpp"
#include "scankit/reference/graph_reference.hpp"
#include "scankit/scan.hpp"  // cuda_device_available
#include "scankit/sparse/csr_build.hpp"
#include "scankit/sparse/generators.hpp"

#ifndef SCANKIT_DATA_DIR
#define SCANKIT_DATA_DIR "data"
#endif

namespace {

using index_t = std::int32_t;
using value_t = float;
using graph_t = scankit::sparse::csr_matrix_host<index_t, value_t>;

[[noreturn]] void fail(const std::string& message) { throw scankit::error("scankit graph: " + message); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The host's CSR of the links: rows by counting, each row's columns sorted, repeats merged.
graph_t host_graph(const scankit::apps::app_coo& coo) {
  graph_t g;
  g.rows = coo.rows;
  g.cols = coo.cols;
  g.offsets.assign(static_cast<std::size_t>(coo.rows) + 1, 0);
  for (index_t r : coo.row) ++g.offsets[static_cast<std::size_t>(r) + 1];
  std::partial_sum(g.offsets.begin(), g.offsets.end(), g.offsets.begin());
  std::vector<index_t> columns(coo.nonzeros());
  std::vector<index_t> next(g.offsets.begin(), g.offsets.end() - 1);
  for (std::size_t k = 0; k < coo.nonzeros(); ++k) columns[static_cast<std::size_t>(next[coo.row[k]]++)] = coo.col[k];
  std::vector<index_t> merged_offsets{0};
  for (index_t r = 0; r < g.rows; ++r) {
    auto begin = columns.begin() + g.offsets[r], end = columns.begin() + g.offsets[r + 1];
    std::sort(begin, end);
    g.columns.insert(g.columns.end(), begin, std::unique(begin, end));
    merged_offsets.push_back(static_cast<index_t>(g.columns.size()));
  }
  g.offsets = std::move(merged_offsets);
  g.values.assign(g.columns.size(), value_t(1));
  return g;
}

void print_levels(const std::vector<std::int32_t>& levels) {
  std::vector<long long> per_level;
  for (std::int32_t l : levels) {
    if (l < 0) continue;
    if (static_cast<std::size_t>(l) >= per_level.size()) per_level.resize(static_cast<std::size_t>(l) + 1, 0);
    ++per_level[static_cast<std::size_t>(l)];
  }
  std::cout << "  vertices per level:";
  for (std::size_t l = 0; l < per_level.size(); ++l) {
    if (l == 12 && per_level.size() > 14) {
      std::cout << " ... (" << per_level.size() - 13 << " more)";
      l = per_level.size() - 1;
    }
    std::cout << " " << per_level[l];
  }
  std::cout << "\n";
}

void print_top(const std::vector<value_t>& rank) {
  std::vector<index_t> order(rank.size());
  std::iota(order.begin(), order.end(), 0);
  const auto top = std::min<std::size_t>(5, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                    [&](index_t a, index_t b) { return rank[a] != rank[b] ? rank[a] > rank[b] : a < b; });
  std::cout << "  highest ranks:";
  for (std::size_t i = 0; i < top; ++i) {
    std::cout << " " << order[i] << " (" << std::scientific << std::setprecision(3) << rank[order[i]] << ")";
  }
  std::cout << std::fixed << "\n";
}

template <class T>
T median_of(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int run_graph_app(int argc, char** argv) {
  std::string input, generate_spec;
  bool undirected = false, check = true;
  long long source = 0;
  double damping = 0.85, tolerance = 1e-6;
  int repeat = 3;
  CLI::App app{"A graph pipeline on the GPU built from scankit's primitives: reads a METIS graph or Matrix Market\n"
               "file (or generates an R-MAT graph), builds its CSR (radix sort, repeated links merged, row\n"
               "offsets), runs breadth-first search (frontiers by scan and compaction, counts kept on the GPU)\n"
               "and PageRank (SpMV to a tolerance), checks both against the host and prints each step's time.\n"
               "Without a CUDA device only the host references run.",
               "scankit graph"};
  app.add_option("file", input, "a .graph METIS graph or a .mtx Matrix Market file (row u, column v: a link u -> v);\n"
                                "default " SCANKIT_DATA_DIR "/4elt.graph when --generate is not given");
  app.add_option("--generate", generate_spec, "make the graph instead: rmat:SCALE (2^SCALE vertices, 16 links each)");
  app.add_flag("--undirected", undirected, "add the reverse of every link (Graph500's undirected R-MAT)");
  app.add_option("--source", source, "the search's first vertex")->check(CLI::NonNegativeNumber);
  app.add_option("--damping", damping, "PageRank's damping factor, in [0, 1)");
  app.add_option("--tolerance", tolerance, "PageRank stops when an iteration changes the ranks by less (L1)");
  app.add_option("--repeat", repeat, "timed runs of each GPU step (the median is reported)")->check(CLI::Range(1, 100));
  app.add_flag("!--no-check", check, "skip the host references (slow on graphs of 10^8 links)");
  if (!scankit::apps::parse_command_line(app, argc, argv)) return 0;
  if (!input.empty() && !generate_spec.empty()) fail("give a file or --generate, not both");
  if (!generate_spec.empty() && generate_spec.rfind("rmat:", 0) != 0) fail("--generate wants rmat:SCALE");
  if (!(damping >= 0.0 && damping < 1.0)) fail("--damping must lie in [0, 1)");
  if (!(tolerance >= 0.0)) fail("--tolerance must be >= 0");
  if (input.empty() && generate_spec.empty()) input = SCANKIT_DATA_DIR "/4elt.graph";

  auto t0 = std::chrono::steady_clock::now();
  scankit::apps::app_coo coo = scankit::apps::load_matrix(input, generate_spec, "scankit graph");
  if (coo.rows != coo.cols) fail("a graph needs a square matrix, got " + std::to_string(coo.rows) + " x " + std::to_string(coo.cols));
  if (source >= coo.rows) fail("--source " + std::to_string(source) + " is not a vertex (the graph has " + std::to_string(coo.rows) + ")");
  if (undirected) scankit::sparse::add_reverse_links(coo);
  const std::string name = input.empty() ? generate_spec : input;
  std::cout << "read: " << name << ", " << coo.rows << " vertices, " << coo.nonzeros() << " links"
            << (undirected ? " (both ways)" : "") << " in " << std::fixed << std::setprecision(2)
            << seconds_since(t0) * 1e3 << " ms" << std::endl;

  graph_t expected_graph;
  if (check || !scankit::cuda_device_available()) {
    t0 = std::chrono::steady_clock::now();
    expected_graph = host_graph(coo);
    std::cout << "host CSR: " << expected_graph.nonzeros() << " distinct links in " << seconds_since(t0) * 1e3 << " ms"
              << std::endl;
  }
  const auto host_references = [&](const graph_t& g) {
    t0 = std::chrono::steady_clock::now();
    auto levels = scankit::reference::bfs_levels(g, static_cast<index_t>(source));
    std::cout << "host BFS: " << seconds_since(t0) * 1e3 << " ms" << std::endl;
    t0 = std::chrono::steady_clock::now();
    auto ranks = scankit::reference::pagerank(g, damping, tolerance, 1000);
    std::cout << "host PageRank: " << ranks.iterations << " iterations in " << seconds_since(t0) * 1e3 << " ms"
              << std::endl;
    return std::make_pair(std::move(levels), std::move(ranks));
  };
  if (!scankit::cuda_device_available()) {
    std::cout << "no CUDA device: only the host references ran" << std::endl;
    const auto [levels, ranks] = host_references(expected_graph);
    print_levels(levels);
    print_top(std::vector<value_t>(ranks.rank.begin(), ranks.rank.end()));
    return 0;
  }

  const auto links = static_cast<std::int64_t>(coo.nonzeros());
  std::vector<value_t> ones(coo.nonzeros(), value_t(1));
  index_t *rows = nullptr, *cols = nullptr;
  value_t *values = nullptr, *rank = nullptr;
  std::int32_t* levels = nullptr;
  const auto count = static_cast<std::size_t>(std::max<std::int64_t>(links, 1));
  const auto vertices = static_cast<std::size_t>(std::max<index_t>(coo.rows, 1));
  int status = 0;
  try {
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&rows), count * sizeof(index_t)));
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&cols), count * sizeof(index_t)));
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&values), count * sizeof(value_t)));
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&rank), vertices * sizeof(value_t)));
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&levels), vertices * sizeof(std::int32_t)));
    SCANKIT_CUDA_CHECK(cudaMemcpy(rows, coo.row.data(), links * sizeof(index_t), cudaMemcpyHostToDevice));
    SCANKIT_CUDA_CHECK(cudaMemcpy(cols, coo.col.data(), links * sizeof(index_t), cudaMemcpyHostToDevice));
    SCANKIT_CUDA_CHECK(cudaMemcpy(values, ones.data(), links * sizeof(value_t), cudaMemcpyHostToDevice));
    scankit::workspace ws;

    std::vector<double> times;
    scankit::sparse::device_csr<index_t, value_t> graph;
    for (int r = 0; r <= repeat; ++r) {  // the first run warms up
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      t0 = std::chrono::steady_clock::now();
      graph = scankit::sparse::coo_to_csr(rows, cols, values, links, coo.rows, coo.cols, nullptr, &ws);
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      if (r > 0) times.push_back(seconds_since(t0));
    }
    std::cout << "GPU CSR build: " << graph.nonzeros() << " distinct links in " << median_of(times) * 1e3 << " ms"
              << std::endl;

    times.clear();
    scankit::graph::bfs_result search;
    for (int r = 0; r <= repeat; ++r) {
      t0 = std::chrono::steady_clock::now();
      search = scankit::graph::breadth_first_search(graph, static_cast<index_t>(source), levels, nullptr, &ws);
      if (r > 0) times.push_back(seconds_since(t0));
    }
    const double bfs_s = median_of(times);
    std::cout << "GPU BFS from " << source << ": " << search.depth << " levels, " << search.reached
              << " vertices reached, " << search.edges_scanned << " links scanned in " << bfs_s * 1e3 << " ms ("
              << std::setprecision(2) << search.edges_scanned / bfs_s / 1e9 << " GTEPS)" << std::setprecision(2)
              << std::endl;

    times.clear();
    t0 = std::chrono::steady_clock::now();
    const scankit::graph::pagerank_plan<index_t, value_t> plan(graph, nullptr, &ws);
    const double plan_s = seconds_since(t0);
    scankit::graph::pagerank_options options;
    options.damping = damping;
    options.tolerance = tolerance;
    scankit::graph::pagerank_result ranked;
    for (int r = 0; r <= repeat; ++r) {
      t0 = std::chrono::steady_clock::now();
      ranked = plan.run(rank, options, nullptr, &ws);
      if (r > 0) times.push_back(seconds_since(t0));
    }
    const double pagerank_s = median_of(times);
    std::cout << "GPU PageRank: " << ranked.iterations << " iterations to an L1 change of " << std::scientific
              << std::setprecision(2) << ranked.residual << std::fixed << (ranked.converged ? "" : " (NOT converged)")
              << " in " << pagerank_s * 1e3 << " ms (" << std::setprecision(3)
              << pagerank_s * 1e3 / ranked.iterations << " ms an iteration; transition matrix and SpMV plan "
              << std::setprecision(2) << plan_s * 1e3 << " ms)" << std::endl;

    std::vector<std::int32_t> got_levels(static_cast<std::size_t>(coo.rows));
    std::vector<value_t> got_rank(static_cast<std::size_t>(coo.rows));
    SCANKIT_CUDA_CHECK(cudaMemcpy(got_levels.data(), levels, got_levels.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
    SCANKIT_CUDA_CHECK(cudaMemcpy(got_rank.data(), rank, got_rank.size() * sizeof(value_t), cudaMemcpyDeviceToHost));
    print_levels(got_levels);
    print_top(got_rank);
    if (check) {
      const auto downloaded = graph.download();
      const bool same_graph = downloaded.offsets == expected_graph.offsets && downloaded.columns == expected_graph.columns;
      const auto [expected_levels, expected_ranks] = host_references(expected_graph);
      double distance = 0.0;
      for (std::size_t v = 0; v < got_rank.size(); ++v) distance += std::abs(got_rank[v] - expected_ranks.rank[v]);
      const bool same_levels = got_levels == expected_levels;
      const bool close_ranks = ranked.converged && distance < 10 * tolerance + 1e-5;
      std::cout << "check: CSR " << (same_graph ? "same as the host" : "DIFFERS from the host") << "; BFS levels "
                << (same_levels ? "same as the host" : "DIFFER from the host") << "; PageRank L1 distance to the host "
                << std::scientific << std::setprecision(2) << distance << (close_ranks ? "" : " (TOO FAR)") << std::fixed
                << std::endl;
      status = same_graph && same_levels && close_ranks ? 0 : 1;
    }
  } catch (...) {
    (void)cudaFree(rows);
    (void)cudaFree(cols);
    (void)cudaFree(values);
    (void)cudaFree(rank);
    (void)cudaFree(levels);
    throw;
  }
  (void)cudaFree(rows);
  (void)cudaFree(cols);
  (void)cudaFree(values);
  (void)cudaFree(rank);
  (void)cudaFree(levels);
  return status;
}
