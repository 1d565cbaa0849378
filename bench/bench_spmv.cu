// bench_spmv: y = A x (alpha 1, beta 0) on CSR matrices — scankit's kernels against cuSPARSE's
// two CSR algorithms and the copy ceiling.
//
// Matrices (Google Benchmark names <matrix>/<row>; int32 indices):
//   p2d4096_f32      5-point Poisson, 4096 x 4096 grid (16.8 M rows, 83.9 M nonzeros), float
//   mdual_f32        libmetis-doc's mdual.graph (258 k rows, 1.03 M nonzeros), value 1, float
//   rmat22_f32       R-MAT scale 22, edge factor 16 (Graph500 a, b, c), duplicates summed, float
//   powerlaw_f32     2^22 rows of power-law lengths (mean ~ 7) over 2^24 columns plus one row of
//                    10 M nonzeros, float
//   halfempty_f32    2^24 rows: half empty, most of the rest of length 1, a few up to 8, float
//   p3d256_f64       7-point Poisson, 256^3 grid (16.8 M rows, 117 M nonzeros), double
//   rmat22_f64       the R-MAT matrix in double
// Rows:
//   copy             cudaMemcpyAsync D2D moving the floor's bytes (reads + writes): the offsets,
//                    columns and values of A, x once and y once
//   cusparse_alg1/2  cusparseSpMV with CUSPARSE_SPMV_CSR_ALG1 / ALG2, after cusparseSpMV_preprocess
//   merge_path       scankit::sparse::spmv with a plan forcing the merge-path kernel (column blocks
//                    chosen automatically; the counter `column_blocks`)
//   merge_path_one_block  ... and no column blocks
//   vector           ... forcing the vector kernel (width from the mean row length)
//   scankit          ... the plan's automatic choice (the counter `kernel`: 1 merge, 2 vector)
//   one_call         scankit::sparse::spmv without a plan (offsets check, statistics and the wait
//                    for them included)
//   shape_<T>x<K>[_drv|_c<P>]  the merge-path kernel in another shape (T threads, K positions per
//                    thread; the shared-memory carveout automatic, the driver's (_drv) or P percent),
//                    launched through the device layer without a plan (the partition is computed
//                    per call): for tuning, run with --benchmark_filter=shape_
// Counters: ms (median), gflops (2 nnz / time), frac_floor (copy time / this time),
// vs_cusparse (the faster cuSPARSE algorithm's time / this time), plan_ms (scankit rows: the time
// to build the plan, once, host clock around the constructor). Correctness guard: every scankit
// row's y against cuSPARSE ALG2's, relative L2 error below 1e-5 (float) / 1e-12 (double).
// With SCANKIT_SPMV_DUMP=<dir> each matrix is also written there (raw offsets, columns, values
// and a JSON line) for bench/python_spmv.py.
#include <benchmark/benchmark.h>

#include "bench_main.hpp"
#include "bench_support.cuh"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <cusparse.h>

#include "scankit/device/sparse/spmv_dispatch.cuh"
#include "scankit/sparse/csr_build.hpp"
#include "scankit/sparse/generators.hpp"
#include "scankit/sparse/matrix_market.hpp"
#include "scankit/sparse/spmv.hpp"
#include "scankit/workspace.hpp"

namespace {

using i64 = std::int64_t;
using scankit::sparse::csr_matrix_host;
using scankit::sparse::csr_view;
using scankit::sparse::spmv_kernel;
using scankit_bench::mix64;

void check_cusparse(cusparseStatus_t status, const char* call, int line) {
  if (status != CUSPARSE_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(call) + " failed at bench_spmv.cu:" + std::to_string(line) + ": " +
                             cusparseGetErrorString(status));
  }
}
#define SPARSE_CHECK(call) check_cusparse((call), #call, __LINE__)

scankit_bench::gpu_session g_gpu;  // device, stream, timing events
cusparseHandle_t g_cusparse = nullptr;
scankit::workspace* g_ws = nullptr;

