// `scankit cg`: solves the 5-point Poisson problem of an N x N grid, A x = b with b all ones (the
// discrete Laplace equation with a unit source everywhere and zero boundary values) and x = 0 to
// start, by conjugate gradient on the GPU. Prints the relative residual ||r|| / ||b|| after every
// iteration with a progress bar, then the residual recomputed on the host from x, and the time per
// iteration. Without a CUDA device (or with --host) the host reference runs instead, with a notice.
// Exit status 0 when the solve converged, 1 when it stopped first. Plain C++ (g++) on the
// precompiled API; options by CLI11.
//
//   scankit cg                                   512^2 grid, float, tolerance 1e-6
//   scankit cg --grid 2048 --double --tolerance 1e-10
//   scankit cg --grid 1024 --iterations 100 --every 10
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>

#include "command_line.hpp"
#include "scankit/error.hpp"
#include "scankit/reference/conjugate_gradient_reference.hpp"
#include "scankit/scan.hpp"  // cuda_device_available
#include "scankit/sparse/conjugate_gradient.hpp"
#include "scankit/sparse/csr_build.hpp"
#include "scankit/sparse/generators.hpp"

namespace {

using index_t = std::int32_t;

struct app_options {
  std::int64_t grid = 512;
  int iterations = 5000;
  double tolerance = 1e-6;
  bool use_double = false;
  bool host = false;
  int every = 1;
};

[[noreturn]] void fail(const std::string& message) { throw scankit::error("scankit cg: " + message); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// How far the solve has come: the residual's way from its start to the tolerance on a log scale,
// or the iterations' way to the maximum, whichever is further.
double progress_fraction(int iteration, double residual, double first_residual, const app_options& o) {
  double fraction = static_cast<double>(iteration) / std::max(o.iterations, 1);
  if (o.tolerance > 0 && first_residual > o.tolerance && residual > 0) {
    fraction = std::max(fraction, std::log(first_residual / residual) / std::log(first_residual / o.tolerance));
  }
  return std::clamp(fraction, 0.0, 1.0);
}

// The progress callback: one line per printed iteration; keeps the time it spends so that the
// time per iteration can leave the printing out.
struct progress_printer {
  const app_options& options;
  double first_residual = 0;
  double printing_s = 0;

  void operator()(int iteration, double residual) {
    const auto t0 = std::chrono::steady_clock::now();
    if (iteration == 0) first_residual = residual;
    if (iteration % options.every == 0 || residual <= options.tolerance || iteration == options.iterations) {
      const int width = 30;
      const double fraction = progress_fraction(iteration, residual, first_residual, options);
      const int filled = static_cast<int>(fraction * width);
      std::printf("iteration %6d  relative residual %.6e  [%s%s] %3d%%\n", iteration, residual,
                  std::string(filled, '#').c_str(), std::string(width - filled, ' ').c_str(),
                  static_cast<int>(fraction * 100));
    }
    printing_s += seconds_since(t0);
  }
};

// ||b - A x|| / ||b|| in double.
template <class Value>
double true_relative_residual(const scankit::sparse::csr_matrix_host<index_t, Value>& a, const std::vector<Value>& b,
                              const std::vector<Value>& x) {
  double rr = 0, bb = 0;
  for (index_t row = 0; row < a.rows; ++row) {
    double ax = 0;
    for (index_t k = a.offsets[row]; k < a.offsets[row + 1]; ++k) {
      ax += static_cast<double>(a.values[k]) * static_cast<double>(x[a.columns[k]]);
    }
    const double r = static_cast<double>(b[row]) - ax;
    rr += r * r;
    bb += static_cast<double>(b[row]) * static_cast<double>(b[row]);
  }
  return bb == 0 ? 0.0 : std::sqrt(rr / bb);
}

// Returns the result and the seconds the solve took (the upload, CSR build and plan left out).
template <class Value>
std::pair<scankit::sparse::cg_result, double> solve_on_gpu(const scankit::sparse::coo_matrix_host<index_t, Value>& coo,
                                                          const std::vector<Value>& b, std::vector<Value>& x,
                                                          const scankit::sparse::cg_options& options) {
  const auto nnz = static_cast<std::int64_t>(coo.nonzeros());
  const std::int64_t n = coo.rows;
  index_t *rows = nullptr, *cols = nullptr;
  Value *values = nullptr, *d_b = nullptr, *d_x = nullptr;
  const auto free_all = [&] {
    for (void* p : {static_cast<void*>(rows), static_cast<void*>(cols), static_cast<void*>(values),
                    static_cast<void*>(d_b), static_cast<void*>(d_x)}) {
      (void)cudaFree(p);
    }
  };
  try {
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&rows), nnz * sizeof(index_t)));
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&cols), nnz * sizeof(index_t)));
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&values), nnz * sizeof(Value)));
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_b), n * sizeof(Value)));
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_x), n * sizeof(Value)));
    SCANKIT_CUDA_CHECK(cudaMemcpy(rows, coo.row.data(), nnz * sizeof(index_t), cudaMemcpyHostToDevice));
    SCANKIT_CUDA_CHECK(cudaMemcpy(cols, coo.col.data(), nnz * sizeof(index_t), cudaMemcpyHostToDevice));
    SCANKIT_CUDA_CHECK(cudaMemcpy(values, coo.value.data(), nnz * sizeof(Value), cudaMemcpyHostToDevice));
    SCANKIT_CUDA_CHECK(cudaMemcpy(d_b, b.data(), n * sizeof(Value), cudaMemcpyHostToDevice));
    SCANKIT_CUDA_CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(Value), cudaMemcpyHostToDevice));
    scankit::workspace ws;
    const auto a = scankit::sparse::coo_to_csr(rows, cols, values, nnz, coo.rows, coo.cols, nullptr, &ws);
    auto t0 = std::chrono::steady_clock::now();
    const scankit::sparse::spmv_plan<index_t, Value> plan(a, {}, nullptr, &ws);
    std::printf("GPU: SpMV plan in %.3f ms (kernel %s)\n", seconds_since(t0) * 1e3, scankit::sparse::to_string(plan.kernel()));
    t0 = std::chrono::steady_clock::now();
    const auto result = scankit::sparse::conjugate_gradient(plan, {d_b, n}, {d_x, n}, options, nullptr, &ws);
    const double solve_s = seconds_since(t0);  // conjugate_gradient returns when its work is done
    SCANKIT_CUDA_CHECK(cudaMemcpy(x.data(), d_x, n * sizeof(Value), cudaMemcpyDeviceToHost));
    free_all();
    return {result, solve_s};
  } catch (...) {
    free_all();
    throw;
  }
}

