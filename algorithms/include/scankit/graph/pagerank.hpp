// PageRank on the GPU by SpMV, built from scankit's primitives. Precompiled host API (callable
// from g++-compiled code); indices std::int32_t or std::int64_t, ranks float or double.
//
//   pagerank_plan plan(graph, stream, ws);   plan.run(rank, options, stream, ws) -> pagerank_result
//   pagerank(graph, rank, stream, ws, options)   (a plan made and used once)
//
// graph: a square CSR matrix in device memory whose row u lists the vertices u links to; each
// stored entry is one link (values are ignored; coo_to_csr merges repeated links into one entry).
// rank: a device array of graph.rows items, written with the ranks (they sum to 1).
//
// The iteration is the classic power method with teleport and dangling vertices spread evenly:
//   r_0(v) = 1/n,   r_k(v) = (1 - d)/n + d * (sum over links u -> v of r_{k-1}(u) / outdeg(u)
//                                            + (sum over u with no links of r_{k-1}(u)) / n)
// until the L1 change sum_v |r_k(v) - r_{k-1}(v)| falls below options.tolerance (or
// options.max_iterations). The plan builds, once: A^T (row v lists the u that link to v: the
// transpose by scankit's radix sort) with the vertices renumbered by falling in-degree (scankit's
// argsort; each row's columns then sorted by scankit's segmented sort), so that the ranks a
// product gathers most often share cache lines; its SpMV plan as a pattern matrix (no values:
// every entry 1, so a product reads only the columns); and 1/outdeg(u). Each iteration is one
// scankit::sparse::spmv of A^T with the shares r_{k-1}(u)/outdeg(u), one update kernel (the new
// ranks, their shares, and per-block sums of the change and of the dangling mass) and two
// scankit::reduce of those sums, all in device memory. The host reads each change one iteration
// behind the GPU to decide when to stop, and waits for an iteration's own change only when the last
// two predict it to be the first below the tolerance, so the GPU rarely idles and rarely runs an
// iteration past the end. Every sum is deterministic: the same ranks bit for bit on every run on
// one GPU.
//
// Bad input throws scankit::error before anything is written: a non-square graph, a null or short
// array, invalid offsets (checked on the GPU, with a wait), damping outside [0, 1), a tolerance
// that is negative or NaN, max_iterations < 1. Column indices are not checked
// (scankit::sparse::validate_csr does that): a column outside [0, rows) gives wrong ranks or an
// error from the plan's offsets check, never a write outside the arrays.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/device_buffer.hpp"
#include "scankit/sparse/csr.hpp"
#include "scankit/sparse/spmv.hpp"
#include "scankit/workspace.hpp"

namespace scankit::graph {

struct pagerank_options {
  double damping = 0.85;    // in [0, 1): the chance of following a link
  double tolerance = 1e-6;  // stop when the L1 change of an iteration is below this
  int max_iterations = 1000;
};

struct pagerank_result {
  int iterations = 0;     // iterations run (>= 1)
  double residual = 0.0;  // the L1 change of the last one
  bool converged = false; // residual < tolerance
};

template <class Index, class Value>
class pagerank_plan {
 public:
  // Builds A^T, its SpMV plan and the inverse degrees on `stream` and waits for them. The graph's
  // arrays are not kept. The plan's device memory comes from `resource` (nullptr: the default
  // resource) and is returned on `stream`, without waiting for the device, when the plan is
  // destroyed: that stream must still exist then, and runs on other streams must be ordered
  // before it.
  explicit pagerank_plan(const sparse::csr_view<Index, Value>& graph, cudaStream_t stream = nullptr,
                         workspace* ws = nullptr, device_memory_resource* resource = nullptr);
  pagerank_plan(const pagerank_plan&) = delete;
  pagerank_plan& operator=(const pagerank_plan&) = delete;
  pagerank_plan(pagerank_plan&&) noexcept = default;
  pagerank_plan& operator=(pagerank_plan&&) noexcept = default;

  // Runs the iteration from r_0 = 1/n into `rank` (graph.rows items) and waits for it.
  pagerank_result run(Value* rank, const pagerank_options& options = {}, cudaStream_t stream = nullptr,
                      workspace* ws = nullptr) const;

  Index vertices() const noexcept { return links_in_.rows(); }
  // The renumbering: vertex order()[i] is vertex i of the plan's A^T (device memory, vertices()
  // items, a permutation).
  const Index* order() const noexcept { return order_.data_as<Index>(); }
  // The plan's A^T, renumbered, as the pattern matrix its products take (values null).
  sparse::csr_view<Index, Value> links_in() const noexcept {
    return {links_in_.rows(), links_in_.cols(), links_in_.nonzeros(), links_in_.offsets(), links_in_.columns(), nullptr};
  }

 private:
  // order_ and inverse_degrees_ first: the build of links_in_ fills them
  device_buffer order_;
  device_buffer inverse_degrees_;  // 1/outdeg, 0 when dangling, renumbered
  sparse::device_csr<Index, Value> links_in_;            // A^T renumbered (its values are not set)
  sparse::spmv_plan<Index, Value> product_;
};

template <class Index, class Value>
pagerank_result pagerank(const sparse::csr_view<Index, Value>& graph, Value* rank, cudaStream_t stream = nullptr,
                         workspace* ws = nullptr, const pagerank_options& options = {}) {
  return pagerank_plan<Index, Value>(graph, stream, ws).run(rank, options, stream, ws);
}

extern template class pagerank_plan<std::int32_t, float>;
extern template class pagerank_plan<std::int32_t, double>;
extern template class pagerank_plan<std::int64_t, float>;
extern template class pagerank_plan<std::int64_t, double>;

}  // namespace scankit::graph