template <class T>
struct device_array {
  T* p = nullptr;
  std::size_t n = 0;
  device_array() = default;
  explicit device_array(std::size_t count) : n(count) {
    if (count) BENCH_CHECK(cudaMalloc(&p, count * sizeof(T)));
  }
  explicit device_array(const std::vector<T>& host) : device_array(host.size()) {
    if (n) BENCH_CHECK(cudaMemcpy(p, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~device_array() {
    if (p) (void)cudaFree(p);
  }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  device_array(device_array&& o) noexcept : p(o.p), n(o.n) { o.p = nullptr; o.n = 0; }
  device_array& operator=(device_array&& o) noexcept {
    std::swap(p, o.p);
    std::swap(n, o.n);
    return *this;
  }
};

// ---------------------------------------------------------------------------------------------
// The matrices, made on the host and moved to the GPU (duplicates summed by coo_to_csr).

// Rows of given lengths, columns from a hash (sorted and distinct per row), values in [-1, 1).
template <class Value>
csr_matrix_host<int, Value> csr_of_lengths(const std::vector<int>& lengths, int cols, std::uint64_t seed) {
  csr_matrix_host<int, Value> a;
  a.rows = static_cast<int>(lengths.size());
  a.cols = cols;
  a.offsets.assign(lengths.size() + 1, 0);
  std::vector<int> row;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    row.clear();
    const int n = std::min(lengths[r], cols);
    if (static_cast<i64>(n) * 2 > cols) {  // dense: every column whose hash falls under n / cols
      for (int c = 0; c < cols; ++c) {
        if (mix64(seed ^ (static_cast<std::uint64_t>(r) << 32) ^ static_cast<std::uint64_t>(c)) % cols < static_cast<std::uint64_t>(n)) row.push_back(c);
      }
    } else {
      for (int k = 0; k < n; ++k) row.push_back(static_cast<int>(mix64(seed + r * 977 + k) % static_cast<std::uint64_t>(cols)));
      std::sort(row.begin(), row.end());
      row.erase(std::unique(row.begin(), row.end()), row.end());
    }
    for (int c : row) {
      a.columns.push_back(c);
      a.values.push_back(static_cast<Value>((mix64(seed * 31 + a.columns.size()) >> 11) * 0x1.0p-53 * 2.0 - 1.0));
    }
    a.offsets[r + 1] = static_cast<int>(a.columns.size());
  }
  return a;
}

const char* const kMdualPath = "/usr/share/doc/libmetis-dev/examples/graphs/mdual.graph";

template <class Value>
csr_matrix_host<int, Value> make_host_matrix(const std::string& name) {
  if (name == "p2d4096") return scankit::sparse::csr_from_sorted_coo(scankit::sparse::poisson_2d<int, Value>(4096));
  if (name == "p3d256") return scankit::sparse::csr_from_sorted_coo(scankit::sparse::poisson_3d<int, Value>(256));
  if (name == "mdual") {
    return scankit::sparse::csr_from_sorted_coo(scankit::sparse::read_metis_graph<int, Value>(kMdualPath));
  }
  std::vector<int> lengths;
  if (name == "powerlaw") {
    lengths.resize(1u << 22);
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      const double u = ((mix64(r * 7919 + 3) >> 11) + 1) * 0x1.0p-53;  // (0, 1]
      lengths[r] = static_cast<int>(std::min(std::pow(u, -1.0 / 1.2), 5000.0)) + 1;
    }
    lengths[12345] = 10'000'000;
    return csr_of_lengths<Value>(lengths, 1 << 24, 11);
  }
  if (name == "halfempty") {
    lengths.resize(1u << 24);
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      const auto h = mix64(r + 101) % 100;
      lengths[r] = h < 50 ? 0 : (h < 90 ? 1 : 2 + static_cast<int>(h % 7));
    }
    return csr_of_lengths<Value>(lengths, 1 << 24, 5);
  }
  throw std::runtime_error("unknown matrix " + name);
}

template <class Value>
struct matrix_data {
  std::string name;
  csr_matrix_host<int, Value> host;  // emptied after upload, except for the sizes
  int rows = 0, cols = 0;
  i64 nnz = 0;
  i64 max_row_length = 0;
  std::unique_ptr<scankit::sparse::device_csr<int, Value>> a;
  device_array<Value> x, y, y_ref;
  device_array<char> copy_from, copy_to;
  double floor_bytes = 0;
};

