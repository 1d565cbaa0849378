// `scankit spmv`: reads a Matrix Market file or a METIS graph (or generates a matrix), builds its
// CSR on the GPU, runs y = A x with every SpMV kernel and with cuSPARSE's two CSR algorithms,
// checks each result against the host product (Eigen's where Eigen was found at build time) and
// prints GFLOP/s and the ratios. Plain C++ (g++) on the precompiled API; options by CLI11.
//
//   scankit spmv                                 the 5-point Poisson matrix of a 1024^2 grid
//   scankit spmv --generate poisson2d:4096       83.9 M nonzeros
//   scankit spmv --generate rmat:22 --double
//   scankit spmv /usr/share/doc/libmetis-dev/examples/graphs/mdual.graph
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include "matrix_source.hpp"
#include "command_line.hpp"
#include "scankit/error.hpp"
#include "scankit/scan.hpp"  // cuda_device_available
#include "scankit/sparse/csr_build.hpp"
#include "scankit/sparse/spmv.hpp"

#if SCANKIT_APP_WITH_EIGEN
#include <Eigen/SparseCore>
#endif

namespace {

using scankit::apps::app_coo;

[[noreturn]] void fail(const std::string& message) { throw scankit::error("scankit spmv: " + message); }

void check_cusparse(cusparseStatus_t status, const char* call) {
  if (status != CUSPARSE_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("scankit spmv: ") + call + ": " + cusparseGetErrorString(status));
  }
}
#define APP_CUSPARSE(call) check_cusparse((call), #call)

template <class T>
struct device_vector {
  T* p = nullptr;
  explicit device_vector(std::size_t n) {
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p), std::max<std::size_t>(n, 1) * sizeof(T)));
  }
  ~device_vector() { (void)cudaFree(p); }
  device_vector(const device_vector&) = delete;
  device_vector& operator=(const device_vector&) = delete;
};

// The host product in double (Eigen's when available) and each row's sum of |a_rk x_k|.
void host_product(const app_coo& coo, const std::vector<double>& x, std::vector<double>& y,
                  std::vector<double>& magnitude, std::vector<std::int64_t>& count) {
  y.assign(static_cast<std::size_t>(coo.rows), 0.0);
  magnitude.assign(y.size(), 0.0);
  count.assign(y.size(), 0);
  for (std::size_t k = 0; k < coo.nonzeros(); ++k) {
    const auto r = static_cast<std::size_t>(coo.row[k]);
    const double p = coo.value[k] * x[static_cast<std::size_t>(coo.col[k])];
    y[r] += p;
    magnitude[r] += std::fabs(p);
    ++count[r];
  }
#if SCANKIT_APP_WITH_EIGEN
  std::vector<Eigen::Triplet<double, std::int64_t>> triplets;
  triplets.reserve(coo.nonzeros());
  for (std::size_t k = 0; k < coo.nonzeros(); ++k) triplets.emplace_back(coo.row[k], coo.col[k], coo.value[k]);
  Eigen::SparseMatrix<double, Eigen::RowMajor, std::int64_t> m(coo.rows, coo.cols);
  m.setFromTriplets(triplets.begin(), triplets.end());
  const Eigen::VectorXd ey = m * Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
  for (std::size_t r = 0; r < y.size(); ++r) y[r] = ey[static_cast<Eigen::Index>(r)];
#endif
}

