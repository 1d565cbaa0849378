// bench_cg: conjugate gradient on the GPU — scankit against the same loop written with cuSPARSE
// and cuBLAS.
//
// Workload: the 5-point Poisson matrix of a 2048 x 2048 grid (4.2 M rows, 21 M nonzeros, int32
// indices, float values), a random right-hand side, x = 0 at the start, 100 iterations (tolerance
// 0, so every solve runs all of them). Each timed run is one whole solve: the initial residual and
// the 100 iterations, including every wait for the host.
// Rows (Google Benchmark names cg_p2d2048_f32/<row>):
//   cusparse_cublas_host_ptr    the loop of the CUDA samples' conjugateGradient: cusparseSpMV, then
//                               cublasSdot / Saxpy / Sscal with scalars in host memory
//                               (CUBLAS_POINTER_MODE_HOST: each Sdot waits for the device, two
//                               waits per iteration)
//   cusparse_cublas_device_ptr  the same with scalars in device memory (CUBLAS_POINTER_MODE_DEVICE;
//                               alpha and beta worked out by a one-thread kernel) and one wait per
//                               iteration, for r.r (the convergence test)
//   scankit                     scankit::sparse::conjugate_gradient on an spmv_plan made beforehand
// cuSPARSE's SpMV algorithm: CSR_ALG1 and CSR_ALG2 are both timed on this matrix (20 products
// each, after cusparseSpMV_preprocess on a descriptor of their own) before the rows run, and the
// faster one serves both anchor rows; the JSON context and the summary name it. cuSPARSE's pointer
// mode stays host (its alpha and beta are constants).
// Counters: ms (median time of one solve), ms_per_iteration (ms / 100), vs_host_ptr and
// vs_device_ptr (the anchor row's time / this row's: > 1 means faster than it), rel_residual
// (||r|| / ||b|| after the solve, of the updated residual; the anchors compute theirs with Sdot).
// Correctness guard: the three rows' relative residuals after 100 iterations must agree within a
// factor of 1.25, and so must the true residuals ||b - A x|| / ||b|| of their x (recomputed with
// cuSPARSE); a row that disagrees is skipped with an error.
#include <benchmark/benchmark.h>

#include "bench_main.hpp"
#include "bench_support.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include "scankit/sparse/conjugate_gradient.hpp"
#include "scankit/sparse/csr_build.hpp"
#include "scankit/sparse/generators.hpp"
#include "scankit/sparse/spmv.hpp"
#include "scankit/workspace.hpp"

namespace {

using i64 = std::int64_t;
using scankit_bench::mix64;

constexpr int grid_size = 2048;
constexpr int cg_iterations = 100;
const std::string workload = "cg_p2d2048_f32";

void check_cusparse(cusparseStatus_t status, const char* call, int line) {
  if (status != CUSPARSE_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(call) + " failed at bench_cg.cu:" + std::to_string(line) + ": " +
                             cusparseGetErrorString(status));
  }
}
void check_cublas(cublasStatus_t status, const char* call, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(call) + " failed at bench_cg.cu:" + std::to_string(line) + ": " +
                             cublasGetStatusString(status));
  }
}
#define SPARSE_CHECK(call) check_cusparse((call), #call, __LINE__)
#define BLAS_CHECK(call) check_cublas((call), #call, __LINE__)

scankit_bench::gpu_session g_gpu;  // device, stream, timing events
cusparseHandle_t g_cusparse = nullptr;
cublasHandle_t g_cublas = nullptr;
scankit::workspace* g_ws = nullptr;

template <class T>
struct device_array {
  T* p = nullptr;
  explicit device_array(std::size_t count) {
    if (count) BENCH_CHECK(cudaMalloc(&p, count * sizeof(T)));
  }
  ~device_array() {
    if (p) (void)cudaFree(p);
  }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
};

// b[i] uniform in [-1, 1), from a hash of i.
__global__ void random_rhs_kernel(float* b, i64 n) {
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    b[i] = static_cast<float>(mix64(static_cast<std::uint64_t>(i)) >> 40) * (2.0f / 16777216.0f) - 1.0f;
  }
}

