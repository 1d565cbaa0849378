// The host reference of the conjugate gradient (scankit/reference/conjugate_gradient_reference.hpp):
// against Eigen's direct solve of a Poisson 2D problem, b = 0, the iteration limit and a breakdown.
// Runs without a GPU.
#include <gtest/gtest.h>

#include <Eigen/Sparse>

#include <cstdint>
#include <vector>

#include "scankit/reference/conjugate_gradient_reference.hpp"
#include "scankit/sparse/csr.hpp"
#include "scankit/sparse/generators.hpp"

namespace {

using scankit::sparse::cg_options;
using scankit::sparse::csr_matrix_host;

csr_matrix_host<std::int32_t, double> poisson(std::int64_t grid, double sign = 1.0) {
  auto a = scankit::sparse::csr_from_sorted_coo(scankit::sparse::poisson_2d<std::int32_t, double>(grid));
  for (double& v : a.values) v *= sign;
  return a;
}

Eigen::SparseMatrix<double> to_eigen(const csr_matrix_host<std::int32_t, double>& a) {
  std::vector<Eigen::Triplet<double>> triplets;
  for (std::int32_t row = 0; row < a.rows; ++row) {
    for (std::int32_t k = a.offsets[row]; k < a.offsets[row + 1]; ++k) triplets.emplace_back(row, a.columns[k], a.values[k]);
  }
  Eigen::SparseMatrix<double> m(a.rows, a.cols);
  m.setFromTriplets(triplets.begin(), triplets.end());
  return m;
}

std::vector<double> right_hand_side(std::size_t n) {
  std::vector<double> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<double>(static_cast<int>(i * 7919 % 17) - 8) + 0.5;
  return b;
}

TEST(ConjugateGradientReference, ConvergesToEigensSolution) {
  const auto a = poisson(20);
  const std::vector<double> b = right_hand_side(static_cast<std::size_t>(a.rows));
  std::vector<double> x(b.size(), 0.0);
  cg_options options;
  options.tolerance = 1e-12;
  int calls = 0;
  options.progress = [&](int iteration, double) { EXPECT_EQ(iteration, calls++); };
  const auto result = scankit::reference::conjugate_gradient(a, b, x, options);
  EXPECT_TRUE(result.converged);
  EXPECT_FALSE(result.breakdown);
  EXPECT_EQ(calls, result.iterations + 1);
  const Eigen::SparseMatrix<double> m = to_eigen(a);
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(m);
  const Eigen::VectorXd expected = ldlt.solve(Eigen::Map<const Eigen::VectorXd>(b.data(), static_cast<Eigen::Index>(b.size())));
  const Eigen::VectorXd got = Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
  EXPECT_LT((got - expected).norm() / expected.norm(), 1e-9);
}

TEST(ConjugateGradientReference, ZeroRightHandSideGivesZero) {
  const auto a = poisson(8);
  std::vector<double> x(static_cast<std::size_t>(a.rows), 3.0);
  const auto result = scankit::reference::conjugate_gradient(a, std::vector<double>(x.size(), 0.0), x, cg_options{});
  EXPECT_TRUE(result.converged);
  EXPECT_EQ(result.iterations, 0);
  EXPECT_EQ(x, std::vector<double>(x.size(), 0.0));
}

TEST(ConjugateGradientReference, StopsAtMaxIterations) {
  const auto a = poisson(30);
  const std::vector<double> b = right_hand_side(static_cast<std::size_t>(a.rows));
  std::vector<double> x(b.size(), 0.0);
  cg_options options;
  options.max_iterations = 4;
  options.tolerance = 1e-14;
  const auto result = scankit::reference::conjugate_gradient(a, b, x, options);
  EXPECT_EQ(result.iterations, 4);
  EXPECT_FALSE(result.converged);
}

TEST(ConjugateGradientReference, NegativeDefiniteMatrixBreaksDown) {
  const auto a = poisson(8, -1.0);
  const std::vector<double> b = right_hand_side(static_cast<std::size_t>(a.rows));
  std::vector<double> x(b.size(), 1.0);
  const auto result = scankit::reference::conjugate_gradient(a, b, x, cg_options{});
  EXPECT_TRUE(result.breakdown);
  EXPECT_FALSE(result.converged);
  EXPECT_EQ(result.iterations, 0);
  EXPECT_EQ(x, std::vector<double>(b.size(), 1.0));
}

}  // namespace
