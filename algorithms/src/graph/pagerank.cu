// PageRank (scankit/graph/pagerank.hpp): A^T by scankit's transpose, then per iteration scankit's
// SpMV of the pattern A^T, the update kernel and two scankit::reduce of its block sums, stopped
// from the host one iteration behind the GPU.
#include "scankit/graph/pagerank.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <cuda_runtime.h>

#include "../sparse/stream_scratch.hpp"
#include "graph_arguments.hpp"
#include "host_slots.hpp"
#include "scankit/detail/check_arguments.hpp"
#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/graph/pagerank_kernels.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/error.hpp"
#include "scankit/reduce.hpp"
#include "scankit/scan.hpp"
#include "scankit/segmented_sort.hpp"
#include "scankit/sort.hpp"
#include "scankit/sparse/csr_build.hpp"

namespace scankit::graph {
namespace {

using sparse::precompiled::grid_for;
template <class T>
using scratch = sparse::precompiled::stream_scratch<T>;

constexpr int update_threads = 256;

// Device memory of `count` items for a plan member, from the plan's resource.
template <class T>
T* owned_array(long long count, device_buffer& owner, cudaStream_t stream, device_memory_resource* resource) {
  owner = device_buffer(static_cast<std::size_t>(count > 0 ? count : 1) * sizeof(T), stream, resource);
  return owner.data_as<T>();
}

// A^T of `g` renumbered by falling in-degree (row i: the vertices linking to vertex order[i], as
// new numbers, ascending), with `order` and the renumbered 1/outdeg filled in (plan members).
template <class Index, class Value>
sparse::device_csr<Index, Value> make_links_in(const sparse::csr_view<Index, Value>& g, cudaStream_t stream,
                                               workspace* ws, device_memory_resource* resource,
                                               device_buffer& order_owner, device_buffer& inverse_owner) {
  const char* function = "scankit::graph::pagerank_plan";
  check_graph_arguments(function, g);
  sparse::analyse_rows(g, stream);  // the offsets check (waits)
  const long long n = g.rows;
  const std::int64_t nnz = g.nonzeros;
  Index* order = owned_array<Index>(n, order_owner, stream, resource);
  Value* inverse = owned_array<Value>(n, inverse_owner, stream, resource);
  sparse::device_csr<Index, Value> links(g.rows, g.rows, nnz, stream, resource);
  if (n == 0) return links;
  const auto items = static_cast<std::size_t>(n);
  scratch<Value> natural_inverse(items, stream);
  scratch<Index> lengths(items, stream), sorted_lengths(items, stream), position(items, stream);
  scratch<Index> columns(static_cast<std::size_t>(nnz), stream);
  device_detail::launch_kernel("inverse_degrees_kernel", device_detail::inverse_degrees_kernel<Index, Value>,
                               grid_for(n), 256, stream, g.offsets, n, natural_inverse.get());
  const sparse::csr_view<Index, Value> pattern(g.rows, g.cols, nnz, g.offsets, g.columns, nullptr);
  const sparse::device_csr<Index, Value> natural = sparse::transpose(pattern, stream, ws);
  device_detail::launch_kernel("row_lengths_kernel", device_detail::row_lengths_kernel<Index>, grid_for(n), 256, stream,
                               natural.offsets(), n, lengths.get());
  sort_options falling;
  falling.order = sort_order::descending;
  argsort(static_cast<const Index*>(lengths.get()), sorted_lengths.get(), order, n, stream, ws, falling);
  device_detail::launch_kernel("positions_kernel", device_detail::positions_kernel<Index>, grid_for(n), 256, stream,
                               static_cast<const Index*>(order), n, position.get());
  SCANKIT_CUDA_CHECK(cudaMemsetAsync(links.offsets(), 0, sizeof(Index), stream));
  inclusive_scan(static_cast<const Index*>(sorted_lengths.get()), links.offsets() + 1, n, scan_op::plus, stream, ws);
  device_detail::launch_kernel("renumber_rows_kernel", device_detail::renumber_rows_kernel<Index>, grid_for(n * 32),
                               256, stream, static_cast<const Index*>(order), static_cast<const Index*>(position.get()),
                               n, natural.offsets(), natural.columns(), static_cast<const Index*>(links.offsets()),
                               columns.get());
  segmented_sort_keys(static_cast<const Index*>(columns.get()), links.columns(), nnz,
                      static_cast<const Index*>(links.offsets()), n, stream, ws);
  device_detail::launch_kernel("gather_kernel", device_detail::gather_kernel<Index, Value>, grid_for(n), 256, stream,
                               static_cast<const Index*>(order), n, static_cast<const Value*>(natural_inverse.get()),
                               inverse);
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));  // the plan is ready when its constructor returns
  return links;
}

}  // namespace

template <class Index, class Value>
pagerank_plan<Index, Value>::pagerank_plan(const sparse::csr_view<Index, Value>& graph, cudaStream_t stream,
                                           workspace* ws, device_memory_resource* resource)
    : links_in_((::scankit::detail::nvtx_range("scankit::graph::pagerank_plan"),
                 make_links_in(graph, stream, ws, resource != nullptr ? resource : default_resource(), order_,
                               inverse_degrees_))),
      product_(links_in(), sparse::spmv_options{}, stream, ws, links_in_.resource()) {}

