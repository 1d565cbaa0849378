// Conjugate gradient on the GPU (precompiled API, g++) against Eigen's direct solve of the same
// Poisson 2D problem, for float and double values and 32- and 64-bit indices; the edge cases
// (b = 0, the exact solution as initial guess, max_iterations, a breakdown) and bad arguments.
//
// Accuracy bound: for any x, ||x - x*|| / ||x*|| <= cond(A) * ||b - A x|| / ||b||, and the 5-point
// Laplacian of an n x n grid has cond(A) = cot^2(pi / (2 (n + 1))) exactly. So each test checks
// the true residual (recomputed on the host in double from the returned x) against the tolerance,
// and the distance to Eigen's solution against cond(A) times that residual.
#include <gtest/gtest.h>

#include <Eigen/Sparse>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "scankit/error.hpp"
#include "scankit/sparse/conjugate_gradient.hpp"
#include "scankit/sparse/csr_build.hpp"
#include "scankit/sparse/generators.hpp"
#include "support/gpu_test.hpp"

namespace scankit::testing {
namespace {

constexpr double pi = 3.14159265358979323846;

double poisson_2d_condition(std::int64_t grid) {
  const double t = std::tan(pi / (2.0 * static_cast<double>(grid + 1)));
  return 1.0 / (t * t);
}

// The Poisson 2D matrix of a grid x grid mesh on the GPU, and the same in double for Eigen.
template <class Index, class Value>
struct poisson_problem {
  std::int64_t grid;
  std::int64_t n;
  sparse::device_csr<Index, Value> a;
  Eigen::SparseMatrix<double> host;

  explicit poisson_problem(std::int64_t grid_) : grid(grid_) {
    const auto coo = sparse::poisson_2d<Index, Value>(grid);
    n = coo.rows;
    device_buffer<Index> rows(coo.row), cols(coo.col);
    device_buffer<Value> values(coo.value);
    a = sparse::coo_to_csr(rows.data(), cols.data(), values.data(), static_cast<std::int64_t>(coo.nonzeros()), coo.rows,
                           coo.cols);
    std::vector<Eigen::Triplet<double>> triplets;
    for (std::size_t k = 0; k < coo.nonzeros(); ++k) {
      triplets.emplace_back(static_cast<int>(coo.row[k]), static_cast<int>(coo.col[k]), static_cast<double>(coo.value[k]));
    }
    host.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
    host.setFromTriplets(triplets.begin(), triplets.end());
  }

  Eigen::VectorXd solve(const std::vector<Value>& b) const {
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(host);
    EXPECT_EQ(ldlt.info(), Eigen::Success);
    return ldlt.solve(to_eigen(b));
  }

  double true_relative_residual(const std::vector<Value>& x, const std::vector<Value>& b) const {
    const Eigen::VectorXd eb = to_eigen(b);
    return (eb - host * to_eigen(x)).norm() / eb.norm();
  }

  static Eigen::VectorXd to_eigen(const std::vector<Value>& v) {
    Eigen::VectorXd e(static_cast<Eigen::Index>(v.size()));
    for (std::size_t i = 0; i < v.size(); ++i) e[static_cast<Eigen::Index>(i)] = static_cast<double>(v[i]);
    return e;
  }
};

template <class Value>
std::vector<Value> right_hand_side(std::int64_t n, std::uint64_t seed) {
  std::vector<Value> b = random_values<Value>(static_cast<std::size_t>(n), seed);
  b[0] = Value(1);  // never all zeros
  return b;
}

// One solve of A x = b on device buffers; `a` is a csr_view, a device_csr or an spmv_plan.
template <class Matrix, class Value>
sparse::cg_result solve(const Matrix& a, const device_buffer<Value>& b, device_buffer<Value>& x,
                        const sparse::cg_options& options = {}, workspace* ws = nullptr) {
  const auto n = static_cast<std::int64_t>(x.size());
  return sparse::conjugate_gradient(a, sparse::dense_vector<const Value>{b.data(), static_cast<std::int64_t>(b.size())},
                                    sparse::dense_vector<Value>{x.data(), n}, options, nullptr, ws);
}

template <class Index, class Value>
void check_converges(std::int64_t grid, double tolerance, double residual_bound, std::uint64_t seed) {
  SCOPED_TRACE("grid " + std::to_string(grid) + ", " + (sizeof(Index) == 4 ? "int32" : "int64") + " indices, " +
               (sizeof(Value) == 4 ? "float" : "double"));
  const poisson_problem<Index, Value> problem(grid);
  const std::vector<Value> b = right_hand_side<Value>(problem.n, seed);
  // double starts anywhere; float from 0, which keeps the gap between the updated and the true
  // residual (rounding, growing with the largest residual on the way) well below the bound.
  device_buffer<Value> d_b(b), d_x(sizeof(Value) == 8 ? random_values<Value>(static_cast<std::size_t>(problem.n), seed + 1)
                                                      : std::vector<Value>(static_cast<std::size_t>(problem.n), Value(0)));

  sparse::cg_options options;
  options.tolerance = tolerance;
  options.max_iterations = 10 * static_cast<int>(problem.n);
  std::vector<int> seen;
  std::vector<double> residuals;
  options.progress = [&](int iteration, double residual) {
    seen.push_back(iteration);
    residuals.push_back(residual);
  };
  const sparse::cg_result result = solve(sparse::csr_view<Index, Value>(problem.a), d_b, d_x, options);
  EXPECT_TRUE(result.converged);
  EXPECT_FALSE(result.breakdown);
  EXPECT_LE(result.relative_residual, tolerance);
  EXPECT_GT(result.iterations, 0);
  EXPECT_LT(result.iterations, options.max_iterations);
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(result.iterations) + 1) << "progress: once for the start, once per iteration";
  for (std::size_t k = 0; k < seen.size(); ++k) EXPECT_EQ(seen[k], static_cast<int>(k));
  EXPECT_EQ(residuals.back(), result.relative_residual);