template <class Value>
std::unique_ptr<matrix_data<Value>>& current() {
  static std::unique_ptr<matrix_data<Value>> m;
  return m;
}

template <class Value>
matrix_data<Value>& matrix(const std::string& name) {
  auto& m = current<Value>();
  if (m && m->name == name) return *m;
  m.reset();
  current<float>().reset();  // one matrix on the GPU at a time
  current<double>().reset();
  auto d = std::make_unique<matrix_data<Value>>();
  d->name = name;
  if (name.rfind("rmat22", 0) == 0) {  // generated, then CSR on the GPU (duplicates summed)
    scankit::sparse::rmat_parameters p;
    p.scale = 22;
    const auto coo = scankit::sparse::rmat<int, Value>(p);
    device_array<int> r(coo.row), c(coo.col);
    device_array<Value> v(coo.value);
    d->a = std::make_unique<scankit::sparse::device_csr<int, Value>>(scankit::sparse::coo_to_csr(
        r.p, c.p, v.p, static_cast<i64>(coo.nonzeros()), coo.rows, coo.cols, g_gpu.stream, g_ws));
  } else {
    const auto h = make_host_matrix<Value>(name.substr(0, name.find('_')));
    d->a = std::make_unique<scankit::sparse::device_csr<int, Value>>(h.rows, h.cols, static_cast<i64>(h.values.size()));
    BENCH_CHECK(cudaMemcpy(d->a->offsets(), h.offsets.data(), h.offsets.size() * sizeof(int), cudaMemcpyHostToDevice));
    BENCH_CHECK(cudaMemcpy(d->a->columns(), h.columns.data(), h.columns.size() * sizeof(int), cudaMemcpyHostToDevice));
    BENCH_CHECK(cudaMemcpy(d->a->values(), h.values.data(), h.values.size() * sizeof(Value), cudaMemcpyHostToDevice));
  }
  d->rows = d->a->rows();
  d->cols = d->a->cols();
  d->nnz = d->a->nonzeros();
  d->max_row_length = scankit::sparse::analyse_rows(scankit::sparse::csr_view<int, Value>(*d->a), g_gpu.stream).max_row_length;
  std::vector<Value> x(static_cast<std::size_t>(d->cols));
  for (std::size_t j = 0; j < x.size(); ++j) x[j] = static_cast<Value>((mix64(j + 17) >> 11) * 0x1.0p-53 * 2.0 - 1.0);
  d->x = device_array<Value>(x);
  d->y = device_array<Value>(static_cast<std::size_t>(d->rows));
  d->y_ref = device_array<Value>(static_cast<std::size_t>(d->rows));
  d->floor_bytes = static_cast<double>(d->rows + 1) * sizeof(int) + static_cast<double>(d->nnz) * (sizeof(int) + sizeof(Value)) +
                   static_cast<double>(d->cols) * sizeof(Value) + static_cast<double>(d->rows) * sizeof(Value);
  const auto half = static_cast<std::size_t>(d->floor_bytes / 2);  // a copy reads and writes it
  d->copy_from = device_array<char>(half);
  d->copy_to = device_array<char>(half);
  BENCH_CHECK(cudaMemset(d->copy_from.p, 1, half));
  if (const char* dir = std::getenv("SCANKIT_SPMV_DUMP")) {
    const auto h = d->a->download();
    const std::string base = std::string(dir) + "/" + name;
    std::ofstream(base + ".offsets", std::ios::binary).write(reinterpret_cast<const char*>(h.offsets.data()), h.offsets.size() * sizeof(int));
    std::ofstream(base + ".columns", std::ios::binary).write(reinterpret_cast<const char*>(h.columns.data()), h.columns.size() * sizeof(int));
    std::ofstream(base + ".values", std::ios::binary).write(reinterpret_cast<const char*>(h.values.data()), h.values.size() * sizeof(Value));
    std::ofstream(base + ".x", std::ios::binary).write(reinterpret_cast<const char*>(x.data()), x.size() * sizeof(Value));
    std::ofstream(base + ".json") << "{\"name\": \"" << name << "\", \"rows\": " << d->rows << ", \"cols\": " << d->cols
                                  << ", \"nnz\": " << d->nnz << ", \"value_bytes\": " << sizeof(Value) << "}\n";
  }
  BENCH_CHECK(cudaDeviceSynchronize());
  m = std::move(d);
  return *m;
}

