// Sparse test matrices generated on the host, deterministic and of any size: the finite-difference
// Poisson stencils and a Graph500-style R-MAT (Kronecker) graph. Plain C++.
#pragma once

#include <cstddef>
#include <cstdint>

#include "scankit/sparse/matrix_market.hpp"  // coo_matrix_host

namespace scankit::sparse {

// The 5-point Laplacian of an n x n grid (n^2 rows): 4 on the diagonal, -1 for each grid
// neighbour; triplets sorted by row, then column. 5 n^2 - 4 n nonzeros.
template <class Index, class Value>
coo_matrix_host<Index, Value> poisson_2d(std::int64_t n);

// The 7-point Laplacian of an n x n x n grid (n^3 rows): 6 on the diagonal, -1 per neighbour;
// sorted by row, then column. 7 n^3 - 6 n^2 nonzeros.
template <class Index, class Value>
coo_matrix_host<Index, Value> poisson_3d(std::int64_t n);

// R-MAT: 2^scale vertices, edge_factor * 2^scale directed edges, each placed by choosing one of
// four quadrants scale times with probabilities a, b, c and 1 - a - b - c (Graph500: 0.57, 0.19,
// 0.19, 0.05). Edge k depends only on (seed, k), so any range of edges can be made on its own.
// Values are 1; duplicate edges and self loops are kept, in generation order.
struct rmat_parameters {
  int scale = 16;
  int edge_factor = 16;
  std::uint64_t seed = 1;
  double a = 0.57, b = 0.19, c = 0.19;
};

template <class Index, class Value>
coo_matrix_host<Index, Value> rmat(const rmat_parameters& parameters);

// An undirected graph from a directed one (Graph500's R-MAT is made this way): the reverse of every
// link appended after the links, every value set to 1. A square matrix is assumed.
template <class Index, class Value>
void add_reverse_links(coo_matrix_host<Index, Value>& graph) {
  const std::size_t links = graph.row.size();
  graph.row.reserve(2 * links);
  graph.col.reserve(2 * links);
  for (std::size_t k = 0; k < links; ++k) {
    graph.row.push_back(graph.col[k]);
    graph.col.push_back(graph.row[k]);
  }
  graph.value.assign(graph.row.size(), Value(1));
}

}  // namespace scankit::sparse
