// Breadth-first search on the GPU, built from scankit's primitives. Precompiled host API (callable
// from g++-compiled code); indices std::int32_t or std::int64_t, values float or double (ignored).
//
//   breadth_first_search(graph, source, levels, stream, ws) -> bfs_result
//       graph: a square CSR matrix in device memory whose row u lists the vertices u has an edge
//       to (a directed graph; store both directions for an undirected one). levels: a device
//       array of graph.rows items; on return levels[v] is the number of edges on a shortest path
//       from `source` to v, or -1 when v is unreachable.
//
// Each level is the classic scan-based step, every size kept on the device: an inclusive scan of
// the frontier's out-degrees (scankit::inclusive_scan with the frontier's count as a device_n)
// gives each frontier vertex its slots in the level's edge list; an expansion kernel maps each
// slot to its vertex by a search over the scanned degrees (load-balanced: a tile of slots costs
// the same whatever the degrees), reads the neighbour and claims it if it has no level yet (one
// atomic compare-and-swap, so each vertex is claimed by exactly one slot); and
// scankit::select_flagged (the level's edge count as a device_n) keeps the claimed neighbours with
// out-edges as the next frontier. The host only learns the frontier's size to stop: it reads each
// level's count one level behind the GPU, so the device never waits for it.
//
// The call waits for the device (to know when the search ends) and returns the depth (levels
// that hold a vertex), the vertices reached and the edges scanned (the out-edges of every reached
// vertex: what traversed-edges-per-second counts). The levels are the same on every run.
//
// Bad input throws scankit::error before anything is written: a non-square graph, a source
// outside [0, rows), a null or short array, invalid offsets (checked on the GPU, with a wait).
// Column indices are not checked (scankit::sparse::validate_csr does that); a column outside
// [0, rows) is skipped: a wrong search, never a write outside `levels`.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/sparse/csr.hpp"
#include "scankit/workspace.hpp"

namespace scankit::graph {

struct bfs_result {
  int depth = 0;                     // levels holding a vertex (1 + the largest level)
  std::int64_t reached = 0;          // vertices with a level, the source included
  std::int64_t edges_scanned = 0;    // out-edges of the reached vertices
};

template <class Index, class Value>
bfs_result breadth_first_search(const sparse::csr_view<Index, Value>& graph, Index source, std::int32_t* levels,
                                cudaStream_t stream = nullptr, workspace* ws = nullptr);

template <class Index, class Value>
bfs_result breadth_first_search(const sparse::device_csr<Index, Value>& graph, Index source, std::int32_t* levels,
                                cudaStream_t stream = nullptr, workspace* ws = nullptr) {
  return breadth_first_search(sparse::csr_view<Index, Value>(graph), source, levels, stream, ws);
}

extern template bfs_result breadth_first_search(const sparse::csr_view<std::int32_t, float>&, std::int32_t,
                                                std::int32_t*, cudaStream_t, workspace*);
extern template bfs_result breadth_first_search(const sparse::csr_view<std::int32_t, double>&, std::int32_t,
                                                std::int32_t*, cudaStream_t, workspace*);
extern template bfs_result breadth_first_search(const sparse::csr_view<std::int64_t, float>&, std::int64_t,
                                                std::int32_t*, cudaStream_t, workspace*);
extern template bfs_result breadth_first_search(const sparse::csr_view<std::int64_t, double>&, std::int64_t,
                                                std::int32_t*, cudaStream_t, workspace*);

}  // namespace scankit::graph
