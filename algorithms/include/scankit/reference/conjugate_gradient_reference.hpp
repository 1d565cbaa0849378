// Host reference of the conjugate gradient (plain C++): the same iteration as
// scankit::sparse::conjugate_gradient (dot products accumulated in double, alpha and beta in
// double, vectors updated in the value type), one row at a time. For the apps on machines without
// a GPU and for tests. Slow and obviously correct; the arguments are assumed valid (square A, b and
// x of A's size).
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "scankit/sparse/conjugate_gradient.hpp"
#include "scankit/sparse/csr.hpp"

namespace scankit::reference {

// y = A v
template <class Index, class Value>
void csr_multiply(const sparse::csr_matrix_host<Index, Value>& a, const std::vector<Value>& v, std::vector<Value>& y) {
  y.assign(static_cast<std::size_t>(a.rows), Value(0));
  for (Index row = 0; row < a.rows; ++row) {
    Value sum = 0;
    for (Index k = a.offsets[row]; k < a.offsets[row + 1]; ++k) sum += a.values[k] * v[a.columns[k]];
    y[row] = sum;
  }
}

template <class Value>
double dot(const std::vector<Value>& u, const std::vector<Value>& v) {
  double sum = 0.0;
  for (std::size_t i = 0; i < u.size(); ++i) sum += static_cast<double>(u[i]) * static_cast<double>(v[i]);
  return sum;
}

// Solves A x = b from the initial guess in x; options.spmv is ignored.
template <class Index, class Value>
sparse::cg_result conjugate_gradient(const sparse::csr_matrix_host<Index, Value>& a, const std::vector<Value>& b,
                                     std::vector<Value>& x, const sparse::cg_options& options) {
  sparse::cg_result result;
  const std::size_t n = b.size();
  const double bb = dot(b, b);
  if (bb == 0.0) {
    x.assign(n, Value(0));
    result.converged = true;
    if (options.progress) options.progress(0, 0.0);
    return result;
  }
  std::vector<Value> r, ap;
  csr_multiply(a, x, r);
  for (std::size_t i = 0; i < n; ++i) r[i] = b[i] - r[i];
  std::vector<Value> p = r;
  double rr = dot(r, r);
  const double b_norm = std::sqrt(bb);
  result.relative_residual = std::sqrt(rr) / b_norm;
  result.converged = result.relative_residual <= options.tolerance;
  if (options.progress) options.progress(0, result.relative_residual);
  for (int k = 1; k <= options.max_iterations && !result.converged && std::isfinite(result.relative_residual); ++k) {
    csr_multiply(a, p, ap);
    const double pap = dot(p, ap);
    if (!(pap > 0.0 && std::isfinite(pap))) {
      result.breakdown = true;
      return result;
    }
    const auto alpha = static_cast<Value>(rr / pap);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] = r[i] - alpha * ap[i];
    }
    const double rr_new = dot(r, r);
    const auto beta = static_cast<Value>(rr > 0.0 ? rr_new / rr : 0.0);
    rr = rr_new;
    for (std::size_t i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
    result.iterations = k;
    result.relative_residual = std::sqrt(rr) / b_norm;
    result.converged = result.relative_residual <= options.tolerance;
    if (options.progress) options.progress(k, result.relative_residual);
  }
  return result;
}

}  // namespace scankit::reference
