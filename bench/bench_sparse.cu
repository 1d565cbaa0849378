// bench_sparse: CSR construction on the GPU — scankit against cuSPARSE and the copy ceiling.
//
// Workloads (Google Benchmark names <workload>/<row>), all on the 5-point Poisson matrix of a
// 4096 x 4096 grid (16.8 M rows, 83.9 M nonzeros, int32 indices, float values):
//   row_offsets_p2d4096        CSR row offsets from the sorted row indices
//   coo_to_csr_p2d4096_dup10   CSR from the triplets shuffled, with 10% more as duplicates
// Rows:
//   copy        cudaMemcpyAsync D2D of the row indices (row offsets) / of rows, columns and values
//               (COO to CSR): the copy ceiling
//   cusparse    cusparseXcoo2csr / the cuSPARSE route: an identity permutation, cusparseXcoosortByRow
//               (on copies of the rows and columns, made outside the timed region), the values
//               gathered by the permutation (cusparseGather), cusparseXcoo2csr. cuSPARSE keeps
//               duplicates; scankit sums them
//   scankit     scankit::sparse::row_offsets_from_sorted_rows / coo_to_csr
// Counters: ms (median), frac_copy (copy time / this time), vs_cusparse (cuSPARSE time / this).
// Correctness guard: the row offsets are compared with cuSPARSE's; coo_to_csr's nonzero count
// with the grid's.
#include <benchmark/benchmark.h>

#include "bench_main.hpp"
#include "bench_support.cuh"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <cusparse.h>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

#include "scankit/sparse/csr_build.hpp"
#include "scankit/sparse/generators.hpp"
#include "scankit/workspace.hpp"