// The device-pointer-mode loop's scalars: alpha = rr / pap (and -alpha), beta = rr_new / rr.
struct anchor_scalars {
  float rr, rr_new, pap, alpha, minus_alpha, beta, one;
};
__global__ void alpha_kernel(anchor_scalars* s) {
  s->alpha = s->rr / s->pap;
  s->minus_alpha = -s->alpha;
}
__global__ void beta_kernel(anchor_scalars* s) {
  s->beta = s->rr_new / s->rr;
  s->rr = s->rr_new;
}

const cusparseSpMVAlg_t algorithms[2] = {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};

struct cg_problem {
  int n = 0;
  i64 nnz = 0;
  scankit::sparse::device_csr<std::int32_t, float> a;
  std::unique_ptr<scankit::sparse::spmv_plan<std::int32_t, float>> plan;
  std::unique_ptr<device_array<float>> b, x, r, p, ap, check;
  std::unique_ptr<device_array<anchor_scalars>> scalars;
  // One matrix descriptor and buffer per algorithm (index into `algorithms`): each keeps its own
  // cusparseSpMV_preprocess analysis.
  std::unique_ptr<device_array<char>> cusparse_buffer[2];
  cusparseSpMatDescr_t mat[2] = {nullptr, nullptr};
  cusparseDnVecDescr_t vec_x = nullptr, vec_r = nullptr, vec_p = nullptr, vec_ap = nullptr, vec_check = nullptr;
  int alg = 0;  // the faster one
  float b_norm = 0;
};
std::unique_ptr<cg_problem> g_problem;

using scankit_bench::summary_row;  // values: ms per solve, vs host_ptr, vs dev_ptr, residual
std::vector<summary_row> g_summary;
double g_host_ms = 0, g_device_ms = 0;                  // the anchors' solve times
std::map<std::string, std::pair<double, double>> g_residuals;  // row -> (updated, true) relative residual

void spmv_cusparse(cg_problem& m, float alpha, cusparseDnVecDescr_t in, float beta, cusparseDnVecDescr_t out) {
  SPARSE_CHECK(cusparseSpMV(g_cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, m.mat[m.alg], in, &beta, out,
                            CUDA_R_32F, algorithms[m.alg], m.cusparse_buffer[m.alg]->p));
}

// Times 20 products with each CSR algorithm and keeps the faster one (set-up, not a row).
int faster_spmv_algorithm(cg_problem& m) {
  int best = 0;
  double best_ms = 0;
  for (int alg = 0; alg < 2; ++alg) {
    m.alg = alg;
    spmv_cusparse(m, 1, m.vec_p, 0, m.vec_ap);
    const double ms = scankit_bench::event_time_ms(g_gpu.stream, g_gpu.start, g_gpu.stop, [&] {
      for (int k = 0; k < 20; ++k) spmv_cusparse(m, 1, m.vec_p, 0, m.vec_ap);
    });
    if (alg == 0 || ms < best_ms) {
      best_ms = ms;
      best = alg;
    }
  }
  return best;
}

const char* algorithm_name(int alg) { return alg == 1 ? "CSR_ALG2" : "CSR_ALG1"; }

