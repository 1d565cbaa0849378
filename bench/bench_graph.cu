// bench_graph: breadth-first search and PageRank (scankit::graph) on an undirected R-MAT graph
// (Graph500's parameters, scale 22 and edge factor 16 unless SCANKIT_BENCH_GRAPH_SCALE says
// otherwise: both directions of each generated link, repeats merged by coo_to_csr), against
// PageRank written on cuSPARSE.
// Rows (Google Benchmark names <what>/rmat<scale>/<row>):
//   bfs/scankit              scankit::graph::breadth_first_search from vertex 0 (R-MAT's hub), all
//                            levels; counter gteps = links scanned / time
//   pagerank/scankit         pagerank_plan::run to an L1 change below 1e-6 (damping 0.85); the plan
//                            (A^T renumbered, its SpMV plan, 1/outdeg) is made before timing
//   pagerank/cusparse_thrust the same iteration as a cuSPARSE user writes it: cusparseSpMV (the faster
//                            of CSR ALG1 and ALG2, after cusparseSpMV_preprocess) on P^T (A^T with
//                            the values 1/outdeg(u): cuSPARSE has no pattern matrices), Thrust for
//                            the dangling mass, the update and the L1 change, whose sums come back
//                            to the host every iteration to decide the next
//   spmv/scankit, spmv/cusparse_alg1, spmv/cusparse_alg2   one product with P^T (the loops' heart)
//   spmv/scankit_pattern     one product with A^T as a pattern matrix
//   spmv/scankit_renumbered  the same with the vertices renumbered by in-degree (pagerank/scankit's)
//   copy                     cudaMemcpyAsync of half of one P^T product's bytes (what it must read
//                            and write), the bandwidth ceiling of the spmv rows
// Counters: ms (median), and in the summary vs_cusparse (the cuSPARSE loop's time / scankit's, and
// the faster cuSPARSE product's / scankit's), of_copy (the copy's time / the product's).
// Correctness guard: the BFS levels equal a host BFS; the two PageRank loops' ranks lie within
// 1e-5 of each other in L1. A mismatch fails the row and the exit status.
// SCANKIT_BENCH_DUMP_CSR=PREFIX writes PREFIX.offsets.int32, PREFIX.columns.int32 and
// PREFIX.levels.int32 (raw little-endian arrays) for bench/cupy_bfs.py.
#include <benchmark/benchmark.h>

#include "bench_main.hpp"
#include "bench_support.cuh"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <cusparse.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include "scankit/graph/bfs.hpp"
#include "scankit/graph/pagerank.hpp"
#include "scankit/reference/graph_reference.hpp"
#include "scankit/sparse/csr_build.hpp"
#include "scankit/sparse/generators.hpp"
#include "scankit/sparse/spmv.hpp"

namespace {

using index_t = std::int32_t;
using value_t = float;

void check_cusparse(cusparseStatus_t status, const char* call, int line) {
  if (status != CUSPARSE_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(call) + " failed at line " + std::to_string(line) + ": " +
                             cusparseGetErrorString(status));
  }
}
#define SPARSE_CHECK(call) check_cusparse((call), #call, __LINE__)

scankit_bench::gpu_session g_gpu;
cusparseHandle_t g_cusparse = nullptr;
int g_scale = 22;
std::string g_tag;
std::unique_ptr<scankit::sparse::device_csr<index_t, value_t>> g_graph;
std::unique_ptr<scankit::graph::pagerank_plan<index_t, value_t>> g_plan;
std::unique_ptr<scankit::sparse::spmv_plan<index_t, value_t>> g_spmv, g_spmv_pattern, g_spmv_renumbered;
std::unique_ptr<scankit::sparse::device_csr<index_t, value_t>> g_transposed;  // P^T
value_t* g_inverse = nullptr;  // 1/outdeg(u), 0 for a vertex without links
value_t* g_weights = nullptr;  // each link's 1/outdeg(u), in the graph's order
scankit::sparse::csr_view<index_t, value_t> g_transition;  // P^T
scankit::workspace g_ws;
index_t g_n = 0;
std::int32_t* g_levels = nullptr;
value_t *g_rank = nullptr, *g_rank_cusparse = nullptr, *g_other = nullptr, *g_spread = nullptr;
std::uint8_t* g_bytes = nullptr;  // copy row: source, then destination
std::size_t g_copy_bytes = 0;
scankit::graph::pagerank_options g_options;