namespace {

using i64 = std::int64_t;
using scankit_bench::mix64;

void check_cusparse(cusparseStatus_t status, const char* call, int line) {
  if (status != CUSPARSE_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(call) + " failed at bench_sparse.cu:" + std::to_string(line) + ": " +
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
  explicit device_array(std::size_t count) { allocate(count); }
  ~device_array() {
    if (p) (void)cudaFree(p);
  }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  void allocate(std::size_t count) {
    if (p) BENCH_CHECK(cudaFree(p));
    p = nullptr;
    n = count;
    if (count) BENCH_CHECK(cudaMalloc(&p, count * sizeof(T)));
  }
};

// The triplets of the shuffled workload: entry k of the original for k < nnz, a random one of
// them (a duplicate) after that; then a sort by random keys shuffles them.
__global__ void duplicate_kernel(const int* rows, const int* cols, const float* values, i64 nnz, i64 total, int* out_rows,
                                 int* out_cols, float* out_values, std::uint64_t* shuffle_keys) {
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 k = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; k < total; k += stride) {
    const i64 from = k < nnz ? k : static_cast<i64>(mix64(static_cast<std::uint64_t>(k)) % static_cast<std::uint64_t>(nnz));
    out_rows[k] = rows[from];
    out_cols[k] = cols[from];
    out_values[k] = values[from];
    shuffle_keys[k] = mix64(static_cast<std::uint64_t>(k) ^ 0xabcdefull);
  }
}

struct matrix_data {
  int n_rows = 0;
  i64 nnz = 0, total = 0;  // total: triplets of the shuffled workload
  device_array<int> rows, cols, shuffled_rows, shuffled_cols, work_rows, work_cols, offsets, cusparse_offsets, permutation;
  device_array<float> values, shuffled_values, gathered;
  device_array<char> cusparse_buffer;
};
std::unique_ptr<matrix_data> g_matrix;

matrix_data& matrix() {
  if (g_matrix) return *g_matrix;
  const auto coo = scankit::sparse::poisson_2d<std::int32_t, float>(4096);
  auto m = std::make_unique<matrix_data>();
  m->n_rows = coo.rows;
  m->nnz = static_cast<i64>(coo.nonzeros());
  m->total = m->nnz + m->nnz / 10;
  m->rows.allocate(m->nnz);
  m->cols.allocate(m->nnz);
  m->values.allocate(m->nnz);
  BENCH_CHECK(cudaMemcpy(m->rows.p, coo.row.data(), m->nnz * sizeof(int), cudaMemcpyHostToDevice));
  BENCH_CHECK(cudaMemcpy(m->cols.p, coo.col.data(), m->nnz * sizeof(int), cudaMemcpyHostToDevice));
  BENCH_CHECK(cudaMemcpy(m->values.p, coo.value.data(), m->nnz * sizeof(float), cudaMemcpyHostToDevice));
  for (device_array<int>* a : {&m->shuffled_rows, &m->shuffled_cols, &m->work_rows, &m->work_cols, &m->permutation}) {
    a->allocate(m->total);
  }
  m->shuffled_values.allocate(m->total);
  m->gathered.allocate(m->total);
  m->offsets.allocate(static_cast<std::size_t>(m->n_rows) + 1);
  m->cusparse_offsets.allocate(static_cast<std::size_t>(m->n_rows) + 1);
  device_array<std::uint64_t> shuffle_keys(m->total);
  duplicate_kernel<<<1024, 256, 0, g_gpu.stream>>>(m->rows.p, m->cols.p, m->values.p, m->nnz, m->total, m->shuffled_rows.p,
                                               m->shuffled_cols.p, m->shuffled_values.p, shuffle_keys.p);
  BENCH_CHECK(cudaGetLastError());
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  // Shuffle: sort the three arrays by the random keys (set-up, not timed).
  device_array<int> order(m->total);
  thrust::sequence(thrust::device, order.p, order.p + m->total);
  thrust::sort_by_key(thrust::device, shuffle_keys.p, shuffle_keys.p + m->total, order.p);
  thrust::gather(thrust::device, order.p, order.p + m->total, m->shuffled_rows.p, m->work_rows.p);
  thrust::gather(thrust::device, order.p, order.p + m->total, m->shuffled_cols.p, m->work_cols.p);
  thrust::gather(thrust::device, order.p, order.p + m->total, m->shuffled_values.p, m->gathered.p);
  BENCH_CHECK(cudaMemcpy(m->shuffled_rows.p, m->work_rows.p, m->total * sizeof(int), cudaMemcpyDeviceToDevice));
  BENCH_CHECK(cudaMemcpy(m->shuffled_cols.p, m->work_cols.p, m->total * sizeof(int), cudaMemcpyDeviceToDevice));
  BENCH_CHECK(cudaMemcpy(m->shuffled_values.p, m->gathered.p, m->total * sizeof(float), cudaMemcpyDeviceToDevice));
  std::size_t buffer_bytes = 0;
  SPARSE_CHECK(cusparseXcoosort_bufferSizeExt(g_cusparse, m->n_rows, m->n_rows, static_cast<int>(m->total),
                                              m->shuffled_rows.p, m->shuffled_cols.p, &buffer_bytes));
  m->cusparse_buffer.allocate(buffer_bytes + 1);
  BENCH_CHECK(cudaDeviceSynchronize());
  g_matrix = std::move(m);
  return *g_matrix;
}

using scankit_bench::summary_row;
std::vector<summary_row> g_summary;
std::map<std::string, std::pair<double, double>> g_anchors;  // copy, cusparse


// The cuSPARSE route from shuffled COO: sort by row (in place, on the work copies), gather the
// values by the permutation, row offsets.
void cusparse_coo_to_csr(matrix_data& m) {
  const int total = static_cast<int>(m.total);
  thrust::sequence(thrust::cuda::par.on(g_gpu.stream), m.permutation.p, m.permutation.p + total);  // the identity
  SPARSE_CHECK(cusparseXcoosortByRow(g_cusparse, m.n_rows, m.n_rows, total, m.work_rows.p, m.work_cols.p,
                                     m.permutation.p, m.cusparse_buffer.p));
  cusparseSpVecDescr_t sorted;
  cusparseDnVecDescr_t source;
  SPARSE_CHECK(cusparseCreateSpVec(&sorted, total, total, m.permutation.p, m.gathered.p, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  SPARSE_CHECK(cusparseCreateDnVec(&source, total, m.shuffled_values.p, CUDA_R_32F));
  SPARSE_CHECK(cusparseGather(g_cusparse, source, sorted));
  SPARSE_CHECK(cusparseDestroySpVec(sorted));
  SPARSE_CHECK(cusparseDestroyDnVec(source));
  SPARSE_CHECK(cusparseXcoo2csr(g_cusparse, m.work_rows.p, total, m.n_rows, m.cusparse_offsets.p,
                                CUSPARSE_INDEX_BASE_ZERO));
}

void run_row(benchmark::State& state, const std::string& workload, const std::string& row) {
  matrix_data& m = matrix();
  const bool offsets = workload == "row_offsets_p2d4096";
  std::function<void()> launch, before;  // before: untimed set-up of each iteration
  if (row == "copy") {
    launch = offsets ? std::function<void()>([&m] {
      BENCH_CHECK(cudaMemcpyAsync(m.work_rows.p, m.rows.p, m.nnz * sizeof(int), cudaMemcpyDeviceToDevice, g_gpu.stream));
    })
                     : std::function<void()>([&m] {
                         BENCH_CHECK(cudaMemcpyAsync(m.work_rows.p, m.shuffled_rows.p, m.total * sizeof(int),
                                                     cudaMemcpyDeviceToDevice, g_gpu.stream));
                         BENCH_CHECK(cudaMemcpyAsync(m.work_cols.p, m.shuffled_cols.p, m.total * sizeof(int),
                                                     cudaMemcpyDeviceToDevice, g_gpu.stream));
                         BENCH_CHECK(cudaMemcpyAsync(m.gathered.p, m.shuffled_values.p, m.total * sizeof(float),
                                                     cudaMemcpyDeviceToDevice, g_gpu.stream));
                       });
  } else if (row == "cusparse") {
    if (offsets) {
      launch = [&m] {
        SPARSE_CHECK(cusparseXcoo2csr(g_cusparse, m.rows.p, static_cast<int>(m.nnz), m.n_rows, m.cusparse_offsets.p,
                                      CUSPARSE_INDEX_BASE_ZERO));
      };
    } else {
      before = [&m] {
        BENCH_CHECK(cudaMemcpyAsync(m.work_rows.p, m.shuffled_rows.p, m.total * sizeof(int), cudaMemcpyDeviceToDevice,
                                    g_gpu.stream));
        BENCH_CHECK(cudaMemcpyAsync(m.work_cols.p, m.shuffled_cols.p, m.total * sizeof(int), cudaMemcpyDeviceToDevice,
                                    g_gpu.stream));
      };
      launch = [&m] { cusparse_coo_to_csr(m); };
    }
  } else {
    if (offsets) {
      launch = [&m] {
        scankit::sparse::row_offsets_from_sorted_rows(m.rows.p, m.nnz, m.n_rows, m.offsets.p, g_gpu.stream);
      };
      // Guard: the same offsets as cuSPARSE's.
      SPARSE_CHECK(cusparseXcoo2csr(g_cusparse, m.rows.p, static_cast<int>(m.nnz), m.n_rows, m.cusparse_offsets.p,
                                    CUSPARSE_INDEX_BASE_ZERO));
      BENCH_CHECK(cudaMemsetAsync(m.offsets.p, 0xA5, (m.n_rows + 1) * sizeof(int), g_gpu.stream));
      launch();
      std::vector<int> a(m.n_rows + 1), b(m.n_rows + 1);
      BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
      BENCH_CHECK(cudaMemcpy(a.data(), m.offsets.p, a.size() * sizeof(int), cudaMemcpyDeviceToHost));
      BENCH_CHECK(cudaMemcpy(b.data(), m.cusparse_offsets.p, b.size() * sizeof(int), cudaMemcpyDeviceToHost));
      if (a != b) {
        g_summary.push_back({workload + "/" + row, {}, "offsets differ from cuSPARSE's"});
        state.SkipWithError("offsets differ from cuSPARSE's");
        return;
      }
    } else {
      launch = [&m] {
        const auto csr = scankit::sparse::coo_to_csr(m.shuffled_rows.p, m.shuffled_cols.p, m.shuffled_values.p, m.total,
                                                     m.n_rows, m.n_rows, g_gpu.stream, g_ws);
        if (csr.nonzeros() != m.nnz) throw std::runtime_error("coo_to_csr: wrong number of nonzeros");
      };
    }
  }
  const double ms = scankit_bench::timed_median_ms(state, g_gpu.stream, g_gpu.start, g_gpu.stop, launch, before);
  auto& a = g_anchors[workload];
  if (row == "copy") a.first = ms;
  if (row == "cusparse") a.second = ms;
  state.counters["ms"] = ms;
  state.counters["frac_copy"] = a.first / ms;
  state.counters["vs_cusparse"] = a.second / ms;
  g_summary.push_back({workload + "/" + row, {ms, a.first / ms, a.second / ms}, ""});
}

void register_all() {
  for (const char* workload : {"row_offsets_p2d4096", "coo_to_csr_p2d4096_dup10"}) {
    for (const char* row : {"copy", "cusparse", "scankit"}) {
      const std::string w = workload, r = row;
      benchmark::RegisterBenchmark((w + "/" + r).c_str(),
                                   [w, r](benchmark::State& s) {
                                     try {
                                       run_row(s, w, r);
                                     } catch (const std::exception& e) {
                                       g_summary.push_back({w + "/" + r, {}, e.what()});
                                       s.SkipWithError(e.what());
                                     }
                                   })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(20);
    }
  }
}

void setup_gpu() {
  g_gpu.open("bench_sparse");
  SPARSE_CHECK(cusparseCreate(&g_cusparse));
  SPARSE_CHECK(cusparseSetStream(g_cusparse, g_gpu.stream));
  g_ws = new scankit::workspace();
}

int print_summary() {
  return scankit_bench::print_summary_table(40, {{"ms", 10, 4}, {"of copy", 10, 3}, {"vs cuSPARSE", 12, 3}},
                                            g_summary);
}

void teardown_gpu() {
  g_matrix.reset();
  g_ws->release();
  delete g_ws;
  (void)cusparseDestroy(g_cusparse);
  g_gpu.close();
}

}  // namespace

int main(int argc, char** argv) {
  return scankit_bench::run_benchmark_main(argc, argv,
                                           {"bench_sparse", register_all, setup_gpu, print_summary, teardown_gpu});
}
