// Host references of the graph module (plain C++): breadth-first search by a queue, and PageRank
// by the same power iteration as scankit::graph::pagerank in double. For the apps on machines
// without a GPU and for tests; the arguments are assumed valid (a square graph, a source inside).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "scankit/sparse/csr.hpp"

namespace scankit::reference {

// levels[v]: edges on a shortest path from source to v, -1 when unreachable. Columns outside the
// graph are skipped, as the GPU search skips them.
template <class Index, class Value>
std::vector<std::int32_t> bfs_levels(const sparse::csr_matrix_host<Index, Value>& g, Index source) {
  std::vector<std::int32_t> levels(static_cast<std::size_t>(g.rows), -1);
  std::vector<Index> queue{source};
  levels[static_cast<std::size_t>(source)] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const Index u = queue[head];
    for (Index k = g.offsets[u]; k < g.offsets[u + 1]; ++k) {
      const Index w = g.columns[k];
      if (w < 0 || w >= g.rows || levels[static_cast<std::size_t>(w)] >= 0) continue;
      levels[static_cast<std::size_t>(w)] = levels[static_cast<std::size_t>(u)] + 1;
      queue.push_back(w);
    }
  }
  return levels;
}

struct pagerank_reference_result {
  std::vector<double> rank;
  int iterations = 0;
  double residual = 0.0;
};

// r_0 = 1/n; r_k(v) = (1 - d)/n + d * (sum over links u -> v of r(u)/outdeg(u) + dangling mass / n),
// until the L1 change is below `tolerance` or `max_iterations` ran.
template <class Index, class Value>
pagerank_reference_result pagerank(const sparse::csr_matrix_host<Index, Value>& g, double damping, double tolerance,
                                   int max_iterations) {
  const auto n = static_cast<std::size_t>(g.rows);
  pagerank_reference_result out;
  out.rank.assign(n, n == 0 ? 0.0 : 1.0 / static_cast<double>(n));
  if (n == 0) return out;
  std::vector<double> next(n);
  for (out.iterations = 1; out.iterations <= max_iterations; ++out.iterations) {
    double dangling = 0.0;
    for (std::size_t u = 0; u < n; ++u) {
      if (g.offsets[u + 1] == g.offsets[u]) dangling += out.rank[u];
    }
    const double everyone = ((1.0 - damping) + damping * dangling) / static_cast<double>(n);
    for (auto& r : next) r = everyone;
    for (std::size_t u = 0; u < n; ++u) {
      const Index begin = g.offsets[u], end = g.offsets[u + 1];
      if (begin == end) continue;
      const double share = damping * out.rank[u] / static_cast<double>(end - begin);
      for (Index k = begin; k < end; ++k) next[static_cast<std::size_t>(g.columns[k])] += share;
    }
    out.residual = 0.0;
    for (std::size_t v = 0; v < n; ++v) out.residual += std::fabs(next[v] - out.rank[v]);
    out.rank.swap(next);
    if (out.residual < tolerance) break;
  }
  if (out.iterations > max_iterations) out.iterations = max_iterations;
  return out;
}

}  // namespace scankit::reference