template <class Value>
int run(const app_options& o) {
  const auto coo = scankit::sparse::poisson_2d<index_t, Value>(o.grid);
  const auto a = scankit::sparse::csr_from_sorted_coo(coo);
  const std::int64_t n = coo.rows;
  const bool gpu = !o.host && scankit::cuda_device_available();
  std::printf("Poisson 2D %lld^2: %lld rows, %zu nonzeros, %s values; b = all ones, x = 0 to start\n",
              static_cast<long long>(o.grid), static_cast<long long>(n), coo.nonzeros(),
              sizeof(Value) == 4 ? "float" : "double");
  if (!gpu) {
    std::printf("%s: the host reference solves it (slow)\n", o.host ? "--host" : "no CUDA device");
  }
  const std::vector<Value> b(static_cast<std::size_t>(n), Value(1));
  std::vector<Value> x(static_cast<std::size_t>(n), Value(0));
  progress_printer printer{o};
  scankit::sparse::cg_options options;
  options.max_iterations = o.iterations;
  options.tolerance = o.tolerance;
  options.progress = [&printer](int iteration, double residual) { printer(iteration, residual); };
  std::fflush(stdout);

  scankit::sparse::cg_result result;
  double solve_s = 0;
  if (gpu) {
    std::tie(result, solve_s) = solve_on_gpu(coo, b, x, options);
  } else {
    const auto t0 = std::chrono::steady_clock::now();
    result = scankit::reference::conjugate_gradient(a, b, x, options);
    solve_s = seconds_since(t0);
  }
  solve_s -= printer.printing_s;

  if (result.converged) {
    std::printf("converged after %d iterations: relative residual %.3e <= tolerance %.3e\n", result.iterations,
                result.relative_residual, o.tolerance);
  } else {
    std::printf("did not converge: stopped after %d iterations%s, relative residual %.3e > tolerance %.3e\n",
                result.iterations, result.breakdown ? " at a breakdown (p.Ap <= 0)" : "", result.relative_residual,
                o.tolerance);
  }
  std::printf("residual recomputed on the host from x, ||b - A x|| / ||b||: %.3e\n", true_relative_residual(a, b, x));
  std::printf("time per iteration (%s): %.4f ms (%d iterations in %.3f ms, the start included, printing left out)\n",
              gpu ? "GPU" : "host reference", result.iterations > 0 ? solve_s * 1e3 / result.iterations : 0.0,
              result.iterations, solve_s * 1e3);
  std::fflush(stdout);
  return result.converged ? 0 : 1;
}

}  // namespace

int run_cg_app(int argc, char** argv) {
  app_options o;
  CLI::App app{"Solves the 5-point Poisson problem of an N x N grid (b all ones, x = 0 to start) by conjugate\n"
               "gradient on the GPU, printing the relative residual ||r|| / ||b|| of every iteration with a\n"
               "progress bar, the residual recomputed on the host, and the time per iteration. Exit status 0\n"
               "when it converged. Without a CUDA device the host reference runs instead.",
               "scankit cg"};
  app.add_option("--grid", o.grid, "N: the grid is N x N, the matrix N^2 x N^2 (default 512)")->check(CLI::Range(1, 8192));
  app.add_option("--iterations", o.iterations, "the most iterations (default 5000)")->check(CLI::Range(0, 100000000));
  app.add_option("--tolerance", o.tolerance, "stop when ||r|| / ||b|| <= this (default 1e-6)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_flag("--double", o.use_double, "double values (default float)");
  app.add_flag("--host", o.host, "run the host reference even with a GPU");
  app.add_option("--every", o.every, "print every K-th iteration (and the last; default 1)")->check(CLI::Range(1, 1000000));
  if (!scankit::apps::parse_command_line(app, argc, argv)) return 0;
  return o.use_double ? run<double>(o) : run<float>(o);
}