  const std::vector<Value> x = d_x.download();
  const double residual = problem.true_relative_residual(x, b);
  EXPECT_LE(residual, residual_bound) << "||b - A x|| / ||b|| recomputed on the host";
  const Eigen::VectorXd expected = problem.solve(b);
  const double error = (poisson_problem<Index, Value>::to_eigen(x) - expected).norm() / expected.norm();
  EXPECT_LE(error, poisson_2d_condition(grid) * residual * 1.01 + 1e-12)
      << "distance to Eigen's solution beyond cond(A) * residual (" << residual << ")";
}

TEST(ConjugateGradient, ConvergesToEigensSolutionDouble) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  check_converges<std::int32_t, double>(31, 1e-10, 1e-8, seed);
  check_converges<std::int64_t, double>(24, 1e-10, 1e-8, seed);
}

TEST(ConjugateGradient, ConvergesToEigensSolutionFloat) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  // float: the recurrence residual keeps falling while the true one stays near the rounding floor.
  check_converges<std::int32_t, float>(31, 1e-5, 1e-4, seed);
  check_converges<std::int64_t, float>(24, 1e-5, 1e-4, seed);
}

TEST(ConjugateGradient, LargerThanOneBlockOfPartials) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  // 300^2 = 90000 rows: many blocks per dot product, the last-block combine in use.
  check_converges<std::int32_t, double>(300, 1e-8, 1e-6, seed);
}

TEST(ConjugateGradient, SameBitsEveryRun) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const poisson_problem<std::int32_t, float> problem(200);
  const std::vector<float> b = right_hand_side<float>(problem.n, seed);
  device_buffer<float> d_b(b);
  const sparse::spmv_plan<std::int32_t, float> plan(problem.a);
  sparse::cg_options options;
  options.max_iterations = 50;
  options.tolerance = 0.0;
  std::vector<std::vector<float>> runs;
  std::vector<double> residuals;
  for (int run = 0; run < 2; ++run) {
    device_buffer<float> d_x(std::vector<float>(static_cast<std::size_t>(problem.n), 0.0f));
    const auto result = solve(plan, d_b, d_x, options);
    EXPECT_EQ(result.iterations, 50);
    runs.push_back(d_x.download());
    residuals.push_back(result.relative_residual);
  }
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(residuals[0], residuals[1]);
}