double median_ms(const std::function<void()>& run, int repeat) {
  run();  // warm-up
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

template <class Value>
int run_on(const app_coo& coo, int repeat) {
  using index_t = std::int32_t;
  const auto nnz = static_cast<std::int64_t>(coo.nonzeros());
  std::vector<Value> values(coo.value.begin(), coo.value.end());
  std::vector<double> x(static_cast<std::size_t>(coo.cols));
  for (std::size_t j = 0; j < x.size(); ++j) x[j] = static_cast<double>(static_cast<Value>(std::sin(0.37 * j + 1.0)));
  std::vector<double> y_ref, magnitude;
  std::vector<std::int64_t> count;
  host_product(coo, x, y_ref, magnitude, count);

  device_vector<index_t> rows(coo.nonzeros()), cols(coo.nonzeros());
  device_vector<Value> vals(coo.nonzeros()), dx(x.size()), dy(y_ref.size());
  SCANKIT_CUDA_CHECK(cudaMemcpy(rows.p, coo.row.data(), nnz * sizeof(index_t), cudaMemcpyHostToDevice));
  SCANKIT_CUDA_CHECK(cudaMemcpy(cols.p, coo.col.data(), nnz * sizeof(index_t), cudaMemcpyHostToDevice));
  SCANKIT_CUDA_CHECK(cudaMemcpy(vals.p, values.data(), nnz * sizeof(Value), cudaMemcpyHostToDevice));
  const std::vector<Value> x_values(x.begin(), x.end());
  SCANKIT_CUDA_CHECK(cudaMemcpy(dx.p, x_values.data(), x.size() * sizeof(Value), cudaMemcpyHostToDevice));
  scankit::workspace ws;
  const auto a = scankit::sparse::coo_to_csr(rows.p, cols.p, vals.p, nnz, coo.rows, coo.cols, nullptr, &ws);
  const auto s = scankit::sparse::analyse_rows<index_t, Value>(a);
  std::cout << "matrix: " << s.rows << " x " << s.cols << ", " << s.nonzeros << " nonzeros, mean row " << std::fixed
            << std::setprecision(2) << s.mean_row_length() << ", longest " << s.max_row_length << ", "
            << s.empty_rows << " empty rows; " << (sizeof(Value) == 4 ? "float" : "double") << " values\n";

  const double u = std::numeric_limits<Value>::epsilon() / 2;
  // Column blocks add each block's sum to y: one rounding more per block.
  const auto check = [&](const std::string& name, int column_blocks = 1) {
    const int extra = column_blocks > 1 ? column_blocks : 0;
    std::vector<Value> got(y_ref.size());
    SCANKIT_CUDA_CHECK(cudaMemcpy(got.data(), dy.p, got.size() * sizeof(Value), cudaMemcpyDeviceToHost));
    std::int64_t wrong = 0;
    for (std::size_t r = 0; r < got.size(); ++r) {
      wrong += std::fabs(got[r] - y_ref[r]) <= static_cast<double>(count[r] + 4 + extra) * u * magnitude[r] ? 0 : 1;
    }
    if (wrong > 0) std::cout << "  " << name << ": " << wrong << " rows outside the error bound\n";
    return wrong == 0;
  };
  const scankit::sparse::dense_vector<const Value> vx{dx.p, coo.cols};
  const scankit::sparse::dense_vector<Value> vy{dy.p, coo.rows};
  struct row {
    std::string name;
    double ms;
    bool ok;
  };
  std::vector<row> table;
  for (auto kernel : {scankit::sparse::spmv_kernel::merge_path, scankit::sparse::spmv_kernel::vector,
                      scankit::sparse::spmv_kernel::automatic}) {
    scankit::sparse::spmv_options options;
    options.kernel = kernel;
    const auto t0 = std::chrono::steady_clock::now();
    const scankit::sparse::spmv_plan<index_t, Value> plan(a, options, nullptr, &ws);
    const double plan_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double ms = median_ms([&] { scankit::sparse::spmv(plan, Value(1), vx, Value(0), vy, nullptr, &ws); }, repeat);
    std::string name = std::string("scankit ") + scankit::sparse::to_string(kernel);
    if (kernel == scankit::sparse::spmv_kernel::automatic) {
      name += " (" + std::string(scankit::sparse::to_string(plan.kernel())) + ")";
    }
    if (plan.kernel() == scankit::sparse::spmv_kernel::vector) name += " width " + std::to_string(plan.vector_width());
    if (plan.column_blocks() > 1) name += ", " + std::to_string(plan.column_blocks()) + " column blocks";
    table.push_back({name + ", plan " + std::to_string(plan_ms).substr(0, 5) + " ms", ms, check(name, plan.column_blocks())});
  }
  double best_cusparse = std::numeric_limits<double>::infinity();
  {
    cusparseHandle_t handle;
    APP_CUSPARSE(cusparseCreate(&handle));
    const cudaDataType type = sizeof(Value) == 4 ? CUDA_R_32F : CUDA_R_64F;
    cusparseSpMatDescr_t ma;
    cusparseDnVecDescr_t mx, my;
    APP_CUSPARSE(cusparseCreateCsr(&ma, a.rows(), a.cols(), a.nonzeros(), const_cast<index_t*>(a.offsets()),
                                   const_cast<index_t*>(a.columns()), const_cast<Value*>(a.values()), CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
    APP_CUSPARSE(cusparseCreateDnVec(&mx, a.cols(), dx.p, type));
    APP_CUSPARSE(cusparseCreateDnVec(&my, a.rows(), dy.p, type));
    const Value one = 1, zero = 0;
    for (auto [alg, name] : {std::pair{CUSPARSE_SPMV_CSR_ALG1, "cuSPARSE CSR_ALG1"}, std::pair{CUSPARSE_SPMV_CSR_ALG2, "cuSPARSE CSR_ALG2"}}) {
      std::size_t bytes = 0;
      APP_CUSPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma, mx, &zero, my, type, alg, &bytes));
      device_vector<char> buffer(bytes);
      APP_CUSPARSE(cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma, mx, &zero, my, type, alg, buffer.p));
      const double ms = median_ms([&] {
        APP_CUSPARSE(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma, mx, &zero, my, type, alg, buffer.p));
      }, repeat);
      best_cusparse = std::min(best_cusparse, ms);
      table.push_back({name, ms, check(name)});
    }
    (void)cusparseDestroySpMat(ma);
    (void)cusparseDestroyDnVec(mx);
    (void)cusparseDestroyDnVec(my);
    (void)cusparseDestroy(handle);
  }
  std::cout << std::left << std::setw(52) << "kernel" << std::right << std::setw(10) << "ms" << std::setw(10)
            << "GFLOP/s" << std::setw(14) << "vs cuSPARSE" << "  check\n";
  bool all_ok = true;
  for (const auto& r : table) {
    std::cout << std::left << std::setw(52) << r.name << std::right << std::setw(10) << std::setprecision(4) << r.ms
              << std::setw(10) << std::setprecision(1) << 2.0 * nnz / (r.ms * 1e6) << std::setw(14)
              << std::setprecision(3) << best_cusparse / r.ms << "  " << (r.ok ? "ok" : "WRONG") << "\n";
    all_ok = all_ok && r.ok;
  }
  std::cout << "(host timing around each call, median of " << repeat << "; vs cuSPARSE: the faster algorithm's time / this)\n";
  return all_ok ? 0 : 1;
}

}  // namespace

