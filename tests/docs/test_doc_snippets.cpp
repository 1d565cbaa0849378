// The C++ snippets of README.md and docs/*.md (not docs/notes/), compiled against the precompiled
// API with the host compiler, so a snippet that no longer matches the headers fails the build.
// Each snippet is the body of a function that is never called; the variables it uses are the
// function's parameters (device pointers, sizes, a stream) or locals. Keep these in step with the
// documents: a change to a snippet there is made here too, and the other way round.
//
// Snippets that need nvcc (the .cuh templates, __host__ __device__ functors) are not compiled here
// (compiling them would instantiate their kernels in this test; they were checked against the
// headers by reading):
//   README.md "Templates for any trivially copyable type ..." (scankit/device/scan.cuh)
//   docs/segments.md, the second snippet (scankit/device/segmented_scan.cuh and the others it names)
//   docs/sort.md, the second snippet (scankit::device::sort_pairs with a bit-key functor)
// Snippets that need libraries outside the build: docs/memory.md's PyTorch and RMM adapters.
// The distributed snippets (README.md, docs/distributed.md) compile where the scankit_distributed
// library was built (NCCL found): SCANKIT_DOC_SNIPPETS_DISTRIBUTED.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>  // cudaMalloc(T**, size_t), as a CUDA program has it

#include "scankit/compact.hpp"
#include "scankit/graph/bfs.hpp"
#include "scankit/graph/pagerank.hpp"
#include "scankit/lab/scan_lab.hpp"
#include "scankit/memory_resource.hpp"
#include "scankit/segmented_sort.hpp"
#include "scankit/sort.hpp"
#include "scankit/token_sampler.hpp"
#include "scankit/top_k.hpp"
#include "scankit/reduce.hpp"
#include "scankit/reduce_by_key.hpp"
#include "scankit/sampling.hpp"
#include "scankit/scan.hpp"
#include "scankit/segmented_reduce.hpp"
#include "scankit/segmented_scan.hpp"
#include "scankit/segments.hpp"  // docs/segments.md: the umbrella header
#include "scankit/sparse/conjugate_gradient.hpp"
#include "scankit/sparse/csr_build.hpp"
#include "scankit/sparse/generators.hpp"
#include "scankit/sparse/matrix_market.hpp"
#include "scankit/sparse/spmv.hpp"
#include "scankit/workspace.hpp"

#if SCANKIT_DOC_SNIPPETS_DISTRIBUTED
#include "scankit/distributed/communicator.hpp"
#include "scankit/distributed/compact.hpp"
#include "scankit/distributed/scan.hpp"
#include "scankit/distributed/sort.hpp"
#endif

// Some snippets list members as statements to name them ("result.iterations; ...").
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-value"
#endif