// A caller's workspace of conjugate_gradient_workspace_bytes serves solves on the plan (both SpMV
// kernels: the merge-path one keeps its tile states in it), with the same bits as a solve with a
// temporary workspace, and the matrix overload makes its plan with options.spmv.
TEST(ConjugateGradient, WrappedWorkspaceOfTheQueriedSizeServes) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const poisson_problem<std::int32_t, float> problem(120);
  const std::vector<float> b = right_hand_side<float>(problem.n, seed);
  device_buffer<float> d_b(b);
  const std::vector<float> zeros(static_cast<std::size_t>(problem.n), 0.0f);
  for (const sparse::spmv_kernel kernel : {sparse::spmv_kernel::vector, sparse::spmv_kernel::merge_path}) {
    SCOPED_TRACE(sparse::to_string(kernel));
    sparse::cg_options options;
    options.tolerance = 1e-5;
    options.spmv.kernel = kernel;
    const sparse::spmv_plan<std::int32_t, float> plan(problem.a, options.spmv);
    const std::size_t bytes = sparse::conjugate_gradient_workspace_bytes(plan);
    device_buffer<unsigned char> memory(bytes);
    workspace ws(memory.data(), bytes);
    std::vector<std::vector<float>> solutions;
    for (int run = 0; run < 2; ++run) {
      device_buffer<float> d_x(zeros);
      const auto result = solve(plan, d_b, d_x, options, &ws);
      EXPECT_TRUE(result.converged);
      solutions.push_back(d_x.download());
    }
    device_buffer<float> d_x(zeros);
    const auto result = solve(sparse::csr_view<std::int32_t, float>(problem.a), d_b, d_x, options);
    EXPECT_TRUE(result.converged);
    solutions.push_back(d_x.download());
    EXPECT_EQ(solutions[0], solutions[1]);
    EXPECT_EQ(solutions[0], solutions[2]);
    EXPECT_LE(problem.true_relative_residual(solutions[0], b), 1e-4);
  }
}

TEST(ConjugateGradient, ZeroRightHandSideGivesZeroInNoIterations) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const poisson_problem<std::int32_t, double> problem(16);
  device_buffer<double> d_b(std::vector<double>(static_cast<std::size_t>(problem.n), 0.0));
  device_buffer<double> d_x(random_values<double>(static_cast<std::size_t>(problem.n), seed));
  int calls = 0;
  sparse::cg_options options;
  options.progress = [&](int iteration, double residual) {
    ++calls;
    EXPECT_EQ(iteration, 0);
    EXPECT_EQ(residual, 0.0);
  };
  const auto result = solve(sparse::csr_view<std::int32_t, double>(problem.a), d_b, d_x, options);
  EXPECT_EQ(result.iterations, 0);
  EXPECT_TRUE(result.converged);
  EXPECT_EQ(result.relative_residual, 0.0);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(d_x.download(), std::vector<double>(static_cast<std::size_t>(problem.n), 0.0));
}

TEST(ConjugateGradient, StartsFromTheGivenX) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const poisson_problem<std::int64_t, double> problem(20);
  const std::vector<double> b = right_hand_side<double>(problem.n, seed);
  const Eigen::VectorXd solution = problem.solve(b);
  const std::vector<double> start(solution.data(), solution.data() + solution.size());
  device_buffer<double> d_b(b), d_x(start);
  sparse::cg_options options;
  options.tolerance = 1e-9;
  const auto result = solve(sparse::csr_view<std::int64_t, double>(problem.a), d_b, d_x, options);
  EXPECT_EQ(result.iterations, 0) << "the exact solution as initial guess needs no iteration";
  EXPECT_TRUE(result.converged);
  EXPECT_EQ(d_x.download(), start);
}

TEST(ConjugateGradient, MaxIterationsRespected) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const poisson_problem<std::int32_t, float> problem(64);
  const std::vector<float> b = right_hand_side<float>(problem.n, seed);
  const std::vector<float> start = random_values<float>(static_cast<std::size_t>(problem.n), seed + 1);
  device_buffer<float> d_b(b);
  for (int max_iterations : {0, 1, 7}) {
    SCOPED_TRACE("max_iterations " + std::to_string(max_iterations));
    device_buffer<float> d_x(start);
    sparse::cg_options options;
    options.max_iterations = max_iterations;
    options.tolerance = 1e-12;  // out of reach in 7 iterations
    int last = -1;
    options.progress = [&](int iteration, double) { last = iteration; };
    const auto result = solve(sparse::csr_view<std::int32_t, float>(problem.a), d_b, d_x, options);
    EXPECT_EQ(result.iterations, max_iterations);
    EXPECT_EQ(last, max_iterations);
    EXPECT_FALSE(result.converged);
    const std::vector<float> x = d_x.download();
    if (max_iterations == 0) {
      EXPECT_EQ(x, start) << "no iteration: x untouched";
    } else {
      EXPECT_NE(x, start);
    }
    EXPECT_TRUE(std::isfinite(result.relative_residual));
    EXPECT_GT(result.relative_residual, options.tolerance);
  }
}