int run_spmv_app(int argc, char** argv) {
  std::string input, generate_spec;
  bool use_double = false;
  int repeat = 20;
  CLI::App app{"Reads a Matrix Market file or a METIS graph (or generates a matrix), builds its CSR on the GPU and\n"
               "runs y = A x with every SpMV kernel and cuSPARSE's CSR algorithms, each checked against the host\n"
               "product (Eigen's when built with Eigen); prints GFLOP/s and the ratios to cuSPARSE.",
               "scankit spmv"};
  app.add_option("file", input, "a .mtx Matrix Market file or a .graph METIS graph");
  app.add_option("--generate", generate_spec,
                 "make the matrix instead: poisson2d:N (N^2 rows), poisson3d:N (N^3 rows), rmat:SCALE (2^SCALE\n"
                 "vertices, 16 edges each); default poisson2d:1024 when no file is given");
  app.add_flag("--double", use_double, "double values (default float)");
  app.add_option("--repeat", repeat, "timed runs per kernel (the median is reported)")->check(CLI::Range(1, 1000));
  if (!scankit::apps::parse_command_line(app, argc, argv)) return 0;
  if (!input.empty() && !generate_spec.empty()) fail("give a file or --generate, not both");
  const std::string source = !input.empty() ? input : (generate_spec.empty() ? "poisson2d:1024" : generate_spec);
  app_coo coo = scankit::apps::load_matrix(input, source, "scankit spmv");
  std::cout << source << "\n";
  if (!scankit::cuda_device_available()) {
    std::cout << "no CUDA device: nothing to run\n";
    return 0;
  }
  // Duplicate triplets (R-MAT) are summed by the GPU's CSR build; the host product sums them too.
  return use_double ? run_on<double>(coo, repeat) : run_on<float>(coo, repeat);
}