cg_problem& problem() {
  if (g_problem) return *g_problem;
  auto m = std::make_unique<cg_problem>();
  {
    const auto coo = scankit::sparse::poisson_2d<std::int32_t, float>(grid_size);
    m->n = coo.rows;
    m->nnz = static_cast<i64>(coo.nonzeros());
    device_array<std::int32_t> rows(m->nnz), cols(m->nnz);
    device_array<float> values(m->nnz);
    BENCH_CHECK(cudaMemcpy(rows.p, coo.row.data(), m->nnz * sizeof(std::int32_t), cudaMemcpyHostToDevice));
    BENCH_CHECK(cudaMemcpy(cols.p, coo.col.data(), m->nnz * sizeof(std::int32_t), cudaMemcpyHostToDevice));
    BENCH_CHECK(cudaMemcpy(values.p, coo.value.data(), m->nnz * sizeof(float), cudaMemcpyHostToDevice));
    m->a = scankit::sparse::coo_to_csr(rows.p, cols.p, values.p, m->nnz, coo.rows, coo.cols, g_gpu.stream, g_ws);
    BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  }
  m->plan = std::make_unique<scankit::sparse::spmv_plan<std::int32_t, float>>(m->a, scankit::sparse::spmv_options{},
                                                                               g_gpu.stream, g_ws);
  for (auto* v : {&m->b, &m->x, &m->r, &m->p, &m->ap, &m->check}) *v = std::make_unique<device_array<float>>(m->n);
  m->scalars = std::make_unique<device_array<anchor_scalars>>(1);
  random_rhs_kernel<<<1024, 256, 0, g_gpu.stream>>>(m->b->p, m->n);
  BENCH_CHECK(cudaGetLastError());
  BENCH_CHECK(cudaMemsetAsync(m->p->p, 0, m->n * sizeof(float), g_gpu.stream));
  SPARSE_CHECK(cusparseCreateDnVec(&m->vec_x, m->n, m->x->p, CUDA_R_32F));
  SPARSE_CHECK(cusparseCreateDnVec(&m->vec_r, m->n, m->r->p, CUDA_R_32F));
  SPARSE_CHECK(cusparseCreateDnVec(&m->vec_p, m->n, m->p->p, CUDA_R_32F));
  SPARSE_CHECK(cusparseCreateDnVec(&m->vec_ap, m->n, m->ap->p, CUDA_R_32F));
  SPARSE_CHECK(cusparseCreateDnVec(&m->vec_check, m->n, m->check->p, CUDA_R_32F));
  for (int alg = 0; alg < 2; ++alg) {
    SPARSE_CHECK(cusparseCreateCsr(&m->mat[alg], m->n, m->n, m->nnz, const_cast<std::int32_t*>(m->a.offsets()),
                                   const_cast<std::int32_t*>(m->a.columns()), const_cast<float*>(m->a.values()),
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    const float one = 1, zero = 0;
    std::size_t bytes = 0;
    SPARSE_CHECK(cusparseSpMV_bufferSize(g_cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m->mat[alg], m->vec_p, &zero,
                                         m->vec_ap, CUDA_R_32F, algorithms[alg], &bytes));
    m->cusparse_buffer[alg] = std::make_unique<device_array<char>>(bytes + 1);
    SPARSE_CHECK(cusparseSpMV_preprocess(g_cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, m->mat[alg], m->vec_p, &zero,
                                         m->vec_ap, CUDA_R_32F, algorithms[alg], m->cusparse_buffer[alg]->p));
  }
  m->alg = faster_spmv_algorithm(*m);
  benchmark::AddCustomContext("cusparse_spmv_alg", algorithm_name(m->alg));
  BLAS_CHECK(cublasSnrm2(g_cublas, m->n, m->b->p, 1, &m->b_norm));  // host pointer mode: waits
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  g_problem = std::move(m);
  return *g_problem;
}

// The anchors' common start: r = b - A x, p = r.
void anchor_start(cg_problem& m) {
  BENCH_CHECK(cudaMemcpyAsync(m.r->p, m.b->p, m.n * sizeof(float), cudaMemcpyDeviceToDevice, g_gpu.stream));
  spmv_cusparse(m, -1, m.vec_x, 1, m.vec_r);
  BLAS_CHECK(cublasScopy(g_cublas, m.n, m.r->p, 1, m.p->p, 1));
}

// The CUDA samples' loop: scalars on the host. Returns ||r|| / ||b||.
double cg_host_pointers(cg_problem& m) {
  anchor_start(m);
  BLAS_CHECK(cublasSetPointerMode(g_cublas, CUBLAS_POINTER_MODE_HOST));
  float rr = 0, pap = 0, rr_new = 0;
  const float one = 1;
  BLAS_CHECK(cublasSdot(g_cublas, m.n, m.r->p, 1, m.r->p, 1, &rr));
  for (int k = 0; k < cg_iterations; ++k) {
    spmv_cusparse(m, 1, m.vec_p, 0, m.vec_ap);
    BLAS_CHECK(cublasSdot(g_cublas, m.n, m.p->p, 1, m.ap->p, 1, &pap));
    const float alpha = rr / pap, minus_alpha = -alpha;
    BLAS_CHECK(cublasSaxpy(g_cublas, m.n, &alpha, m.p->p, 1, m.x->p, 1));
    BLAS_CHECK(cublasSaxpy(g_cublas, m.n, &minus_alpha, m.ap->p, 1, m.r->p, 1));
    BLAS_CHECK(cublasSdot(g_cublas, m.n, m.r->p, 1, m.r->p, 1, &rr_new));
    const float beta = rr_new / rr;
    rr = rr_new;
    BLAS_CHECK(cublasSscal(g_cublas, m.n, &beta, m.p->p, 1));
    BLAS_CHECK(cublasSaxpy(g_cublas, m.n, &one, m.r->p, 1, m.p->p, 1));
  }
  return std::sqrt(static_cast<double>(rr)) / m.b_norm;
}

// Scalars on the device; one wait per iteration, for r.r.
double cg_device_pointers(cg_problem& m) {
  anchor_start(m);
  anchor_scalars* s = m.scalars->p;
  const anchor_scalars initial{0, 0, 0, 0, 0, 0, 1};
  BENCH_CHECK(cudaMemcpyAsync(s, &initial, sizeof(initial), cudaMemcpyHostToDevice, g_gpu.stream));
  BLAS_CHECK(cublasSetPointerMode(g_cublas, CUBLAS_POINTER_MODE_DEVICE));
  BLAS_CHECK(cublasSdot(g_cublas, m.n, m.r->p, 1, m.r->p, 1, &s->rr));
  float rr = 0;
  for (int k = 0; k < cg_iterations; ++k) {
    spmv_cusparse(m, 1, m.vec_p, 0, m.vec_ap);  // cuSPARSE keeps host pointer mode for its own scalars
    BLAS_CHECK(cublasSdot(g_cublas, m.n, m.p->p, 1, m.ap->p, 1, &s->pap));
    alpha_kernel<<<1, 1, 0, g_gpu.stream>>>(s);
    BLAS_CHECK(cublasSaxpy(g_cublas, m.n, &s->alpha, m.p->p, 1, m.x->p, 1));
    BLAS_CHECK(cublasSaxpy(g_cublas, m.n, &s->minus_alpha, m.ap->p, 1, m.r->p, 1));
    BLAS_CHECK(cublasSdot(g_cublas, m.n, m.r->p, 1, m.r->p, 1, &s->rr_new));
    beta_kernel<<<1, 1, 0, g_gpu.stream>>>(s);
    BLAS_CHECK(cublasSscal(g_cublas, m.n, &s->beta, m.p->p, 1));
    BLAS_CHECK(cublasSaxpy(g_cublas, m.n, &s->one, m.r->p, 1, m.p->p, 1));
    BENCH_CHECK(cudaMemcpyAsync(&rr, &s->rr, sizeof(float), cudaMemcpyDeviceToHost, g_gpu.stream));
    BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));  // the convergence test's wait
  }
  BENCH_CHECK(cudaGetLastError());
  BLAS_CHECK(cublasSetPointerMode(g_cublas, CUBLAS_POINTER_MODE_HOST));
  return std::sqrt(static_cast<double>(rr)) / m.b_norm;
}