TEST(ConjugateGradient, NegativeDefiniteMatrixBreaksDownWithXUntouched) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  auto coo = sparse::poisson_2d<std::int32_t, float>(20);
  for (float& v : coo.value) v = -v;  // -A: p.Ap < 0 at the first step
  device_buffer<std::int32_t> rows(coo.row), cols(coo.col);
  device_buffer<float> values(coo.value);
  const auto a = sparse::coo_to_csr(rows.data(), cols.data(), values.data(), static_cast<std::int64_t>(coo.nonzeros()),
                                    coo.rows, coo.cols);
  const std::int64_t n = coo.rows;
  const std::vector<float> start = random_values<float>(static_cast<std::size_t>(n), seed);
  device_buffer<float> d_b(right_hand_side<float>(n, seed + 1)), d_x(start);
  const auto result = solve(sparse::csr_view<std::int32_t, float>(a), d_b, d_x);
  EXPECT_TRUE(result.breakdown);
  EXPECT_FALSE(result.converged);
  EXPECT_EQ(result.iterations, 0);
  EXPECT_EQ(d_x.download(), start) << "x is the last full iteration's: the start";
}

TEST(ConjugateGradient, EmptyMatrixReturnsAtOnce) {
  SCANKIT_REQUIRE_GPU();
  const sparse::csr_view<std::int32_t, double> empty;
  const auto result = sparse::conjugate_gradient(empty, sparse::dense_vector<const double>{nullptr, 0},
                                                 sparse::dense_vector<double>{nullptr, 0});
  EXPECT_TRUE(result.converged);
  EXPECT_EQ(result.iterations, 0);
}

TEST(ConjugateGradient, BadArgumentsThrowBeforeAnyLaunch) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const poisson_problem<std::int32_t, double> problem(12);
  const std::int64_t n = problem.n;
  const std::vector<double> b = right_hand_side<double>(n, seed);
  const std::vector<double> x0 = random_values<double>(static_cast<std::size_t>(n), seed + 1);
  device_buffer<double> d_b(b), d_x(x0), both(static_cast<std::size_t>(2 * n));
  const sparse::csr_view<std::int32_t, double> a(problem.a);
  const sparse::dense_vector<const double> vb{d_b.data(), n};
  const sparse::dense_vector<double> vx{d_x.data(), n};
  using sparse::conjugate_gradient;

  sparse::csr_view<std::int32_t, double> rectangular = a;
  rectangular.cols = a.cols + 1;
  EXPECT_THROW(conjugate_gradient(rectangular, vb, vx), error);
  sparse::csr_view<std::int32_t, double> negative = a;
  negative.rows = negative.cols = -1;
  EXPECT_THROW(conjugate_gradient(negative, vb, vx), error);
  EXPECT_THROW(conjugate_gradient(a, sparse::dense_vector<const double>{d_b.data(), n - 1}, vx), error);
  EXPECT_THROW(conjugate_gradient(a, vb, sparse::dense_vector<double>{d_x.data(), n + 1}), error);
  EXPECT_THROW(conjugate_gradient(a, sparse::dense_vector<const double>{nullptr, n}, vx), error);
  EXPECT_THROW(conjugate_gradient(a, vb, sparse::dense_vector<double>{nullptr, n}), error);
  EXPECT_THROW(conjugate_gradient(a, sparse::dense_vector<const double>{both.data() + n / 2, n},
                                  sparse::dense_vector<double>{both.data(), n}),
               error)
      << "b and x overlap";
  sparse::cg_options options;
  options.max_iterations = -1;
  EXPECT_THROW(conjugate_gradient(a, vb, vx, options), error);
  options = {};
  options.tolerance = -1e-3;
  EXPECT_THROW(conjugate_gradient(a, vb, vx, options), error);
  options.tolerance = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(conjugate_gradient(a, vb, vx, options), error);
  options = {};
  options.spmv.operation = sparse::spmv_operation::transpose;
  EXPECT_THROW(conjugate_gradient(a, vb, vx, options), error);
  // The plan overload checks the same (here: sizes against the plan's matrix).
  const sparse::spmv_plan<std::int32_t, double> plan(a);
  EXPECT_THROW(conjugate_gradient(plan, vb, sparse::dense_vector<double>{d_x.data(), n - 1}), error);

  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(d_b.download(), b) << "b untouched";
  EXPECT_EQ(d_x.download(), x0) << "x untouched";
}

}  // namespace
}  // namespace scankit::testing