// ---------------------------------------------------------------------------------------------

using scankit_bench::summary_row;
std::vector<summary_row> g_summary;
struct anchors {
  double copy = 0, alg1 = 0, alg2 = 0;
};
std::map<std::string, anchors> g_anchors;

template <class Value>
cudaDataType cuda_type() {
  return sizeof(Value) == 4 ? CUDA_R_32F : CUDA_R_64F;
}

// A cuSPARSE SpMV set up for one algorithm (descriptors, buffer, preprocess).
template <class Value>
struct cusparse_spmv {
  cusparseSpMatDescr_t a{};
  cusparseDnVecDescr_t x{}, y{};
  cusparseSpMVAlg_t alg;
  device_array<char> buffer;
  Value one = 1, zero = 0;
  cusparse_spmv(matrix_data<Value>& m, Value* y_out, cusparseSpMVAlg_t algorithm) : alg(algorithm) {
    SPARSE_CHECK(cusparseCreateCsr(&a, m.rows, m.cols, m.nnz, m.a->offsets(), m.a->columns(), m.a->values(),
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, cuda_type<Value>()));
    SPARSE_CHECK(cusparseCreateDnVec(&x, m.cols, m.x.p, cuda_type<Value>()));
    SPARSE_CHECK(cusparseCreateDnVec(&y, m.rows, y_out, cuda_type<Value>()));
    std::size_t bytes = 0;
    SPARSE_CHECK(cusparseSpMV_bufferSize(g_cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, x, &zero, y,
                                         cuda_type<Value>(), alg, &bytes));
    buffer = device_array<char>(bytes + 1);
    SPARSE_CHECK(cusparseSpMV_preprocess(g_cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, x, &zero, y,
                                         cuda_type<Value>(), alg, buffer.p));
  }
  void run() {
    SPARSE_CHECK(cusparseSpMV(g_cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, x, &zero, y, cuda_type<Value>(),
                              alg, buffer.p));
  }
  ~cusparse_spmv() {
    (void)cusparseDestroySpMat(a);
    (void)cusparseDestroyDnVec(x);
    (void)cusparseDestroyDnVec(y);
  }
};

// Relative L2 distance of y from y_ref.
template <class Value>
double relative_error(const matrix_data<Value>& m) {
  std::vector<Value> a(static_cast<std::size_t>(m.rows)), b(a.size());
  BENCH_CHECK(cudaMemcpy(a.data(), m.y.p, a.size() * sizeof(Value), cudaMemcpyDeviceToHost));
  BENCH_CHECK(cudaMemcpy(b.data(), m.y_ref.p, b.size() * sizeof(Value), cudaMemcpyDeviceToHost));
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
    norm += static_cast<double>(b[i]) * b[i];
  }
  return norm == 0 ? std::sqrt(diff) : std::sqrt(diff / norm);
}

// The merge-path kernel in other tile shapes (docs/tuning.md).
template <class Value>
using shape_launcher = void (*)(const scankit::device_detail::spmv_arguments<int, Value>&);
template <class Policy, class Value>
void launch_shape(const scankit::device_detail::spmv_arguments<int, Value>& args) {
  scankit::device_detail::run_spmv_merge<Policy>(args, nullptr, g_gpu.stream, g_ws);
}
template <class Value>
shape_launcher<Value> shape_of(const std::string& row) {
  namespace dd = scankit::device_detail;
  constexpr int drv = dd::spmv_carveout_driver;
  if (row == "shape_256x8") return launch_shape<dd::spmv_merge_policy<256, 8>, Value>;
  if (row == "shape_256x4") return launch_shape<dd::spmv_merge_policy<256, 4>, Value>;
  if (row == "shape_256x4_drv") return launch_shape<dd::spmv_merge_policy<256, 4, drv>, Value>;
  if (row == "shape_256x4_c25") return launch_shape<dd::spmv_merge_policy<256, 4, 25>, Value>;
  if (row == "shape_256x3") return launch_shape<dd::spmv_merge_policy<256, 3>, Value>;
  if (row == "shape_512x4") return launch_shape<dd::spmv_merge_policy<512, 4>, Value>;
  if (row == "shape_512x3_c25") return launch_shape<dd::spmv_merge_policy<512, 3, 25>, Value>;
  if (row == "shape_512x2") return launch_shape<dd::spmv_merge_policy<512, 2>, Value>;
  return nullptr;
}

