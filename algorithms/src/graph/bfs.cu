// Breadth-first search (scankit/graph/bfs.hpp): per level, the degrees kernel, scankit's
// inclusive_scan, the expansion kernel and scankit's select_flagged, every count on the device.
#include "scankit/graph/bfs.hpp"

#include <algorithm>
#include <string>

#include <cuda_runtime.h>

#include "../sparse/stream_scratch.hpp"
#include "graph_arguments.hpp"
#include "host_slots.hpp"
#include "scankit/compact.hpp"
#include "scankit/detail/check_arguments.hpp"
#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/graph/bfs_kernels.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/device/util/resident_blocks.cuh"
#include "scankit/error.hpp"
#include "scankit/scan.hpp"
#include "scankit/sparse/spmv.hpp"

namespace scankit::graph {
namespace {

using sparse::precompiled::grid_for;
template <class T>
using scratch = sparse::precompiled::stream_scratch<T>;

constexpr int expand_threads = 256;
constexpr int expand_items = 8;  // 2048 edge slots a tile (docs/tuning.md)
constexpr int summary_threads = 256;

}  // namespace

template <class Index, class Value>
bfs_result breadth_first_search(const sparse::csr_view<Index, Value>& g, Index source, std::int32_t* levels,
                                cudaStream_t stream, workspace* ws) {
  const char* function = "scankit::graph::breadth_first_search";
  const ::scankit::detail::nvtx_range nvtx(function);
  check_graph_arguments(function, g);
  if (source < 0 || source >= g.rows) {
    throw error(std::string(function) + ": source " + std::to_string(source) + " is outside [0, " +
                std::to_string(g.rows) + ")");
  }
  detail::check_pointer(function, "levels", levels, g.rows);
  sparse::analyse_rows(g, stream);  // the offsets check (waits); throws before anything is written

  const long long n = g.rows;
  const long long nnz = g.nonzeros;
  // Two edge lists: a level expands its frontier (in one) into the other, and select_flagged
  // compacts that one in place into the next frontier, so each is the next level's input.
  scratch<Index> edges_a(nnz, stream), edges_b(nnz, stream), degrees(n, stream), ends(n, stream);
  scratch<std::uint8_t> claimed(nnz, stream);
  // counts: [0] and [1] the two frontiers', [2] the level's edge slots, [3] edges scanned so far
  scratch<std::int64_t> counts(4, stream);
  scratch<unsigned long long> reached(1, stream);
  scratch<int> largest(1, stream);
  Index* frontier[2] = {edges_a.get(), edges_b.get()};
  std::int64_t* frontier_count[2] = {counts.get(), counts.get() + 1};
  std::int64_t* edge_count = counts.get() + 2;
  std::int64_t* edges_scanned = counts.get() + 3;
  SCANKIT_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, 4 * sizeof(std::int64_t), stream));
  SCANKIT_CUDA_CHECK(cudaMemsetAsync(reached.get(), 0, sizeof(unsigned long long), stream));
  SCANKIT_CUDA_CHECK(cudaMemsetAsync(largest.get(), 0xff, sizeof(int), stream));  // -1

  device_detail::launch_kernel("bfs_start_kernel", device_detail::bfs_start_kernel<Index>, grid_for(n), 256, stream,
                               levels, n, source, g.offsets, frontier[0], frontier_count[0]);
  if (nnz > 0) {
    constexpr auto expand = device_detail::bfs_expand_kernel<Index, expand_threads, expand_items>;
    int device = 0;
    SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
    const long long tiles = (nnz + expand_threads * expand_items - 1) / (expand_threads * expand_items);
    const auto expand_grid = static_cast<unsigned>(
        std::min<long long>(tiles, device_detail::resident_blocks<expand, expand_threads>(device)));
    // The host learns each frontier's size one level behind the GPU: level L + 1 is enqueued
    // before level L's count is read, so the GPU always has a level queued; the level enqueued
    // after the last non-empty frontier finds a count of 0 and does nothing.
    host_slots& sizes = host_slots::of_this_thread();
    sizes.copy(0, frontier_count[0], stream);
    for (int level = 0;; ++level) {
      const int now = level % 2, next = 1 - now;
      device_detail::launch_kernel("bfs_degrees_kernel", device_detail::bfs_degrees_kernel<Index>, grid_for(n), 256,
                                   stream, static_cast<const Index*>(frontier[now]),
                                   static_cast<const std::int64_t*>(frontier_count[now]), n, g.offsets,
                                   degrees.get());
      inclusive_scan(static_cast<const Index*>(degrees.get()), ends.get(), device_n{frontier_count[now], n},
                     scan_op::plus, stream, ws);
      device_detail::launch_kernel("bfs_expand_kernel", expand, expand_grid, expand_threads, stream,
                                   static_cast<const Index*>(frontier[now]),
                                   static_cast<const std::int64_t*>(frontier_count[now]), n,
                                   static_cast<const Index*>(ends.get()), g.offsets, g.columns, n, levels,
                                   static_cast<std::int32_t>(level + 1), frontier[next], claimed.get(), edge_count,
                                   edges_scanned);
      select_flagged(static_cast<const Index*>(frontier[next]), static_cast<const std::uint8_t*>(claimed.get()),
                     frontier[next], frontier_count[next], device_n{edge_count, nnz}, stream, ws);
      sizes.copy(next, frontier_count[next], stream);
      if (sizes.wait<std::int64_t>(now) == 0) break;
    }
  }
  device_detail::launch_kernel("bfs_summary_kernel", device_detail::bfs_summary_kernel<summary_threads>, grid_for(n),
                               summary_threads, stream, static_cast<const std::int32_t*>(levels), n, reached.get(),
                               largest.get());
  host_slots& summary = host_slots::of_this_thread();
  summary.copy(0, edges_scanned, stream);
  summary.copy(1, reinterpret_cast<const std::int64_t*>(reached.get()), stream);
  summary.copy(2, largest.get(), stream);
  bfs_result result;
  result.edges_scanned = summary.wait<std::int64_t>(0);
  result.reached = summary.wait<std::int64_t>(1);
  result.depth = summary.wait<int>(2) + 1;
  return result;
}

template bfs_result breadth_first_search(const sparse::csr_view<std::int32_t, float>&, std::int32_t, std::int32_t*,
                                         cudaStream_t, workspace*);
template bfs_result breadth_first_search(const sparse::csr_view<std::int32_t, double>&, std::int32_t, std::int32_t*,
                                         cudaStream_t, workspace*);
template bfs_result breadth_first_search(const sparse::csr_view<std::int64_t, float>&, std::int64_t, std::int32_t*,
                                         cudaStream_t, workspace*);
template bfs_result breadth_first_search(const sparse::csr_view<std::int64_t, double>&, std::int64_t, std::int32_t*,
                                         cudaStream_t, workspace*);

}  // namespace scankit::graph