struct results {
  double bfs = NAN, gteps = NAN, pagerank = NAN, pagerank_cusparse = NAN, spmv = NAN, pattern = NAN,
         renumbered = NAN, alg1 = NAN, alg2 = NAN, copy = NAN, plan = NAN;
  int iterations = 0, iterations_cusparse = 0;
  std::string bfs_error, pagerank_error;
} g_results;

// One cuSPARSE product y = P^T x with a chosen algorithm, preprocessed once.
struct cusparse_product {
  cusparseSpMatDescr_t a{};
  cusparseDnVecDescr_t x{}, y{};
  cusparseSpMVAlg_t alg;
  void* buffer = nullptr;
  cusparse_product(const scankit::sparse::csr_view<index_t, value_t>& m, value_t* in, value_t* out,
                   cusparseSpMVAlg_t algorithm)
      : alg(algorithm) {
    SPARSE_CHECK(cusparseCreateCsr(&a, m.rows, m.cols, m.nonzeros, const_cast<index_t*>(m.offsets),
                                   const_cast<index_t*>(m.columns), const_cast<value_t*>(m.values),
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    SPARSE_CHECK(cusparseCreateDnVec(&x, m.cols, in, CUDA_R_32F));
    SPARSE_CHECK(cusparseCreateDnVec(&y, m.rows, out, CUDA_R_32F));
    const value_t one = 1, zero = 0;
    std::size_t bytes = 0;
    SPARSE_CHECK(cusparseSpMV_bufferSize(g_cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, x, &zero, y, CUDA_R_32F,
                                         alg, &bytes));
    BENCH_CHECK(cudaMalloc(&buffer, std::max<std::size_t>(bytes, 1)));
    SPARSE_CHECK(cusparseSpMV_preprocess(g_cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, x, &zero, y,
                                         CUDA_R_32F, alg, buffer));
  }
  void point(value_t* in, value_t* out) {
    SPARSE_CHECK(cusparseDnVecSetValues(x, in));
    SPARSE_CHECK(cusparseDnVecSetValues(y, out));
  }
  void run() {
    const value_t one = 1, zero = 0;
    SPARSE_CHECK(cusparseSpMV(g_cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, x, &zero, y, CUDA_R_32F, alg,
                              buffer));
  }
  ~cusparse_product() {
    (void)cusparseDestroySpMat(a);
    (void)cusparseDestroyDnVec(x);
    (void)cusparseDestroyDnVec(y);
    if (buffer != nullptr) (void)cudaFree(buffer);
  }
};
std::unique_ptr<cusparse_product> g_alg1, g_alg2;

// The cuSPARSE user's PageRank: the same iteration, with Thrust for the vector steps and two sums
// read back per iteration (the dangling mass for the update, the L1 change to stop).
struct dangling_share {  // (rank, 1/outdeg): the rank of a vertex without links
  __host__ __device__ value_t operator()(const thrust::tuple<value_t, value_t>& t) const {
    return thrust::get<1>(t) == value_t(0) ? thrust::get<0>(t) : value_t(0);
  }
};
struct update_rank {
  value_t everyone, damping;
  __host__ __device__ value_t operator()(value_t spread) const { return everyone + damping * spread; }
};
struct inverse_degree {  // (offsets[u + 1], offsets[u]) -> 1/outdeg(u), 0 without links
  __host__ __device__ value_t operator()(index_t end, index_t begin) const {
    return end > begin ? value_t(1) / static_cast<value_t>(end - begin) : value_t(0);
  }
};
struct absolute_difference {
  __host__ __device__ value_t operator()(const thrust::tuple<value_t, value_t>& t) const {
    const value_t d = thrust::get<0>(t) - thrust::get<1>(t);
    return d < 0 ? -d : d;
  }
};

int cusparse_pagerank(cusparse_product& product, value_t* rank, value_t* other, value_t* spread) {
  const auto policy = thrust::cuda::par.on(g_gpu.stream);
  const long long n = g_n;
  const value_t uniform = value_t(1) / static_cast<value_t>(n);
  thrust::fill(policy, rank, rank + n, uniform);
  value_t* ranks[2] = {rank, other};
  const auto damping = static_cast<value_t>(g_options.damping);
  int k = 1;
  for (;; ++k) {
    value_t* previous = ranks[(k - 1) % 2];
    value_t* current = ranks[k % 2];
    const auto pairs = thrust::make_zip_iterator(thrust::make_tuple(previous, g_inverse));
    const value_t mass = thrust::transform_reduce(policy, pairs, pairs + n, dangling_share{}, value_t(0),
                                                  thrust::plus<value_t>());
    product.point(previous, spread);
    product.run();
    const value_t everyone = ((value_t(1) - damping) + damping * mass) / static_cast<value_t>(n);
    thrust::transform(policy, spread, spread + n, current, update_rank{everyone, damping});
    const auto both = thrust::make_zip_iterator(thrust::make_tuple(current, previous));
    const value_t change = thrust::transform_reduce(policy, both, both + n, absolute_difference{}, value_t(0),
                                                    thrust::plus<value_t>());
    if (change < g_options.tolerance || k == g_options.max_iterations) break;
  }
  if (k % 2 == 1) BENCH_CHECK(cudaMemcpyAsync(rank, other, n * sizeof(value_t), cudaMemcpyDeviceToDevice, g_gpu.stream));
  return k;
}

cusparse_product& faster_cusparse() { return g_results.alg2 < g_results.alg1 ? *g_alg2 : *g_alg1; }

void bench_bfs(benchmark::State& state) {
  scankit::graph::bfs_result result;
  const double ms = scankit_bench::timed_median_ms(state, g_gpu.stream, g_gpu.start, g_gpu.stop, [&] {
    result = scankit::graph::breadth_first_search(*g_graph, index_t{0}, g_levels, g_gpu.stream, &g_ws);
  });
  g_results.bfs = ms;
  g_results.gteps = static_cast<double>(result.edges_scanned) / (ms * 1e-3) / 1e9;
  state.counters["ms"] = ms;
  state.counters["gteps"] = g_results.gteps;
  state.counters["levels"] = result.depth;
  state.counters["reached"] = static_cast<double>(result.reached);
}

void bench_pagerank(benchmark::State& state) {
  scankit::graph::pagerank_result result;
  const double ms = scankit_bench::timed_median_ms(state, g_gpu.stream, g_gpu.start, g_gpu.stop, [&] {
    result = g_plan->run(g_rank, g_options, g_gpu.stream, &g_ws);
  });
  g_results.pagerank = ms;
  g_results.iterations = result.iterations;
  state.counters["ms"] = ms;
  state.counters["iterations"] = result.iterations;
  state.counters["ms_per_iteration"] = ms / result.iterations;
}

void bench_pagerank_cusparse(benchmark::State& state) {
  int iterations = 0;
  const double ms = scankit_bench::timed_median_ms(state, g_gpu.stream, g_gpu.start, g_gpu.stop, [&] {
    iterations = cusparse_pagerank(faster_cusparse(), g_rank_cusparse, g_other, g_spread);
  });
  g_results.pagerank_cusparse = ms;
  g_results.iterations_cusparse = iterations;
  state.counters["ms"] = ms;
  state.counters["iterations"] = iterations;
  state.counters["ms_per_iteration"] = ms / iterations;
}

// which: 0 scankit on P^T, 1 and 2 cuSPARSE ALG1 and ALG2 on P^T, 3 scankit on the pattern A^T,
// 4 scankit on the pagerank plan's renumbered A^T
void bench_spmv(benchmark::State& state, int which) {
  if (which == 1) g_alg1->point(g_rank, g_spread);
  if (which == 2) g_alg2->point(g_rank, g_spread);
  const double ms = scankit_bench::timed_median_ms(state, g_gpu.stream, g_gpu.start, g_gpu.stop, [&] {
    if (which == 0 || which >= 3) {
      scankit::sparse::spmv(which == 0 ? *g_spmv : which == 3 ? *g_spmv_pattern : *g_spmv_renumbered, value_t(1),
                            scankit::sparse::dense_vector<const value_t>{g_rank, g_n}, value_t(0),
                            scankit::sparse::dense_vector<value_t>{g_spread, g_n}, g_gpu.stream, &g_ws);
    } else {
      (which == 1 ? g_alg1 : g_alg2)->run();
    }
  });
  (which == 0   ? g_results.spmv
   : which == 1 ? g_results.alg1
   : which == 2 ? g_results.alg2
   : which == 3 ? g_results.pattern
                : g_results.renumbered) = ms;
  state.counters["ms"] = ms;
}

void bench_copy(benchmark::State& state) {
  const double ms = scankit_bench::timed_median_ms(state, g_gpu.stream, g_gpu.start, g_gpu.stop, [&] {
    BENCH_CHECK(cudaMemcpyAsync(g_bytes + g_copy_bytes, g_bytes, g_copy_bytes, cudaMemcpyDeviceToDevice, g_gpu.stream));
  });
  g_results.copy = ms;
  state.counters["ms"] = ms;
}

void register_all() {
  if (const char* s = std::getenv("SCANKIT_BENCH_GRAPH_SCALE")) g_scale = std::atoi(s);
  g_tag = "rmat" + std::to_string(g_scale);
  const auto add = [](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);
  };
  add("copy/" + g_tag, bench_copy);
  add("spmv/" + g_tag + "/cusparse_alg1", [](benchmark::State& s) { bench_spmv(s, 1); });
  add("spmv/" + g_tag + "/cusparse_alg2", [](benchmark::State& s) { bench_spmv(s, 2); });
  add("spmv/" + g_tag + "/scankit", [](benchmark::State& s) { bench_spmv(s, 0); });
  add("spmv/" + g_tag + "/scankit_pattern", [](benchmark::State& s) { bench_spmv(s, 3); });
  add("spmv/" + g_tag + "/scankit_renumbered", [](benchmark::State& s) { bench_spmv(s, 4); });
  add("bfs/" + g_tag + "/scankit", bench_bfs);
  add("pagerank/" + g_tag + "/cusparse_thrust", bench_pagerank_cusparse);
  add("pagerank/" + g_tag + "/scankit", bench_pagerank);
}

template <class T>
void write_raw(const std::string& path, const T* device, std::size_t count) {
  std::vector<T> host(count);
  BENCH_CHECK(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(host.data()),
                                              static_cast<std::streamsize>(count * sizeof(T)));
}

void setup_gpu() {
  g_gpu.open("bench_graph");
  SPARSE_CHECK(cusparseCreate(&g_cusparse));
  SPARSE_CHECK(cusparseSetStream(g_cusparse, g_gpu.stream));
  scankit::sparse::rmat_parameters p;
  p.scale = g_scale;
  p.edge_factor = 16;
  auto coo = scankit::sparse::rmat<index_t, value_t>(p);
  scankit::sparse::add_reverse_links(coo);
  const auto nnz = static_cast<std::int64_t>(coo.row.size());
  index_t *rows = nullptr, *cols = nullptr;
  value_t* values = nullptr;
  BENCH_CHECK(cudaMalloc(&rows, nnz * sizeof(index_t)));
  BENCH_CHECK(cudaMalloc(&cols, nnz * sizeof(index_t)));
  BENCH_CHECK(cudaMalloc(&values, nnz * sizeof(value_t)));
  BENCH_CHECK(cudaMemcpy(rows, coo.row.data(), nnz * sizeof(index_t), cudaMemcpyHostToDevice));
  BENCH_CHECK(cudaMemcpy(cols, coo.col.data(), nnz * sizeof(index_t), cudaMemcpyHostToDevice));
  BENCH_CHECK(cudaMemcpy(values, coo.value.data(), nnz * sizeof(value_t), cudaMemcpyHostToDevice));
  g_graph = std::make_unique<scankit::sparse::device_csr<index_t, value_t>>(
      scankit::sparse::coo_to_csr(rows, cols, values, nnz, coo.rows, coo.cols, g_gpu.stream, &g_ws));
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  (void)cudaFree(rows);
  (void)cudaFree(cols);
  (void)cudaFree(values);
  g_n = g_graph->rows();
  std::fprintf(stderr, "bench_graph: R-MAT scale %d undirected: %d vertices, %lld links\n", g_scale, g_n,
               static_cast<long long>(g_graph->nonzeros()));
  benchmark::AddCustomContext("graph", g_tag + " undirected, " + std::to_string(g_n) + " vertices, " +
                                           std::to_string(g_graph->nonzeros()) + " links");
  const auto plan_start = std::chrono::steady_clock::now();
  g_plan = std::make_unique<scankit::graph::pagerank_plan<index_t, value_t>>(*g_graph, g_gpu.stream, &g_ws);
  g_results.plan = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - plan_start).count();
  // P^T for cuSPARSE, in the graph's own numbering: each link u -> v weighs 1/outdeg(u).
  const auto policy = thrust::cuda::par.on(g_gpu.stream);
  const auto links = static_cast<std::size_t>(g_graph->nonzeros());
  index_t* link_rows = nullptr;
  BENCH_CHECK(cudaMalloc(&g_inverse, static_cast<std::size_t>(g_n) * sizeof(value_t)));
  BENCH_CHECK(cudaMalloc(&g_weights, links * sizeof(value_t)));
  BENCH_CHECK(cudaMalloc(&link_rows, links * sizeof(index_t)));
  thrust::transform(policy, g_graph->offsets() + 1, g_graph->offsets() + 1 + g_n, g_graph->offsets(), g_inverse,
                    inverse_degree{});
  scankit::sparse::csr_to_coo_rows(*g_graph, link_rows, g_gpu.stream);
  thrust::gather(policy, link_rows, link_rows + links, g_inverse, g_weights);
  const scankit::sparse::csr_view<index_t, value_t> weighted{g_n, g_n, g_graph->nonzeros(), g_graph->offsets(),
                                                             g_graph->columns(), g_weights};
  g_transposed = std::make_unique<scankit::sparse::device_csr<index_t, value_t>>(
      scankit::sparse::transpose(weighted, g_gpu.stream, &g_ws));
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  (void)cudaFree(link_rows);
  g_transition = *g_transposed;
  g_spmv = std::make_unique<scankit::sparse::spmv_plan<index_t, value_t>>(g_transition, scankit::sparse::spmv_options{},
                                                                          g_gpu.stream, &g_ws);
  g_spmv_pattern = std::make_unique<scankit::sparse::spmv_plan<index_t, value_t>>(
      scankit::sparse::csr_view<index_t, value_t>{g_n, g_n, g_transition.nonzeros, g_transition.offsets,
                                                  g_transition.columns, nullptr},
      scankit::sparse::spmv_options{}, g_gpu.stream, &g_ws);
  g_spmv_renumbered = std::make_unique<scankit::sparse::spmv_plan<index_t, value_t>>(
      g_plan->links_in(), scankit::sparse::spmv_options{}, g_gpu.stream, &g_ws);
  for (value_t** v : {&g_rank, &g_rank_cusparse, &g_other, &g_spread}) BENCH_CHECK(cudaMalloc(v, g_n * sizeof(value_t)));
  BENCH_CHECK(cudaMemset(g_rank, 0, g_n * sizeof(value_t)));
  BENCH_CHECK(cudaMalloc(&g_levels, g_n * sizeof(std::int32_t)));
  g_alg1 = std::make_unique<cusparse_product>(g_transition, g_rank, g_spread, CUSPARSE_SPMV_CSR_ALG1);
  g_alg2 = std::make_unique<cusparse_product>(g_transition, g_rank, g_spread, CUSPARSE_SPMV_CSR_ALG2);
  const auto m = g_graph->nonzeros();
  g_copy_bytes = static_cast<std::size_t>(m) * (sizeof(index_t) + sizeof(value_t)) / 2 +
                 static_cast<std::size_t>(g_n) * (sizeof(index_t) + 2 * sizeof(value_t)) / 2;
  BENCH_CHECK(cudaMalloc(&g_bytes, 2 * g_copy_bytes));
  BENCH_CHECK(cudaMemset(g_bytes, 1, 2 * g_copy_bytes));
  g_options.damping = 0.85;
  g_options.tolerance = 1e-6;
}

