// The argument checks breadth-first search and PageRank share (host code, before any launch).
#pragma once

#include <cstdint>
#include <string>

#include "scankit/detail/check_arguments.hpp"
#include "scankit/error.hpp"
#include "scankit/sparse/csr.hpp"

namespace scankit::graph {

// A graph is a square CSR matrix whose offsets and columns are device arrays of their sizes.
template <class Index, class Value>
void check_graph_arguments(const char* function, const sparse::csr_view<Index, Value>& g) {
  if (g.rows < 0 || g.rows != g.cols) {
    throw error(std::string(function) + ": the graph is " + std::to_string(g.rows) + " x " + std::to_string(g.cols) +
                ", not a square matrix");
  }
  ::scankit::detail::check_pointer(function, "graph.offsets", g.offsets, static_cast<std::int64_t>(g.rows) + 1);
  ::scankit::detail::check_pointer(function, "graph.columns", g.columns, g.nonzeros);
}

}  // namespace scankit::graph