template <class Value>
void run_row(benchmark::State& state, const std::string& name, const std::string& row) {
  matrix_data<Value>& m = matrix<Value>(name);
  const std::string full = name + "/" + row;
  std::function<void()> launch;
  std::unique_ptr<cusparse_spmv<Value>> cs;
  std::unique_ptr<scankit::sparse::spmv_plan<int, Value>> plan;
  double plan_ms = 0;
  std::string note;
  const scankit::sparse::dense_vector<const Value> x{m.x.p, m.cols};
  const scankit::sparse::dense_vector<Value> y{m.y.p, m.rows};
  if (row == "copy") {
    launch = [&m] {
      BENCH_CHECK(cudaMemcpyAsync(m.copy_to.p, m.copy_from.p, m.copy_from.n, cudaMemcpyDeviceToDevice, g_gpu.stream));
    };
  } else if (row == "cusparse_alg1" || row == "cusparse_alg2") {
    const bool alg2 = row == "cusparse_alg2";
    cs = std::make_unique<cusparse_spmv<Value>>(m, alg2 ? m.y_ref.p : m.y.p,
                                                alg2 ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_CSR_ALG1);
    launch = [&cs] { cs->run(); };
  } else if (const auto shape = shape_of<Value>(row)) {
    const scankit::device_detail::spmv_arguments<int, Value> args{
        m.a->offsets(), m.a->columns(), m.a->values(), m.rows, m.cols, m.nnz, m.x.p, m.y.p, Value(1), Value(0)};
    launch = [shape, args] { shape(args); };
  } else if (row == "one_call") {
    launch = [&m, x, y] { scankit::sparse::spmv(Value(1), *m.a, x, Value(0), y, g_gpu.stream, g_ws); };
  } else {
    scankit::sparse::spmv_options options;
    const bool merge = row == "merge_path" || row == "merge_path_one_block";
    options.kernel = merge ? spmv_kernel::merge_path : (row == "vector" ? spmv_kernel::vector : spmv_kernel::automatic);
    if (row == "merge_path_one_block") options.column_blocks = 1;
    const auto t0 = std::chrono::steady_clock::now();
    plan = std::make_unique<scankit::sparse::spmv_plan<int, Value>>(*m.a, options, g_gpu.stream, g_ws);
    plan_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    note = std::string(scankit::sparse::to_string(plan->kernel())) +
           (plan->kernel() == spmv_kernel::vector ? " width " + std::to_string(plan->vector_width()) : "") +
           (plan->column_blocks() > 1 ? ", " + std::to_string(plan->column_blocks()) + " column blocks" : "");
    state.counters["kernel"] = plan->kernel() == spmv_kernel::merge_path ? 1 : 2;
    state.counters["column_blocks"] = plan->column_blocks();
    state.counters["plan_ms"] = plan_ms;
    launch = [&plan, x, y] { scankit::sparse::spmv(*plan, Value(1), x, Value(0), y, g_gpu.stream, g_ws); };
  }
  if (row != "copy" && row != "cusparse_alg2" && row.rfind("cusparse", 0) != 0) {
    BENCH_CHECK(cudaMemsetAsync(m.y.p, 0xff, m.rows * sizeof(Value), g_gpu.stream));  // NaN: beta = 0 must not read it
  }
  const double ms = scankit_bench::timed_median_ms(state, g_gpu.stream, g_gpu.start, g_gpu.stop, launch);
  if (row.rfind("cusparse", 0) != 0 && row != "copy") {
    const double err = relative_error(m);
    // Rounding errors of a sum grow like the square root of its length for random signs: the
    // limit grows with the longest row beyond 10^4 (the power-law matrix's 10 M row, summed by
    // the vector kernel in another order than cuSPARSE's).
    const double growth = std::max(1.0, std::sqrt(static_cast<double>(m.max_row_length) / 1e4));
    const double limit = (sizeof(Value) == 4 ? 1e-5 : 1e-12) * growth;
    if (!(err <= limit)) {
      const std::string e = "y differs from cuSPARSE ALG2's: relative L2 error " + std::to_string(err);
      g_summary.push_back({full, {}, e, note});
      state.SkipWithError(e.c_str());
      return;
    }
  }
  auto& a = g_anchors[name];
  if (row == "copy") a.copy = ms;
  if (row == "cusparse_alg1") a.alg1 = ms;
  if (row == "cusparse_alg2") a.alg2 = ms;
  const double best = a.alg1 > 0 || a.alg2 > 0 ? std::min(a.alg1 > 0 ? a.alg1 : 1e30, a.alg2 > 0 ? a.alg2 : 1e30)
                                              : std::numeric_limits<double>::quiet_NaN();  // the copy row
  const double gflops = 2.0 * static_cast<double>(m.nnz) / (ms * 1e6);
  state.counters["ms"] = ms;
  state.counters["gflops"] = gflops;
  state.counters["frac_floor"] = a.copy / ms;
  state.counters["vs_cusparse"] = best / ms;
  if (plan_ms > 0) note += ", plan " + std::to_string(plan_ms).substr(0, 6) + " ms";
  g_summary.push_back({full, {ms, gflops, a.copy / ms, best / ms}, "", note});
}