template <class Index, class Value>
pagerank_result pagerank_plan<Index, Value>::run(Value* rank, const pagerank_options& options, cudaStream_t stream,
                                                 workspace* ws) const {
  const char* function = "scankit::graph::pagerank";
  const ::scankit::detail::nvtx_range nvtx(function);
  const long long n = vertices();
  detail::check_pointer(function, "rank", rank, n);
  if (!(options.damping >= 0.0 && options.damping < 1.0)) {
    throw error(std::string(function) + ": damping " + std::to_string(options.damping) + " is outside [0, 1)");
  }
  if (!(options.tolerance >= 0.0)) {
    throw error(std::string(function) + ": tolerance " + std::to_string(options.tolerance) + " is negative or NaN");
  }
  if (options.max_iterations < 1) {
    throw error(std::string(function) + ": max_iterations = " + std::to_string(options.max_iterations) +
                " (at least 1)");
  }
  pagerank_result result;
  if (n == 0) {
    result.iterations = 1;
    result.converged = true;
    return result;
  }
  const auto items = static_cast<std::size_t>(n);
  const unsigned grid = grid_for(n);
  scratch<Value> rank_a(items, stream), rank_b(items, stream), spread(items, stream), shares(items, stream);
  // block_sums: the update's per-block changes, then its per-block dangling masses;
  // totals: [0] and [1] the change of odd and even iterations, [2] the dangling mass
  scratch<Value> block_sums(2 * std::size_t{grid}, stream), totals(3, stream);
  const Value* block_changes = block_sums.get();
  const Value* block_masses = block_sums.get() + grid;
  Value* ranks[2] = {rank_a.get(), rank_b.get()};  // in the plan's numbering
  Value* dangling_mass = totals.get() + 2;
  const auto damping = static_cast<Value>(options.damping);
  device_detail::launch_kernel("pagerank_start_kernel", device_detail::pagerank_start_kernel<update_threads, Value>,
                               grid, update_threads, stream, n, inverse_degrees_.data_as<Value>(), ranks[0], shares.get(),
                               block_sums.get());
  reduce(block_masses, dangling_mass, grid, Value(0), scan_op::plus, stream, ws);

  // Iteration k reads ranks[(k - 1) % 2] and writes ranks[k % 2]. The host reads iteration k - 1's
  // change after enqueueing iteration k, so the GPU is not left waiting for the decision. When
  // iteration k - 1's change falls below the tolerance, iteration k (already enqueued) is the result.
  // When the last two changes predict that iteration k will be the first below it (the changes
  // shrink geometrically), the host waits for k's change before enqueueing k + 1, so the GPU does
  // not run an iteration past the end.
  host_slots& changes = host_slots::of_this_thread();
  double before = 0.0;  // iteration k - 2's change
  int k = 1;
  for (;; ++k) {
    const Value* previous = ranks[(k - 1) % 2];
    Value* change_sum = totals.get() + k % 2;
    sparse::spmv(product_, Value(1), sparse::dense_vector<const Value>{shares.get(), n}, Value(0),
                 sparse::dense_vector<Value>{spread.get(), n}, stream, ws);
    device_detail::launch_kernel("pagerank_update_kernel", device_detail::pagerank_update_kernel<update_threads, Value>,
                                 grid, update_threads, stream, n, inverse_degrees_.data_as<const Value>(),
                                 static_cast<const Value*>(spread.get()), previous,
                                 static_cast<const Value*>(dangling_mass), damping, ranks[k % 2], shares.get(),
                                 block_sums.get());
    reduce(block_changes, change_sum, grid, Value(0), scan_op::plus, stream, ws);
    reduce(block_masses, dangling_mass, grid, Value(0), scan_op::plus, stream, ws);
    changes.copy(k % 2, static_cast<const Value*>(change_sum), stream);
    if (k == options.max_iterations) break;
    if (k < 2) continue;
    const auto last = static_cast<double>(changes.wait<Value>((k - 1) % 2));
    if (last < options.tolerance) break;
    const double shrink = before > 0.0 ? std::min(last / before, 1.0) : 1.0;
    if (last * shrink < options.tolerance && changes.wait<Value>(k % 2) < options.tolerance) break;
    before = last;
  }
  result.iterations = k;
  result.residual = static_cast<double>(changes.wait<Value>(k % 2));
  result.converged = result.residual < options.tolerance;
  device_detail::launch_kernel("scatter_kernel", device_detail::scatter_kernel<Index, Value>, grid_for(n), 256, stream,
                               order_.data_as<const Index>(), n, static_cast<const Value*>(ranks[k % 2]),
                               rank);  // back to the caller's numbering
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return result;
}

template class pagerank_plan<std::int32_t, float>;
template class pagerank_plan<std::int32_t, double>;
template class pagerank_plan<std::int64_t, float>;
template class pagerank_plan<std::int64_t, double>;

}  // namespace scankit::graph