int print_summary() {
  auto& r = g_results;
  // The guards, after the timed runs (their outputs are the last runs').
  const auto host = g_graph->download();
  const auto expected = scankit::reference::bfs_levels(host, index_t{0});
  std::vector<std::int32_t> levels(static_cast<std::size_t>(g_n));
  BENCH_CHECK(cudaMemcpy(levels.data(), g_levels, levels.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  if (levels != expected) r.bfs_error = "levels differ from the host BFS";
  std::vector<value_t> a(static_cast<std::size_t>(g_n)), b(a.size());
  BENCH_CHECK(cudaMemcpy(a.data(), g_rank, a.size() * sizeof(value_t), cudaMemcpyDeviceToHost));
  BENCH_CHECK(cudaMemcpy(b.data(), g_rank_cusparse, b.size() * sizeof(value_t), cudaMemcpyDeviceToHost));
  double distance = 0;
  for (std::size_t v = 0; v < a.size(); ++v) distance += std::fabs(static_cast<double>(a[v]) - b[v]);
  if (!(distance < 1e-5)) r.pagerank_error = "ranks differ from the cuSPARSE loop's by " + std::to_string(distance);
  if (const char* prefix = std::getenv("SCANKIT_BENCH_DUMP_CSR")) {
    write_raw(std::string(prefix) + ".offsets.int32", g_graph->offsets(), static_cast<std::size_t>(g_n) + 1);
    write_raw(std::string(prefix) + ".columns.int32", g_graph->columns(), static_cast<std::size_t>(g_graph->nonzeros()));
    write_raw(std::string(prefix) + ".levels.int32", g_levels, static_cast<std::size_t>(g_n));
  }
  const double best = std::min(r.alg1, r.alg2);
  std::vector<scankit_bench::summary_row> rows;
  rows.push_back({"copy/" + g_tag, {r.copy, NAN, NAN}, "", "half of one product's bytes"});
  rows.push_back({"spmv/" + g_tag + "/cusparse_alg1", {r.alg1, best / r.alg1, r.copy / r.alg1}, "", ""});
  rows.push_back({"spmv/" + g_tag + "/cusparse_alg2", {r.alg2, best / r.alg2, r.copy / r.alg2}, "", ""});
  rows.push_back({"spmv/" + g_tag + "/scankit", {r.spmv, best / r.spmv, r.copy / r.spmv}, "", ""});
  rows.push_back({"spmv/" + g_tag + "/scankit_pattern", {r.pattern, best / r.pattern, r.copy / r.pattern}, "",
                  "A^T without values"});
  rows.push_back({"spmv/" + g_tag + "/scankit_renumbered", {r.renumbered, best / r.renumbered, r.copy / r.renumbered},
                  "", "A^T without values, renumbered by in-degree (pagerank's plan)"});
  rows.push_back({"bfs/" + g_tag + "/scankit", {r.bfs, NAN, NAN}, r.bfs_error,
                  std::to_string(r.gteps).substr(0, 5) + " GTEPS"});
  rows.push_back({"pagerank/" + g_tag + "/cusparse_thrust", {r.pagerank_cusparse, 1.0, NAN}, "",
                  std::to_string(r.iterations_cusparse) + " iterations"});
  rows.push_back({"pagerank/" + g_tag + "/scankit", {r.pagerank, r.pagerank_cusparse / r.pagerank, NAN},
                  r.pagerank_error,
                  std::to_string(r.iterations) + " iterations; plan " + std::to_string(r.plan).substr(0, 6) + " ms"});
  return scankit_bench::print_summary_table(36, {{"ms", 10, 3}, {"vs_cusparse", 12, 2}, {"of_copy", 8, 2}}, rows);
}

void teardown_gpu() {
  g_alg1.reset();
  g_alg2.reset();
  g_spmv.reset();
  g_spmv_pattern.reset();
  g_spmv_renumbered.reset();
  g_transposed.reset();
  g_plan.reset();
  g_graph.reset();
  for (void* p : {static_cast<void*>(g_rank), static_cast<void*>(g_rank_cusparse), static_cast<void*>(g_other),
                  static_cast<void*>(g_spread), static_cast<void*>(g_levels), static_cast<void*>(g_bytes),
                  static_cast<void*>(g_weights), static_cast<void*>(g_inverse)}) {
    if (p != nullptr) (void)cudaFree(p);
  }
  g_ws.release();
  if (g_cusparse != nullptr) (void)cusparseDestroy(g_cusparse);
  g_gpu.close();
}

}  // namespace

int main(int argc, char** argv) {
  return scankit_bench::run_benchmark_main(argc, argv,
                                           {"bench_graph", register_all, setup_gpu, print_summary, teardown_gpu});
}