namespace doc_snippets {

// ---------------------------------------------------------------------------------------------
// README.md

// "Example" (the first screen).
void readme_example(const float* d_in, float* d_sums, const std::uint32_t* d_keys, std::uint32_t* d_sorted,
                    std::int64_t n, cudaStream_t stream) {
  // d_in, d_sums: n floats and d_keys, d_sorted: n uint32 keys, all in device memory
  scankit::workspace ws;                                                           // temporary storage, reused
  scankit::inclusive_scan(d_in, d_sums, n, scankit::scan_op::plus, stream, &ws);  // prefix sums
  scankit::sort_keys(d_keys, d_sorted, n, stream, &ws);                           // stable radix sort
  cudaStreamSynchronize(stream);                                                   // the calls do not wait
}

// "Using it": precompiled overloads.
void readme_scan(std::int64_t* d_in, std::int64_t* d_out, const float* d_fin, float* d_fout, std::int64_t n,
                 cudaStream_t stream) {
  scankit::workspace ws;                                   // reusable temporary storage
  scankit::inclusive_scan(d_in, d_out, n, scankit::scan_op::plus, stream, &ws);
  scankit::exclusive_scan(d_in, d_in, n, 0LL, scankit::scan_op::plus, stream, &ws);   // in place

  scankit::scan_options opt;
  opt.deterministic = true;                                // float sums with the same bits on every run
  scankit::inclusive_scan(d_fin, d_fout, n, scankit::scan_op::plus, stream, &ws, opt);
}

// "Radix sort".
void readme_sort(const float* d_keys_in, float* d_keys_out, const std::uint32_t* d_vals_in, std::uint32_t* d_vals_out,
                 std::int32_t* d_idx, std::int64_t n, cudaStream_t stream, scankit::workspace& ws) {
  scankit::sort_keys(d_keys_in, d_keys_out, n, stream, &ws);                 // stable, ascending
  scankit::sort_pairs(d_keys_in, d_keys_out, d_vals_in, d_vals_out, n, stream, &ws);
  scankit::argsort(d_keys_in, static_cast<float*>(nullptr), d_idx, n, stream, &ws);   // int32/int64 indices
}

// "Top-k".
void readme_top_k(const float* d_logits, float* d_values, std::int32_t* d_indices, std::int64_t rows, std::int64_t cols,
                  cudaStream_t stream, scankit::workspace& ws) {
  scankit::top_k(d_logits, rows, cols, 50, d_values, d_indices, stream, &ws);  // 50 largest per row, in order
}

// "SpMV".
void readme_spmv(const scankit::sparse::device_csr<std::int32_t, float>& a, const float* d_x, float* d_y,
                 std::int64_t n_rows, std::int64_t n_cols, cudaStream_t stream, scankit::workspace& ws) {
  scankit::sparse::spmv_plan<std::int32_t, float> plan(a, {}, stream, &ws);   // analysed once
  scankit::sparse::spmv(plan, 1.0f, {d_x, n_cols}, 0.0f, {d_y, n_rows}, stream, &ws);  // y = A x
  plan.update_values(stream);  // after changing A's values, where the plan copies them (A^T, column blocks)
}

// "Graphs".
void readme_graph(const scankit::sparse::device_csr<std::int32_t, float>& g, std::int32_t source, std::int32_t* d_levels,
                  float* d_rank, cudaStream_t stream, scankit::workspace& ws) {
  auto r = scankit::graph::breadth_first_search(g, source, d_levels, stream, &ws);  // hops, -1 unreachable
  scankit::graph::pagerank_plan<std::int32_t, float> plan(g, stream, &ws);          // once per graph
  auto p = plan.run(d_rank, {}, stream, &ws);                                        // to an L1 change of 1e-6
  (void)r;
  (void)p;
}

// "Sampling".
void readme_sampling(const float* d_weights, std::int64_t n, std::int32_t* d_draws, std::int64_t count,
                     const float* d_probs, std::int64_t rows, std::int64_t cols, std::int32_t* d_tokens,
                     std::uint64_t seed, std::uint64_t offset, cudaStream_t stream, scankit::workspace& ws) {
  scankit::sampling_table table;
  scankit::build_sampling_table(d_weights, n, table, stream);                  // once
  scankit::sample(table, d_draws, count, /*seed=*/42, /*offset=*/0, stream);   // int32 bin indices
  scankit::sample_rows(d_probs, rows, cols, d_tokens, seed, offset, stream, &ws);  // one per row
  scankit::alias_table alias;                                                   // draw-bound work:
  scankit::build_alias_table(d_weights, n, alias, stream, &ws);                 // one read per draw
  scankit::sample(alias, d_draws, count, /*seed=*/42, /*offset=*/0, stream);
}

// "Segmented scans, reductions, CSR".
void readme_segments(const float* d_vals, const std::uint8_t* d_head_flags, float* d_out, const std::uint32_t* d_keys,
                     const std::int32_t* d_row_offsets, std::int64_t rows, float* d_row_sums, std::int64_t nnz,
                     float* d_sum, std::uint32_t* d_unique, float* d_sums, std::int64_t* d_runs,
                     const std::int32_t* d_rows, const std::int32_t* d_cols, std::int64_t n_rows, std::int64_t n_cols,
                     std::int64_t n, cudaStream_t stream, scankit::workspace& ws) {
  scankit::inclusive_segmented_scan(d_vals, d_head_flags, d_out, n, scankit::scan_op::plus, stream, &ws);
  scankit::inclusive_scan_by_key(d_keys, d_vals, d_out, n, scankit::scan_op::maximum, stream, &ws);
  scankit::segmented_reduce(d_vals, d_row_offsets, rows, d_row_sums, nnz, scankit::scan_op::plus, stream, &ws);
  scankit::reduce(d_vals, d_sum, n, 0.0f, scankit::scan_op::plus, stream, &ws);        // *d_sum in device memory
  scankit::reduce_by_key(d_keys, d_vals, d_unique, d_sums, d_runs, n, scankit::scan_op::plus, stream, &ws);
  auto a = scankit::sparse::coo_to_csr(d_rows, d_cols, d_vals, nnz, n_rows, n_cols, stream, &ws);
  (void)a;
}

#if SCANKIT_DOC_SNIPPETS_DISTRIBUTED
// "Several GPUs of one host".
void readme_distributed(int rank, int ranks, const float* d_in, float* d_out, std::int64_t n_local,
                        const std::uint32_t* d_keys, std::uint32_t* d_sorted, std::int64_t total,
                        cudaStream_t stream, scankit::workspace& ws) {
  namespace dist = scankit::distributed;

  auto id = dist::exchange_unique_id_file(getenv("SCANKIT_ID_FILE"), rank, ranks, std::chrono::seconds(60));
  dist::communicator comm(id, rank, ranks, /*device=*/rank);
  dist::inclusive_scan(comm, d_in, d_out, n_local, scankit::scan_op::plus, stream, &ws);      // global scan
  auto mine = dist::sort_keys(comm, d_keys, n_local, d_sorted, total / ranks + 1, stream, &ws);  // even shards
  (void)mine;
}
#endif

// "The scan lab".
void readme_lab(const float* d_in, float* d_out, std::int64_t n, cudaStream_t stream, scankit::workspace& ws) {
  scankit::scan_options opt;
  opt.strategy = scankit::scan_strategy::reduce_then_scan;     // or three_launch, chained, decoupled_look_back
  opt.block_algorithm = scankit::block_scan_algorithm::brent_kung;
  scankit::lab::inclusive_scan(d_in, d_out, n, scankit::scan_op::plus, stream, &ws, opt);
}

// ---------------------------------------------------------------------------------------------
// docs/compaction.md

// "API".
void compaction_api(const float* d_temps, float* d_kept, double* d_values, const std::int32_t* d_rows,
                    const float* d_load, std::int32_t* d_rows_out, const std::uint8_t* d_flags,
                    const std::uint32_t* d_ids, std::uint32_t* d_ids_out, std::int64_t n, cudaStream_t stream) {
  std::int64_t* d_count;                                     // device memory: receives the count
  cudaMalloc(&d_count, sizeof(std::int64_t));
  scankit::workspace ws;                                     // reusable temporary storage

  scankit::select_if(d_temps, d_kept, d_count, n, scankit::keep_in_range<float>{-40.f, 60.f}, stream, &ws);
  scankit::select_if(d_values, d_values, d_count, n, scankit::keep_not_nan<double>{}, stream, &ws);  // in place
  scankit::select_flagged(d_temps, d_flags, d_kept, d_count, n, stream, &ws);                       // flags[i] != 0
  scankit::select_by_stencil(d_rows, d_load, d_rows_out, d_count, n, scankit::keep_in_range<float>{0.f, 1.f});
  scankit::partition_if(d_temps, d_kept, d_count, n, scankit::keep_in_range<float>{0.f, 1.f});  // rejected reversed at the back
  scankit::unique(d_ids, d_ids_out, d_count, n);                         // drop consecutive duplicates

  std::int64_t kept = scankit::select_if_count_host(d_temps, d_kept, n, scankit::keep_in_range<float>{-40.f, 60.f},
                                                    stream);  // SYNCHRONISES

  scankit::compact_options o;
  o.strategy = scankit::compact_strategy::three_step;   // the textbook version (default: single_pass)
  (void)kept;
  (void)o;
}

// ---------------------------------------------------------------------------------------------
// docs/distributed.md

#if SCANKIT_DOC_SNIPPETS_DISTRIBUTED
void distributed_threads() {
  namespace dist = scankit::distributed;

  dist::shared_unique_id id;                       // shared by reference between the threads
  auto per_gpu = [&](int rank, int ranks) {
    cudaSetDevice(rank);
    dist::communicator comm(id.get(rank, ranks, std::chrono::seconds(60)), rank, ranks, /*device=*/rank);
    // ... distributed calls on comm from this thread
  };
  (void)per_gpu;
}

void distributed_processes(int rank, int ranks, int device) {
  namespace dist = scankit::distributed;
  const auto id = dist::exchange_unique_id_file(std::getenv("SCANKIT_ID_FILE"), rank, ranks, std::chrono::seconds(60));
  dist::communicator comm(id, rank, ranks, device);        // device made current on this thread
}

void distributed_scan(scankit::distributed::communicator& comm, std::int64_t* d_in, std::int64_t* d_out,
                      std::int64_t n_local, cudaStream_t stream, scankit::workspace& ws) {
  namespace dist = scankit::distributed;
  dist::inclusive_scan(comm, d_in, d_out, n_local, scankit::scan_op::plus, stream, &ws);
  dist::exclusive_scan(comm, d_in, d_in, n_local, 0LL, scankit::scan_op::maximum, stream, &ws);  // in place
}

void distributed_compact(scankit::distributed::communicator& comm, const float* d_in, float* d_sel, float* d_even,
                         std::int64_t n_local, std::int64_t capacity, cudaStream_t stream, scankit::workspace& ws) {
  namespace dist = scankit::distributed;
  auto kept = dist::select_if(comm, d_in, d_sel, n_local, scankit::keep_in_range<float>{0.f, 1.f}, stream, &ws);
  // kept.count items at d_sel; they are items [kept.global_offset, + count) of the global result
  auto even = dist::rebalance(comm, d_sel, kept.count, d_even, capacity, stream);
  // now every rank holds even_shard(kept.global_count, ranks, rank).size() items, order kept
  (void)even;
}

void distributed_sort(scankit::distributed::communicator& comm, int ranks, std::uint32_t* d_keys,
                      std::uint32_t* d_vals, std::uint32_t* d_sorted, std::uint32_t* d_sorted_keys,
                      std::uint32_t* d_sorted_vals, std::int64_t n_local, std::int64_t total, cudaStream_t stream,
                      scankit::workspace& ws) {
  namespace dist = scankit::distributed;
  const std::int64_t room = total / ranks + 1;                       // >= every rank's even share
  auto mine = dist::sort_keys(comm, d_keys, n_local, d_sorted, room, stream, &ws);
  dist::sort_pairs(comm, d_keys, d_vals, n_local, d_sorted_keys, d_sorted_vals, room, stream, &ws);
  // rank r holds items [mine.global_offset, + mine.count) of the sorted array; count is its even share
  (void)mine;
}
#endif

// ---------------------------------------------------------------------------------------------
// docs/sampling.md

void sampling_overview(const float* d_weights, std::int64_t n, std::int32_t* d_out, std::int32_t* d_out2,
                       std::int64_t count, std::int64_t count2, const float* d_probs, const float* d_logits,
                       std::int64_t rows, std::int64_t cols, std::int32_t* d_tokens, const float* d_w,
                       const std::int64_t* d_offsets, std::int64_t num_segments, const std::int64_t* d_draw_offsets,
                       std::int64_t total_draws, std::uint64_t seed, std::uint64_t offset, cudaStream_t stream,
                       scankit::workspace& ws) {
  // One distribution, many draws.
  scankit::sampling_table table;                       // owns its device memory, reusable
  scankit::build_sampling_table(d_weights, n, table, stream);
  scankit::sample(table, d_out, count, seed, /*offset=*/0, stream);          // int32 bin indices
  scankit::sample(table, d_out2, count2, seed, /*offset=*/count, stream);    // continues the stream
  table.check_host(stream);   // synchronises; throws scankit::error for bad weights

  // One draw per row of a rows x cols matrix (probabilities or any weights).
  scankit::sample_rows(d_probs, rows, cols, d_tokens, seed, offset, stream, &ws);

  // Rows of logits with temperature, top-k and top-p.
  scankit::top_sampling_options o;
  o.temperature = 0.8f;
  o.top_k = 50;
  o.top_p = 0.9;
  scankit::sample_rows_top(d_logits, rows, cols, d_tokens, o, seed, offset, stream, &ws);

  // Segments given by offsets (CSR style), each with its own number of draws.
  scankit::sample_segments(d_w, n, d_offsets, num_segments, d_draw_offsets, total_draws, d_out, seed, 0, stream, &ws);
}

void sampling_tokens(const __nv_bfloat16* d_logits_bf16, std::int64_t batch, std::int64_t vocab,
                     const float* d_temperature, const std::int32_t* d_top_k, const float* d_top_p,
                     std::uint64_t* d_seeds, std::uint64_t* d_offsets, std::int32_t* d_tokens, float* d_logprobs,
                     cudaStream_t stream) {
  scankit::token_sampling_params p;
  p.values = scankit::token_values::logits;   // or probabilities
  p.temperatures = d_temperature;             // per row (device), or p.temperature for all
  p.top_ks = d_top_k;  p.top_ps = d_top_p;  p.min_p = 0.05f;
  p.seeds = d_seeds;   p.offsets = d_offsets; // device: a captured graph draws anew on each replay
  scankit::token_sampling_outputs o;
  o.tokens = d_tokens;                        // -1 marks a bad row
  o.logprobs = d_logprobs;                    // optional
  scankit::sample_tokens(d_logits_bf16, batch, vocab, batch, p, o, stream);
  scankit::advance_sampling_offsets(d_offsets, batch, 1, stream);   // the graph's last node
}

void sampling_alias(const float* d_weights, std::int64_t n, std::int32_t* d_out, std::int64_t count,
                    std::uint64_t seed, cudaStream_t stream, scankit::workspace& ws) {
  scankit::alias_table alias;                                   // owns its device memory, reusable
  scankit::build_alias_table(d_weights, n, alias, stream, &ws); // float or double weights
  scankit::sample(alias, d_out, count, seed, /*offset=*/0, stream);
  alias.check_host(stream);   // synchronises; throws scankit::error for bad weights
}

// ---------------------------------------------------------------------------------------------
// docs/segments.md

void segments_precompiled(const float* d_values, const std::uint8_t* d_flags, float* d_out,
                          const std::uint32_t* d_keys, const std::int32_t* d_offsets, std::int64_t rows,
                          float* d_row_sums, float* d_row_max, float* d_sum, scankit::indexed_value<float>* d_where,
                          std::uint32_t* d_unique_keys, float* d_sums, std::int64_t n, cudaStream_t stream,
                          scankit::workspace& ws) {
  // d_flags[i] != 0 starts a segment at i (std::uint8_t; item 0 always starts one)
  scankit::inclusive_segmented_scan(d_values, d_flags, d_out, n, scankit::scan_op::plus, stream, &ws);
  scankit::exclusive_segmented_scan(d_values, d_flags, d_out, n, 0.0f, scankit::scan_op::plus, stream, &ws);
  // segments = runs of equal keys (32- or 64-bit integer keys)
  scankit::inclusive_scan_by_key(d_keys, d_values, d_out, n, scankit::scan_op::maximum, stream, &ws);
  // segments = [d_offsets[s], d_offsets[s + 1]) for s < rows (int32 or int64 offsets, CSR row offsets)
  scankit::inclusive_segmented_scan_by_offsets(d_values, d_offsets, rows, d_out, n, scankit::scan_op::plus, stream, &ws);

  scankit::segmented_reduce(d_values, d_offsets, rows, d_row_sums, n);                         // empty rows: 0
  scankit::segmented_reduce(d_values, d_offsets, rows, d_row_max, n, scankit::scan_op::maximum); // empty rows: -inf
  scankit::segmented_reduce(d_values, d_offsets, rows, d_row_max, n, 0.0f, scankit::scan_op::maximum); // empty rows: 0

  scankit::reduce(d_values, d_sum, n, 0.0, scankit::scan_op::plus, stream, &ws);    // *d_sum (device)
  scankit::arg_min(d_values, d_where, n, stream, &ws);    // *d_where = {index, value}, scankit::indexed_value<T>

  std::int64_t* d_runs;  // device memory: the number of runs
  cudaMalloc(&d_runs, sizeof(std::int64_t));
  scankit::reduce_by_key(d_keys, d_values, d_unique_keys, d_sums, d_runs, n, scankit::scan_op::plus, stream, &ws);
}

// ---------------------------------------------------------------------------------------------
// docs/sort.md

void sort_precompiled(const float* d_keys_in, float* d_keys_out, const std::int32_t* d_values_in,
                      std::int32_t* d_values_out, std::int64_t* d_indices, std::uint64_t* d_a, std::uint64_t* d_b,
                      std::int64_t n, cudaStream_t stream) {
  // keys_in is only read; keys_out receives the sorted keys.
  scankit::sort_keys(d_keys_in, d_keys_out, n, stream);

  // Pairs, descending, by bits [0, 20) only, with a reusable workspace.
  scankit::workspace ws;
  scankit::sort_options options;
  options.order = scankit::sort_order::descending;
  options.end_bit = 20;
  scankit::sort_pairs(d_keys_in, d_keys_out, d_values_in, d_values_out, n, stream, &ws, options);

  // The permutation only (keys_out may be null), int32 or int64 indices.
  scankit::argsort(d_keys_in, static_cast<float*>(nullptr), d_indices, n, stream);

  // In two caller buffers: temporary storage O(tiles) instead of O(n); keys.current() holds the
  // result afterwards (the selector flips once per pass).
  scankit::double_buffer<std::uint64_t> keys(d_a, d_b);
  scankit::sort_keys(keys, n, stream);
}

void sort_segmented(float* d_keys, float* d_sorted, const std::int32_t* d_values,
                    std::int32_t* d_values_sorted, float* d_spare, std::int64_t n,
                    const std::int64_t* d_offsets, std::int64_t num_segments, const scankit::sort_options& options,
                    const std::int64_t* d_n, const std::int64_t* d_segments, cudaStream_t stream,
                    scankit::workspace& ws) {
  scankit::segmented_sort_keys(d_keys, d_sorted, n, d_offsets, num_segments, stream, &ws);
  scankit::segmented_sort_pairs(d_keys, d_sorted, d_values, d_values_sorted, n, d_offsets,
                                num_segments, stream, &ws, options);

  // In the caller's two buffers: no O(n) workspace; current() holds the result.
  scankit::double_buffer<float> keys(d_keys, d_spare);
  scankit::segmented_sort_keys(keys, n, d_offsets, num_segments, stream, &ws);
  float* d_result = keys.current();
  (void)d_result;

  // The items' and segments' counts from an earlier step on the GPU (out of place; no wait).
  scankit::segmented_sort_pairs(d_keys, d_sorted, d_values, d_values_sorted, scankit::device_n{d_n, n},
                                d_offsets, scankit::device_n{d_segments, num_segments}, stream, &ws);
}

void sort_top_k(const float* d_logits, const float* d_scores, const float* d_keys, const std::int64_t* d_offsets,
                const std::int32_t* d_k, float* d_values, std::int64_t* d_indices, std::int64_t n,
                std::int64_t num_segments, std::int64_t rows, std::int64_t cols, cudaStream_t stream,
                scankit::workspace& ws) {
  // d_logits: 256 x 131072 floats; 50 per row, largest first, ties by index.
  scankit::top_k(d_logits, 256, 131072, 50, d_values, d_indices, stream, &ws);
  scankit::top_k_segments(d_scores, n, d_offsets, num_segments, 10, d_values, d_indices, stream, &ws);

  scankit::top_k_options options;
  options.largest = false;        // the k smallest, smallest first
  options.k_per_row = d_k;        // one k per row (int32, device memory), at most the k passed
  scankit::select_k(d_keys, rows, cols, 1000, d_values, d_indices, stream, &ws, options);  // any order
}

// ---------------------------------------------------------------------------------------------
// docs/sparse.md

void sparse_csr_build(const std::int32_t* d_rows, const std::int32_t* d_cols, const float* d_values, std::int64_t nnz,
                      std::int32_t n_rows, std::int32_t n_cols, std::int32_t* d_offsets, cudaStream_t stream,
                      scankit::workspace& ws) {
  // Row offsets from row indices sorted ascending (empty rows included), n_rows + 1 of them.
  scankit::sparse::row_offsets_from_sorted_rows(d_rows, nnz, n_rows, d_offsets, stream);

  // From triplets in any order, duplicates summed: a CSR matrix that owns its device arrays.
  scankit::sparse::device_csr<std::int32_t, float> a =
      scankit::sparse::coo_to_csr(d_rows, d_cols, d_values, nnz, n_rows, n_cols, stream, &ws);
  a.offsets(); a.columns(); a.values();  // device pointers
  auto host = a.download();              // csr_matrix_host: offsets, columns, values
  (void)host;
}

void sparse_matrix_market() {
  scankit::sparse::matrix_market_header header;
  auto a = scankit::sparse::read_matrix_market<std::int32_t, float>("mdual.mtx", {}, &header);
  // a.rows, a.cols; a.row[k], a.col[k], a.value[k]: 0-based triplets in file order
  scankit::sparse::write_matrix_market("copy.mtx", a);  // coordinate real general, 1-based
}

void sparse_generators() {
  auto p2 = scankit::sparse::poisson_2d<std::int32_t, float>(4096);   // 16.8 M rows, 84 M nonzeros
  auto p3 = scankit::sparse::poisson_3d<std::int32_t, double>(128);
  scankit::sparse::rmat_parameters g;  // Graph500: a, b, c = 0.57, 0.19, 0.19
  g.scale = 22;
  g.edge_factor = 16;
  g.seed = 7;
  auto graph = scankit::sparse::rmat<std::int64_t, float>(g);
  (void)p2;
  (void)p3;
  (void)graph;
}

// ---------------------------------------------------------------------------------------------
// docs/spmv.md

void spmv_overview(const std::int32_t* d_rows, const std::int32_t* d_cols, const float* d_vals, std::int64_t nnz,
                   std::int32_t m, std::int32_t n, const float* d_x, float* d_y, cudaStream_t stream,
                   scankit::workspace& ws) {
  namespace sp = scankit::sparse;

  sp::device_csr<std::int32_t, float> a = sp::coo_to_csr(d_rows, d_cols, d_vals, nnz, m, n, stream, &ws);
  // ... or your own arrays: sp::csr_view<std::int32_t, float> a(m, n, nnz, d_offsets, d_columns, d_values);

  // One call: checks a's offsets on the GPU (and waits for that check), picks a kernel, runs.
  sp::spmv(1.0f, a, {d_x, n}, 0.0f, {d_y, m}, stream, &ws);

  // Many calls on one matrix: analyse once (as cusparseSpMV_preprocess), then no wait and no
  // allocation per call, and the call can be captured in a CUDA graph.
  sp::spmv_plan<std::int32_t, float> plan(a, {}, stream, &ws);
  sp::spmv(plan, 1.0f, {d_x, n}, 0.0f, {d_y, m}, stream, &ws);
  plan.kernel();        // spmv_kernel::merge_path or spmv_kernel::vector
  plan.statistics();    // rows, nonzeros, longest row, empty rows

  // y = A^T x: with a plan (a transposed copy, deterministic) or without (atomic adds).
  sp::spmv_options t;
  t.operation = sp::spmv_operation::transpose;
  sp::spmv(1.0f, a, {d_x, m}, 0.0f, {d_y, n}, stream, &ws, t);

  // The full check of a matrix (offsets, every column in range, optionally sorted columns).
  // validate_csr takes a csr_view: pass a device_csr as one.
  sp::csr_validation v = sp::validate_csr(sp::csr_view<std::int32_t, float>(a), /*sorted_columns=*/true, stream);
  (void)v;
}

// The csr_view form of the first snippet's comment.
void spmv_view(std::int32_t m, std::int32_t n, std::int64_t nnz, const std::int32_t* d_offsets,
               const std::int32_t* d_columns, const float* d_values) {
  namespace sp = scankit::sparse;
  sp::csr_view<std::int32_t, float> a(m, n, nnz, d_offsets, d_columns, d_values);
  (void)a;
}

void spmv_cg(const scankit::sparse::device_csr<std::int32_t, float>& a, const float* d_b, float* d_x, std::int64_t n,
             cudaStream_t stream, scankit::workspace& ws) {
  scankit::sparse::cg_options options;
  options.max_iterations = 1000;
  options.tolerance = 1e-6;                                  // on ||r|| / ||b||
  options.progress = [](int iteration, double residual) {    // optional, on the host
    std::printf("%d %.3e\n", iteration, residual);
  };
  // x holds the initial guess on entry, the solution on return.
  scankit::sparse::cg_result result = scankit::sparse::conjugate_gradient(
      a, {d_b, n}, {d_x, n}, options, stream, &ws);          // a: csr_view or device_csr
  result.iterations; result.relative_residual; result.converged; result.breakdown;

  // Several solves with one matrix: make the SpMV plan once and pass it instead of the matrix.
  scankit::sparse::spmv_plan<std::int32_t, float> plan(a, {}, stream, &ws);
  scankit::sparse::conjugate_gradient(plan, {d_b, n}, {d_x, n}, options, stream, &ws);
}

// docs/graph.md

void graph_api(const std::int32_t* rows, const std::int32_t* cols, const float* ones, std::int64_t m, std::int32_t n,
               std::int32_t* d_levels, float* d_rank, cudaStream_t stream, scankit::workspace& ws) {
  scankit::sparse::device_csr<std::int32_t, float> g = scankit::sparse::coo_to_csr(rows, cols, ones, m, n, n, stream, &ws);

  // levels[v]: hops from vertex 0, or -1 when unreachable (n items, device memory)
  scankit::graph::bfs_result r = scankit::graph::breadth_first_search(g, 0, d_levels, stream, &ws);
  // r.depth, r.reached, r.edges_scanned

  scankit::graph::pagerank_plan<std::int32_t, float> plan(g, stream, &ws);   // once per graph
  scankit::graph::pagerank_options options;                                  // damping 0.85, tolerance 1e-6
  scankit::graph::pagerank_result p = plan.run(d_rank, options, stream, &ws); // p.iterations, p.residual, p.converged
  (void)r;
  (void)p;
}

// README.md, "Device memory from your allocator"; docs/memory.md, "Choosing a resource"

void* my_allocate(void* /*context*/, std::size_t /*bytes*/, cudaStream_t /*stream*/) { return nullptr; }
void my_deallocate(void* /*context*/, void* /*memory*/, std::size_t /*bytes*/, cudaStream_t /*stream*/) {}

void readme_memory(void* my_context) {
  scankit::callback_resource mine(my_allocate, my_deallocate, my_context);  // void* (void*, size_t, cudaStream_t) ...
  scankit::set_default_resource(&mine);   // or pass &mine to a workspace, plan or table
}

void memory_resources(cudaMemPool_t pool, void* my_context) {
  // 1. A pool of your own for one workspace (cudaMallocFromPoolAsync):
  scankit::cuda_pool_resource my_pool(pool);          // a cudaMemPool_t you created
  scankit::workspace ws(&my_pool);

  // 2. Two plain functions and a context: a C API, a Python binding, a framework's allocator.
  scankit::callback_resource mine(my_allocate, my_deallocate, my_context);

  // 3. For everything that takes no resource explicitly, from now on (thread-safe):
  scankit::device_memory_resource* previous = scankit::set_default_resource(&mine);
  // ...
  scankit::set_default_resource(previous);            // or nullptr: the built-in pool again
}

}  // namespace doc_snippets

// The snippets above only have to compile; this test exists so that the binary runs.
TEST(DocSnippets, Compile) { SUCCEED(); }