double cg_scankit(cg_problem& m) {
  scankit::sparse::cg_options options;
  options.max_iterations = cg_iterations;
  options.tolerance = 0.0;
  const auto result = scankit::sparse::conjugate_gradient(*m.plan, {m.b->p, m.n}, {m.x->p, m.n}, options, g_gpu.stream, g_ws);
  if (result.iterations != cg_iterations) {
    throw std::runtime_error("scankit CG stopped after " + std::to_string(result.iterations) + " iterations");
  }
  return result.relative_residual;
}

// ||b - A x|| / ||b|| of the current x, with cuSPARSE and cuBLAS (waits).
double true_relative_residual(cg_problem& m) {
  BENCH_CHECK(cudaMemcpyAsync(m.check->p, m.b->p, m.n * sizeof(float), cudaMemcpyDeviceToDevice, g_gpu.stream));
  spmv_cusparse(m, -1, m.vec_x, 1, m.vec_check);
  BLAS_CHECK(cublasSetPointerMode(g_cublas, CUBLAS_POINTER_MODE_HOST));
  float norm = 0;
  BLAS_CHECK(cublasSnrm2(g_cublas, m.n, m.check->p, 1, &norm));
  return static_cast<double>(norm) / m.b_norm;
}

bool agree(double a, double b) { return a > 0 && b > 0 && a / b < 1.25 && b / a < 1.25; }