const std::vector<std::string> g_matrices = {"p2d4096_f32", "mdual_f32",  "rmat22_f32", "powerlaw_f32",
                                             "halfempty_f32", "p3d256_f64", "rmat22_f64"};
const std::vector<std::string> g_rows = {"copy",        "cusparse_alg2",   "cusparse_alg1",   "merge_path",
                                         "merge_path_one_block", "vector", "scankit", "one_call", "shape_256x8",
                                         "shape_256x4", "shape_256x4_drv", "shape_256x4_c25", "shape_256x3",
                                         "shape_512x4", "shape_512x3_c25", "shape_512x2"};

void register_all() {
  for (const std::string& name : g_matrices) {
    if (name == "mdual_f32" && !std::filesystem::exists(kMdualPath)) {
      std::fprintf(stderr, "bench_spmv: %s not found (libmetis-doc): the mdual rows are left out\n", kMdualPath);
      continue;
    }
    for (const std::string& row : g_rows) {
      const bool f64 = name.size() > 4 && name.compare(name.size() - 4, 4, "_f64") == 0;
      benchmark::RegisterBenchmark((name + "/" + row).c_str(),
                                   [name, row, f64](benchmark::State& s) {
                                     try {
                                       if (f64) {
                                         run_row<double>(s, name, row);
                                       } else {
                                         run_row<float>(s, name, row);
                                       }
                                     } catch (const std::exception& e) {
                                       g_summary.push_back({name + "/" + row, {}, e.what()});
                                       s.SkipWithError(e.what());
                                     }
                                   })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(30);
    }
  }
}

void setup_gpu() {
  g_gpu.open("bench_spmv");
  SPARSE_CHECK(cusparseCreate(&g_cusparse));
  SPARSE_CHECK(cusparseSetStream(g_cusparse, g_gpu.stream));
  g_ws = new scankit::workspace();
}

int print_summary() {
  return scankit_bench::print_summary_table(
      30, {{"ms", 9, 4}, {"GFLOP/s", 9, 1}, {"of floor", 9, 3}, {"vs cuSPARSE", 12, 3}}, g_summary);
}

void teardown_gpu() {
  current<float>().reset();
  current<double>().reset();
  g_ws->release();
  delete g_ws;
  (void)cusparseDestroy(g_cusparse);
  g_gpu.close();
}

}  // namespace

int main(int argc, char** argv) {
  return scankit_bench::run_benchmark_main(argc, argv,
                                           {"bench_spmv", register_all, setup_gpu, print_summary, teardown_gpu});
}
