// Conjugate gradient: solves A x = b for a symmetric positive-definite CSR matrix A in device
// memory. Precompiled host API (callable from g++-compiled code) for indices std::int32_t /
// std::int64_t and values float / double; device pointers; work enqueued on `stream`.
//
//   conjugate_gradient(a, b, x, options, stream, ws)
//       Makes one spmv_plan of `a` (its analysis waits for the device once), then iterates.
//   conjugate_gradient(plan, b, x, options, stream, ws)
//       The same on a plan the caller keeps, for several solves with one matrix.
//
// x holds the initial guess on entry and the solution on return. The iteration is the textbook
// one (Hestenes-Stiefel): r = b - A x, p = r; then per iteration Ap = A p, alpha = r.r / p.Ap,
// x += alpha p, r -= alpha Ap, beta = r'.r' / r.r, p = r' + beta p. It stops when the relative
// residual ||r|| / ||b|| (of the updated residual r, not recomputed from x) is <= tolerance, when
// max_iterations have run, or at a breakdown (p.Ap <= 0 or not finite: A is not positive definite,
// or the values overflowed).
//
// Arithmetic: vectors are updated in the value type; dot products accumulate in double and alpha
// and beta are kept in double on the device. The dot products are deterministic (a fixed
// association for a given size and GPU), and so is the whole solve where the plan's SpMV kernel is.
//
// Synchronisation: the function returns host values, so it waits for the device. It waits once
// before the first iteration (for ||b|| and the initial residual) and once per iteration, for the
// 40 bytes of scalars that the convergence test reads. That wait overlaps the GPU's work: the next
// iteration's direction update, SpMV and p.Ap are queued before the host waits (they change only
// p and Ap, so a solve that stops there returns the same x). It returns after all its work is done.
//
// Memory: the solve's device memory comes from `ws`: three vectors of n values (r, p, Ap), the
// SpMV's tile states, and 24 bytes per block of a dot product for its partial sums. A smaller
// workspace is grown stream-ordered, so one that has served a solve on the plan serves the next
// ones without allocating. conjugate_gradient_workspace_bytes(plan) is the size for wrapped caller
// memory (on the current device). With ws null a temporary workspace is taken and returned. Each
// thread keeps a 40-byte pinned host buffer (cudaMallocHost) for the residual from its first solve
// on (cudaFreeHost would wait for the whole device).
//
// A zero right-hand side gives x = 0 after 0 iterations. An empty matrix returns at once.
// Bad input throws scankit::error before any launch, with b and x untouched: a matrix that is not
// square, b or x of another size than A's rows, b or x null while A is not empty, b and x
// overlapping, a negative max_iterations, a tolerance that is negative or NaN, options.spmv asking
// for the transposed product (A is symmetric: the plain product is the one to use). An invalid
// matrix is rejected by the plan's offsets check (scankit::error), before x is written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include <cuda_runtime_api.h>

#include "scankit/sparse/csr.hpp"
#include "scankit/sparse/spmv.hpp"
#include "scankit/workspace.hpp"

namespace scankit::sparse {

struct cg_options {
  int max_iterations = 1000;
  double tolerance = 1e-6;  // on ||r|| / ||b||
  // Called on the host with (iteration, relative residual): once with 0 for the initial guess,
  // then after every iteration. It runs while the GPU works on the next iteration.
  std::function<void(int, double)> progress;
  spmv_options spmv;  // the SpMV kernel (non_transpose only); the default lets the plan choose
};

struct cg_result {
  int iterations = 0;              // iterations that updated x
  double relative_residual = 0.0;  // ||r|| / ||b|| after them (0 for b = 0)
  bool converged = false;          // relative_residual <= tolerance
  bool breakdown = false;          // stopped because p.Ap <= 0 or not finite
};

#define SCANKIT_DECLARE_CONJUGATE_GRADIENT(I, V)                                                                  \
  cg_result conjugate_gradient(const csr_view<I, V>& a, dense_vector<const V> b, dense_vector<V> x,              \
                               const cg_options& options = {}, cudaStream_t stream = nullptr,                     \
                               workspace* ws = nullptr);                                                          \
  cg_result conjugate_gradient(const spmv_plan<I, V>& plan, dense_vector<const V> b, dense_vector<V> x,          \
                               const cg_options& options = {}, cudaStream_t stream = nullptr,                     \
                               workspace* ws = nullptr);                                                          \
  std::size_t conjugate_gradient_workspace_bytes(const spmv_plan<I, V>& plan);
SCANKIT_DECLARE_CONJUGATE_GRADIENT(std::int32_t, float)
SCANKIT_DECLARE_CONJUGATE_GRADIENT(std::int32_t, double)
SCANKIT_DECLARE_CONJUGATE_GRADIENT(std::int64_t, float)
SCANKIT_DECLARE_CONJUGATE_GRADIENT(std::int64_t, double)
#undef SCANKIT_DECLARE_CONJUGATE_GRADIENT

}  // namespace scankit::sparse