void run_row(benchmark::State& state, const std::string& row) {
  cg_problem& m = problem();
  std::function<double()> solve = row == "cusparse_cublas_host_ptr"     ? std::function<double()>([&m] { return cg_host_pointers(m); })
                                  : row == "cusparse_cublas_device_ptr" ? std::function<double()>([&m] { return cg_device_pointers(m); })
                                                                        : std::function<double()>([&m] { return cg_scankit(m); });
  const auto reset_x = [&m] { BENCH_CHECK(cudaMemsetAsync(m.x->p, 0, m.n * sizeof(float), g_gpu.stream)); };

  // Guard: one untimed solve, its residuals beside the rows run before it.
  reset_x();
  const double residual = solve();
  const double true_residual = true_relative_residual(m);
  for (const auto& [other, residuals] : g_residuals) {
    if (!agree(residual, residuals.first) || !agree(true_residual, residuals.second)) {
      const std::string what = "residuals after " + std::to_string(cg_iterations) + " iterations " +
                               std::to_string(residual) + " (true " + std::to_string(true_residual) + ") against " +
                               other + "'s " + std::to_string(residuals.first) + " (true " +
                               std::to_string(residuals.second) + ")";
      g_summary.push_back({workload + "/" + row, {}, what});
      state.SkipWithError(what.c_str());
      return;
    }
  }
  g_residuals[row] = {residual, true_residual};

  const double ms = scankit_bench::timed_median_ms(state, g_gpu.stream, g_gpu.start, g_gpu.stop, [&] { (void)solve(); }, reset_x);
  if (row == "cusparse_cublas_host_ptr") g_host_ms = ms;
  if (row == "cusparse_cublas_device_ptr") g_device_ms = ms;
  state.counters["ms"] = ms;
  state.counters["ms_per_iteration"] = ms / cg_iterations;
  state.counters["vs_host_ptr"] = g_host_ms / ms;
  state.counters["vs_device_ptr"] = g_device_ms / ms;
  state.counters["rel_residual"] = residual;
  g_summary.push_back({workload + "/" + row, {ms, g_host_ms / ms, g_device_ms / ms, residual}, ""});
}

void register_all() {
  for (const char* row : {"cusparse_cublas_host_ptr", "cusparse_cublas_device_ptr", "scankit"}) {
    const std::string r = row;
    benchmark::RegisterBenchmark((workload + "/" + r).c_str(),
                                 [r](benchmark::State& s) {
                                   try {
                                     run_row(s, r);
                                   } catch (const std::exception& e) {
                                     g_summary.push_back({workload + "/" + r, {}, e.what()});
                                     s.SkipWithError(e.what());
                                   }
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(5);
  }
}

void setup_gpu() {
  g_gpu.open("bench_cg");
  SPARSE_CHECK(cusparseCreate(&g_cusparse));
  SPARSE_CHECK(cusparseSetStream(g_cusparse, g_gpu.stream));
  BLAS_CHECK(cublasCreate(&g_cublas));
  BLAS_CHECK(cublasSetStream(g_cublas, g_gpu.stream));
  g_ws = new scankit::workspace();
  (void)problem();  // here, so that the chosen cuSPARSE algorithm lands in the JSON context
}

int print_summary() {
  std::printf("\n%d iterations of CG per solve; cuSPARSE SpMV algorithm: %s\n", cg_iterations,
              g_problem ? algorithm_name(g_problem->alg) : "(not run)");
  // Per iteration, and the true residual beside the updated one.
  std::vector<summary_row> rows = g_summary;
  for (summary_row& r : rows) {
    if (!r.error.empty()) continue;
    r.values[0] /= cg_iterations;
    r.values.push_back(g_residuals[r.name.substr(workload.size() + 1)].second);
  }
  return scankit_bench::print_summary_table(
      42, {{"ms/iter", 10, 4}, {"vs host_ptr", 12, 3}, {"vs dev_ptr", 12, 3}, {"residual", 12, 4, 'e'},
           {"true res.", 12, 4, 'e'}},
      rows);
}

void teardown_gpu() {
  if (g_problem) {
    for (cusparseDnVecDescr_t v : {g_problem->vec_x, g_problem->vec_r, g_problem->vec_p, g_problem->vec_ap, g_problem->vec_check}) {
      (void)cusparseDestroyDnVec(v);
    }
    for (cusparseSpMatDescr_t a : g_problem->mat) (void)cusparseDestroySpMat(a);
  }
  g_problem.reset();
  g_ws->release();
  delete g_ws;
  (void)cublasDestroy(g_cublas);
  (void)cusparseDestroy(g_cusparse);
  g_gpu.close();
}

}  // namespace

int main(int argc, char** argv) {
  return scankit_bench::run_benchmark_main(argc, argv, {"bench_cg", register_all, setup_gpu, print_summary, teardown_gpu});
}
